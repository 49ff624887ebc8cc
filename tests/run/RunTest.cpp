//===- tests/run/RunTest.cpp - loom run end to end ------------------------===//
//
// Runs the programs of tests/run/programs (built with loom cc) through the
// loom binary and checks their output, exit codes and error reports.
//
//===----------------------------------------------------------------------===//

#include "support/RunCommand.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Program.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

using loom::test::CommandResult;

namespace {

std::string program(const std::string &Name) {
  return std::string(LOOM_RUN_PROGRAM_DIR) + "/" + Name;
}

/// loom run ARGS, with \p Stdin (if any) as the program's standard input.
CommandResult loomRun(std::vector<std::string> Args,
                      const std::string &Stdin = "") {
  Args.insert(Args.begin(), {LOOM_BIN, "run"});
  if (Stdin.empty())
    return loom::test::runCommand(Args);
  llvm::SmallString<128> InPath, OutPath, ErrPath;
  llvm::sys::fs::createTemporaryFile("loom-run", "in", InPath);
  llvm::sys::fs::createTemporaryFile("loom-run", "out", OutPath);
  llvm::sys::fs::createTemporaryFile("loom-run", "err", ErrPath);
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(InPath, EC);
    OS << Stdin;
  }
  CommandResult R;
  std::vector<llvm::StringRef> Argv(Args.begin(), Args.end());
  std::optional<llvm::StringRef> Redirects[] = {InPath.str(), OutPath.str(),
                                                ErrPath.str()};
  R.ExitCode = llvm::sys::ExecuteAndWait(Args[0], Argv, std::nullopt, Redirects,
                                         120, 0, &R.ErrorMessage);
  auto Slurp = [](llvm::StringRef Path) {
    auto Buf = llvm::MemoryBuffer::getFile(Path);
    return Buf ? (*Buf)->getBuffer().str() : std::string();
  };
  R.Out = Slurp(OutPath);
  R.Err = Slurp(ErrPath);
  for (auto &P : {InPath, OutPath, ErrPath})
    llvm::sys::fs::remove(P);
  return R;
}

TEST(RunTest, HelloWorld) {
  CommandResult R = loomRun({program("run_hello")});
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(R.Out, "Hello, world!\n");
  EXPECT_EQ(R.Err, "");
}

TEST(RunTest, HelloWorldOnGfx942) {
  // The virtual GPU takes the processor the program was built for.
  CommandResult R = loomRun({program("run_hello_gfx942")});
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(R.Out, "Hello, world!\n");
  // Asking for another processor than the program's is an error.
  R = loomRun({"--isa", "gfx90a", program("run_hello_gfx942")});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_NE(
      R.Err.find(": no GPU agent loads the code object (built for "
                 "gfx942; the GPU is gfx90a; loom run --isa chooses the "
                 "virtual GPU's): HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS"),
      std::string::npos)
      << R.Err;
}

TEST(RunTest, ArgvAndEnvpEcho) {
  setenv("LOOM_RUN_TEST_VAR", "from the host", 1);
  CommandResult R = loomRun({"--threads", "64", "--", program("run_args"),
                             "one", "two words", "--threads", ""});
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(R.Out, "argc=5\nargv[0]=" + program("run_args") +
                       "\nargv[1]=one\nargv[2]=two words\nargv[3]=--threads\n"
                       "argv[4]=\nLOOM_RUN_TEST_VAR=from the host\n"
                       "envp has it 1 time(s)\n");
}

