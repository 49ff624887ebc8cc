//===- tests/emu/core/FloatMathTest.cpp - Lane semantics of float ops -----===//
//
// FloatMath's scalar functions against host IEEE arithmetic: conversions
// and f16 arithmetic exhaustively or on random and edge operands, and the
// division / square-root macros clang emits for gfx90a, run on these
// functions, bit for bit against host division and sqrt.
//
//===----------------------------------------------------------------------===//

// The emulator's internal headers are not on the test include path.
#include "../../../emu/ops/FloatMath.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

using namespace loom::emu::fmath;

namespace {

uint32_t bits(float X) { return std::bit_cast<uint32_t>(X); }
uint64_t bits(double X) { return std::bit_cast<uint64_t>(X); }
float f32(uint32_t B) { return std::bit_cast<float>(B); }
double f64(uint64_t B) { return std::bit_cast<double>(B); }

/// Operands worth testing: every class and the edges between them, plus
/// random bit patterns.
template <class F> std::vector<TOf<F>> interesting(unsigned Random) {
  using B = BitsOf<F>;
  std::vector<B> Bits = {0,
                         1,
                         2,
                         mantMask<F>(),
                         B(mantMask<F>() + 1),
                         B(expMask<F>() - 1),
                         expMask<F>(),
                         B(expMask<F>() | 1),
                         B(expMask<F>() | quietBit<F>())};
  for (int E : {-2, -1, 0, 1, 2, 23, 24, 52, 53, 64, 96, 126, 127})
    for (int D : {-1, 0, 1}) {
      double V = std::ldexp(1.0, E) * (1 + D * 0x1p-20);
      Bits.push_back(toBits<F>(fromDouble<F>(V)));
      Bits.push_back(toBits<F>(fromDouble<F>(1 / V)));
    }
  std::mt19937_64 Rng(42);
  for (unsigned I = 0; I < Random; ++I)
    Bits.push_back(B(Rng()));
  std::vector<TOf<F>> Out;
  for (B V : Bits) {
    Out.push_back(fromBits<F>(V));
    Out.push_back(fromBits<F>(B(V | signMask<F>())));
  }
  return Out;
}

/// Bitwise equality, or both NaN.
template <class F> bool same(TOf<F> A, TOf<F> B) {
  return toBits<F>(A) == toBits<F>(B) || (isNan<F>(A) && isNan<F>(B));
}

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

TEST(FloatMath, F16ToF32IsExactForEveryHalf) {
  for (uint32_t H = 0; H < 0x10000; ++H) {
    _Float16 Host = std::bit_cast<_Float16>(uint16_t(H));
    float Want = float(Host);
    ASSERT_TRUE(same<F32>(f16ToF32(uint16_t(H)), Want)) << std::hex << H;
    if (isNan<F16>(uint16_t(H)))
      EXPECT_TRUE(bits(f16ToF32(uint16_t(H))) & 0x400000) << "quieted";
  }
}

TEST(FloatMath, F32ToF16RoundsToNearestEvenLikeTheHost) {
  std::vector<float> Ops = interesting<F32>(200000);
  // Every f16 value and the midpoints around it.
  for (uint32_t H = 0; H < 0x7c00; ++H) {
    double V = f16ToF64(uint16_t(H));
    double Next = f16ToF64(uint16_t(H + 1));
    Ops.push_back(float(V));
    Ops.push_back(float((V + Next) / 2));
    Ops.push_back(std::nextafter(float((V + Next) / 2), 0.0f));
    Ops.push_back(std::nextafter(float((V + Next) / 2), 1e10f));
  }
  for (float X : Ops) {
    uint16_t Want = std::bit_cast<uint16_t>(_Float16(X));
    uint16_t Got = f32ToF16(X);
    ASSERT_TRUE(same<F16>(Got, Want)) << X << " " << std::hex << Got;
    if (!isNan<F32>(X)) {
      double D = X;
      ASSERT_EQ(f64ToF16(D), Want) << D;
    }
  }
}

/// The next f16 above / below \p H (finite H).
uint16_t f16Up(uint16_t H) {
  return H == 0x8000    ? 0x0001
         : (H & 0x8000) ? uint16_t(H - 1)
                        : uint16_t(H + 1);
}
uint16_t f16Down(uint16_t H) {
  return H == 0x0000    ? 0x8001
         : (H & 0x8000) ? uint16_t(H + 1)
                        : uint16_t(H - 1);
}

/// The f16 values just below and just above \p X (equal when exact).
std::pair<uint16_t, uint16_t> f16Neighbours(double X) {
  uint16_t Near = f64ToF16(X);
  double V = f16ToF64(Near);
  if (V == X)
    return {Near, Near};
  return V < X ? std::pair{Near, f16Up(Near)} : std::pair{f16Down(Near), Near};
}

TEST(FloatMath, F32ToF16HonoursEveryRoundMode) {
  for (float X : interesting<F32>(100000)) {
    if (isNan<F32>(X) || std::fabs(X) > 65504.0f)
      continue;
    auto [Lo, Hi] = f16Neighbours(X);
    uint16_t Zero = std::fabs(f16ToF64(Lo)) < std::fabs(f16ToF64(Hi)) ? Lo : Hi;
    if (Lo == Hi)
      Zero = Lo;
    EXPECT_EQ(f32ToF16(X, RoundDown), Lo) << X;
    EXPECT_EQ(f32ToF16(X, RoundUp), Hi) << X;
    EXPECT_EQ(f32ToF16(X, RoundZero), Zero) << X;
  }
  // Overflow: to infinity or the largest finite value.
  EXPECT_EQ(f32ToF16(1e6f, RoundZero), 0x7bff);
  EXPECT_EQ(f32ToF16(1e6f, RoundDown), 0x7bff);
  EXPECT_EQ(f32ToF16(1e6f, RoundUp), 0x7c00);
  EXPECT_EQ(f32ToF16(-1e6f, RoundUp), 0xfbff);
  EXPECT_EQ(f32ToF16(-1e6f, RoundNearestEven), 0xfc00);
}

TEST(FloatMath, IntegerConversionsSaturateAndMapNanToZero) {
  EXPECT_EQ(toIntSat<int32_t>(NAN), 0);
  EXPECT_EQ(toIntSat<int32_t>(INFINITY), INT32_MAX);
  EXPECT_EQ(toIntSat<int32_t>(-INFINITY), INT32_MIN);
  EXPECT_EQ(toIntSat<int32_t>(2147483648.0), INT32_MAX);
  EXPECT_EQ(toIntSat<int32_t>(-2147483904.0), INT32_MIN);
  EXPECT_EQ(toIntSat<int32_t>(-1.9), -1);
  EXPECT_EQ(toIntSat<uint32_t>(-0.9), 0u);
  EXPECT_EQ(toIntSat<uint32_t>(-5.0), 0u);
  EXPECT_EQ(toIntSat<uint32_t>(4294967296.0), UINT32_MAX);
  EXPECT_EQ(toIntSat<int16_t>(40000.0), INT16_MAX);
  EXPECT_EQ(toIntSat<uint16_t>(65535.9), UINT16_MAX);
  // rpi adds 0.5 in f32: 0.49999997 + 0.5 rounds to 1.
  EXPECT_EQ(cvtRpiI32(0.49999997f), 1);
  EXPECT_EQ(cvtRpiI32(-0.5f), 0);
  EXPECT_EQ(cvtRpiI32(-1.5f), -1);
  EXPECT_EQ(cvtFlrI32(-0.0f), 0);
  EXPECT_EQ(cvtFlrI32(-1e-45f), -1);
  EXPECT_EQ(cvtOffF32I4(0x8), -0.5f);
  EXPECT_EQ(cvtOffF32I4(0xf7), 0.4375f);
  EXPECT_EQ(toSnorm16(-2.0), -32767);
  EXPECT_EQ(toSnorm16(0.5), 16384); // 16383.5 ties to even
  EXPECT_EQ(toUnorm16(0.5), 32768); // 32767.5 ties to even
  EXPECT_EQ(toUnorm16(NAN), 0);
  EXPECT_EQ(toU8Sat(254.5f), 254u);
  EXPECT_EQ(toU8Sat(300.0f), 255u);
  EXPECT_EQ(toU8Sat(-3.0f), 0u);
}

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

/// The f16 nearest to N * 2^-48 (ties to even), by exact integer compares.
uint16_t roundUnits48(__int128 N) {
  auto Units = [](uint16_t H) { // H's magnitude in units of 2^-48
    return __int128(f16ToF64(H) * 0x1p24) * (__int128(1) << 24);
  };
  uint16_t Sign = N < 0 ? 0x8000 : 0;
  __int128 A = N < 0 ? -N : N;
  // At or above 65520 (a tie between 65504 and 2^16, odd below): inf.
  auto Value = [&](uint16_t H) { return Units(H); };
  if (A >= Units(0x7bff) + (__int128(1) << 52))
    return uint16_t(Sign | 0x7c00);
  if (A >= Units(0x7bff))
    return uint16_t(Sign | 0x7bff);
  uint16_t Lo = 0, Hi = 0x7bff; // the first magnitude >= A
  while (Lo < Hi) {
    uint16_t Mid = uint16_t((Lo + Hi) / 2);
    if (Value(Mid) >= A)
      Hi = Mid;
    else
      Lo = uint16_t(Mid + 1);
  }
  uint16_t H = Lo;
  if (H > 0) {
    __int128 Up = Value(H) - A, Down = A - Value(uint16_t(H - 1));
    if (Down < Up || (Down == Up && (H & 1)))
      H = uint16_t(H - 1);
  }
  return uint16_t(H | Sign);
}

TEST(FloatMath, F16FmaRoundsOnceLikeExactArithmetic) {
  std::mt19937 Rng(7);
  auto Finite = [&] {
    uint16_t H;
    do
      H = uint16_t(Rng());
    while ((H & 0x7c00) == 0x7c00);
    return H;
  };
  for (int I = 0; I < 200000; ++I) {
    uint16_t A = Finite(), B = Finite(), C = Finite();
    // Make some products and addends cancel or be tiny.
    if (I % 4 == 1)
      C = uint16_t(mul<F16>(A, B) ^ 0x8000);
    if (I % 4 == 2)
      C = uint16_t(Rng() & 0x83ff);
    if ((C & 0x7c00) == 0x7c00)
      continue;
    auto Units24 = [](uint16_t H) { return __int128(f16ToF64(H) * 0x1p24); };
    __int128 Exact = Units24(A) * Units24(B) + Units24(C) * (__int128(1) << 24);
    uint16_t Got = fma<F16>(A, B, C);
    if (Exact == 0)
      continue; // sign of zero per IEEE, checked below
    ASSERT_EQ(Got, roundUnits48(Exact))
        << std::hex << A << " " << B << " " << C;
  }
  EXPECT_EQ(fma<F16>(0x3c00, 0x8000, 0x0000), 0x0000);       // 1*-0 + 0 = +0
  EXPECT_EQ(fma<F16>(0x3c00, 0x8000, 0x8000), 0x8000);       // -0 + -0 = -0
  EXPECT_TRUE(isNan<F16>(fma<F16>(0x7c00, 0x0000, 0x3c00))); // inf*0
}

TEST(FloatMath, F16AddMulMatchTheHost) {
  std::mt19937 Rng(3);
  for (int I = 0; I < 200000; ++I) {
    uint16_t A = uint16_t(Rng()), B = uint16_t(Rng());
    _Float16 Ha = std::bit_cast<_Float16>(A), Hb = std::bit_cast<_Float16>(B);
    ASSERT_TRUE(
        same<F16>(add<F16>(A, B), std::bit_cast<uint16_t>(_Float16(Ha + Hb))));
    ASSERT_TRUE(
        same<F16>(mul<F16>(A, B), std::bit_cast<uint16_t>(_Float16(Ha * Hb))));
  }
}

TEST(FloatMath, MadRoundsTheProductAndFlushesDenormals) {
  // 1 + 2^-23 squared: fma keeps the 2^-46 term, mad rounds it away.
  float A = 1.0f + 0x1p-23f, C = -1.0f;
  EXPECT_EQ(mad<F32>(A, A, C), 0x1p-22f);
  EXPECT_EQ(fma<F32>(A, A, C), 0x1p-22f + 0x1p-46f);
  EXPECT_EQ(bits(mad<F32>(0x1p-70f, 0x1p-70f, 0.0f)), 0u); // flushed product
  EXPECT_EQ(bits(mad<F32>(1e-45f, 1.0f, 0.0f)), 0u);       // flushed input
  EXPECT_EQ(bits(mad<F32>(-0x1p-64f, 0x1p-64f, -0.0f)), 0x80000000u);
  EXPECT_EQ(f16ToF32(mad<F16>(0x0001, 0x3c00, 0x0000)), 0.0f);
  EXPECT_EQ(mulLegacy(0.0f, INFINITY), 0.0f);
  EXPECT_EQ(bits(mulLegacy(-0.0f, NAN)), 0u);
  EXPECT_EQ(mulLegacy(2.0f, 3.0f), 6.0f);
  EXPECT_EQ(madLegacy(0.0f, NAN, 5.0f), 5.0f);
}

TEST(FloatMath, LdexpRoundsOnce) {
  for (float X : interesting<F32>(2000))
    for (int N : {-1200, -300, -200, -149, -130, -64, -1, 0, 1, 64, 200, 1100,
                  1 << 30, -(1 << 30)}) {
      ASSERT_TRUE(same<F32>(ldexp<F32>(X, N), std::ldexp(X, N))) << X << N;
      double D = X * 0x1p-900;
      ASSERT_TRUE(same<F64>(ldexp<F64>(D, N), std::ldexp(D, N))) << D << N;
    }
  EXPECT_EQ(ldexp<F16>(0x3c00, -24), 0x0001);
  EXPECT_EQ(ldexp<F16>(0x3c00, -25), 0x0000); // tie to even
  EXPECT_EQ(ldexp<F16>(0x3e00, -25), 0x0001); // 1.5 * 2^-25 rounds up
  EXPECT_EQ(ldexp<F16>(0x3c00, 16), 0x7c00);
}

TEST(FloatMath, FrexpAndFract) {
  for (float X : interesting<F32>(5000)) {
    if (isNan<F32>(X) || isInf<F32>(X)) {
      EXPECT_EQ(frexpExp<F32>(X), 0);
      EXPECT_TRUE(same<F32>(frexpMant<F32>(X), X));
      EXPECT_TRUE(isNan<F32>(fract<F32>(X)));
      continue;
    }
    int E;
    float M = std::frexp(X, &E);
    EXPECT_EQ(bits(frexpMant<F32>(X)), bits(M)) << X;
    EXPECT_EQ(frexpExp<F32>(X), E) << X;
    double Want = double(X) - std::floor(double(X));
    float Fr = fract<F32>(X);
    EXPECT_EQ(Fr, std::min(float(Want), 0x1.fffffep-1f)) << X;
  }
  EXPECT_EQ(bits(fract<F32>(-1e-45f)), 0x3f7fffffu);
  EXPECT_EQ(bits(fract<F64>(-1e-300)), 0x3fefffffffffffffull);
  EXPECT_EQ(fract<F16>(0x8001), 0x3bff);
  EXPECT_EQ(bits(fract<F32>(-0.0f)), 0u);
  EXPECT_EQ(frexpExp<F16>(0x0001), -23);
  EXPECT_EQ(frexpMant<F16>(0x0001), 0x3800);
  EXPECT_EQ(frexpExp<F64>(0x1p-1074), -1073);
}

TEST(FloatMath, RoundingToIntegral) {
  for (float X : interesting<F32>(5000)) {
    EXPECT_TRUE(same<F32>(truncF<F32>(X), std::trunc(X)));
    EXPECT_TRUE(same<F32>(floorF<F32>(X), std::floor(X)));
    EXPECT_TRUE(same<F32>(ceilF<F32>(X), std::ceil(X)));
    EXPECT_TRUE(same<F32>(rndneF<F32>(X), std::nearbyint(X)));
  }
  EXPECT_EQ(rndneF<F16>(f32ToF16(2.5f)), f32ToF16(2.0f));
  EXPECT_EQ(rndneF<F16>(f32ToF16(-0.25f)), 0x8000);
  EXPECT_EQ(floorF<F16>(0x8001), f32ToF16(-1.0f));
  EXPECT_EQ(ceilF<F16>(0x0001), f32ToF16(1.0f));
}

//===----------------------------------------------------------------------===//
// Min / max / med3, compares, classes
//===----------------------------------------------------------------------===//

TEST(FloatMath, MinMaxFollowTheIsaNanAndZeroRules) {
  const float QNan = f32(0x7fc00001), SNan = f32(0x7f800001);
  for (bool Ieee : {false, true}) {
    EXPECT_EQ(maxF<F32>(QNan, 1.0f, Ieee), 1.0f);
    EXPECT_EQ(maxF<F32>(1.0f, QNan, Ieee), 1.0f);
    EXPECT_EQ(minF<F32>(QNan, 1.0f, Ieee), 1.0f);
    EXPECT_EQ(bits(maxF<F32>(0.0f, -0.0f, Ieee)), 0u);
    EXPECT_EQ(bits(maxF<F32>(-0.0f, 0.0f, Ieee)), 0u);
    EXPECT_EQ(bits(minF<F32>(0.0f, -0.0f, Ieee)), 0x80000000u);
    EXPECT_EQ(bits(minF<F32>(-0.0f, 0.0f, Ieee)), 0x80000000u);
  }
  // IEEE mode quiets a signaling NaN and returns it; otherwise it is an
  // ordinary NaN.
  EXPECT_EQ(bits(maxF<F32>(SNan, 1.0f, true)), 0x7fc00001u);
  EXPECT_EQ(bits(maxF<F32>(1.0f, SNan, true)), 0x7fc00001u);
  EXPECT_EQ(maxF<F32>(SNan, 1.0f, false), 1.0f);
  EXPECT_EQ(bits(minF<F32>(QNan, SNan, true)), 0x7fc00001u);
  EXPECT_EQ(bits(maxF<F64>(f64(0x7ff0000000000001), 2.0, true)),
            0x7ff8000000000001ull);
  EXPECT_EQ(maxF<F16>(0x7e00, 0x3c00, true), 0x3c00);
  EXPECT_EQ(maxF<F16>(0x7c01, 0x3c00, true), 0x7e01);
  EXPECT_EQ(minF<F16>(0xbc00, 0x3c00, true), 0xbc00);
}

TEST(FloatMath, Med3IsTheMedianOrMin3WithNan) {
  std::mt19937 Rng(5);
  std::uniform_real_distribution<float> D(-4, 4);
  for (int I = 0; I < 10000; ++I) {
    float V[3] = {D(Rng), D(Rng), D(Rng)};
    if (I % 7 == 0)
      V[1] = V[0];
    float Sorted[3] = {V[0], V[1], V[2]};
    std::sort(Sorted, Sorted + 3);
    EXPECT_EQ(med3F<F32>(V[0], V[1], V[2], true), Sorted[1]);
    EXPECT_EQ(min3F<F32>(V[0], V[1], V[2], true), Sorted[0]);
    EXPECT_EQ(max3F<F32>(V[0], V[1], V[2], true), Sorted[2]);
  }
  EXPECT_EQ(med3F<F32>(NAN, 2.0f, 1.0f, true), 1.0f);
  EXPECT_EQ(med3F<F32>(3.0f, NAN, 1.0f, true), 1.0f);
  EXPECT_EQ(med3F<F32>(3.0f, 2.0f, NAN, true), 2.0f);
}

TEST(FloatMath, ComparePredicatesMatchTheHost) {
  std::vector<double> V = {-INFINITY, -1.0, -0.0,     0.0,
                           1e-310,    1.0,  INFINITY, NAN};
  for (double A : V)
    for (double B : V) {
      bool Unord = A != A || B != B;
      EXPECT_FALSE(compare<Cmp::F>(A, B));
      EXPECT_TRUE(compare<Cmp::TRU>(A, B));
      EXPECT_EQ(compare<Cmp::LT>(A, B), A < B);
      EXPECT_EQ(compare<Cmp::EQ>(A, B), A == B);
      EXPECT_EQ(compare<Cmp::LE>(A, B), A <= B);
      EXPECT_EQ(compare<Cmp::GT>(A, B), A > B);
      EXPECT_EQ(compare<Cmp::LG>(A, B), !Unord && A != B);
      EXPECT_EQ(compare<Cmp::GE>(A, B), A >= B);
      EXPECT_EQ(compare<Cmp::O>(A, B), !Unord);
      EXPECT_EQ(compare<Cmp::U>(A, B), Unord);
      EXPECT_EQ(compare<Cmp::NGE>(A, B), Unord || A < B);
      EXPECT_EQ(compare<Cmp::NLG>(A, B), Unord || A == B);
      EXPECT_EQ(compare<Cmp::NGT>(A, B), Unord || A <= B);
      EXPECT_EQ(compare<Cmp::NLE>(A, B), Unord || A > B);
      EXPECT_EQ(compare<Cmp::NEQ>(A, B), Unord || A != B);
      EXPECT_EQ(compare<Cmp::NLT>(A, B), Unord || A >= B);
    }
}

TEST(FloatMath, ClassesOfEveryKindOfValue) {
  struct Case {
    uint32_t Class;
    uint16_t H;
    uint32_t S;
    uint64_t D;
  } Cases[] = {{ClassSNan, 0x7c01, 0x7f800001, 0x7ff0000000000001},
               {ClassQNan, 0xfe00, 0xffc00000, 0xfff8000000000000},
               {ClassNegInf, 0xfc00, 0xff800000, 0xfff0000000000000},
               {ClassNegNormal, 0xbc00, 0xbf800000, 0xbff0000000000000},
               {ClassNegDenorm, 0x8001, 0x80000001, 0x8000000000000001},
               {ClassNegZero, 0x8000, 0x80000000, 0x8000000000000000},
               {ClassPosZero, 0x0000, 0x00000000, 0x0000000000000000},
               {ClassPosDenorm, 0x03ff, 0x007fffff, 0x000fffffffffffff},
               {ClassPosNormal, 0x0400, 0x00800000, 0x0010000000000000},
               {ClassPosInf, 0x7c00, 0x7f800000, 0x7ff0000000000000}};
  for (const Case &C : Cases) {
    uint32_t Others = 0x3ff & ~C.Class;
    EXPECT_TRUE(cmpClass<F16>(C.H, C.Class) && !cmpClass<F16>(C.H, Others));
    EXPECT_TRUE(cmpClass<F32>(f32(C.S), C.Class) &&
                !cmpClass<F32>(f32(C.S), Others));
    EXPECT_TRUE(cmpClass<F64>(f64(C.D), C.Class) &&
                !cmpClass<F64>(f64(C.D), Others));
  }
}

//===----------------------------------------------------------------------===//
// Transcendental operations
//===----------------------------------------------------------------------===//

TEST(FloatMath, DocumentedSpecialValuesOfTranscendentals) {
  // Examples from the ISA's functional descriptions.
  EXPECT_EQ(bits(exp2F32(-INFINITY)), 0u);
  EXPECT_EQ(bits(exp2F32(-0.0f)), 0x3f800000u);
  EXPECT_EQ(bits(exp2F32(INFINITY)), 0x7f800000u);
  EXPECT_EQ(bits(exp2F32(-130.0f)), 0u); // denormal result flushed
  EXPECT_EQ(bits(log2F32(-INFINITY)), 0xffc00000u);
  EXPECT_EQ(bits(log2F32(-1.0f)), 0xffc00000u);
  EXPECT_EQ(bits(log2F32(-0.0f)), 0xff800000u);
  EXPECT_EQ(bits(log2F32(0.0f)), 0xff800000u);
  EXPECT_EQ(bits(log2F32(1e-40f)), 0xff800000u); // denormal input flushed
  EXPECT_EQ(bits(log2F32(1.0f)), 0u);
  EXPECT_EQ(bits(log2F32(INFINITY)), 0x7f800000u);
  EXPECT_EQ(bits(rcpF32(-INFINITY)), 0x80000000u);
  EXPECT_EQ(bits(rcpF32(-2.0f)), 0xbf000000u);
  EXPECT_EQ(bits(rcpF32(-0.0f)), 0xff800000u);
  EXPECT_EQ(bits(rcpF32(0.0f)), 0x7f800000u);
  EXPECT_EQ(bits(rcpF32(INFINITY)), 0u);
  EXPECT_EQ(bits(rcpF32(0x1p127f)), 0u);        // denormal result flushed
  EXPECT_EQ(bits(rcpF32(1e-40f)), 0x7f800000u); // denormal input flushed
  EXPECT_EQ(bits(rsqF32(-INFINITY)), 0xffc00000u);
  EXPECT_EQ(bits(rsqF32(-0.0f)), 0xff800000u);
  EXPECT_EQ(bits(rsqF32(4.0f)), 0x3f000000u);
  EXPECT_EQ(bits(rsqF32(INFINITY)), 0u);
  EXPECT_EQ(bits(sqrtF32(-INFINITY)), 0xffc00000u);
  EXPECT_EQ(bits(sqrtF32(-0.0f)), 0x80000000u);
  EXPECT_EQ(bits(sqrtF32(4.0f)), 0x40000000u);
  EXPECT_EQ(bits(sqrtF32(-1e-40f)), 0x80000000u);
  EXPECT_EQ(bits(sinRev<F32>(-INFINITY)), 0xffc00000u);
  EXPECT_EQ(bits(sinRev<F32>(f32(0xff7fffff))), 0u);
  EXPECT_EQ(bits(sinRev<F32>(-0.0f)), 0x80000000u);
  EXPECT_EQ(bits(sinRev<F32>(0.25f)), 0x3f800000u);
  EXPECT_EQ(bits(cosRev<F32>(f32(0xff7fffff))), 0x3f800000u);
  EXPECT_EQ(bits(cosRev<F32>(-0.0f)), 0x3f800000u);
  EXPECT_EQ(bits(cosRev<F32>(0.25f)), 0u);
  EXPECT_EQ(sinRev<F16>(0x3400), 0x3c00);
  EXPECT_EQ(cosRev<F16>(0x3400), 0x0000);
  EXPECT_EQ(sinRev<F16>(0xfbff), 0x0000);
  EXPECT_EQ(sqrtF16(0xfc00), 0xfe00);
  EXPECT_EQ(rsqF16(0x4400), 0x3800);
  EXPECT_EQ(rcpF16(0x8000), 0xfc00);
  EXPECT_EQ(log2F16(0xbc00), 0xfe00);
  EXPECT_EQ(exp2F16(0xfc00), 0x0000);
  EXPECT_EQ(exp2F16(f32ToF16(-24.0f)), 0x0001); // f16 keeps denormals
}

/// Distance in ULPs between floats of the same sign.
int64_t ulps(float A, float B) {
  return std::llabs(int64_t(bits(A)) - int64_t(bits(B)));
}

TEST(FloatMath, TranscendentalsAreWithinTheirDocumentedBounds) {
  std::mt19937 Rng(11);
  std::uniform_real_distribution<float> Rev(-1000, 1000), Exp(-125, 127);
  for (int I = 0; I < 100000; ++I) {
    float X = Rev(Rng);
    double Ref =
        std::sin(2 * M_PI * double(X) - 2 * M_PI * std::floor(double(X)));
    // The reference loses ~2^-40 relative to the exact reduction.
    if (std::fabs(Ref) > 1e-6) {
      ASSERT_LE(ulps(sinRev<F32>(X), float(Ref)), 1) << X;
    }
    float E = Exp(Rng);
    ASSERT_LE(ulps(exp2F32(E), std::exp2(E)), 1) << E;
    float L = std::fabs(Rev(Rng)) + 1e-30f;
    ASSERT_LE(ulps(log2F32(L), std::log2(L)), 1) << L;
    ASSERT_LE(ulps(rsqF32(L), 1 / std::sqrt(L)), 1) << L;
  }
}

//===----------------------------------------------------------------------===//
// The macros clang emits for gfx90a, run on FloatMath
//===----------------------------------------------------------------------===//

/// clang's f32 division (SITargetLowering::LowerFDIV32).
float divideF32(float A, float B) {
  auto [DenS, DenVcc] = divScale<F32>(B, B, A);
  float R = rcpF32(DenS);
  auto [NumS, Vcc] = divScale<F32>(A, B, A);
  float T = std::fma(-DenS, R, 1.0f);
  R = std::fma(T, R, R);
  float Q = NumS * R;
  float E = std::fma(-DenS, Q, NumS);
  Q = std::fma(E, R, Q);
  E = std::fma(-DenS, Q, NumS);
  float F = divFmas<F32>(E, R, Q, Vcc);
  return divFixup<F32>(F, B, A);
}

/// clang's f64 division (SITargetLowering::LowerFDIV64).
double divideF64(double A, double B) {
  auto [DenS, DenVcc] = divScale<F64>(B, B, A);
  double R = rcpF64(DenS);
  auto [NumS, Vcc] = divScale<F64>(A, B, A);
  for (int I = 0; I < 2; ++I) {
    double T = std::fma(-DenS, R, 1.0);
    R = std::fma(R, T, R);
  }
  double Q = NumS * R;
  double E = std::fma(-DenS, Q, NumS);
  double F = divFmas<F64>(E, R, Q, Vcc);
  return divFixup<F64>(F, B, A);
}

/// clang's f16 division: f32 reciprocal, v_mad_f32 refinement, and a
/// truncated last correction.
uint16_t divideF16(uint16_t A, uint16_t B) {
  float Fb = f16ToF32(B), Fa = f16ToF32(A);
  float R = rcpF32(Fb);
  float Q = Fa * R;
  float E = mad<F32>(-Fb, Q, Fa);
  Q = mad<F32>(E, R, Q);
  E = mad<F32>(-Fb, Q, Fa);
  float T = f32(bits(E * R) & 0xff800000u);
  Q = T + Q;
  return divFixup<F16>(f32ToF16(Q), B, A);
}

/// clang's f32 sqrt (lowerFSQRTF32: v_sqrt_f32 and a one-ULP correction).
float sqrtMacroF32(float X) {
  bool Scale = 0x1p-96f > X;
  float Y = Scale ? X * 0x1p32f : X;
  float S = sqrtF32(Y);
  float Dn = f32(bits(S) - 1), Up = f32(bits(S) + 1);
  float Rd = std::fma(-Dn, S, Y), Ru = std::fma(-Up, S, Y);
  if (0.0f >= Rd)
    S = Dn;
  if (0.0f < Ru)
    S = Up;
  if (Scale)
    S = S * 0x1p-16f;
  return cmpClass<F32>(Y, ClassPosInf | ClassPosZero | ClassNegZero) ? Y : S;
}

/// clang's f64 sqrt (lowerFSQRTF64: v_rsq_f64 and Newton steps).
double sqrtMacroF64(double X) {
  bool Scale = 0x1p-767 > X;
  double Y = ldexp<F64>(X, Scale ? 256 : 0);
  double R = rsqF64(Y);
  double G = Y * R, H = R * 0.5;
  double T = std::fma(-H, G, 0.5);
  G = std::fma(G, T, G);
  H = std::fma(H, T, H);
  for (int I = 0; I < 2; ++I) {
    double D = std::fma(-G, G, Y);
    G = std::fma(D, H, G);
  }
  G = ldexp<F64>(G, Scale ? -128 : 0);
  return cmpClass<F64>(Y, ClassPosInf | ClassPosZero | ClassNegZero) ? Y : G;
}

/// Operand pairs for the division tests: edges of every kind crossed with
/// each other, and random ones.
template <class F> std::vector<std::pair<TOf<F>, TOf<F>>> divisionCases() {
  std::vector<TOf<F>> Edge = interesting<F>(40);
  std::vector<std::pair<TOf<F>, TOf<F>>> Out;
  for (TOf<F> A : Edge)
    for (TOf<F> B : Edge)
      Out.push_back({A, B});
  std::mt19937_64 Rng(99);
  for (int I = 0; I < 300000; ++I)
    Out.push_back(
        {fromBits<F>(BitsOf<F>(Rng())), fromBits<F>(BitsOf<F>(Rng()))});
  // Quotients near the denormal and overflow boundaries.
  std::uniform_real_distribution<double> U(1, 2);
  for (int I = 0; I < 100000; ++I) {
    int Lim = std::is_same_v<F, F32> ? 150 : 1080;
    int Ea = int(Rng() % (2 * Lim)) - Lim, Eb = int(Rng() % (2 * Lim)) - Lim;
    Out.push_back({fromDouble<F>(std::ldexp(U(Rng), Ea)),
                   fromDouble<F>(std::ldexp(U(Rng), Eb))});
  }
  return Out;
}

TEST(FloatMath, ClangF32DivisionIsCorrectlyRounded) {
  for (auto [A, B] : divisionCases<F32>())
    ASSERT_TRUE(same<F32>(divideF32(A, B), A / B))
        << std::hexfloat << A << " / " << B << " = " << divideF32(A, B);
}

TEST(FloatMath, ClangF64DivisionIsCorrectlyRounded) {
  for (auto [A, B] : divisionCases<F64>())
    ASSERT_TRUE(same<F64>(divideF64(A, B), A / B))
        << std::hexfloat << A << " / " << B << " = " << divideF64(A, B);
}

TEST(FloatMath, ClangF16DivisionIsCorrectlyRounded) {
  std::mt19937 Rng(1);
  for (int I = 0; I < 500000; ++I) {
    uint16_t A = uint16_t(Rng()), B = uint16_t(Rng());
    if (I < 65536) // every numerator over a few denominators
      A = uint16_t(I), B = uint16_t(0x3c00 + (I % 7) * 0x123);
    // Division in f32 rounded to f16 is correctly rounded (24 >= 2*11+2).
    uint16_t Want = f32ToF16(f16ToF32(A) / f16ToF32(B));
    ASSERT_TRUE(same<F16>(divideF16(A, B), Want))
        << std::hex << A << " / " << B << " = " << divideF16(A, B);
  }
}

TEST(FloatMath, ClangSqrtIsCorrectlyRounded) {
  for (float X : interesting<F32>(300000))
    ASSERT_TRUE(same<F32>(sqrtMacroF32(X), std::sqrt(X))) << std::hexfloat << X;
  for (double X : interesting<F64>(300000))
    ASSERT_TRUE(same<F64>(sqrtMacroF64(X), std::sqrt(X))) << std::hexfloat << X;
}

TEST(FloatMath, DivScaleBranches) {
  // Ordinary operands: unchanged, no post-scale.
  auto R = divScale<F32>(3.0f, 3.0f, 1.0f);
  EXPECT_EQ(R.V, 3.0f);
  EXPECT_FALSE(R.Vcc);
  // Zero operand: NaN.
  EXPECT_TRUE(std::isnan(divScale<F32>(1.0f, 0.0f, 1.0f).V));
  // Quotient near overflow: the denominator is scaled up, VCC set.
  R = divScale<F32>(0x1p-20f, 0x1p-20f, 0x1p100f);
  EXPECT_EQ(R.V, 0x1p44f);
  EXPECT_TRUE(R.Vcc);
  R = divScale<F32>(0x1p100f, 0x1p-20f, 0x1p100f);
  EXPECT_EQ(R.V, 0x1p100f);
  // Denormal denominator: both scaled up.
  EXPECT_EQ(divScale<F32>(0x1p-140f, 0x1p-140f, 0x1p-100f).V, 0x1p-76f);
  R = divScale<F32>(0x1p-100f, 0x1p-140f, 0x1p-100f);
  EXPECT_EQ(R.V, 0x1p-36f);
  EXPECT_FALSE(R.Vcc);
  // Huge denominator with a denormal quotient: denominator scaled down.
  R = divScale<F32>(0x1p127f, 0x1p127f, 1.0f);
  EXPECT_EQ(R.V, 0x1p63f);
  EXPECT_TRUE(R.Vcc);
  // Denormal quotient: the numerator is scaled up.
  R = divScale<F32>(0x1p-100f, 0x1p40f, 0x1p-100f);
  EXPECT_EQ(R.V, 0x1p-36f);
  EXPECT_TRUE(R.Vcc);
  // Tiny numerator: both scaled up.
  EXPECT_EQ(divScale<F32>(0x1p-110f, 1.0f, 0x1p-110f).V, 0x1p-46f);
  // f64 thresholds.
  EXPECT_TRUE(divScale<F64>(0x1p1000, 0x1p-100, 0x1p1000).Vcc);
  EXPECT_EQ(divScale<F64>(0x1p-300, 0x1p-1030, 0x1p-300).V, 0x1p-172);
}

TEST(FloatMath, DivFmasPostScalesWithOneRounding) {
  EXPECT_EQ(divFmas<F32>(1.0f, 2.0f, 3.0f, false), 5.0f);
  EXPECT_EQ(divFmas<F32>(1.0f, 2.0f, 0x1p40f, true), (0x1p40f + 2) * 0x1p64f);
  EXPECT_EQ(divFmas<F32>(1.0f, 0x1p-100f, 0x1p-80f, true),
            (0x1p-80f + 0x1p-100f) * 0x1p-64f);
  // 2^-86 + 2^-120 scaled by 2^-64 is just above half the smallest
  // denormal: rounding the fma first would make it a tie, and 0.
  EXPECT_EQ(bits(divFmas<F32>(0x1p-60f, 0x1p-60f, 0x1p-86f, true)), 1u);
  // f64 into the denormal range, against exact arithmetic: (2^-900 + 3 *
  // 2^-1000 * 2^-30) * 2^-128 rounds to nearest on the denormal grid.
  double G64 = divFmas<F64>(3 * 0x1p-1000, 0x1p-30, 0x1p-900, true);
  EXPECT_EQ(G64, 0x1p-1028);
  EXPECT_EQ(bits(divFmas<F64>(0x1p-550, 0x1p-550, 0x1p-947, true)), 1u);
  EXPECT_EQ(bits(divFmas<F64>(-0x1p-550, 0x1p-550, 0x1p-947, true)), 0u);
}

TEST(FloatMath, DivFixupSpecialCases) {
  EXPECT_EQ(bits(divFixup<F32>(1.0f, 0.0f, 0.0f)), 0xffc00000u);
  EXPECT_EQ(bits(divFixup<F32>(1.0f, INFINITY, -INFINITY)), 0xffc00000u);
  EXPECT_EQ(divFixup<F32>(1.0f, -0.0f, 2.0f), -INFINITY);
  EXPECT_EQ(divFixup<F32>(1.0f, 2.0f, INFINITY), INFINITY);
  EXPECT_EQ(bits(divFixup<F32>(1.0f, -INFINITY, 2.0f)), 0x80000000u);
  EXPECT_EQ(bits(divFixup<F32>(f32(0x7f800001), 2.0f, f32(0x7f800002))),
            0x7fc00002u);
  EXPECT_EQ(divFixup<F32>(NAN, 0x1p-149f, 0x1p127f), INFINITY);
  EXPECT_EQ(divFixup<F32>(-3.0f, -1.0f, 2.0f), -3.0f);
  EXPECT_EQ(divFixup<F16>(0x4200, 0x3c00, 0xbc00), 0xc200);
}

TEST(FloatMath, TrigPreopSegmentsOfTwoOverPi) {
  // Segment 0 is 2/pi truncated to 53 bits.
  EXPECT_EQ(bits(trigPreop(1.0, 0)), 0x3fe45f306dc9c882ull);
  // The segments add up to 2/pi well beyond double precision.
  long double Sum = 0;
  for (uint32_t S = 0; S < 3; ++S)
    Sum += trigPreop(1.0, S);
  EXPECT_NEAR(double(Sum - 0.63661977236758134307553505349005744813L), 0.0,
              1e-18);
  // Large inputs skip the bits their exponent makes irrelevant.
  EXPECT_LT(trigPreop(0x1p100, 0), trigPreop(1.0, 0));
  EXPECT_EQ(trigPreop(1.0, 31), 0.0); // past the table
  EXPECT_EQ(bits(trigPreop(f64(0x7ff0000000000001), 0)), 0x7ff8000000000001ull);
}

TEST(FloatMath, DenormalModes) {
  float D = 1e-40f;
  EXPECT_EQ(denormIn<F32>(D, 3), D);
  EXPECT_EQ(denormIn<F32>(D, 1), D);
  EXPECT_EQ(bits(denormIn<F32>(-D, 2)), 0x80000000u);
  EXPECT_EQ(bits(denormOut<F32>(-D, 1)), 0x80000000u);
  EXPECT_EQ(denormOut<F32>(D, 2), D);
  EXPECT_EQ(denormIn<F16>(0x8001, 0), 0x8000);
  EXPECT_EQ(denormIn<F64>(1e-310, 0), 0.0);
  // dot2 flushes f16 denormal inputs whatever MODE says.
  EXPECT_EQ(bits(dot2F32F16(0x00000001, 0x00000400, 0.0f)), 0u);
  EXPECT_EQ(dot2F32F16(0x3c004000, 0x40004200, 1.0f), 1.0f + 6.0f + 2.0f);
}

} // namespace
