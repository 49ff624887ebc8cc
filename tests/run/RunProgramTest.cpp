//===- tests/run/RunProgramTest.cpp - loom::run::runProgram in-process ----===//
//
// The library API the loom command and the JIT use: results, streams, RPC
// statistics, errors as llvm::Error, and several runs in one process.
//
//===----------------------------------------------------------------------===//

#include "loom/run/Run.h"

#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <cstdio>

using namespace loom::run;

namespace {

std::unique_ptr<llvm::MemoryBuffer> programBytes(const std::string &Name) {
  auto B = llvm::MemoryBuffer::getFile(std::string(LOOM_RUN_PROGRAM_DIR) +
                                       "/" + Name);
  EXPECT_TRUE(bool(B)) << Name;
  return B ? std::move(*B) : nullptr;
}

std::string slurp(FILE *F) {
  std::string S;
  std::rewind(F);
  char Buf[4096];
  size_t N;
  while ((N = std::fread(Buf, 1, sizeof(Buf), F)) > 0)
    S.append(Buf, N);
  return S;
}

TEST(RunProgramTest, ResultStreamsAndStatsTwiceInOneProcess) {
  auto Hello = programBytes("run_hello");
  ASSERT_TRUE(Hello);
  for (int Run = 0; Run < 2; ++Run) {
    FILE *Out = std::tmpfile();
    RunOptions O;
    O.Args = {"hello"};
    O.Out = Out;
    RunStats Stats;
    auto R = runProgram(Hello->getMemBufferRef(), O, &Stats);
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    EXPECT_EQ(R->Kind, RunResult::Exited);
    EXPECT_EQ(R->ExitCode, 0);
    EXPECT_EQ(slurp(Out), "Hello, world!\n");
    EXPECT_EQ(Stats.Calls, 1u); // one puts: printf("...\n") becomes puts
    EXPECT_EQ(Stats.Rounds, 1u);
    EXPECT_EQ(Stats.LaneCalls, 1u);
    std::fclose(Out);
  }
}

TEST(RunProgramTest, EndingsAreResultsNotErrors) {
  auto Abort = programBytes("run_abort");
  auto Forever = programBytes("run_forever");
  ASSERT_TRUE(Abort && Forever);
  FILE *Sink = std::tmpfile();
  RunOptions O;
  O.Threads[0] = 64;
  O.Blocks[0] = 3;
  O.Args = {"abort"};
  O.Out = O.Err = Sink;
  auto R = runProgram(Abort->getMemBufferRef(), O);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->Kind, RunResult::Aborted);
  EXPECT_EQ(R->Message,
            "abort() called by thread (3, 0, 0) of block (1, 0, 0)");
  RunOptions T;
  T.TimeoutSeconds = 0.3;
  T.Out = Sink;
  R = runProgram(Forever->getMemBufferRef(), T);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->Kind, RunResult::TimedOut);
  std::fclose(Sink);
}

TEST(RunProgramTest, SetupFailuresAreErrors) {
  RunOptions O;
  auto Junk = llvm::MemoryBuffer::getMemBuffer("not a code object", "junk");
  auto R = runProgram(Junk->getMemBufferRef(), O);
  ASSERT_FALSE(bool(R));
  EXPECT_EQ(llvm::toString(R.takeError()),
            "not an AMDGPU code object (no ELF header)");
  auto Kernels = llvm::MemoryBuffer::getFile(std::string(LOOM_FIXTURE_DIR) +
                                             "/gfx90a_v5_kernels.elf");
  ASSERT_TRUE(bool(Kernels));
  R = runProgram((*Kernels)->getMemBufferRef(), O);
  ASSERT_FALSE(bool(R));
  EXPECT_EQ(llvm::toString(R.takeError()),
            "the code object has no _start kernel (build GPU programs with "
            "'loom cc')");
  O.Threads[1] = 0;
  auto Hello = programBytes("run_hello");
  R = runProgram(Hello->getMemBufferRef(), O);
  ASSERT_FALSE(bool(R));
  EXPECT_NE(llvm::toString(R.takeError()).find("threads per block"),
            std::string::npos);
  auto P = codeObjectProcessor(Hello->getMemBufferRef());
  ASSERT_TRUE(bool(P));
  EXPECT_EQ(*P, "gfx90a");
}

} // namespace