// LLVM IR (from `loom cc -S -emit-llvm` / `-c -emit-llvm`) is JIT-compiled
// in-process with the device library and runs as the code object does.
TEST(RunTest, LLVMIRProgramsRunThroughTheJit) {
  for (const char *Ext : {".ll", ".bc"}) {
    std::string Ir = program(std::string("run_args") + Ext);
    setenv("LOOM_RUN_TEST_VAR", "ir", 1);
    CommandResult R = loomRun({Ir, "one", "two"});
    EXPECT_EQ(R.ExitCode, 0) << R.Err;
    EXPECT_EQ(R.Out, "argc=3\nargv[0]=" + Ir +
                         "\nargv[1]=one\nargv[2]=two\nLOOM_RUN_TEST_VAR=ir\n"
                         "envp has it 1 time(s)\n")
        << Ext;
  }
  CommandResult R =
      loomRun({"--threads", "64", "--blocks", "2", program("run_args.bc"), "x"});
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_NE(R.Out.find("argc=2"), std::string::npos) << R.Out;
  // The IR says gfx90a (loom cc's default): another GPU is refused.
  R = loomRun({"--isa", "gfx942", program("run_args.bc")});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_NE(R.Err.find("the IR was built for gfx90a; the GPU is gfx942"),
            std::string::npos)
      << R.Err;

  // Bad IR: no main; printf already lowered by plain clang; a parse error.
  llvm::SmallString<128> Path;
  llvm::sys::fs::createTemporaryFile("loom-run", "ll", Path);
  auto Write = [&](llvm::StringRef Text) {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    OS << Text;
  };
  Write("define i32 @mian() {\n  ret i32 0\n}\n");
  R = loomRun({std::string(Path)});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_EQ(R.Err, "loom run: " + std::string(Path) +
                       ": the IR defines no main\n");
  Write("declare ptr addrspace(1) @__printf_alloc(i32)\n"
        "define i32 @main() {\n  %p = call ptr addrspace(1) "
        "@__printf_alloc(i32 8)\n  ret i32 0\n}\n");
  R = loomRun({std::string(Path)});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_NE(R.Err.find("build it with `loom cc -S -emit-llvm`"),
            std::string::npos)
      << R.Err;
  Write("define i32 @main( {\n");
  R = loomRun({std::string(Path)});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_NE(R.Err.find(":2:1: error: expected type"), std::string::npos)
      << R.Err;
  llvm::sys::fs::remove(Path);
}

TEST(RunTest, ExitCodePropagation) {
  EXPECT_EQ(loomRun({program("run_exit_code"), "0"}).ExitCode, 0);
  EXPECT_EQ(loomRun({program("run_exit_code"), "42"}).ExitCode, 42);
  // Every lane returns 3: the values are OR-ed, as LLVM libc does.
  EXPECT_EQ(loomRun({"--threads", "128", "--blocks", "2",
                     program("run_exit_code"), "3"})
                .ExitCode,
            3);
  // exit() on one lane ends a program whose other lanes never end.
  CommandResult R = loomRun({"--threads", "64", "--blocks", "4",
                             program("run_exit_code"), "7", "exit", "5"});
  EXPECT_EQ(R.ExitCode, 7) << R.Err;
  EXPECT_EQ(R.Err, "");
}

TEST(RunTest, ThreeDimensionalLaunch) {
  // Code object v5 reads the shape from the hidden kernel arguments, v4
  // from the dispatch packet: both must see the same.
  for (const char *P : {"run_dims", "run_dims_v4"}) {
    CommandResult R = loomRun(
        {"--threads-x", "4", "--threads-y", "3", "--threads-z", "2",
         "--blocks-x", "2", "--blocks-y", "3", "--blocks-z", "5", program(P)});
    EXPECT_EQ(R.ExitCode, 0) << P << ": " << R.Err;
    EXPECT_EQ(R.Out, "threads 4 3 2 blocks 2 3 5\n") << P;
  }
}

TEST(RunTest, FileWriteAndReadBack) {
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("loom-run-files", Dir));
  std::string A = (Dir + "/a.txt").str(), B = (Dir + "/b.txt").str();
  CommandResult R = loomRun({program("run_files"), A, B});
  EXPECT_EQ(R.ExitCode, 0) << R.Out << R.Err;
  EXPECT_EQ(R.Out, "files: all checks passed\n");
  EXPECT_FALSE(llvm::sys::fs::exists(A));
  EXPECT_FALSE(llvm::sys::fs::exists(B));
  llvm::sys::fs::remove(Dir);
}

