//===- emu/ops/FloatMath.cpp - gfx90a floating-point lane semantics -------===//
//
// The out-of-line parts of FloatMath.h: exact scaled fma, the division
// macro helpers, frexp/fract, transcendental functions and trig_preop.
//
//===----------------------------------------------------------------------===//

#include "FloatMath.h"

// Multiplies and adds below must round separately.
#pragma STDC FP_CONTRACT OFF

namespace loom::emu::fmath {
namespace {

using U128 = unsigned __int128;

unsigned bitLength(U128 V) {
  uint64_t Hi = uint64_t(V >> 64), Lo = uint64_t(V);
  if (Hi)
    return 128 - unsigned(std::countl_zero(Hi));
  return Lo ? 64 - unsigned(std::countl_zero(Lo)) : 0;
}

/// A finite double as sign, 53-bit integer significand and exponent:
/// X = (-1)^Neg * M * 2^Exp.
struct Unpacked {
  bool Neg;
  int Exp;
  uint64_t M;
};
Unpacked unpack(double X) {
  uint64_t B = std::bit_cast<uint64_t>(X);
  int E = int((B >> 52) & 0x7ff);
  uint64_t M = B & 0xfffffffffffffull;
  if (E)
    M |= 1ull << 52;
  else
    E = 1;
  return {bool(B >> 63), E - 1075, M};
}

/// X * 2^K rounded once into F (X finite or not).
template <class F> TOf<F> scaleRound(double X, int K) {
  if constexpr (std::is_same_v<F, F64>)
    return std::ldexp(X, K);
  else
    return fromDouble<F>(X * pow2(K)); // exact for |K| <= 128 and F's range
}

/// (-1)^Neg * M * 2^E rounded to nearest even into F (M != 0).
template <class F> TOf<F> roundExact(bool Neg, U128 M, int E) {
  int Top = E + int(bitLength(M)) - 1; // exponent of the MSB
  constexpr int MinExp = 1 - F::Bias;
  int Lsb = (Top < MinExp ? MinExp : Top) - F::MantBits;
  int Shift = Lsb - E;
  uint64_t Q;
  if (Shift <= 0) {
    Q = uint64_t(M << -Shift);
  } else if (Shift >= 128) {
    Q = 0; // far below half an ulp of the smallest denormal
  } else {
    Q = uint64_t(M >> Shift);
    U128 H = U128(1) << (Shift - 1);
    bool Half = M & H, Sticky = M & (H - 1);
    Q += Half && (Sticky || (Q & 1));
  }
  // Q * 2^Lsb is on F's grid (or overflows to infinity): both conversions
  // below are exact.
  double R = std::ldexp(double(Q), Lsb);
  return fromDouble<F>(Neg ? -R : R);
}

} // namespace

template <class F> TOf<F> fmaScaled(double A, double B, double C, int K) {
  if (!std::isfinite(A) || !std::isfinite(B) || !std::isfinite(C) || A == 0 ||
      B == 0)
    return scaleRound<F>(std::fma(A, B, C), K); // the fma is exact here
  Unpacked Ua = unpack(A), Ub = unpack(B);
  bool NegP = Ua.Neg != Ub.Neg;
  U128 P = U128(Ua.M) * Ub.M;
  int Ep = Ua.Exp + Ub.Exp;
  if (C == 0)
    return roundExact<F>(NegP, P, Ep + K);
  Unpacked Uc = unpack(C);
  // Order the two terms by magnitude (position of the MSB).
  int TopP = Ep + int(bitLength(P)), TopC = Uc.Exp + int(bitLength(Uc.M));
  bool PLarger = TopP >= TopC;
  U128 L = PLarger ? P : U128(Uc.M), S = PLarger ? U128(Uc.M) : P;
  int El = PLarger ? Ep : Uc.Exp, Es = PLarger ? Uc.Exp : Ep;
  bool NegL = PLarger ? NegP : Uc.Neg, NegS = PLarger ? Uc.Neg : NegP;
  // The larger term with its MSB at bit 124; the smaller aligned to it,
  // its bits shifted out folded into a sticky bit.
  unsigned Sl = 125 - bitLength(L);
  L <<= Sl;
  int E = El - int(Sl);
  int D = Es - E;
  bool Lost = false;
  if (D >= 0) {
    S <<= D; // top(S) <= top(L): fits
  } else if (D <= -128) {
    Lost = S != 0;
    S = 0;
  } else {
    Lost = (S & ((U128(1) << -D) - 1)) != 0;
    S >>= -D;
  }
  bool Neg = NegL;
  U128 M;
  if (NegL == NegS) {
    M = (L + S) | U128(Lost);
  } else {
    if (!Lost && S > L) { // equal MSB positions, smaller term larger
      std::swap(L, S);
      Neg = NegS;
    }
    M = L - S - U128(Lost);
    M |= U128(Lost);
    if (M == 0)
      return zero<F>(false); // exact cancellation: +0 in round to nearest
  }
  return roundExact<F>(Neg, M, E + K);
}

template <class F> TOf<F> frexpMant(TOf<F> X) {
  if (isNan<F>(X) || isInf<F>(X) || isZero<F>(X))
    return X;
  int E;
  return fromDouble<F>(std::frexp(toDouble<F>(X), &E));
}

template <class F> int32_t frexpExp(TOf<F> X) {
  if (isNan<F>(X) || isInf<F>(X) || isZero<F>(X))
    return 0;
  int E;
  std::frexp(toDouble<F>(X), &E);
  return E;
}

template <class F> TOf<F> fract(TOf<F> X) {
  if (isNan<F>(X))
    return quiet<F>(X);
  if (isInf<F>(X))
    return defaultNan<F>(); // inf + -inf
  double D = toDouble<F>(X);
  // Exact in double for f16 and f32; rounded once for f64.
  TOf<F> R = fromDouble<F>(D - std::floor(D));
  // The largest value below 1.0.
  TOf<F> Max = fromBits<F>(BitsOf<F>(toBits<F>(fromDouble<F>(1.0)) - 1));
  return toDouble<F>(R) > toDouble<F>(Max) ? Max : R;
}

float exp2F32(float X) {
  if (isNan<F32>(X))
    return quiet<F32>(X);
  float R = float(std::exp2(double(flushDenormal<F32>(X))));
  return flushDenormal<F32>(R);
}

float log2F32(float X) {
  if (isNan<F32>(X))
    return quiet<F32>(X);
  float Y = flushDenormal<F32>(X);
  if (Y < 0.0f)
    return defaultNan<F32>();
  return float(std::log2(double(Y)));
}

double rsqF64(double X) {
  if (X < 0)
    return defaultNan<F64>();
  // Extended precision keeps the two roundings below 1 ULP in total.
  return double(1.0L / std::sqrt(static_cast<long double>(X)));
}

uint16_t rsqF16(uint16_t X) { return f64ToF16(1.0 / std::sqrt(f16ToF64(X))); }
uint16_t exp2F16(uint16_t X) { return f64ToF16(std::exp2(f16ToF64(X))); }
uint16_t log2F16(uint16_t X) {
  double D = f16ToF64(X);
  if (D < 0)
    return defaultNan<F16>();
  return f64ToF16(std::log2(D));
}

namespace {

/// sin (Cos = false) or cos of 2*pi*X, X in revolutions, in double.
double revTrig(double X, bool Cos) {
  // X = N + R exactly, |R| <= 1/2; R = Q/4 + S exactly, |S| <= 1/8.
  double R = X - std::nearbyint(X);
  double Q = std::nearbyint(4 * R);
  double S = R - Q * 0.25;
  double A = S * 6.283185307179586476925286766559;
  double Sn = std::sin(A), Cs = std::cos(A);
  unsigned Quadrant = (unsigned(int(Q)) + (Cos ? 1 : 0)) & 3;
  // sin(a + q*pi/2); cos(a) = sin(a + pi/2).
  double V = Quadrant == 0   ? Sn
             : Quadrant == 1 ? Cs
             : Quadrant == 2 ? -Sn
                             : -Cs;
  return V == 0 ? 0.0 : V; // exact zeros are +0
}

} // namespace

template <class F> TOf<F> sinRev(TOf<F> X) {
  if (isNan<F>(X))
    return quiet<F>(X);
  if (isInf<F>(X))
    return defaultNan<F>();
  if (isZero<F>(X))
    return X;
  return fromDouble<F>(revTrig(toDouble<F>(X), false));
}

template <class F> TOf<F> cosRev(TOf<F> X) {
  if (isNan<F>(X))
    return quiet<F>(X);
  if (isInf<F>(X))
    return defaultNan<F>();
  return fromDouble<F>(revTrig(toDouble<F>(X), true));
}

//===----------------------------------------------------------------------===//
// Division
//===----------------------------------------------------------------------===//

namespace {
template <class F> constexpr int divScaleExp() {
  return std::is_same_v<F, F32> ? 64 : 128;
}
} // namespace

template <class F> DivScaleResult<F> divScale(TOf<F> S0, TOf<F> S1, TOf<F> S2) {
  constexpr int Scale = divScaleExp<F>();
  constexpr bool IsF32 = std::is_same_v<F, F32>;
  if (S2 == 0 || S1 == 0)
    return {std::numeric_limits<TOf<F>>::quiet_NaN(), false};
  int E1 = exponentField<F>(S1), E2 = exponentField<F>(S2);
  // Quotient near the top of the range: scale the denominator up.
  if (E2 - E1 >= (IsF32 ? 96 : 768))
    return {S0 == S1 ? std::ldexp(S0, Scale) : S0, true};
  // Denormal denominator: scale both up, the quotient is unchanged.
  if (isDenormal<F>(S1))
    return {std::ldexp(S0, Scale), false};
  bool RcpDenorm = isDenormal<F>(TOf<F>(1) / S1);
  bool QuotDenorm = isDenormal<F>(S2 / S1);
  // Huge denominator and denormal quotient: scale the denominator down.
  if (RcpDenorm && QuotDenorm)
    return {S0 == S1 ? std::ldexp(S0, -Scale) : S0, true};
  // Huge denominator: scale both down.
  if (RcpDenorm)
    return {std::ldexp(S0, -Scale), false};
  // Denormal quotient: scale the numerator up.
  if (QuotDenorm)
    return {S0 == S2 ? std::ldexp(S0, Scale) : S0, true};
  // Tiny numerator: scale both up so no residual is denormal.
  if (E2 <= (IsF32 ? 23 : 53))
    return {std::ldexp(S0, Scale), false};
  return {S0, false};
}

template <class F> TOf<F> divFmas(TOf<F> S0, TOf<F> S1, TOf<F> S2, bool Vcc) {
  if (!Vcc)
    return fma<F>(S0, S1, S2);
  constexpr int Scale = divScaleExp<F>();
  int K = exponentField<F>(S2) > F::Bias ? Scale : -Scale;
  return fmaScaled<F>(S0, S1, S2, K);
}

template <class F> TOf<F> divFixup(TOf<F> S0, TOf<F> S1, TOf<F> S2) {
  bool SignOut = signBit<F>(S1) != signBit<F>(S2);
  if (isNan<F>(S2))
    return quiet<F>(S2);
  if (isNan<F>(S1))
    return quiet<F>(S1);
  if (isZero<F>(S1) && isZero<F>(S2))
    return defaultNan<F>(); // 0/0
  if (isInf<F>(S1) && isInf<F>(S2))
    return defaultNan<F>(); // inf/inf
  if (isZero<F>(S1) || isInf<F>(S2))
    return infinity<F>(SignOut); // x/0, inf/y
  if (isInf<F>(S1) || isZero<F>(S2))
    return zero<F>(SignOut); // x/inf, 0/y
  if constexpr (!std::is_same_v<F, F16>) {
    constexpr int Underflow = std::is_same_v<F, F32> ? -150 : -1075;
    if (exponentField<F>(S2) - exponentField<F>(S1) < Underflow)
      return zero<F>(SignOut); // rounds to zero
    if (isNan<F>(S0))
      return infinity<F>(SignOut); // overflow inside the macro
  }
  TOf<F> A = absolute<F>(S0);
  return SignOut ? negate<F>(A) : A;
}

//===----------------------------------------------------------------------===//
// trig_preop
//===----------------------------------------------------------------------===//

namespace {
/// 2/pi = 0.a2f9836e 4e441529 ... (1184 bits; the hardware's table ends
/// there).
constexpr uint32_t TwoOverPi[] = {
    0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041,
    0xfe5163ab, 0xdebbc561, 0xb7246e3a, 0x424dd2e0, 0x06492eea, 0x09d1921c,
    0xfe1deb1c, 0xb129a73e, 0xe88235f5, 0x2ebb4484, 0xe99c7026, 0xb45f7e41,
    0x3991d639, 0x835339f4, 0x9c845f8b, 0xbdf9283b, 0x1ff897ff, 0xde05980f,
    0xef2f118b, 0x5a0a6d1f, 0x6d367ecf, 0x27cb09b7, 0x4f463f66, 0x9e5fea2d,
    0x7527bac7, 0xebe5f17b, 0x3d0739f7, 0x8a5292ea, 0x6bfb5fb1, 0x1f8d5d08,
    0x56033046};
constexpr unsigned TwoOverPiWords = sizeof(TwoOverPi) / sizeof(uint32_t);
} // namespace

double trigPreop(double X, uint32_t Seg) {
  if (isNan<F64>(X))
    return quiet<F64>(X);
  int Exponent = exponentField<F64>(X);
  unsigned Shift = (Seg & 31) * 53;
  if (Exponent > 1077)
    Shift += unsigned(Exponent - 1077);
  unsigned Idx = Shift / 32;
  if (Idx + 2 >= TwoOverPiWords)
    return 0.0;
  unsigned BShift = Shift % 32;
  uint64_t Hi = uint64_t(TwoOverPi[Idx]) << 32 | TwoOverPi[Idx + 1];
  uint64_t Lo = uint64_t(TwoOverPi[Idx + 2]) << 32;
  if (BShift)
    Hi = (Hi << BShift) | (Lo >> (64 - BShift));
  int Scale = -53 - int(Shift);
  if (Exponent >= 1968)
    Scale += 128;
  return std::ldexp(double(Hi >> 11), Scale);
}

//===----------------------------------------------------------------------===//
// Integer conversions
//===----------------------------------------------------------------------===//

int16_t toSnorm16(double X) {
  if (X != X)
    return 0;
  X = X < -1.0 ? -1.0 : (X > 1.0 ? 1.0 : X);
  return int16_t(std::nearbyint(X * 32767.0));
}

uint16_t toUnorm16(double X) {
  if (X != X)
    return 0;
  X = X < 0.0 ? 0.0 : (X > 1.0 ? 1.0 : X);
  return uint16_t(std::nearbyint(X * 65535.0));
}

uint32_t toU8Sat(float X) {
  if (X != X)
    return 0;
  double R = std::nearbyint(double(X));
  return R <= 0 ? 0 : (R >= 255 ? 255 : uint32_t(R));
}

//===----------------------------------------------------------------------===//
// Instantiations
//===----------------------------------------------------------------------===//

template TOf<F16> fmaScaled<F16>(double, double, double, int);
template TOf<F32> fmaScaled<F32>(double, double, double, int);
template TOf<F64> fmaScaled<F64>(double, double, double, int);
#define LOOM_FMATH_ALL_FORMATS(F)                                              \
  template TOf<F> frexpMant<F>(TOf<F>);                                        \
  template int32_t frexpExp<F>(TOf<F>);                                        \
  template TOf<F> fract<F>(TOf<F>);                                            \
  template TOf<F> divFixup<F>(TOf<F>, TOf<F>, TOf<F>);
LOOM_FMATH_ALL_FORMATS(F16)
LOOM_FMATH_ALL_FORMATS(F32)
LOOM_FMATH_ALL_FORMATS(F64)
#undef LOOM_FMATH_ALL_FORMATS
template TOf<F16> sinRev<F16>(TOf<F16>);
template TOf<F32> sinRev<F32>(TOf<F32>);
template TOf<F16> cosRev<F16>(TOf<F16>);
template TOf<F32> cosRev<F32>(TOf<F32>);
template DivScaleResult<F32> divScale<F32>(float, float, float);
template DivScaleResult<F64> divScale<F64>(double, double, double);
template float divFmas<F32>(float, float, float, bool);
template double divFmas<F64>(double, double, double, bool);

} // namespace loom::emu::fmath
