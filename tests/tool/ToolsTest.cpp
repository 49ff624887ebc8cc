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

#include "../support/RunCommand.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

using namespace llvm;
using namespace loom::test;

namespace {

using WavesLanes = std::pair<uint64_t, uint64_t>;

struct DispatchTruth {
  std::string Kernel;
  std::vector<int64_t> Grid, Workgroup;
  uint64_t Waves = 0, Lanes = 0;
  std::map<std::string, WavesLanes> Opcodes;
  std::map<std::string, uint64_t> Blocks;
};

std::vector<json::Value> jsonLines(StringRef Path) {
  std::vector<json::Value> Out;
  auto Buf = MemoryBuffer::getFile(Path);
  if (!Buf) {
    ADD_FAILURE() << "no file " << Path.str();
    return Out;
  }
  SmallVector<StringRef, 8> Lines;
  (*Buf)->getBuffer().split(Lines, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef L : Lines) {
    Expected<json::Value> V = json::parse(L);
    if (!V) {
      ADD_FAILURE() << toString(V.takeError()) << ": " << L.str();
      continue;
    }
    Out.push_back(std::move(*V));
  }
  return Out;
}

std::map<std::string, WavesLanes> opcodes(const json::Object &O) {
  std::map<std::string, WavesLanes> Out;
  for (const auto &[Name, V] : *O.getObject("opcodes")) {
    const json::Array &A = *V.getAsArray();
    Out[Name.str()] = {uint64_t(*A[0].getAsInteger()),
                       uint64_t(*A[1].getAsInteger())};
  }
  return Out;
}

std::vector<int64_t> triple(const json::Object &O, StringRef Key) {
  std::vector<int64_t> Out;
  for (const json::Value &V : *O.getArray(Key))
    Out.push_back(*V.getAsInteger());
  return Out;
}

std::string tempPath(StringRef Name) {
  SmallString<128> Path;
  sys::fs::createTemporaryFile(Name, "out", Path);
  return std::string(Path);
}

/// \p Program's dispatches, as the virtual GPU counted them.
std::vector<DispatchTruth> groundTruth(const std::string &Program) {
  std::string Path = tempPath("tools-truth");
  CommandResult R =
      runCommand({LOOM_BIN, "exec", "--counters", Path, "--", Program});
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  std::vector<DispatchTruth> Out;
  for (const json::Value &V : jsonLines(Path)) {
    const json::Object &O = *V.getAsObject();
    DispatchTruth T;
    T.Kernel = O.getString("kernel")->str();
    T.Grid = triple(O, "grid");
    T.Workgroup = triple(O, "workgroup");
    T.Waves = *O.getInteger("wave_instructions");
    T.Lanes = *O.getInteger("lane_instructions");
    T.Opcodes = opcodes(O);
    for (const auto &[Name, N] : *O.getObject("blocks"))
      T.Blocks[Name.str()] = *N.getAsInteger();
    Out.push_back(std::move(T));
  }
  sys::fs::remove(Path);
  return Out;
}

CommandResult instrument(const std::string &Program,
                         std::vector<std::string> Options) {
  std::vector<std::string> Args{LOOM_BIN, "instrument"};
  Args.insert(Args.end(), Options.begin(), Options.end());
  Args.insert(Args.end(), {"--", Program});
  return runCommand(Args);
}

std::vector<std::string> linesStarting(StringRef Text, StringRef Prefix) {
  std::vector<std::string> Out;
  SmallVector<StringRef, 32> All;
  Text.split(All, '\n');
  for (StringRef L : All)
    if (L.starts_with(Prefix))
      Out.push_back(L.str());
  return Out;
}

/// instr_count's JSON lines for \p Program in \p Mode.
std::vector<json::Value> instrCount(const std::string &Program,
                                    StringRef Mode,
                                    std::vector<std::string> More = {}) {
  std::string Path = tempPath("tools-instr-count");
  std::vector<std::string> Options{"--tool",     "instr_count",
                                   "--tool-arg", "mode=" + Mode.str(),
                                   "--tool-arg", "output=" + Path};
  Options.insert(Options.end(), More.begin(), More.end());
  CommandResult R = instrument(Program, Options);
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(linesStarting(R.Err, "loom-tool:"), std::vector<std::string>())
      << R.Err;
  EXPECT_EQ(linesStarting(R.Err, "instr_count: ").size() >= 1, true);
  std::vector<json::Value> Out = jsonLines(Path);
  sys::fs::remove(Path);
  return Out;
}

/// instr_count's lines in \p Mode against \p Truth, dispatch by dispatch.
void expectInstrCountsEqualTruth(const std::vector<json::Value> &Counts,
                                 const std::vector<DispatchTruth> &Truth,
                                 bool Every = true) {
  if (Every)
    ASSERT_EQ(Counts.size(), Truth.size());
  for (const json::Value &V : Counts) {
    const json::Object &O = *V.getAsObject();
    uint64_t D = *O.getInteger("dispatch");
    ASSERT_LT(D, Truth.size());
    const DispatchTruth &T = Truth[D];
    std::string Kernel = O.getString("kernel")->str();
    ASSERT_EQ(Kernel, T.Kernel);
    EXPECT_EQ(uint64_t(*O.getInteger("lane_instructions")), T.Lanes) << Kernel;
    uint64_t Waves = *O.getInteger("wave_instructions");
    EXPECT_EQ(Waves, T.Waves) << Kernel;
    std::map<std::string, WavesLanes> Ops = opcodes(O);
    for (const auto &[Op, N] : T.Opcodes) {
      EXPECT_EQ(Ops[Op].second, N.second) << Kernel << " " << Op;
      EXPECT_EQ(Ops[Op].first, N.first) << Kernel << " " << Op;
    }
    for (const auto &[Op, N] : Ops)
      EXPECT_TRUE(T.Opcodes.count(Op)) << Kernel << " counted " << Op;
  }
}

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
  std::map<std::string, std::map<std::string, WavesLanes>> Want, Got;
  for (const DispatchTruth &T : *Truth)
    for (const auto &[Op, N] : T.Opcodes) {
      Want[T.Kernel][Op].first += N.first;
      Want[T.Kernel][Op].second += N.second;
    }
  auto Buf = MemoryBuffer::getFile(Path);
  ASSERT_TRUE(bool(Buf));
  SmallVector<StringRef, 64> Lines;
  (*Buf)->getBuffer().split(Lines, '\n', -1, false);
  ASSERT_FALSE(Lines.empty());
  EXPECT_EQ(Lines[0], "kernel,opcode,waves,lanes");
  for (StringRef L : ArrayRef(Lines).drop_front()) {
    SmallVector<StringRef, 4> F;
    L.split(F, ',');
    ASSERT_EQ(F.size(), 4u) << L.str();
    Got[F[0].str()][F[1].str()] = {std::stoull(F[2].str()),
                                   std::stoull(F[3].str())};
  }
  sys::fs::remove(Path);
  ASSERT_EQ(Got.size(), Want.size());
  for (auto &[Kernel, Ops] : Want) {
    for (auto &[Op, N] : Ops) {
      EXPECT_EQ(Got[Kernel][Op].second, N.second) << Kernel << " " << Op;
      EXPECT_EQ(Got[Kernel][Op].first, N.first) << Kernel << " " << Op;
    }
    EXPECT_EQ(Got[Kernel].size(), Ops.size()) << Kernel;
  }
}