TEST(RunTest, Stdin) {
  std::string Rest;
  for (int I = 0; I < 40; ++I)
    Rest += "stdin line " + std::to_string(I) + " with some padding text\n";
  CommandResult R = loomRun({program("run_stdin")}, "first line\n" + Rest);
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(R.Out, "line: first line\nrest: " + std::to_string(Rest.size()) +
                       " bytes, 40 lines, eof 1\n" + Rest);
}

TEST(RunTest, MallocStressFromManyLanes) {
  CommandResult R = loomRun(
      {"--threads", "256", "--blocks", "4", program("run_malloc_stress")});
  EXPECT_EQ(R.ExitCode, 0) << R.Out << R.Err;
  EXPECT_EQ(R.Out, "");
}

/// Checks the output of lanes.c on \p Lanes lanes of 256-thread blocks.
void expectEveryLaneOnce(const CommandResult &R, unsigned Lanes) {
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  llvm::SmallVector<llvm::StringRef> Lines;
  llvm::StringRef(R.Out).split(Lines, '\n', -1, false);
  EXPECT_EQ(Lines.size(), Lanes);
  std::set<std::string> Seen;
  for (llvm::StringRef L : Lines) {
    unsigned Id = 0;
    // "lane NNNN block B thread T: the quick ... dog X"
    std::string Line = L.str();
    ASSERT_TRUE(L.consume_front("lane ")) << Line;
    ASSERT_FALSE(L.take_front(4).getAsInteger(10, Id)) << Line;
    std::string Want;
    llvm::raw_string_ostream(Want)
        << llvm::format("lane %04u block %u thread %u: the quick brown fox "
                        "jumps over the lazy dog %u",
                        Id, Id / 256, Id % 256, Id * 7919u);
    EXPECT_EQ(Line, Want);
    EXPECT_TRUE(Seen.insert(Want).second) << "twice: " << Want;
  }
  EXPECT_EQ(Seen.size(), Lanes);
}

TEST(RunTest, ThousandLanesPrintEveryLineOnceUntorn) {
  expectEveryLaneOnce(
      loomRun({"--threads", "256", "--blocks", "4", program("run_lanes")}),
      1024);
  // The same on gfx942 (its memory model's cache controls).
  expectEveryLaneOnce(loomRun({"--threads", "256", "--blocks", "4",
                               program("run_lanes_gfx942")}),
                      1024);
}

TEST(RunTest, DivergentCallsAndUnevenPayloads) {
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("loom-run-div", Dir));
  CommandResult R =
      loomRun({"--threads", "64", program("run_divergent"), std::string(Dir)});
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  std::multiset<std::string> Got, Want;
  llvm::SmallVector<llvm::StringRef> Lines;
  llvm::StringRef(R.Out).split(Lines, '\n', -1, false);
  for (llvm::StringRef L : Lines)
    Got.insert(L.str());
  for (unsigned Id = 0; Id < 64; ++Id) {
    std::string Text;
    for (unsigned I = 0; I < Id * 7; ++I)
      Text += char('a' + (Id + I) % 26);
    Want.insert((Id % 2 ? "odd " : "even ") + std::to_string(Id) + " " + Text);
    for (unsigned K = 0; K < Id % 4; ++K)
      Want.insert("loop " + std::to_string(Id) + " " + std::to_string(K));
  }
  EXPECT_EQ(Got, Want);
  std::error_code EC;
  EXPECT_EQ(llvm::sys::fs::directory_iterator(Dir, EC),
            llvm::sys::fs::directory_iterator())
      << "every lane removed its file";
  llvm::sys::fs::remove(Dir);
}

