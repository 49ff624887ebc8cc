//===- tests/emu/core/RoundModeTest.cpp - MODE.FP_ROUND -------------------===//
//
// f32 and f64 add, sub, mul, fma and conversions under each of the four
// rounding modes a kernel can set with s_setreg, against the host computing
// the same operations in the same rounding mode.
//
//===----------------------------------------------------------------------===//

#include "loom/emu/Module.h"

#include <gtest/gtest.h>

#include <cfenv>
#include <cmath>
#include <cstring>
#include <random>

#pragma STDC FENV_ACCESS ON

using namespace loom::emu;

namespace {

/// MODE round field -> host rounding mode.
constexpr int HostModes[] = {FE_TONEAREST, FE_UPWARD, FE_DOWNWARD,
                             FE_TOWARDZERO};
const char *const ModeNames[] = {"NearestEven", "Up", "Down", "TowardZero"};

/// Restores the host's rounding when a test ends.
struct Rounding {
  explicit Rounding(int Mode) : Saved(std::fegetround()) {
    std::fesetround(Mode);
  }
  ~Rounding() { std::fesetround(Saved); }
  int Saved;
};

struct RoundModeTest : ::testing::TestWithParam<std::tuple<int, unsigned>> {
  int level() const { return std::get<0>(GetParam()); }
  unsigned mode() const { return std::get<1>(GetParam()); }
  void SetUp() override {
    auto D = Device::create();
    ASSERT_TRUE(bool(D)) << llvm::toString(D.takeError());
    Dev = std::move(*D);
    auto M = Module::loadFile(*Dev, std::string(LOOM_EMU_CORE_DIR) +
                                        "/round_mode.O" +
                                        std::to_string(level()) + ".elf");
    ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
    Mod = std::move(*M);
  }
  std::unique_ptr<Device> Dev;
  std::unique_ptr<Module> Mod;
};

template <class T> bool sameBits(T A, T B) {
  return std::memcmp(&A, &B, sizeof(T)) == 0;
}

TEST_P(RoundModeTest, F32) {
  const unsigned N = 256;
  std::mt19937 Rng(7 + mode());
  std::uniform_real_distribution<float> Dist(-1e3f, 1e3f);
  DeviceBuffer A(*Dev, N * 4), B(*Dev, N * 4), K(*Dev, N * 4),
      Out(*Dev, N * 6 * 4);
  for (unsigned I = 0; I < N; ++I) {
    A.data<float>()[I] = Dist(Rng);
    B.data<float>()[I] = Dist(Rng) * 1e-3f;
    // Integers too wide for a float's 24 bits.
    K.data<int>()[I] = int(Rng() | 0x01000001u) * (I % 2 ? 1 : -1);
  }
  auto R = Mod->launch("arith_f32_" + std::to_string(mode()),
                       LaunchConfig::linear(N, 64),
                       KernelArgs()
                           .add(Out.address())
                           .add(A.address())
                           .add(B.address())
                           .add(K.address()));
  ASSERT_TRUE(R && R->ok());
  Rounding G(HostModes[mode()]);
  unsigned Inexact = 0;
  for (unsigned I = 0; I < N; ++I) {
    volatile float X = A.data<float>()[I], Y = B.data<float>()[I];
    volatile int Kv = K.data<int>()[I];
    float Want[6] = {X + Y, X - Y, X * Y, std::fma(float(X), float(Y), float(Y)),
                     float(Kv), float(unsigned(Kv))};
    for (unsigned J = 0; J < 6; ++J)
      ASSERT_TRUE(sameBits(Out.data<float>()[6 * I + J], Want[J]))
          << ModeNames[mode()] << " work-item " << I << " result " << J << ": "
          << Out.data<float>()[6 * I + J] << " vs " << Want[J];
    Inexact += double(X) + double(Y) != double(Want[0]);
  }
  EXPECT_GT(Inexact, N / 2); // the rounding was exercised
}

TEST_P(RoundModeTest, F64) {
  // At -O2 clang-22's SIModeRegister pass clears FP_ROUND bits before the
  // f64 operations (s_setreg_imm32_b32 hwreg(HW_REG_MODE, 2, 1), 0 after
  // the kernel set "up"), as the function's default FP environment says;
  // the emulator follows the code, so only -O0 keeps the mode the kernel
  // set.
  if (level() != 0)
    GTEST_SKIP() << "the -O2 code resets the f64 rounding mode itself";
  const unsigned N = 256;
  std::mt19937_64 Rng(11 + mode());
  std::uniform_real_distribution<double> Dist(-1e3, 1e3);
  DeviceBuffer A(*Dev, N * 8), B(*Dev, N * 8), Out(*Dev, N * 5 * 8);
  for (unsigned I = 0; I < N; ++I) {
    A.data<double>()[I] = Dist(Rng);
    B.data<double>()[I] = Dist(Rng) * 1e-7;
  }
  auto R = Mod->launch(
      "arith_f64_" + std::to_string(mode()), LaunchConfig::linear(N, 64),
      KernelArgs().add(Out.address()).add(A.address()).add(B.address()));
  ASSERT_TRUE(R && R->ok());
  Rounding G(HostModes[mode()]);
  for (unsigned I = 0; I < N; ++I) {
    volatile double X = A.data<double>()[I], Y = B.data<double>()[I];
    double Want[4] = {X + Y, X - Y, X * Y, std::fma(double(X), double(Y), double(Y))};
    for (unsigned J = 0; J < 4; ++J)
      ASSERT_TRUE(sameBits(Out.data<double>()[5 * I + J], Want[J]))
          << ModeNames[mode()] << " work-item " << I << " result " << J << ": "
          << Out.data<double>()[5 * I + J] << " vs " << Want[J];
    // v_cvt_f32_f64 rounds as the f32 field says.
    float Narrow = float(X);
    const float *Got = reinterpret_cast<const float *>(&Out.data<double>()[5 * I + 4]);
    ASSERT_TRUE(sameBits(Got[0], Narrow))
        << ModeNames[mode()] << " work-item " << I << " cvt_f32_f64";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Modes, RoundModeTest,
    ::testing::Combine(::testing::Values(0, 2), ::testing::Values(0u, 1u, 2u, 3u)),
    [](const auto &Info) {
      return std::string(ModeNames[std::get<1>(Info.param)]) + "_O" +
             std::to_string(std::get<0>(Info.param));
    });

} // namespace