/// bb_count's JSON blocks against the truth's block entries, per kernel.
void expectBlocksEqualTruth(const std::string &Program,
                            const std::vector<DispatchTruth> &Truth) {
  std::string Path = tempPath("tools-bb-count");
  CommandResult R =
      instrument(Program, {"--tool", "bb_count", "--tool-arg", "output=" + Path});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(linesStarting(R.Err, "loom-tool:"), std::vector<std::string>())
      << R.Err;
  std::map<std::string, std::map<std::string, uint64_t>> Want;
  for (const DispatchTruth &T : Truth)
    for (const auto &[Block, N] : T.Blocks)
      Want[T.Kernel][Block] += N;
  auto Buf = MemoryBuffer::getFile(Path);
  ASSERT_TRUE(bool(Buf)) << R.Err;
  Expected<json::Value> Doc = json::parse((*Buf)->getBuffer());
  ASSERT_TRUE(bool(Doc)) << toString(Doc.takeError());
  sys::fs::remove(Path);
  size_t Kernels = 0;
  for (const json::Value &K : *Doc->getAsObject()->getArray("kernels")) {
    const json::Object &O = *K.getAsObject();
    std::string Kernel = O.getString("kernel")->str();
    ++Kernels;
    ASSERT_TRUE(Want.count(Kernel)) << Kernel;
    const auto &Truths = Want[Kernel];
    uint64_t Entered = 0;
    for (const auto &[Block, V] : *O.getObject("blocks")) {
      uint64_t N = *V.getAsInteger();
      Entered += N != 0;
      auto It = Truths.find(Block.str());
      uint64_t T = It == Truths.end() ? 0 : It->second;
      EXPECT_EQ(N, T) << Kernel << " " << Block.str();
    }
    EXPECT_EQ(uint64_t(*O.getInteger("blocks_entered")), Entered);
    // Every block the truth saw entered is one of the tool's.
    for (const auto &[Block, N] : Truths)
      EXPECT_TRUE(O.getObject("blocks")->get(Block)) << Kernel << " " << Block;
  }
  EXPECT_EQ(Kernels, Want.size());
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
  for (size_t I = 0; I < 3; ++I) {
    const json::Object &O = *Lines[I].getAsObject();
    EXPECT_EQ(*O.getInteger("dispatch"), int64_t(I));
    EXPECT_EQ(O.getString("kernel")->str(), (*Truth)[I].Kernel);
    EXPECT_EQ(triple(O, "grid"), (*Truth)[I].Grid);
    EXPECT_EQ(triple(O, "workgroup"), (*Truth)[I].Workgroup);
  }
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
}

// HIP test programs: instr_count (both modes) and bb_count against the
// truth of the same program. Not those whose kernels run differently from
// run to run, instrumented or not: shared_atomics (compare-and-swap loops
// retry as often as waves happen to collide), device_printf (waves spin,
// s_sleep, until the host has served their hostcall), streams_events
// (kernels of several streams at once share the tools' counters).
class ShippedToolsOnHip : public ::testing::TestWithParam<const char *> {};

TEST_P(ShippedToolsOnHip, CountsEqualTheTruth) {
  std::string Program = std::string(LOOM_HIP_TEST_DIR) + "/hip_" + GetParam();
  std::vector<DispatchTruth> Truth = groundTruth(Program);
  ASSERT_FALSE(Truth.empty());
  expectInstrCountsEqualTruth(instrCount(Program, "instruction"), Truth);
  expectInstrCountsEqualTruth(instrCount(Program, "block"), Truth);
  expectBlocksEqualTruth(Program, Truth);
}

INSTANTIATE_TEST_SUITE_P(ShippedTools, ShippedToolsOnHip,
                         ::testing::Values("launch", "wave_intrinsics",
                                           "cooperative_groups", "memory",
                                           "kernel_ref", "symbols",
                                           "clang22_launch", "clang22_wave"));

} // namespace
