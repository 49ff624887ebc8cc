//===- emu/ops/VectorIntOps.cpp - Integer and bitwise VALU operations -----===//
//
// VOP1/VOP2/VOP3 integer arithmetic, shifts, logic, bit-field, multiply,
// SAD and integer pack operations, as lane functions on the vop framework
// (Vop.h). Operations that support clamp return a wider type; the
// framework saturates it into Dst when clamp is set and truncates it
// otherwise.
//
//===----------------------------------------------------------------------===//

#include "Vop.h"

#include <algorithm>
#include <bit>

namespace loom::emu {
namespace {

using vop::Carry;
using vop::LaneId;
using vop::MaskBit;

using u16 = uint16_t;
using i16 = int16_t;
using u32 = uint32_t;
using i32 = int32_t;
using u64 = uint64_t;
using i64 = int64_t;

/// Wider type for clamp: the exact result of a 16/32/64-bit operation.
template <class T> struct Wide;
template <> struct Wide<u16> { using Type = i32; };
template <> struct Wide<i16> { using Type = i32; };
template <> struct Wide<u32> { using Type = i64; };
template <> struct Wide<i32> { using Type = i64; };
template <class T> using WideT = typename Wide<T>::Type;

/// Operation \p F on type T with the exact (wide) result saturated by clamp.
template <class T, auto F, unsigned Fl = 0> struct Sat {
  static constexpr auto op = F;
  using Dst = T;
  static constexpr unsigned Flags = vop::IntClamp | Fl;
};

// --- Add / subtract ---------------------------------------------------------

template <class T> WideT<T> add(T A, T B) { return WideT<T>(A) + B; }
template <class T> WideT<T> sub(T A, T B) { return WideT<T>(A) - B; }
template <class T> WideT<T> subrev(T A, T B) { return WideT<T>(B) - A; }

// Carry forms, in 32-bit arithmetic (it vectorises): the carry of an add,
// the borrow of a subtraction. Clamp saturates: an add that carries gives
// 0xffffffff, a subtraction that borrows 0.
Carry<u32> addCarry(u32 A, u32 B, u32 Cin, const vop::Ctx &X) {
  u32 T = A + B, S = T + Cin;
  bool C = (T < A) | (S < T);
  return {X.Clamp && C ? ~0u : S, C};
}
Carry<u32> subBorrow(u32 A, u32 B, u32 Bin, const vop::Ctx &X) {
  u32 T = A - B, S = T - Bin;
  bool C = (A < B) | (T < Bin);
  return {X.Clamp && C ? 0u : S, C};
}
Carry<u32> addCo(u32 A, u32 B, vop::Ctx X) { return addCarry(A, B, 0, X); }
Carry<u32> subCo(u32 A, u32 B, vop::Ctx X) { return subBorrow(A, B, 0, X); }
Carry<u32> subrevCo(u32 A, u32 B, vop::Ctx X) { return subBorrow(B, A, 0, X); }
Carry<u32> addc(u32 A, u32 B, MaskBit C, vop::Ctx X) {
  return addCarry(A, B, C.V, X);
}
Carry<u32> subb(u32 A, u32 B, MaskBit C, vop::Ctx X) {
  return subBorrow(A, B, C.V, X);
}
Carry<u32> subbrev(u32 A, u32 B, MaskBit C, vop::Ctx X) {
  return subBorrow(B, A, C.V, X);
}

u32 add3(u32 A, u32 B, u32 C) { return A + B + C; }

// --- Multiply ---------------------------------------------------------------

i64 sext24(u32 A) { return i64(i32(A << 8) >> 8); }
u64 zext24(u32 A) { return A & 0xffffff; }

i64 mulI24(u32 A, u32 B) { return sext24(A) * sext24(B); }
u32 mulHiI24(u32 A, u32 B) { return u32(u64(mulI24(A, B)) >> 32); }
u64 mulU24(u32 A, u32 B) { return zext24(A) * zext24(B); }
u32 mulHiU24(u32 A, u32 B) { return u32(mulU24(A, B) >> 32); }
i64 madI24(u32 A, u32 B, i32 C) { return mulI24(A, B) + C; }
u64 madU24(u32 A, u32 B, u32 C) { return mulU24(A, B) + C; }

u32 mulLo(u32 A, u32 B) { return A * B; }
u32 mulHiU32(u32 A, u32 B) { return u32((u64(A) * B) >> 32); }
u32 mulHiI32(i32 A, i32 B) { return u32(u64(i64(A) * B) >> 32); }

// 64-bit results with the carry (bit 64 of the exact sum) beside them;
// clamp saturates to the 64-bit range.
Carry<u64> madU64(u32 A, u32 B, u64 C, vop::Ctx X) {
  u64 S = u64(A) * B + C;
  bool Cy = S < C;
  return {X.Clamp && Cy ? ~0ull : S, Cy};
}
Carry<u64> madI64(i32 A, i32 B, i64 C, vop::Ctx X) {
  i64 P = i64(A) * B;
  i64 S = i64(u64(P) + u64(C));
  bool Overflow = (P < 0) == (C < 0) && (S < 0) != (P < 0);
  // Bit 64 of the exact 65-bit sum is its sign.
  bool Sign = Overflow ? P < 0 : S < 0;
  if (X.Clamp && Overflow)
    S = P < 0 ? std::numeric_limits<i64>::min()
              : std::numeric_limits<i64>::max();
  return {u64(S), Sign};
}

template <class T> T mulLo16(T A, T B) { return T(A * B); }
// gfx9's v_mad_u16/i16: exact product plus addend, saturated by clamp.
template <class T> i64 mad16(T A, T B, T C) { return i64(A) * B + C; }
// v_mad_u32_u16 / v_mad_i32_i16.
template <class T, class R> i64 mad32x16(T A, T B, R C) {
  return i64(A) * B + C;
}

// --- Shifts -----------------------------------------------------------------

template <class T> T shlrev(u32 S, T V) {
  return T(V << (S & (sizeof(T) * 8 - 1)));
}
template <class T> T shrrev(u32 S, T V) {
  return T(V >> (S & (sizeof(T) * 8 - 1)));
}

u32 lshlAdd(u32 A, u32 S, u32 C) { return (A << (S & 31)) + C; }
// gfx940: the shift is S1[2:0] (clang uses 0 to 4).
u64 lshlAdd64(u64 A, u32 S, u64 C) { return (A << (S & 7)) + C; }
u64 mov64(u64 A) { return A; }
u32 addLshl(u32 A, u32 B, u32 S) { return (A + B) << (S & 31); }
u32 lshlOr(u32 A, u32 S, u32 C) { return (A << (S & 31)) | C; }
u32 alignbit(u32 Hi, u32 Lo, u32 S) {
  return u32(((u64(Hi) << 32) | Lo) >> (S & 31));
}
u32 alignbyte(u32 Hi, u32 Lo, u32 S) {
  return u32(((u64(Hi) << 32) | Lo) >> (8 * (S & 3)));
}

// --- Logic ------------------------------------------------------------------

u32 andB(u32 A, u32 B) { return A & B; }
u32 orB(u32 A, u32 B) { return A | B; }
u32 xorB(u32 A, u32 B) { return A ^ B; }
u32 xnorB(u32 A, u32 B) { return ~(A ^ B); }
u32 notB(u32 A) { return ~A; }
u32 andOr(u32 A, u32 B, u32 C) { return (A & B) | C; }
u32 or3(u32 A, u32 B, u32 C) { return A | B | C; }
u32 xad(u32 A, u32 B, u32 C) { return (A ^ B) + C; }

// --- Min / max / median -----------------------------------------------------

template <class T> T minOp(T A, T B) { return std::min(A, B); }
template <class T> T maxOp(T A, T B) { return std::max(A, B); }
template <class T> T min3(T A, T B, T C) { return std::min(std::min(A, B), C); }
template <class T> T max3(T A, T B, T C) { return std::max(std::max(A, B), C); }
template <class T> T med3(T A, T B, T C) {
  return std::max(std::min(A, B), std::min(std::max(A, B), C));
}

// --- Bit fields and counts --------------------------------------------------

u32 bfeU(u32 V, u32 Off, u32 W) {
  W &= 31;
  return W ? u32((V >> (Off & 31)) & ((1u << W) - 1)) : 0;
}
/// The field is taken from the sign-extended source (an arithmetic shift),
/// so a field reaching past bit 31 repeats the sign bit.
u32 bfeI(u32 V, u32 Off, u32 W) {
  W &= 31;
  if (!W)
    return 0;
  u32 F = u32(i32(V) >> (Off & 31));
  return u32(i32(F << (32 - W)) >> (32 - W));
}
u32 bfi(u32 M, u32 A, u32 B) { return (M & A) | (~M & B); }
u32 bfm(u32 W, u32 Off) { return ((1u << (W & 31)) - 1) << (Off & 31); }
u32 bfrev(u32 A) {
  A = ((A >> 1) & 0x55555555u) | ((A & 0x55555555u) << 1);
  A = ((A >> 2) & 0x33333333u) | ((A & 0x33333333u) << 2);
  A = ((A >> 4) & 0x0f0f0f0fu) | ((A & 0x0f0f0f0fu) << 4);
  A = ((A >> 8) & 0x00ff00ffu) | ((A & 0x00ff00ffu) << 8);
  return (A >> 16) | (A << 16);
}
u32 bcnt(u32 A, u32 B) { return u32(std::popcount(A)) + B; }
u32 ffbhU(u32 A) { return A ? u32(std::countl_zero(A)) : ~0u; }
u32 ffbl(u32 A) { return A ? u32(std::countr_zero(A)) : ~0u; }
// Leading bits equal to the sign bit; -1 when all bits are.
u32 ffbhI(u32 A) { return ffbhU(A ^ u32(i32(A) >> 31)); }

/// Active-lane count below this lane in the low / high half of mask \p M.
u32 mbcntLo(u32 M, u32 B, LaneId L) {
  u32 Below = L.V >= 32 ? ~0u : (1u << L.V) - 1;
  return u32(std::popcount(M & Below)) + B;
}
u32 mbcntHi(u32 M, u32 B, LaneId L) {
  u32 Below = L.V < 32 ? 0u : (1u << (L.V - 32)) - 1;
  return u32(std::popcount(M & Below)) + B;
}

/// v_perm_b32: each result byte picks a byte of {S0, S1} (S1 low), a sign
/// replication, or a constant.
u32 perm(u32 S0, u32 S1, u32 Sel) {
  u64 Src = (u64(S0) << 32) | S1;
  u32 R = 0;
  for (unsigned I = 0; I < 4; ++I) {
    unsigned S = (Sel >> (8 * I)) & 0xff;
    u32 B;
    if (S < 8)
      B = (Src >> (8 * S)) & 0xff;
    else if (S < 12) // sign of byte 1, 3, 5, 7
      B = (Src >> (16 * (S - 8) + 15)) & 1 ? 0xff : 0;
    else
      B = S == 12 ? 0 : 0xff;
    R |= B << (8 * I);
  }
  return R;
}

// --- Sums of absolute differences -------------------------------------------

u32 absDiff(u32 A, u32 B) { return A > B ? A - B : B - A; }
template <unsigned Bits> u32 sadParts(u32 A, u32 B, bool Masked = false) {
  u32 Sum = 0, Mask = (1u << Bits) - 1;
  for (unsigned I = 0; I < 32 / Bits; ++I) {
    u32 X = (A >> (Bits * I)) & Mask, Y = (B >> (Bits * I)) & Mask;
    Sum += Masked && !Y ? 0 : absDiff(X, Y);
  }
  return Sum;
}
u64 sadU8(u32 A, u32 B, u32 C) { return u64(sadParts<8>(A, B)) + C; }
u64 sadHiU8(u32 A, u32 B, u32 C) { return (u64(sadParts<8>(A, B)) << 16) + C; }
u64 sadU16(u32 A, u32 B, u32 C) { return u64(sadParts<16>(A, B)) + C; }
u64 sadU32(u32 A, u32 B, u32 C) { return u64(absDiff(A, B)) + C; }
u64 msadU8(u32 A, u32 B, u32 C) { return u64(sadParts<8>(A, B, true)) + C; }
/// Four (masked) byte SADs of S0's sliding 32-bit windows against S1, each
/// accumulated into a 16-bit field of S2.
template <bool Masked> u64 qsad(u64 A, u32 B, u64 C) {
  u64 R = 0;
  for (unsigned I = 0; I < 4; ++I) {
    u32 S = sadParts<8>(u32(A >> (8 * I)), B, Masked) +
            u32((C >> (16 * I)) & 0xffff);
    R |= u64(S & 0xffff) << (16 * I);
  }
  return R;
}
/// v_mqsad_u32_u8: the masked byte SADs of S0's four sliding 32-bit windows
/// against S1, accumulated into the four dwords of S2; 128-bit result, so
/// written by hand rather than as a lane function. Clamp saturates.
void vMqsadU32U8(Wave &W, const DecodedInst &I) {
  Lanes64 S0;
  Lanes32 S1, Acc[4];
  readVector64(W, I.Src[0], S0);
  std::memcpy(S1.V, readVector32(W, I.Src[1], S1), sizeof(S1.V));
  for (unsigned K = 0; K < 4; ++K)
    if (const u32 *P = readVector32(W, I.Src[2], Acc[K], K); P != Acc[K].V)
      std::memcpy(Acc[K].V, P, sizeof(Acc[K].V));
  bool Clamp = I.NumImm && I.Imm[0];
  for (unsigned K = 0; K < 4; ++K) {
    Lanes32 R;
    for (unsigned L = 0; L < WaveSize; ++L) {
      u64 X = u64(sadParts<8>(u32(S0.V[L] >> (8 * K)), S1.V[L], true)) +
              Acc[K].V[L];
      R.V[L] = Clamp && X >> 32 ? ~0u : u32(X);
    }
    writeVector32(W, I.Dst[0], R.V, W.exec(), K);
  }
}

/// Per-byte average of S0 and S1, rounding up when S2's byte has bit 0 set.
u32 lerpU8(u32 A, u32 B, u32 C) {
  u32 R = 0;
  for (unsigned I = 0; I < 4; ++I) {
    u32 X = (A >> (8 * I)) & 0xff, Y = (B >> (8 * I)) & 0xff,
        Z = (C >> (8 * I)) & 1;
    R |= ((X + Y + Z) >> 1) << (8 * I);
  }
  return R;
}

// --- Integer packs
// ------------------------------------------------------------

template <class T, class S> u32 satTo(S V) {
  return u32(std::clamp<S>(V, std::numeric_limits<T>::min(),
                           std::numeric_limits<T>::max())) &
         ((1u << (sizeof(T) * 8)) - 1);
}
u32 cvtPkU16(u32 A, u32 B) { return satTo<u16>(A) | (satTo<u16>(B) << 16); }
u32 cvtPkI16(i32 A, i32 B) { return satTo<i16>(A) | (satTo<i16>(B) << 16); }
u16 satPkU8(u32 A) {
  return u16(satTo<uint8_t, i32>(i16(A)) |
             (satTo<uint8_t, i32>(i16(A >> 16)) << 8));
}

using vop::handler;
using vop::run;

} // namespace

void registerVectorIntOps(HandlerTable &T) {
  auto Add = [&](llvm::StringRef Name, Handler H) {
    T.add(Name, H, FlagVector);
  };
  // Add / subtract.
  Add("V_ADD_U32", run<Sat<u32, add<u32>>>);
  Add("V_SUB_U32", run<Sat<u32, sub<u32>>>);
  Add("V_SUBREV_U32", run<Sat<u32, subrev<u32>>>);
  Add("V_ADD_I32", run<Sat<i32, add<i32>>>);
  Add("V_SUB_I32", run<Sat<i32, sub<i32>>>);
  Add("V_ADD_U16", run<Sat<u16, add<u16>>>);
  Add("V_SUB_U16", run<Sat<u16, sub<u16>>>);
  Add("V_SUBREV_U16", run<Sat<u16, subrev<u16>>>);
  Add("V_ADD_I16", run<Sat<i16, add<i16>, vop::OpSel>>);
  Add("V_SUB_I16", run<Sat<i16, sub<i16>, vop::OpSel>>);
  Add("V_ADD_CO_U32", handler<addCo, vop::CarryOut>);
  Add("V_SUB_CO_U32", handler<subCo, vop::CarryOut>);
  Add("V_SUBREV_CO_U32", handler<subrevCo, vop::CarryOut>);
  constexpr unsigned CarryIn = vop::CarryOut | vop::MaskIn;
  Add("V_ADDC_CO_U32", handler<addc, CarryIn>);
  Add("V_SUBB_CO_U32", handler<subb, CarryIn>);
  Add("V_SUBBREV_CO_U32", handler<subbrev, CarryIn>);
  Add("V_ADD3_U32", handler<add3>);

  // Multiply.
  Add("V_MUL_I32_I24", run<Sat<i32, mulI24>>);
  Add("V_MUL_HI_I32_I24", handler<mulHiI24>);
  Add("V_MUL_U32_U24", run<Sat<u32, mulU24>>);
  Add("V_MUL_HI_U32_U24", handler<mulHiU24>);
  Add("V_MAD_I32_I24", run<Sat<i32, madI24>>);
  Add("V_MAD_U32_U24", run<Sat<u32, madU24>>);
  Add("V_MUL_LO_U32", handler<mulLo>);
  Add("V_MUL_LO_I32", handler<mulLo>);
  Add("V_MUL_HI_U32", handler<mulHiU32>);
  Add("V_MUL_HI_I32", handler<mulHiI32>);
  Add("V_MAD_U64_U32", handler<madU64, vop::CarryOut>);
  Add("V_MAD_I64_I32", handler<madI64, vop::CarryOut>);
  Add("V_MUL_LO_U16", handler<mulLo16<u16>>);
  Add("V_MAD_U16", run<Sat<u16, mad16<u16>, vop::OpSel>>);
  Add("V_MAD_I16", run<Sat<i16, mad16<i16>, vop::OpSel>>);
  Add("V_MAD_LEGACY_U16", run<Sat<u16, mad16<u16>>>);
  Add("V_MAD_LEGACY_I16", run<Sat<i16, mad16<i16>>>);
  Add("V_MAD_U32_U16", run<Sat<u32, mad32x16<u16, u32>, vop::OpSel>>);
  Add("V_MAD_I32_I16", run<Sat<i32, mad32x16<i16, i32>, vop::OpSel>>);

  // Shifts.
  Add("V_LSHLREV_B32", handler<shlrev<u32>>);
  Add("V_LSHRREV_B32", handler<shrrev<u32>>);
  Add("V_ASHRREV_I32", handler<shrrev<i32>>);
  Add("V_LSHLREV_B64", handler<shlrev<u64>>);
  Add("V_LSHRREV_B64", handler<shrrev<u64>>);
  Add("V_ASHRREV_I64", handler<shrrev<i64>>);
  Add("V_LSHLREV_B16", handler<shlrev<u16>>);
  Add("V_LSHRREV_B16", handler<shrrev<u16>>);
  Add("V_ASHRREV_I16", handler<shrrev<i16>>);
  Add("V_LSHL_ADD_U32", handler<lshlAdd>);
  Add("V_LSHL_ADD_U64", handler<lshlAdd64>); // gfx940+
  Add("V_MOV_B64", handler<mov64>);          // gfx940+
  Add("V_ADD_LSHL_U32", handler<addLshl>);
  Add("V_LSHL_OR_B32", handler<lshlOr>);
  // gfx9 encodes these with op_sel fields that 32-bit operands ignore.
  for (const char *N : {"V_ALIGNBIT_B32", "V_ALIGNBIT_B32_opsel"})
    Add(N, handler<alignbit>);
  for (const char *N : {"V_ALIGNBYTE_B32", "V_ALIGNBYTE_B32_opsel"})
    Add(N, handler<alignbyte>);

  // Logic.
  Add("V_AND_B32", handler<andB>);
  Add("V_OR_B32", handler<orB>);
  Add("V_XOR_B32", handler<xorB>);
  Add("V_XNOR_B32", handler<xnorB>);
  Add("V_NOT_B32", handler<notB>);
  Add("V_AND_OR_B32", handler<andOr>);
  Add("V_OR3_B32", handler<or3>);
  Add("V_XAD_U32", handler<xad>);

  // Min / max / median.
  Add("V_MIN_U32", handler<minOp<u32>>);
  Add("V_MIN_I32", handler<minOp<i32>>);
  Add("V_MAX_U32", handler<maxOp<u32>>);
  Add("V_MAX_I32", handler<maxOp<i32>>);
  Add("V_MIN_U16", handler<minOp<u16>>);
  Add("V_MIN_I16", handler<minOp<i16>>);
  Add("V_MAX_U16", handler<maxOp<u16>>);
  Add("V_MAX_I16", handler<maxOp<i16>>);
  Add("V_MIN3_U32", handler<min3<u32>>);
  Add("V_MIN3_I32", handler<min3<i32>>);
  Add("V_MAX3_U32", handler<max3<u32>>);
  Add("V_MAX3_I32", handler<max3<i32>>);
  Add("V_MED3_U32", handler<med3<u32>>);
  Add("V_MED3_I32", handler<med3<i32>>);
  Add("V_MIN3_U16", handler<min3<u16>, vop::OpSel>);
  Add("V_MIN3_I16", handler<min3<i16>, vop::OpSel>);
  Add("V_MAX3_U16", handler<max3<u16>, vop::OpSel>);
  Add("V_MAX3_I16", handler<max3<i16>, vop::OpSel>);
  Add("V_MED3_U16", handler<med3<u16>, vop::OpSel>);
  Add("V_MED3_I16", handler<med3<i16>, vop::OpSel>);

  // Bit fields and counts.
  Add("V_BFE_U32", handler<bfeU>);
  Add("V_BFE_I32", handler<bfeI>);
  Add("V_BFI_B32", handler<bfi>);
  Add("V_BFM_B32", handler<bfm>);
  Add("V_BFREV_B32", handler<bfrev>);
  Add("V_BCNT_U32_B32", handler<bcnt>);
  Add("V_FFBH_U32", handler<ffbhU>);
  Add("V_FFBL_B32", handler<ffbl>);
  Add("V_FFBH_I32", handler<ffbhI>);
  Add("V_MBCNT_LO_U32_B32", handler<mbcntLo>);
  Add("V_MBCNT_HI_U32_B32", handler<mbcntHi>);
  Add("V_PERM_B32", handler<perm>);

  // SAD and byte operations.
  Add("V_SAD_U8", run<Sat<u32, sadU8>>);
  Add("V_SAD_HI_U8", run<Sat<u32, sadHiU8>>);
  Add("V_SAD_U16", run<Sat<u32, sadU16>>);
  Add("V_SAD_U32", run<Sat<u32, sadU32>>);
  Add("V_MSAD_U8", run<Sat<u32, msadU8>>);
  Add("V_QSAD_PK_U16_U8", handler<qsad<false>>);
  Add("V_MQSAD_PK_U16_U8", handler<qsad<true>>);
  Add("V_MQSAD_U32_U8", vMqsadU32U8);
  Add("V_LERP_U8", handler<lerpU8>);

  // Integer packs.
  Add("V_CVT_PK_U16_U32", handler<cvtPkU16>);
  Add("V_CVT_PK_I16_I32", handler<cvtPkI16>);
  Add("V_SAT_PK_U8_I16", handler<satPkU8>);
}

} // namespace loom::emu
