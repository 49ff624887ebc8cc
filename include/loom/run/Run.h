//===- loom/run/Run.h - Run a GPU program's main with host services -------===//
//
// The library behind `loom run`: loads a code object built against Loom's
// device library (devlib/), launches _begin, _start (main on every lane) and
// _end on the first GPU agent that takes it, and serves the program's
// stdio, files, malloc, exit and clock over RPC while it runs. Only the
// public HSA C API is used, so it runs on ROCm's runtime too.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_RUN_RUN_H
#define LOOM_RUN_RUN_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace loom::run {

struct RunOptions {
  /// Work-items per block and blocks per grid, per dimension.
  uint32_t Threads[3] = {1, 1, 1};
  uint32_t Blocks[3] = {1, 1, 1};
  /// argv (argv[0] first) and envp as main receives them.
  std::vector<std::string> Args;
  std::vector<std::string> Env;
  /// Seconds before the program is stopped; 0: no limit.
  double TimeoutSeconds = 0;
  /// The host streams behind the device's stdin, stdout and stderr.
  FILE *In = stdin;
  FILE *Out = stdout;
  FILE *Err = stderr;
};

/// How a program ended (setup failures are llvm::Errors instead).
struct RunResult {
  enum KindT {
    Exited,   ///< main returned, or exit() was called: ExitCode.
    Aborted,  ///< abort() (or a failed assert) on the device.
    Faulted,  ///< the GPU stopped the dispatch (memory fault, trap, ...).
    TimedOut, ///< RunOptions::TimeoutSeconds passed.
  } Kind = Exited;
  int ExitCode = 0;
  /// Aborted, Faulted, TimedOut: what happened and where (one line).
  std::string Message;
};

/// RPC traffic of one run, for benchmarks.
struct RunStats {
  uint64_t Calls = 0;  ///< calls served (one per wave and call)
  uint64_t Rounds = 0; ///< round trips, continuation rounds included
  uint64_t LaneCalls = 0;
};

/// Runs the program in \p CodeObject (an AMDGPU ELF code object that
/// defines the kernel _start). Errors: not a code object, no _start, no GPU
/// agent that loads it, a failing HSA call (named).
llvm::Expected<RunResult> runProgram(llvm::MemoryBufferRef CodeObject,
                                     const RunOptions &Options,
                                     RunStats *Stats = nullptr);

/// Whether \p Input is LLVM IR: bitcode, or a buffer named "*.ll".
bool isLLVMIR(llvm::MemoryBufferRef Input);

/// Compiles a program given as LLVM IR (text or bitcode, defining main)
/// for \p Processor (empty: the one main's target-cpu names, else gfx90a;
/// a processor other than main's is an error): linked with the device library's bitcode
/// (\p DeviceLibrary, libloomdev.bc) and compiled and linked in-process by
/// the JIT's pipeline. The result is a code object for runProgram.
llvm::Expected<std::vector<char>>
compileProgramIR(llvm::MemoryBufferRef IR, llvm::StringRef DeviceLibrary,
                 llvm::StringRef Processor = "", unsigned OptLevel = 2);

/// The processor a code object was built for ("gfx90a"), from its ELF
/// header; an error if it is no AMDGPU code object.
llvm::Expected<std::string> codeObjectProcessor(llvm::MemoryBufferRef Code);

} // namespace loom::run

#endif // LOOM_RUN_RUN_H
