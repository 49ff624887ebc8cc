//===- FaultsTest.cpp - Faulting kernels end in a reported fault ----------===//
//
// Each test uses a device of its own, checks the fault the dispatch reports
// (status, address, access kind, function, instruction), then runs a good
// kernel on the same device to show the fault did not wedge it.
//
//===----------------------------------------------------------------------===//
#include "DiffHarness.h"

#include "loom/emu/Memory.h"

using namespace loom::emu;
using namespace loom::emu::difftest;

namespace {

class Faults : public LevelTest {
protected:
  void SetUp() override {
    auto D = Device::create(deviceOptions());
    ASSERT_TRUE(static_cast<bool>(D)) << llvm::toString(D.takeError());
    Dev = std::move(*D);
    auto Mod = Module::loadFile(*Dev, kernelPath("faults", level()));
    ASSERT_TRUE(static_cast<bool>(Mod)) << llvm::toString(Mod.takeError());
    M = std::move(*Mod);
  }
  void TearDown() override {
    M.reset();
    Dev.reset();
  }

  DispatchResult run(llvm::StringRef Kernel, const KernelArgs &Args) {
    auto R = M->launch(Kernel, LaunchConfig::linear(64, 64), Args);
    if (!R) {
      ADD_FAILURE() << Kernel.str() << ": " << llvm::toString(R.takeError());
      return {};
    }
    return std::move(*R);
  }

  void expectFaultAt(const DispatchResult &R, DispatchStatus Status,
                     llvm::StringRef Function, llvm::StringRef Mnemonic) {
    EXPECT_EQ(R.Status, Status) << dispatchStatusName(R.Status).str();
    EXPECT_FALSE(R.ok());
    const Fault &F = R.FirstFault;
    EXPECT_EQ(F.Status, Status);
    EXPECT_EQ(F.Function, Function.str());
    EXPECT_GE(F.Pc, M->base());
    EXPECT_LT(F.Pc, M->base() + M->size());
    auto Entry = M->symbolAddress(Function);
    ASSERT_TRUE(Entry.has_value()) << Function.str();
    EXPECT_EQ(F.Offset, F.Pc - *Entry);
    EXPECT_NE(F.Instruction.find(Mnemonic.str()), std::string::npos)
        << "instruction: " << F.Instruction;
    EXPECT_FALSE(F.Message.empty());
  }

  // The device still runs a well-behaved kernel after the fault.
  void expectDeviceStillWorks() {
    constexpr uint32_t N = 300;
    DeviceBuffer Out(*Dev, N * 4);
    auto R = M->launch("fill_ids", LaunchConfig::linear(N, 64),
                       KernelArgs().add(Out.address()).add(N));
    ASSERT_TRUE(static_cast<bool>(R)) << llvm::toString(R.takeError());
    ASSERT_TRUE(R->ok()) << R->FirstFault.Message;
    for (uint32_t I = 0; I < N; ++I)
      ASSERT_EQ(Out.data<uint32_t>()[I], I * 3 + 1) << "item " << I;
  }

