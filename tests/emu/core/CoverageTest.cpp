//===- tests/emu/core/CoverageTest.cpp - Every emitted operation runs -----===//
//
// Fails if clang emits, for any gfx90a code object the tests build, an
// operation the virtual GPU does not implement.
//
//===----------------------------------------------------------------------===//

#include "loom/codeobj/Input.h"
#include "loom/emu/Coverage.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

using namespace llvm;
using namespace loom;

namespace {

/// gfx90a code objects (*.elf) under the test build directories.
std::vector<std::string> corpus() {
  std::vector<std::string> Files;
  SmallString<256> Root(LOOM_EMU_CORE_DIR);
  sys::path::remove_filename(Root); // tests/emu
  std::error_code EC;
  for (sys::fs::recursive_directory_iterator It(Root, EC), End;
       It != End && !EC; It.increment(EC))
    if (sys::path::extension(It->path()) == ".elf")
      Files.push_back(It->path());
  return Files;
}

TEST(Coverage, EveryOperationClangEmitsForTheTestsIsImplemented) {
  std::map<std::string, std::set<std::string>> Missing; // op -> files
  size_t Objects = 0;
  for (const std::string &File : corpus()) {
    auto In = codeobj::readInputFile(File);
    ASSERT_TRUE(bool(In)) << toString(In.takeError());
    for (const codeobj::EmbeddedCodeObject &E : In->CodeObjects) {
      if (E.Object->target().Processor != "gfx90a")
        continue;
      ++Objects;
      auto Used = emu::operationsUsedBy(*E.Object);
      ASSERT_TRUE(bool(Used)) << toString(Used.takeError());
      for (const auto &[Op, N] : *Used)
        if (!emu::isImplemented(Op))
          Missing[Op].insert(sys::path::filename(File).str());
    }
  }
  EXPECT_GT(Objects, 0u);
  for (const auto &[Op, Files] : Missing)
    ADD_FAILURE() << Op << " is not implemented (used in "
                  << *Files.begin() << (Files.size() > 1 ? " and others" : "")
                  << ")";
}

} // namespace
