//===- tests/support/JsonLines.h - Reading JSON Lines in tests ------------===//
#ifndef LOOM_TESTS_SUPPORT_JSONLINES_H
#define LOOM_TESTS_SUPPORT_JSONLINES_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <vector>

namespace loom::test {

/// Every line of a JSON Lines file (`loom exec --counters`, a tool's
/// output); a missing file or a line that is no JSON is a test failure.
inline std::vector<llvm::json::Value> jsonLines(llvm::StringRef Path) {
  std::vector<llvm::json::Value> Out;
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf) {
    ADD_FAILURE() << "no file " << Path.str();
    return Out;
  }
  llvm::SmallVector<llvm::StringRef, 8> Lines;
  (*Buf)->getBuffer().split(Lines, '\n', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef L : Lines) {
    llvm::Expected<llvm::json::Value> V = llvm::json::parse(L);
    if (!V) {
      ADD_FAILURE() << llvm::toString(V.takeError()) << ": " << L.str();
      continue;
    }
    Out.push_back(std::move(*V));
  }
  return Out;
}

} // namespace loom::test

#endif
