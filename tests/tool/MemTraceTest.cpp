//===- tests/tool/MemTraceTest.cpp - mem_trace and `loom trace show` ------===//
//
// mem_trace (docs/tools.md) on tool_program and HIP test programs, against
// `loom exec --memory-trace` of the same program run uninstrumented
// (MemoryTraceCompare.h): the program's output is unchanged and every
// wave-access is the truth's, in order. The trace reader on malformed
// files (every truncation, flipped bytes) and the summary's models (64-byte
// lines, LDS bank conflicts) on accesses worked out by hand.
//
//===----------------------------------------------------------------------===//

#include "ToolTruth.h"

#include "TraceFile.h"
#include "TraceSummary.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <random>

using namespace llvm;
using namespace loom::test;
using namespace loom::trace;

namespace {

TEST(MemTrace, ToolProgramIsTheTruth) {
  expectMemTraceIsTheTruth(LOOM_TOOL_PROGRAM);
}

// Flat accesses resolved to LDS and global memory by the apertures, the
// stack's buffer accesses, and the summary's figures (of kernel mixed)
// worked out by hand: the four accesses of a lane's
// Tile[T * 32] (ds_write, ds_read, and bump's flat load and store) put a
// half-wave's 32 lanes on one bank, 31 cycles beyond one per half: 62 for
// a wave, 31 for a group's second (half) wave, 3 groups, so 279 per
// instruction; bump's global load and store touch a 64-byte line per lane
// (576 lines) where their bytes fit in 36.
TEST(MemTrace, FlatLdsAndTheSummaryOnMemTraceProgram) {
  expectMemTraceIsTheTruth(LOOM_MEM_TRACE_PROGRAM);
  Traced T = memTrace(LOOM_MEM_TRACE_PROGRAM, {"--tool-arg", "kernel=mixed"},
                      /*Keep=*/true);
  CommandResult S =
      runCommand({LOOM_BIN, "trace", "show", T.File, "--summary"});
  sys::fs::remove(T.File);
  EXPECT_EQ(S.ExitCode, 0) << S.Err;
  for (const char *Line :
       {"flat->lds                  12            576             2304    "
        "      -          558",
        "coalescing: 576 distinct 64-byte lines in 12 vector wave-accesses, "
        "48.00 a wave-access; their bytes fit in 36 (6.2% efficient)",
        "LDS bank conflicts: 1116 extra cycles in 24 wave-accesses, worst "
        "32-way",
        "_Z5mixedPi+0x90 DS_WRITE_B32: 6 wave-accesses, 279 extra cycles, "
        "worst 32-way"})
    EXPECT_NE(S.Out.find(Line), std::string::npos) << Line << "\n" << S.Out;
}

// A ring of 64 chunks, the least a channel takes: mem_trace_program's
// `waves` claims a chunk per wave between barriers (about 3,200), so most
// claims wait for a slot the host released (the ring of wave chunks
// zeroing its End word on the way), and a barrier finds waves with no
// chunk. Every access still arrives, in each wave's order. (With the
// default ring, FlatLdsAndTheSummaryOnMemTraceProgram, the claims past
// the 2,048 slots a new ring readies wait for the host to ready theirs.)
TEST(MemTrace, ASmallRingWrapsThroughBarriers) {
  expectMemTraceIsTheTruth(LOOM_MEM_TRACE_PROGRAM, true, "",
                           {"--tool-arg", "capacity=64"});
}

TEST(MemTrace, KernelAndDispatchOptions) {
  Traced T = memTrace(LOOM_TOOL_PROGRAM, {"--tool-arg", "dispatch=1-2",
                                          "--tool-arg", "kernel=scale"});
  ASSERT_FALSE(T.Accesses.empty());
  for (const MemoryAccess &A : T.Accesses)
    EXPECT_EQ(A.Dispatch, 2u);
  EXPECT_NE(T.Run.Err.find("mem_trace: 1 dispatches traced, 96 wave-accesses"),
            std::string::npos)
      << T.Run.Err;
}

class MemTraceOnHip : public ::testing::TestWithParam<const char *> {};

TEST_P(MemTraceOnHip, TraceIsTheTruth) {
  expectMemTraceIsTheTruth(std::string(LOOM_HIP_TEST_DIR) + "/hip_" +
                           GetParam());
}

// As ShippedToolsOnHip (ToolsTest.cpp), and for the same reasons without
// the programs whose kernels run differently from run to run.
INSTANTIATE_TEST_SUITE_P(MemTrace, MemTraceOnHip,
                         ::testing::Values("launch", "wave_intrinsics",
                                           "cooperative_groups", "memory",
                                           "kernel_ref", "symbols",
                                           "clang22_launch", "clang22_wave"));

TEST(MemTrace, CompareFindsEveryKindOfDifference) {
  auto Access = [](uint64_t Wave, std::string Space, uint64_t Base) {
    MemoryAccess A;
    A.Wave = Wave;
    A.Instruction = "k+0x10";
    A.Space = Space;
    A.Direction = "read";
    A.BytesPerLane = 4;
    A.Exec = 0x3;
    A.Addresses = {Base, Base + 4};
    return A;
  };
  std::vector<MemoryAccess> Truth = {Access(0, "global", 0x10000),
                                     Access(0, "lds", 0x20),
                                     Access(1, "global", 0x10100)};
  EXPECT_TRUE(compareMemoryTraces(Truth, Truth).empty());
  // A buffer placed elsewhere, whole: equal.
  std::vector<MemoryAccess> Moved = Truth;
  for (MemoryAccess &A : Moved)
    if (A.Space == "global")
      for (uint64_t &Addr : A.Addresses)
        Addr += 0x5000;
  EXPECT_TRUE(compareMemoryTraces(Truth, Moved).empty());
  EXPECT_EQ(compareMemoryTraces(Truth, Moved, {/*ExactAddresses=*/true})
                .size(),
            2u);
  // One lane elsewhere, an LDS offset, the order in a wave, a missing
  // access, the EXEC: each is a difference.
  std::vector<MemoryAccess> Bad = Moved;
  Bad[2].Addresses[1] += 8;
  EXPECT_EQ(compareMemoryTraces(Truth, Bad).size(), 1u);
  Bad = Truth;
  Bad[1].Addresses[0] = 0x24;
  EXPECT_EQ(compareMemoryTraces(Truth, Bad).size(), 1u);
  Bad = Truth;
  std::swap(Bad[0], Bad[1]);
  EXPECT_EQ(compareMemoryTraces(Truth, Bad).size(), 2u);
  Bad = Truth;
  Bad.pop_back();
  EXPECT_EQ(compareMemoryTraces(Truth, Bad).size(), 1u);
  Bad = Truth;
  Bad[0].Exec = 0x6;
  EXPECT_EQ(compareMemoryTraces(Truth, Bad).size(), 1u);
}

// Two buffers sharing a page in one run, placed apart in the other: the
// page rule refuses them, the buffers (each dispatch's arguments in both
// runs) take each address by its offset in its own.
TEST(MemTrace, CompareByTheLaunchesBuffers) {
  auto Access = [](uint64_t Wave, uint64_t Base) {
    MemoryAccess A;
    A.Wave = Wave;
    A.Instruction = "k+0x10";
    A.Space = "global";
    A.Direction = "write";
    A.BytesPerLane = 4;
    A.Exec = 0x3;
    A.Addresses = {Base, Base + 4};
    return A;
  };
  // Buffers at 0x10800 and 0x10c00, one 4 KiB page.
  std::vector<MemoryAccess> Truth = {Access(0, 0x10800), Access(1, 0x10c00)},
                            Traced = {Access(0, 0x50800),
                                      Access(1, 0x90c00)};
  DispatchBuffers TruthArgs = {{0, {0x10800, 7, 0x10c00}}},
                  TracedArgs = {{0, {0x50800, 7, 0x90c00}}};
  EXPECT_EQ(compareMemoryTraces(Truth, Traced).size(), 1u);
  CompareOptions O;
  O.TruthBuffers = &TruthArgs;
  O.TracedBuffers = &TracedArgs;
  EXPECT_TRUE(compareMemoryTraces(Truth, Traced, O).empty());
  // A lane off by a word in its buffer: found.
  Traced[1].Addresses[1] += 4;
  EXPECT_EQ(compareMemoryTraces(Truth, Traced, O).size(), 1u);
}

//===-- The reader --------------------------------------------------------===//

/// A trace writer at \p Path that has written site 0 (kernel k, 4 bytes
/// a lane, \p Kind, \p Opcode) and dispatch 0.
std::unique_ptr<TraceWriter> writerWithASite(const std::string &Path,
                                             InstrKind Kind, StringRef Opcode) {
  auto W = cantFail(TraceWriter::create(Path));
  TraceSite S;
  S.Pc = 0x1000;
  S.Offset = 0x40;
  S.Kind = Kind;
  S.Bytes = 4;
  S.Kernel = S.Function = "k";
  S.Opcode = Opcode.str();
  W->site(S);
  TraceDispatch D;
  D.Kernel = "k";
  W->dispatch(D);
  return W;
}

/// The bytes \p W wrote to \p Path, once closed; the file removed.
std::string closeAndRead(TraceWriter &W, const std::string &Path) {
  cantFail(W.close());
  auto Buf = MemoryBuffer::getFile(Path);
  sys::fs::remove(Path);
  return (*Buf)->getBuffer().str();
}

/// A small trace written by TraceWriter.
std::string sampleTrace() {
  std::string Path = tempPath("mem-sample");
  auto W = writerWithASite(Path, InstrKind::Flat, "FLAT_LOAD_DWORD");
  TraceAccess A;
  A.Where = Space::Lds;
  A.Exec = 0x5;
  A.Addresses = {8, 16}; // in rows (one stride)
  W->access(A);
  A.Exec = 0x7;
  A.Addresses = {8, 100, 4}; // lane by lane
  W->access(A);
  return closeAndRead(*W, Path);
}

struct Collect : TraceVisitor {
  std::vector<TraceAccess> Accesses;
  void access(const TraceAccess &A, const TraceSite &) override {
    Accesses.push_back(A);
  }
};

TEST(TraceFile, ReadsWhatWasWritten) {
  std::string Bytes = sampleTrace();
  Collect C;
  ASSERT_FALSE(bool(readTrace("t", Bytes, C)));
  ASSERT_EQ(C.Accesses.size(), 2u);
  EXPECT_EQ(C.Accesses[0].Exec, 0x5u);
  EXPECT_EQ(C.Accesses[0].Addresses, (std::vector<uint64_t>{8, 16}));
  EXPECT_EQ(C.Accesses[1].Exec, 0x7u);
  EXPECT_EQ(C.Accesses[1].Addresses, (std::vector<uint64_t>{8, 100, 4}));
}

// Lanes' addresses as the hooks give them (by lane index, a mask and an
// offset applied), in the shapes the writer stores as rows and in shapes
// it stores lane by lane: what is read back is each active lane's address.
TEST(TraceFile, LaneAccessesReadBackInEveryShape) {
  std::mt19937_64 Rng(7);
  std::vector<std::pair<uint64_t, std::vector<uint64_t>>> Cases;
  auto Lanes = [](auto F) {
    std::vector<uint64_t> V(64);
    for (unsigned L = 0; L < 64; ++L)
      V[L] = F(L);
    return V;
  };
  uint64_t Base = 0x7f0012345000;
  Cases.push_back({~0ull, Lanes([&](unsigned L) { return Base + 4 * L; })});
  Cases.push_back({~0ull, Lanes([&](unsigned L) { return Base - 8 * L; })});
  Cases.push_back({~0ull, Lanes([&](unsigned L) { return Base; })});
  // A 16-wide tile with rows 17 floats apart; a row reading one address.
  Cases.push_back({~0ull, Lanes([&](unsigned L) {
                     return Base + 68 * (L / 16) + 4 * (L % 16);
                   })});
  Cases.push_back({~0ull, Lanes([&](unsigned L) { return Base + 12 * (L / 16); })});
  Cases.push_back({0x00ff00ff00ff00ffull, Lanes([&](unsigned L) {
                     return Base + 4 * L;
                   })});
  Cases.push_back({0x8000000000000001ull, Lanes([&](unsigned L) {
                     return Base + 4 * L;
                   })});
  Cases.push_back({1ull << 17, Lanes([&](unsigned L) { return Base + L; })});
  // Almost rows: one lane off breaks them.
  Cases.push_back({~0ull, Lanes([&](unsigned L) {
                     return Base + 4 * L + (L == 40 ? 4 : 0);
                   })});
  for (int R = 0; R < 20; ++R)
    Cases.push_back({Rng() | 1, Lanes([&](unsigned) { return Rng(); })});

  std::string Path = tempPath("mem-lanes");
  auto W = writerWithASite(Path, InstrKind::Lds, "DS_READ_B32");
  std::vector<std::vector<uint64_t>> Expected;
  for (auto &[Exec, ByLane] : Cases)
    for (uint64_t Mask : {~0ull, 0xffffffffull}) {
      uint64_t Add = Mask == ~0ull ? 0 : 0x40;
      W->laneAccess(Space::Lds, 0, 0, 3, Exec, ByLane.data(), Add, Mask);
      std::vector<uint64_t> E;
      for (unsigned L = 0; L < 64; ++L)
        if ((Exec >> L) & 1)
          E.push_back((ByLane[L] + Add) & Mask);
      Expected.push_back(std::move(E));
    }
  std::string Bytes = closeAndRead(*W, Path);
  Collect C;
  ASSERT_FALSE(bool(readTrace("lanes", Bytes, C)));
  ASSERT_EQ(C.Accesses.size(), Expected.size());
  for (size_t I = 0; I < Expected.size(); ++I) {
    EXPECT_EQ(C.Accesses[I].Addresses, Expected[I]) << I;
    EXPECT_EQ(C.Accesses[I].Wave, 3u);
  }
}

TEST(TraceFile, EveryTruncationIsAnErrorNamingTheOffset) {
  std::string Bytes = sampleTrace();
  for (size_t N = 0; N < Bytes.size(); ++N) {
    Collect C;
    Error E = readTrace("cut.trace", StringRef(Bytes).take_front(N), C);
    ASSERT_TRUE(bool(E)) << N;
    std::string Msg = toString(std::move(E));
    EXPECT_EQ(Msg.rfind("cut.trace: offset ", 0), 0u) << Msg;
  }
}

TEST(TraceFile, CorruptFilesAreErrorsNeverCrashes) {
  std::string Good = sampleTrace();
  // Each byte replaced by values that break it: the reader must refuse or
  // read something well-formed, never crash; tags and counts it refuses.
  std::mt19937 Rng(13);
  unsigned Refused = 0;
  for (size_t At = 0; At < Good.size(); ++At)
    for (int K = 0; K < 8; ++K) {
      std::string Bad = Good;
      Bad[At] = char(Rng());
      if (Bad == Good)
        continue;
      Collect C;
      if (Error E = readTrace("bad.trace", Bad, C)) {
        ++Refused;
        EXPECT_EQ(toString(std::move(E)).rfind("bad.trace: offset ", 0), 0u);
      }
    }
  EXPECT_GT(Refused, Good.size());
  std::string Junk = Good + "x";
  Collect C;
  EXPECT_EQ(toString(readTrace("j", Junk, C)),
            "j: offset " + std::to_string(Good.size()) +
                ": bytes after the end record");
  Junk = Good;
  Junk[16] = 'Q'; // the first record's tag
  EXPECT_EQ(toString(readTrace("j", Junk, C)),
            "j: offset 16: unknown record tag 0x51");
  EXPECT_EQ(toString(readTrace("j", "hello", C)),
            "j: offset 0: not a mem_trace file (no LOOMTRCE header)");
}

TEST(TraceFile, ShowRefusesABadFile) {
  std::string Path = tempPath("mem-bad");
  {
    std::string Bytes = sampleTrace();
    std::error_code EC;
    raw_fd_ostream OS(Path, EC);
    OS << StringRef(Bytes).drop_back(3);
  }
  CommandResult R = runCommand({LOOM_BIN, "trace", "show", Path});
  sys::fs::remove(Path);
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_NE(R.Err.find("loom trace: " + Path + ": offset "), std::string::npos)
      << R.Err;
  EXPECT_NE(R.Err.find("truncated in the end record"), std::string::npos)
      << R.Err;
}

//===-- The summary's models ----------------------------------------------===//

TraceAccess lanes(uint64_t Exec, uint64_t Base, uint64_t Stride) {
  TraceAccess A;
  A.Exec = Exec;
  for (unsigned L = 0; L < 64; ++L)
    if ((Exec >> L) & 1)
      A.Addresses.push_back(Base + L * Stride);
  return A;
}

TEST(TraceSummary, CoalescingLines) {
  EXPECT_EQ(distinctLines(lanes(~0ull, 0, 4), 4), 4u);      // 256 bytes
  EXPECT_EQ(distinctLines(lanes(~0ull, 32, 4), 4), 5u);     // unaligned
  EXPECT_EQ(distinctLines(lanes(~0ull, 0, 64), 4), 64u);    // a line a lane
  EXPECT_EQ(distinctLines(lanes(~0ull, 0, 16), 16), 16u);   // dwordx4
  EXPECT_EQ(distinctLines(lanes(1, 62, 0), 4), 2u);         // crosses a line
  EXPECT_EQ(fewestLines(lanes(~0ull, 32, 4), 4), 4u);
  EXPECT_EQ(fewestLines(lanes(0x7, 0, 4), 4), 1u);
  // Every lane on one word (an atomic counter): one line, not four.
  EXPECT_EQ(fewestLines(lanes(~0ull, 0, 0), 4), 1u);
  EXPECT_EQ(distinctLines(lanes(~0ull, 0, 0), 4), 1u);
  // Overlapping lanes (stride 2, 4 bytes each): 130 distinct bytes.
  EXPECT_EQ(fewestLines(lanes(~0ull, 0, 2), 4), 3u);
}

TEST(TraceSummary, LdsBankConflicts) {
  unsigned Degree;
  // Consecutive dwords: every bank once per half-wave.
  EXPECT_EQ(ldsConflictCycles(lanes(~0ull, 0, 4), 4, &Degree), 0u);
  EXPECT_EQ(Degree, 1u);
  // One dword for every lane: a broadcast.
  EXPECT_EQ(ldsConflictCycles(lanes(~0ull, 64, 0), 4, &Degree), 0u);
  // A stride of 32 dwords: the 32 lanes of each half in one bank.
  EXPECT_EQ(ldsConflictCycles(lanes(~0ull, 0, 128), 4, &Degree), 2 * 31u);
  EXPECT_EQ(Degree, 32u);
  // A stride of 2 dwords: two lanes a bank, 2-way.
  EXPECT_EQ(ldsConflictCycles(lanes(~0ull, 0, 8), 4, &Degree), 2u);
  EXPECT_EQ(Degree, 2u);
  // 8-byte accesses, consecutive: 16 lanes a phase fill the 32 banks.
  EXPECT_EQ(ldsConflictCycles(lanes(~0ull, 0, 8), 8, &Degree), 0u);
  // 16-byte accesses, consecutive: 8 lanes a phase.
  EXPECT_EQ(ldsConflictCycles(lanes(~0ull, 0, 16), 16, &Degree), 0u);
  // Only the upper half active, stride 32 dwords: one phase, 32-way.
  EXPECT_EQ(ldsConflictCycles(lanes(~0ull << 32, 0, 128), 4, &Degree), 31u);
}

} // namespace
