//===- tests/tool/ToolCorpusTest.cpp - Shipped tools over the corpus ------===//
//
// The emulator's differential corpus (tests/emu/diff, -O0..-O3), built as
// emu_diff_hsa so that its dispatches go through Loom's HSA runtime, run
// under each shipped tool. The truth is the corpus run uninstrumented under
// `loom exec --counters`: with a tool attached, the counters of the same
// run count the instrumented copy (hooks, saves and restores included), so
// they are not the truth of the original code. The corpus is deterministic
// (same tests, same order, same dispatches, same inputs; one queue), so the
// N-th dispatch of the uninstrumented run is the N-th of every tool's run.
//
//  - the corpus's own checks pass under every tool (exit status 0): the
//    results are unchanged;
//  - instr_count, both modes: per dispatch, waves and lanes in all and per
//    opcode equal the truth's;
//  - opcode_hist: its CSV is the truth's opcodes summed per kernel name;
//  - bb_count: every block's entries, summed per kernel name;
//  - kernel_args: per dispatch, the kernel, grid and work-group of the
//    truth, and each argument's value, read back into bytes by its kind,
//    equal to the bytes the test passed (LOOM_DIFF_LAUNCH_LOG);
//  - mem_trace: every wave's accesses, in order, those the virtual GPU
//    recorded uninstrumented (`loom exec --memory-trace`,
//    MemoryTraceCompare.h); also on gfx942 (LOOM_DIFF_TARGET), whose stack
//    is reached with scratch_* instructions rather than buffer ones.
//    Pointers.LinkedLists is left out of it (MemTraceLeftOut says why).
//  - instr_count in block mode and bb_count on gfx942 too (the fast
//    sweep): its wait states at the seams of the once-per-wave counters'
//    lane writes (EXEC read by a VALU) and of the losses' calls.
//
// Left out of the corpus here: Counters.* (it reads the emulator's
// counters in process, which a dispatch through HSA does not return),
// Faults.* (it makes its own devices) and Atomics.* (compare-and-swap
// loops retry as often as waves collide: counts differ from run to run,
// tool or not). ControlFlow.DivergentOps calls through function pointers,
// which reach the instrumented copies: counted like the rest.
//
//===----------------------------------------------------------------------===//

#include "ToolTruth.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace llvm;
using namespace loom::test;

