//===- emu/Semantics.h - What instruction handlers are written with -------===//
//
// Operand access for handlers, written once: scalar reads and writes of any
// operand kind, vector sources as 64-lane arrays (a VGPR is used in place;
// an SGPR or constant is broadcast into a temporary), masked vector writes,
// and the registration hooks each family file provides.
//
// Handler conventions:
//  - operands are in DecodedInst::Dst / Src / Imm (see Inst.h for order);
//  - a handler that branches sets W.NextIndex (or calls jumpTo); others
//    leave it, and execution falls through;
//  - a handler that faults calls raiseFault/checkMemory and returns;
//  - vector handlers honour EXEC: inactive lanes keep their old values.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_EMU_SEMANTICS_H
#define LOOM_EMU_SEMANTICS_H

#include "Decoder.h"
#include "Dispatch.h"
#include "Wave.h"

#include <bit>
#include <cstdint>
#include <cstring>

namespace loom::emu {

/// 64 lanes of 32-bit values, aligned for vector loads.
struct alignas(64) Lanes32 {
  uint32_t V[WaveSize];
};
struct alignas(64) Lanes64 {
  uint64_t V[WaveSize];
};

//===----------------------------------------------------------------------===//
// Scalar operands
//===----------------------------------------------------------------------===//

inline uint32_t readScalar32(const Wave &W, const Operand &Op) {
  switch (Op.K) {
  case Operand::Sgpr:
    return W.S[Op.Index];
  case Operand::Imm:
    return static_cast<uint32_t>(Op.Value);
  case Operand::Special:
    return static_cast<uint32_t>(specialValue(W, Op.Index));
  default:
    return 0;
  }
}

/// A 64-bit scalar source. Constants arrive from the MC layer already
/// expanded to 64 bits (inline constants; FP64 literals shifted high).
inline uint64_t readScalar64(const Wave &W, const Operand &Op) {
  switch (Op.K) {
  case Operand::Sgpr:
    return W.read64(Op.Index);
  case Operand::Imm:
    return static_cast<uint64_t>(Op.Value);
  case Operand::Special:
    return specialValue(W, Op.Index);
  default:
    return 0;
  }
}

inline void writeScalar32(Wave &W, const Operand &Op, uint32_t V) {
  if (Op.K == Operand::Sgpr && Op.Index != SgprNull)
    W.S[Op.Index] = V;
}

inline void writeScalar64(Wave &W, const Operand &Op, uint64_t V) {
  if (Op.K == Operand::Sgpr && Op.Index != SgprNull)
    W.write64(Op.Index, V);
}

//===----------------------------------------------------------------------===//
// Vector operands
//===----------------------------------------------------------------------===//

/// The 64 lanes of a 32-bit vector source: the register itself, or \p Tmp
/// filled with a broadcast scalar or constant. \p Part selects the dword of
/// a multi-register operand (1 for the high half of v[0:1]).
inline const uint32_t *readVector32(const Wave &W, const Operand &Op,
                                    Lanes32 &Tmp, unsigned Part = 0) {
  if (Op.isVector())
    return W.vgpr(W.vectorIndex(Op) + Part);
  uint32_t V;
  if (Op.K == Operand::Sgpr)
    V = W.S[Op.Index + Part];
  else
    V = static_cast<uint32_t>(
        (Op.K == Operand::Imm ? static_cast<uint64_t>(Op.Value)
                              : specialValue(W, Op.Index)) >>
        (32 * Part));
  for (unsigned L = 0; L < WaveSize; ++L)
    Tmp.V[L] = V;
  return Tmp.V;
}

/// The 64 lanes of a 64-bit vector source, gathered into \p Out.
inline void readVector64(const Wave &W, const Operand &Op, Lanes64 &Out) {
  if (Op.isVector()) {
    const uint32_t *Lo = W.vgpr(W.vectorIndex(Op));
    const uint32_t *Hi = Lo + WaveSize;
    for (unsigned L = 0; L < WaveSize; ++L)
      Out.V[L] = uint64_t(Lo[L]) | (uint64_t(Hi[L]) << 32);
    return;
  }
  uint64_t V = readScalar64(W, Op);
  for (unsigned L = 0; L < WaveSize; ++L)
    Out.V[L] = V;
}

/// Writes \p Val to the lanes of vector register operand \p Dst that are set
/// in \p Mask (EXEC, normally).
inline void writeVector32(Wave &W, const Operand &Dst, const uint32_t *Val,
                          uint64_t Mask, unsigned Part = 0) {
  uint32_t *D = W.vgpr(W.vectorIndex(Dst) + Part);
  if (Mask == ~0ull) {
    std::memcpy(D, Val, sizeof(uint32_t) * WaveSize);
    return;
  }
  for (unsigned L = 0; L < WaveSize; ++L)
    D[L] = (Mask >> L) & 1 ? Val[L] : D[L];
}

inline void writeVector64(Wave &W, const Operand &Dst, const uint64_t *Val,
                          uint64_t Mask) {
  uint32_t *Lo = W.vgpr(W.vectorIndex(Dst));
  uint32_t *Hi = Lo + WaveSize;
  for (unsigned L = 0; L < WaveSize; ++L)
    if ((Mask >> L) & 1) {
      Lo[L] = static_cast<uint32_t>(Val[L]);
      Hi[L] = static_cast<uint32_t>(Val[L] >> 32);
    }
}

//===----------------------------------------------------------------------===//
// Counting
//===----------------------------------------------------------------------===//

/// Adds \p Bytes to the memory-byte counter of the current instruction.
inline void countBytes(Wave &W, const DecodedInst &I, uint64_t Bytes) {
  if (W.D->Count)
    W.Counters->Bytes[I.Id] += Bytes;
}

//===----------------------------------------------------------------------===//
// Registration: each family file defines one of these.
//===----------------------------------------------------------------------===//

void registerScalarOps(HandlerTable &T);  // SOP1/SOP2/SOPK/SOPC/SOPP
void registerScalarMemoryOps(HandlerTable &T); // SMEM
void registerVectorOps(HandlerTable &T);  // VOP1/VOP2/VOP3/VOPC/VOP3P
void registerMemoryOps(HandlerTable &T);  // FLAT/GLOBAL/SCRATCH, DS, MUBUF
void registerMatrixOps(HandlerTable &T);  // MFMA

//===----------------------------------------------------------------------===//
// Vector memory: access records (used by every memory family)
//===----------------------------------------------------------------------===//

/// With DeviceOptions::RecordMemoryAccesses, appends the MemoryAccessRecord
/// of the current instruction: the lanes of \p Mask accessed \p BytesPerLane
/// bytes at \p Addr[lane] (indexed by lane) in \p Space (0 global, 1 LDS,
/// 2 scratch, 3 scalar). A scalar access passes Mask 1 and Addr[0].
inline void recordAccess(Wave &W, const DecodedInst &I, uint64_t Mask,
                         const uint64_t *Addr, uint32_t BytesPerLane,
                         bool IsWrite, bool IsAtomic, uint8_t Space) {
  if (!W.D->Record || !Mask)
    return;
  MemoryAccessRecord R;
  R.Pc = I.Address;
  R.WaveId = W.WaveId;
  R.ExecMask = Mask;
  R.BytesPerLane = BytesPerLane;
  R.IsWrite = IsWrite;
  R.IsAtomic = IsAtomic;
  R.Space = Space;
  R.Addresses.reserve(std::popcount(Mask));
  for (uint64_t M = Mask; M; M &= M - 1)
    R.Addresses.push_back(Addr[std::countr_zero(M)]);
  W.Counters->Accesses.push_back(std::move(R));
}

//===----------------------------------------------------------------------===//
// Scalar unit: GPR indexing mode (set by s_set_gpr_idx_*)
//===----------------------------------------------------------------------===//

/// MODE.GPR_IDX_EN: while set, vector instructions add M0[7:0] to the
/// register number of their VGPR/AGPR operands in the slots M0[15:12]
/// selects (bit 12 src0, 13 src1, 14 src2, 15 vdst). Clang emits it at -O0
/// for dynamically indexed vectors (s_set_gpr_idx_on; v_mov_b32;
/// s_set_gpr_idx_off).
inline constexpr uint32_t ModeGprIdxEn = 1u << 27;

enum GprIdxSlot : unsigned {
  GprIdxSrc0 = 0,
  GprIdxSrc1 = 1,
  GprIdxSrc2 = 2,
  GprIdxDst = 3
};

/// Registers to add to the vector operand in \p Slot: M0[7:0] when GPR
/// indexing is on for that slot, else 0 (a handler can test
/// W.Mode & ModeGprIdxEn once and keep its fast path otherwise).
inline unsigned gprIdxOffset(const Wave &W, GprIdxSlot Slot) {
  uint32_t M0 = W.m0();
  return (W.Mode & ModeGprIdxEn) && ((M0 >> (12 + Slot)) & 1) ? M0 & 0xff
                                                              : 0;
}

} // namespace loom::emu

#endif // LOOM_EMU_SEMANTICS_H
