//===- cli/ExecCommand.cpp - loom exec: run a program on Loom's runtime ---===//
//
// Runs a program with Loom's libhsa-runtime64.so.1 found first: the
// directory holding it (lib/ next to the loom executable's bin/, or
// LOOM_LIB_DIR) goes first in LD_LIBRARY_PATH, and libloom-exec-shim.so is
// preloaded so the program's kernel-driver probes pass (see hsa/ExecShim.c).
// Well-formed command lines never get here: the launcher runs them before
// LLVM is loaded (Launcher.cpp); this parses the rest, with llvm::cl's
// help and errors.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include <string>
#include <vector>

using namespace llvm;

namespace loom::cli {

cl::SubCommand ExecCommand("exec",
                           "Run a program on Loom's HSA runtime "
                           "(loom exec -- ./app args)");

static cl::list<std::string> ExecArgs(cl::Positional, cl::OneOrMore,
                                      cl::desc("-- <program> [args...]"),
                                      cl::sub(ExecCommand),
                                      cl::cat(LoomCategory));

static cl::opt<std::string>
    CountersFile("counters",
                 cl::desc("Write what the virtual GPU counted, per dispatch, "
                          "to FILE (JSON Lines; docs/counters.md)"),
                 cl::value_desc("FILE"), cl::sub(ExecCommand),
                 cl::cat(LoomCategory));
static cl::opt<std::string>
    MemoryTraceFile("memory-trace",
                    cl::desc("Write every memory access of every dispatch "
                             "to FILE (JSON Lines)"),
                    cl::value_desc("FILE"), cl::sub(ExecCommand),
                    cl::cat(LoomCategory));
static cl::opt<unsigned> KernelTimeout(
    "kernel-timeout",
    cl::desc("End a dispatch that runs longer than SECONDS with a queue error "
             "naming the kernel (sets LOOM_KERNEL_TIMEOUT; 0: no limit)"),
    cl::value_desc("SECONDS"), cl::init(0), cl::sub(ExecCommand),
    cl::cat(LoomCategory));

int execOnLoom(StringRef Command, std::vector<std::string> &Args) {
  std::string Dir = loomLibraryDir();
  if (Dir.empty())
    return reportError(Command,
                       createStringError(
                           inconvertibleErrorCode(),
                           "cannot find libhsa-runtime64.so.1 (looked in lib/ "
                           "next to the loom executable; set LOOM_LIB_DIR)"));
  std::vector<char *> Argv;
  for (std::string &A : Args)
    Argv.push_back(A.data());
  Argv.push_back(nullptr);
  return execWithRuntime(Command.str().c_str(), Dir, Argv.data());
}

int runExec() {
  unsigned Timeout = KernelTimeout;
  setExecOptions(KernelTimeout.getNumOccurrences() ? &Timeout : nullptr,
                 CountersFile, MemoryTraceFile);
  return execOnLoom("exec", ExecArgs);
}

} // namespace loom::cli
