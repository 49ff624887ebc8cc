//===- tests/tool/ToolsTest.cpp - The shipped tools against ground truth --===//
//
// Each shipped tool (tools/, docs/tools.md) runs under `loom instrument` on
// tool_program and on HIP test programs; what it reports is compared with
// the virtual GPU's own counts of the same program run uninstrumented
// (`loom exec --counters`, docs/counters.md):
//
//  - instr_count, both modes: per dispatch, wave- and lane-instructions in
//    all and per opcode equal the truth, waves that run instructions with
//    EXEC empty included (the counting hook is scalar code); the two modes
//    agree exactly;
//  - opcode_hist: its CSV is the truth's opcodes summed per kernel;
//  - bb_count: its JSON's block counts are the truth's block entries summed
//    per kernel;
//  - kernel_args: the geometry and arguments tool_program launches with;
//  - the shared options: kernel=REGEX, dispatch=N-M.
//
//===----------------------------------------------------------------------===//

#include "ToolTruth.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

using namespace llvm;
using namespace loom::test;

namespace {

class ShippedTools : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    Truth = new std::vector<DispatchTruth>(groundTruth(LOOM_TOOL_PROGRAM));
  }
  static std::vector<DispatchTruth> *Truth;
};
std::vector<DispatchTruth> *ShippedTools::Truth;

TEST_F(ShippedTools, InstrCountBothModesEqualTheTruth) {
  ASSERT_EQ(Truth->size(), 3u);
  std::vector<json::Value> ByInstruction =
      instrCount(LOOM_TOOL_PROGRAM, "instruction");
  std::vector<json::Value> ByBlock = instrCount(LOOM_TOOL_PROGRAM, "block");
  expectInstrCountsEqualTruth(ByInstruction, *Truth);
  expectInstrCountsEqualTruth(ByBlock, *Truth);
  ASSERT_EQ(ByInstruction.size(), ByBlock.size());
  for (size_t I = 0; I < ByBlock.size(); ++I) {
    const json::Object &A = *ByInstruction[I].getAsObject(),
                       &B = *ByBlock[I].getAsObject();
    EXPECT_EQ(*A.getInteger("wave_instructions"),
              *B.getInteger("wave_instructions"));
    EXPECT_EQ(opcodes(A), opcodes(B));
  }
}

TEST_F(ShippedTools, KernelAndDispatchOptions) {
  // dispatch=1-2 and kernel=scale: only dispatch 2.
  std::vector<json::Value> Counts =
      instrCount(LOOM_TOOL_PROGRAM, "block",
                 {"--tool-arg", "dispatch=1-2", "--tool-arg", "kernel=scale"});
  ASSERT_EQ(Counts.size(), 1u);
  EXPECT_EQ(*Counts[0].getAsObject()->getInteger("dispatch"), 2);
  expectInstrCountsEqualTruth(Counts, *Truth, /*Every=*/false);
  // The same through loom instrument's --dispatch and --kernel.
  std::vector<json::Value> ByFlags = instrCount(
      LOOM_TOOL_PROGRAM, "block", {"--dispatch", "1-2", "--kernel", "scale"});
  ASSERT_EQ(ByFlags.size(), 1u);
  EXPECT_EQ(*ByFlags[0].getAsObject()->getInteger("dispatch"), 2);
  // A bad option: the tool is left out, the program runs.
  CommandResult R = instrument(LOOM_TOOL_PROGRAM,
                               {"--tool", "bb_count", "--tool-arg", "kernel=("});
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_NE(R.Err.find("loom-tool: bb_count: init failed: kernel=(:"),
            std::string::npos)
      << R.Err;
  R = instrument(LOOM_TOOL_PROGRAM,
                 {"--tool", "instr_count", "--tool-arg", "mode=lines"});
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_NE(R.Err.find("loom-tool: instr_count: init failed: mode=lines: "
                       "expected instruction or block (the tool is not used)"),
            std::string::npos)
      << R.Err;
}

/// The waves of a dispatch of \p T's geometry: each work-group's
/// work-items (fewer in the last one of a dimension the grid does not
/// fill) in waves of 64.
uint64_t wavesOf(const DispatchTruth &T) {
  // Per dimension: (work-groups, work-items each) of the full and the
  // partial work-groups.
  std::vector<std::pair<uint64_t, uint64_t>> Dims[3];
  for (unsigned D = 0; D < 3; ++D) {
    uint64_t Grid = T.Grid[D], Group = T.Workgroup[D];
    if (Grid / Group)
      Dims[D].push_back({Grid / Group, Group});
    if (Grid % Group)
      Dims[D].push_back({1, Grid % Group});
  }
  uint64_t Waves = 0;
  for (auto [NX, X] : Dims[0])
    for (auto [NY, Y] : Dims[1])
      for (auto [NZ, Z] : Dims[2])
        Waves += NX * NY * NZ * ((X * Y * Z + 63) / 64);
  return Waves;
}

