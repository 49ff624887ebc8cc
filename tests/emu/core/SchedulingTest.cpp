//===- tests/emu/core/SchedulingTest.cpp - Work-groups that wait for others -===//
//
// Work-groups that spin on memory another work-group writes must let it run,
// on one host thread and on several, however the workers claim groups: the
// last group releasing the first, every group waiting for its predecessor,
// and every group waiting for its successor (all of them resident at once).
// Several host threads dispatching back to back share the device's worker
// pool, with more workers than cores too.
//
//===----------------------------------------------------------------------===//

#include "loom/emu/Module.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>

using namespace loom::emu;

namespace {

struct SchedulingTest : ::testing::TestWithParam<unsigned> {
  void SetUp() override {
    DeviceOptions O;
    O.Threads = GetParam();
    auto D = Device::create(O);
    ASSERT_TRUE(bool(D)) << llvm::toString(D.takeError());
    Dev = std::move(*D);
    auto M = Module::loadFile(
        *Dev, std::string(LOOM_EMU_CORE_DIR) + "/scheduling.O2.elf");
    ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
    Mod = std::move(*M);
  }
  DispatchResult run(llvm::StringRef Kernel, unsigned Groups, KernelArgs A) {
    auto R = Mod->launch(Kernel, LaunchConfig::linear(Groups * 64, 64), A);
    EXPECT_TRUE(bool(R)) << llvm::toString(R.takeError());
    return R ? *R : DispatchResult();
  }
  /// Runs \p Kernel over \p Groups groups taking turns; checks each group
  /// saw its turn come.
  void expectTurns(llvm::StringRef Kernel, unsigned Groups, bool Reverse) {
    DeviceBuffer Count(*Dev, 4), Seen(*Dev, Groups * 4);
    KernelArgs A;
    A.add(Count.address()).add(Seen.address());
    if (Reverse)
      A.add(Groups - 1);
    DispatchResult R = run(Kernel, Groups, A);
    ASSERT_TRUE(R.ok()) << R.FirstFault.Message;
    EXPECT_EQ(Count.data<unsigned>()[0], Groups);
    for (unsigned G = 0; G < Groups; ++G)
      ASSERT_EQ(Seen.data<unsigned>()[G], Reverse ? Groups - 1 - G : G)
          << "work-group " << G;
  }
  std::unique_ptr<Device> Dev;
  std::unique_ptr<Module> Mod;
};

TEST_P(SchedulingTest, FirstGroupWaitsForTheLast) {
  const unsigned Groups = 150;
  DeviceBuffer Flag(*Dev, 4), Out(*Dev, Groups * 64 * 4);
  DispatchResult R = run("wait_for_last", Groups,
                         KernelArgs()
                             .add(Flag.address())
                             .add(Out.address())
                             .add(Groups - 1));
  ASSERT_TRUE(R.ok()) << R.FirstFault.Message;
  for (unsigned I = 0; I < Groups * 64; ++I)
    ASSERT_EQ(Out.data<unsigned>()[I], I / 64) << "work-item " << I;
}

TEST_P(SchedulingTest, GroupsWaitForTheirPredecessors) {
  expectTurns("in_order", 300, /*Reverse=*/false);
}

TEST_P(SchedulingTest, GroupsWaitForTheirSuccessors) {
  // Every group must be resident at once: fewer than a worker keeps.
  expectTurns("reverse_order", 24, /*Reverse=*/true);
}

INSTANTIATE_TEST_SUITE_P(Threads, SchedulingTest, ::testing::Values(1u, 2u, 4u),
                         [](const auto &Info) {
                           return std::to_string(Info.param) + "_threads";
                         });

/// Dispatches that start while pool threads still finish the one before,
/// or find it over, from three host threads at once: every group of every
/// dispatch runs once, in its turn, and each dispatch ends only after its
/// groups (the host reads the results right after).
struct SharedPoolTest : SchedulingTest {};

TEST_P(SharedPoolTest, BackToBackDispatchesFromSeveralThreads) {
  constexpr unsigned Dispatchers = 3, Rounds = 100, Groups = 24;
  std::atomic<unsigned> Wrong{0};
  std::vector<std::thread> Threads;
  for (unsigned T = 0; T < Dispatchers; ++T)
    Threads.emplace_back([&] {
      DeviceBuffer Count(*Dev, 4), Seen(*Dev, Groups * 4);
      for (unsigned R = 0; R < Rounds; ++R) {
        std::memset(Count.data(), 0, 4);
        std::memset(Seen.data(), 0xff, Groups * 4);
        auto Res = Mod->launch(
            "in_order", LaunchConfig::linear(Groups * 64, 64),
            KernelArgs().add(Count.address()).add(Seen.address()));
        bool Ok = Res && Res->ok() && Count.data<unsigned>()[0] == Groups;
        for (unsigned G = 0; Ok && G < Groups; ++G)
          Ok = Seen.data<unsigned>()[G] == G;
        if (!Res)
          llvm::consumeError(Res.takeError());
        Wrong += !Ok;
      }
    });
  for (std::thread &T : Threads)
    T.join();
  EXPECT_EQ(Wrong.load(), 0u) << "of " << Dispatchers * Rounds << " dispatches";
}

INSTANTIATE_TEST_SUITE_P(Threads, SharedPoolTest, ::testing::Values(2u, 16u),
                         [](const auto &Info) {
                           return std::to_string(Info.param) + "_threads";
                         });

} // namespace
