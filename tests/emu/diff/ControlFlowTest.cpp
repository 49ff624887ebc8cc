//===- ControlFlowTest.cpp - Divergence, loops, calls and recursion -------===//
#include "ControlFlow.h"
#include "DiffHarness.h"

#include <algorithm>

using namespace loom::emu;
using namespace loom::emu::difftest;

namespace {

constexpr uint32_t N = 1021;

class ControlFlow : public LevelTest {};

TEST_P(ControlFlow, DivergentOps) {
  static const char *const Names[] = {DIFF_CONTROL_OPS(DIFF_OP_NAME)};
  static const diff::OpKind Kinds[] = {DIFF_CONTROL_OPS(DIFF_OP_KIND)};
  constexpr size_t NOps = diff::ControlOpCount;
  Module *M = loadModule("control", level());
  ASSERT_TRUE(M);
  Device &Dev = *sharedDevice();
  U32Pairs In = int32Inputs(N, 0x5001);
  auto A = upload(Dev, In.A), B = upload(Dev, In.B);
  auto Out = filled<uint64_t>(Dev, size_t(N) * NOps, 0xccccccccccccccccull);
  LaunchConfig Config = LaunchConfig::linear(N, 64);
  // Recursion makes the stack size unknown to the compiler: give each
  // work-item 16 KiB more, as hipDeviceSetLimit(hipLimitStackSize) would.
  Config.ExtraPrivateBytes = 16384;
  ASSERT_TRUE(launchOk(*M, "control_ops", Config,
                       KernelArgs()
                           .add(Out->address())
                           .add(A->address())
                           .add(B->address())
                           .add(N)));
  std::vector<uint64_t> Expected(size_t(N) * NOps);
  for (uint32_t I = 0; I < N; ++I)
    diff::controlOps(In.A[I], In.B[I], &Expected[size_t(I) * NOps]);
  std::vector<uint64_t> Got = download<uint64_t>(*Out, Expected.size());
  EXPECT_TRUE(compareOps<uint64_t>("control_ops", Got, Expected, Names, Kinds, [&](size_t I) {
    return hex(In.A[I]) + ", " + hex(In.B[I]);
  }));
}

TEST_P(ControlFlow, BinarySearch) {
  Module *M = loadModule("control", level());
  ASSERT_TRUE(M);
  Device &Dev = *sharedDevice();
  Rng R(0x5002);
  std::vector<uint32_t> Sorted(1000);
  for (uint32_t &V : Sorted)
    V = R.next32();
  std::sort(Sorted.begin(), Sorted.end());
  std::vector<uint32_t> Keys(N);
  for (uint32_t I = 0; I < N; ++I)
    Keys[I] = I % 2 ? Sorted[R.below(Sorted.size())] : R.next32();
  auto DS = upload(Dev, Sorted), DK = upload(Dev, Keys);
  auto Out = filled<uint32_t>(Dev, N, 0xcccccccc);
  ASSERT_TRUE(launchOk(*M, "binary_search", LaunchConfig::linear(N, 64),
                       KernelArgs()
                           .add(Out->address())
                           .add(DS->address())
                           .add(static_cast<uint32_t>(Sorted.size()))
                           .add(DK->address())
                           .add(N)));
  std::vector<uint32_t> Got = download<uint32_t>(*Out, N);
  Mismatches Bad("binary_search");
  for (uint32_t I = 0; I < N; ++I) {
    uint32_t Ref = diff::binarySearch(Sorted.data(), Sorted.size(), Keys[I]);
    if (Got[I] != Ref)
      Bad.add("key " + hex(Keys[I]) + ": device " + hex(Got[I]) + ", host " + hex(Ref));
  }
  EXPECT_TRUE(Bad.result());
}

LOOM_DIFF_LEVELS(ControlFlow);

} // namespace
