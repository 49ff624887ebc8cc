//===- emu/ops/Scratch.h - Private memory layout; vector memory helpers ---===//
//
// Private (scratch) memory is swizzled by lane: dword D of lane L of a wave
// lives at
//
//   wave_base + D * 64 * 4 + L * 4
//
// (AMDGPUUsage, "Address Space Identifier": private-address-wavefront =
// (private-address-lane / 4) * wavefront-size * 4 + lane * 4 +
// private-address-lane % 4). gfx90a reaches it three ways, all with this one
// layout, so a lane sees the same bytes by every path:
//  - MUBUF through the private segment V# (ADD_TID_ENABLE, SWIZZLE_ENABLE,
//    element size 4, index stride 64), wave base = V# base + soffset;
//  - SCRATCH_* instructions, wave base = FLAT_SCRATCH (the kernel prologue
//    sets it to flat scratch init + the wave's scratch offset);
//  - FLAT instructions whose address is in the private aperture, wave base
//    = FLAT_SCRATCH, private offset = the low 32 bits of the address.
// An access wider than a dword, or one crossing a dword boundary, is split
// into its dword pieces, each placed by the formula.
//
// The rest of the file is what the FLAT/GLOBAL/SCRATCH, DS and MUBUF
// families share: data widths and their register conversions, the per-lane
// access plan with its checks, and the atomic operations.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_EMU_OPS_SCRATCH_H
#define LOOM_EMU_OPS_SCRATCH_H

#include "../DeviceImpl.h"
#include "../Semantics.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

