//===- emu/ops/ScalarOps.cpp - SOP1, SOP2, SOPC, SOPK arithmetic ----------===//
//
// The scalar ALU. Each operation is one function on values of the types the
// ISA gives its operands; generic handlers read the sources by those types,
// write the result and the SCC the function leaves. SCC is written exactly
// where the ISA says an instruction writes it (functions that do not touch
// their SCC argument leave it as it was).
//
// 64-bit operands and literals: the MC layer hands a 32-bit literal of a
// 64-bit operand over zero-extended (bits 31:0 as encoded). The hardware
// zero-extends it for B64/U64 operands and sign-extends it for I64 ones
// (LLVM's AMDGPUOperandSyntax "Conversion" table: i64 -> {-1,num.i32},
// u64/b64 -> {0,num.u32}; llvm-project #70274). Inline constants arrive
// already expanded to 64 bits. So a source read as int64_t re-extends a
// literal from bit 31 (s_ashr_i64, s_bfe_i64, s_flbit_i32_i64), every other
// 64-bit source is used as given.
//
// Program control, hardware registers and GPR indexing are in
// ScalarControlOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "../Semantics.h"

#include "llvm/Support/MathExtras.h"

#include <tuple>
#include <type_traits>

namespace loom::emu {

void registerScalarControlOps(HandlerTable &T); // ScalarControlOps.cpp

namespace {

//===----------------------------------------------------------------------===//
// Typed operand access
//===----------------------------------------------------------------------===//

template <typename T> T src(const Wave &W, const Operand &Op) {
  if constexpr (std::is_same_v<T, int64_t>) {
    uint64_t V = readScalar64(W, Op);
    // A literal with bit 31 set (inline constants never look like this).
    if (Op.K == Operand::Imm && V >= 0x80000000ull && V <= 0xffffffffull)
      return int32_t(uint32_t(V));
    return int64_t(V);
  } else if constexpr (sizeof(T) == 8) {
    return T(readScalar64(W, Op));
  } else {
    return T(readScalar32(W, Op));
  }
}

template <typename T> void dst(Wave &W, const Operand &Op, T V) {
  if constexpr (sizeof(T) == 8)
    writeScalar64(W, Op, uint64_t(V));
  else
    writeScalar32(W, Op, uint32_t(V));
}

/// Argument and result types of an operation function.
template <typename F> struct Sig;
template <typename R, typename... As> struct Sig<R (*)(As...)> {
  using Ret = R;
  template <size_t N>
  using Arg = std::remove_cvref_t<std::tuple_element_t<N, std::tuple<As...>>>;
};
template <auto F, size_t N> using ArgT = typename Sig<decltype(F)>::template Arg<N>;
template <auto F> using RetT = typename Sig<decltype(F)>::Ret;

template <typename T> constexpr unsigned Bits = sizeof(T) * 8;

/// The result, with SCC = (result != 0).
template <typename T> T nz(T R, bool &Scc) {
  Scc = R != 0;
  return R;
}

//===----------------------------------------------------------------------===//
// Generic handlers
//===----------------------------------------------------------------------===//

/// sdst = F(ssrc0, ssrc1, SCC&).
template <auto F> void sop2(Wave &W, const DecodedInst &I) {
  bool Scc = W.SCC;
  RetT<F> R =
      F(src<ArgT<F, 0>>(W, I.Src[0]), src<ArgT<F, 1>>(W, I.Src[1]), Scc);
  dst(W, I.Dst[0], R);
  W.SCC = Scc;
}

/// sdst = F(ssrc0, SCC&).
template <auto F> void sop1(Wave &W, const DecodedInst &I) {
  bool Scc = W.SCC;
  RetT<F> R = F(src<ArgT<F, 0>>(W, I.Src[0]), Scc);
  dst(W, I.Dst[0], R);
  W.SCC = Scc;
}

/// SCC = F(ssrc0, ssrc1).
template <auto F> void sopc(Wave &W, const DecodedInst &I) {
  W.SCC = F(src<ArgT<F, 0>>(W, I.Src[0]), src<ArgT<F, 1>>(W, I.Src[1]));
}

/// The 16-bit immediate of a SOPK instruction, sign-extended.
inline uint32_t simm16(const DecodedInst &I) {
  return uint32_t(int32_t(int16_t(I.Imm[0])));
}

/// s_cmpk_*: SCC = F(sdst, imm16); the immediate is zero-extended for the
/// unsigned comparisons.
template <auto F> void sopkCmp(Wave &W, const DecodedInst &I) {
  using T = ArgT<F, 0>;
  T K = std::is_signed_v<T> ? T(simm16(I)) : T(uint16_t(I.Imm[0]));
  W.SCC = F(src<T>(W, I.Src[0]), K);
}

/// s_addk/s_mulk: sdst = F(sdst, simm16, SCC&) (Src[0] is the tied sdst).
template <auto F> void sopkArith(Wave &W, const DecodedInst &I) {
  bool Scc = W.SCC;
  RetT<F> R = F(src<ArgT<F, 0>>(W, I.Src[0]), ArgT<F, 1>(simm16(I)), Scc);
  dst(W, I.Dst[0], R);
  W.SCC = Scc;
}

void sMovkI32(Wave &W, const DecodedInst &I) {
  writeScalar32(W, I.Dst[0], simm16(I));
}
void sCmovkI32(Wave &W, const DecodedInst &I) {
  if (W.SCC)
    writeScalar32(W, I.Dst[0], simm16(I));
}

template <typename T> void sCmov(Wave &W, const DecodedInst &I) {
  if (W.SCC)
    dst(W, I.Dst[0], src<T>(W, I.Src[0]));
}

/// s_bitset0/1: sets one bit of sdst's own value.
template <typename T, bool One> void sBitset(Wave &W, const DecodedInst &I) {
  Operand D = I.Dst[0];
  T Old = D.K == Operand::Sgpr ? src<T>(W, D) : T(0);
  T Bit = T(1) << (readScalar32(W, I.Src[0]) & (Bits<T> - 1));
  dst(W, D, One ? T(Old | Bit) : T(Old & ~Bit));
}

/// s_*_saveexec / s_*_wrexec: EXEC = F(ssrc0, EXEC) (operands swapped for
/// the "n1" forms, which negate ssrc0); sdst = the old EXEC (saveexec) or
/// the new one (wrexec); SCC = (EXEC != 0).
template <auto F, bool Swap, bool WrExec>
void sSaveexec(Wave &W, const DecodedInst &I) {
  uint64_t S = readScalar64(W, I.Src[0]);
  uint64_t Old = W.exec();
  bool Unused = false;
  uint64_t New = Swap ? F(Old, S, Unused) : F(S, Old, Unused);
  writeScalar64(W, I.Dst[0], WrExec ? New : Old);
  W.setExec(New);
  W.SCC = New != 0;
}

/// First SGPR of a s_movrels source / s_movreld destination: the operand's
/// register plus M0, or false if that leaves the operand's register file
/// (SGPRs, or trap temporaries); such a move reads 0 / writes nothing.
bool relativeSgpr(const Wave &W, const Operand &Op, unsigned Regs,
                  unsigned &Out) {
  if (Op.K != Operand::Sgpr)
    return false;
  unsigned Limit = Op.Index >= SgprTtmp0 ? SgprTtmp0 + 16 : SgprFlatScratchLo;
  uint64_t Idx = uint64_t(Op.Index) + W.m0();
  if (Op.Index >= Limit || Idx + Regs > Limit)
    return false;
  Out = unsigned(Idx);
  return true;
}

/// s_movrels (Dest = false): sdst = SGPR[ssrc0 + M0];
/// s_movreld (Dest = true): SGPR[sdst + M0] = ssrc0. (MC lists s_movreld's
/// sdst as a use: Src[0] is the base register, Src[1] the value.)
template <typename T, bool Dest> void sMovrel(Wave &W, const DecodedInst &I) {
  constexpr unsigned Regs = sizeof(T) / 4;
  unsigned Idx;
  if constexpr (Dest) {
    T V = src<T>(W, I.Src[1]);
    if (relativeSgpr(W, I.Src[0], Regs, Idx))
      for (unsigned R = 0; R < Regs; ++R)
        W.S[Idx + R] = uint32_t(uint64_t(V) >> (32 * R));
  } else {
    uint64_t V = 0;
    if (relativeSgpr(W, I.Src[0], Regs, Idx))
      for (unsigned R = 0; R < Regs; ++R)
        V |= uint64_t(W.S[Idx + R]) << (32 * R);
    dst(W, I.Dst[0], T(V));
  }
}

//===----------------------------------------------------------------------===//
// Operations (SOP2, and the SOPK forms that share them)
//===----------------------------------------------------------------------===//

uint32_t addU32(uint32_t A, uint32_t B, bool &C) {
  uint32_t R;
  C = __builtin_add_overflow(A, B, &R);
  return R;
}
uint32_t subU32(uint32_t A, uint32_t B, bool &C) {
  C = A < B; // borrow
  return A - B;
}
int32_t addI32(int32_t A, int32_t B, bool &C) {
  int32_t R;
  C = __builtin_add_overflow(A, B, &R); // signed overflow
  return R;
}
int32_t subI32(int32_t A, int32_t B, bool &C) {
  int32_t R;
  C = __builtin_sub_overflow(A, B, &R);
  return R;
}
uint32_t addcU32(uint32_t A, uint32_t B, bool &C) {
  uint64_t R = uint64_t(A) + B + C;
  C = R >> 32;
  return uint32_t(R);
}
uint32_t subbU32(uint32_t A, uint32_t B, bool &C) {
  uint64_t R = uint64_t(A) - B - C;
  C = (R >> 32) & 1;
  return uint32_t(R);
}
// SCC = 1 when ssrc0 is the one chosen.
template <typename T> T minOp(T A, T B, bool &C) {
  C = A < B;
  return C ? A : B;
}
template <typename T> T maxOp(T A, T B, bool &C) {
  C = A > B;
  return C ? A : B;
}
template <typename T> T cselect(T A, T B, bool &C) { return C ? A : B; }

template <typename T> T andOp(T A, T B, bool &C) { return nz<T>(A & B, C); }
template <typename T> T orOp(T A, T B, bool &C) { return nz<T>(A | B, C); }
template <typename T> T xorOp(T A, T B, bool &C) { return nz<T>(A ^ B, C); }
template <typename T> T andn2(T A, T B, bool &C) { return nz<T>(A & ~B, C); }
template <typename T> T orn2(T A, T B, bool &C) { return nz<T>(A | ~B, C); }
template <typename T> T nand(T A, T B, bool &C) { return nz<T>(~(A & B), C); }
template <typename T> T nor(T A, T B, bool &C) { return nz<T>(~(A | B), C); }
template <typename T> T xnor(T A, T B, bool &C) { return nz<T>(~(A ^ B), C); }

// Shift counts use the low 5 (6) bits; T's signedness picks the right shift.
template <typename T> T lshl(T A, uint32_t S, bool &C) {
  return nz<T>(T(A << (S & (Bits<T> - 1))), C);
}
template <typename T> T shr(T A, uint32_t S, bool &C) {
  return nz<T>(T(A >> (S & (Bits<T> - 1))), C);
}

template <typename T> T bfm(uint32_t Width, uint32_t Offset, bool &) {
  constexpr unsigned M = Bits<T> - 1;
  return T((T(1) << (Width & M)) - 1) << (Offset & M);
}

/// s_bfe_*: ssrc1[5:0] (4:0 for 32 bits) is the offset, ssrc1[22:16] the
/// width. A field running past the top takes every bit above the offset
/// (and, signed, the sign of the top bit).
template <typename T> T bfe(T A, uint32_t B, bool &C) {
  using U = std::make_unsigned_t<T>;
  unsigned Off = B & (Bits<T> - 1), Width = (B >> 16) & 0x7f;
  T R;
  if (Width == 0)
    R = 0;
  else if (Off + Width < Bits<T>)
    R = T(U(A) << (Bits<T> - Off - Width)) >> (Bits<T> - Width);
  else
    R = A >> Off;
  return nz(R, C);
}

uint32_t mulI32(uint32_t A, uint32_t B, bool &) { return A * B; }
uint32_t mulHiU32(uint32_t A, uint32_t B, bool &) {
  return uint32_t((uint64_t(A) * B) >> 32);
}
int32_t mulHiI32(int32_t A, int32_t B, bool &) {
  return int32_t((int64_t(A) * B) >> 32);
}
// |S0 - S1| in 32-bit arithmetic (wraps like the hardware's).
uint32_t absdiffI32(int32_t A, int32_t B, bool &C) {
  uint32_t D = uint32_t(A) - uint32_t(B);
  return nz(int32_t(D) < 0 ? 0u - D : D, C);
}
template <unsigned N> uint32_t lshlAdd(uint32_t A, uint32_t B, bool &C) {
  uint64_t R = (uint64_t(A) << N) + B;
  C = (R >> 32) != 0; // every bit out of 32, shifted or carried
  return uint32_t(R);
}
uint32_t packLL(uint32_t A, uint32_t B, bool &) {
  return (A & 0xffff) | (B << 16);
}
uint32_t packLH(uint32_t A, uint32_t B, bool &) {
  return (A & 0xffff) | (B & 0xffff0000u);
}
uint32_t packHH(uint32_t A, uint32_t B, bool &) {
  return (A >> 16) | (B & 0xffff0000u);
}

//===----------------------------------------------------------------------===//
// Operations (SOP1)
//===----------------------------------------------------------------------===//

template <typename T> T mov(T A, bool &) { return A; }
template <typename T> T notOp(T A, bool &C) { return nz<T>(~A, C); }
template <typename T> T brev(T A, bool &) { return llvm::reverseBits(A); }
template <typename T> uint32_t bcnt0(T A, bool &C) {
  return nz(uint32_t(std::popcount(T(~A))), C);
}
template <typename T> uint32_t bcnt1(T A, bool &C) {
  return nz(uint32_t(std::popcount(A)), C);
}
// Bit positions, or -1 when there is none.
template <typename T> uint32_t ff0(T A, bool &) {
  return A == T(~T(0)) ? ~0u : uint32_t(std::countr_one(A));
}
template <typename T> uint32_t ff1(T A, bool &) {
  return A == 0 ? ~0u : uint32_t(std::countr_zero(A));
}
template <typename T> uint32_t flbitB(T A, bool &) {
  return A == 0 ? ~0u : uint32_t(std::countl_zero(A));
}
/// Leading bits equal to the sign bit: -1 for 0 and -1.
template <typename T> uint32_t flbitI(T A, bool &) {
  using U = std::make_unsigned_t<T>;
  if (A == 0 || A == -1)
    return ~0u;
  return uint32_t(std::countl_zero(U(A ^ (A >> (Bits<T> - 1)))));
}
int32_t sextI8(uint32_t A, bool &) { return int8_t(A); }
int32_t sextI16(uint32_t A, bool &) { return int16_t(A); }
uint32_t absI32(int32_t A, bool &C) {
  return nz(A < 0 ? 0u - uint32_t(A) : uint32_t(A), C);
}
/// Each group of 4 bits becomes all ones if any of its bits is set.
template <typename T> T wqm(T A, bool &C) {
  T R = 0;
  for (unsigned I = 0; I < Bits<T>; I += 4)
    if ((A >> I) & 0xf)
      R |= T(0xf) << I;
  return nz(R, C);
}
/// Bit I of the result is set if group I of 4 bits has any bit set.
template <typename T> T quadmask(T A, bool &C) {
  T R = 0;
  for (unsigned I = 0; I < Bits<T> / 4; ++I)
    if ((A >> (4 * I)) & 0xf)
      R |= T(1) << I;
  return nz(R, C);
}
/// Each bit of the source twice: result bits 2i and 2i+1 are source bit i.
uint64_t bitreplicate(uint32_t A, bool &) {
  uint64_t R = 0;
  for (unsigned I = 0; I < 32; ++I)
    R |= uint64_t((A >> I) & 1) * (3ull << (2 * I));
  return R;
}

//===----------------------------------------------------------------------===//
// Operations (SOPC)
//===----------------------------------------------------------------------===//

template <typename T> bool cmpEq(T A, T B) { return A == B; }
template <typename T> bool cmpLg(T A, T B) { return A != B; }
template <typename T> bool cmpGt(T A, T B) { return A > B; }
template <typename T> bool cmpGe(T A, T B) { return A >= B; }
template <typename T> bool cmpLt(T A, T B) { return A < B; }
template <typename T> bool cmpLe(T A, T B) { return A <= B; }
template <typename T, bool One> bool bitcmp(T A, uint32_t B) {
  return ((A >> (B & (Bits<T> - 1))) & 1) == One;
}

} // namespace

void registerScalarOps(HandlerTable &T) {
  using u32 = uint32_t;
  using u64 = uint64_t;
  using i32 = int32_t;
  using i64 = int64_t;

  // SOP2
  T.add("S_ADD_U32", sop2<addU32>);
  T.add("S_SUB_U32", sop2<subU32>);
  T.add("S_ADD_I32", sop2<addI32>);
  T.add("S_SUB_I32", sop2<subI32>);
  T.add("S_ADDC_U32", sop2<addcU32>);
  T.add("S_SUBB_U32", sop2<subbU32>);
  T.add("S_MIN_I32", sop2<minOp<i32>>);
  T.add("S_MIN_U32", sop2<minOp<u32>>);
  T.add("S_MAX_I32", sop2<maxOp<i32>>);
  T.add("S_MAX_U32", sop2<maxOp<u32>>);
  T.add("S_CSELECT_B32", sop2<cselect<u32>>);
  T.add("S_CSELECT_B64", sop2<cselect<u64>>);
  T.add("S_AND_B32", sop2<andOp<u32>>);
  T.add("S_AND_B64", sop2<andOp<u64>>);
  T.add("S_OR_B32", sop2<orOp<u32>>);
  T.add("S_OR_B64", sop2<orOp<u64>>);
  T.add("S_XOR_B32", sop2<xorOp<u32>>);
  T.add("S_XOR_B64", sop2<xorOp<u64>>);
  T.add("S_ANDN2_B32", sop2<andn2<u32>>);
  T.add("S_ANDN2_B64", sop2<andn2<u64>>);
  T.add("S_ORN2_B32", sop2<orn2<u32>>);
  T.add("S_ORN2_B64", sop2<orn2<u64>>);
  T.add("S_NAND_B32", sop2<nand<u32>>);
  T.add("S_NAND_B64", sop2<nand<u64>>);
  T.add("S_NOR_B32", sop2<nor<u32>>);
  T.add("S_NOR_B64", sop2<nor<u64>>);
  T.add("S_XNOR_B32", sop2<xnor<u32>>);
  T.add("S_XNOR_B64", sop2<xnor<u64>>);
  T.add("S_LSHL_B32", sop2<lshl<u32>>);
  T.add("S_LSHL_B64", sop2<lshl<u64>>);
  T.add("S_LSHR_B32", sop2<shr<u32>>);
  T.add("S_LSHR_B64", sop2<shr<u64>>);
  T.add("S_ASHR_I32", sop2<shr<i32>>);
  T.add("S_ASHR_I64", sop2<shr<i64>>);
  T.add("S_BFM_B32", sop2<bfm<u32>>);
  T.add("S_BFM_B64", sop2<bfm<u64>>);
  T.add("S_MUL_I32", sop2<mulI32>);
  T.add("S_MUL_HI_U32", sop2<mulHiU32>);
  T.add("S_MUL_HI_I32", sop2<mulHiI32>);
  T.add("S_BFE_U32", sop2<bfe<u32>>);
  T.add("S_BFE_I32", sop2<bfe<i32>>);
  T.add("S_BFE_U64", sop2<bfe<u64>>);
  T.add("S_BFE_I64", sop2<bfe<i64>>);
  T.add("S_ABSDIFF_I32", sop2<absdiffI32>);
  T.add("S_LSHL1_ADD_U32", sop2<lshlAdd<1>>);
  T.add("S_LSHL2_ADD_U32", sop2<lshlAdd<2>>);
  T.add("S_LSHL3_ADD_U32", sop2<lshlAdd<3>>);
  T.add("S_LSHL4_ADD_U32", sop2<lshlAdd<4>>);
  T.add("S_PACK_LL_B32_B16", sop2<packLL>);
  T.add("S_PACK_LH_B32_B16", sop2<packLH>);
  T.add("S_PACK_HH_B32_B16", sop2<packHH>);

  // SOP1
  T.add("S_MOV_B32", sop1<mov<u32>>);
  T.add("S_MOV_B64", sop1<mov<u64>>);
  T.add("S_CMOV_B32", sCmov<u32>);
  T.add("S_CMOV_B64", sCmov<u64>);
  T.add("S_NOT_B32", sop1<notOp<u32>>);
  T.add("S_NOT_B64", sop1<notOp<u64>>);
  T.add("S_WQM_B32", sop1<wqm<u32>>);
  T.add("S_WQM_B64", sop1<wqm<u64>>);
  T.add("S_BREV_B32", sop1<brev<u32>>);
  T.add("S_BREV_B64", sop1<brev<u64>>);
  T.add("S_BCNT0_I32_B32", sop1<bcnt0<u32>>);
  T.add("S_BCNT0_I32_B64", sop1<bcnt0<u64>>);
  T.add("S_BCNT1_I32_B32", sop1<bcnt1<u32>>);
  T.add("S_BCNT1_I32_B64", sop1<bcnt1<u64>>);
  T.add("S_FF0_I32_B32", sop1<ff0<u32>>);
  T.add("S_FF0_I32_B64", sop1<ff0<u64>>);
  T.add("S_FF1_I32_B32", sop1<ff1<u32>>);
  T.add("S_FF1_I32_B64", sop1<ff1<u64>>);
  T.add("S_FLBIT_I32_B32", sop1<flbitB<u32>>);
  T.add("S_FLBIT_I32_B64", sop1<flbitB<u64>>);
  T.add("S_FLBIT_I32", sop1<flbitI<i32>>);
  T.add("S_FLBIT_I32_I64", sop1<flbitI<i64>>);
  T.add("S_SEXT_I32_I8", sop1<sextI8>);
  T.add("S_SEXT_I32_I16", sop1<sextI16>);
  T.add("S_BITSET0_B32", sBitset<u32, false>);
  T.add("S_BITSET0_B64", sBitset<u64, false>);
  T.add("S_BITSET1_B32", sBitset<u32, true>);
  T.add("S_BITSET1_B64", sBitset<u64, true>);
  T.add("S_ABS_I32", sop1<absI32>);
  T.add("S_QUADMASK_B32", sop1<quadmask<u32>>);
  T.add("S_QUADMASK_B64", sop1<quadmask<u64>>);
  T.add("S_BITREPLICATE_B64_B32", sop1<bitreplicate>);
  T.add("S_MOVRELS_B32", sMovrel<u32, false>);
  T.add("S_MOVRELS_B64", sMovrel<u64, false>);
  T.add("S_MOVRELD_B32", sMovrel<u32, true>);
  T.add("S_MOVRELD_B64", sMovrel<u64, true>);
  T.add("S_AND_SAVEEXEC_B64", sSaveexec<andOp<u64>, false, false>);
  T.add("S_OR_SAVEEXEC_B64", sSaveexec<orOp<u64>, false, false>);
  T.add("S_XOR_SAVEEXEC_B64", sSaveexec<xorOp<u64>, false, false>);
  T.add("S_ANDN2_SAVEEXEC_B64", sSaveexec<andn2<u64>, false, false>);
  T.add("S_ORN2_SAVEEXEC_B64", sSaveexec<orn2<u64>, false, false>);
  T.add("S_NAND_SAVEEXEC_B64", sSaveexec<nand<u64>, false, false>);
  T.add("S_NOR_SAVEEXEC_B64", sSaveexec<nor<u64>, false, false>);
  T.add("S_XNOR_SAVEEXEC_B64", sSaveexec<xnor<u64>, false, false>);
  T.add("S_ANDN1_SAVEEXEC_B64", sSaveexec<andn2<u64>, true, false>);
  T.add("S_ORN1_SAVEEXEC_B64", sSaveexec<orn2<u64>, true, false>);
  T.add("S_ANDN1_WREXEC_B64", sSaveexec<andn2<u64>, true, true>);
  T.add("S_ANDN2_WREXEC_B64", sSaveexec<andn2<u64>, false, true>);

  // SOPC
  T.add("S_CMP_EQ_I32", sopc<cmpEq<i32>>);
  T.add("S_CMP_LG_I32", sopc<cmpLg<i32>>);
  T.add("S_CMP_GT_I32", sopc<cmpGt<i32>>);
  T.add("S_CMP_GE_I32", sopc<cmpGe<i32>>);
  T.add("S_CMP_LT_I32", sopc<cmpLt<i32>>);
  T.add("S_CMP_LE_I32", sopc<cmpLe<i32>>);
  T.add("S_CMP_EQ_U32", sopc<cmpEq<u32>>);
  T.add("S_CMP_LG_U32", sopc<cmpLg<u32>>);
  T.add("S_CMP_GT_U32", sopc<cmpGt<u32>>);
  T.add("S_CMP_GE_U32", sopc<cmpGe<u32>>);
  T.add("S_CMP_LT_U32", sopc<cmpLt<u32>>);
  T.add("S_CMP_LE_U32", sopc<cmpLe<u32>>);
  T.add("S_CMP_EQ_U64", sopc<cmpEq<u64>>);
  T.add("S_CMP_LG_U64", sopc<cmpLg<u64>>);
  T.add("S_BITCMP0_B32", sopc<bitcmp<u32, false>>);
  T.add("S_BITCMP1_B32", sopc<bitcmp<u32, true>>);
  T.add("S_BITCMP0_B64", sopc<bitcmp<u64, false>>);
  T.add("S_BITCMP1_B64", sopc<bitcmp<u64, true>>);

  // SOPK
  T.add("S_MOVK_I32", sMovkI32);
  T.add("S_CMOVK_I32", sCmovkI32);
  T.add("S_ADDK_I32", sopkArith<addI32>);
  T.add("S_MULK_I32", sopkArith<mulI32>);
  T.add("S_CMPK_EQ_I32", sopkCmp<cmpEq<i32>>);
  T.add("S_CMPK_LG_I32", sopkCmp<cmpLg<i32>>);
  T.add("S_CMPK_GT_I32", sopkCmp<cmpGt<i32>>);
  T.add("S_CMPK_GE_I32", sopkCmp<cmpGe<i32>>);
  T.add("S_CMPK_LT_I32", sopkCmp<cmpLt<i32>>);
  T.add("S_CMPK_LE_I32", sopkCmp<cmpLe<i32>>);
  T.add("S_CMPK_EQ_U32", sopkCmp<cmpEq<u32>>);
  T.add("S_CMPK_LG_U32", sopkCmp<cmpLg<u32>>);
  T.add("S_CMPK_GT_U32", sopkCmp<cmpGt<u32>>);
  T.add("S_CMPK_GE_U32", sopkCmp<cmpGe<u32>>);
  T.add("S_CMPK_LT_U32", sopkCmp<cmpLt<u32>>);
  T.add("S_CMPK_LE_U32", sopkCmp<cmpLe<u32>>);

  registerScalarControlOps(T);
}

} // namespace loom::emu
