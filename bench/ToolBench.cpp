//===- bench/ToolBench.cpp - What the shipped tools cost a kernel ---------===//
//
//   build/bin/tool_bench [--quick | --programs] [--repeat N]
//                        [--tool NAME[:K=V,...]]...
//
// For each kernel of the differential corpus (emu_diff_hsa, a process per
// suite and optimisation level) and of each HIP test program, or with
// --programs of each program of the realistic set (bench/programs: larger
// kernels, as real programs launch them): the dynamic
// wave-instruction ratio and the virtual GPU's run-time ratio,
// instrumented over uninstrumented, per tool. The baseline is the same
// program run uninstrumented in the same session (`loom exec --counters`);
// the instrumented run is `loom instrument --tool ...` with LOOM_COUNTERS
// set, whose counts include everything the copy ran (hooks, saves,
// restores). Times are the counters' per-dispatch `seconds` (the virtual
// GPU running the dispatch, with counting on in both runs; a tool's
// instrumentation happens before it and is not in it: bench/
// instrument_bench measures that). Dispatches are matched by their index:
// the programs dispatch the same kernels in the same order every run.
//
// Tools by default: instr_count mode=instruction, instr_count mode=block,
// and mem_trace when lib/loom/tools/libmem_trace.so exists; each writes
// its output (output=) to a temporary file. --quick: the corpus at -O2
// only. --repeat N: every run N times, each dispatch's time the least of
// the N (the machine's other work only ever adds time). The environment passes through: LOOM_TRACE_THRESHOLD=0 keeps the
// virtual GPU in its interpreter, whose times vary less from run to run
// than those of the trace compiler, which compiles a hot loop in one run
// and not in the other.
//
// Prints a row per kernel (summed over its dispatches in one program) and
// per tool a summary: median, geometric mean and worst of the ratios, and
// what instrumenting a kernel cost (`loom instrument --timing`: lift, the
// tool, codegen with MC and lld, load; the hooks' compilation, once per
// process, apart).
//
//===----------------------------------------------------------------------===//

#include "../tests/support/RunCommand.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

using namespace llvm;
using namespace loom::test;