// Block modes pack a once-per-wave point's waves and lanes in one word,
// exact below 2^29 waves a dispatch: a dispatch of more than max-waves=
// (2^29 - 1 by default; lowered here to make one) runs its original code,
// uncounted, with a line saying so; one of max-waves is counted;
// instruction mode packs nothing.
TEST_F(ShippedTools, BlockModeDispatchesOverMaxWavesRunUninstrumented) {
  ASSERT_EQ(Truth->size(), 3u);
  uint64_t Fewest = UINT64_MAX;
  for (const DispatchTruth &T : *Truth)
    Fewest = std::min(Fewest, wavesOf(T));
  ASSERT_GT(Fewest, 1u);
  std::string Below = "max-waves=" + std::to_string(Fewest - 1);
  std::string Path = tempPath("tools-max-waves");
  CommandResult R = instrument(LOOM_TOOL_PROGRAM,
                               {"--tool", "instr_count", "--tool-arg",
                                "mode=block", "--tool-arg", Below,
                                "--tool-arg", "output=" + Path});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  for (size_t D = 0; D < Truth->size(); ++D)
    EXPECT_NE(R.Err.find("instr_count: dispatch " + std::to_string(D) + " " +
                         (*Truth)[D].Kernel + " has " +
                         std::to_string(wavesOf((*Truth)[D])) +
                         " waves, more than the " +
                         std::to_string(Fewest - 1) +
                         " block counting counts exactly: not counted "
                         "(running the original code)"),
              std::string::npos)
        << R.Err;
  EXPECT_NE(R.Err.find("instr_count: 0 dispatches counted"), std::string::npos)
      << R.Err;
  sys::fs::remove(Path);
  expectInstrCountsEqualTruth(
      instrCount(LOOM_TOOL_PROGRAM, "block",
                 {"--tool-arg", "max-waves=" + std::to_string(Fewest)}),
      *Truth);
  expectInstrCountsEqualTruth(
      instrCount(LOOM_TOOL_PROGRAM, "instruction", {"--tool-arg", Below}),
      *Truth);
  R = instrument(LOOM_TOOL_PROGRAM, {"--tool", "instr_count", "--tool-arg",
                                     "max-waves=many"});
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_NE(R.Err.find("loom-tool: instr_count: init failed: max-waves=many: "
                       "not a number"),
            std::string::npos)
      << R.Err;
}

TEST_F(ShippedTools, OpcodeHistIsTheTruthPerKernel) {
  std::string Path = tempPath("tools-opcode-hist");
  CommandResult R = instrument(LOOM_TOOL_PROGRAM,
                               {"--tool", "opcode_hist", "--tool-arg",
                                "output=" + Path});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_NE(R.Err.find("opcode_hist: 2 kernels, 3 dispatches counted (block "
                       "mode), CSV in "),
            std::string::npos)
      << R.Err;
  expectOpcodeHistEqualsTruth(Path, *Truth);
}

TEST_F(ShippedTools, BbCountIsTheTruthsBlockEntries) {
  expectBlocksEqualTruth(LOOM_TOOL_PROGRAM, *Truth);
}

