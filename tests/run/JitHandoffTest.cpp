//===- tests/run/JitHandoffTest.cpp - IR programs through jit/ to runProgram
//===//
//
// What `loom run prog.ll` needs, end to end: the program's IR linked whole
// with the device library's bitcode (libloomdev.bc), compiled and linked by
// the JIT's pipeline for the GPU's processor, the bytes handed to
// runProgram. The loom command itself does not take IR yet.
//
//===----------------------------------------------------------------------===//

#include "loom/jit/Pipeline.h"
#include "loom/run/Run.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Transforms/IPO/Internalize.h"

#include <gtest/gtest.h>

#include <cstdio>

namespace {

const char *HelloIR = R"(
@fmt = private unnamed_addr addrspace(4) constant [23 x i8] c"IR main: %d args, %s!\0A\00"
@who = private unnamed_addr addrspace(4) constant [6 x i8] c"hello\00"
declare i32 @printf(ptr, ...)
define i32 @main(i32 %argc, ptr %argv, ptr %envp) {
  %f = addrspacecast ptr addrspace(4) @fmt to ptr
  %w = addrspacecast ptr addrspace(4) @who to ptr
  %r = call i32 (ptr, ...) @printf(ptr %f, i32 %argc, ptr %w)
  ret i32 5
}
)";

TEST(JitHandoffTest, IrProgramLinkedWithTheDeviceLibraryRuns) {
  llvm::LLVMContext Ctx;
  auto Prog =
      loom::jit::parseIR(llvm::MemoryBufferRef(HelloIR, "hello.ll"), Ctx);
  ASSERT_TRUE(bool(Prog)) << llvm::toString(Prog.takeError());
  auto LibBytes = llvm::MemoryBuffer::getFile(LOOM_DEVLIB);
  ASSERT_TRUE(bool(LibBytes)) << LOOM_DEVLIB;
  auto Lib = loom::jit::parseIR((*LibBytes)->getMemBufferRef(), Ctx);
  ASSERT_TRUE(bool(Lib)) << llvm::toString(Lib.takeError());
  // All of it: _begin, _start and _end are referenced by nobody. Then
  // only the three kernels stay external, so the optimiser drops what the
  // program does not use (as loom cc's LTO does): 2.6 s -> 0.3 s here.
  ASSERT_FALSE(llvm::Linker::linkModules(**Prog, std::move(*Lib)));
  llvm::internalizeModule(**Prog, [](const llvm::GlobalValue &GV) {
    return GV.getName() == "_begin" || GV.getName() == "_start" ||
           GV.getName() == "_end";
  });

  loom::jit::CompileOptions Options; // gfx90a, -O2
  auto Code = loom::jit::compileAndLink(**Prog, Options);
  ASSERT_TRUE(bool(Code)) << llvm::toString(Code.takeError());

  FILE *Out = std::tmpfile();
  loom::run::RunOptions O;
  O.Args = {"hello.ll", "x"};
  O.Out = Out;
  auto R = loom::run::runProgram(
      llvm::MemoryBufferRef(llvm::StringRef(Code->data(), Code->size()),
                            "hello.ll"),
      O);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->Kind, loom::run::RunResult::Exited);
  EXPECT_EQ(R->ExitCode, 5);
  std::rewind(Out);
  char Buf[128] = {};
  size_t N = std::fread(Buf, 1, sizeof(Buf) - 1, Out);
  EXPECT_EQ(std::string(Buf, N), "IR main: 2 args, hello!\n");
  std::fclose(Out);
}

} // namespace
