//===- emu/ops/FloatMath.h - gfx90a floating-point lane semantics ---------===//
//
// Pure functions giving, for one lane, the bits gfx90a produces for its
// floating-point vector operations. Nothing here knows the emulator: the
// handlers in VectorFloatOps.cpp / PackedOps.cpp read operands, apply
// modifiers and pass MODE fields in; this file can be tested on its own.
//
// Formats are tags (F16, F32, F64) with the storage type T: float, double,
// and the raw bits (uint16_t) for f16 -- host _Float16 arithmetic is never
// used. Every f16 result is rounded once, from a double that holds the exact
// result (add, mul, ldexp), a correctly rounded one where double rounding is
// provably harmless (sqrt, rcp: 53 >= 2*11+2), or a round-to-odd one (fma).
//
// MODE. `Denorm` arguments are the 2-bit MODE field of the operation's
// format (bits 5:4 for f32, 7:6 for f16/f64): bit 0 keeps input denormals,
// bit 1 keeps output denormals (FLUSH_NONE = 3 is the clang default).
// Flushing keeps the sign. Round modes: conversions to f16 (v_cvt_f16_f32)
// and the narrowing helpers honour all four; arithmetic rounds to nearest
// even whatever MODE says (documented limitation; clang only changes the
// round mode around v_cvt_f16_f32 for llvm.fptrunc.round).
//
// Exactness. add/sub/mul/fma/mad/sqrt(f32)/div helpers, conversions, ldexp,
// frexp, fract, trunc/floor/ceil/rndne, min/max/med3, compares and classes
// are exact (bit-for-bit what IEEE-754 and the ISA pseudocode say).
// Operations the ISA documents as approximate are implemented as the
// correctly rounded (or nearly so) result, which is within the documented
// bound, so the macros clang emits (division, sqrt expansion) produce the
// correctly rounded result the hardware does:
//   v_rcp_f32, v_rcp_iflag_f32   <= 0.5 ULP (ISA: 1 ULP); denormals flushed
//   v_sqrt_f32                   <= 0.5 ULP (ISA: 1 ULP); denormals flushed
//   v_rsq_f32                    <= 0.5 ULP + 2^-52 rel. (ISA: 1 ULP), flushed
//   v_exp_f32, v_log_f32         host exp2/log2 in double, rounded once:
//                                < 0.501 ULP (ISA: 1 ULP); denormals flushed
//   v_rcp_f64, v_rsq_f64,        correctly rounded / <= 1 ULP for rsq
//   v_sqrt_f64                   (ISA: 2^29 ULP); denormals supported
//   v_sin/cos_f32/f16            input in revolutions, reduced exactly, then
//                                double sin/cos: < 0.502 ULP (ISA: none)
//   f16 rcp/sqrt/rsq/exp/log     rounded once from double: <= 0.51 ULP
//
// Division (LLVM's LowerFDIV32/64 macro): v_div_scale / v_div_fmas /
// v_div_fixup follow the ISA pseudocode with three corrections the
// pseudocode needs to be consistent with itself and with the macro (see
// divScale/divFmas/divFixup). FloatMathTest runs the macros clang emits on
// these functions against host division bit for bit.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_EMU_OPS_FLOATMATH_H
#define LOOM_EMU_OPS_FLOATMATH_H

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace loom::emu::fmath {

//===----------------------------------------------------------------------===//
// Formats
//===----------------------------------------------------------------------===//

struct F16 {
  using T = uint16_t;
  using Bits = uint16_t;
  static constexpr int MantBits = 10, ExpBits = 5, Bias = 15;
};
struct F32 {
  using T = float;
  using Bits = uint32_t;
  static constexpr int MantBits = 23, ExpBits = 8, Bias = 127;
};
struct F64 {
  using T = double;
  using Bits = uint64_t;
  static constexpr int MantBits = 52, ExpBits = 11, Bias = 1023;
};

template <class F> using TOf = typename F::T;
template <class F> using BitsOf = typename F::Bits;

template <class F> constexpr BitsOf<F> signMask() {
  return BitsOf<F>(BitsOf<F>(1) << (F::MantBits + F::ExpBits));
}
template <class F> constexpr BitsOf<F> expMask() {
  return BitsOf<F>(((BitsOf<F>(1) << F::ExpBits) - 1) << F::MantBits);
}
template <class F> constexpr BitsOf<F> mantMask() {
  return BitsOf<F>((BitsOf<F>(1) << F::MantBits) - 1);
}
template <class F> constexpr BitsOf<F> quietBit() {
  return BitsOf<F>(BitsOf<F>(1) << (F::MantBits - 1));
}

template <class F> BitsOf<F> toBits(TOf<F> X) {
  return std::bit_cast<BitsOf<F>>(X);
}
template <class F> TOf<F> fromBits(BitsOf<F> B) {
  return std::bit_cast<TOf<F>>(B);
}

/// Biased exponent field ("exponent()" in the ISA pseudocode).
template <class F> int exponentField(TOf<F> X) {
  return int((toBits<F>(X) & expMask<F>()) >> F::MantBits);
}
template <class F> bool signBit(TOf<F> X) {
  return toBits<F>(X) & signMask<F>();
}
template <class F> bool isNan(TOf<F> X) {
  return (toBits<F>(X) & BitsOf<F>(~signMask<F>())) > expMask<F>();
}
template <class F> bool isSignalingNan(TOf<F> X) {
  return isNan<F>(X) && !(toBits<F>(X) & quietBit<F>());
}
template <class F> bool isInf(TOf<F> X) {
  return (toBits<F>(X) & BitsOf<F>(~signMask<F>())) == expMask<F>();
}
template <class F> bool isZero(TOf<F> X) {
  return (toBits<F>(X) & BitsOf<F>(~signMask<F>())) == 0;
}
template <class F> bool isDenormal(TOf<F> X) {
  BitsOf<F> B = toBits<F>(X);
  return (B & expMask<F>()) == 0 && (B & mantMask<F>()) != 0;
}
template <class F> TOf<F> quiet(TOf<F> X) {
  return isNan<F>(X) ? fromBits<F>(toBits<F>(X) | quietBit<F>()) : X;
}
template <class F> TOf<F> negate(TOf<F> X) {
  return fromBits<F>(toBits<F>(X) ^ signMask<F>());
}
template <class F> TOf<F> absolute(TOf<F> X) {
  return fromBits<F>(toBits<F>(X) & BitsOf<F>(~signMask<F>()));
}
/// The default NaN of the hardware (and of x86): sign set, quiet.
template <class F> TOf<F> defaultNan() {
  return fromBits<F>(signMask<F>() | expMask<F>() | quietBit<F>());
}
template <class F> TOf<F> infinity(bool Neg) {
  return fromBits<F>(BitsOf<F>((Neg ? signMask<F>() : 0) | expMask<F>()));
}
template <class F> TOf<F> zero(bool Neg) {
  return fromBits<F>(Neg ? signMask<F>() : BitsOf<F>(0));
}

//===----------------------------------------------------------------------===//
// Denormals (MODE)
//===----------------------------------------------------------------------===//

/// Denormal \p X as a zero of the same sign.
template <class F> TOf<F> flushDenormal(TOf<F> X) {
  BitsOf<F> B = toBits<F>(X);
  return (B & expMask<F>()) == 0 ? fromBits<F>(B & signMask<F>()) : X;
}
/// \p X as an operation reads it under MODE denorm field \p Denorm.
template <class F> TOf<F> denormIn(TOf<F> X, unsigned Denorm) {
  return (Denorm & 1) ? X : flushDenormal<F>(X);
}
/// Result \p X as an operation writes it under MODE denorm field \p Denorm.
template <class F> TOf<F> denormOut(TOf<F> X, unsigned Denorm) {
  return (Denorm & 2) ? X : flushDenormal<F>(X);
}

//===----------------------------------------------------------------------===//
// Conversions between formats
//===----------------------------------------------------------------------===//

/// MODE round-mode encoding.
enum RoundMode : unsigned {
  RoundNearestEven = 0,
  RoundUp = 1,   // toward +inf
  RoundDown = 2, // toward -inf
  RoundZero = 3,
};

/// f16 -> f32, exact; a signaling NaN is quieted (payload kept).
inline float f16ToF32(uint16_t H) {
  uint32_t Sign = uint32_t(H & 0x8000) << 16;
  uint32_t Em = H & 0x7fff;
  if (Em >= 0x7c00) // inf / NaN
    return std::bit_cast<float>(Sign | 0x7f800000u | (Em & 0x3ff) << 13 |
                                (Em > 0x7c00 ? 0x400000u : 0u));
  // The f16 bits shifted into an f32 are the value times 2^-112, denormals
  // included; one exact multiply rebiases.
  float Mag = std::bit_cast<float>(Em << 13) * 0x1p112f;
  return std::bit_cast<float>(std::bit_cast<uint32_t>(Mag) | Sign);
}
inline double f16ToF64(uint16_t H) { return double(f16ToF32(H)); }

/// Rounds \p X (any double) to format \p F (F16 or F32) with round mode
/// \p Rm, IEEE overflow and denormal rules; NaN keeps its sign and top
/// payload bits and is quieted.
template <class F> BitsOf<F> roundFromDouble(double X, unsigned Rm) {
  using B = BitsOf<F>;
  uint64_t D = std::bit_cast<uint64_t>(X);
  B Sign = (D >> 63) ? signMask<F>() : B(0);
  uint64_t Abs = D & 0x7fffffffffffffffull;
  if (Abs >= 0x7ff0000000000000ull) {
    if (Abs == 0x7ff0000000000000ull)
      return B(Sign | expMask<F>());
    return B(Sign | expMask<F>() | quietBit<F>() |
             B((Abs >> (52 - F::MantBits)) & mantMask<F>()));
  }
  int E = int(Abs >> 52);
  uint64_t M = (Abs & 0xfffffffffffffull) | (E ? 1ull << 52 : 0);
  int Unb = (E ? E : 1) - 1023; // X = M * 2^(Unb - 52)
  constexpr int MinExp = 1 - F::Bias;
  int Target = Unb < MinExp ? MinExp : Unb; // exponent of the result's MSB
  int Shift = 52 - F::MantBits + (Target - Unb);
  uint64_t Q;
  bool Half, Sticky;
  if (Shift >= 64) {
    Q = 0;
    Half = false;
    Sticky = M != 0;
  } else {
    Q = M >> Shift;
    uint64_t H = 1ull << (Shift - 1);
    Half = M & H;
    Sticky = M & (H - 1);
  }
  bool Inexact = Half || Sticky;
  bool Up = Rm == RoundNearestEven ? Half && (Sticky || (Q & 1))
            : Rm == RoundUp        ? Inexact && !Sign
            : Rm == RoundDown      ? Inexact && Sign
                                   : false;
  // The implicit bit of Q carries into the exponent field.
  uint64_t R = (uint64_t(Target + F::Bias - 1) << F::MantBits) + Q + Up;
  if (R >= expMask<F>()) {
    bool ToInf = Rm == RoundNearestEven || (Rm == RoundUp && !Sign) ||
                 (Rm == RoundDown && Sign);
    return B(Sign | (ToInf ? expMask<F>() : B(expMask<F>() - 1)));
  }
  return B(Sign | B(R));
}

/// f32 -> f16 with round mode \p Rm.
inline uint16_t f32ToF16(float X, unsigned Rm = RoundNearestEven) {
  return roundFromDouble<F16>(double(X), Rm);
}
inline uint16_t f64ToF16(double X, unsigned Rm = RoundNearestEven) {
  return roundFromDouble<F16>(X, Rm);
}

/// Any format's value as a double (exact).
template <class F> double toDouble(TOf<F> X) {
  if constexpr (std::is_same_v<F, F16>)
    return f16ToF64(X);
  else
    return double(X);
}
/// A double rounded to nearest even into format \p F.
template <class F> TOf<F> fromDouble(double X) {
  if constexpr (std::is_same_v<F, F16>)
    return f64ToF16(X);
  else
    return TOf<F>(X);
}

/// x * 2^K for a double in the normal range of doubles (|K| <= 1000 and an
/// exactly representable product): exact, vectorisable.
inline double pow2(int K) {
  return std::bit_cast<double>(uint64_t(K + 1023) << 52);
}

/// \p A + \p B rounded to odd: the sum's last bit records whether the
/// addition was inexact, so that rounding it again to 51 or fewer bits
/// gives the correctly rounded exact sum.
inline double addRoundOdd(double A, double B) {
  double S = A + B;
  if (!std::isfinite(S))
    return S;
  double Bv = S - A, Av = S - Bv;
  double Err = (A - Av) + (B - Bv); // exact error (TwoSum)
  uint64_t Bits = std::bit_cast<uint64_t>(S);
  if (Err != 0 && !(Bits & 1))
    Bits += (std::signbit(Err) == std::signbit(S)) ? 1 : -1;
  return std::bit_cast<double>(Bits);
}

/// \p A * \p B + \p C for operands that are exact doubles of at most 26
/// significant bits (f16, and f32 products): one rounding into \p F.
template <class F> TOf<F> fmaSmall(double A, double B, double C) {
  return fromDouble<F>(addRoundOdd(A * B, C));
}

/// (A * B + C) * 2^K with one rounding into format \p F: the exact value is
/// formed in 128-bit integer arithmetic (v_div_fmas' post-scale must not
/// round twice when the quotient is denormal). Operands are exact doubles.
template <class F> TOf<F> fmaScaled(double A, double B, double C, int K);

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

/// Fused multiply-add with one rounding.
template <class F> TOf<F> fma(TOf<F> A, TOf<F> B, TOf<F> C) {
  if constexpr (std::is_same_v<F, F16>)
    return fmaSmall<F16>(f16ToF64(A), f16ToF64(B), f16ToF64(C));
  else
    return std::fma(A, B, C);
}

/// Binary arithmetic in format \p F (f16 computed exactly in double).
template <class F> TOf<F> add(TOf<F> A, TOf<F> B) {
  if constexpr (std::is_same_v<F, F16>)
    return f64ToF16(f16ToF64(A) + f16ToF64(B));
  else
    return A + B;
}
template <class F> TOf<F> sub(TOf<F> A, TOf<F> B) {
  if constexpr (std::is_same_v<F, F16>)
    return f64ToF16(f16ToF64(A) - f16ToF64(B));
  else
    return A - B;
}
template <class F> TOf<F> mul(TOf<F> A, TOf<F> B) {
  if constexpr (std::is_same_v<F, F16>)
    return f64ToF16(f16ToF64(A) * f16ToF64(B));
  else
    return A * B;
}

/// v_mad_f32 / v_mad_f16 / v_mac: multiply, round, add, round; these
/// opcodes do not support denormals: inputs, the product and the result
/// are flushed whatever MODE says.
template <class F> TOf<F> mad(TOf<F> A, TOf<F> B, TOf<F> C) {
  TOf<F> P = flushDenormal<F>(mul<F>(flushDenormal<F>(A), flushDenormal<F>(B)));
  // A separate statement: no contraction into an fma.
  TOf<F> R = add<F>(P, flushDenormal<F>(C));
  return flushDenormal<F>(R);
}

/// v_mul_legacy_f32: DX9 rules, +-0 times anything (inf, NaN) is +0.
inline float mulLegacy(float A, float B) {
  return (A == 0.0f || B == 0.0f) ? 0.0f : A * B;
}
/// v_mad_legacy_f32: mulLegacy, then mad's rounding and flushing.
inline float madLegacy(float A, float B, float C) {
  float P = flushDenormal<F32>(
      mulLegacy(flushDenormal<F32>(A), flushDenormal<F32>(B)));
  float R = P + flushDenormal<F32>(C);
  return flushDenormal<F32>(R);
}

/// v_ldexp: X * 2^N with one rounding.
template <class F> TOf<F> ldexp(TOf<F> X, int32_t N) {
  if constexpr (std::is_same_v<F, F64>) {
    return std::ldexp(X, N < -2200 ? -2200 : (N > 2200 ? 2200 : N));
  } else {
    // Exact in double for any result that is not already 0 or inf in F.
    int K = N < -400 ? -400 : (N > 400 ? 400 : N);
    return fromDouble<F>(toDouble<F>(X) * pow2(K));
  }
}

/// v_frexp_mant: the significand in [0.5, 1) with X's sign; inf and NaN
/// unchanged, zeros unchanged.
template <class F> TOf<F> frexpMant(TOf<F> X);
/// v_frexp_exp: the exponent that goes with frexpMant (0 for 0, inf, NaN).
template <class F> int32_t frexpExp(TOf<F> X);

/// v_fract: X - floor(X), clamped below 1.0 (-tiny would round to 1.0);
/// NaN for NaN and inf inputs.
template <class F> TOf<F> fract(TOf<F> X);

/// Round to integral, exact: trunc, floor, ceil, rndne (ties to even).
template <class F> TOf<F> truncF(TOf<F> X) {
  if constexpr (std::is_same_v<F, F16>)
    return f32ToF16(std::trunc(f16ToF32(X)));
  else
    return quiet<F>(std::trunc(X));
}
template <class F> TOf<F> floorF(TOf<F> X) {
  if constexpr (std::is_same_v<F, F16>)
    return f32ToF16(std::floor(f16ToF32(X)));
  else
    return quiet<F>(std::floor(X));
}
template <class F> TOf<F> ceilF(TOf<F> X) {
  if constexpr (std::is_same_v<F, F16>)
    return f32ToF16(std::ceil(f16ToF32(X)));
  else
    return quiet<F>(std::ceil(X));
}
template <class F> TOf<F> rndneF(TOf<F> X) {
  if constexpr (std::is_same_v<F, F16>)
    return f32ToF16(std::nearbyint(f16ToF32(X)));
  else
    return quiet<F>(std::nearbyint(X));
}

//===----------------------------------------------------------------------===//
// Approximate (transcendental) operations; see the header for ULP bounds.
//===----------------------------------------------------------------------===//

/// v_rcp_f32 / v_rcp_iflag_f32: denormal inputs and results flushed.
inline float rcpF32(float X) {
  return flushDenormal<F32>(1.0f / flushDenormal<F32>(X));
}
/// v_sqrt_f32: denormal inputs flushed (sqrt(-0) = -0).
inline float sqrtF32(float X) { return std::sqrt(flushDenormal<F32>(X)); }
/// v_rsq_f32: denormal inputs flushed (rsq(-0) = -inf).
inline float rsqF32(float X) {
  float Y = flushDenormal<F32>(X);
  return float(1.0 / std::sqrt(double(Y)));
}
/// v_exp_f32: 2^X; denormal results flushed to +0.
float exp2F32(float X);
/// v_log_f32: log2(X); denormal inputs flushed (log(+-denorm) = -inf).
float log2F32(float X);

/// f64 versions support denormals (MODE flushing is applied by the caller).
inline double rcpF64(double X) { return 1.0 / X; }
inline double sqrtF64(double X) { return std::sqrt(X); }
double rsqF64(double X);

/// f16 versions support denormals.
inline uint16_t rcpF16(uint16_t X) { return f64ToF16(1.0 / f16ToF64(X)); }
inline uint16_t sqrtF16(uint16_t X) { return f64ToF16(std::sqrt(f16ToF64(X))); }
uint16_t rsqF16(uint16_t X);
uint16_t exp2F16(uint16_t X);
uint16_t log2F16(uint16_t X);

/// v_sin / v_cos: sin(2*pi*X), cos(2*pi*X), X in revolutions; NaN for
/// inf and NaN inputs. The reduction of X modulo 1 is exact.
template <class F> TOf<F> sinRev(TOf<F> X);
template <class F> TOf<F> cosRev(TOf<F> X);

//===----------------------------------------------------------------------===//
// Division macro: v_div_scale, v_div_fmas, v_div_fixup
//===----------------------------------------------------------------------===//

/// Result and VCC bit of v_div_scale.
template <class F> struct DivScaleResult {
  TOf<F> V;
  bool Vcc;
};

/// v_div_scale_f32/f64 (S0 = value to scale, S1 = denominator,
/// S2 = numerator) as the ISA pseudocode, with one correction: when both
/// 1/S1 and S2/S1 would be denormal, the denominator is scaled *down*
/// (the pseudocode's ldexp(S0, +64) would overflow a denominator above
/// 2^126 and contradicts the post-scale direction v_div_fmas applies).
/// For f32, "1/S1 is denormal" is evaluated in f32 (the pseudocode's f64
/// test never fires, which would make 1/x wrong for x > 2^126).
/// Scale factors: 2^64 (f32), 2^128 (f64).
template <class F> DivScaleResult<F> divScale(TOf<F> S0, TOf<F> S1, TOf<F> S2);

/// v_div_fmas_f32/f64: fma(S0, S1, S2), post-scaled when \p Vcc is set:
/// by 2^+64 (f32; 2^+128 f64) if S2's exponent is above the bias (the
/// quotient was computed with a denominator scaled up), else by 2^-64
/// (2^-128; numerator scaled up). The pseudocode's 2^32 / 2^64 factors do
/// not match v_div_scale's; the rule here undoes exactly what v_div_scale
/// did. One rounding, also into the denormal range.
template <class F> TOf<F> divFmas(TOf<F> S0, TOf<F> S1, TOf<F> S2, bool Vcc);

/// v_div_fixup_f16/f32/f64 (S0 = quotient, S1 = denominator,
/// S2 = numerator): special cases of division, as the pseudocode, except
/// that a NaN quotient from finite operands (intermediate overflow in the
/// macro, e.g. 2^127 / 2^-149) becomes the signed infinity (f32, f64).
template <class F> TOf<F> divFixup(TOf<F> S0, TOf<F> S1, TOf<F> S2);

/// v_trig_preop_f64: 53 bits of 2/pi selected by segment \p Seg[4:0] and
/// X's exponent, scaled (LLVM's constant folding of llvm.amdgcn.trig.preop,
/// including 0 past the end of the 1184-bit table).
double trigPreop(double X, uint32_t Seg);

//===----------------------------------------------------------------------===//
// Min / max (IEEE mode and DX10 rules)
//===----------------------------------------------------------------------===//

/// v_max_*: in IEEE mode a signaling NaN input gives that NaN quieted;
/// otherwise a NaN operand gives the other one; +0 > -0; IEEE mode prefers
/// S0 on equality (>=), non-IEEE mode S1.
template <class F> TOf<F> maxF(TOf<F> A, TOf<F> B, bool Ieee) {
  if (Ieee && isSignalingNan<F>(A))
    return quiet<F>(A);
  if (Ieee && isSignalingNan<F>(B))
    return quiet<F>(B);
  if (isNan<F>(A))
    return B;
  if (isNan<F>(B))
    return A;
  if (isZero<F>(A) && isZero<F>(B))
    return signBit<F>(A) ? B : A;
  double X = toDouble<F>(A), Y = toDouble<F>(B);
  return (Ieee ? X >= Y : X > Y) ? A : B;
}
/// v_min_*: as maxF; -0 < +0; S0 < S1 ? S0 : S1.
template <class F> TOf<F> minF(TOf<F> A, TOf<F> B, bool Ieee) {
  if (Ieee && isSignalingNan<F>(A))
    return quiet<F>(A);
  if (Ieee && isSignalingNan<F>(B))
    return quiet<F>(B);
  if (isNan<F>(A))
    return B;
  if (isNan<F>(B))
    return A;
  if (isZero<F>(A) && isZero<F>(B))
    return signBit<F>(A) ? A : B;
  return toDouble<F>(A) < toDouble<F>(B) ? A : B;
}
template <class F> TOf<F> min3F(TOf<F> A, TOf<F> B, TOf<F> C, bool Ieee) {
  return minF<F>(minF<F>(A, B, Ieee), C, Ieee);
}
template <class F> TOf<F> max3F(TOf<F> A, TOf<F> B, TOf<F> C, bool Ieee) {
  return maxF<F>(maxF<F>(A, B, Ieee), C, Ieee);
}
/// v_med3: min3 if any operand is NaN, else the median by the pseudocode.
template <class F> TOf<F> med3F(TOf<F> A, TOf<F> B, TOf<F> C, bool Ieee) {
  if (isNan<F>(A) || isNan<F>(B) || isNan<F>(C))
    return min3F<F>(A, B, C, Ieee);
  double M = toDouble<F>(max3F<F>(A, B, C, Ieee));
  if (M == toDouble<F>(A))
    return maxF<F>(B, C, Ieee);
  if (M == toDouble<F>(B))
    return maxF<F>(A, C, Ieee);
  return maxF<F>(A, B, Ieee);
}

//===----------------------------------------------------------------------===//
// Compares and classes
//===----------------------------------------------------------------------===//

/// VOPC float predicates in opcode order (F, LT, EQ, LE, GT, LG, GE, O, U,
/// NGE, NLG, NGT, NLE, NEQ, NLT, TRU).
enum class Cmp : unsigned {
  F,
  LT,
  EQ,
  LE,
  GT,
  LG,
  GE,
  O,
  U,
  NGE,
  NLG,
  NGT,
  NLE,
  NEQ,
  NLT,
  TRU
};
template <Cmp P> bool compare(double A, double B) {
  switch (P) {
  case Cmp::F:
    return false;
  case Cmp::LT:
    return A < B;
  case Cmp::EQ:
    return A == B;
  case Cmp::LE:
    return A <= B;
  case Cmp::GT:
    return A > B;
  case Cmp::LG:
    return A < B || A > B;
  case Cmp::GE:
    return A >= B;
  case Cmp::O:
    return !(A != A) && !(B != B);
  case Cmp::U:
    return A != A || B != B;
  case Cmp::NGE:
    return !(A >= B);
  case Cmp::NLG:
    return !(A < B || A > B);
  case Cmp::NGT:
    return !(A > B);
  case Cmp::NLE:
    return !(A <= B);
  case Cmp::NEQ:
    return !(A == B);
  case Cmp::NLT:
    return !(A < B);
  case Cmp::TRU:
    return true;
  }
  return false;
}

/// v_cmp_class mask bits.
enum ClassBit : uint32_t {
  ClassSNan = 1 << 0,
  ClassQNan = 1 << 1,
  ClassNegInf = 1 << 2,
  ClassNegNormal = 1 << 3,
  ClassNegDenorm = 1 << 4,
  ClassNegZero = 1 << 5,
  ClassPosZero = 1 << 6,
  ClassPosDenorm = 1 << 7,
  ClassPosNormal = 1 << 8,
  ClassPosInf = 1 << 9,
};
/// v_cmp_class: X's class bit in \p Mask (no denormal flushing).
template <class F> bool cmpClass(TOf<F> X, uint32_t Mask) {
  bool Neg = signBit<F>(X);
  uint32_t Bit;
  if (isNan<F>(X))
    Bit = isSignalingNan<F>(X) ? ClassSNan : ClassQNan;
  else if (isInf<F>(X))
    Bit = Neg ? ClassNegInf : ClassPosInf;
  else if (exponentField<F>(X) > 0)
    Bit = Neg ? ClassNegNormal : ClassPosNormal;
  else if (!isZero<F>(X))
    Bit = Neg ? ClassNegDenorm : ClassPosDenorm;
  else
    Bit = Neg ? ClassNegZero : ClassPosZero;
  return Mask & Bit;
}

//===----------------------------------------------------------------------===//
// Conversions to and from integers
//===----------------------------------------------------------------------===//

/// Float -> integer of type \p I: truncation toward zero, saturation, NaN
/// gives 0 (v_cvt_i32_f32, v_cvt_u32_f64, v_cvt_i16_f16, ...).
template <class I> I toIntSat(double X) {
  if (X != X)
    return 0;
  double T = std::trunc(X);
  if (T <= double(std::numeric_limits<I>::min()))
    return std::numeric_limits<I>::min();
  if (T >= double(std::numeric_limits<I>::max()))
    return std::numeric_limits<I>::max();
  return I(T);
}
/// v_cvt_rpi_i32_f32: f32_to_i32(floor(X + 0.5)), the add in f32.
inline int32_t cvtRpiI32(float X) {
  float S = X + 0.5f;
  return toIntSat<int32_t>(std::floor(double(S)));
}
/// v_cvt_flr_i32_f32.
inline int32_t cvtFlrI32(float X) {
  return toIntSat<int32_t>(std::floor(double(X)));
}
/// v_cvt_off_f32_i4: signed 4-bit S0[3:0] / 16.
inline float cvtOffF32I4(uint32_t X) {
  return float(int32_t(X << 28) >> 28) * 0.0625f;
}
/// f32/f16 -> signed / unsigned normalized 16-bit (v_cvt_pknorm_*,
/// v_cvt_norm_*): clamp to [-1, 1] / [0, 1], scale, round to nearest even.
int16_t toSnorm16(double X);
uint16_t toUnorm16(double X);
/// v_cvt_pk_u8_f32's f32_to_u8: round to nearest even, clamp to [0, 255].
uint32_t toU8Sat(float X);

//===----------------------------------------------------------------------===//
// Mixed and packed helpers
//===----------------------------------------------------------------------===//

/// v_dot2_f32_f16 / v_dot2c_f32_f16: C + A.lo*B.lo + A.hi*B.hi in f32 in
/// that order, each product exact, each sum rounded. gfx90a flushes f16
/// denormal inputs of these opcodes whatever MODE says (LLVM's
/// dot2UnconditionalFlush, measured on hardware).
inline float dot2F32F16(uint32_t A, uint32_t B, float C) {
  auto In = [](uint32_t V, unsigned Half) {
    return f16ToF32(flushDenormal<F16>(uint16_t(V >> (16 * Half))));
  };
  float P0 = In(A, 0) * In(B, 0);
  float P1 = In(A, 1) * In(B, 1);
  float T = C + P0;
  return T + P1;
}

} // namespace loom::emu::fmath

#endif // LOOM_EMU_OPS_FLOATMATH_H
