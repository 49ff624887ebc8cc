//===- tests/emu/core/TraceCompilerTest.cpp - The trace compiler -------===//
//
// Compiled traces against the interpreter: the same kernels on a device
// that compiles every trace on first use and on one that never compiles,
// with results and counters compared exactly, and a host reference. The
// differential and random corpora run under the trace compiler too (ctest
// -R '^trace\.').
//
//===----------------------------------------------------------------------===//

#include "loom/emu/Module.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace loom::emu;

namespace {

std::string fixture(int Level) {
  return std::string(LOOM_EMU_CORE_DIR) + "/traces.O" + std::to_string(Level) +
         ".elf";
}

/// The host version of kernel `mix`.
void mixReference(unsigned In, int Iters, unsigned &U0, unsigned &U1,
                  float &F) {
  unsigned X = In, Y = X * 2654435761u + 12345u;
  volatile float Fv = float(X & 1023u) * 0.25f, H = 1.5f;
  unsigned long long Acc = X;
  for (int I = 0; I < Iters; ++I) {
    if (X & 1u)
      X = X * 3u + 1u;
    else if (X & 2u)
      X ^= X >> 3;
    else
      X = (X >> 1) + 7u;
    Y = (Y << 3) | (Y >> 29);
    Y -= X;
    Acc += (unsigned long long)Y * 7u;
    if (int(Y) < int(X)) {
      float P = Fv * 0.999f;
      Fv = P + H;
    } else {
      float P = 0.5f * H;
      Fv = Fv - P;
    }
    H = __builtin_fmaf(H, 1.0001f, -0.0001f);
  }
  U0 = X ^ unsigned(Acc);
  U1 = unsigned(Acc >> 32) + Y;
  F = Fv + H;
}

/// A device whose traces compile after \p Threshold runs (counters as
/// \p Count says), with code object \p Path loaded; both null, and the
/// test failed, if either cannot be made.
struct Loaded {
  std::unique_ptr<Device> Dev;
  std::unique_ptr<Module> Mod;
};
Loaded load(const std::string &Path, uint32_t Threshold, bool Count = false,
            unsigned Threads = 0) {
  DeviceOptions O;
  O.TraceThreshold = Threshold;
  O.CollectCounters = Count;
  O.Threads = Threads;
  auto D = Device::create(O);
  if (!D) {
    ADD_FAILURE() << llvm::toString(D.takeError());
    return {};
  }
  auto M = Module::loadFile(**D, Path);
  if (!M) {
    ADD_FAILURE() << llvm::toString(M.takeError());
    return {};
  }
  return {std::move(*D), std::move(*M)};
}

/// `mix` on \p N work-items of a device: its output and input buffers
/// (input I is I * 0x9e3779b9 + 17), launched as often as a test needs.
struct MixLaunch {
  unsigned N;
  DeviceBuffer OutU, OutF, In;
  MixLaunch(Device &Dev, unsigned N)
      : N(N), OutU(Dev, N * 8), OutF(Dev, N * 4), In(Dev, N * 4) {
    for (unsigned I = 0; I < N; ++I)
      In.data<unsigned>()[I] = I * 0x9e3779b9u + 17u;
  }
  llvm::Expected<DispatchResult> run(Module &Mod, int Iters) {
    return Mod.launch("mix", LaunchConfig::linear(N, 64),
                      KernelArgs()
                          .add(OutU.address())
                          .add(OutF.address())
                          .add(In.address())
                          .add(Iters));
  }
};

struct MixRun {
  std::vector<unsigned> U;
  std::vector<float> F;
  DispatchResult R;
};

class TraceCompilerTest : public ::testing::TestWithParam<int> {
protected:
  /// Runs `mix` on a device with the given trace threshold and counters.
  MixRun mix(uint32_t Threshold, bool Count, unsigned N, int Iters) {
    Loaded L = load(fixture(GetParam()), Threshold, Count, /*Threads=*/2);
    if (!L.Mod)
      return {};
    MixLaunch M(*L.Dev, N);
    auto R = M.run(*L.Mod, Iters);
    EXPECT_TRUE(bool(R)) << llvm::toString(R.takeError());
    MixRun Out;
    Out.U.assign(M.OutU.data<unsigned>(), M.OutU.data<unsigned>() + 2 * N);
    Out.F.assign(M.OutF.data<float>(), M.OutF.data<float>() + N);
    if (R)
      Out.R = *R;
    return Out;
  }
};

TEST_P(TraceCompilerTest, CompiledTracesMatchTheHostAndTheInterpreter) {
  const unsigned N = 64 * 8;
  const int Iters = 300;
  uint64_t CompiledBefore = traceCompilerStats().Compiled;
  MixRun Compiled = mix(/*Threshold=*/1, /*Count=*/false, N, Iters);
  ASSERT_TRUE(Compiled.R.ok()) << Compiled.R.FirstFault.Message;
  MixRun Interpreted = mix(/*Threshold=*/0, /*Count=*/false, N, Iters);
  ASSERT_TRUE(Interpreted.R.ok()) << Interpreted.R.FirstFault.Message;
  // The loop's traces were compiled (or found compiled by an earlier test).
  TraceCompilerStats After = traceCompilerStats();
  EXPECT_GT(After.Compiled + After.Reused, CompiledBefore);

  for (unsigned I = 0; I < N; ++I) {
    unsigned U0, U1;
    float F;
    mixReference(I * 0x9e3779b9u + 17u, Iters, U0, U1, F);
    ASSERT_EQ(Compiled.U[2 * I], U0) << "work-item " << I;
    ASSERT_EQ(Compiled.U[2 * I + 1], U1) << "work-item " << I;
    ASSERT_EQ(std::memcmp(&Compiled.F[I], &F, 4), 0)
        << "work-item " << I << ": " << Compiled.F[I] << " vs " << F;
  }
  EXPECT_EQ(Compiled.U, Interpreted.U);
  EXPECT_EQ(std::memcmp(Compiled.F.data(), Interpreted.F.data(), N * 4), 0);
}

TEST_P(TraceCompilerTest, CountersAreTheInterpretersCounters) {
  const unsigned N = 64 * 4;
  const int Iters = 100;
  MixRun Compiled = mix(/*Threshold=*/1, /*Count=*/true, N, Iters);
  MixRun Interpreted = mix(/*Threshold=*/0, /*Count=*/true, N, Iters);
  ASSERT_TRUE(Compiled.R.ok() && Interpreted.R.ok());
  EXPECT_EQ(Compiled.U, Interpreted.U);
  const DispatchCounters &C = Compiled.R.Counters, &I = Interpreted.R.Counters;
  EXPECT_EQ(C.WaveInstructions, I.WaveInstructions);
  EXPECT_EQ(C.ActiveLaneInstructions, I.ActiveLaneInstructions);
  EXPECT_EQ(C.byOpcode(), I.byOpcode());
  EXPECT_EQ(C.blockEntries(), I.blockEntries());
  ASSERT_EQ(C.Instructions.size(), I.Instructions.size());
  for (size_t K = 0; K < C.Instructions.size(); ++K) {
    EXPECT_EQ(C.Instructions[K].Offset, I.Instructions[K].Offset);
    EXPECT_EQ(C.Instructions[K].WaveExecutions, I.Instructions[K].WaveExecutions)
        << C.Instructions[K].Function << "+" << C.Instructions[K].Offset;
    EXPECT_EQ(C.Instructions[K].ActiveLanes, I.Instructions[K].ActiveLanes)
        << C.Instructions[K].Function << "+" << C.Instructions[K].Offset;
  }
}

// Workers count a cold trace's runs in tallies of their own and add them
// to the trace in batches (threshold / 1024 runs: 64 here) and when they
// leave a dispatch: the trace compiles in the dispatch whose runs reach the
// threshold (by 40 runs, fewer than the workers' tallies hold then), not
// before.
TEST_P(TraceCompilerTest, TracesCompileWhenTheirRunsOverAllWorkersReachTheThreshold) {
  const unsigned N = 64 * 8; // 8 waves: a loop trace runs 8 x Iters times
  const int Iters = 1367;
  Loaded L = load(fixture(GetParam()), /*Threshold=*/65576, /*Count=*/false,
                  /*Threads=*/2);
  ASSERT_TRUE(L.Mod);
  MixLaunch M(*L.Dev, N);
  auto Dispatch = [&] {
    auto R = M.run(*L.Mod, Iters);
    ASSERT_TRUE(R && R->ok());
  };
  auto Traces = [] {
    TraceCompilerStats S = traceCompilerStats();
    return S.Compiled + S.Reused;
  };
  uint64_t Before = Traces();
  for (int K = 0; K < 5; ++K) // 54,680 runs of the loop's traces
    Dispatch();
  EXPECT_EQ(Traces(), Before) << "compiled before the threshold";
  Dispatch(); // 65,616
  EXPECT_GT(Traces(), Before) << "not compiled at the threshold";
}

TEST_P(TraceCompilerTest, NonDefaultFloatModeStaysInterpreted) {
  const unsigned N = 64 * 2;
  const int Iters = 50;
  auto Input = [](unsigned I) { return 1e-42f * float(I + 1); }; // denormal
  auto RunOn = [&](uint32_t Threshold) {
    Loaded L = load(fixture(GetParam()), Threshold);
    if (!L.Mod)
      return std::vector<float>(N);
    DeviceBuffer Out(*L.Dev, N * 4), In(*L.Dev, N * 4);
    for (unsigned I = 0; I < N; ++I)
      In.data<float>()[I] = Input(I);
    auto R = L.Mod->launch(
        "flush_denormals", LaunchConfig::linear(N, 64),
        KernelArgs().add(Out.address()).add(In.address()).add(Iters));
    EXPECT_TRUE(R && R->ok());
    return std::vector<float>(Out.data<float>(), Out.data<float>() + N);
  };
  std::vector<float> Compiled = RunOn(1), Interpreted = RunOn(0);
  for (unsigned I = 0; I < N; ++I) {
    // Every input, product and sum is a denormal, flushed to zero.
    EXPECT_EQ(Interpreted[I], 0.0f) << "work-item " << I;
    ASSERT_EQ(std::memcmp(&Compiled[I], &Interpreted[I], 4), 0)
        << "work-item " << I << ": " << Compiled[I] << " vs "
        << Interpreted[I];
  }
  // Kept denormals, as the host computes, would not be zero.
  volatile float S = Input(0), T = S * 0.75f;
  for (int K = 0; K < Iters; ++K) {
    float P = S * 1.0625f;
    S = P + 1e-41f;
    float Q = T * 0.5f;
    T = Q + S;
  }
  EXPECT_NE(S + T, 0.0f);
}

TEST_P(TraceCompilerTest, BitfieldInsertsMatchTheHost) {
  const unsigned N = 64 * 2;
  const int Iters = 64;
  Loaded L = load(fixture(GetParam()), /*Threshold=*/1);
  ASSERT_TRUE(L.Mod);
  DeviceBuffer Out(*L.Dev, N * 4), A(*L.Dev, N * 4), B(*L.Dev, N * 4);
  for (unsigned I = 0; I < N; ++I) {
    A.data<float>()[I] = (I % 3 ? 1.0f : -1.0f) * (0.5f + float(I));
    B.data<float>()[I] = (I % 2 ? 1.0f : -1.0f) * (2.0f + float(I));
  }
  auto R = L.Mod->launch("copy_signs", LaunchConfig::linear(N, 64),
                        KernelArgs()
                            .add(Out.address())
                            .add(A.address())
                            .add(B.address())
                            .add(Iters));
  ASSERT_TRUE(R && R->ok());
  for (unsigned I = 0; I < N; ++I) {
    volatile float X = A.data<float>()[I], Y = B.data<float>()[I];
    for (int K = 0; K < Iters; ++K) {
      X = std::copysign(float(X), float(Y)) * 1.0009765625f;
      Y = std::copysign(float(Y), -float(X));
    }
    float Want = X + Y;
    ASSERT_EQ(std::memcmp(&Out.data<float>()[I], &Want, 4), 0)
        << "work-item " << I << ": " << Out.data<float>()[I] << " vs " << Want;
  }
}

TEST_P(TraceCompilerTest, SixtyFourBitCollatzMatchesTheHost) {
  const unsigned N = 64 * 4;
  const uint64_t Start = 0x2000000123ull; // above 2^32: the high dwords work
  const int Limit = 400;
  for (uint32_t Threshold : {0u, 1u}) {
    Loaded L = load(fixture(GetParam()), Threshold);
    ASSERT_TRUE(L.Mod);
    DeviceBuffer Out(*L.Dev, N * 8);
    auto R = L.Mod->launch(
        "collatz64", LaunchConfig::linear(N, 64),
        KernelArgs().add(Out.address()).add(Start).add(Limit));
    ASSERT_TRUE(R && R->ok());
    for (unsigned I = 0; I < N; ++I) {
      uint64_t X = Start + I;
      int Steps = 0;
      while (X != 1 && Steps < Limit) {
        X = (X & 1) ? 3 * X + 1 : X >> 1;
        ++Steps;
      }
      ASSERT_EQ(Out.data<unsigned>()[2 * I], unsigned(Steps))
          << "threshold " << Threshold << ", work-item " << I;
      ASSERT_EQ(Out.data<unsigned>()[2 * I + 1],
                unsigned(X >> 17) ^ unsigned(X))
          << "threshold " << Threshold << ", work-item " << I;
    }
  }
}

// The trace LLVM 22.1's AVX-512 code generator got wrong (TraceCompiler.cpp): kept
// exact by compiling for AVX2.
TEST(TraceCompiler, BitfieldInsertWithAConstantMask) {
  Loaded L = load(std::string(LOOM_EMU_CORE_DIR) + "/trace_bfi.elf",
                  /*Threshold=*/1);
  ASSERT_TRUE(L.Mod);
  DeviceBuffer Out(*L.Dev, 64 * 4), A(*L.Dev, 64 * 4), B(*L.Dev, 64 * 4);
  TraceCompilerStats Before = traceCompilerStats();
  for (unsigned I = 0; I < 64; ++I) {
    A.data<unsigned>()[I] = 0x545078d8u + I * 0x01010101u;
    B.data<unsigned>()[I] = 0x549c5aa2u ^ (I << 27);
  }
  auto R = L.Mod->launch(
      "bfi_const_mask", LaunchConfig::linear(64, 64),
      KernelArgs().add(Out.address()).add(A.address()).add(B.address()));
  if (!R)
    FAIL() << llvm::toString(R.takeError());
  ASSERT_TRUE(R->ok()) << R->FirstFault.Message;
  TraceCompilerStats After = traceCompilerStats();
  EXPECT_GT(After.Compiled + After.Reused, Before.Compiled + Before.Reused);
  for (unsigned I = 0; I < 64; ++I) {
    unsigned X = A.data<unsigned>()[I], Y = B.data<unsigned>()[I];
    for (int K = 0; K < 100; ++K) {
      X += 0x9e3779b9u;
      Y = (X & 0x7fffffffu) | (Y & 0x80000000u);
    }
    ASSERT_EQ(Out.data<unsigned>()[I], Y) << "lane " << I;
  }
}

INSTANTIATE_TEST_SUITE_P(Levels, TraceCompilerTest, ::testing::Values(0, 2),
                         [](const auto &Info) {
                           return "O" + std::to_string(Info.param);
                         });

} // namespace
