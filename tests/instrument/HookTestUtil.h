//===- HookTestUtil.h - Loading test hooks on the emulator ------*- C++ -*-===//
//
// What the tool runtime does for a tool, done directly on an emu::Device for
// the instrumenter tests: the hooks' bitcode compiled and loaded as the
// tool's own code object, and its globals' addresses collected.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TESTS_INSTRUMENT_HOOKTESTUTIL_H
#define LOOM_TESTS_INSTRUMENT_HOOKTESTUTIL_H

#include "loom/codeobj/CodeObject.h"
#include "loom/emu/Device.h"
#include "loom/emu/Module.h"
#include "loom/instrument/Instrumenter.h"
#include "loom/jit/Pipeline.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>

namespace loom::instrument::testutil {

/// Loads and resolves a linked code object on \p Dev.
inline llvm::Expected<std::unique_ptr<emu::Module>>
loadElf(emu::Device &Dev, llvm::ArrayRef<char> Elf, llvm::StringRef Name) {
  auto CO = codeobj::CodeObject::create(
      llvm::ArrayRef(reinterpret_cast<const uint8_t *>(Elf.data()), Elf.size()),
      Name);
  if (!CO)
    return CO.takeError();
  auto M = emu::Module::load(Dev, std::move(*CO), Name);
  if (!M)
    return M.takeError();
  if (llvm::Error E =
          (*M)->resolve([](llvm::StringRef) { return std::nullopt; }))
    return std::move(E);
  return std::move(*M);
}

struct LoadedHooks {
  std::string Bitcode;
  std::unique_ptr<emu::Module> Module;
  HookLibrary Library;

  uint64_t *global(llvm::StringRef Name) const {
    return reinterpret_cast<uint64_t *>(Library.GlobalAddresses.lookup(Name));
  }
};

inline llvm::Expected<std::unique_ptr<LoadedHooks>>
loadHooks(emu::Device &Dev, llvm::StringRef BitcodePath,
          llvm::StringRef Processor) {
  auto Buf = llvm::MemoryBuffer::getFile(BitcodePath);
  if (!Buf)
    return llvm::createStringError(BitcodePath + ": " +
                                   Buf.getError().message());
  auto H = std::make_unique<LoadedHooks>();
  H->Bitcode = (*Buf)->getBuffer().str();
  llvm::LLVMContext Ctx;
  auto IR = jit::parseIR(llvm::MemoryBufferRef(H->Bitcode, "hooks"), Ctx);
  if (!IR)
    return IR.takeError();
  for (llvm::Function &F : **IR) {
    F.removeFnAttr("target-cpu");
    F.removeFnAttr("target-features");
  }
  jit::CompileOptions CO;
  CO.Target.Processor = Processor.str();
  auto Elf = jit::compileAndLink(**IR, CO);
  if (!Elf)
    return Elf.takeError();
  auto M = loadElf(Dev, *Elf, "hooks");
  if (!M)
    return M.takeError();
  H->Module = std::move(*M);
  H->Library.Name = "test";
  H->Library.Bitcode = H->Bitcode;
  for (const codeobj::Variable &V : H->Module->codeObject().variables())
    H->Library.GlobalAddresses[V.name()] = *H->Module->symbolAddress(V.name());
  return std::move(H);
}

} // namespace loom::instrument::testutil

#endif // LOOM_TESTS_INSTRUMENT_HOOKTESTUTIL_H
