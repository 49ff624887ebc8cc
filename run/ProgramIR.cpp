//===- run/ProgramIR.cpp - A GPU program given as LLVM IR -----------------===//
//
// `loom run prog.ll`: the program's IR is linked with the whole device
// library (its _begin, _start and _end are referenced by nobody, so a
// link of only what is needed would drop them), everything but those three
// entry points is internalised so the optimiser keeps only what the
// program uses (as `loom cc`'s LTO does; 2.6 s -> 0.3 s for hello), and
// the JIT compiles and links it in-process.
//
//===----------------------------------------------------------------------===//

#include "loom/run/Run.h"

#include "loom/jit/Pipeline.h"

#include "llvm/IR/Attributes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Transforms/IPO/Internalize.h"

using namespace llvm;

namespace loom::run {

bool isLLVMIR(MemoryBufferRef Input) {
  StringRef B = Input.getBuffer();
  return B.starts_with("BC\xc0\xde") ||
         StringRef(Input.getBufferIdentifier()).ends_with(".ll");
}

Expected<std::vector<char>> compileProgramIR(MemoryBufferRef IR,
                                             StringRef DeviceLibrary,
                                             StringRef Processor,
                                             unsigned OptLevel) {
  LLVMContext Ctx;
  auto Prog = jit::parseIR(IR, Ctx);
  if (!Prog)
    return Prog.takeError();
  if (!(*Prog)->getFunction("main"))
    return createStringError("the IR defines no main");
  // clang -O2 -emit-llvm without -flto has already lowered printf to the
  // OpenCL-style buffered printf, which the device library does not serve.
  if ((*Prog)->getFunction("__printf_alloc"))
    return createStringError(
        "the IR calls __printf_alloc (printf lowered by clang's AMDGPU "
        "printf pass); build it with `loom cc -S -emit-llvm` (clang -flto), "
        "which keeps printf a call");
  // The processor: the one the IR was built for (main's target-cpu, as
  // `loom cc -mcpu` writes it), else gfx90a; asking for another is an
  // error, as for a code object, since the functions' own attributes would
  // win over the target machine's.
  std::string Cpu = Processor.str();
  Attribute Own = (*Prog)->getFunction("main")->getFnAttribute("target-cpu");
  if (Own.isValid() && !Own.getValueAsString().empty()) {
    if (!Cpu.empty() && Cpu != Own.getValueAsString())
      return createStringError("the IR was built for " +
                               Own.getValueAsString() +
                               "; the GPU is " + Cpu);
    Cpu = Own.getValueAsString().str();
  }
  if (Cpu.empty())
    Cpu = "gfx90a";
  auto LibBytes = MemoryBuffer::getFile(DeviceLibrary, /*IsText=*/false,
                                        /*RequiresNullTerminator=*/false);
  if (!LibBytes)
    return createStringError("cannot read the device library " +
                             DeviceLibrary + ": " +
                             LibBytes.getError().message());
  auto Lib = jit::parseIR((*LibBytes)->getMemBufferRef(), Ctx);
  if (!Lib)
    return Lib.takeError();
  if (Linker::linkModules(**Prog, std::move(*Lib)))
    return createStringError(IR.getBufferIdentifier() +
                             ": cannot be linked with the device library "
                             "(a symbol defined twice or of another type)");
  internalizeModule(**Prog, [](const GlobalValue &GV) {
    StringRef N = GV.getName();
    return N == "_begin" || N == "_start" || N == "_end";
  });
  jit::CompileOptions O;
  O.Target.Processor = Cpu;
  O.OptLevel = OptLevel;
  return jit::compileAndLink(**Prog, O);
}

} // namespace loom::run