namespace {

struct Sweep {
  std::string Name;
  std::string Filter;
  std::string Target = ""; ///< LOOM_DIFF_TARGET, if not gfx90a
};

/// What every sweep leaves out (the file comment says why).
constexpr const char *LeftOut =
    "Counters.*:Faults.*:Atomics.*";

/// A few seconds per run on two cores, every optimisation level: integer
/// and LDS code, cross-lane operations, 3-D dispatches, pointer chasing
/// through device functions, a data-dependent loop, MFMA chains (whose
/// -O0 code indexes VGPRs: hooks inside s_set_gpr_idx_on regions).
const Sweep Fast{"fast", "IntOps.Int32/*:Lds.*:Crosslane.*:Dispatch.*:"
                         "ControlFlow.BinarySearch/*:Pointers.*:MfmaChain.*"};
/// The whole corpus but what is left out, a suite per process: the
/// counting tools' device array (65,536 slots, tools/common/CountSlots.h)
/// does not hold every kernel of the corpus at once in instruction mode.
const Sweep Full[] = {
    {"full_AmdgcnBuiltins", "AmdgcnBuiltins.*"}, {"full_ControlFlow", "ControlFlow.*"},
    {"full_Convert", "Convert.*"},   {"full_Crosslane", "Crosslane.*"},
    {"full_Dispatch", "Dispatch.*"}, {"full_FloatOps", "FloatOps.*"},
    {"full_IntOps", "IntOps.*"},     {"full_Lds", "Lds.*"},
    {"full_Pointers", "Pointers.*"}, {"full_Mfma", "Mfma.*"},
    {"full_MfmaChain", "MfmaChain.*"}};

/// The same sweeps on gfx942, for mem_trace: all but mfma.cpp's
/// (tests/emu/diff/CMakeLists.txt: gfx942 lacks its builtins).
std::vector<Sweep> onGfx942(std::vector<Sweep> Sweeps) {
  std::vector<Sweep> Out;
  for (Sweep &S : Sweeps) {
    if (StringRef(S.Name).contains("Mfma"))
      continue;
    std::string Filter;
    for (StringRef Part : split(S.Filter, ':'))
      if (!Part.starts_with("Mfma"))
        Filter += (Filter.empty() ? "" : ":") + Part.str();
    Out.push_back({"gfx942_" + S.Name, Filter, "gfx942"});
  }
  return Out;
}

/// What mem_trace's comparison leaves out besides: the nodes of
/// Pointers.LinkedLists are in a buffer no argument names (reached through
/// Heads), placed with respect to those that are differently in each run,
/// and the comparison knows buffers only by the launch's arguments
/// (MemoryTraceCompare.h), not their extents.
constexpr const char *MemTraceLeftOut = ":Pointers.LinkedLists/*";

Program corpus(const Sweep &S, std::vector<std::string> Env = {},
               const char *MoreLeftOut = "") {
  if (!S.Target.empty())
    Env.push_back("LOOM_DIFF_TARGET=" + S.Target);
  return Program({LOOM_DIFF_HSA, "--gtest_brief=1",
                  std::string("--gtest_filter=") + S.Filter + "-" + LeftOut +
                      MoreLeftOut},
                 std::move(Env));
}

void expectMemTraceOnCorpus(const Sweep &S) {
  expectMemTraceIsTheTruth(corpus(S, {}, MemTraceLeftOut),
                           /*SameOutput=*/false, "LOOM_DIFF_LAUNCH_LOG");
}

class ToolsOnCorpus : public ::testing::TestWithParam<Sweep> {
protected:
  /// The uninstrumented run's dispatches, once per sweep.
  const std::vector<DispatchTruth> &truth() {
    static std::map<std::string, std::vector<DispatchTruth>> Cache;
    auto [It, New] = Cache.try_emplace(GetParam().Name);
    if (New)
      It->second = groundTruth(corpus(GetParam()));
    return It->second;
  }
};

TEST_P(ToolsOnCorpus, MemTrace) { expectMemTraceOnCorpus(GetParam()); }

/// mem_trace alone on gfx942.
class MemTraceOnCorpus : public ::testing::TestWithParam<Sweep> {};

TEST_P(MemTraceOnCorpus, Gfx942) { expectMemTraceOnCorpus(GetParam()); }

/// Block counting alone on gfx942.
class BlockCountsOnCorpus : public ::testing::TestWithParam<Sweep> {};

TEST_P(BlockCountsOnCorpus, Gfx942) {
  std::vector<DispatchTruth> Truth = groundTruth(corpus(GetParam()));
  ASSERT_FALSE(Truth.empty());
  expectInstrCountsEqualTruth(instrCount(corpus(GetParam()), "block"), Truth);
  expectBlocksEqualTruth(corpus(GetParam()), Truth);
}

TEST_P(ToolsOnCorpus, InstrCountByInstruction) {
  const std::vector<DispatchTruth> &Truth = truth();
  ASSERT_FALSE(Truth.empty());
  expectInstrCountsEqualTruth(instrCount(corpus(GetParam()), "instruction"),
                              Truth);
}

TEST_P(ToolsOnCorpus, InstrCountByBlock) {
  const std::vector<DispatchTruth> &Truth = truth();
  ASSERT_FALSE(Truth.empty());
  expectInstrCountsEqualTruth(instrCount(corpus(GetParam()), "block"), Truth);
}

TEST_P(ToolsOnCorpus, OpcodeHist) {
  const std::vector<DispatchTruth> &Truth = truth();
  ASSERT_FALSE(Truth.empty());
  std::string Path = tempPath("tools-corpus-opcode-hist");
  CommandResult R = instrument(
      corpus(GetParam()), {"--tool", "opcode_hist", "--tool-arg", "output=" + Path});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(linesStarting(R.Err, "loom-tool:"), std::vector<std::string>())
      << R.Err;
  expectOpcodeHistEqualsTruth(Path, Truth);
}

TEST_P(ToolsOnCorpus, BbCount) {
  const std::vector<DispatchTruth> &Truth = truth();
  ASSERT_FALSE(Truth.empty());
  expectBlocksEqualTruth(corpus(GetParam()), Truth);
}

/// The bytes kernel_args' \p Value stands for, for an argument of \p Size
/// bytes: "0x..." is a little-endian number (pointers, aggregates),
/// integers are two's complement, floating-point numbers are binary32 or
/// binary64 by size, booleans a byte.
std::string valueBytes(const json::Value &Value, size_t Size) {
  std::string Bytes(Size, '\0');
  if (std::optional<StringRef> S = Value.getAsString()) {
    StringRef Digits = *S;
    if (!Digits.consume_front("0x"))
      return "not a number: " + S->str();
    for (size_t I = 0; I < Size && !Digits.empty(); ++I) {
      StringRef Byte = Digits.take_back(2);
      Digits = Digits.drop_back(Byte.size());
      unsigned V = 0;
      if (Byte.getAsInteger(16, V))
        return "not a number: " + S->str();
      Bytes[I] = char(V);
    }
    return Bytes;
  }
  if (std::optional<bool> B = Value.getAsBoolean()) {
    Bytes[0] = *B;
    return Bytes;
  }
  if (std::optional<int64_t> I = Value.getAsInteger()) {
    std::memcpy(Bytes.data(), &*I, std::min<size_t>(Size, 8));
    return Bytes;
  }
  if (std::optional<uint64_t> U = Value.getAsUINT64()) {
    std::memcpy(Bytes.data(), &*U, std::min<size_t>(Size, 8));
    return Bytes;
  }
  if (std::optional<double> D = Value.getAsNumber()) {
    if (Size == 4) {
      float F = float(*D);
      std::memcpy(Bytes.data(), &F, 4);
    } else if (Size == 8) {
      std::memcpy(Bytes.data(), &*D, 8);
    }
    return Bytes;
  }
  return "an unexpected JSON value";
}

TEST_P(ToolsOnCorpus, KernelArgsAreTheLaunchParameters) {
  const std::vector<DispatchTruth> &Truth = truth();
  ASSERT_FALSE(Truth.empty());
  std::string Out = tempPath("tools-corpus-kernel-args"),
              Log = tempPath("tools-corpus-launches");
  CommandResult R =
      instrument(corpus(GetParam(), {"LOOM_DIFF_LAUNCH_LOG=" + Log}),
                 {"--tool", "kernel_args", "--tool-arg", "output=" + Out});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(R.Err.find("the device saw"), std::string::npos) << R.Err;
  std::vector<json::Value> Lines = jsonLines(Out), Launches = jsonLines(Log);
  sys::fs::remove(Out);
  sys::fs::remove(Log);
  ASSERT_EQ(Lines.size(), Truth.size());
  ASSERT_EQ(Launches.size(), Truth.size());
  size_t Checked = 0;
  for (size_t I = 0; I < Lines.size(); ++I) {
    const json::Object &O = *Lines[I].getAsObject(),
                       &L = *Launches[I].getAsObject();
    std::string Kernel = O.getString("kernel")->str();
    ASSERT_EQ(*O.getInteger("dispatch"), int64_t(I));
    ASSERT_EQ(Kernel, Truth[I].Kernel);
    ASSERT_EQ(Kernel, L.getString("kernel")->str());
    EXPECT_EQ(triple(O, "grid"), Truth[I].Grid) << Kernel;
    EXPECT_EQ(triple(O, "workgroup"), Truth[I].Workgroup) << Kernel;
    EXPECT_EQ(triple(O, "grid"), triple(L, "grid")) << Kernel;
    EXPECT_EQ(triple(O, "workgroup"), triple(L, "workgroup")) << Kernel;
    // Read by the kernel's first wave; its grid in work-groups from the
    // hidden arguments the runtime filled (code object v5), or from the
    // packet.
    EXPECT_EQ(O.getString("source")->str(), "device") << Kernel;
    EXPECT_EQ(triple(O, "blocks"), blocksOf(Truth[I])) << Kernel;
    const json::Array &Args = *O.getArray("args"), &Set = *L.getArray("args");
    ASSERT_EQ(Args.size(), Set.size()) << Kernel;
    for (size_t A = 0; A < Args.size(); ++A) {
      const json::Object &Arg = *Args[A].getAsObject();
      std::string Want = fromHex(*Set[A].getAsString());
      ASSERT_EQ(uint64_t(*Arg.getInteger("size")), Want.size()) << Kernel;
      EXPECT_EQ(toHex(valueBytes(*Arg.get("value"), Want.size()), true),
                toHex(Want, true))
          << Kernel << " argument " << A << ": "
          << formatv("{0}", *Arg.get("value")).str();
      ++Checked;
    }
  }
  EXPECT_GT(Checked, Truth.size());
}

void PrintTo(const Sweep &S, std::ostream *OS) { *OS << S.Name; }

std::string sweepName(const ::testing::TestParamInfo<Sweep> &I) {
  return I.param.Name;
}
INSTANTIATE_TEST_SUITE_P(Fast, ToolsOnCorpus, ::testing::Values(Fast),
                         sweepName);
INSTANTIATE_TEST_SUITE_P(Full, ToolsOnCorpus, ::testing::ValuesIn(Full),
                         sweepName);
INSTANTIATE_TEST_SUITE_P(Fast, MemTraceOnCorpus,
                         ::testing::ValuesIn(onGfx942({Fast})), sweepName);
INSTANTIATE_TEST_SUITE_P(Fast, BlockCountsOnCorpus,
                         ::testing::ValuesIn(onGfx942({Fast})), sweepName);
INSTANTIATE_TEST_SUITE_P(Full, MemTraceOnCorpus,
                         ::testing::ValuesIn(onGfx942(std::vector<Sweep>(
                             std::begin(Full), std::end(Full)))),
                         sweepName);

} // namespace
