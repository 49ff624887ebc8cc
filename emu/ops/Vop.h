//===- emu/ops/Vop.h - The vector ALU framework ---------------------------===//
//
// The one place where VOP1 / VOP2 / VOP3 / VOPC operand handling is written,
// with its SDWA and DPP variants: an operation is a lane function plus one
// registration line.
//
//   // v_add_u32: 32-bit add; VOP3 clamp saturates.
//   struct AddU32 {
//     static uint64_t op(uint32_t A, uint32_t B) { return uint64_t(A) + B; }
//     using Dst = uint32_t;                      // optional, see below
//     static constexpr unsigned Flags = vop::IntClamp; // optional
//   };
//   T.add("V_ADD_U32", vop::run<AddU32>, FlagVector);
//   // or, without a struct:
//   T.add("V_AND_B32", vop::handler<andB32>, FlagVector);
//
// The lane function ----------------------------------------------------------
// `op` is a static function (or captureless lambda) called once per lane.
// Its parameters, in any order, are:
//  - sources, one per register-or-constant operand of the instruction in MC
//    order (the DPP "old" operand excluded). The parameter type sets how the
//    operand is read: uint16_t/int16_t/_Float16 (low half of the dword, or
//    the half op_sel picks), uint32_t/int32_t/float, uint64_t/int64_t/double
//    (a VGPR pair, or a 64-bit SGPR pair / constant);
//  - vop::MaskBit: the lane's bit of the mask input (carry-in, v_cndmask's
//    condition): VCC for e32/SDWA/DPP, the SGPR pair that follows the
//    sources for e64 (Flags must include MaskIn);
//  - vop::LaneId: the lane number;
//  - vop::Ctx (by value or const&): uniform per-instruction facts — the MODE
//    register (see roundMode/denormMode below), clamp and omod, the
//    DecodedInst. Use it for MODE-dependent float semantics. Clamp and
//    Omod are only ever set on the general path (the plain one runs when
//    both are 0).
// The plain path may call the lane function on inactive lanes too (their
// results are discarded): it must have no side effects.
// Its result is the destination lane value: a source-like type, bool for
// compares (Flags & Compare), or vop::Carry<T> ({value, flag}) for
// operations that also write a lane mask (Flags & CarryOut).
//
// Dst: the destination type, when it differs from the return type. Integer
// operations that support clamp return a wider type (uint64_t for u32,
// int64_t for i32, int32_t for 16-bit ops, unsigned __int128 for 64-bit):
// without clamp the value is truncated to Dst, with clamp (IntClamp) it is
// saturated to Dst's range. With CarryOut and no Carry<T> result, the carry
// is the bit just above Dst's width of the wide result.
//
// What the framework does around the lane function ---------------------------
//  - sources: VGPRs in place, AGPRs through Wave::vectorIndex, SGPRs and
//    constants broadcast; 64-bit operands gathered from register pairs;
//  - VOP3 input modifiers (Operand::Mods bit 0 = neg, bit 1 = abs; abs
//    first) on the sign bit of the operand's width, for any operation whose
//    MC operands carry them (float ops, v_cndmask);
//  - VOP3 op_sel of gfx9's 16-bit VOP3 operations (Flags & OpSel): Mods bit
//    2 reads a source's high half, src0's Mods bit 3 writes the high half;
//  - output modifiers: for float results omod (1: *2, 2: *4, 3: /2) then
//    clamp to [0, 1] (NaN -> 0 under DX10_CLAMP); for IntClamp integer
//    results saturation. VOP3 imms start with [clamp, omod] for float
//    results, [clamp] for the others; an op_sel imm may follow (the
//    disassembler leaves it out when zero; op_sel is taken from Mods);
//  - SDWA: src_sel BYTE_0..3/WORD_0/1/DWORD with zero- or sign-extension
//    (Mods bit 4 = sext, integer operands) then neg/abs; dst_sel and
//    dst_unused (UNUSED_PAD / UNUSED_SEXT / UNUSED_PRESERVE). SDWA imms are
//    the last ones: VOP1 dst_sel, dst_unused, src0_sel; VOP2 also src1_sel;
//    VOPC src0_sel, src1_sel; before them [clamp[, omod]];
//  - DPP (src0 only): quad_perm, row_shl/shr/ror 1-15, wave_shl/rol/shr/ror,
//    row_mirror, row_half_mirror, row_bcast:15/31, row_newbcast (gfx90a).
//    A lane is written only if EXEC, row_mask and bank_mask enable it and
//    its source lane is valid (in range and active in EXEC); with
//    bound_ctrl an invalid source reads 0 and the lane is written. Lanes
//    not written keep their value (the tied "old" operand is the
//    destination register itself);
//  - GPR indexing (s_set_gpr_idx_on, MODE.GPR_IDX_EN): M0[7:0] is added to
//    the vector operands of the slots M0[15:12] enables;
//  - results: written to the EXEC-active lanes; 16-bit results zero the
//    high half (gfx9 legacy behaviour) unless KeepHi16 or OpSel; 64-bit
//    results split over two VGPRs; compare masks (inactive lanes 0) to VCC
//    (e32) or Dst[0] (e64, SDWA), and v_cmpx masks to EXEC as well; carry
//    masks to VCC (e32, SDWA, DPP) or Dst[1] (e64).
// Without SDWA, DPP, input or output modifiers the handler is a plain lane
// loop the compiler vectorises (see runPlain).
//
// VOP3P (packed) operations are not handled by run<>: their Mods hold
// op_sel / op_sel_hi / neg_lo / neg_hi. The building blocks below (source
// fetch, masked writes, lane bit masks) serve them.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_EMU_OPS_VOP_H
#define LOOM_EMU_OPS_VOP_H

