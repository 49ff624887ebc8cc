//===- cli/InstrumentCommand.cpp - loom instrument: run with tools --------===//
//
// `loom exec` with instrumentation tools: each --tool becomes an entry of
// HSA_TOOLS_LIB (a name is a shipped tool, <libdir>/loom/tools/lib<NAME>.so;
// anything with a '/' or ending in .so is a path), the --tool-arg words
// become LOOM_TOOL_ARGS, --dump DIR becomes LOOM_TOOL_DUMP and --timing FILE
// becomes LOOM_TOOL_TIMING. The tool runtime (libloom_tool) reads them in the
// program (docs/instrument.md).
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

using namespace llvm;

namespace loom::cli {

cl::SubCommand
    InstrumentCommand("instrument",
                      "Run a program with instrumentation tools "
                      "(loom instrument --tool T [--tool-arg K=V]... -- ./app "
                      "args)");

static cl::list<std::string> Tools(
    "tool",
    cl::desc("A tool: a shipped tool's name (lib/loom/tools/libNAME.so) or "
             "the path of a tool library; repeat for several"),
    cl::value_desc("NAME_OR_PATH"), cl::OneOrMore, cl::sub(InstrumentCommand),
    cl::cat(LoomCategory));
static cl::list<std::string>
    ToolArgs("tool-arg",
             cl::desc("An option for the tools: NAME=VALUE (every tool) or "
                      "TOOL:NAME=VALUE (one tool)"),
             cl::value_desc("K=V"), cl::sub(InstrumentCommand),
             cl::cat(LoomCategory));
static cl::opt<std::string> KernelRegex(
    "kernel", cl::value_desc("REGEX"),
    cl::desc("Instrument only kernels whose symbol REGEX matches (every "
             "tool's kernel=REGEX)"),
    cl::sub(InstrumentCommand), cl::cat(LoomCategory));
static cl::opt<std::string> DispatchRange(
    "dispatch", cl::value_desc("N[-M]"),
    cl::desc("Instrument only dispatch N, or N to M, counted from 0 (every "
             "tool's dispatch=N[-M])"),
    cl::sub(InstrumentCommand), cl::cat(LoomCategory));
static cl::opt<std::string>
    DumpDir("dump",
            cl::desc("Write each instrumented copy's code object (.co) and "
                     "assembly (.s) to DIR"),
            cl::value_desc("DIR"), cl::sub(InstrumentCommand),
            cl::cat(LoomCategory));
static cl::opt<std::string>
    TimingFile("timing",
               cl::desc("Append a JSON line per instrumented copy to FILE: "
                        "its kernel, instructions and milliseconds per stage "
                        "(lift, tools, hooks, codegen, load)"),
               cl::value_desc("FILE"), cl::sub(InstrumentCommand),
               cl::cat(LoomCategory));
static cl::list<std::string> ProgramArgs(cl::Positional, cl::OneOrMore,
                                         cl::desc("-- <program> [args...]"),
                                         cl::sub(InstrumentCommand),
                                         cl::cat(LoomCategory));

static Expected<std::string> toolLibrary(StringRef Tool) {
  SmallString<256> Path;
  if (Tool.contains('/') || Tool.ends_with(".so")) {
    Path = Tool;
    sys::fs::make_absolute(Path);
  } else {
    Path = loomLibraryDir();
    sys::path::append(Path, "loom", "tools", "lib" + Tool + ".so");
  }
  if (!sys::fs::exists(Path))
    return createStringError(inconvertibleErrorCode(),
                             "no tool %s (%s does not exist)",
                             Tool.str().c_str(), Path.c_str());
  return std::string(Path);
}

int runInstrument() {
  std::vector<std::string> Libraries;
  for (const std::string &T : Tools) {
    Expected<std::string> Library = toolLibrary(T);
    if (!Library)
      return reportError("instrument", Library.takeError());
    // HSA_TOOLS_LIB is split at spaces.
    if (StringRef(*Library).contains(' '))
      return reportError("instrument",
                         createStringError(inconvertibleErrorCode(),
                                           "the tool path '%s' has a space, "
                                           "which HSA_TOOLS_LIB cannot hold",
                                           Library->c_str()));
    Libraries.push_back(std::move(*Library));
  }
  // --kernel and --dispatch are every tool's options, before the
  // --tool-arg ones (a TOOL:kernel= still wins for its tool).
  std::vector<std::string> Args;
  if (!KernelRegex.empty())
    Args.push_back("kernel=" + KernelRegex);
  if (!DispatchRange.empty())
    Args.push_back("dispatch=" + DispatchRange);
  Args.insert(Args.end(), ToolArgs.begin(), ToolArgs.end());
  for (const std::string &A : Args)
    if (!StringRef(A).contains('=') || StringRef(A).contains(' '))
      return reportError("instrument",
                         createStringError(inconvertibleErrorCode(),
                                           "tool option '%s': expected "
                                           "NAME=VALUE with no spaces",
                                           A.c_str()));
  setenv("HSA_TOOLS_LIB", join(Libraries, " ").c_str(), 1);
  // A tool that cannot be loaded says why, as ROCr does when asked.
  setenv("HSA_TOOLS_REPORT_LOAD_FAILURE", "1", 1);
  if (!Args.empty())
    setenv("LOOM_TOOL_ARGS", join(Args, " ").c_str(), 1);
  if (!DumpDir.empty()) {
    SmallString<256> Abs(DumpDir);
    sys::fs::make_absolute(Abs);
    if (std::error_code EC = sys::fs::create_directories(Abs))
      return reportError("instrument",
                         createStringError(EC, "--dump %s: %s", Abs.c_str(),
                                           EC.message().c_str()));
    setenv("LOOM_TOOL_DUMP", Abs.c_str(), 1);
  }
  if (!TimingFile.empty()) {
    SmallString<256> Abs(TimingFile);
    sys::fs::make_absolute(Abs);
    setenv("LOOM_TOOL_TIMING", Abs.c_str(), 1);
  }
  return execOnLoom("instrument", ProgramArgs);
}

} // namespace loom::cli