namespace {

struct ToolConfig {
  std::string Label; ///< as printed: "instr_count:mode=block"
  std::string Name;  ///< the shipped tool's name
  std::vector<std::string> Args;
};

struct Program {
  std::string Label;
  std::vector<std::string> Command;
};

/// A kernel's totals over its dispatches in one run.
struct KernelTotals {
  uint64_t Waves = 0;
  double Seconds = 0;
  unsigned Dispatches = 0;
};

/// Per-dispatch (kernel, wave-instructions, seconds) of a counters file.
struct DispatchLine {
  std::string Kernel;
  uint64_t Waves = 0;
  double Seconds = 0;
};

/// One copy's instrumentation (a line of `loom instrument --timing`).
struct CopyTime {
  std::string Kernel;
  uint64_t Instructions = 0;
  double Ms = 0;    ///< lift + tool + codegen + load
  double Hooks = 0; ///< compiling the hooks: the process's first copy
};

int fail(const Twine &Msg) {
  errs() << "tool_bench: " << Msg << "\n";
  return 1;
}

Expected<std::vector<DispatchLine>> readCounters(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return createStringError(Buf.getError(), "%s: %s", Path.str().c_str(),
                             Buf.getError().message().c_str());
  std::vector<DispatchLine> Out;
  SmallVector<StringRef, 64> Lines;
  (*Buf)->getBuffer().split(Lines, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef L : Lines) {
    Expected<json::Value> V = json::parse(L);
    if (!V)
      return V.takeError();
    const json::Object &O = *V->getAsObject();
    Out.push_back({O.getString("kernel").value_or("?").str(),
                   uint64_t(O.getInteger("wave_instructions").value_or(0)),
                   O.getNumber("seconds").value_or(0)});
  }
  return Out;
}

/// Runs \p P with \p Prefix (a loom command up to "--"), counters in a
/// temporary file; its dispatches.
Expected<std::vector<DispatchLine>>
countedRunOnce(const Program &P, std::vector<std::string> Prefix) {
  SmallString<128> Path;
  sys::fs::createTemporaryFile("tool-bench", "jsonl", Path);
  Prefix.push_back("--");
  Prefix.insert(Prefix.end(), P.Command.begin(), P.Command.end());
  CommandResult R = runCommand(Prefix, {"LOOM_COUNTERS=" + Path.str().str()});
  auto Lines = readCounters(Path);
  sys::fs::remove(Path);
  if (R.crashed())
    return createStringError(inconvertibleErrorCode(),
                             "%s was killed (a crash, or it ran past "
                             "runCommand's 120 s)",
                             P.Label.c_str());
  if (R.ExitCode != 0)
    return createStringError(inconvertibleErrorCode(),
                             "%s exited with %d: %s", P.Label.c_str(),
                             R.ExitCode, R.Err.substr(0, 2000).c_str());
  for (StringRef L : split(R.Err, '\n'))
    if (L.starts_with("loom-tool:"))
      errs() << "  " << P.Label << ": " << L << "\n";
  return Lines;
}

/// Appends the copies of a `loom instrument --timing` file to \p Out.
void readTiming(StringRef Path, std::vector<CopyTime> &Out) {
  auto Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return;
  SmallVector<StringRef, 64> Lines;
  (*Buf)->getBuffer().split(Lines, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef L : Lines) {
    Expected<json::Value> V = json::parse(L);
    const json::Object *O = V ? V->getAsObject() : nullptr;
    if (!V)
      consumeError(V.takeError());
    if (!O || !O->getBoolean("made").value_or(false))
      continue;
    double Hooks = O->getInteger("hooks_us").value_or(0) / 1000.0;
    Out.push_back({O->getString("kernel").value_or("?").str(),
                   uint64_t(O->getInteger("instructions").value_or(0)),
                   O->getInteger("total_us").value_or(0) / 1000.0 - Hooks,
                   Hooks});
  }
}

/// countedRunOnce \p Repeat times: each dispatch with its least time.
Expected<std::vector<DispatchLine>>
countedRun(const Program &P, const std::vector<std::string> &Prefix,
           unsigned Repeat) {
  auto First = countedRunOnce(P, Prefix);
  for (unsigned I = 1; First && I < Repeat; ++I) {
    auto Again = countedRunOnce(P, Prefix);
    if (!Again)
      return Again.takeError();
    if (Again->size() != First->size())
      return createStringError(inconvertibleErrorCode(),
                               "%s: %zu dispatches, then %zu",
                               P.Label.c_str(), First->size(), Again->size());
    for (size_t D = 0; D < Again->size(); ++D)
      (*First)[D].Seconds = std::min((*First)[D].Seconds, (*Again)[D].Seconds);
  }
  return First;
}

double median(std::vector<double> V) {
  if (V.empty())
    return 0;
  std::sort(V.begin(), V.end());
  size_t N = V.size();
  return N % 2 ? V[N / 2] : (V[N / 2 - 1] + V[N / 2]) / 2;
}

double geomean(const std::vector<double> &V) {
  double Log = 0;
  for (double X : V)
    Log += std::log(X);
  return V.empty() ? 0 : std::exp(Log / V.size());
}

struct Ratios {
  std::vector<double> Waves, Time;
  std::vector<CopyTime> Copies;
  std::vector<std::string> Where; ///< parallel to Waves
  /// Sums over every kernel, instrumented and not: ratios weighted by
  /// size, which small kernels' timer noise does not sway.
  KernelTotals All, Base;
};

/// The corpus as tool_corpus_tests runs it (tests/tool/ToolCorpusTest.cpp
/// says why those suites are left out), a program per suite and level, then
/// the HIP test programs.
void addCorpusAndHipTests(std::vector<Program> &Programs, bool Quick) {
  const char *Suites[] = {"AmdgcnBuiltins", "ControlFlow", "Convert",
                          "Crosslane",      "Dispatch",    "FloatOps",
                          "IntOps",         "Lds",         "Pointers",
                          "Mfma",           "MfmaChain"};
  for (const char *S : Suites)
    for (int O = Quick ? 2 : 0; O <= (Quick ? 2 : 3); ++O) {
      std::string Level = "O" + std::to_string(O);
      // Mfma's instances are named Builtin/<shape>_O<level>.
      std::string Filter = std::string(S) + ".*" +
                           (StringRef(S) == "Mfma" ? "_" : "/") + Level;
      Programs.push_back({std::string(S) + "/" + Level,
                          {LOOM_DIFF_HSA, "--gtest_brief=1",
                           "--gtest_filter=" + Filter}});
    }
  for (const char *H : {"launch", "wave_intrinsics", "cooperative_groups",
                        "memory", "kernel_ref", "symbols", "clang22_launch",
                        "clang22_wave", "function_pointers"}) {
    std::string Path = std::string(LOOM_HIP_TEST_DIR) + "/hip_" + H;
    if (sys::fs::exists(Path))
      Programs.push_back({std::string("hip_") + H, {Path}});
  }
  if (sys::fs::exists(LOOM_TOOL_PROGRAM))
    Programs.push_back({"tool_program", {LOOM_TOOL_PROGRAM}});
}

/// The realistic set (bench/programs.py): what real programs launch, whose
/// kernels are larger than the corpus's and run many more waves.
void addRealisticSet(std::vector<Program> &Programs) {
  for (const char *Name : {"Stencil", "Reduce", "Sgemm", "Histogram", "NBody",
                           "Half", "Double", "Divergence", "SpMV", "Sort"}) {
    std::string Path = std::string(LOOM_BENCH_PROGRAM_DIR) + "/" + Name;
    if (sys::fs::exists(Path))
      Programs.push_back({Name, {Path}});
  }
}

/// The summary's instrumentation line: per copy made, what it cost.
void printInstrumentationTime(const std::vector<CopyTime> &Copies) {
  std::vector<double> Small, All, Hooks;
  const CopyTime *Worst = nullptr;
  for (const CopyTime &C : Copies) {
    All.push_back(C.Ms);
    if (C.Instructions < 2000)
      Small.push_back(C.Ms);
    if (C.Hooks > 1)
      Hooks.push_back(C.Hooks);
    if (!Worst || C.Ms > Worst->Ms)
      Worst = &C;
  }
  if (!Worst)
    return;
  outs() << format("%-30s instrumenting: median %.1f ms a kernel under 2,000 "
                   "instructions (%zu copies), %.1f ms all (%zu), worst "
                   "%.1f ms (%s, %llu instructions); hooks compiled once a "
                   "process: median %.1f ms\n",
                   "", median(Small), Small.size(), median(All), All.size(),
                   Worst->Ms, Worst->Kernel.c_str(),
                   (unsigned long long)Worst->Instructions, median(Hooks));
}

} // namespace

