//===- cli/RunCommand.cpp - loom run: run a GPU program's main ------------===//
//
// The command-line face of loom::run::runProgram (include/loom/run/Run.h),
// with the options of LLVM's llvm-gpu-loader. The process exits with the
// program's exit code; abort() gives 134, a GPU fault 139 and --timeout
// 124, as the shell reports SIGABRT, SIGSEGV and timeout(1).
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "loom/run/Run.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

extern char **environ;

using namespace llvm;

namespace loom::cli {

cl::SubCommand RunCommand("run",
                          "Run a GPU program's main on every lane, with "
                          "host services (loom run [options] PROG args...)");

namespace {
cl::opt<std::string> Program(cl::Positional, cl::Required,
                             cl::desc("<program>"), cl::sub(RunCommand),
                             cl::cat(LoomCategory));
cl::list<std::string> ProgramArgs(cl::ConsumeAfter, cl::desc("<args>..."),
                                  cl::sub(RunCommand), cl::cat(LoomCategory));
cl::opt<unsigned> ThreadsX("threads-x", cl::desc("threads per block, x"),
                           cl::init(1), cl::sub(RunCommand),
                           cl::cat(LoomCategory));
cl::opt<unsigned> ThreadsY("threads-y", cl::desc("threads per block, y"),
                           cl::init(1), cl::sub(RunCommand),
                           cl::cat(LoomCategory));
cl::opt<unsigned> ThreadsZ("threads-z", cl::desc("threads per block, z"),
                           cl::init(1), cl::sub(RunCommand),
                           cl::cat(LoomCategory));
cl::opt<unsigned> BlocksX("blocks-x", cl::desc("blocks in the grid, x"),
                          cl::init(1), cl::sub(RunCommand),
                          cl::cat(LoomCategory));
cl::opt<unsigned> BlocksY("blocks-y", cl::desc("blocks in the grid, y"),
                          cl::init(1), cl::sub(RunCommand),
                          cl::cat(LoomCategory));
cl::opt<unsigned> BlocksZ("blocks-z", cl::desc("blocks in the grid, z"),
                          cl::init(1), cl::sub(RunCommand),
                          cl::cat(LoomCategory));
cl::opt<unsigned> Threads("threads",
                          cl::desc("threads per block (same as --threads-x)"),
                          cl::init(0), cl::sub(RunCommand),
                          cl::cat(LoomCategory));
cl::opt<unsigned> Blocks("blocks", cl::desc("blocks (same as --blocks-x)"),
                         cl::init(0), cl::sub(RunCommand),
                         cl::cat(LoomCategory));
cl::opt<std::string>
    Isa("isa",
        cl::desc("processor of the virtual GPU: gfx90a or gfx942 (default: "
                 "the one the program was built for)"),
        cl::sub(RunCommand), cl::cat(LoomCategory));
cl::opt<double> Timeout("timeout",
                        cl::desc("stop the program after this many seconds "
                                 "(exit code 124)"),
                        cl::init(0), cl::sub(RunCommand),
                        cl::cat(LoomCategory));

Error fail(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}


/// The code object to run. LLVM IR (.ll, .bc) goes through the JIT, which
/// links it with the device library's bitcode; a code object is read as is.
Expected<std::unique_ptr<MemoryBuffer>> programCodeObject(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false);
  if (!Buf)
    return fail(Path + ": " + Buf.getError().message());
  return std::move(*Buf);
}
} // namespace

int runRun() {
  // Every option is read before anything else: lld, which the JIT runs for
  // IR input, resets all LLVM command-line options of the process
  // (docs/jit.md, "lld as a library").
  const std::string Path = Program, IsaOption = Isa;
  loom::run::RunOptions O;
  O.Threads[0] = Threads.getNumOccurrences() ? Threads : ThreadsX;
  O.Threads[1] = ThreadsY;
  O.Threads[2] = ThreadsZ;
  O.Blocks[0] = Blocks.getNumOccurrences() ? Blocks : BlocksX;
  O.Blocks[1] = BlocksY;
  O.Blocks[2] = BlocksZ;
  O.TimeoutSeconds = Timeout;
  O.Args.push_back(Path);
  O.Args.insert(O.Args.end(), ProgramArgs.begin(), ProgramArgs.end());
  // The program's environment is loom's, before loom sets LOOM_ISA.
  for (char **E = environ; E && *E; ++E)
    O.Env.push_back(*E);
  auto About = [&](Error E) { return fail(Path + ": " + toString(std::move(E))); };

  if (!IsaOption.empty() && IsaOption != "gfx90a" && IsaOption != "gfx942")
    return reportError(
        "run", fail("--isa must be gfx90a or gfx942, not '" + IsaOption + "'"));
  auto Code = programCodeObject(Path);
  if (!Code)
    return reportError("run", Code.takeError());
  MemoryBufferRef Ref = (*Code)->getMemBufferRef();
  // LLVM IR goes through the JIT, linked with the device library, for the
  // processor --isa or LOOM_ISA names, or else the IR's own.
  std::vector<char> Compiled;
  if (loom::run::isLLVMIR(Ref)) {
    std::string Cpu = !IsaOption.empty()   ? IsaOption
                      : getenv("LOOM_ISA") ? std::string(getenv("LOOM_ISA"))
                                           : std::string();
    auto Bytes = loom::run::compileProgramIR(
        Ref, loomDeviceDir() + "/libloomdev.bc", Cpu);
    if (!Bytes)
      return reportError("run", About(Bytes.takeError()));
    Compiled = std::move(*Bytes);
    Ref = MemoryBufferRef(StringRef(Compiled.data(), Compiled.size()),
                          Ref.getBufferIdentifier());
  }

  // The virtual GPU takes the processor the program was built for, unless
  // --isa or LOOM_ISA says otherwise (ROCm's runtime ignores LOOM_ISA).
  std::string Processor = IsaOption;
  if (Processor.empty() && !getenv("LOOM_ISA")) {
    auto P = loom::run::codeObjectProcessor(Ref);
    if (!P)
      return reportError("run", About(P.takeError()));
    Processor = *P;
  }
  if (!Processor.empty())
    setenv("LOOM_ISA", Processor.c_str(), 1);

  auto R = loom::run::runProgram(Ref, O);
  if (!R)
    return reportError("run", About(R.takeError()));
  switch (R->Kind) {
  case loom::run::RunResult::Exited:
    return R->ExitCode;
  case loom::run::RunResult::Aborted:
    errs() << "loom run: " << Path << ": " << R->Message << "\n";
    return 134;
  case loom::run::RunResult::Faulted:
    errs() << "loom run: " << Path << ": " << R->Message << "\n";
    return 139;
  case loom::run::RunResult::TimedOut:
    errs() << "loom run: " << Path << ": " << R->Message << "\n";
    return 124;
  }
  return 1;
}

} // namespace loom::cli
