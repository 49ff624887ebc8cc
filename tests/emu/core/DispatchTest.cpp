//===- tests/emu/core/DispatchTest.cpp - Dispatch ABI, faults, counters ---===//

#include "loom/emu/Module.h"

#include <gtest/gtest.h>

#include <numeric>

using namespace loom::emu;

namespace {

std::string smoke(int Level) {
  return std::string(LOOM_EMU_CORE_DIR) + "/smoke.O" + std::to_string(Level) +
         ".elf";
}

struct DispatchTest : ::testing::TestWithParam<int> {
  void SetUp() override {
    auto D = Device::create();
    ASSERT_TRUE(bool(D)) << llvm::toString(D.takeError());
    Dev = std::move(*D);
    auto M = Module::loadFile(*Dev, smoke(GetParam()));
    ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
    Mod = std::move(*M);
  }
  DispatchResult run(llvm::StringRef Kernel, LaunchConfig C, KernelArgs A) {
    auto R = Mod->launch(Kernel, C, A);
    EXPECT_TRUE(bool(R)) << llvm::toString(R.takeError());
    return R ? *R : DispatchResult();
  }
  std::unique_ptr<Device> Dev;
  std::unique_ptr<Module> Mod;
};

TEST_P(DispatchTest, WorkItemAndWorkGroupIds) {
  const unsigned N = 64 * 37; // 37 work-groups of one wave
  DeviceBuffer Out(*Dev, N * 4);
  DispatchResult R = run("write_ids", LaunchConfig::linear(N, 64),
                         KernelArgs().add(Out.address()));
  ASSERT_TRUE(R.ok()) << R.FirstFault.Message;
  for (unsigned I = 0; I < N; ++I)
    ASSERT_EQ(Out.data<unsigned>()[I], I) << "work-item " << I;
  EXPECT_EQ(R.Counters.Workgroups, 37u);
  EXPECT_EQ(R.Counters.Waves, 37u);
}

TEST_P(DispatchTest, LoadsAndStoresThroughArguments) {
  const unsigned N = 64 * 8;
  DeviceBuffer Out(*Dev, N * 4), In(*Dev, N * 4);
  for (unsigned I = 0; I < N; ++I)
    In.data<unsigned>()[I] = I * 2654435761u;
  DispatchResult R =
      run("shift_copy", LaunchConfig::linear(N, 64),
          KernelArgs().add(Out.address()).add(In.address()));
  ASSERT_TRUE(R.ok()) << R.FirstFault.Message;
  for (unsigned I = 0; I < N; ++I)
    ASSERT_EQ(Out.data<unsigned>()[I], (I * 2654435761u) << 2);
}

TEST_P(DispatchTest, StoreToUnregisteredMemoryIsAFault) {
  uint64_t Wild = 0x7f0000000000ull;
  DispatchResult R = run("store_to", LaunchConfig::linear(64, 64),
                         KernelArgs().add(Wild));
  ASSERT_EQ(R.Status, DispatchStatus::MemoryFault);
  EXPECT_EQ(R.FirstFault.Address, Wild);
  EXPECT_TRUE(R.FirstFault.IsWrite);
  EXPECT_EQ(R.FirstFault.Function, "store_to");
  EXPECT_NE(R.FirstFault.Message.find("store_to"), std::string::npos);
  // The device lives on.
  DeviceBuffer Out(*Dev, 64 * 4);
  DispatchResult Ok = run("store_to", LaunchConfig::linear(64, 64),
                          KernelArgs().add(Out.address()));
  EXPECT_TRUE(Ok.ok()) << Ok.FirstFault.Message;
}

TEST_P(DispatchTest, TrapIsReported) {
  DeviceBuffer Out(*Dev, 4);
  DispatchResult R = run("trap_now", LaunchConfig::linear(64, 64),
                         KernelArgs().add(Out.address()));
  EXPECT_EQ(R.Status, DispatchStatus::Trap);
  EXPECT_EQ(R.FirstFault.Function, "trap_now");
}

TEST_P(DispatchTest, CountersMatchTheStraightLineKernel) {
  // write_ids is straight-line code: every wave runs each instruction once.
  // At -O0 clang spills the argument through scratch with flat instructions,
  // so the memory traffic is checked against the access record rather than
  // against one opcode list.
  DeviceOptions Options;
  Options.RecordMemoryAccesses = true;
  auto D = Device::create(Options);
  ASSERT_TRUE(bool(D)) << llvm::toString(D.takeError());
  auto M = Module::loadFile(**D, smoke(GetParam()));
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());

  const unsigned Groups = 5;
  DeviceBuffer Out(**D, Groups * 64 * 4);
  auto Launched = (*M)->launch("write_ids",
                               LaunchConfig::linear(Groups * 64, 64),
                               KernelArgs().add(Out.address()));
  ASSERT_TRUE(bool(Launched)) << llvm::toString(Launched.takeError());
  const DispatchResult &R = *Launched;
  ASSERT_TRUE(R.ok()) << R.FirstFault.Message;
  ASSERT_FALSE(R.Counters.Instructions.empty());
  for (const InstructionCount &I : R.Counters.Instructions) {
    EXPECT_EQ(I.Function, "write_ids");
    EXPECT_EQ(I.WaveExecutions, Groups) << I.Opcode;
  }
  EXPECT_EQ(R.Counters.byOpcode().at("S_ENDPGM"), Groups);
  EXPECT_EQ(R.Counters.byOpcode().at("S_LOAD_DWORDX2_IMM"), Groups);
  EXPECT_EQ(R.Counters.blockEntries().at("write_ids+0x0"), Groups);

  // Bytes counted == bytes in the access record; every output word is
  // written exactly once by a global (or flat-global) store.
  uint64_t RecordedBytes = 0;
  std::vector<unsigned> Writes(Groups * 64, 0);
  for (const MemoryAccessRecord &A : R.Counters.Accesses) {
    RecordedBytes += uint64_t(A.BytesPerLane) * A.Addresses.size();
    if (!A.IsWrite || A.Space != 0)
      continue;
    for (uint64_t Addr : A.Addresses) {
      ASSERT_GE(Addr, Out.address());
      ASSERT_LT(Addr, Out.address() + Groups * 64 * 4);
      ++Writes[(Addr - Out.address()) / 4];
    }
  }
  EXPECT_EQ(R.Counters.MemoryBytes, RecordedBytes);
  EXPECT_EQ(R.Counters.MemoryInstructions, R.Counters.Accesses.size());
  for (unsigned I = 0; I < Writes.size(); ++I)
    EXPECT_EQ(Writes[I], 1u) << "word " << I;
}

INSTANTIATE_TEST_SUITE_P(OptLevels, DispatchTest, ::testing::Values(0, 2),
                         [](const auto &Info) {
                           return "O" + std::to_string(Info.param);
                         });

} // namespace
