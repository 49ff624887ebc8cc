//===- tests/tool/ToolTest.cpp - Tools on a real HIP program --------------===//
//
// tool_program (three dispatches of two kernels, built by hipcc) runs under
// `loom instrument` and under HSA_TOOLS_LIB with the shipped instr_count
// (tools/instr_count) and the example one (examples/tools/instr_count,
// registered as example_instr_count), the probe (every callback, options,
// globals) and bad_hook (hooks that cannot be compiled). The program's
// stdout must never change; instr_count's counts must equal what the
// virtual GPU counted (`loom exec --counters`). The shipped tools' own
// checks are in ToolsTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "ToolTruth.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Regex.h"

#include <gtest/gtest.h>

using namespace llvm;
using namespace loom::test;

namespace {

struct Counted {
  uint64_t Dispatch;
  std::string Kernel;
  uint64_t Waves, Lanes;
};

/// instr_count's dispatch lines ("instr_count: dispatch 1 _Z5...: 7
/// wave-instructions, 9 lane-instructions"), or those of the tool \p Tool
/// printing the same (the example).
std::vector<Counted> instrCounts(StringRef Err,
                                 StringRef Tool = "instr_count") {
  std::vector<Counted> Out;
  Regex Line(("^" + Tool + ": dispatch ([0-9]+) ([^:]+): ([0-9]+) "
              "wave-instructions, ([0-9]+) lane-instructions$")
                 .str());
  for (const std::string &L : linesStarting(Err, (Tool + ": dispatch ").str())) {
    SmallVector<StringRef, 5> M;
    if (!Line.match(L, &M)) {
      ADD_FAILURE() << "unexpected line: " << L;
      continue;
    }
    Out.push_back({std::stoull(M[1].str()), M[2].str(), std::stoull(M[3].str()),
                   std::stoull(M[4].str())});
  }
  return Out;
}

class ToolRuntimeTest : public ::testing::Test {
protected:
  /// The program under `loom exec --counters`, once: its stdout, and what
  /// the virtual GPU counted per dispatch.
  static void SetUpTestSuite() {
    SmallString<128> Path;
    sys::fs::createTemporaryFile("tool-counters", "jsonl", Path);
    CommandResult R = runCommand({LOOM_BIN, "exec", "--counters",
                                  std::string(Path), "--", LOOM_TOOL_PROGRAM});
    ASSERT_EQ(R.ExitCode, 0) << R.Err;
    Baseline = new std::string(R.Out);
    Truth = new std::vector<Counted>;
    auto Buf = MemoryBuffer::getFile(Path);
    ASSERT_TRUE(bool(Buf));
    SmallVector<StringRef, 4> Lines;
    (*Buf)->getBuffer().split(Lines, '\n', -1, /*KeepEmpty=*/false);
    for (StringRef L : Lines) {
      Expected<json::Value> V = json::parse(L);
      ASSERT_TRUE(bool(V)) << toString(V.takeError());
      const json::Object &D = *V->getAsObject();
      Truth->push_back({uint64_t(*D.getInteger("dispatch")),
                        D.getString("kernel")->str(),
                        uint64_t(*D.getInteger("wave_instructions")),
                        uint64_t(*D.getInteger("lane_instructions"))});
    }
    sys::fs::remove(Path);
  }

  static CommandResult instrument(std::vector<std::string> Options) {
    std::vector<std::string> Args{LOOM_BIN, "instrument"};
    Args.insert(Args.end(), Options.begin(), Options.end());
    Args.insert(Args.end(), {"--", LOOM_TOOL_PROGRAM});
    return runCommand(Args);
  }

  /// \p Counts against the ground truth of the same dispatches. Hooks run
  /// in active lanes, so a wave executing an instruction with EXEC empty
  /// (the tail of a loop all lanes have left) is not counted: wave counts
  /// are exact only for kernels that never do that, as scale.
  static void expectTruth(const std::vector<Counted> &Counts) {
    for (const Counted &C : Counts) {
      ASSERT_LT(C.Dispatch, Truth->size());
      const Counted &T = (*Truth)[C.Dispatch];
      EXPECT_EQ(C.Kernel, T.Kernel);
      EXPECT_EQ(C.Lanes, T.Lanes) << C.Kernel;
      if (C.Kernel == "_Z5scalePffi")
        EXPECT_EQ(C.Waves, T.Waves) << C.Kernel;
      else
        EXPECT_LE(C.Waves, T.Waves) << C.Kernel;
      EXPECT_GT(C.Waves, T.Waves * 9 / 10) << C.Kernel;
    }
  }