TEST(RunTest, DeviceAbort) {
  CommandResult R =
      loomRun({"--threads", "64", "--blocks", "3", program("run_abort")});
  EXPECT_EQ(R.ExitCode, 134);
  EXPECT_EQ(R.Err, "lane 3 gives up\nloom run: " + program("run_abort") +
                       ": abort() called by thread (3, 0, 0) of block (1, 0, "
                       "0)\n");
  R = loomRun({"--threads", "64", program("run_abort"), "assert"});
  EXPECT_EQ(R.ExitCode, 134);
  EXPECT_NE(R.Err.find("Assertion `Id != 5 && \"lane 5 must not get here\"' "
                       "failed."),
            std::string::npos)
      << R.Err;
  EXPECT_NE(R.Err.find("abort() called by thread (5, 0, 0) of block (0, 0, 0)"),
            std::string::npos)
      << R.Err;
}

TEST(RunTest, FaultIsReported) {
  // The runtime names the address, the instruction, the lane and its wave.
  CommandResult R =
      loomRun({"--threads", "128", "--blocks", "2", program("run_fault")});
  EXPECT_EQ(R.ExitCode, 139);
  EXPECT_NE(R.Err.find("memory fault: write of 4 bytes at 0xdead0000 in lane "
                       "9 in kernel '_start'"),
            std::string::npos)
      << R.Err;
  EXPECT_NE(R.Err.find("work-group (1, 0, 0), wave 1"), std::string::npos)
      << R.Err;
  EXPECT_NE(R.Err.find("loom run: " + program("run_fault") +
                       ": the GPU stopped the program: "
                       "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION"),
            std::string::npos)
      << R.Err;
}

TEST(RunTest, Timeout) {
  CommandResult R = loomRun({"--timeout", "2", program("run_forever")});
  EXPECT_EQ(R.ExitCode, 124);
  EXPECT_EQ(R.Out, "running forever\n");
  EXPECT_EQ(R.Err, "loom run: " + program("run_forever") +
                       ": the program did not end within 2 s; stopped\n");
}

TEST(RunTest, ConstructorsAtexitDestructorsAndClocks) {
  CommandResult R = loomRun({"--threads", "64", program("run_lifecycle")});
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(R.Out, "constructor\nmain sees 42 on 64 lanes; clock moves 1; "
                   "time sane\natexit 2\natexit 1\ndestructor\n");
}

TEST(RunTest, CxxProgram) {
  CommandResult R = loomRun({"--threads", "64", program("run_cxx")});
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(R.Out, "construct global\narea 36, twice 2.5, count 164\ndestroy "
                   "global\n");
}

TEST(RunTest, MathMatchesTheHostsLibm) {
  CommandResult R = loomRun({program("run_math")});
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  std::string Want;
  char Line[512];
  double In[] = {2.0, -1.5, 1e-300, 123456.789, 0.5};
  for (double X : In) {
    float F = float(X);
    std::snprintf(Line, sizeof(Line), "%a %a %a %a %a %a %a %a\n", std::fabs(X),
                  std::sqrt(std::fabs(X)), std::floor(X), std::ceil(X),
                  std::trunc(X), std::round(X), std::fma(X, 3.0, -1.0),
                  std::fmod(X, 0.7));
    Want += Line;
    std::snprintf(Line, sizeof(Line), "%a %a %a %a %a %a\n",
                  double(std::fabs(F)), double(std::sqrt(std::fabs(F))),
                  double(std::floor(F)), double(std::ceil(F)),
                  double(std::round(F)), double(std::fma(F, 3.0f, -1.0f)));
    Want += Line;
    std::snprintf(Line, sizeof(Line), "%a %a %a %a\n", std::fmin(X, 1.0),
                  std::fmax(X, 1.0), std::copysign(3.0, X), std::ldexp(X, 7));
    Want += Line;
  }
  Want += "1 1 1\n";
  EXPECT_EQ(R.Out, Want);
}

