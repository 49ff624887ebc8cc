//===- cli/ExecCommand.cpp - loom exec: run a program on Loom's runtime ---===//
//
// Runs a program with Loom's libhsa-runtime64.so.1 found first: the
// directory holding it (lib/ next to the loom executable's bin/, or
// LOOM_LIB_DIR) goes first in LD_LIBRARY_PATH, and libloom-exec-shim.so is
// preloaded so the program's kernel-driver probes pass (see hsa/ExecShim.c).
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
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

/// The directory holding Loom's libhsa-runtime64.so.1, or "".
std::string loomLibraryDir() {
  if (const char *Env = getenv("LOOM_LIB_DIR"); Env && *Env)
    return Env;
  static int Anchor;
  std::string Exe = sys::fs::getMainExecutable("loom", &Anchor);
  SmallString<256> Dir(sys::path::parent_path(sys::path::parent_path(Exe)));
  sys::path::append(Dir, "lib");
  SmallString<256> Lib(Dir);
  sys::path::append(Lib, "libhsa-runtime64.so.1");
  return sys::fs::exists(Lib) ? std::string(Dir) : std::string();
}

static void prependEnv(const char *Name, const std::string &Value,
                       char Separator) {
  std::string New = Value;
  if (const char *Old = getenv(Name); Old && *Old)
    New += Separator + std::string(Old);
  setenv(Name, New.c_str(), 1);
}

int execOnLoom(StringRef Command, std::vector<std::string> &Args) {
  std::string Dir = loomLibraryDir();
  if (Dir.empty())
    return reportError(Command,
                       createStringError(
                           inconvertibleErrorCode(),
                           "cannot find libhsa-runtime64.so.1 (looked in lib/ "
                           "next to the loom executable; set LOOM_LIB_DIR)"));
  prependEnv("LD_LIBRARY_PATH", Dir, ':');
  std::string Shim = Dir + "/libloom-exec-shim.so";
  if (sys::fs::exists(Shim))
    prependEnv("LD_PRELOAD", Shim, ':');
  std::vector<char *> Argv;
  for (std::string &A : Args)
    Argv.push_back(A.data());
  Argv.push_back(nullptr);
  execvp(Argv[0], Argv.data());
  errs() << "loom " << Command << ": cannot run " << Args.front() << ": "
         << strerror(errno) << "\n";
  return 127;
}

int runExec() {
  if (KernelTimeout.getNumOccurrences())
    setenv("LOOM_KERNEL_TIMEOUT", std::to_string(KernelTimeout).c_str(), 1);
  // The runtime opens the files (runtime/CountersReport.cpp); absolute
  // paths, so a program that changes directory writes them here.
  for (auto [Option, Env] : {std::pair{&CountersFile, "LOOM_COUNTERS"},
                             std::pair{&MemoryTraceFile, "LOOM_MEMORY_TRACE"}})
    if (!Option->empty()) {
      SmallString<256> Abs(*Option);
      sys::fs::make_absolute(Abs);
      setenv(Env, Abs.c_str(), 1);
    }
  return execOnLoom("exec", ExecArgs);
}

} // namespace loom::cli