int main(int Argc, char **Argv) {
  bool Quick = false, RealisticSet = false;
  unsigned Repeat = 1;
  std::vector<ToolConfig> Tools;
  for (int I = 1; I < Argc; ++I) {
    StringRef A = Argv[I];
    if (A == "--quick") {
      Quick = true;
    } else if (A == "--programs") {
      RealisticSet = true;
    } else if (A == "--repeat" && I + 1 < Argc) {
      if (StringRef(Argv[++I]).getAsInteger(10, Repeat) || Repeat == 0)
        return fail(Twine("--repeat ") + Argv[I] + ": expected a count");
    } else if (A == "--tool" && I + 1 < Argc) {
      auto [Name, Args] = StringRef(Argv[++I]).split(':');
      ToolConfig T{Argv[I], Name.str(), {}};
      SmallVector<StringRef, 4> Parts;
      Args.split(Parts, ',', -1, false);
      for (StringRef P : Parts)
        T.Args.push_back(P.str());
      Tools.push_back(std::move(T));
    } else {
      return fail("usage: tool_bench [--quick | --programs] [--repeat N] "
                  "[--tool NAME[:K=V,...]]...");
    }
  }
  if (Tools.empty()) {
    Tools.push_back({"instr_count:mode=instruction", "instr_count",
                     {"mode=instruction"}});
    Tools.push_back({"instr_count:mode=block", "instr_count", {"mode=block"}});
    // The memory tracer, once it is built (tools/mem_trace).
    if (sys::fs::exists(LOOM_TOOLS_DIR "/libmem_trace.so"))
      Tools.push_back({"mem_trace", "mem_trace", {}});
  }

  std::vector<Program> Programs;
  if (RealisticSet)
    addRealisticSet(Programs);
  else
    addCorpusAndHipTests(Programs, Quick);
  if (Programs.empty())
    return fail("no program to run");

  std::map<std::string, Ratios> ByTool;
  std::vector<std::string> Failures;
  outs() << format("%-28s %-34s", "program", "kernel");
  for (const ToolConfig &T : Tools)
    outs() << format(" %24s", T.Label.c_str());
  outs() << "\n"
         << format("%-28s %-34s", "", "(dispatches, wave-instructions)");
  for (size_t I = 0; I < Tools.size(); ++I)
    outs() << format(" %24s", "instr x   time x");
  outs() << "\n";
  outs().flush();

  for (const Program &P : Programs) {
    auto Base = countedRun(P, {LOOM_BIN, "exec"}, Repeat);
    if (!Base)
      return fail(toString(Base.takeError()));
    // Kernels in order of first dispatch.
    std::vector<std::string> Order;
    std::map<std::string, KernelTotals> BaseOf;
    for (const DispatchLine &D : *Base) {
      auto [It, New] = BaseOf.try_emplace(D.Kernel);
      if (New)
        Order.push_back(D.Kernel);
      It->second.Waves += D.Waves;
      It->second.Seconds += D.Seconds;
      ++It->second.Dispatches;
    }
    std::vector<std::map<std::string, KernelTotals>> ToolOf(Tools.size());
    std::vector<bool> Ran(Tools.size(), false);
    for (size_t T = 0; T < Tools.size(); ++T) {
      // The tool's detailed output (every shipped tool takes output=) goes
      // to a file of ours, written as it would be, then dropped.
      SmallString<128> Output, Timing;
      sys::fs::createTemporaryFile("tool-bench-output", "out", Output);
      sys::fs::createTemporaryFile("tool-bench-timing", "jsonl", Timing);
      std::vector<std::string> Prefix{LOOM_BIN,     "instrument",
                                      "--tool",     Tools[T].Name,
                                      "--tool-arg", "output=" + Output.str().str(),
                                      "--timing",   Timing.str().str()};
      for (const std::string &A : Tools[T].Args)
        Prefix.insert(Prefix.end(), {"--tool-arg", A});
      auto Run = countedRun(P, Prefix, Repeat);
      readTiming(Timing, ByTool[Tools[T].Label].Copies);
      sys::fs::remove(Output);
      sys::fs::remove(Timing);
      // A run that fails (or hangs past runCommand's limit) leaves its
      // rows empty; the others go on, and the failures are listed last.
      if (!Run) {
        Failures.push_back(Tools[T].Label + ": " + toString(Run.takeError()));
        continue;
      }
      if (Run->size() != Base->size()) {
        Failures.push_back(formatv("{0}: {1}: {2} dispatches, {3} without",
                                   Tools[T].Label, P.Label, Run->size(),
                                   Base->size()));
        continue;
      }
      Ran[T] = true;
      // By the original's name: the instrumented run names the copy
      // ("k.loom").
      for (size_t D = 0; D < Run->size(); ++D) {
        KernelTotals &K = ToolOf[T][(*Base)[D].Kernel];
        K.Waves += (*Run)[D].Waves;
        K.Seconds += (*Run)[D].Seconds;
      }
    }
    for (const std::string &K : Order) {
      const KernelTotals &B = BaseOf[K];
      outs() << format("%-28s %-34s", P.Label.c_str(),
                       (K.size() > 34 ? K.substr(0, 31) + "..." : K).c_str());
      for (size_t T = 0; T < Tools.size(); ++T) {
        if (!Ran[T]) {
          outs() << format(" %15s %8s", "failed", "-");
          continue;
        }
        const KernelTotals &I = ToolOf[T][K];
        double W = B.Waves ? double(I.Waves) / B.Waves : 1,
               S = B.Seconds > 0 ? I.Seconds / B.Seconds : 1;
        Ratios &R = ByTool[Tools[T].Label];
        R.Waves.push_back(W);
        R.Time.push_back(S);
        R.Where.push_back(P.Label + " " + K);
        R.All.Waves += I.Waves;
        R.All.Seconds += I.Seconds;
        R.Base.Waves += B.Waves;
        R.Base.Seconds += B.Seconds;
        outs() << format(" %15.3f %8.2f", W, S);
      }
      outs() << format("   (%llu, %llu)\n", (unsigned long long)B.Dispatches,
                       (unsigned long long)B.Waves);
    }
    outs().flush();
  }

  outs() << "\nsummary (instrumented / uninstrumented)\n";
  for (const ToolConfig &T : Tools) {
    const Ratios &R = ByTool[T.Label];
    if (R.Waves.empty())
      continue;
    size_t WorstW = std::max_element(R.Waves.begin(), R.Waves.end()) -
                    R.Waves.begin();
    size_t WorstT =
        std::max_element(R.Time.begin(), R.Time.end()) - R.Time.begin();
    outs() << format("%-30s %zu kernels\n", T.Label.c_str(), R.Waves.size());
    outs() << format("%-30s instructions: median %.3fx, geomean %.3fx, "
                     "worst %.3fx (%s)\n",
                     "", median(R.Waves), geomean(R.Waves),
                     R.Waves[WorstW], R.Where[WorstW].c_str())
           << format("%-30s time:         median %.2fx, geomean %.2fx, "
                     "worst %.2fx (%s)\n",
                     "", median(R.Time), geomean(R.Time), R.Time[WorstT],
                     R.Where[WorstT].c_str())
           << format("%-30s all kernels:  instructions %.3fx (%llu / %llu), "
                     "time %.2fx (%.3f s / %.3f s)\n",
                     "", double(R.All.Waves) / R.Base.Waves,
                     (unsigned long long)R.All.Waves,
                     (unsigned long long)R.Base.Waves,
                     R.All.Seconds / R.Base.Seconds, R.All.Seconds,
                     R.Base.Seconds);
    printInstrumentationTime(R.Copies);
  }
  for (const std::string &F : Failures)
    outs() << "failed: " << StringRef(F).split('\n').first << "\n";
  return Failures.empty() ? 0 : 1;
}