TEST(RunTest, PrintfConversions) {
  CommandResult R = loomRun({program("run_printf")});
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  char Want[1024];
  char Local[16] = "on the stack";
  int N = std::snprintf(
      Want, sizeof(Want),
      "[%d] [%5d] [%-5d] [%05d] [%+d] [%i]\n"
      "[%u] [%x] [%X] [%#x] [%o] [%lu] [%lld] [%zu] [%hhd] [%hd]\n"
      "[%f] [%.2f] [%10.3f] [%e] [%g] [%G] [%a]\n"
      "[%c] [%s] [%.3s] [%10s] [%-10s] [%s] [%s]\n"
      "[%*d] [%-*d] [%.*f] [%%] [%5.1s]\n"
      "snprintf 15 [truncat] [sprintf|007|2.2]\n",
      42, 42, 42, 42, 42, -7, 3000000000u, 255, 255, 255, 8, 1ul << 40,
      -(1ll << 50), (size_t)12345, (char)300, (short)70000, 3.14159, 2.5, -1.0,
      12345.678, 0.0001, 1e20, 1.0, 'x', "str", "abcdef", "right", "left",
      Local, "(null)", 6, 1, 6, 2, 3, 1.23456, "xyz");
  std::string Long;
  for (int I = 0; I < 3000; ++I)
    Long += char('A' + I % 26);
  EXPECT_EQ(R.Out, std::string(Want, N) + "long [" + Long + "] 77\n" +
                       "copied 3002\n" + Long.substr(2989) + ">\n");
  EXPECT_EQ(R.Err, "to stderr 7\n");
}

TEST(RunTest, BadInput) {
  // Not a code object at all.
  llvm::SmallString<128> Text;
  llvm::sys::fs::createTemporaryFile("loom-run", "txt", Text);
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Text, EC);
    OS << "just some text\n";
  }
  CommandResult R = loomRun({std::string(Text)});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_EQ(R.Err, "loom run: " + std::string(Text) +
                       ": not an AMDGPU code object (no ELF header)\n");
  llvm::sys::fs::remove(Text);
  // An ELF file for the host.
  R = loomRun({LOOM_BIN});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_NE(R.Err.find("not an AMDGPU code object (an ELF file for another "
                       "machine)"),
            std::string::npos)
      << R.Err;
  // A code object with kernels but no _start.
  R = loomRun({std::string(LOOM_FIXTURE_DIR) + "/gfx90a_v5_kernels.elf"});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_NE(R.Err.find("the code object has no _start kernel (build GPU "
                       "programs with 'loom cc')"),
            std::string::npos)
      << R.Err;
  // A missing file, and a bad option value.
  R = loomRun({"/nonexistent/prog"});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_NE(R.Err.find("/nonexistent/prog: No such file or directory"),
            std::string::npos)
      << R.Err;
  R = loomRun({"--isa", "gfx1100", program("run_hello")});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_NE(R.Err.find("--isa must be gfx90a or gfx942"), std::string::npos);
  R = loomRun({"--blocks", "0", program("run_hello")});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_NE(R.Err.find("blocks at least 1"), std::string::npos) << R.Err;
  R = loomRun({"--threads", "2048", program("run_hello")});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_NE(R.Err.find("threads per block must be 1 to 1024"),
            std::string::npos)
      << R.Err;
}

TEST(RunTest, CcPrintsTheCommandItRuns) {
  CommandResult R = loom::test::runCommand(
      {LOOM_BIN, "cc", "--print-command", "--isa", "gfx942", "p.c", "-o", "p"});
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_NE(R.Out.find(" --target=amdgcn-amd-amdhsa -mcpu=gfx942 -nogpulib "
                       "-O2 -flto -nostdlibinc -isystem "),
            std::string::npos)
      << R.Out;
  EXPECT_NE(R.Out.find("/lib/loom/device/include p.c -o p "), std::string::npos)
      << R.Out;
  EXPECT_TRUE(llvm::StringRef(R.Out).rtrim().ends_with(
      "/lib/loom/device/libloomdev.bc"))
      << R.Out;
  // Compile-only leaves the library out.
  R = loom::test::runCommand({LOOM_BIN, "cc", "--print-command", "-c", "p.c"});
  EXPECT_EQ(R.Out.find("libloomdev.bc"), std::string::npos) << R.Out;
}

} // namespace