namespace loom::emu {

// Registration of the vector memory families (called by registerMemoryOps).
void registerFlatOps(HandlerTable &T);   // FLAT, GLOBAL, SCRATCH
void registerDsOps(HandlerTable &T);     // DS
void registerBufferOps(HandlerTable &T); // MUBUF

namespace vmem {

/// Every vector memory handler counts as a memory instruction with lanes.
inline constexpr uint32_t MemFlags = FlagMemory | FlagVector;

//===----------------------------------------------------------------------===//
// Private memory layout
//===----------------------------------------------------------------------===//

/// Host address of byte \p Offset of lane \p Lane's private memory in a wave
/// whose scratch starts at \p WaveBase.
inline uint64_t scratchAddress(uint64_t WaveBase, uint64_t Offset,
                               unsigned Lane) {
  return WaveBase + (Offset >> 2) * (WaveSize * 4) + Lane * 4 + (Offset & 3);
}

/// Moves \p Bytes between \p Buf and private bytes [Offset, Offset + Bytes)
/// of a lane, one dword piece at a time.
template <bool ToMemory>
inline void scratchCopy(uint64_t WaveBase, uint32_t Offset, unsigned Lane,
                        uint8_t *Buf, unsigned Bytes) {
  while (Bytes) {
    unsigned Piece = std::min(Bytes, 4 - (Offset & 3));
    void *P = reinterpret_cast<void *>(scratchAddress(WaveBase, Offset, Lane));
    if constexpr (ToMemory)
      std::memcpy(P, Buf, Piece);
    else
      std::memcpy(Buf, P, Piece);
    Buf += Piece;
    Offset += Piece;
    Bytes -= Piece;
  }
}

/// Whether private bytes [Offset, Offset + Bytes) of lane \p Lane, laid out
/// from \p WaveBase, all lie in the wave's own scratch (W.ScratchBase, 64
/// lanes of W.ScratchBytesPerLane bytes). Placement grows with the offset, so
/// the first and the last byte decide.
inline bool scratchInRange(const Wave &W, uint64_t WaveBase, uint64_t Offset,
                           unsigned Bytes, unsigned Lane) {
  uint64_t Lo = W.ScratchBase;
  uint64_t Hi = Lo + uint64_t(W.ScratchBytesPerLane) * WaveSize;
  uint64_t First = scratchAddress(WaveBase, Offset, Lane);
  uint64_t Last = scratchAddress(WaveBase, Offset + Bytes - 1, Lane);
  return Bytes && First >= Lo && Last < Hi;
}

/// Reports an access to private memory outside the wave's scratch.
inline void scratchFault(Wave &W, uint64_t Offset, unsigned Bytes,
                         unsigned Lane, bool IsWrite) {
  raiseFault(W, DispatchStatus::MemoryFault, PrivateApertureBase + Offset,
             IsWrite,
             llvm::formatv("memory fault: scratch {0} of {1} bytes at private "
                           "address {2:x} (flat {3:x}) in lane {4}, outside "
                           "the wave's scratch of {5} bytes per lane",
                           IsWrite ? "write" : "read", Bytes, Offset,
                           PrivateApertureBase + Offset, Lane,
                           W.ScratchBytesPerLane)
                 .str());
}

/// Reports an access to LDS beyond the work-group's allocation. \p Address
/// is what the program used (an LDS offset, or a flat address).
inline void ldsFault(Wave &W, uint64_t Address, uint64_t Offset,
                     unsigned Bytes, unsigned Lane, bool IsWrite) {
  raiseFault(W, DispatchStatus::MemoryFault, Address, IsWrite,
             llvm::formatv("memory fault: LDS {0} of {1} bytes at LDS offset "
                           "{2:x} in lane {3}, beyond the work-group's {4} "
                           "bytes of LDS",
                           IsWrite ? "write" : "read", Bytes, Offset, Lane,
                           W.LdsSize)
                 .str());
}

//===----------------------------------------------------------------------===//
// Data widths and register conversions
//===----------------------------------------------------------------------===//

/// What a load or store moves per lane: \p Bytes of memory, \p Regs VGPRs.
/// Sub-dword loads extend (zero or \p Signed); D16 forms write (or store
/// from) only the low (1) or high (2) half of the VGPR.
struct Width {
  uint8_t Bytes;
  uint8_t Regs;
  bool Signed = false;
  uint8_t D16 = 0;
};

inline constexpr Width U8{1, 1}, I8{1, 1, true}, U16{2, 1}, I16{2, 1, true},
    B32{4, 1}, B64{8, 2}, B96{12, 3}, B128{16, 4};
inline constexpr Width U8D16{1, 1, false, 1}, I8D16{1, 1, true, 1},
    B16D16{2, 1, false, 1}, U8D16Hi{1, 1, false, 2}, I8D16Hi{1, 1, true, 2},
    B16D16Hi{2, 1, false, 2};
// Stores: sub-dword stores take the low bits, or the high half (D16 = 2).
inline constexpr Width S8{1, 1}, S16{2, 1}, S8Hi{1, 1, false, 2},
    S16Hi{2, 1, false, 2};

/// The register value of a sub-dword load of \p Raw (the bytes, little
/// endian, upper bytes zero) into a register holding \p Old.
template <Width Wd> inline uint32_t loadValue(uint32_t Raw, uint32_t Old) {
  uint32_t V = Raw;
  if constexpr (Wd.Bytes == 1)
    V = Wd.Signed ? uint32_t(int32_t(int8_t(Raw))) : uint8_t(Raw);
  else if constexpr (Wd.Bytes == 2)
    V = Wd.Signed ? uint32_t(int32_t(int16_t(Raw))) : uint16_t(Raw);
  if constexpr (Wd.D16 == 1)
    return (Old & 0xffff0000u) | (V & 0xffffu);
  else if constexpr (Wd.D16 == 2)
    return (Old & 0xffffu) | (V << 16);
  return V;
}

/// The bytes a sub-dword store writes, from register value \p Reg.
template <Width Wd> inline uint32_t storeValue(uint32_t Reg) {
  return Wd.D16 == 2 ? Reg >> 16 : Reg;
}

//===----------------------------------------------------------------------===//
// Access plans
//===----------------------------------------------------------------------===//

/// Where each lane of one access goes, after every check passed: a host
/// address (global memory, or the LDS bytes); for lanes in Private a
/// private offset placed by scratchAddress from WaveBase; for lanes in Split
/// (swizzled buffers) one host address per dword, Pieces[L][K].
struct Plan {
  alignas(64) uint64_t Addr[WaveSize];
  uint64_t Mask = 0;    ///< lanes that access memory
  uint64_t Private = 0; ///< lanes whose Addr is a private offset
  uint64_t Local = 0;   ///< lanes whose Addr points into W.Lds
  uint64_t Split = 0;   ///< lanes placed dword by dword by Pieces
  uint64_t WaveBase = 0;
  const uint64_t (*Pieces)[4] = nullptr;
  /// MUBUF raw-buffer range checking: lane L moves only its first Dwords[L]
  /// dwords (the rest read as zero, or are not written). Null: all.
  const uint8_t *Dwords = nullptr;
};

/// Lanes of \p Mask, lowest first.
template <typename F> inline void forLanes(uint64_t Mask, F &&Fn) {
  while (Mask) {
    unsigned L = std::countr_zero(Mask);
    Mask &= Mask - 1;
    Fn(L);
  }
}

/// Whether the access [Addr[L], Addr[L] + Bytes) of every lane of \p Mask
/// lies in \p R. Branch-free over the lanes so that it vectorises: with
/// Limit the last offset an access may start at, a lane is outside exactly
/// when its offset D exceeds Limit, that is when D or Limit - D has the top
/// bit set (for ranges below 2^63 bytes; larger ones answer false and the
/// caller checks lane by lane).
inline bool lanesWithin(const MemoryRange &R, const uint64_t *Addr,
                        uint64_t Mask, unsigned Bytes) {
  if (R.Size < Bytes || (R.Size >> 63))
    return false;
  uint64_t Limit = R.Size - Bytes, Outside = 0;
  // A full EXEC needs no per-lane mask bit (a shift by the lane number,
  // which baseline x86-64 has no vector instruction for).
  if (Mask == ~uint64_t(0)) {
    for (unsigned L = 0; L < WaveSize; ++L) {
      uint64_t D = Addr[L] - R.Base;
      Outside |= D | (Limit - D);
    }
  } else {
    for (unsigned L = 0; L < WaveSize; ++L) {
      uint64_t D = Addr[L] - R.Base;
      Outside |= (D | (Limit - D)) & -((Mask >> L) & 1);
    }
  }
  return !(Outside >> 63);
}

/// Checks that every lane of \p Mask may access [Addr[L], Addr[L] + Bytes)
/// of global memory. In the common case, a wave working on one buffer, the
/// range of the first lane (from the wave's cache) holds every lane's
/// access: one pass over the lanes decides. Otherwise each lane is checked
/// in lane order and the first bad one faults.
inline bool checkGlobal(Wave &W, const uint64_t *Addr, uint64_t Mask,
                        unsigned Bytes, bool IsWrite) {
  if (!Mask)
    return true;
  const MemoryRange *R = rangeFor(W, Addr[std::countr_zero(Mask)],
                                  IsWrite ? AccessWrite : AccessRead);
  if (R && lanesWithin(*R, Addr, Mask, Bytes))
    return true;
  bool Ok = true;
  forLanes(Mask, [&](unsigned L) {
    Ok = Ok && checkMemory(W, Addr[L], Bytes, IsWrite, int(L));
  });
  return Ok;
}

/// Reports that lane \p Lane (one of \p Lanes lanes) accessed LDS beyond
/// the work-group's allocation at \p Address (an LDS offset, or a flat
/// address; \p Offset in LDS). The hardware drops such writes and reads
/// zero, and so does Loom, counting them for the dispatch's warning
/// (docs/emu.md, "LDS out of range"); with DeviceOptions::StrictLds it is
/// a memory fault. False after a fault.
inline bool ldsOutOfRange(Wave &W, uint64_t Address, uint64_t Offset,
                          unsigned Bytes, unsigned Lane, uint64_t Lanes,
                          bool IsWrite) {
  if (W.D->StrictLds) {
    ldsFault(W, Address, Offset, Bytes, Lane, IsWrite);
    return false;
  }
  noteLdsOutOfRange(W, Lanes, Address, IsWrite, [&] {
    return llvm::formatv("LDS {0} of {1} bytes at LDS offset {2:x} in lane "
                         "{3}, beyond the work-group's {4} bytes of LDS: {5}",
                         IsWrite ? "write" : "read", Bytes, Offset, Lane,
                         W.LdsSize,
                         IsWrite ? "dropped" : "read as zero")
        .str();
  });
  return true;
}

/// Places lane L's LDS offset \p OffsetOf(L) in P.Addr as a host address
/// in the work-group's LDS. Lanes of the plan whose [offset, offset +
/// Bytes) does not lie in the allocation leave P.Mask (see ldsOutOfRange):
/// callers write nothing for them and give the lanes of EXEC outside P.Mask
/// zero. LDS offsets are 32-bit (the hardware's sums wrap there); callers
/// pass them wrapped. False after a fault (strict LDS).
template <class F>
inline bool ldsPlanFrom(Wave &W, Plan &P, unsigned Bytes, bool IsWrite,
                        F &&OffsetOf) {
  // With offsets below 2^32, [O, O + Bytes) fits exactly when Limit - O
  // has no top bit (Limit wraps to above 2^63 when not even one access
  // fits). One branch-free pass over every lane places them all, and
  // vectorises; the lanes outside EXEC hold whatever their VGPRs gave, so
  // only when some lane is outside are the plan's lanes checked one by one.
  uint64_t Limit = uint64_t(W.LdsSize) - Bytes, Outside = 0;
  uint64_t Base = reinterpret_cast<uint64_t>(W.Lds);
  for (unsigned L = 0; L < WaveSize; ++L) {
    uint64_t O = OffsetOf(L);
    Outside |= Limit - O;
    P.Addr[L] = Base + O;
  }
  if (P.Mask && (Outside >> 63)) [[unlikely]] {
    uint64_t Bad = 0;
    for (unsigned L = 0; L < WaveSize; ++L)
      Bad |= uint64_t((Limit - (P.Addr[L] - Base)) >> 63) << L;
    Bad &= P.Mask;
    if (Bad) {
      unsigned L = std::countr_zero(Bad);
      uint64_t O = P.Addr[L] - Base;
      if (!ldsOutOfRange(W, O, O, Bytes, L, std::popcount(Bad), IsWrite))
        return false;
      P.Mask &= ~Bad;
    }
  }
  P.Local = P.Mask;
  return true;
}

/// ldsPlan with the offsets already in P.Addr.
inline bool ldsPlan(Wave &W, Plan &P, unsigned Bytes, bool IsWrite) {
  return ldsPlanFrom(W, P, Bytes, IsWrite, [&](unsigned L) { return P.Addr[L]; });
}

/// Reports a misaligned atomic (the hardware needs natural alignment).
inline void misalignedAtomic(Wave &W, uint64_t Address, unsigned Bytes,
                             unsigned Lane) {
  raiseFault(W, DispatchStatus::MemoryFault, Address, true,
             llvm::formatv("memory fault: atomic of {0} bytes at misaligned "
                           "address {1:x} in lane {2}",
                           Bytes, Address, Lane)
                 .str());
}

/// Moves \p Bytes between \p Buf and lane \p L's target (private and split
/// lanes piece by piece).
template <bool ToMemory>
inline void laneCopy(const Plan &P, unsigned L, uint8_t *Buf, unsigned Bytes) {
  if (!(((P.Private | P.Split) >> L) & 1)) {
    void *A = reinterpret_cast<void *>(P.Addr[L]);
    if constexpr (ToMemory)
      std::memcpy(A, Buf, Bytes);
    else
      std::memcpy(Buf, A, Bytes);
  } else if ((P.Private >> L) & 1) {
    scratchCopy<ToMemory>(P.WaveBase, uint32_t(P.Addr[L]), L, Buf, Bytes);
  } else {
    for (unsigned K = 0; 4 * K < Bytes; ++K) {
      void *A = reinterpret_cast<void *>(P.Pieces[L][K]);
      unsigned N = std::min(4u, Bytes - 4 * K);
      if constexpr (ToMemory)
        std::memcpy(A, Buf + 4 * K, N);
      else
        std::memcpy(Buf + 4 * K, A, N);
    }
  }
}

/// Whether every lane of the plan is a plain host address moving the whole
/// access (no scratch swizzle, no split, no partial range).
inline bool isPlain(const Plan &P) {
  return !(P.Private | P.Split) && !P.Dwords;
}

/// Whether every lane of the wave accesses its \p Bytes right after the
/// previous lane's (a wave reading or writing one contiguous block, as
/// unit-stride array code does): then one copy does the whole wave.
inline bool isContiguousWave(const Plan &P, unsigned Bytes) {
  if (P.Mask != ~uint64_t(0) || !isPlain(P) ||
      P.Addr[WaveSize - 1] - P.Addr[0] != (WaveSize - 1) * Bytes)
    return false;
  uint64_t Base = P.Addr[0], Off = 0;
  bool Same = true;
  for (unsigned L = 0; L < WaveSize; ++L, Off += Bytes)
    Same &= P.Addr[L] - Base == Off;
  return Same;
}

/// Loads into VGPRs \p Dst.. (unified-file index) for the lanes of \p Exec:
/// lanes of the plan read memory, the others (MUBUF out of range) read
/// zeros. All lanes are read before any register is written (the
/// destination may overlap the address).
template <Width Wd>
void loadLanes(Wave &W, unsigned Dst, const Plan &P, uint64_t Exec) {
  if (Wd.Bytes == 4 * Wd.Regs && (Exec & P.Mask) == ~uint64_t(0) &&
      isPlain(P)) {
    // A whole wave of whole dwords goes straight to the registers: the
    // addresses are in the plan already, and no memory aliases a VGPR.
    uint32_t *Out = W.vgpr(Dst); // register R of lane L: Out[R * 64 + L]
    if (isContiguousWave(P, Wd.Bytes)) {
      const uint32_t *A = reinterpret_cast<const uint32_t *>(P.Addr[0]);
      if constexpr (Wd.Regs == 1)
        std::memcpy(Out, A, WaveSize * 4);
      else
        for (unsigned L = 0; L < WaveSize; ++L)
          for (unsigned R = 0; R < Wd.Regs; ++R)
            Out[R * WaveSize + L] = A[L * Wd.Regs + R];
      return;
    }
    for (unsigned L = 0; L < WaveSize; ++L)
      for (unsigned R = 0; R < Wd.Regs; ++R)
        std::memcpy(&Out[R * WaveSize + L],
                    reinterpret_cast<const uint8_t *>(P.Addr[L]) + 4 * R, 4);
    return;
  }
  Lanes32 Val[Wd.Regs];
  if (Exec & ~P.Mask)
    for (unsigned R = 0; R < Wd.Regs; ++R)
      std::memset(Val[R].V, 0, sizeof(Val[R].V));
  if (Wd.Bytes == 4 * Wd.Regs && isContiguousWave(P, Wd.Bytes)) {
    const uint32_t *A = reinterpret_cast<const uint32_t *>(P.Addr[0]);
    if constexpr (Wd.Regs == 1) {
      std::memcpy(Val[0].V, A, sizeof(Val[0].V));
    } else {
      for (unsigned L = 0; L < WaveSize; ++L)
        for (unsigned R = 0; R < Wd.Regs; ++R)
          std::memcpy(&Val[R].V[L], A + L * Wd.Regs + R, 4);
    }
  } else if (isPlain(P)) {
    // Fixed-size copies the compiler inlines.
    auto Lane = [&](unsigned L) {
      const uint8_t *A = reinterpret_cast<const uint8_t *>(P.Addr[L]);
      if constexpr (Wd.Bytes >= 4) {
        for (unsigned R = 0; R < Wd.Regs; ++R)
          std::memcpy(&Val[R].V[L], A + 4 * R, 4);
      } else {
        uint32_t Raw = 0;
        std::memcpy(&Raw, A, Wd.Bytes);
        Val[0].V[L] = Raw;
      }
    };
    // A whole wave needs no walk over the mask's bits: a counted loop the
    // compiler unrolls.
    if (P.Mask == ~uint64_t(0))
      for (unsigned L = 0; L < WaveSize; ++L)
        Lane(L);
    else
      forLanes(P.Mask, Lane);
  } else {
    forLanes(P.Mask, [&](unsigned L) {
      uint8_t Buf[16] = {};
      unsigned Bytes = Wd.Bytes;
      if (P.Dwords)
        Bytes = std::min<unsigned>(Bytes, P.Dwords[L] * 4u);
      laneCopy<false>(P, L, Buf, Bytes);
      for (unsigned R = 0; R < Wd.Regs; ++R)
        std::memcpy(&Val[R].V[L], Buf + 4 * R, 4);
    });
  }
  if constexpr (Wd.Bytes < 4) {
    const uint32_t *Old = W.vgpr(Dst);
    for (unsigned L = 0; L < WaveSize; ++L)
      Val[0].V[L] = loadValue<Wd>(Val[0].V[L], Old[L]);
  }
  for (unsigned R = 0; R < Wd.Regs; ++R) {
    uint32_t *D = W.vgpr(Dst + R);
    if (Exec == ~uint64_t(0)) {
      std::memcpy(D, Val[R].V, sizeof(Val[R].V));
      continue;
    }
    for (unsigned L = 0; L < WaveSize; ++L)
      D[L] = (Exec >> L) & 1 ? Val[R].V[L] : D[L];
  }
}

/// Stores VGPRs \p Src.. of the plan's lanes.
template <Width Wd> void storeLanes(Wave &W, unsigned Src, const Plan &P) {
  const uint32_t *S = W.vgpr(Src);
  if (Wd.Bytes == 4 * Wd.Regs && isContiguousWave(P, Wd.Bytes)) {
    uint32_t *A = reinterpret_cast<uint32_t *>(P.Addr[0]);
    if constexpr (Wd.Regs == 1) {
      std::memcpy(A, S, sizeof(uint32_t) * WaveSize);
    } else {
      for (unsigned L = 0; L < WaveSize; ++L)
        for (unsigned R = 0; R < Wd.Regs; ++R)
          std::memcpy(A + L * Wd.Regs + R, S + R * WaveSize + L, 4);
    }
    return;
  }
  if (isPlain(P)) {
    auto Lane = [&](unsigned L) {
      uint8_t *A = reinterpret_cast<uint8_t *>(P.Addr[L]);
      if constexpr (Wd.Bytes >= 4) {
        for (unsigned R = 0; R < Wd.Regs; ++R)
          std::memcpy(A + 4 * R, S + R * WaveSize + L, 4);
      } else {
        uint32_t V = storeValue<Wd>(S[L]);
        std::memcpy(A, &V, Wd.Bytes);
      }
    };
    if (P.Mask == ~uint64_t(0))
      for (unsigned L = 0; L < WaveSize; ++L)
        Lane(L);
    else
      forLanes(P.Mask, Lane);
    return;
  }
  forLanes(P.Mask, [&](unsigned L) {
    uint8_t Buf[16];
    for (unsigned R = 0; R < Wd.Regs; ++R) {
      uint32_t V = S[R * WaveSize + L];
      if constexpr (Wd.Bytes < 4)
        V = storeValue<Wd>(V);
      std::memcpy(Buf + 4 * R, &V, 4);
    }
    unsigned Bytes = Wd.Bytes;
    if (P.Dwords)
      Bytes = std::min<unsigned>(Bytes, P.Dwords[L] * 4u);
    laneCopy<true>(P, L, Buf, Bytes);
  });
}

/// Notes an access about to be made: the wave's spin-wait detection flags
/// (a load, a store; an atomic counts as a load here and as a store only if
/// it changes memory, see atomicLanes) and, when the device records
/// accesses, one record per address space used. Recorded addresses are what
/// the program used: global addresses, LDS offsets, private offsets.
inline void notePlan(Wave &W, const DecodedInst &I, const Plan &P,
                     unsigned Bytes, bool IsWrite, bool IsAtomic) {
  if (IsWrite && !IsAtomic)
    W.StoredMemory = true;
  else
    W.noteLoad(P.Mask ? P.Addr[std::countr_zero(P.Mask)] : 0);
  if (!W.D->Record)
    return;
  uint64_t Global = P.Mask & ~(P.Private | P.Local);
  if (Global)
    recordAccess(W, I, Global, P.Addr, Bytes, IsWrite, IsAtomic, 0);
  if (P.Mask & P.Local) {
    uint64_t Off[WaveSize];
    uint64_t LdsBase = reinterpret_cast<uint64_t>(W.Lds);
    for (unsigned L = 0; L < WaveSize; ++L)
      Off[L] = P.Addr[L] - LdsBase;
    recordAccess(W, I, P.Mask & P.Local, Off, Bytes, IsWrite, IsAtomic, 1);
  }
  if (P.Mask & P.Private)
    recordAccess(W, I, P.Mask & P.Private, P.Addr, Bytes, IsWrite, IsAtomic,
                 2);
}

/// The LDS half of the LDS DMA loads (GLOBAL/SCRATCH/BUFFER_LOAD_DWORD with
/// lds): the dword each lane of \p Exec read by plan \p Src goes to LDS at
/// M0 + \p InstOffset + lane * 4 instead of a VGPR; lanes outside Src.Mask
/// (MUBUF out of range) write zero, lanes beyond the LDS nothing.
inline void loadDwordsToLds(Wave &W, const DecodedInst &I, const Plan &Src,
                            uint64_t Exec, int64_t InstOffset) {
  Plan Lds;
  Lds.Mask = Exec;
  uint32_t Base = W.m0() + uint32_t(InstOffset);
  for (unsigned L = 0; L < WaveSize; ++L)
    Lds.Addr[L] = uint32_t(Base + 4 * L);
  if (!ldsPlan(W, Lds, 4, true))
    return;
  notePlan(W, I, Src, 4, false, false);
  notePlan(W, I, Lds, 4, true, false);
  forLanes(Lds.Mask, [&](unsigned L) {
    uint8_t Buf[4] = {};
    if ((Src.Mask >> L) & 1)
      laneCopy<false>(Src, L, Buf, 4);
    laneCopy<true>(Lds, L, Buf, 4);
  });
  countBytes(W, I, uint64_t(std::popcount(Exec)) * 4);
}

//===----------------------------------------------------------------------===//
// Atomic operations
//===----------------------------------------------------------------------===//
//
// Each operation computes the new memory value from the old one and up to
// two data operands (D0 is the instruction's first data value; D1 the second
// one of MSKOR, WRAP, CMPSWAP and CMPST). The value returned to RTN forms is
// always the old one.

namespace atomic {

template <typename T> using Signed = std::make_signed_t<T>;

struct Swap {
  template <typename T> static T apply(T, T D0, T) { return D0; }
  template <typename T> static T fetch(std::atomic_ref<T> A, T D0) {
    return A.exchange(D0);
  }
};
/// GLOBAL/FLAT/MUBUF cmpswap: data is {src, cmp}.
struct CmpSwap {
  static constexpr bool TwoData = true;
  template <typename T> static T apply(T Old, T Src, T Cmp) {
    return Old == Cmp ? Src : Old;
  }
};
/// DS cmpst (gfx9 order): data0 is the comparand, data1 the new value.
struct CmpSt {
  static constexpr bool TwoData = true;
  template <typename T> static T apply(T Old, T Cmp, T Src) {
    return Old == Cmp ? Src : Old;
  }
};
// An operation with combine(A, B) gives with combine(D0, D0') what D0 then
// D0' give: atomicLanes applies lanes of one address as one host atomic.
struct Add {
  template <typename T> static T apply(T Old, T D0, T) { return Old + D0; }
  template <typename T> static T combine(T A, T B) { return A + B; }
  template <typename T> static T fetch(std::atomic_ref<T> A, T D0) {
    return A.fetch_add(D0);
  }
};
struct Sub {
  template <typename T> static T apply(T Old, T D0, T) { return Old - D0; }
  template <typename T> static T combine(T A, T B) { return A + B; }
  template <typename T> static T fetch(std::atomic_ref<T> A, T D0) {
    return A.fetch_sub(D0);
  }
};
struct RSub {
  template <typename T> static T apply(T Old, T D0, T) { return D0 - Old; }
};
struct SMin {
  template <typename T> static T apply(T Old, T D0, T) {
    return Signed<T>(D0) < Signed<T>(Old) ? D0 : Old;
  }
  template <typename T> static T combine(T A, T B) {
    return apply(A, B, T(0));
  }
};
struct SMax {
  template <typename T> static T apply(T Old, T D0, T) {
    return Signed<T>(D0) > Signed<T>(Old) ? D0 : Old;
  }
  template <typename T> static T combine(T A, T B) {
    return apply(A, B, T(0));
  }
};
struct UMin {
  template <typename T> static T apply(T Old, T D0, T) {
    return D0 < Old ? D0 : Old;
  }
  template <typename T> static T combine(T A, T B) {
    return apply(A, B, T(0));
  }
};
struct UMax {
  template <typename T> static T apply(T Old, T D0, T) {
    return D0 > Old ? D0 : Old;
  }
  template <typename T> static T combine(T A, T B) {
    return apply(A, B, T(0));
  }
};
struct And {
  template <typename T> static T apply(T Old, T D0, T) { return Old & D0; }
  template <typename T> static T combine(T A, T B) { return A & B; }
  template <typename T> static T fetch(std::atomic_ref<T> A, T D0) {
    return A.fetch_and(D0);
  }
};
struct Or {
  template <typename T> static T apply(T Old, T D0, T) { return Old | D0; }
  template <typename T> static T combine(T A, T B) { return A | B; }
  template <typename T> static T fetch(std::atomic_ref<T> A, T D0) {
    return A.fetch_or(D0);
  }
};
struct Xor {
  template <typename T> static T apply(T Old, T D0, T) { return Old ^ D0; }
  template <typename T> static T combine(T A, T B) { return A ^ B; }
  template <typename T> static T fetch(std::atomic_ref<T> A, T D0) {
    return A.fetch_xor(D0);
  }
};
/// Counts up to D0, then wraps to 0.
struct Inc {
  template <typename T> static T apply(T Old, T D0, T) {
    return Old >= D0 ? T(0) : T(Old + 1);
  }
};
/// Counts down to 0, then wraps to D0 (also when above D0).
struct Dec {
  template <typename T> static T apply(T Old, T D0, T) {
    return Old == 0 || Old > D0 ? D0 : T(Old - 1);
  }
};
/// DS mskor: clears the bits of D0, sets those of D1.
struct MskOr {
  static constexpr bool TwoData = true;
  template <typename T> static T apply(T Old, T D0, T D1) {
    return (Old & ~D0) | D1;
  }
};
/// DS wrap: subtract D0 if that stays non-negative, else add D1.
struct Wrap {
  static constexpr bool TwoData = true;
  template <typename T> static T apply(T Old, T D0, T D1) {
    return Old >= D0 ? T(Old - D0) : T(Old + D1);
  }
};

template <typename T> struct FloatOf;
template <> struct FloatOf<uint32_t> {
  using Type = float;
};
template <> struct FloatOf<uint64_t> {
  using Type = double;
};
template <typename T> using FloatT = typename FloatOf<T>::Type;

/// Float add; \p Ftz flushes denormal inputs and results to signed zero (the
/// f32 global/buffer atomic add of gfx90a does, whatever MODE says).
template <bool Ftz> struct FAdd {
  template <typename T> static T apply(T Old, T D0, T) {
    using F = FloatT<T>;
    F A = std::bit_cast<F>(Old), B = std::bit_cast<F>(D0);
    // Memory is the first operand: with two NaNs the result is its NaN,
    // quieted. The compiler may swap the operands of A + B.
    if (A != A)
      return std::bit_cast<T>(F(A + A));
    if constexpr (Ftz) {
      A = flush(A);
      B = flush(B);
      return std::bit_cast<T>(flush(F(A + B)));
    }
    return std::bit_cast<T>(F(A + B));
  }
  template <typename F> static F flush(F X) {
    return std::fpclassify(X) == FP_SUBNORMAL ? std::copysign(F(0), X) : X;
  }
};
/// min/max by the ISA's pseudocode (D0 < MEM ? D0 : MEM): a NaN operand
/// leaves memory unchanged unless memory is the NaN.
struct FMin {
  template <typename T> static T apply(T Old, T D0, T) {
    using F = FloatT<T>;
    return std::bit_cast<F>(D0) < std::bit_cast<F>(Old) ? D0 : Old;
  }
};
struct FMax {
  template <typename T> static T apply(T Old, T D0, T) {
    using F = FloatT<T>;
    return std::bit_cast<F>(D0) > std::bit_cast<F>(Old) ? D0 : Old;
  }
};
/// DS cmpst_f32/f64: compared as floats (-0 == +0, NaN never equal).
struct FCmpSt {
  static constexpr bool TwoData = true;
  template <typename T> static T apply(T Old, T Cmp, T Src) {
    using F = FloatT<T>;
    return std::bit_cast<F>(Old) == std::bit_cast<F>(Cmp) ? Src : Old;
  }
};
/// Two f16 adds on the halves of a dword (round to nearest even; f32 holds
/// f16 sums exactly enough for one correct final rounding).
struct PkAddF16 {
  template <typename T> static T apply(T Old, T D0, T) {
    static_assert(sizeof(T) == 4);
    uint32_t R = 0;
    for (unsigned H = 0; H < 2; ++H) {
      _Float16 A = std::bit_cast<_Float16>(uint16_t(Old >> (16 * H)));
      _Float16 B = std::bit_cast<_Float16>(uint16_t(D0 >> (16 * H)));
      _Float16 S = static_cast<_Float16>(float(A) + float(B));
      R |= uint32_t(std::bit_cast<uint16_t>(S)) << (16 * H);
    }
    return R;
  }
};

} // namespace atomic

/// The atomic operations GLOBAL, FLAT and MUBUF share: calls
/// Add.template operator()<Op, T>(Name) for each, Name as in
/// "GLOBAL_ATOMIC_<Name>" (FLAT has no ADD_F32 or PK_ADD_F16 on gfx90a; the
/// extra names never decode).
template <class F> void forEachMemoryAtomic(F &&Add) {
  using namespace atomic;
  auto Int = [&]<class Op>(const char *Name) {
    Add.template operator()<Op, uint32_t>(std::string(Name));
    Add.template operator()<Op, uint64_t>(std::string(Name) + "_X2");
  };
  Int.template operator()<Swap>("SWAP");
  Int.template operator()<CmpSwap>("CMPSWAP");
  Int.template operator()<atomic::Add>("ADD");
  Int.template operator()<Sub>("SUB");
  Int.template operator()<SMin>("SMIN");
  Int.template operator()<UMin>("UMIN");
  Int.template operator()<SMax>("SMAX");
  Int.template operator()<UMax>("UMAX");
  Int.template operator()<And>("AND");
  Int.template operator()<Or>("OR");
  Int.template operator()<Xor>("XOR");
  Int.template operator()<Inc>("INC");
  Int.template operator()<Dec>("DEC");
  Add.template operator()<FAdd<true>, uint32_t>(std::string("ADD_F32"));
  Add.template operator()<PkAddF16, uint32_t>(std::string("PK_ADD_F16"));
  Add.template operator()<FAdd<false>, uint64_t>(std::string("ADD_F64"));
  Add.template operator()<FMin, uint64_t>(std::string("MIN_F64"));
  Add.template operator()<FMax, uint64_t>(std::string("MAX_F64"));
}

/// Applies \p Op atomically to the \p T at host address \p P (naturally
/// aligned) and returns the old value; sets \p Changed if memory changed.
/// Operations the host has one instruction for (Op::fetch: lock xadd,
/// xchg...) use it: under contention a compare-exchange loop retries.
template <class Op, typename T>
inline T atomicApply(uint64_t P, T D0, T D1, bool &Changed) {
  std::atomic_ref<T> A(*reinterpret_cast<T *>(P));
  if constexpr (requires { Op::fetch(A, D0); }) {
    T Old = Op::fetch(A, D0);
    Changed |= Op::apply(Old, D0, D1) != Old;
    return Old;
  }
  T Old = A.load(std::memory_order_relaxed);
  T New;
  do
    New = Op::apply(Old, D0, D1);
  while (!A.compare_exchange_weak(Old, New, std::memory_order_seq_cst,
                                  std::memory_order_relaxed));
  Changed |= New != Old;
  return Old;
}

/// Lane \p L of the \p T (one or two VGPRs from \p Reg) an atomic reads.
template <typename T>
inline T atomicData(const Wave &W, unsigned Reg, unsigned L) {
  T V = W.vgpr(Reg)[L];
  if constexpr (sizeof(T) == 8)
    V |= T(W.vgpr(Reg + 1)[L]) << 32;
  return V;
}

/// Writes the old values \p Old of an atomic's RTN form to VGPRs \p Dst..
/// on the lanes of \p Exec.
template <typename T>
inline void returnOld(Wave &W, unsigned Dst, const T *Old, uint64_t Exec) {
  for (unsigned R = 0; R < sizeof(T) / 4; ++R) {
    uint32_t *D = W.vgpr(Dst + R);
    for (unsigned L = 0; L < WaveSize; ++L)
      D[L] = (Exec >> L) & 1 ? uint32_t(Old[L] >> (32 * R)) : D[L];
  }
}

/// Runs \p Op on the plan's lanes in lane order. Data D0 comes from VGPRs
/// \p D0Reg.., D1 (read only by two-data operations) from \p D1Reg.. (one
/// or two VGPRs per value, as T).
/// Old values go to VGPRs \p Dst.. when \p Rtn, for the lanes of \p Exec
/// (lanes without access, MUBUF out of range, return zero). Private lanes
/// are lane-owned memory: a plain read-modify-write is exact there; so it
/// is for split lanes (swizzled buffers other than the private segment's,
/// which compute code does not use), and for LDS: one worker at a time
/// runs the group that owns it, so no other host thread can see it
/// mid-instruction (a locked add per lane made Histogram's LDS kernel
/// 1.7x slower).
template <class Op, typename T, bool Rtn>
void atomicLanes(Wave &W, const Plan &P, unsigned D0Reg, unsigned D1Reg,
                 unsigned Dst, uint64_t Exec) {
  auto Read = [&](unsigned Reg, unsigned L) {
    return atomicData<T>(W, Reg, L);
  };
  T Old[WaveSize] = {};
  bool Changed = false;
  uint64_t Lanes = P.Mask;
  // Lanes on a few addresses (a counter, hot bins) take one host atomic
  // per address with their data combined, in address order, and each
  // lane's old value is replayed in lane order: the same as one after the
  // other, as no other thread can come between. The addresses must lie in
  // one aligned KiB (one pass over the lanes tells; scattered lanes cost
  // only that pass). Histogram's 64 hot bins: about 40 atomics
  // a wave instead of 64, each cache line's in a row, where two workers'
  // atomics took turns owning the same four lines.
  if constexpr (requires { Op::combine(T(), T()); }) {
    constexpr unsigned WindowBytes = 1024, Window = WindowBytes / sizeof(T);
    uint64_t Global = Lanes & ~(P.Private | P.Split | P.Local);
    if (Global & (Global - 1)) {
      // Whether every lane lies in the aligned KiB of the first one: an OR
      // over the lanes, which vectorises where a min and max do not.
      uint64_t First = P.Addr[std::countr_zero(Global)], Apart = 0;
      for (unsigned L = 0; L < WaveSize; ++L)
        Apart |= (P.Addr[L] ^ First) & -((Global >> L) & 1);
      uint64_t Lo = First & ~uint64_t(WindowBytes - 1);
      if (Apart < WindowBytes) {
        T Sum[Window];
        uint64_t Used[Window / 64] = {};
        forLanes(Global, [&](unsigned L) {
          unsigned E = unsigned(P.Addr[L] - Lo) / sizeof(T);
          T D = Read(D0Reg, L);
          uint64_t Bit = uint64_t(1) << (E % 64);
          Sum[E] = Used[E / 64] & Bit ? Op::combine(Sum[E], D) : D;
          Used[E / 64] |= Bit;
        });
        for (unsigned K = 0; K < Window / 64; ++K)
          forLanes(Used[K], [&](unsigned B) {
            unsigned E = 64 * K + B;
            Sum[E] = atomicApply<Op, T>(Lo + E * sizeof(T), Sum[E], T(0),
                                        Changed);
          });
        // Sum now holds each address's old value (lanes are aligned:
        // checkAtomicAlignment ran).
        if constexpr (Rtn)
          forLanes(Global, [&](unsigned L) {
            unsigned E = unsigned(P.Addr[L] - Lo) / sizeof(T);
            Old[L] = Sum[E];
            Sum[E] = Op::apply(Sum[E], Read(D0Reg, L), T(0));
          });
        Lanes &= ~Global;
      }
    }
  }
  forLanes(Lanes, [&](unsigned L) {
    T D0 = Read(D0Reg, L);
    T D1 = 0;
    if constexpr (requires { Op::TwoData; })
      D1 = Read(D1Reg, L);
    if (((P.Private | P.Split) >> L) & 1) {
      uint8_t Buf[sizeof(T)];
      laneCopy<false>(P, L, Buf, sizeof(T));
      std::memcpy(&Old[L], Buf, sizeof(T));
      T New = Op::apply(Old[L], D0, D1);
      std::memcpy(Buf, &New, sizeof(T));
      laneCopy<true>(P, L, Buf, sizeof(T));
      Changed |= New != Old[L];
      return;
    }
    // LDS: the host address itself, not laneCopy's three-way choice per
    // lane (Histogram's LDS kernel: 16 ms a dispatch this way, 21-23
    // through laneCopy, on the same loaded machine).
    if ((P.Local >> L) & 1) {
      void *Host = reinterpret_cast<void *>(P.Addr[L]);
      std::memcpy(&Old[L], Host, sizeof(T));
      T New = Op::apply(Old[L], D0, D1);
      std::memcpy(Host, &New, sizeof(T));
      Changed |= New != Old[L];
      return;
    }
    Old[L] = atomicApply<Op, T>(P.Addr[L], D0, D1, Changed);
  });
  W.StoredMemory |= Changed;
  if constexpr (Rtn)
    returnOld(W, Dst, Old, Exec);
}

/// Checks the natural alignment of the non-private lanes of an atomic; the
/// fault names \p Shown(L), the address the program used.
template <typename F>
inline bool checkAtomicAlignment(Wave &W, const Plan &P, unsigned Bytes,
                                 F &&Shown) {
  uint64_t Bad = 0;
  for (unsigned L = 0; L < WaveSize; ++L)
    Bad |= uint64_t((P.Addr[L] & (Bytes - 1)) != 0) << L;
  Bad &= P.Mask & ~P.Private;
  if (!Bad)
    return true;
  unsigned L = std::countr_zero(Bad);
  misalignedAtomic(W, Shown(L), Bytes, L);
  return false;
}

} // namespace vmem
} // namespace loom::emu

#endif // LOOM_EMU_OPS_SCRATCH_H