  std::unique_ptr<Device> Dev;
  std::unique_ptr<Module> M;
};

TEST_P(Faults, OutOfBoundsStore) {
  DeviceBuffer Buf(*Dev, 256);
  // 1 TiB past a 256-byte buffer: nowhere near registered memory.
  uint64_t Index = (1ull << 40) / 4;
  uint64_t Bad = Buf.address() + Index * 4;
  ASSERT_FALSE(Dev->memory().check(Bad, 4, AccessWrite));
  DispatchResult R = run("store_at", KernelArgs().add(Buf.address()).add(Index));
  expectFaultAt(R, DispatchStatus::MemoryFault, "store_at", "store");
  EXPECT_EQ(R.FirstFault.Address, Bad);
  EXPECT_TRUE(R.FirstFault.IsWrite);
  expectDeviceStillWorks();
}

TEST_P(Faults, WildPointerRead) {
  DeviceBuffer Out(*Dev, 256);
  // Below the lowest address Linux maps: never registered.
  const uint64_t Wild = 0x10000;
  ASSERT_FALSE(Dev->memory().check(Wild, 4, AccessRead));
  DispatchResult R = run("load_from", KernelArgs().add(Out.address()).add(Wild));
  expectFaultAt(R, DispatchStatus::MemoryFault, "load_from", "load");
  EXPECT_EQ(R.FirstFault.Address, Wild);
  EXPECT_FALSE(R.FirstFault.IsWrite);
  expectDeviceStillWorks();
}

TEST_P(Faults, Trap) {
  DeviceBuffer Out(*Dev, 64 * 4);
  DispatchResult R = run("trap_now", KernelArgs().add(Out.address()));
  expectFaultAt(R, DispatchStatus::Trap, "trap_now", "s_trap");
  expectDeviceStillWorks();
}

TEST_P(Faults, StoreInDeviceFunction) {
  const uint64_t Wild = 0x20000;
  ASSERT_FALSE(Dev->memory().check(Wild, 4, AccessWrite));
  DispatchResult R = run("store_in_callee", KernelArgs().add(Wild));
  expectFaultAt(R, DispatchStatus::MemoryFault, "faulting_callee", "store");
  EXPECT_EQ(R.FirstFault.Address, Wild);
  EXPECT_TRUE(R.FirstFault.IsWrite);
  expectDeviceStillWorks();
}

TEST_P(Faults, FirstLanePastTheEndOfABuffer) {
  DeviceBuffer Buf(*Dev, 10 * 4);
  DispatchResult R = run("store_lanes", KernelArgs().add(Buf.address()));
  expectFaultAt(R, DispatchStatus::MemoryFault, "store_lanes", "store");
  EXPECT_EQ(R.FirstFault.Address, Buf.address() + 10 * 4);
  EXPECT_TRUE(R.FirstFault.IsWrite);
  expectDeviceStillWorks();
}

TEST_P(Faults, InactiveLanesPastTheEndDoNotFault) {
  DeviceBuffer Buf(*Dev, 10 * 4);
  DispatchResult R = run("store_lanes_below",
                         KernelArgs().add(Buf.address()).add(uint32_t(10)));
  ASSERT_TRUE(R.ok()) << R.FirstFault.Message;
  for (uint32_t I = 0; I < 10; ++I)
    EXPECT_EQ(Buf.data<uint32_t>()[I], I);
}

TEST_P(Faults, LanesSpreadOverManyBuffersAreEachChecked) {
  // Six buffers of 11 words take lanes 0..63; then buffer 3 shrinks to 10
  // words and lane 63 (word 10 of buffer 3) is the one out of range.
  for (uint32_t Short : {6u, 3u}) {
    std::vector<DeviceBuffer> Bufs;
    DeviceBuffer Table(*Dev, 6 * 8);
    for (uint32_t K = 0; K < 6; ++K) {
      Bufs.emplace_back(*Dev, (K == Short ? 10 : 11) * 4);
      Table.data<uint64_t>()[K] = Bufs.back().address();
    }
    DispatchResult R = run("store_spread", KernelArgs().add(Table.address()));
    if (Short == 6) {
      ASSERT_TRUE(R.ok()) << R.FirstFault.Message;
      for (uint32_t L = 0; L < 64; ++L)
        EXPECT_EQ(Bufs[L % 6].data<uint32_t>()[L / 6], L) << "lane " << L;
      continue;
    }
    expectFaultAt(R, DispatchStatus::MemoryFault, "store_spread", "store");
    EXPECT_EQ(R.FirstFault.Address, Bufs[3].address() + 10 * 4);
  }
  expectDeviceStillWorks();
}

TEST_P(Faults, WriteToReadOnlyMemory) {
  // The wave has just read the range (and keeps it at hand): the write
  // still needs the write right.
  std::vector<uint32_t> Host(64, 7);
  Dev->memory().add(Host.data(), Host.size() * 4, AccessRead);
  DispatchResult R = run("increment_lanes",
                         KernelArgs().add(reinterpret_cast<uint64_t>(Host.data())));
  Dev->memory().remove(Host.data());
  expectFaultAt(R, DispatchStatus::MemoryFault, "increment_lanes", "store");
  EXPECT_EQ(R.FirstFault.Address, reinterpret_cast<uint64_t>(Host.data()));
  EXPECT_TRUE(R.FirstFault.IsWrite);
  EXPECT_EQ(Host[0], 7u);
  expectDeviceStillWorks();
}

LOOM_DIFF_LEVELS(Faults);

} // namespace