  static std::string *Baseline;
  static std::vector<Counted> *Truth;
};
std::string *ToolRuntimeTest::Baseline;
std::vector<Counted> *ToolRuntimeTest::Truth;

TEST_F(ToolRuntimeTest, GroundTruthIsThreeDispatches) {
  ASSERT_EQ(Truth->size(), 3u);
  EXPECT_EQ((*Truth)[0].Kernel, "_Z5scalePffi");
  EXPECT_EQ((*Truth)[1].Kernel, "_Z5stepsPKiPii");
  EXPECT_EQ((*Truth)[2].Kernel, "_Z5scalePffi");
  EXPECT_NE(Baseline->find("steps ok"), std::string::npos);
}

TEST_F(ToolRuntimeTest, InstrCountMatchesTheVirtualGpu) {
  CommandResult R = instrument({"--tool", "instr_count"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(R.Out, *Baseline);
  EXPECT_EQ(linesStarting(R.Err, "loom-tool:"), std::vector<std::string>()) << R.Err;
  std::vector<Counted> Counts = instrCounts(R.Err);
  ASSERT_EQ(Counts.size(), 3u) << R.Err;
  for (uint64_t I = 0; I < 3; ++I)
    EXPECT_EQ(Counts[I].Dispatch, I);
  expectTruth(Counts);
}

TEST_F(ToolRuntimeTest, HsaToolsLibWithoutLoomInstrument) {
  CommandResult R =
      runCommand({LOOM_BIN, "exec", "--", LOOM_TOOL_PROGRAM},
                 {std::string("HSA_TOOLS_LIB=") + LOOM_INSTR_COUNT,
                  "LOOM_TOOL_ARGS=dispatch=2"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(R.Out, *Baseline);
  std::vector<Counted> Counts = instrCounts(R.Err, "example_instr_count");
  ASSERT_EQ(Counts.size(), 1u) << R.Err;
  EXPECT_EQ(Counts[0].Dispatch, 2u);
  expectTruth(Counts);
}

TEST_F(ToolRuntimeTest, OnlyTheChosenDispatchIsInstrumented) {
  CommandResult R =
      instrument({"--tool", "instr_count", "--tool-arg", "dispatch=1"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(R.Out, *Baseline);
  std::vector<Counted> Counts = instrCounts(R.Err);
  ASSERT_EQ(Counts.size(), 1u) << R.Err;
  EXPECT_EQ(Counts[0].Dispatch, 1u);
  EXPECT_EQ(Counts[0].Kernel, "_Z5stepsPKiPii");
  expectTruth(Counts);
}

TEST_F(ToolRuntimeTest, ProbeSeesEveryCallbackOptionsAndGlobals) {
  CommandResult R = instrument(
      {"--tool", LOOM_PROBE_TOOL, "--tool-arg", "probe:greeting=hello",
       "--tool-arg", "shared=yes", "--tool-arg", "other:greeting=not-mine"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(R.Out, *Baseline);
  // HIP loads more than the program's code object: any number will do.
  std::vector<std::string> Probe = linesStarting(R.Err, "probe:");
  ASSERT_FALSE(Probe.empty()) << R.Err;
  EXPECT_TRUE(Regex("^probe: fini code_objects [1-9][0-9]* frozen [1-9][0-9]* "
                    "completed 3$")
                  .match(Probe.back()))
      << Probe.back();
  Probe.pop_back();
  EXPECT_EQ(
      Probe,
      (std::vector<std::string>{
          "probe: init greeting=hello shared=yes",
          "probe: dispatch 0 _Z5scalePffi grid 1024 workgroup 256",
          "probe: global round trip 4660",
          "probe: missing global: the hooks define no global 'NoSuchGlobal' "
          "(LOOM_DEVICE, at global scope)",
          "probe: complete 0 instrumented 0",
          "probe: dispatch 1 _Z5stepsPKiPii grid 1024 workgroup 128",
          "probe: complete 1 instrumented 0",
          "probe: dispatch 2 _Z5scalePffi grid 1024 workgroup 256",
          "probe: complete 2 instrumented 0"}))
      << R.Err;
}

TEST_F(ToolRuntimeTest, ProbeInstrumentsEachKernelOnce) {
  CommandResult R =
      instrument({"--tool", LOOM_PROBE_TOOL, "--tool-arg", "instrument=1"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(R.Out, *Baseline);
  std::vector<std::string> Instrumented = linesStarting(R.Err, "probe: instrument");
  // steps calls collatzSteps: two functions.
  EXPECT_EQ(Instrumented,
            (std::vector<std::string>{
                "probe: instrument _Z5scalePffi (1 functions)",
                "probe: instrument _Z5stepsPKiPii (2 functions)"}))
      << R.Err;
  EXPECT_EQ(linesStarting(R.Err, "probe: complete"),
            (std::vector<std::string>{"probe: complete 0 instrumented 1",
                                      "probe: complete 1 instrumented 1",
                                      "probe: complete 2 instrumented 1"}))
      << R.Err;
  EXPECT_EQ(linesStarting(R.Err, "loom-tool:"), std::vector<std::string>()) << R.Err;
}

TEST_F(ToolRuntimeTest, TwoToolsAtOnce) {
  CommandResult R =
      instrument({"--tool", "instr_count", "--tool", LOOM_PROBE_TOOL,
                  "--tool-arg", "probe:instrument=1"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(R.Out, *Baseline);
  std::vector<Counted> Counts = instrCounts(R.Err);
  ASSERT_EQ(Counts.size(), 3u) << R.Err;
  expectTruth(Counts);
  EXPECT_EQ(linesStarting(R.Err, "probe: complete").size(), 3u) << R.Err;
  EXPECT_EQ(linesStarting(R.Err, "probe: instrument").size(), 2u) << R.Err;
  EXPECT_EQ(linesStarting(R.Err, "loom-tool:"), std::vector<std::string>()) << R.Err;
}

TEST_F(ToolRuntimeTest, HooksThatDoNotCompileLeaveTheOriginalCode) {
  CommandResult R = instrument({"--tool", LOOM_BAD_HOOK_TOOL});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(R.Out, *Baseline);
  // Once per kernel, though scale runs twice.
  std::vector<std::string> Errors = linesStarting(R.Err, "loom-tool:");
  ASSERT_EQ(Errors.size(), 2u) << R.Err;
  EXPECT_TRUE(StringRef(Errors[0]).starts_with(
      "loom-tool: bad_hook: _Z5scalePffi: the hooks call "))
      << Errors[0];
  EXPECT_TRUE(StringRef(Errors[1]).starts_with(
      "loom-tool: bad_hook: _Z5stepsPKiPii: the hooks call "))
      << Errors[1];
  for (const std::string &E : Errors) {
    EXPECT_NE(E.find("loom_test_undefined_function"), std::string::npos) << E;
    EXPECT_TRUE(StringRef(E).ends_with("(running the original code)")) << E;
  }
}

/// The JSON objects of a `loom instrument --timing` file.
std::vector<json::Object> timingLines(StringRef Path) {
  std::vector<json::Object> Out;
  auto Buf = MemoryBuffer::getFile(Path);
  if (!Buf) {
    ADD_FAILURE() << Path.str() << ": " << Buf.getError().message();
    return Out;
  }
  SmallVector<StringRef, 4> Lines;
  (*Buf)->getBuffer().split(Lines, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef L : Lines) {
    Expected<json::Value> V = json::parse(L);
    if (!V) {
      ADD_FAILURE() << toString(V.takeError()) << ": " << L.str();
      continue;
    }
    Out.push_back(std::move(*V->getAsObject()));
  }
  return Out;
}

TEST_F(ToolRuntimeTest, TimingHasALinePerCopyWithItsStages) {
  SmallString<128> Path;
  sys::fs::createTemporaryFile("tool-timing", "jsonl", Path);
  // Two runs append to one file: scale and steps, twice.
  for (int Run = 0; Run < 2; ++Run) {
    CommandResult R = instrument({"--tool", "instr_count", "--timing",
                                  std::string(Path)});
    ASSERT_EQ(R.ExitCode, 0) << R.Err;
    EXPECT_EQ(R.Out, *Baseline);
  }
  std::vector<json::Object> Copies = timingLines(Path);
  sys::fs::remove(Path);
  ASSERT_EQ(Copies.size(), 4u);
  for (size_t I = 0; I < Copies.size(); ++I) {
    const json::Object &C = Copies[I];
    EXPECT_EQ(C.getString("kernel"),
              I % 2 ? "_Z5stepsPKiPii" : "_Z5scalePffi");
    EXPECT_EQ(C.getString("tools"), "instr_count");
    EXPECT_EQ(C.getBoolean("made"), true);
    EXPECT_TRUE(C.getString("code_object").has_value());
    // steps calls collatzSteps: more instructions than scale.
    EXPECT_GT(*C.getInteger("instructions"), I % 2 ? 30 : 10);
    int64_t Sum = 0;
    for (const char *Stage : {"lift_us", "instrument_us", "hooks_us",
                              "codegen_us", "load_us"}) {
      ASSERT_TRUE(C.getInteger(Stage).has_value()) << Stage;
      EXPECT_GE(*C.getInteger(Stage), 0) << Stage;
      Sum += *C.getInteger(Stage);
    }
    // Each stage rounded to a microsecond on its own.
    EXPECT_NEAR(double(*C.getInteger("total_us")), double(Sum), 3.0);
    EXPECT_GT(*C.getInteger("codegen_us"), 0);
    EXPECT_GT(*C.getInteger("lift_us"), 0);
  }
  // The hooks are compiled for a process's first copy.
  for (size_t I : {0, 2})
    EXPECT_GT(*Copies[I].getInteger("hooks_us"),
              *Copies[I + 1].getInteger("hooks_us"));
}

TEST_F(ToolRuntimeTest, TimingSaysWhichCopiesFailed) {
  SmallString<128> Path;
  sys::fs::createTemporaryFile("tool-timing", "jsonl", Path);
  CommandResult R = instrument(
      {"--tool", LOOM_BAD_HOOK_TOOL, "--timing", std::string(Path)});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  std::vector<json::Object> Copies = timingLines(Path);
  sys::fs::remove(Path);
  ASSERT_EQ(Copies.size(), 2u);
  for (const json::Object &C : Copies)
    EXPECT_EQ(C.getBoolean("made"), false);
}

TEST(ToolCli, TimingFileThatCannotBeWritten) {
  CommandResult R =
      runCommand({LOOM_BIN, "instrument", "--tool", "instr_count", "--timing",
                  "/nonexistent-dir/timing.jsonl", "--", LOOM_TOOL_PROGRAM});
  // The program runs and is counted; the runtime says why there is no file.
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_NE(R.Err.find("loom-tool: cannot write "
                       "/nonexistent-dir/timing.jsonl: "),
            std::string::npos)
      << R.Err;
  EXPECT_EQ(instrCounts(R.Err).size(), 3u) << R.Err;
}

// The HIP test programs (tests/hip) still pass with every kernel counted:
// several streams (queues, dispatches from several threads), device
// globals shared between original and instrumented code, cooperative
// groups.
class HipProgramUnderTool : public ::testing::TestWithParam<const char *> {};

TEST_P(HipProgramUnderTool, PassesAndIsCounted) {
  std::string Program = std::string(LOOM_HIP_TEST_DIR) + "/hip_" + GetParam();
  CommandResult R = runCommand(
      {LOOM_BIN, "instrument", "--tool", "instr_count", "--", Program});
  EXPECT_EQ(R.ExitCode, 0) << R.Out << R.Err;
  EXPECT_EQ(linesStarting(R.Err, "loom-tool:"), std::vector<std::string>()) << R.Err;
  EXPECT_FALSE(instrCounts(R.Err).empty()) << R.Err;
}

INSTANTIATE_TEST_SUITE_P(ToolRuntime, HipProgramUnderTool,
                         ::testing::Values("streams_events", "symbols",
                                           "cooperative_groups"));

// Transparency: each HIP test program, with a hook that clobbers every
// register a hook may before and after every instruction, at every block
// entry, kernel entry and exit, prints what it prints uninstrumented and
// exits the same way; every kernel was instrumented (no warning), and its
// hooks ran.
class HipProgramUnderClobber : public ::testing::TestWithParam<const char *> {};

TEST_P(HipProgramUnderClobber, ResultsUnchanged) {
  std::string Program = std::string(LOOM_HIP_TEST_DIR) + "/hip_" + GetParam();
  CommandResult Plain = runCommand({LOOM_BIN, "exec", "--", Program});
  CommandResult R = runCommand(
      {LOOM_BIN, "instrument", "--tool", LOOM_CLOBBER_TOOL, "--", Program});
  ASSERT_EQ(Plain.ExitCode, 0) << Plain.Out << Plain.Err;
  EXPECT_EQ(R.ExitCode, 0) << R.Out << R.Err;
  // Timings ("round 1: 13.303 ms") differ from run to run.
  auto Results = [](StringRef Out) {
    SmallVector<StringRef, 16> Lines;
    Out.split(Lines, '\n');
    std::string Kept;
    for (StringRef L : Lines)
      if (!L.ends_with(" ms"))
        Kept += L.str() + "\n";
    return Kept;
  };
  EXPECT_EQ(Results(R.Out), Results(Plain.Out));
  EXPECT_EQ(linesStarting(R.Err, "loom-tool:"), std::vector<std::string>()) << R.Err;
  // Every kind of point ran. (Summed over the dispatches: dispatches on
  // several streams at once share the tool's counters, so one may see
  // another's counts.)
  std::vector<std::string> Counts = linesStarting(R.Err, "clobber: dispatch");
  ASSERT_FALSE(Counts.empty()) << R.Err;
  uint64_t Sums[5] = {};
  Regex Line("before ([0-9]+) after ([0-9]+) blocks ([0-9]+) entries ([0-9]+) "
             "exits ([0-9]+)$");
  for (const std::string &C : Counts) {
    SmallVector<StringRef, 6> M;
    ASSERT_TRUE(Line.match(C, &M)) << C;
    for (int I = 0; I < 5; ++I)
      Sums[I] += std::stoull(M[I + 1].str());
  }
  for (int I = 0; I < 5; ++I)
    EXPECT_GT(Sums[I], 0u) << "point kind " << I << "\n" << R.Err;
}

// Not here: device_props and module (no kernel of their own to run),
// fault (faults on purpose), hardening (misuse on purpose), streams_events
// (it checks that a long kernel takes longer than a short one, which a
// loaded machine can make fail uninstrumented; it runs under instr_count
// above).
INSTANTIATE_TEST_SUITE_P(
    ToolRuntime, HipProgramUnderClobber,
    ::testing::Values("clang22_launch", "clang22_symbols", "clang22_wave",
                      "cooperative_groups", "device_malloc", "device_printf",
                      "function_pointers", "kernel_ref",
                      "launch", "memory", "shared_atomics", "symbols",
                      "wave_intrinsics"));

TEST(ToolCli, BadToolsAndArguments) {
  CommandResult R = runCommand(
      {LOOM_BIN, "instrument", "--tool", "no_such", "--", LOOM_TOOL_PROGRAM});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_NE(R.Err.find("loom instrument: no tool no_such"), std::string::npos)
      << R.Err;
  R = runCommand({LOOM_BIN, "instrument", "--tool", "instr_count", "--tool-arg",
                  "novalue", "--", LOOM_TOOL_PROGRAM});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_NE(R.Err.find("expected NAME=VALUE"), std::string::npos) << R.Err;
  // A tool whose init fails is left out; the program runs.
  R = runCommand({LOOM_BIN, "instrument", "--tool", "instr_count", "--tool-arg",
                  "dispatch=x", "--", LOOM_TOOL_PROGRAM});
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_NE(R.Err.find("loom-tool: instr_count: init failed: dispatch=x: not "
                       "a number N or a range N-M (the tool is not used)"),
            std::string::npos)
      << R.Err;
}

// find_package(Loom) + loom_add_tool outside Loom's tree: the example tool,
// configured against an install of Loom's tool kit, built and run.
TEST_F(ToolRuntimeTest, OutOfTreeToolAgainstAnInstall) {
  SmallString<128> Dir;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("loom-tool-sdk", Dir));
  std::string Prefix = (Dir + "/prefix").str(), Build = (Dir + "/build").str();
  CommandResult R =
      runCommand({LOOM_CMAKE, "--install", LOOM_BUILD_DIR, "--prefix", Prefix});
  ASSERT_EQ(R.ExitCode, 0) << R.Out << R.Err;
  R = runCommand(
      {LOOM_CMAKE, "-S", LOOM_SOURCE_DIR "/examples/tools/instr_count", "-B",
       Build, "-G", "Ninja", "-DCMAKE_CXX_COMPILER=" LOOM_CXX_COMPILER,
       "-DCMAKE_PREFIX_PATH=" + Prefix, "-DLOOM_TOOL_TARGETS=gfx90a"});
  ASSERT_EQ(R.ExitCode, 0) << R.Out << R.Err;
  R = runCommand({LOOM_CMAKE, "--build", Build});
  ASSERT_EQ(R.ExitCode, 0) << R.Out << R.Err;
  R = instrument({"--tool", Build + "/libexample_instr_count.so"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(R.Out, *Baseline);
  std::vector<Counted> Counts = instrCounts(R.Err, "example_instr_count");
  ASSERT_EQ(Counts.size(), 3u) << R.Err;
  expectTruth(Counts);
  sys::fs::remove_directories(Dir);
}

} // namespace
