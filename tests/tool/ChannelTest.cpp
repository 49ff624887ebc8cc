//===- tests/tool/ChannelTest.cpp - Launch data and the channel -----------===//
//
// channel_program (two dispatches of axpy over 4000 elements, in work-groups
// of 256 and of 96 work-items) runs under the channel test tool
// (tests/tool/channel), whose hooks push a record per lane at kernel entry
// and before each global memory instruction through small rings, and whose
// host side writes every record it receives to a file. The test computes
// what must arrive from the dispatches (grid, work-group size, the kernel's
// arguments) and checks that each record arrives exactly once with the
// right values, or, for a lossy ring, that what arrived plus what was
// dropped is what was sent.
//
//===----------------------------------------------------------------------===//

#include "../support/RunCommand.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <tuple>

using namespace llvm;
using namespace loom::test;

namespace {

constexpr const char *Axpy = "_Z4axpyPKfPffi";
constexpr uint64_t N = 4000;

struct Entry {
  uint64_t Index, DispatchId, Group, Wave, Lane, Data;
};

struct DispatchSeen {
  uint64_t Index = 0;
  std::string Kernel;
  uint64_t Grid = 0, WorkGroup = 0;
  uint64_t Args[3] = {};
  bool Completed = false, Instrumented = false;
  uint64_t Dropped = 0, Received = 0, Calls = 0, DataSum = 0;
  std::vector<Entry> Entries;
  std::map<uint64_t, std::vector<uint64_t>> Addresses; ///< by pc

