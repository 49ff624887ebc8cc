//===- ConvertTest.cpp - Integer and floating-point conversions -----------===//
#include "Convert.h"
#include "DiffHarness.h"

#include <cmath>

using namespace loom::emu;
using namespace loom::emu::difftest;

namespace {

constexpr uint32_t N = 2043;

class Convert : public LevelTest {};

// Values next to every range limit and rounding boundary of the
// conversions, with their neighbours one ulp away.
std::vector<float> floatBoundaries() {
  std::vector<float> V = f32EdgeValues();
  for (float B : {0x1p15f, 0x1p16f, 0x1p24f, 0x1p31f, 0x1p32f, 0x1p63f, 0x1p64f,
                  65504.0f, 65520.0f, 0x1p-14f, 0x1p-24f, 0x1p-25f, 0.5f, 1.5f}) {
    for (float S : {B, -B}) {
      V.push_back(S);
      V.push_back(std::nextafter(S, 0.0f));
      V.push_back(std::nextafter(S, S * 2));
    }
  }
  V.push_back(3 * 0x1p-26f); // rounds up to the smallest binary16 denormal
  V.push_back(-32768.5f);
  V.push_back(-32769.0f);
  V.push_back(0x1.ff8p15f); // binary16 max + half an ulp: overflows
  return V;
}

std::vector<double> doubleBoundaries() {
  std::vector<double> V = f64EdgeValues();
  for (double B : {0x1p24, 0x1p31, 0x1p32, 0x1p53, 0x1p63, 0x1p64,
                   0x1.fffffep127, 0x1p-126, 0x1p-149, 0x1p-150, 65504.0,
                   65520.0, 0x1p-24, 0x1p-25}) {
    for (double S : {B, -B}) {
      V.push_back(S);
      V.push_back(std::nextafter(S, 0.0));
      V.push_back(std::nextafter(S, S * 2));
    }
  }
  // Exact binary32 ties: 1 + 2^-24 rounds to 1, 1 + 3 * 2^-24 rounds up.
  V.push_back(1.0 + 0x1p-24);
  V.push_back(1.0 + 3 * 0x1p-24);
  V.push_back(1.0 + 0x1p-24 + 0x1p-52); // just above a tie
  V.push_back(0x1.fffffefffffffp127);   // rounds down to FLT_MAX
  V.push_back(0x1.ffffffp127);          // ties to even: overflows
  V.push_back(-2147483648.75);
  V.push_back(-2147483649.0);
  V.push_back(4294967295.5);
  return V;
}

std::vector<uint64_t> intBoundaries() {
  std::vector<uint64_t> V;
  for (uint64_t B : {1ull << 24, 1ull << 25, 1ull << 31, 1ull << 32, 1ull << 53,
                     1ull << 54, 1ull << 63}) {
    for (int64_t D = -3; D <= 3; ++D) {
      V.push_back(B + D);
      V.push_back(0 - (B + D));
    }
  }
  for (uint64_t X : {0ull, 1ull, ~0ull, 0x7fffffffffffffffull, 0x8000000000000001ull,
                     0xffffffff00000000ull, 0x00000000ffffffffull,
                     0x0000ffffffffff80ull, 0xfffffe0000000001ull,
                     0x7fffffc000000000ull, 0x8000008000000001ull})
    V.push_back(X);
  return V;
}

TEST_P(Convert, AllConversions) {
  static const char *const Names[] = {DIFF_CONVERT_OPS(DIFF_OP_NAME)};
  static const diff::OpKind Kinds[] = {DIFF_CONVERT_OPS(DIFF_OP_KIND)};
  constexpr size_t NOps = diff::ConvertOpCount;
  Module *M = loadModule("convert", level());
  ASSERT_TRUE(M);
  Device &Dev = *sharedDevice();

  Rng R(0x3001);
  std::vector<float> X = floatBoundaries();
  std::vector<double> D = doubleBoundaries();
  std::vector<uint64_t> I64 = intBoundaries();
  std::vector<uint16_t> H = f16EdgeValues();
  while (X.size() < N)
    X.push_back(R.below(2) ? randomF32(R)
                           : std::ldexp(static_cast<float>(R.range(-(1 << 24), 1 << 24)),
                                        static_cast<int>(R.range(-30, 50))));
  while (D.size() < N)
    D.push_back(R.below(2) ? randomF64(R)
                           : std::ldexp(static_cast<double>(R.next() >> 11) *
                                            (R.below(2) ? 1 : -1),
                                        static_cast<int>(R.range(-60, 12))));
  while (I64.size() < N)
    I64.push_back(R.below(2) ? R.next() : R.next() >> R.below(64));
  while (H.size() < N)
    H.push_back(randomF16(R));
  X.resize(N);
  D.resize(N);
  I64.resize(N);
  H.resize(N);

  auto DX = upload(Dev, X), DD = upload(Dev, D), DI = upload(Dev, I64),
       DH = upload(Dev, H);
  auto Out = filled<uint64_t>(Dev, size_t(N) * NOps, 0xccccccccccccccccull);
  ASSERT_TRUE(launchOk(*M, "convert_ops", LaunchConfig::linear(N, 64),
                       KernelArgs()
                           .add(Out->address())
                           .add(DX->address())
                           .add(DD->address())
                           .add(DI->address())
                           .add(DH->address())
                           .add(N)));
  std::vector<uint64_t> Expected(size_t(N) * NOps);
  for (uint32_t I = 0; I < N; ++I)
    diff::convertOps(X[I], D[I], I64[I], H[I], &Expected[size_t(I) * NOps]);
  std::vector<uint64_t> Got = download<uint64_t>(*Out, Expected.size());
  EXPECT_TRUE(compareOps<uint64_t>("convert_ops", Got, Expected, Names, Kinds, [&](size_t I) {
    char Buf[160];
    std::snprintf(Buf, sizeof(Buf), "f32 %a, f64 %a, int 0x%llx, f16 0x%04x",
                  static_cast<double>(X[I]), D[I],
                  static_cast<unsigned long long>(I64[I]), H[I]);
    return std::string(Buf);
  }));
}

LOOM_DIFF_LEVELS(Convert);

} // namespace