TEST_F(ShippedTools, KernelArgsAreTheLaunchParameters) {
  std::string Path = tempPath("tools-kernel-args");
  CommandResult R = instrument(
      LOOM_TOOL_PROGRAM, {"--tool", "kernel_args", "--tool-arg", "output=" + Path});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_NE(R.Err.find("kernel_args: 3 dispatches, JSON lines in "),
            std::string::npos)
      << R.Err;
  std::vector<json::Value> Lines = jsonLines(Path);
  sys::fs::remove(Path);
  ASSERT_EQ(Lines.size(), 3u);
  auto Args = [&](size_t I) {
    std::map<std::string, json::Value> Out;
    for (const json::Value &A : *Lines[I].getAsObject()->getArray("args"))
      Out.emplace(A.getAsObject()->getString("name")->str(),
                  *A.getAsObject()->get("value"));
    return Out;
  };
  // Read by the hook at kernel entry: the packet and the kernarg segment
  // as the device saw them, equal to what the program set.
  EXPECT_EQ(R.Err.find("the device saw"), std::string::npos) << R.Err;
  EXPECT_EQ(R.Err.find("read on the host"), std::string::npos) << R.Err;
  for (size_t I = 0; I < 3; ++I) {
    const json::Object &O = *Lines[I].getAsObject();
    EXPECT_EQ(*O.getInteger("dispatch"), int64_t(I));
    EXPECT_EQ(O.getString("kernel")->str(), (*Truth)[I].Kernel);
    EXPECT_EQ(O.getString("source")->str(), "device");
    // HIP (ROCclr) writes 3 dimensions into every packet it dispatches.
    EXPECT_EQ(*O.getInteger("dimensions"), 3);
    EXPECT_EQ(triple(O, "grid"), (*Truth)[I].Grid);
    EXPECT_EQ(triple(O, "workgroup"), (*Truth)[I].Workgroup);
    EXPECT_EQ(triple(O, "blocks"), blocksOf((*Truth)[I]));
  }
  // 4 x 256 and 8 x 128 work-items.
  EXPECT_EQ(triple(*Lines[0].getAsObject(), "blocks"),
            (std::vector<int64_t>{4, 1, 1}));
  EXPECT_EQ(triple(*Lines[1].getAsObject(), "blocks"),
            (std::vector<int64_t>{8, 1, 1}));
  // scale(x, 2.0f, 1000), steps(in, out, 1000), scale(x, 0.5f, 1000):
  // hipcc's metadata names no argument (arg0...) and gives no type (the
  // tool takes them from the mangled name: float* float int).
  auto S0 = Args(0), S1 = Args(1), S2 = Args(2);
  ASSERT_EQ(S0.size(), 3u) << R.Err;
  ASSERT_EQ(S1.size(), 3u) << R.Err;
  EXPECT_EQ(S0.at("arg1").getAsNumber(), 2.0);
  EXPECT_EQ(S2.at("arg1").getAsNumber(), 0.5);
  EXPECT_EQ(S0.at("arg2").getAsInteger(), 1000);
  EXPECT_EQ(S1.at("arg2").getAsInteger(), 1000);
  EXPECT_EQ(S2.at("arg2").getAsInteger(), 1000);
  // Pointers: addresses, the same buffer for both scales, three buffers.
  std::string X = S0.at("arg0").getAsString()->str();
  EXPECT_TRUE(StringRef(X).starts_with("0x")) << X;
  EXPECT_EQ(S2.at("arg0").getAsString()->str(), X);
  std::set<std::string> Buffers{X, S1.at("arg0").getAsString()->str(),
                                S1.at("arg1").getAsString()->str()};
  EXPECT_EQ(Buffers.size(), 3u);
  EXPECT_EQ(Buffers.count("0x0"), 0u);
  // The types, demangled from the kernels' names.
  auto Types = [&](size_t I) {
    std::vector<std::string> Out;
    for (const json::Value &A : *Lines[I].getAsObject()->getArray("args"))
      Out.push_back(A.getAsObject()->getString("type")->str());
    return Out;
  };
  EXPECT_EQ(Types(0), (std::vector<std::string>{"float*", "float", "int"}));
  EXPECT_EQ(Types(1),
            (std::vector<std::string>{"int const*", "int*", "int"}));
}

// HIP test programs: instr_count (both modes), bb_count and kernel_args
// against the truth of the same program. Not those whose kernels run differently from
// run to run, instrumented or not: shared_atomics (compare-and-swap loops
// retry as often as waves happen to collide), device_printf (waves spin,
// s_sleep, until the host has served their hostcall). streams_events runs
// one kernel on two streams at once: each dispatch gets a copy and slots
// of its own.
class ShippedToolsOnHip : public ::testing::TestWithParam<const char *> {};

TEST_P(ShippedToolsOnHip, CountsEqualTheTruth) {
  std::string Program = std::string(LOOM_HIP_TEST_DIR) + "/hip_" + GetParam();
  std::vector<DispatchTruth> Truth = groundTruth(Program);
  ASSERT_FALSE(Truth.empty());
  expectInstrCountsEqualTruth(instrCount(Program, "instruction"), Truth);
  expectInstrCountsEqualTruth(instrCount(Program, "block"), Truth);
  expectBlocksEqualTruth(Program, Truth);
  expectKernelArgsEqualTruth(Program, Truth);
}

INSTANTIATE_TEST_SUITE_P(ShippedTools, ShippedToolsOnHip,
                         ::testing::Values("launch", "wave_intrinsics",
                                           "cooperative_groups", "memory",
                                           "kernel_ref", "symbols",
                                           "clang22_launch", "clang22_wave",
                                           "streams_events",
                                           "function_pointers"));

} // namespace