  uint64_t x() const { return Args[0]; }
  uint64_t y() const { return Args[1]; }
  uint64_t n() const { return Args[2] >> 32; } // after float a
  uint64_t wavesPerGroup() const { return (WorkGroup + 63) / 64; }
  uint64_t waves() const { return Grid / WorkGroup * wavesPerGroup(); }
  uint64_t memoryRecords() const {
    uint64_t M = 0;
    for (const auto &[Pc, A] : Addresses)
      M += A.size();
    return M;
  }
};

struct ChannelRun {
  CommandResult R;
  std::vector<DispatchSeen> Dispatches;
  std::set<uint64_t> InstructionsInstrumented; ///< ELF addresses
};

uint64_t number(StringRef S) {
  uint64_t V = 0;
  EXPECT_FALSE(S.getAsInteger(0, V)) << S.str();
  return V;
}

/// Parses the tool's file (tests/tool/channel/Channel.cpp says its lines).
void parse(StringRef Text, ChannelRun &Run) {
  std::map<uint64_t, size_t> At;
  auto Of = [&](StringRef Index) -> DispatchSeen & {
    uint64_t I = number(Index);
    auto [It, New] = At.try_emplace(I, Run.Dispatches.size());
    if (New) {
      Run.Dispatches.emplace_back();
      Run.Dispatches.back().Index = I;
    }
    return Run.Dispatches[It->second];
  };
  SmallVector<StringRef, 0> Lines;
  Text.split(Lines, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef L : Lines) {
    SmallVector<StringRef, 16> W;
    SplitString(L, W);
    if (W[0] == "D" && W.size() == 11) {
      DispatchSeen &D = Of(W[1]);
      D.Kernel = W[2].str();
      D.Grid = number(W[4]);
      D.WorkGroup = number(W[6]);
      for (int I = 0; I < 3; ++I)
        D.Args[I] = number(W[8 + I]);
    } else if (W[0] == "I" && W.size() == 2) {
      Run.InstructionsInstrumented.insert(number(W[1]));
    } else if (W[0] == "E" && W.size() == 7) {
      Of(W[1]).Entries.push_back({number(W[1]), number(W[2]), number(W[3]),
                                  number(W[4]), number(W[5]), number(W[6])});
    } else if (W[0] == "M" && W.size() == 4) {
      Of(W[1]).Addresses[number(W[2])].push_back(number(W[3]));
    } else if (W[0] == "C" && W.size() == 12) {
      DispatchSeen &D = Of(W[1]);
      D.Completed = true;
      D.Instrumented = W[3] == "1";
      D.Dropped = number(W[5]);
      D.Received = number(W[7]);
      D.Calls = number(W[9]);
      D.DataSum = number(W[11]);
    } else {
      ADD_FAILURE() << "unexpected line: " << L.str();
    }
  }
}

/// channel_program under the channel tool with \p Args (--tool-arg words
/// for it); \p Before: tools loaded before it.
ChannelRun runChannel(std::vector<std::string> Args,
                      std::vector<std::string> Before = {}) {
  SmallString<128> Path;
  sys::fs::createTemporaryFile("channel-records", "txt", Path);
  std::vector<std::string> Cmd{LOOM_BIN, "instrument"};
  for (const std::string &T : Before)
    Cmd.insert(Cmd.end(), {"--tool", T});
  Cmd.insert(Cmd.end(), {"--tool", LOOM_CHANNEL_TOOL, "--tool-arg",
                         "channel:out=" + std::string(Path)});
  for (const std::string &A : Args)
    Cmd.insert(Cmd.end(), {"--tool-arg", "channel:" + A});
  Cmd.insert(Cmd.end(), {"--", LOOM_CHANNEL_PROGRAM});
  ChannelRun Run;
  Run.R = runCommand(Cmd);
  if (auto Buf = MemoryBuffer::getFile(Path))
    parse((*Buf)->getBuffer(), Run);
  sys::fs::remove(Path);
  return Run;
}

/// The program's two dispatches, as the tool saw them start and complete.
void expectDispatches(const ChannelRun &Run) {
  EXPECT_EQ(Run.R.Out, "axpy ok, n=4000\n") << Run.R.Err;
  ASSERT_EQ(Run.Dispatches.size(), 2u) << Run.R.Err;
  const uint64_t Groups[2] = {256, 96};
  for (uint64_t I = 0; I < 2; ++I) {
    const DispatchSeen &D = Run.Dispatches[I];
    EXPECT_EQ(D.Index, I);
    EXPECT_EQ(D.Kernel, Axpy);
    EXPECT_EQ(D.WorkGroup, Groups[I]);
    EXPECT_EQ(D.Grid, (N + Groups[I] - 1) / Groups[I] * Groups[I]);
    EXPECT_EQ(D.n(), N);
    EXPECT_TRUE(D.Completed) << Run.R.Err;
    EXPECT_TRUE(D.Instrumented) << Run.R.Err;
  }
}

/// Every lane's entry record, exactly once, with its work-group, wave
/// (flat work-item id / 64 in the group), lane, dispatch id and launch
/// data (\p Data for dispatch 0, + 1 for dispatch 1; ~0: none). With
/// \p Lossy, a subset, each at most once.
void expectEntries(const DispatchSeen &D, std::optional<uint64_t> Data,
                   bool Lossy) {
  std::set<std::tuple<uint64_t, uint64_t, uint64_t>> Seen;
  for (const Entry &E : D.Entries) {
    EXPECT_EQ(E.DispatchId, D.Index);
    EXPECT_EQ(E.Data, Data ? *Data + D.Index : ~0ull);
    EXPECT_LT(E.Group, D.Grid / D.WorkGroup);
    EXPECT_LT(E.Wave * 64 + E.Lane, D.WorkGroup);
    EXPECT_TRUE(Seen.insert({E.Group, E.Wave, E.Lane}).second)
        << "twice: group " << E.Group << " wave " << E.Wave << " lane "
        << E.Lane;
  }
  if (!Lossy)
    EXPECT_EQ(Seen.size(), D.Grid); // with the checks above: each lane
}

/// Per instrumented instruction (pc), the address of each element of x or
/// y the kernel accesses, exactly once (a subset with \p Lossy).
void expectAddresses(const ChannelRun &Run, const DispatchSeen &D,
                     bool Lossy) {
  ASSERT_FALSE(Run.InstructionsInstrumented.empty());
  if (!Lossy) // two loads and a store, whatever the compiler's order
    EXPECT_EQ(D.Addresses.size(), Run.InstructionsInstrumented.size());
  // The pcs are the instructions' loaded addresses: ELF addresses + one
  // load delta.
  if (!D.Addresses.empty()) {
    uint64_t Delta =
        D.Addresses.begin()->first - *Run.InstructionsInstrumented.begin();
    for (const auto &[Pc, A] : D.Addresses)
      EXPECT_TRUE(Run.InstructionsInstrumented.count(Pc - Delta))
          << "pc " << Pc;
  }
  unsigned OfX = 0, OfY = 0;
  for (const auto &[Pc, A] : D.Addresses) {
    uint64_t Front = A.front();
    uint64_t Base = Front >= D.x() && Front < D.x() + 4 * N ? D.x() : D.y();
    (Base == D.x() ? OfX : OfY)++;
    std::set<uint64_t> Seen;
    for (uint64_t Address : A) {
      EXPECT_EQ(Address % 4, Base % 4);
      EXPECT_GE(Address, Base);
      EXPECT_LT(Address, Base + 4 * N) << "pc " << Pc;
      EXPECT_TRUE(Seen.insert(Address).second) << "twice: " << Address;
    }
    if (!Lossy)
      EXPECT_EQ(Seen.size(), N) << "pc " << Pc;
  }
  if (!Lossy) {
    EXPECT_GE(OfX, 1u);
    EXPECT_GE(OfY, 2u);
  }
}

/// A lossless run: everything arrived, once, and nothing was dropped.
void expectLossless(const ChannelRun &Run, std::optional<uint64_t> Data,
                    uint64_t Capacity) {
  expectDispatches(Run);
  for (const DispatchSeen &D : Run.Dispatches) {
    SCOPED_TRACE("dispatch " + std::to_string(D.Index));
    EXPECT_EQ(D.Dropped, 0u);
    expectEntries(D, Data, false);
    expectAddresses(Run, D, false);
    uint64_t Records = D.Entries.size() + D.memoryRecords();
    EXPECT_EQ(D.Received, Records);
    EXPECT_EQ(Records, D.Grid + 3 * N);
    // A call never gets more than the ring holds: the ring wrapped.
    EXPECT_GE(D.Calls, Records / Capacity);
    EXPECT_EQ(D.DataSum, Data ? (*Data + D.Index) * D.waves() : 0u);
  }
  EXPECT_EQ(Run.R.Err.find("loom-tool:"), std::string::npos) << Run.R.Err;
}

TEST(ToolChannel, EveryRecordArrivesOnceThroughASmallRing) {
  ChannelRun Run = runChannel({"capacity=64", "data=1"});
  ASSERT_EQ(Run.R.ExitCode, 0) << Run.R.Err;
  expectLossless(Run, 0xC0FFEE00, 64);
}

// The host is slower than the producers: the ring is full most of the time
// and lanes wait for it (lossless).
TEST(ToolChannel, ProducersWaitForASlowHost) {
  ChannelRun Run = runChannel({"capacity=128", "slow=300"});
  ASSERT_EQ(Run.R.ExitCode, 0) << Run.R.Err;
  expectLossless(Run, std::nullopt, 128);
}

// The channel tool second: its hooks read slot 1 of the launch header.
TEST(ToolChannel, TheSecondToolsSlot) {
  ChannelRun Run = runChannel({"capacity=256", "data=1"}, {"instr_count"});
  ASSERT_EQ(Run.R.ExitCode, 0) << Run.R.Err;
  expectLossless(Run, 0xC0FFEE00, 256);
  EXPECT_NE(Run.R.Err.find("instr_count: dispatch 1 _Z4axpyPKfPffi"),
            std::string::npos)
      << Run.R.Err;
}

TEST(ToolChannel, ALossyRingCountsWhatItDrops) {
  ChannelRun Run = runChannel({"capacity=64", "lossy=1", "slow=2000"});
  ASSERT_EQ(Run.R.ExitCode, 0) << Run.R.Err;
  expectDispatches(Run);
  for (const DispatchSeen &D : Run.Dispatches) {
    SCOPED_TRACE("dispatch " + std::to_string(D.Index));
    expectEntries(D, std::nullopt, true);
    expectAddresses(Run, D, true);
    uint64_t Records = D.Entries.size() + D.memoryRecords();
    EXPECT_EQ(D.Received, Records);
    EXPECT_EQ(Records + D.Dropped, D.Grid + 3 * N);
    // A host 2 ms a call behind 16,000 records in a ring of 64: most go.
    EXPECT_GT(D.Dropped, 0u);
    std::string Warning = "loom-tool: channel: _Z4axpyPKfPffi dispatch " +
                          std::to_string(D.Index) + ": the channel dropped " +
                          std::to_string(D.Dropped) + " of " +
                          std::to_string(D.Grid + 3 * N) +
                          " records (its lossy ring was full)\n";
    EXPECT_NE(Run.R.Err.find(Warning), std::string::npos) << Run.R.Err;
  }
}

TEST(ToolChannel, OpenChannelChecksItsOptions) {
  struct {
    const char *Arg, *Error;
  } Bad[] = {
      {"record_bytes=6", "openChannel: RecordBytes is 6: records are whole "
                         "4-byte words, at least one"},
      {"record_bytes=0", "openChannel: RecordBytes is 0"},
      {"capacity=32", "openChannel: Capacity is 32: it must be a power of "
                      "two, at least 64 (a wave)"},
      {"capacity=100", "openChannel: Capacity is 100"},
      {"chunks=1", "openChannel: a ring of wave chunks is lossless, its "
                   "records a power of two of bytes, at least 64"},
      {"chunks=1,lossy=1,record_bytes=1024",
       "openChannel: a ring of wave chunks is lossless"},
  };
  for (const auto &B : Bad) {
    std::vector<std::string> Args;
    for (StringRef A : split(B.Arg, ','))
      Args.push_back(A.str());
    ChannelRun Run = runChannel(Args);
    EXPECT_EQ(Run.R.ExitCode, 0) << Run.R.Err;
    EXPECT_EQ(Run.R.Out, "axpy ok, n=4000\n");
    EXPECT_NE(Run.R.Err.find(std::string("loom-tool: channel: init failed: ") +
                             B.Error),
              std::string::npos)
        << B.Arg << ": " << Run.R.Err;
  }
  // Once, in init.
  ChannelRun Run = runChannel({"twice=1", "memory=0"});
  EXPECT_NE(Run.R.Err.find("channel: second open: openChannel: the tool's "
                           "channel is already open (one per tool)"),
            std::string::npos)
      << Run.R.Err;
  expectDispatches(Run);
  // Late: refused, and the hooks' pushes go nowhere.
  Run = runChannel({"late=1", "memory=0"});
  EXPECT_NE(Run.R.Err.find("channel: late open: openChannel: a tool opens its "
                           "channel in init, not later"),
            std::string::npos)
      << Run.R.Err;
  expectDispatches(Run);
  for (const DispatchSeen &D : Run.Dispatches)
    EXPECT_EQ(D.Received, 0u);
}

} // namespace
