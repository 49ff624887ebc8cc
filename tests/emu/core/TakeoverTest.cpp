//===- tests/emu/core/TakeoverTest.cpp - Started groups that change thread -===//
//
// With TakeoverMode::Always, idle workers take started work-groups from
// busy ones at nearly every safe point (between two rounds of the group's
// waves, at barriers or not, or, for one-wave groups, inside a slice):
// results, counters and faults must be those of one thread, and groups that
// spin on other groups must still see them run. Each test checks that
// groups did move.
//
//===----------------------------------------------------------------------===//

#include "LdsBarrierReference.h"
#include "loom/emu/Module.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <random>

using namespace loom::emu;

namespace {

using u32 = uint32_t;

struct Machine {
  std::unique_ptr<Device> Dev;
  std::unique_ptr<Module> Mod;
};

Machine machine(unsigned Threads, TakeoverMode Mode, const char *Elf,
                bool RecordAccesses = false) {
  DeviceOptions O;
  O.Threads = Threads;
  O.Takeovers = Mode;
  O.RecordMemoryAccesses = RecordAccesses;
  Machine M;
  auto D = Device::create(O);
  EXPECT_TRUE(bool(D)) << llvm::toString(D.takeError());
  if (!D)
    return M;
  M.Dev = std::move(*D);
  auto Mod = Module::loadFile(*M.Dev, std::string(LOOM_EMU_CORE_DIR) + "/" + Elf);
  EXPECT_TRUE(bool(Mod)) << llvm::toString(Mod.takeError());
  if (Mod)
    M.Mod = std::move(*Mod);
  return M;
}

/// ds.c's lds_barrier (groups of four waves sharing LDS across 20
/// barriers) on \p M: its output, checked against the host, and the result.
/// Every instruction, wave and group of \p Many's run counted once, as in
/// \p One's, whichever thread ran it.
void expectSameCounts(const DispatchResult &One, const DispatchResult &Many) {
  EXPECT_EQ(One.Counters.WaveInstructions, Many.Counters.WaveInstructions);
  EXPECT_EQ(One.Counters.ActiveLaneInstructions,
            Many.Counters.ActiveLaneInstructions);
  EXPECT_EQ(One.Counters.byOpcode(), Many.Counters.byOpcode());
  EXPECT_EQ(One.Counters.Workgroups, Many.Counters.Workgroups);
  EXPECT_EQ(One.Counters.Waves, Many.Counters.Waves);
}

DispatchResult ldsBarrier(Machine &M, u32 Groups, std::vector<u32> &Got) {
  const u32 N = Groups * 256;
  DeviceBuffer In(*M.Dev, N * 4), Out(*M.Dev, 3 * N * 4);
  std::mt19937 G(7);
  for (u32 I = 0; I < N; ++I)
    In.data<u32>()[I] = G() & 0xffff;
  auto R = M.Mod->launch("lds_barrier", LaunchConfig::linear(N, 256),
                         KernelArgs().add(Out.address()).add(In.address()));
  EXPECT_TRUE(bool(R)) << llvm::toString(R.takeError());
  if (!R)
    return DispatchResult();
  const u32 *O = Out.data<u32>();
  EXPECT_TRUE(loom::emu::test::ldsBarrierOutputIsRight(In.data<u32>(), O,
                                                       Groups));
  Got.assign(O, O + 3 * N);
  return *R;
}

/// traces.c's `mix` (one-wave groups, a loop of ALU work, 64-bit carries
/// and divergent branches) with \p Iters iterations on \p M, writing its
/// integer results to \p OutU (null: a buffer of its own): those results and
/// the float ones in \p Got, and the dispatch's result.
DispatchResult mix(Machine &M, u32 Groups, int Iters, std::vector<u32> &Got,
                   uint64_t OutU = 0) {
  const u32 N = Groups * 64;
  DeviceBuffer U(*M.Dev, N * 8), F(*M.Dev, N * 4), In(*M.Dev, N * 4);
  for (u32 I = 0; I < N; ++I)
    In.data<u32>()[I] = I * 0x9e3779b9u + 17u;
  auto R = M.Mod->launch("mix", LaunchConfig::linear(N, 64),
                         KernelArgs()
                             .add(OutU ? OutU : U.address())
                             .add(F.address())
                             .add(In.address())
                             .add(Iters));
  EXPECT_TRUE(bool(R)) << llvm::toString(R.takeError());
  if (!R)
    return DispatchResult();
  Got.assign(U.data<u32>(), U.data<u32>() + 2 * N);
  Got.insert(Got.end(), F.data<u32>(), F.data<u32>() + N);
  return *R;
}

/// Pool threads may join after a short dispatch's groups have all run (on
/// a busy machine, milliseconds after it starts): tests dispatch until
/// groups did move, for up to this long.
constexpr auto Patience = std::chrono::seconds(5);

TEST(Takeover, BarrierGroupsMoveAndStayExact) {
  Machine One = machine(1, TakeoverMode::Off, "ds.O2.elf");
  Machine Many = machine(2, TakeoverMode::Always, "ds.O2.elf");
  ASSERT_TRUE(One.Mod && Many.Mod);
  uint64_t Moved = 0;
  for (u32 Groups : {3u, 16u, 64u}) {
    std::vector<u32> Ref, Got;
    DispatchResult A = ldsBarrier(One, Groups, Ref);
    ASSERT_TRUE(A.ok()) << A.FirstFault.Message;
    EXPECT_EQ(A.Takeovers, 0u);
    auto Start = std::chrono::steady_clock::now();
    uint64_t Before = Moved;
    do {
      DispatchResult B = ldsBarrier(Many, Groups, Got);
      ASSERT_TRUE(B.ok()) << B.FirstFault.Message;
      Moved += B.Takeovers;
      ASSERT_EQ(Ref, Got);
      expectSameCounts(A, B);
    } while (Moved == Before && !HasFailure() &&
             std::chrono::steady_clock::now() - Start < Patience);
  }
  EXPECT_GT(Moved, 0u);
}

/// Each worker keeps its own list of access records, joined worker by
/// worker: a dispatch that records them moves no group, and every wave's
/// accesses come in the order it made them, as on one thread.
TEST(Takeover, RecordedAccessesStayInWaveOrder) {
  Machine One = machine(1, TakeoverMode::Off, "ds.O2.elf", true);
  Machine Many = machine(2, TakeoverMode::Always, "ds.O2.elf", true);
  ASSERT_TRUE(One.Mod && Many.Mod);
  // Each device loads the code elsewhere: pcs as offsets from the lowest.
  auto ByWave = [](const DispatchResult &R) {
    uint64_t Base = UINT64_MAX;
    for (const MemoryAccessRecord &A : R.Counters.Accesses)
      Base = std::min(Base, A.Pc);
    std::map<uint64_t, std::vector<std::pair<uint64_t, uint64_t>>> Out;
    for (const MemoryAccessRecord &A : R.Counters.Accesses)
      Out[A.WaveId].push_back({A.Pc - Base, A.ExecMask});
    return Out;
  };
  std::vector<u32> Ref, Got;
  DispatchResult A = ldsBarrier(One, 16, Ref);
  DispatchResult B = ldsBarrier(Many, 16, Got);
  ASSERT_TRUE(A.ok() && B.ok());
  EXPECT_EQ(B.Takeovers, 0u);
  EXPECT_EQ(Ref, Got);
  EXPECT_FALSE(A.Counters.Accesses.empty());
  EXPECT_EQ(ByWave(A), ByWave(B));
}

TEST(Takeover, OffMovesNothing) {
  Machine M = machine(2, TakeoverMode::Off, "ds.O2.elf");
  ASSERT_TRUE(M.Mod);
  std::vector<u32> Got;
  DispatchResult R = ldsBarrier(M, 16, Got);
  ASSERT_TRUE(R.ok()) << R.FirstFault.Message;
  EXPECT_EQ(R.Takeovers, 0u);
}

/// One-wave groups that spin until the last group has run: the spinning
/// groups move while they wait, and the last one still runs.
TEST(Takeover, SpinningGroupsMove) {
  Machine M = machine(2, TakeoverMode::Always, "scheduling.O2.elf");
  ASSERT_TRUE(M.Mod);
  const unsigned Groups = 150;
  uint64_t Moved = 0;
  auto Start = std::chrono::steady_clock::now();
  do {
    DeviceBuffer Flag(*M.Dev, 4), Out(*M.Dev, Groups * 64 * 4);
    auto R = M.Mod->launch(
        "wait_for_last", LaunchConfig::linear(Groups * 64, 64),
        KernelArgs().add(Flag.address()).add(Out.address()).add(Groups - 1));
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    ASSERT_TRUE(R->ok()) << R->FirstFault.Message;
    Moved += R->Takeovers;
    for (unsigned I = 0; I < Groups * 64; ++I)
      ASSERT_EQ(Out.data<unsigned>()[I], I / 64) << "work-item " << I;
  } while (!Moved && std::chrono::steady_clock::now() - Start < Patience);
  EXPECT_GT(Moved, 0u);
}

/// One-wave groups move at the safe point inside a slice (a taken branch or
/// trace) when a thief waits, not at the slice's end, and two busy workers
/// exchange their groups in the tail: results and counters stay one
/// thread's.
TEST(Takeover, OneWaveGroupsMoveMidSlice) {
  Machine One = machine(1, TakeoverMode::Off, "traces.O2.elf");
  Machine Many = machine(2, TakeoverMode::Always, "traces.O2.elf");
  ASSERT_TRUE(One.Mod && Many.Mod);
  uint64_t MidSlice = 0, Swaps = 0;
  for (u32 Groups : {1u, 5u, 16u}) {
    std::vector<u32> Ref, Got;
    DispatchResult A = mix(One, Groups, 3000, Ref);
    ASSERT_TRUE(A.ok()) << A.FirstFault.Message;
    auto Start = std::chrono::steady_clock::now();
    uint64_t Before = MidSlice;
    do {
      DispatchResult B = mix(Many, Groups, 3000, Got);
      ASSERT_TRUE(B.ok()) << B.FirstFault.Message;
      EXPECT_LE(B.TakeoversMidSlice, B.Takeovers + B.TakeoverSwaps);
      MidSlice += B.TakeoversMidSlice;
      Swaps += B.TakeoverSwaps;
      ASSERT_EQ(Ref, Got);
      expectSameCounts(A, B);
    } while ((MidSlice == Before || (Groups > 1 && !Swaps)) && !HasFailure() &&
             std::chrono::steady_clock::now() - Start < Patience);
  }
  EXPECT_GT(MidSlice, 0u);
  // Two workers with a group each in the tail exchanged them.
  EXPECT_GT(Swaps, 0u);
}

/// A one-wave group that moved mid-slice, then faults: the fault is the one
/// of one thread, message and all.
TEST(Takeover, FaultAfterAMidSliceMove) {
  Machine One = machine(1, TakeoverMode::Off, "traces.O2.elf");
  Machine Many = machine(2, TakeoverMode::Always, "traces.O2.elf");
  ASSERT_TRUE(One.Mod && Many.Mod);
  // Not device memory: the group faults at its first store, after the loop.
  const uint64_t Bad = 0x1000;
  std::vector<u32> Got;
  DispatchResult A = mix(One, 1, 3000, Got, Bad);
  ASSERT_EQ(A.Status, DispatchStatus::MemoryFault);
  uint64_t MidSlice = 0;
  auto Start = std::chrono::steady_clock::now();
  do {
    DispatchResult B = mix(Many, 1, 3000, Got, Bad);
    MidSlice += B.TakeoversMidSlice;
    ASSERT_EQ(B.Status, DispatchStatus::MemoryFault);
    ASSERT_EQ(A.FirstFault.Message, B.FirstFault.Message);
  } while (!MidSlice && std::chrono::steady_clock::now() - Start < Patience);
  EXPECT_GT(MidSlice, 0u);
}

/// A fault in a group that moved names that group, and the dispatch ends.
TEST(Takeover, FaultInAMovedGroup) {
  Machine M = machine(2, TakeoverMode::Always, "ds.O2.elf");
  ASSERT_TRUE(M.Mod);
  const u32 N = 4 * 256;
  DeviceBuffer In(*M.Dev, N * 4);
  // The output is not device memory: every group faults at its first store.
  auto R = M.Mod->launch("lds_barrier", LaunchConfig::linear(N, 256),
                         KernelArgs().add(uint64_t(0x1000)).add(In.address()));
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->Status, DispatchStatus::MemoryFault);
  EXPECT_NE(R->FirstFault.Message.find("work-group ("), std::string::npos)
      << R->FirstFault.Message;
}

} // namespace
