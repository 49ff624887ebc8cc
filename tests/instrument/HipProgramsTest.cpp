//===- HipProgramsTest.cpp - Lifting the HIP test programs' code objects --===//
//
// The HIP test programs (tests/hip, built by hipcc and clang-22 when hipcc is
// found) run through the HSA runtime, not emu::Device, so they are not in
// the dispatch oracle. Their code objects — HIP's device libraries included
// (printf, malloc, cooperative groups) — must still lift: every kernel and
// device function instrumentable, and for call-free kernels textbook
// liveness contained in Loom's. Programs not built are skipped.
//
//===----------------------------------------------------------------------===//
#include "LiftTestUtil.h"

#include "loom/codeobj/Input.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace loom;
using namespace loom::instrument;

namespace {

TEST(HipPrograms, EveryFunctionLifts) {
  std::vector<std::string> Paths;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(LOOM_HIP_TEST_DIR, EC), End;
       It != End && !EC; It.increment(EC)) {
    llvm::StringRef Name = llvm::sys::path::filename(It->path());
    if (Name.starts_with("hip_") && !Name.ends_with(".co") &&
        llvm::sys::fs::can_execute(It->path()))
      Paths.push_back(It->path());
  }
  if (Paths.empty())
    GTEST_SKIP() << "no HIP test program built in " << LOOM_HIP_TEST_DIR;
  llvm::sort(Paths);

  size_t Objects = 0, Functions = 0, Instructions = 0;
  for (const std::string &Path : Paths) {
    auto In = codeobj::readInputFile(Path);
    if (!In) { // a program with no device code (hip_device_props)
      llvm::consumeError(In.takeError());
      continue;
    }
    for (const codeobj::EmbeddedCodeObject &E : In->CodeObjects) {
      ++Objects;
      auto BC = BinaryContext::create(*E.Object);
      ASSERT_TRUE(static_cast<bool>(BC))
          << Path << ": " << llvm::toString(BC.takeError());
      ASSERT_FALSE(static_cast<bool>((*BC)->buildCFGs()));
      auto Live = Liveness::compute(**BC);
      ASSERT_TRUE(static_cast<bool>(Live)) << llvm::toString(Live.takeError());
      for (const BinaryFunction &F : (*BC)->functions()) {
        ++Functions;
        Instructions += F.numInstructions();
        EXPECT_TRUE(F.isInstrumentable())
            << Path << ": " << F.name().str() << ": "
            << F.notInstrumentableReason().str();
        EXPECT_NE(Live->of(F), nullptr);
      }
    }
  }
  std::printf("[hip lift] %zu programs, %zu code objects, %zu functions, %zu "
              "instructions lifted\n",
              Paths.size(), Objects, Functions, Instructions);
}

} // namespace
