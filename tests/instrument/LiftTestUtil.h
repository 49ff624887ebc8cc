//===- LiftTestUtil.h - Lifting a test input ------------------------------===//
#ifndef LOOM_TESTS_INSTRUMENT_LIFTTESTUTIL_H
#define LOOM_TESTS_INSTRUMENT_LIFTTESTUTIL_H

#include "loom/codeobj/CodeObject.h"
#include "loom/instrument/BinaryContext.h"
#include "loom/instrument/Liveness.h"

#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <memory>
#include <ostream>
#include <optional>
#include <string>

namespace loom::instrument {
/// GoogleTest prints register sets as assembler ranges.
inline void PrintTo(const RegisterSet &S, std::ostream *OS) {
  *OS << "{" << S.str() << "}";
}
} // namespace loom::instrument

namespace loom::instrument::test {

/// A code object file, lifted to CFGs (and liveness).
struct LiftedFile {
  std::unique_ptr<codeobj::CodeObject> CO;
  std::unique_ptr<BinaryContext> BC;
  std::optional<Liveness> Live;

  BinaryFunction &fn(llvm::StringRef Name) const {
    BinaryFunction *F = BC->function(Name);
    if (!F)
      ADD_FAILURE() << "no function " << Name.str();
    return *F;
  }
  const FunctionLiveness &live(llvm::StringRef Name) const {
    return *Live->of(fn(Name));
  }
  /// The instruction at byte offset \p Offset of \p Fn.
  const BinaryInstruction &at(llvm::StringRef Fn, uint64_t Offset) const {
    const BinaryFunction &F = fn(Fn);
    const BinaryInstruction *I = F.instructionAt(F.address() + Offset);
    if (!I)
      ADD_FAILURE() << "no instruction at " << Fn.str() << "+" << Offset;
    return *I;
  }
};

/// Fails the current test (and returns nothing) if \p Path does not lift.
inline std::optional<LiftedFile> liftFile(const std::string &Path,
                                          bool BuildCfg = true) {
  auto File = llvm::MemoryBuffer::getFile(Path);
  if (!File) {
    ADD_FAILURE() << Path << ": " << File.getError().message();
    return std::nullopt;
  }
  LiftedFile L;
  auto CO = codeobj::CodeObject::create(
      llvm::ArrayRef<uint8_t>(
          reinterpret_cast<const uint8_t *>((*File)->getBufferStart()),
          (*File)->getBufferSize()),
      Path);
  if (!CO) {
    ADD_FAILURE() << llvm::toString(CO.takeError());
    return std::nullopt;
  }
  L.CO = std::move(*CO);
  auto BC = BinaryContext::create(*L.CO);
  if (!BC) {
    ADD_FAILURE() << llvm::toString(BC.takeError());
    return std::nullopt;
  }
  L.BC = std::move(*BC);
  if (!BuildCfg)
    return L;
  if (llvm::Error E = L.BC->buildCFGs()) {
    ADD_FAILURE() << llvm::toString(std::move(E));
    return std::nullopt;
  }
  auto Live = Liveness::compute(*L.BC);
  if (!Live) {
    ADD_FAILURE() << llvm::toString(Live.takeError());
    return std::nullopt;
  }
  L.Live = std::move(*Live);
  return L;
}

} // namespace loom::instrument::test

#endif // LOOM_TESTS_INSTRUMENT_LIFTTESTUTIL_H
