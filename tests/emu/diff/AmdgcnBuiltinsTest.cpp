//===- AmdgcnBuiltinsTest.cpp - Device-only math builtins -----------------===//
//
// References are written from the GFX9 ISA's description of each
// instruction. Approximate ones are held to the ISA's accuracy (see
// docs/emu-testing.md for each bound and why); exact ones bit for bit.
//
//===----------------------------------------------------------------------===//
#include "DiffHarness.h"
#include "KernelAbi.h"

#include <cmath>
#include <functional>

using namespace loom::emu;
using namespace loom::emu::difftest;
using namespace diff;

namespace {

constexpr uint32_t N = 1021;

class AmdgcnBuiltins : public LevelTest {};

const long double TwoPi = 6.283185307179586476925286766559005768L;

// sin(2*pi*X) with the argument reduced exactly in revolutions, as the
// hardware's revolution-scaled input allows.
long double sinRevolutions(float X) {
  long double R = static_cast<long double>(X) - std::nearbyint(static_cast<long double>(X));
  return std::sin(TwoPi * R);
}
long double cosRevolutions(float X) {
  long double R = static_cast<long double>(X) - std::nearbyint(static_cast<long double>(X));
  return std::cos(TwoPi * R);
}

/// A float with a random significand and sign and its biased exponent in
/// [MinExp, MaxExp].
float floatWithExponent(Rng &R, unsigned MinExp, unsigned MaxExp, bool Negative) {
  uint32_t Sign = Negative && R.below(2) ? 0x80000000u : 0;
  uint32_t E = static_cast<uint32_t>(R.range(MinExp, MaxExp));
  return diff::f32Of(Sign | E << 23 | (R.next32() & 0x7fffff));
}

std::vector<float> uniformFloats(Rng &R, size_t N, double Lo, double Hi) {
  std::vector<float> V;
  for (size_t I = 0; I < N; ++I) {
    double U = static_cast<double>(R.next() >> 11) * 0x1p-53;
    // Every fourth value a short binary fraction: exact arguments.
    float X = static_cast<float>(Lo + (Hi - Lo) * U);
    if (I % 4 == 0)
      X = std::ldexp(std::trunc(std::ldexp(X, 6)), -6);
    V.push_back(X);
  }
  return V;
}

std::vector<float> runApproxF32(Module &M, uint32_t Op, const std::vector<float> &X) {
  Device &Dev = *sharedDevice();
  auto In = upload(Dev, X);
  auto Out = filled<float>(Dev, X.size(), -1234.5f);
  uint32_t Count = static_cast<uint32_t>(X.size());
  EXPECT_TRUE(launchOk(M, "approx_f32", LaunchConfig::linear(Count, 64),
                       KernelArgs().add(Out->address()).add(In->address()).add(Count).add(Op)));
  return download<float>(*Out, X.size());
}

enum class Bound { Ulp, Absolute };

void checkApproxF32(int Level, uint32_t Op, const char *Name,
                    const std::vector<float> &X,
                    long double (*Exact)(float), Bound Kind, double Limit) {
  Module *M = loadModule("amdgcn_builtins", Level);
  ASSERT_TRUE(M);
  std::vector<float> Got = runApproxF32(*M, Op, X);
  Mismatches Bad(Name);
  double Worst = 0;
  for (size_t I = 0; I < X.size(); ++I) {
    long double E = Exact(X[I]);
    double Err = Kind == Bound::Ulp
                     ? ulpErrorF32(Got[I], E)
                     : static_cast<double>(std::fabs(static_cast<long double>(Got[I]) - E));
    if (std::isnan(Err) || Err > Limit) {
      char Buf[200];
      std::snprintf(Buf, sizeof(Buf), "x = %a: device %a, exact %La, error %g %s",
                    static_cast<double>(X[I]), static_cast<double>(Got[I]), E, Err,
                    Kind == Bound::Ulp ? "ulp" : "absolute");
      Bad.add(Buf);
    }
    if (!std::isinf(Err))
      Worst = std::max(Worst, Err);
  }
  EXPECT_TRUE(Bad.result()) << "(worst finite error " << Worst << ")";
}

long double exactRcp(float X) { return 1.0L / X; }
long double exactRsq(float X) { return 1.0L / std::sqrt(static_cast<long double>(X)); }
long double exactSqrt(float X) { return std::sqrt(static_cast<long double>(X)); }
long double exactExp2(float X) { return std::exp2(static_cast<long double>(X)); }
long double exactLog2(float X) { return std::log2(static_cast<long double>(X)); }

TEST_P(AmdgcnBuiltins, RcpF32) {
  Rng R(0x4001);
  std::vector<float> X;
  // |x| in [2^-125, 2^126): normal results.
  for (uint32_t I = 0; I < N; ++I)
    X.push_back(floatWithExponent(R, 2, 252, true));
  checkApproxF32(level(), OpRcp, "v_rcp_f32", X, exactRcp, Bound::Ulp, 1.0);
}

TEST_P(AmdgcnBuiltins, RsqF32) {
  Rng R(0x4002);
  std::vector<float> X;
  for (uint32_t I = 0; I < N; ++I)
    X.push_back(floatWithExponent(R, 1, 254, false));
  checkApproxF32(level(), OpRsq, "v_rsq_f32", X, exactRsq, Bound::Ulp, 1.0);
}

TEST_P(AmdgcnBuiltins, SqrtF32) {
  Rng R(0x4003);
  std::vector<float> X;
  for (uint32_t I = 0; I < N; ++I)
    X.push_back(floatWithExponent(R, 1, 254, false));
  checkApproxF32(level(), OpSqrt, "v_sqrt_f32", X, exactSqrt, Bound::Ulp, 1.0);
}

TEST_P(AmdgcnBuiltins, Exp2F32) {
  Rng R(0x4004);
  // 2^x stays normal for x in [-126, 128).
  std::vector<float> X = uniformFloats(R, N, -126.0, 127.99);
  checkApproxF32(level(), OpExp2, "v_exp_f32", X, exactExp2, Bound::Ulp, 1.0);
}

TEST_P(AmdgcnBuiltins, Log2F32) {
  Rng R(0x4005);
  std::vector<float> X;
  for (uint32_t I = 0; I < N; ++I)
    X.push_back(floatWithExponent(R, 1, 254, false));
  checkApproxF32(level(), OpLog2, "v_log_f32", X, exactLog2, Bound::Ulp, 1.0);
}

// The ISA gives no ULP figure for v_sin/v_cos; see docs/emu-testing.md.
constexpr double TrigAbsoluteBound = 0x1p-19;

TEST_P(AmdgcnBuiltins, SinF32) {
  Rng R(0x4006);
  std::vector<float> X = uniformFloats(R, N, -256.0, 256.0);
  checkApproxF32(level(), OpSin, "v_sin_f32", X, sinRevolutions, Bound::Absolute,
                 TrigAbsoluteBound);
}

TEST_P(AmdgcnBuiltins, CosF32) {
  Rng R(0x4007);
  std::vector<float> X = uniformFloats(R, N, -256.0, 256.0);
  checkApproxF32(level(), OpCos, "v_cos_f32", X, cosRevolutions, Bound::Absolute,
                 TrigAbsoluteBound);
}

// llvm.exp2.f32 / llvm.log2.f32 as clang lowers them: v_exp/v_log with
// scaling around the denormal range, so the whole range is covered.
TEST_P(AmdgcnBuiltins, LibExp2F32) {
  Rng R(0x4008);
  std::vector<float> X = uniformFloats(R, N, -151.0, 127.99);
  checkApproxF32(level(), OpLibExp2, "exp2f", X, exactExp2, Bound::Ulp, 2.0);
}

TEST_P(AmdgcnBuiltins, LibLog2F32) {
  Rng R(0x4009);
  std::vector<float> X;
  for (uint32_t I = 0; I < N; ++I)
    X.push_back(I % 3 ? floatWithExponent(R, 1, 254, false)
                      : diff::f32Of(static_cast<uint32_t>(R.below(0x800000)) + 1));
  checkApproxF32(level(), OpLibLog2, "log2f", X, exactLog2, Bound::Ulp, 2.0);
}

struct Special {
  uint32_t Op;
  const char *Name;
  uint32_t In;
  uint32_t Out; // 0x7fc00000: any NaN
};

void checkSpecials(int Level, const std::vector<Special> &Cases, const char *What) {
  Module *M = loadModule("amdgcn_builtins", Level);
  ASSERT_TRUE(M);
  Mismatches Bad(What);
  for (const Special &C : Cases) {
    std::vector<float> Got = runApproxF32(*M, C.Op, {diff::f32Of(C.In)});
    uint32_t G = diff::bitsOf(Got[0]);
    if (!sameResult(diff::KF32, G, C.Out))
      Bad.add(std::string(C.Name) + "(" + formatResult(diff::KF32, C.In) +
              "): device " + formatResult(diff::KF32, G) + ", expected " +
              formatResult(diff::KF32, C.Out));
  }
  EXPECT_TRUE(Bad.result());
}

// IEEE special cases, as the ISA's functional examples state them.
TEST_P(AmdgcnBuiltins, SpecialValuesF32) {
  const uint32_t NaN = 0x7fc00000, Inf = 0x7f800000, NInf = 0xff800000;
  checkSpecials(level(),
                {{OpRcp, "rcp", NInf, 0x80000000},
                 {OpRcp, "rcp", 0xc0000000, 0xbf000000},
                 {OpRcp, "rcp", 0x80000000, NInf},
                 {OpRcp, "rcp", 0x00000000, Inf},
                 {OpRcp, "rcp", Inf, 0x00000000},
                 {OpRcp, "rcp", NaN, NaN},
                 {OpRsq, "rsq", NInf, NaN},
                 {OpRsq, "rsq", 0x80000000, NInf},
                 {OpRsq, "rsq", 0x00000000, Inf},
                 {OpRsq, "rsq", 0x40800000, 0x3f000000},
                 {OpRsq, "rsq", Inf, 0x00000000},
                 {OpRsq, "rsq", 0xbf800000, NaN},
                 {OpSqrt, "sqrt", NInf, NaN},
                 {OpSqrt, "sqrt", 0x80000000, 0x80000000},
                 {OpSqrt, "sqrt", 0x00000000, 0x00000000},
                 {OpSqrt, "sqrt", 0x40800000, 0x40000000},
                 {OpSqrt, "sqrt", Inf, Inf},
                 {OpSqrt, "sqrt", 0xbf800000, NaN},
                 {OpExp2, "exp2", NInf, 0x00000000},
                 {OpExp2, "exp2", 0x80000000, 0x3f800000},
                 {OpExp2, "exp2", Inf, Inf},
                 {OpExp2, "exp2", NaN, NaN},
                 {OpLog2, "log2", NInf, NaN},
                 {OpLog2, "log2", 0xbf800000, NaN},
                 {OpLog2, "log2", 0x80000000, NInf},
                 {OpLog2, "log2", 0x00000000, NInf},
                 {OpLog2, "log2", 0x3f800000, 0x00000000},
                 {OpLog2, "log2", Inf, Inf},
                 {OpSin, "sin", NInf, NaN},
                 {OpSin, "sin", 0x80000000, 0x80000000},
                 {OpSin, "sin", 0x3e800000, 0x3f800000},
                 {OpSin, "sin", Inf, NaN},
                 {OpCos, "cos", NInf, NaN},
                 {OpCos, "cos", 0x80000000, 0x3f800000},
                 {OpCos, "cos", 0x3e800000, 0x00000000},
                 {OpCos, "cos", Inf, NaN}},
                "special values");
}

// "Denormals are flushed" (ISA notes of v_rcp/v_rsq/v_sqrt/v_exp/v_log_f32),
// whatever the MODE register says: denormal inputs act as zero, denormal
// results become zero. clang's own lowering of 1/x, sqrt and exp2 relies
// on it (it scales around these instructions).
TEST_P(AmdgcnBuiltins, DenormalsFlushedF32) {
  const uint32_t Inf = 0x7f800000, NInf = 0xff800000;
  checkSpecials(level(),
                {{OpRcp, "rcp", 0x00000001, Inf},
                 {OpRcp, "rcp", 0x807fffff, NInf},
                 {OpRcp, "rcp", 0x7f000000, 0x00000000},
                 {OpRcp, "rcp", 0xff000000, 0x80000000},
                 {OpRsq, "rsq", 0x00400000, Inf},
                 {OpSqrt, "sqrt", 0x00400000, 0x00000000},
                 {OpExp2, "exp2", 0xc3020000, 0x00000000}, // 2^-130
                 {OpLog2, "log2", 0x00000001, NInf}},
                "denormal flushing");
}

TEST_P(AmdgcnBuiltins, ApproxF64) {
  Module *M = loadModule("amdgcn_builtins", level());
  ASSERT_TRUE(M);
  Device &Dev = *sharedDevice();
  // "(2**29) ULP accuracy" for v_rcp_f64, v_rsq_f64 and v_sqrt_f64.
  const double Limit = 0x1p29;
  struct Case {
    uint32_t Op;
    const char *Name;
    long double (*Exact)(double);
    bool Negative;
  };
  const Case Cases[] = {
      {OpRcp64, "v_rcp_f64", [](double X) { return 1.0L / X; }, true},
      {OpRsq64, "v_rsq_f64",
       [](double X) { return 1.0L / std::sqrt(static_cast<long double>(X)); }, false},
      {OpSqrt64, "v_sqrt_f64",
       [](double X) { return std::sqrt(static_cast<long double>(X)); }, false}};
  for (const Case &C : Cases) {
    Rng R(0x4100 + C.Op);
    std::vector<double> X;
    for (uint32_t I = 0; I < N; ++I) {
      uint64_t Sign = C.Negative && R.below(2) ? 1ull << 63 : 0;
      uint64_t E = static_cast<uint64_t>(R.range(2, 2044));
      X.push_back(diff::f64Of(Sign | E << 52 | (R.next() & 0xfffffffffffffull)));
    }
    auto In = upload(Dev, X);
    auto Out = filled<double>(Dev, N, -1.0);
    ASSERT_TRUE(launchOk(*M, "approx_f64", LaunchConfig::linear(N, 64),
                         KernelArgs().add(Out->address()).add(In->address()).add(N).add(C.Op)));
    std::vector<double> Got = download<double>(*Out, N);
    Mismatches Bad(C.Name);
    for (uint32_t I = 0; I < N; ++I) {
      double Err = ulpErrorF64(Got[I], C.Exact(X[I]));
      if (!(Err <= Limit)) {
        char Buf[160];
        std::snprintf(Buf, sizeof(Buf), "x = %a: device %a, error %g ulp", X[I], Got[I], Err);
        Bad.add(Buf);
      }
    }
    EXPECT_TRUE(Bad.result());
  }
}

//===----------------------------------------------------------------------===//
// Exact builtins
//===----------------------------------------------------------------------===//

uint32_t refFract(uint32_t A) {
  float X = diff::f32Of(A);
  if (std::isnan(X) || std::isinf(X))
    return 0x7fc00000;
  double D = static_cast<double>(X);
  float R = static_cast<float>(D - std::floor(D));
  // "Result clamped to 0x3f7fffff".
  return std::min(diff::bitsOf(R), 0x3f7fffffu);
}
uint32_t refFrexpMant(uint32_t A) {
  float X = diff::f32Of(A);
  if (!std::isfinite(X))
    return A;
  int E;
  return diff::bitsOf(std::frexp(X, &E));
}
uint32_t refFrexpExp(uint32_t A) {
  float X = diff::f32Of(A);
  int E = 0;
  if (std::isfinite(X))
    std::frexp(X, &E);
  return static_cast<uint32_t>(E);
}
// v_cmp_class mask bits: 0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denormal,
// 5 -0, 6 +0, 7 +denormal, 8 +normal, 9 +inf.
uint32_t refClass(uint32_t A, uint32_t Mask) {
  float X = diff::f32Of(A);
  bool Neg = A >> 31;
  unsigned Bit;
  if (std::isnan(X))
    Bit = diff::isSignalingNan(X) ? 0 : 1;
  else if (std::isinf(X))
    Bit = Neg ? 2 : 9;
  else if (X == 0)
    Bit = Neg ? 5 : 6;
  else if (std::fpclassify(X) == FP_SUBNORMAL)
    Bit = Neg ? 4 : 7;
  else
    Bit = Neg ? 3 : 8;
  return (Mask >> Bit) & 1;
}
uint32_t refMed3(uint32_t A, uint32_t B, uint32_t C) {
  float X = diff::f32Of(A), Y = diff::f32Of(B), Z = diff::f32Of(C);
  return diff::bitsOf(std::max(std::min(X, Y), std::min(std::max(X, Y), Z)));
}
// binary32 to binary16 rounding toward zero: never overflows to infinity.
uint16_t rtzHalf(uint32_t A) {
  float X = diff::f32Of(A);
  uint16_t S = static_cast<uint16_t>((A >> 16) & 0x8000);
  if (std::isnan(X))
    return S | 0x7e00;
  if (std::isinf(X))
    return S | 0x7c00;
  double M = std::fabs(static_cast<double>(X));
  if (M >= 65504.0)
    return S | 0x7bff;
  if (M < 0x1p-14)
    return S | static_cast<uint16_t>(std::floor(M * 0x1p24));
  int E;
  double F = std::frexp(M, &E); // M = F * 2^E, F in [0.5, 1)
  uint16_t Mant = static_cast<uint16_t>(std::floor((2 * F - 1) * 1024));
  return S | static_cast<uint16_t>((E - 1 + 15) << 10) | Mant;
}
uint32_t refPkRtz(uint32_t A, uint32_t B) {
  return rtzHalf(A) | static_cast<uint32_t>(rtzHalf(B)) << 16;
}
uint32_t refAlignBit(uint32_t A, uint32_t B, uint32_t C) {
  return static_cast<uint32_t>(((static_cast<uint64_t>(A) << 32) | B) >> (C & 31));
}
uint32_t refAlignByte(uint32_t A, uint32_t B, uint32_t C) {
  return static_cast<uint32_t>(((static_cast<uint64_t>(A) << 32) | B) >> (8 * (C & 3)));
}
// V_BFE: offset and width are the low five bits of their operands.
uint32_t refUbfe(uint32_t A, uint32_t Off, uint32_t W) {
  Off &= 31;
  W &= 31;
  if (W == 0)
    return 0;
  if (Off + W < 32)
    return (A << (32 - Off - W)) >> (32 - W);
  return A >> Off;
}
uint32_t refSbfe(uint32_t A, uint32_t Off, uint32_t W) {
  Off &= 31;
  W &= 31;
  if (W == 0)
    return 0;
  if (Off + W < 32)
    return static_cast<uint32_t>(static_cast<int32_t>(A << (32 - Off - W)) >> (32 - W));
  return static_cast<uint32_t>(static_cast<int32_t>(A) >> Off);
}

struct ExactCase {
  uint32_t Op;
  const char *Name;
  std::function<uint32_t(uint32_t, uint32_t, uint32_t)> Ref;
  diff::OpKind Kind;
  // Makes operand triple I.
  std::function<void(Rng &, uint32_t, uint32_t &, uint32_t &, uint32_t &)> Make;
};

uint32_t anyFloatBits(Rng &R, uint32_t I) {
  std::vector<float> Edges = f32EdgeValues();
  return I < Edges.size() ? diff::bitsOf(Edges[I]) : diff::bitsOf(randomF32(R));
}

bool samePkRtz(uint32_t Dev, uint32_t Ref) {
  return sameResult(diff::KF16, Dev & 0xffff, Ref & 0xffff) &&
         sameResult(diff::KF16, Dev >> 16, Ref >> 16);
}

TEST_P(AmdgcnBuiltins, ExactBuiltins) {
  Module *M = loadModule("amdgcn_builtins", level());
  ASSERT_TRUE(M);
  Device &Dev = *sharedDevice();
  auto AnyFloat = [](Rng &R, uint32_t I, uint32_t &A, uint32_t &B, uint32_t &C) {
    A = anyFloatBits(R, I);
    B = R.next32();
    C = R.next32();
  };
  auto Words = [](Rng &R, uint32_t I, uint32_t &A, uint32_t &B, uint32_t &C) {
    A = R.next32();
    B = R.next32();
    C = I < 64 ? I : R.next32();
  };
  const ExactCase Cases[] = {
      {OpFract, "v_fract_f32", [](uint32_t A, uint32_t, uint32_t) { return refFract(A); },
       diff::KF32, AnyFloat},
      {OpFrexpMant, "v_frexp_mant_f32",
       [](uint32_t A, uint32_t, uint32_t) { return refFrexpMant(A); }, diff::KF32, AnyFloat},
      {OpFrexpExp, "v_frexp_exp_i32_f32",
       [](uint32_t A, uint32_t, uint32_t) { return refFrexpExp(A); }, diff::KInt, AnyFloat},
      {OpClass, "v_cmp_class_f32",
       [](uint32_t A, uint32_t B, uint32_t) { return refClass(A, B & 0x3ff); }, diff::KInt,
       [](Rng &R, uint32_t I, uint32_t &A, uint32_t &B, uint32_t &C) {
         A = anyFloatBits(R, I / 10 < 32 ? I / 10 : 1000 + I);
         B = I < 320 ? 1u << (I % 10) : R.next32();
         C = 0;
       }},
      // NaN operands are left out: v_med3's NaN rules depend on IEEE mode.
      {OpMed3, "v_med3_f32", refMed3, diff::KF32Z,
       [](Rng &R, uint32_t, uint32_t &A, uint32_t &B, uint32_t &C) {
         auto NonNan = [&R] {
           float F;
           do
             F = randomF32(R);
           while (std::isnan(F));
           return diff::bitsOf(F);
         };
         A = NonNan();
         B = NonNan();
         C = NonNan();
       }},
      {OpPkRtz, "v_cvt_pkrtz_f16_f32",
       [](uint32_t A, uint32_t B, uint32_t) { return refPkRtz(A, B); }, diff::KInt,
       [](Rng &R, uint32_t I, uint32_t &A, uint32_t &B, uint32_t &C) {
         A = anyFloatBits(R, I);
         // Values in binary16's range, denormals included.
         B = diff::bitsOf(std::ldexp(static_cast<float>(R.range(-(1 << 24), 1 << 24)),
                                     static_cast<int>(R.range(-50, -8))));
         C = 0;
       }},
      {OpAlignBit, "v_alignbit_b32", refAlignBit, diff::KInt, Words},
      {OpAlignByte, "v_alignbyte_b32", refAlignByte, diff::KInt,
       [](Rng &R, uint32_t, uint32_t &A, uint32_t &B, uint32_t &C) {
         A = R.next32();
         B = R.next32();
         C = static_cast<uint32_t>(R.below(4));
       }},
      {OpUbfe, "v_bfe_u32", refUbfe, diff::KInt,
       [](Rng &R, uint32_t I, uint32_t &A, uint32_t &B, uint32_t &C) {
         A = R.next32();
         B = I < 1024 ? I % 32 : R.next32();
         C = I < 1024 ? I / 32 : R.next32();
       }},
      {OpSbfe, "v_bfe_i32", refSbfe, diff::KInt,
       [](Rng &R, uint32_t I, uint32_t &A, uint32_t &B, uint32_t &C) {
         A = R.next32();
         B = I < 1024 ? I % 32 : R.next32();
         C = I < 1024 ? I / 32 : R.next32();
       }},
  };
  constexpr uint32_t Count = 1100;
  for (const ExactCase &C : Cases) {
    Rng R(0x4200 + C.Op);
    std::vector<uint32_t> A(Count), B(Count), Z(Count);
    for (uint32_t I = 0; I < Count; ++I)
      C.Make(R, I, A[I], B[I], Z[I]);
    auto DA = upload(Dev, A), DB = upload(Dev, B), DZ = upload(Dev, Z);
    auto Out = filled<uint32_t>(Dev, Count, 0xcccccccc);
    ASSERT_TRUE(launchOk(*M, "exact_builtins", LaunchConfig::linear(Count, 64),
                         KernelArgs()
                             .add(Out->address())
                             .add(DA->address())
                             .add(DB->address())
                             .add(DZ->address())
                             .add(Count)
                             .add(C.Op)));
    std::vector<uint32_t> Got = download<uint32_t>(*Out, Count);
    Mismatches Bad(C.Name);
    for (uint32_t I = 0; I < Count; ++I) {
      uint32_t Ref = C.Ref(A[I], B[I], Z[I]);
      bool Same = C.Op == OpPkRtz ? samePkRtz(Got[I], Ref) : sameResult(C.Kind, Got[I], Ref);
      if (!Same)
        Bad.add(std::string(C.Name) + "(" + hex(A[I]) + ", " + hex(B[I]) + ", " +
                hex(Z[I]) + "): device " + formatResult(C.Kind, Got[I]) + ", expected " +
                formatResult(C.Kind, Ref));
    }
    EXPECT_TRUE(Bad.result());
  }
}

LOOM_DIFF_LEVELS(AmdgcnBuiltins);

} // namespace