#include "../Semantics.h"

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <tuple>
#include <type_traits>
#include <utility>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace loom::emu {

/// Families of vector ALU operations; registerVectorOps (VectorOps.cpp)
/// calls each of them.
void registerVectorIntOps(HandlerTable &T);     // VectorIntOps.cpp
void registerVectorCompareOps(HandlerTable &T); // VectorCompareOps.cpp
void registerLaneOps(HandlerTable &T);          // LaneOps.cpp
void registerVectorFloatOps(HandlerTable &T);   // VectorFloatOps.cpp
void registerPackedOps(HandlerTable &T);        // PackedOps.cpp

namespace vop {

//===----------------------------------------------------------------------===//
// Operand types
//===----------------------------------------------------------------------===//

/// Width and kind of a lane-function operand type.
template <class T> struct TypeInfo { static constexpr bool Valid = false; };
template <class T, class U, bool F> struct TypeInfoBase {
  static constexpr bool Valid = true;
  static constexpr unsigned Bits = sizeof(T) * 8;
  static constexpr bool IsFloat = F;
  using Raw = U; ///< unsigned integer of the same width
};
template <> struct TypeInfo<uint16_t> : TypeInfoBase<uint16_t, uint16_t, 0> {};
template <> struct TypeInfo<int16_t> : TypeInfoBase<int16_t, uint16_t, 0> {};
template <> struct TypeInfo<uint32_t> : TypeInfoBase<uint32_t, uint32_t, 0> {};
template <> struct TypeInfo<int32_t> : TypeInfoBase<int32_t, uint32_t, 0> {};
template <> struct TypeInfo<uint64_t> : TypeInfoBase<uint64_t, uint64_t, 0> {};
template <> struct TypeInfo<int64_t> : TypeInfoBase<int64_t, uint64_t, 0> {};
template <> struct TypeInfo<float> : TypeInfoBase<float, uint32_t, 1> {};
template <> struct TypeInfo<double> : TypeInfoBase<double, uint64_t, 1> {};
#ifdef __FLT16_MANT_DIG__
template <> struct TypeInfo<_Float16> : TypeInfoBase<_Float16, uint16_t, 1> {};
#endif

template <class T> constexpr bool isFloat() {
  if constexpr (TypeInfo<T>::Valid)
    return TypeInfo<T>::IsFloat;
  else
    return false;
}

//===----------------------------------------------------------------------===//
// Extra lane-function parameters
//===----------------------------------------------------------------------===//

/// The lane's bit of the instruction's mask input (0 or 1).
struct MaskBit {
  uint32_t V;
};
/// The lane number, 0-63.
struct LaneId {
  unsigned V;
};
/// Uniform facts of the executing instruction.
struct Ctx {
  uint32_t Mode = 0; ///< MODE hardware register
  bool Clamp = false;
  unsigned Omod = 0;
  const DecodedInst *I = nullptr;
};

// MODE register fields (gfx9).
inline unsigned roundModeF32(uint32_t Mode) { return Mode & 3; }
inline unsigned roundModeF64F16(uint32_t Mode) { return (Mode >> 2) & 3; }
/// Denorm mode: bit 0 = keep input denormals, bit 1 = keep output ones.
inline unsigned denormModeF32(uint32_t Mode) { return (Mode >> 4) & 3; }
inline unsigned denormModeF64F16(uint32_t Mode) { return (Mode >> 6) & 3; }
inline bool dx10Clamp(uint32_t Mode) { return (Mode >> 8) & 1; }
inline bool ieeeMode(uint32_t Mode) { return (Mode >> 9) & 1; }

/// Result of an operation that writes a lane mask too (carry-out, v_div_scale
/// flag, v_mad_u64_u32 carry).
template <class T> struct Carry {
  T V;
  bool C;
};

enum OpFlags : unsigned {
  MaskIn = 1u << 0,     ///< takes a MaskBit (carry-in, condition)
  CarryOut = 1u << 1,   ///< writes a lane mask beside its result
  Compare = 1u << 2,    ///< VOPC: bool result is a lane mask
  CompareX = 1u << 3,   ///< v_cmpx: the mask also goes to EXEC
  IntClamp = 1u << 4,   ///< clamp saturates the wide result into Dst
  OpSel = 1u << 5,      ///< gfx9 VOP3 op_sel on 16-bit operands/result
  KeepHi16 = 1u << 6,   ///< a 16-bit result keeps the destination's high half
  OwnOutMods = 1u << 7, ///< float result: the lane function applies
                        ///< clamp/omod itself (from Ctx), or has none
};

//===----------------------------------------------------------------------===//
// Lane masks
//===----------------------------------------------------------------------===//

/// 1 << (L % 32): a table, so that lane-mask tests vectorise without
/// variable shifts (the build targets baseline x86-64).
alignas(64) inline constexpr uint32_t LaneBit[32] = {
    1u << 0,  1u << 1,  1u << 2,  1u << 3,  1u << 4,  1u << 5,  1u << 6,
    1u << 7,  1u << 8,  1u << 9,  1u << 10, 1u << 11, 1u << 12, 1u << 13,
    1u << 14, 1u << 15, 1u << 16, 1u << 17, 1u << 18, 1u << 19, 1u << 20,
    1u << 21, 1u << 22, 1u << 23, 1u << 24, 1u << 25, 1u << 26, 1u << 27,
    1u << 28, 1u << 29, 1u << 30, 1u << 31};

/// Bit \p L of \p Mask as 0/1.
inline uint32_t maskBit(uint64_t Mask, unsigned L) { return (Mask >> L) & 1; }

/// Out[L] = bit L of \p Mask (0 or 1): lane functions read the mask input
/// from words, which vectorises where 64-bit variable shifts do not.
inline void expandMask(uint64_t Mask, uint32_t *Out) {
  for (unsigned H = 0; H < 2; ++H) {
    uint32_t Half = uint32_t(Mask >> (32 * H));
    for (unsigned J = 0; J < 32; ++J)
      Out[32 * H + J] = (Half & LaneBit[J]) ? 1u : 0u;
  }
}

/// Packs 64 flag bytes (0 or 0xff) into a lane mask.
inline uint64_t packMask(const uint8_t *B) {
#ifdef __SSE2__
  uint64_t M = 0;
  for (unsigned K = 0; K < 4; ++K) {
    __m128i V = _mm_loadu_si128(reinterpret_cast<const __m128i *>(B + 16 * K));
    M |= uint64_t(uint32_t(_mm_movemask_epi8(V))) << (16 * K);
  }
  return M;
#else
  uint64_t M = 0;
  for (unsigned L = 0; L < WaveSize; ++L)
    M |= uint64_t(B[L] != 0) << L;
  return M;
#endif
}

/// Dst[L] = Val[L] on the lanes set in \p Mask (32-bit lanes).
inline void blend32(uint32_t *Dst, const uint32_t *Val, uint64_t Mask) {
  if (Mask == ~0ull) {
    std::memcpy(Dst, Val, sizeof(uint32_t) * WaveSize);
    return;
  }
  for (unsigned H = 0; H < 2; ++H) {
    uint32_t Half = uint32_t(Mask >> (32 * H));
    for (unsigned J = 0; J < 32; ++J) {
      unsigned L = H * 32 + J;
      uint32_t Sel = (Half & LaneBit[J]) ? ~0u : 0u;
      Dst[L] = (Val[L] & Sel) | (Dst[L] & ~Sel);
    }
  }
}

/// The two VGPRs of 64-bit lanes \p Val, on the lanes set in \p Mask.
inline void blend64(uint32_t *Lo, uint32_t *Hi, const uint64_t *Val,
                    uint64_t Mask) {
  for (unsigned H = 0; H < 2; ++H) {
    uint32_t Half = uint32_t(Mask >> (32 * H));
    for (unsigned J = 0; J < 32; ++J) {
      unsigned L = H * 32 + J;
      uint32_t Sel = (Half & LaneBit[J]) ? ~0u : 0u;
      Lo[L] = (uint32_t(Val[L]) & Sel) | (Lo[L] & ~Sel);
      Hi[L] = (uint32_t(Val[L] >> 32) & Sel) | (Hi[L] & ~Sel);
    }
  }
}

/// A lane mask result (compare, carry): VCC unless the instruction names an
/// SGPR pair (\p Dst null for VCC).
inline void writeMask(Wave &W, const Operand *Dst, uint64_t M) {
  if (Dst)
    writeScalar64(W, *Dst, M);
  else
    W.setVcc(M);
}

//===----------------------------------------------------------------------===//
// Source and result transforms (SDWA, DPP, modifiers)
//===----------------------------------------------------------------------===//

enum SdwaSel : unsigned {
  SelByte0 = 0,
  SelByte1,
  SelByte2,
  SelByte3,
  SelWord0,
  SelWord1,
  SelDword
};
enum SdwaUnused : unsigned { UnusedPad = 0, UnusedSext, UnusedPreserve };

/// The SDWA-selected part of \p V, zero- or sign-extended to 32 bits.
inline uint32_t sdwaSource(uint32_t V, unsigned Sel, bool Sext) {
  if (Sel <= SelByte3) {
    uint32_t B = (V >> (8 * Sel)) & 0xff;
    return Sext ? uint32_t(int32_t(int8_t(B))) : B;
  }
  if (Sel <= SelWord1) {
    uint32_t H = (V >> (16 * (Sel - SelWord0))) & 0xffff;
    return Sext ? uint32_t(int32_t(int16_t(H))) : H;
  }
  return V;
}

/// The destination dword after an SDWA write of \p Res over \p Old.
inline uint32_t sdwaDest(uint32_t Res, uint32_t Old, unsigned Sel,
                         unsigned Unused) {
  unsigned Shift, Width;
  if (Sel <= SelByte3) {
    Shift = 8 * Sel;
    Width = 8;
  } else if (Sel <= SelWord1) {
    Shift = 16 * (Sel - SelWord0);
    Width = 16;
  } else {
    return Res;
  }
  uint32_t Field = ((1u << Width) - 1) << Shift;
  uint32_t V = (Res << Shift) & Field;
  if (Unused == UnusedPreserve)
    return V | (Old & ~Field);
  if (Unused == UnusedSext && ((Res >> (Width - 1)) & 1) && Shift + Width < 32)
    V |= ~0u << (Shift + Width);
  return V;
}

/// The source lane a DPP control reads for lane \p L, or -1 when the lane
/// has none (out of its row or of the wave).
inline int dppSourceLane(unsigned Ctrl, unsigned L) {
  unsigned Row = L & ~15u, P = L & 15;
  if (Ctrl <= 0xff) // quad_perm
    return int((L & ~3u) | ((Ctrl >> (2 * (L & 3))) & 3));
  if (Ctrl >= 0x101 && Ctrl <= 0x10f) { // row_shl
    unsigned S = P + (Ctrl & 15);
    return S < 16 ? int(Row + S) : -1;
  }
  if (Ctrl >= 0x111 && Ctrl <= 0x11f) { // row_shr
    unsigned N = Ctrl & 15;
    return P >= N ? int(Row + P - N) : -1;
  }
  if (Ctrl >= 0x121 && Ctrl <= 0x12f) // row_ror
    return int(Row + ((P - (Ctrl & 15)) & 15));
  switch (Ctrl) {
  case 0x130: // wave_shl:1
    return L + 1 < WaveSize ? int(L + 1) : -1;
  case 0x134: // wave_rol:1
    return int((L + 1) % WaveSize);
  case 0x138: // wave_shr:1
    return L > 0 ? int(L - 1) : -1;
  case 0x13c: // wave_ror:1
    return int((L + WaveSize - 1) % WaveSize);
  case 0x140: // row_mirror
    return int(Row + 15 - P);
  case 0x141: // row_half_mirror
    return int(Row + (P & 8) + 7 - (P & 7));
  case 0x142: // row_bcast:15: lane 15 of the previous row
    return Row ? int(Row - 1) : -1;
  case 0x143: // row_bcast:31: lane 31 to rows 2 and 3
    return L >= 32 ? 31 : -1;
  default:
    break;
  }
  if (Ctrl >= 0x150 && Ctrl <= 0x15f) // row_newbcast (gfx90a)
    return int(Row + (Ctrl & 15));
  return -1;
}

/// DPP controls of an instruction: the last four imms.
struct DppControl {
  unsigned Ctrl, RowMask, BankMask;
  bool BoundCtrl;
};
inline DppControl dppControl(const DecodedInst &I) {
  const int64_t *P = I.Imm + I.NumImm - 4;
  return {unsigned(P[0]), unsigned(P[1]) & 15, unsigned(P[2]) & 15, P[3] != 0};
}

/// Source lanes of every DPP control (-1: none), and the lanes that have
/// one, computed once.
struct DppTable {
  std::array<std::array<int8_t, WaveSize>, 0x160> Source;
  std::array<uint64_t, 0x160> HasSource;
  std::array<int8_t, WaveSize> None;
  DppTable() {
    None.fill(-1);
    for (unsigned Ctrl = 0; Ctrl < Source.size(); ++Ctrl) {
      HasSource[Ctrl] = 0;
      for (unsigned L = 0; L < WaveSize; ++L) {
        int S = dppSourceLane(Ctrl, L);
        Source[Ctrl][L] = int8_t(S);
        HasSource[Ctrl] |= uint64_t(S >= 0) << L;
      }
    }
  }
};

/// Permutes \p Src (32- or 64-bit lanes) in place for DPP and returns the
/// lanes the instruction may write (EXEC, row/bank masks, valid source or
/// bound_ctrl). Masks are worked out a wave at a time, so the lane loop is
/// only the move (dppPermute was 5 % of rocSPARSE's csrmv).
template <class Elt>
uint64_t dppPermute(Elt *Src, const DppControl &C, uint64_t Exec) {
  static const DppTable Table;
  bool Known = C.Ctrl < Table.Source.size();
  const int8_t *Sources =
      Known ? Table.Source[C.Ctrl].data() : Table.None.data();
  // A source is valid when the lane has one and it is active.
  uint64_t Valid = Known ? Table.HasSource[C.Ctrl] : 0;
  if (Exec != ~0ull) {
    uint64_t V = 0;
    for (unsigned L = 0; L < WaveSize; ++L) {
      int S = Sources[L];
      V |= uint64_t(S >= 0 && maskBit(Exec, unsigned(S))) << L;
    }
    Valid = V;
  }
  alignas(64) Elt Orig[WaveSize];
  std::memcpy(Orig, Src, sizeof(Orig));
  for (unsigned L = 0; L < WaveSize; ++L)
    Src[L] = maskBit(Valid, L) ? Orig[Sources[L] & (WaveSize - 1)] : Elt(0);
  uint64_t Enabled = 0;
  for (unsigned Row = 0; Row < 4; ++Row)
    if ((C.RowMask >> Row) & 1)
      for (unsigned Bank = 0; Bank < 4; ++Bank)
        if ((C.BankMask >> Bank) & 1)
          Enabled |= 0xfull << (16 * Row + 4 * Bank);
  return Enabled & (C.BoundCtrl ? ~0ull : Valid) & Exec;
}

/// VOP3 neg/abs on the sign bit of a \p Bits -wide value (abs first).
template <class U> U applyNegAbs(U V, unsigned Mods) {
  constexpr U Sign = U(1) << (sizeof(U) * 8 - 1);
  if (Mods & 2)
    V &= ~Sign;
  if (Mods & 1)
    V ^= Sign;
  return V;
}

/// omod then clamp on a float result (the generic rule; an operation can
/// take over with OwnOutMods).
template <class T> T floatOutMods(T V, const Ctx &C) {
  switch (C.Omod) {
  case 1:
    V = V * T(2);
    break;
  case 2:
    V = V * T(4);
    break;
  case 3:
    V = V * T(0.5);
    break;
  default:
    break;
  }
  if (C.Clamp) {
    if (V != V)
      return dx10Clamp(C.Mode) ? T(0) : V;
    V = V > T(1) ? T(1) : (V > T(0) ? V : T(0));
  }
  return V;
}

/// \p V saturated to Dst's range (\p V a wider integer).
template <class D, class R> D saturate(R V) {
  constexpr bool DSigned = std::is_signed_v<D>;
  const R Lo = DSigned ? R(std::numeric_limits<D>::min()) : R(0);
  const R Hi = R(std::numeric_limits<D>::max());
  if constexpr (std::is_signed_v<R> || std::is_same_v<R, __int128>) {
    if (V < Lo)
      return D(Lo);
  }
  return V > Hi ? D(Hi) : D(V);
}

//===----------------------------------------------------------------------===//
// Lane-function signature analysis
//===----------------------------------------------------------------------===//

template <class F> struct FnTraits;
template <class R, class... A> struct FnTraits<R (*)(A...)> {
  using Ret = R;
  using Args = std::tuple<std::remove_cvref_t<A>...>;
};

template <class P>
inline constexpr bool IsTag =
    std::is_same_v<P, MaskBit> || std::is_same_v<P, LaneId> ||
    std::is_same_v<P, Ctx>;

template <class T> struct CarryValue {
  using Type = T;
  static constexpr bool IsCarry = false;
};
template <class T> struct CarryValue<Carry<T>> {
  using Type = T;
  static constexpr bool IsCarry = true;
};

template <class Tr, class = void> struct DstOf {
  using Type =
      typename CarryValue<typename FnTraits<decltype(+Tr::op)>::Ret>::Type;
};
template <class Tr> struct DstOf<Tr, std::void_t<typename Tr::Dst>> {
  using Type = typename Tr::Dst;
};

template <class Tr, class = void> struct FlagsOf {
  static constexpr unsigned Value = 0;
};
template <class Tr> struct FlagsOf<Tr, std::void_t<decltype(Tr::Flags)>> {
  static constexpr unsigned Value = Tr::Flags;
};

/// Facts about operation \p Tr: parameter list, sources, result.
template <class Tr> struct OpInfoOf {
  using FT = FnTraits<decltype(+Tr::op)>;
  using Args = typename FT::Args;
  using Ret = typename FT::Ret;
  static constexpr unsigned Flags = FlagsOf<Tr>::Value;
  static constexpr bool IsCompare = Flags & Compare;
  using Dst = std::conditional_t<IsCompare, bool, typename DstOf<Tr>::Type>;
  static constexpr unsigned NumArgs = std::tuple_size_v<Args>;

  template <size_t... I>
  static constexpr unsigned countSources(std::index_sequence<I...>) {
    return (0u + ... + (IsTag<std::tuple_element_t<I, Args>> ? 0u : 1u));
  }
  static constexpr unsigned NumSrc =
      countSources(std::make_index_sequence<NumArgs>());

  /// Source number of parameter \p K (parameters before it that are
  /// sources).
  template <size_t K> static constexpr unsigned sourceIndex() {
    return countSources(std::make_index_sequence<K>());
  }
  template <unsigned S, size_t K = 0> static constexpr auto sourceType() {
    if constexpr (IsTag<std::tuple_element_t<K, Args>>)
      return sourceType<S, K + 1>();
    else if constexpr (sourceIndex<K>() == S)
      return std::type_identity<std::tuple_element_t<K, Args>>();
    else
      return sourceType<S, K + 1>();
  }
  template <unsigned S>
  using SrcType = typename decltype(sourceType<S>())::type;
};

//===----------------------------------------------------------------------===//
// Execution
//===----------------------------------------------------------------------===//

/// Source lanes for the lane loop: 32-bit lanes (16- and 32-bit operands)
/// or 64-bit lanes (64-bit operands).
struct SrcLanes {
  const void *P = nullptr;
};

template <class T> inline T loadLane(const void *P, unsigned L) {
  if constexpr (sizeof(T) == 8)
    return std::bit_cast<T>(static_cast<const uint64_t *>(P)[L]);
  else if constexpr (sizeof(T) == 4)
    return std::bit_cast<T>(static_cast<const uint32_t *>(P)[L]);
  else
    return std::bit_cast<T>(
        static_cast<uint16_t>(static_cast<const uint32_t *>(P)[L]));
}

/// Scratch storage of one instruction's execution.
struct alignas(64) Scratch {
  uint64_t Src[DecodedInst::MaxSrc][WaveSize];
  /// Results as raw bits of the destination type.
  alignas(64) unsigned char Res[8 * WaveSize];
  alignas(64) uint8_t Flag[WaveSize];
  template <class Raw> Raw *res() { return reinterpret_cast<Raw *>(Res); }
};

/// Reads source operand \p Op as lanes of \p Bits (<= 32 or 64) into
/// \p Buf, or points at the VGPR itself.
template <unsigned Bits>
const void *fetchSource(const Wave &W, const Operand &Op, uint64_t *Buf) {
  if constexpr (Bits == 64) {
    readVector64(W, Op, *reinterpret_cast<Lanes64 *>(Buf));
    return Buf;
  } else {
    return readVector32(W, Op, *reinterpret_cast<Lanes32 *>(Buf));
  }
}

/// Operand layout of one instruction: where the lane sources, the mask
/// input and the output-modifier imms are.
struct Layout {
  unsigned SrcBase = 0; ///< first lane source in I.Src (1 after DPP old)
  const Operand *MaskIn = nullptr;  ///< null: VCC
  const Operand *MaskOut = nullptr; ///< null: VCC
  unsigned OutImms = 0;             ///< clamp/omod imms at the start of I.Imm
  unsigned SdwaImm = 0;             ///< first SDWA control imm
};

template <class Tr> Layout layoutOf(const DecodedInst &I) {
  using Info = OpInfoOf<Tr>;
  Layout Lay;
  Lay.SrcBase = (I.Flags & FlagDpp) && I.NumSrc && I.Src[0].Tied ? 1 : 0;
  if (Info::Flags & MaskIn)
    if (I.NumSrc > Lay.SrcBase + Info::NumSrc)
      Lay.MaskIn = &I.Src[Lay.SrcBase + Info::NumSrc];
  if (Info::IsCompare) {
    if (I.NumDst >= 1)
      Lay.MaskOut = &I.Dst[0];
  } else if (Info::Flags & CarryOut) {
    if (I.NumDst >= 2)
      Lay.MaskOut = &I.Dst[1];
  }
  if (I.Flags & FlagSdwa) {
    unsigned NSel = Info::NumSrc + (Info::IsCompare ? 0 : 2);
    Lay.SdwaImm = I.NumImm >= NSel ? I.NumImm - NSel : 0;
    Lay.OutImms = Lay.SdwaImm;
  } else if (!(I.Flags & FlagDpp)) {
    // VOP3: [clamp, omod] for float results, [clamp] for the others, then
    // op_sel, which the disassembler omits when it is zero (op_sel is read
    // from the source modifiers).
    unsigned Max = isFloat<typename Info::Dst>() ? 2 : 1;
    Lay.OutImms = I.NumImm < Max ? I.NumImm : Max;
  }
  return Lay;
}

/// Calls the lane function of \p Tr for lane \p L: sources from \p S,
/// mask input bits from \p InBits (one word, 0 or 1, per lane).
template <class Tr, size_t... K>
inline auto callLane(const SrcLanes *S, const uint32_t *InBits, const Ctx &C,
                     unsigned L, std::index_sequence<K...>) {
  using Info = OpInfoOf<Tr>;
  using Args = typename Info::Args;
  auto Get = [&]<size_t J>() {
    using P = std::tuple_element_t<J, Args>;
    if constexpr (std::is_same_v<P, MaskBit>) {
      static_assert(Info::Flags & MaskIn, "a MaskBit needs the MaskIn flag");
      return MaskBit{InBits[L]};
    } else if constexpr (std::is_same_v<P, LaneId>)
      return LaneId{L};
    else if constexpr (std::is_same_v<P, Ctx>)
      return C;
    else
      return loadLane<P>(S[Info::template sourceIndex<J>()].P, L);
  };
  (void)Get;
  return Tr::op(Get.template operator()<K>()...);
}

/// The value part of a lane result (Carry<T> or plain).
template <class R> inline auto valueOf(const R &X) {
  if constexpr (CarryValue<R>::IsCarry)
    return X.V;
  else
    return X;
}

/// The mask bit of a CarryOut result: Carry<T>::C, or the bit just above
/// Dst's width of the wide value.
template <class D, class R> inline bool carryOf(const R &X) {
  if constexpr (CarryValue<R>::IsCarry)
    return X.C;
  else
    return (X >> (sizeof(D) * 8)) & 1;
}

/// The destination bits of a lane result, after output modifiers when
/// \p OutMods (the general path).
template <class Tr, bool OutMods, class R>
inline auto toDstBits(const R &X, const Ctx &C) {
  using Info = OpInfoOf<Tr>;
  using D = typename Info::Dst;
  auto V = valueOf(X);
  using VT = decltype(V);
  D Out;
  if constexpr (OutMods && (Info::Flags & IntClamp) && !std::is_same_v<VT, D>)
    Out = C.Clamp ? saturate<D>(V) : D(V);
  else if constexpr (OutMods && isFloat<D>() && !(Info::Flags & OwnOutMods))
    Out = floatOutMods<D>(D(V), C);
  else
    Out = D(V);
  return std::bit_cast<typename TypeInfo<D>::Raw>(Out);
}

/// The lane loop: Sc.Res gets the destination bits, Sc.Flag the compare or
/// carry bits.
template <class Tr, bool OutMods>
void laneLoop(const SrcLanes *S, const uint32_t *InBits, const Ctx &C,
              Scratch &Sc) {
  using Info = OpInfoOf<Tr>;
  using D = typename Info::Dst;
  constexpr auto Seq = std::make_index_sequence<Info::NumArgs>();
  for (unsigned L = 0; L < WaveSize; ++L) {
    auto R = callLane<Tr>(S, InBits, C, L, Seq);
    if constexpr (Info::IsCompare) {
      Sc.Flag[L] = R ? 0xff : 0;
    } else {
      if constexpr (Info::Flags & CarryOut)
        Sc.Flag[L] = carryOf<D>(R) ? 0xff : 0;
      using Raw = typename TypeInfo<D>::Raw;
      Sc.template res<Raw>()[L] = toDstBits<Tr, OutMods>(R, C);
    }
  }
}

/// Whether runPlain can write results straight into the destination: a
/// VGPR result with nothing beside it and no half to keep.
template <class Tr> constexpr bool writesDirectly() {
  using Info = OpInfoOf<Tr>;
  if constexpr (Info::IsCompare)
    return true;
  else
    return !(TypeInfo<typename Info::Dst>::Bits == 16 &&
             (Info::Flags & (OpSel | KeepHi16)));
}

/// The fast lane loop: each lane's result goes straight to the destination
/// VGPR(s) on the lanes of \p Exec, and its compare or carry bit to the
/// mask. A lane reads only its own lane of each source and VGPRs are either
/// the same register or disjoint, so the loop carries no dependency even
/// when the destination is a source.
template <class Tr>
void directLoop(Wave &W, const DecodedInst &I, const Layout &Lay,
                const SrcLanes *S, const uint32_t *InBits, const Ctx &C,
                uint64_t Exec) {
  using Info = OpInfoOf<Tr>;
  using D = typename Info::Dst;
  constexpr bool HasDst = !Info::IsCompare;
  constexpr bool HasFlag = Info::IsCompare || (Info::Flags & CarryOut);
  constexpr auto Seq = std::make_index_sequence<Info::NumArgs>();
  alignas(64) uint8_t Flag[WaveSize];
  uint32_t *Lo = HasDst ? W.vgpr(W.vectorIndex(I.Dst[0])) : nullptr;
  [[maybe_unused]] uint32_t *Hi = Lo + WaveSize;
  auto Lane = [&](unsigned L, uint32_t Sel) {
    auto R = callLane<Tr>(S, InBits, C, L, Seq);
    if constexpr (HasFlag) {
      bool F;
      if constexpr (Info::IsCompare)
        F = R;
      else
        F = carryOf<D>(R);
      Flag[L] = F ? 0xff : 0;
    }
    if constexpr (HasDst) {
      auto V = toDstBits<Tr, false>(R, C);
      Lo[L] = (uint32_t(V) & Sel) | (Lo[L] & ~Sel);
      if constexpr (TypeInfo<D>::Bits == 64)
        Hi[L] = (uint32_t(V >> 32) & Sel) | (Hi[L] & ~Sel);
    }
  };
  // Separate loops (not one with a loop-invariant test): the compiler
  // would unswitch the test and leave one copy scalar.
  if (Exec == ~0ull) {
#pragma clang loop vectorize(assume_safety)
    for (unsigned L = 0; L < WaveSize; ++L)
      Lane(L, ~0u);
  } else {
    for (unsigned H = 0; H < 2; ++H) {
      uint32_t Half = uint32_t(Exec >> (32 * H));
#pragma clang loop vectorize(assume_safety)
      for (unsigned J = 0; J < 32; ++J)
        Lane(32 * H + J, (Half & LaneBit[J]) ? ~0u : 0u);
    }
  }
  if constexpr (HasFlag) {
    uint64_t M = packMask(Flag) & Exec;
    writeMask(W, Lay.MaskOut, M);
    if constexpr ((Info::Flags & CompareX) != 0)
      W.setExec(M);
  }
}

/// Writes the lane results of Sc.Res (raw bits of Dst) under \p Mask.
template <class Tr>
void writeResult(Wave &W, const DecodedInst &I, const Layout &Lay, Scratch &Sc,
                 uint64_t Mask, bool General) {
  using Info = OpInfoOf<Tr>;
  using D = typename Info::Dst;
  constexpr unsigned Flags = Info::Flags;
  if constexpr (Info::IsCompare) {
    uint64_t M = packMask(Sc.Flag) & Mask;
    writeMask(W, Lay.MaskOut, M);
    if constexpr (Flags & CompareX)
      W.setExec(M);
    return;
  } else {
    if constexpr (Flags & CarryOut)
      writeMask(W, Lay.MaskOut, packMask(Sc.Flag) & Mask);
    const Operand &DstOp = I.Dst[0];
    uint32_t *Lo = W.vgpr(W.vectorIndex(DstOp));
    using Raw = typename TypeInfo<D>::Raw;
    if constexpr (TypeInfo<D>::Bits == 64) {
      blend64(Lo, Lo + WaveSize, Sc.template res<Raw>(), Mask);
    } else {
      uint32_t *Out = Sc.template res<uint32_t>();
      alignas(64) uint32_t Wide[WaveSize];
      if constexpr (TypeInfo<D>::Bits == 16) {
        const uint16_t *R = Sc.template res<uint16_t>();
        Out = Wide;
        // gfx9's op_sel and preserving 16-bit operations keep the other
        // half; the legacy ones zero the high half.
        bool High = (Flags & OpSel) && I.NumSrc && (I.Src[0].Mods & 8) &&
                    !(I.Flags & FlagSdwa);
        unsigned Shift = High ? 16 : 0;
        uint32_t Keep = !(Flags & (OpSel | KeepHi16)) ? 0u
                        : High                        ? 0xffffu
                                                      : 0xffff0000u;
        for (unsigned L = 0; L < WaveSize; ++L)
          Out[L] = (uint32_t(R[L]) << Shift) | (Lo[L] & Keep);
      }
      if (General && (I.Flags & FlagSdwa)) {
        unsigned Sel = unsigned(I.Imm[Lay.SdwaImm]);
        unsigned Unused = unsigned(I.Imm[Lay.SdwaImm + 1]);
        for (unsigned L = 0; L < WaveSize; ++L)
          Out[L] = sdwaDest(Out[L], Lo[L], Sel, Unused);
      }
      blend32(Lo, Out, Mask);
    }
  }
}

/// Fast path: no SDWA, DPP, input or output modifiers.
template <class Tr>
void runPlain(Wave &W, const DecodedInst &I, const Layout &Lay) {
  using Info = OpInfoOf<Tr>;
  alignas(64) uint64_t Tmp[Info::NumSrc ? Info::NumSrc : 1][WaveSize];
  SrcLanes S[Info::NumSrc ? Info::NumSrc : 1];
  [&]<size_t... J>(std::index_sequence<J...>) {
    ((S[J].P = fetchSource<TypeInfo<typename Info::template SrcType<J>>::Bits>(
          W, I.Src[Lay.SrcBase + J], Tmp[J])),
     ...);
  }
  (std::make_index_sequence<Info::NumSrc>());
  alignas(64) uint32_t InBits[WaveSize];
  if constexpr ((Info::Flags & MaskIn) != 0)
    expandMask(Lay.MaskIn ? readScalar64(W, *Lay.MaskIn) : W.vcc(), InBits);
  Ctx C{W.Mode, false, 0, &I};
  if constexpr (writesDirectly<Tr>()) {
    directLoop<Tr>(W, I, Lay, S, InBits, C, W.exec());
  } else {
    Scratch Sc;
    laneLoop<Tr, false>(S, InBits, C, Sc);
    writeResult<Tr>(W, I, Lay, Sc, W.exec(), false);
  }
}

/// Source \p J after op_sel or SDWA selection, the DPP permutation (src0),
/// and neg/abs, in Sc.Src[J]. For DPP, \p Mask becomes the lanes the
/// instruction writes.
template <class Tr, unsigned J>
void prepareSource(const Wave &W, const DecodedInst &I, const Layout &Lay,
                   Scratch &Sc, SrcLanes &S, uint64_t &Mask) {
  using Info = OpInfoOf<Tr>;
  using T = typename Info::template SrcType<J>;
  constexpr unsigned Bits = TypeInfo<T>::Bits;
  using Elt = std::conditional_t<Bits == 64, uint64_t, uint32_t>;
  const Operand &Op = I.Src[Lay.SrcBase + J];
  uint64_t *Buf = Sc.Src[J];
  Elt *B = reinterpret_cast<Elt *>(Buf);
  const void *P = fetchSource<Bits>(W, Op, Buf);
  if (P != B)
    std::memcpy(B, P, sizeof(Elt) * WaveSize);
  unsigned Mods = Op.Mods;
  if constexpr (Bits < 64) {
    if (I.Flags & FlagSdwa) {
      unsigned Sel =
          unsigned(I.Imm[Lay.SdwaImm + (Info::IsCompare ? 0 : 2) + J]);
      bool Sext = Mods & 16;
      for (unsigned L = 0; L < WaveSize; ++L)
        B[L] = sdwaSource(B[L], Sel, Sext);
    } else if ((Info::Flags & OpSel) && Bits == 16 && (Mods & 4)) {
      for (unsigned L = 0; L < WaveSize; ++L)
        B[L] >>= 16;
    }
  }
  // DPP moves src0 between lanes; an invalid source reads 0 before the
  // input modifiers apply.
  if (J == 0 && (I.Flags & FlagDpp))
    Mask = dppPermute(B, dppControl(I), Mask);
  if (Mods & 3) {
    using U = std::conditional_t<Bits == 16, uint16_t, Elt>;
    for (unsigned L = 0; L < WaveSize; ++L)
      B[L] = (B[L] & ~Elt(U(~U(0)))) | applyNegAbs<U>(U(B[L]), Mods);
  }
  S.P = Buf;
}

/// General path: any modifier, SDWA or DPP.
template <class Tr>
[[gnu::noinline]] void runGeneral(Wave &W, const DecodedInst &I,
                                  const Layout &Lay) {
  using Info = OpInfoOf<Tr>;
  Scratch Sc;
  SrcLanes S[Info::NumSrc ? Info::NumSrc : 1];
  uint64_t Mask = W.exec();
  [&]<size_t... J>(std::index_sequence<J...>) {
    (prepareSource<Tr, J>(W, I, Lay, Sc, S[J], Mask), ...);
  }
  (std::make_index_sequence<Info::NumSrc>());
  alignas(64) uint32_t InBits[WaveSize];
  if constexpr ((Info::Flags & MaskIn) != 0)
    expandMask(Lay.MaskIn ? readScalar64(W, *Lay.MaskIn) : W.vcc(), InBits);
  Ctx C{W.Mode, Lay.OutImms >= 1 && I.Imm[0] != 0,
        Lay.OutImms >= 2 ? unsigned(I.Imm[1]) & 3 : 0u, &I};
  laneLoop<Tr, true>(S, InBits, C, Sc);
  writeResult<Tr>(W, I, Lay, Sc, Mask, true);
}

/// Runs \p I on the plain or the general path.
template <class Tr> void dispatch(Wave &W, const DecodedInst &I) {
  Layout Lay = layoutOf<Tr>(I);
  bool General = (I.Flags & (FlagSdwa | FlagDpp | FlagHasSrcMods)) ||
                 (Lay.OutImms >= 1 && I.Imm[0]) ||
                 (Lay.OutImms >= 2 && I.Imm[1]);
  if (General)
    runGeneral<Tr>(W, I, Lay);
  else
    runPlain<Tr>(W, I, Lay);
}

/// \p I with GPR indexing applied: M0[7:0] added to the register number of
/// the vector operands in the slots M0[15:12] enables (src0-2, vdst).
inline DecodedInst gprIndexed(const Wave &W, const DecodedInst &I,
                              unsigned SrcBase) {
  DecodedInst C = I;
  for (unsigned J = 0; J < 3 && SrcBase + J < C.NumSrc; ++J)
    if (C.Src[SrcBase + J].isVector())
      C.Src[SrcBase + J].Index += gprIdxOffset(W, GprIdxSlot(J));
  if (C.NumDst && C.Dst[0].isVector())
    C.Dst[0].Index += gprIdxOffset(W, GprIdxDst);
  return C;
}

template <class Tr>
[[gnu::noinline]] void runIndexed(Wave &W, const DecodedInst &I) {
  dispatch<Tr>(W, gprIndexed(W, I, layoutOf<Tr>(I).SrcBase));
}

/// The handler of operation \p Tr.
template <class Tr> void run(Wave &W, const DecodedInst &I) {
  if (W.Mode & ModeGprIdxEn) [[unlikely]]
    runIndexed<Tr>(W, I);
  else
    dispatch<Tr>(W, I);
}

/// An operation given by a lane function, for one-line registration.
template <auto F, unsigned Fl = 0, class D = void> struct Fn {
  static constexpr auto op = F;
  static constexpr unsigned Flags = Fl;
  using Dst = std::conditional_t<
      std::is_void_v<D>,
      typename CarryValue<typename FnTraits<decltype(+F)>::Ret>::Type, D>;
};

/// The handler of lane function \p F.
template <auto F, unsigned Fl = 0, class D = void>
inline constexpr Handler handler = &run<Fn<F, Fl, D>>;

} // namespace vop
} // namespace loom::emu

#endif // LOOM_EMU_OPS_VOP_H
