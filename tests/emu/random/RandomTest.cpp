//===- RandomTest.cpp - Random programs: device vs host -------------------===//
//
// RandomCorpus/MatchesHost/<file>: the files CMake generated and compiled at
// build time (LOOM_RANDOM_CORPUS lists seed:level pairs), one test per file.
//
// RandomSoak.FreshPrograms: skipped unless LOOM_RANDOM_SOAK=N is set; then
// generates, compiles (invoking clang at run time) and runs N fresh
// programs. See docs/emu-testing.md, "Random programs".
//
//===----------------------------------------------------------------------===//
#include "Generator.h"
#include "Runner.h"

#include "loom/emu/Device.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace loom;
using namespace loom::randtest;

namespace {

/// One device for the whole binary.
emu::Device *device() {
  static std::unique_ptr<emu::Device> Dev = [] {
    emu::DeviceOptions O;
    O.CollectCounters = false;
    auto D = emu::Device::create(O);
    if (!D) {
      ADD_FAILURE() << "Device::create: " << llvm::toString(D.takeError());
      return std::unique_ptr<emu::Device>();
    }
    return std::move(*D);
  }();
  return Dev.get();
}

struct CorpusFile {
  uint64_t Seed;
  int Level;
};

std::vector<CorpusFile> corpus() {
  std::vector<CorpusFile> Files;
  std::istringstream In(LOOM_RANDOM_CORPUS);
  std::string Item;
  while (std::getline(In, Item, ',')) {
    size_t Colon = Item.find(':');
    Files.push_back({std::stoull(Item.substr(0, Colon)),
                     std::stoi(Item.substr(Colon + 1))});
  }
  return Files;
}

void PrintTo(const CorpusFile &F, std::ostream *OS) {
  *OS << "seed " << F.Seed << " -O" << F.Level;
}

class RandomCorpus : public ::testing::TestWithParam<CorpusFile> {};

TEST_P(RandomCorpus, MatchesHost) {
  emu::Device *Dev = device();
  ASSERT_NE(Dev, nullptr);
  FileUnderTest F;
  F.Options.Seed = GetParam().Seed;
  F.Options.Programs = LOOM_RANDOM_PROGRAMS;
  F.Level = GetParam().Level;
  F.Paths = buildPaths(LOOM_RANDOM_DIR, F.Options, F.Level);
  FileReport R = runFile(*Dev, F);
  ASSERT_TRUE(R.Error.empty()) << R.Error;
  EXPECT_EQ(R.Programs, static_cast<unsigned>(LOOM_RANDOM_PROGRAMS));
  EXPECT_TRUE(R.Failures.empty()) << R.summary();
}

INSTANTIATE_TEST_SUITE_P(
    Generated, RandomCorpus, ::testing::ValuesIn(corpus()),
    [](const ::testing::TestParamInfo<CorpusFile> &I) {
      return "seed" + std::to_string(I.param.Seed) + "_O" +
             std::to_string(I.param.Level);
    });

//===----------------------------------------------------------------------===//
// Soak
//===----------------------------------------------------------------------===//

const char *env(const char *Name) {
  const char *V = std::getenv(Name);
  return V && *V ? V : nullptr;
}

uint64_t envNumber(const char *Name, uint64_t Default) {
  const char *V = env(Name);
  return V ? std::strtoull(V, nullptr, 0) : Default;
}

/// LOOM_RANDOM_OPT: the levels to build at ("2", "0,3"); all by default.
std::vector<int> levels() {
  std::vector<int> Levels;
  if (const char *L = env("LOOM_RANDOM_OPT"))
    for (const char *C = L; *C; ++C)
      if (*C >= '0' && *C <= '3')
        Levels.push_back(*C - '0');
  if (Levels.empty())
    Levels = {0, 1, 2, 3};
  return Levels;
}

TEST(RandomSoak, FreshPrograms) {
  const char *SoakVar = env("LOOM_RANDOM_SOAK");
  if (!SoakVar)
    GTEST_SKIP() << "set LOOM_RANDOM_SOAK=N to generate and run N fresh "
                    "programs (docs/emu-testing.md)";
  emu::Device *Dev = device();
  ASSERT_NE(Dev, nullptr);

  uint64_t Total = std::strtoull(SoakVar, nullptr, 0);
  uint64_t PerFile = envNumber("LOOM_RANDOM_PROGRAMS", 50);
  unsigned Size = static_cast<unsigned>(envNumber("LOOM_RANDOM_SIZE", 1));
  uint64_t Base = envNumber(
      "LOOM_RANDOM_SEED",
      static_cast<uint64_t>(
          std::chrono::system_clock::now().time_since_epoch().count()) ^
          (static_cast<uint64_t>(getpid()) << 40));
  std::vector<int> Levels = levels();
  std::string Clang = env("LOOM_CLANG") ? env("LOOM_CLANG") : LOOM_RANDOM_CLANG;
  std::string Dir;
  if (const char *D = env("LOOM_RANDOM_DIR")) {
    Dir = D;
  } else {
    llvm::SmallString<128> Tmp;
    llvm::sys::path::system_temp_directory(true, Tmp);
    llvm::sys::path::append(Tmp, "loom-random-" + std::to_string(getpid()));
    Dir = std::string(Tmp);
  }
  ASSERT_FALSE(llvm::sys::fs::create_directories(Dir)) << "cannot create " << Dir;
  bool Keep = env("LOOM_RANDOM_KEEP") != nullptr;
  ASSERT_GE(Size, 1u);
  ASSERT_LE(Size, 8u);
  ASSERT_GE(PerFile, 1u);

  std::printf("[ soak     ] %llu programs, %llu per file, size %u, base seed "
              "%llu, levels",
              (unsigned long long)Total, (unsigned long long)PerFile, Size,
              (unsigned long long)Base);
  for (int L : Levels)
    std::printf(" O%d", L);
  std::printf(", files in %s\n", Dir.c_str());
  std::fflush(stdout);

  uint64_t Done = 0, Passed = 0, FailedPrograms = 0;
  for (uint64_t I = 0; Done < Total; ++I) {
    FileUnderTest F;
    F.Options.Seed = Base + I;
    F.Options.Programs = static_cast<unsigned>(std::min(PerFile, Total - Done));
    F.Options.Size = Size;
    F.Level = Levels[I % Levels.size()];
    F.Paths = buildPaths(Dir, F.Options, F.Level);
    GeneratedFile G = generateFile(F.Options);
    F.Generated = &G;
    std::string Repro =
        "LOOM_RANDOM_SOAK=" + std::to_string(F.Options.Programs) +
        " LOOM_RANDOM_PROGRAMS=" + std::to_string(F.Options.Programs) +
        " LOOM_RANDOM_SEED=" + std::to_string(F.Options.Seed) +
        " LOOM_RANDOM_SIZE=" + std::to_string(Size) +
        " LOOM_RANDOM_OPT=" + std::to_string(F.Level) +
        " emu_random_tests --gtest_filter=RandomSoak.*";

    std::string Err = writeAndCompile(G, F.Paths, Clang, F.Level);
    if (!Err.empty()) {
      ADD_FAILURE() << "seed " << F.Options.Seed << " -O" << F.Level
                    << ": the generated file does not compile (a generator "
                       "bug): "
                    << Err << "\n  reproduce: " << Repro;
      Done += F.Options.Programs;
      FailedPrograms += F.Options.Programs;
      continue;
    }
    FileReport R = runFile(*Dev, F);
    Done += F.Options.Programs;
    Passed += R.Passed;
    if (!R.ok()) {
      FailedPrograms += F.Options.Programs - R.Passed;
      ADD_FAILURE() << R.summary(4) << "\n  reproduce: " << Repro
                    << "\n  or regenerate the file: loom_randgen --seed "
                    << F.Options.Seed << " --programs " << F.Options.Programs
                    << " --size " << Size << " --level " << F.Level
                    << " --clang " << Clang << " --out-dir DIR";
    }
    std::printf("[ soak     ] seed %llu -O%d: %u/%u passed (total %llu/%llu)\n",
                (unsigned long long)F.Options.Seed, F.Level, R.Passed,
                R.Programs, (unsigned long long)Passed,
                (unsigned long long)Done);
    std::fflush(stdout);
    if (R.ok() && !Keep) {
      llvm::sys::fs::remove(F.Paths.Source);
      llvm::sys::fs::remove(F.Paths.Elf);
      llvm::sys::fs::remove(F.Paths.Host);
    }
  }
  if (!Keep)
    llvm::sys::fs::remove(Dir); // only if empty: failing files stay
  std::printf("[ soak     ] %llu of %llu programs passed\n",
              (unsigned long long)Passed, (unsigned long long)Done);
  EXPECT_EQ(FailedPrograms, 0u);
}

//===----------------------------------------------------------------------===//
// Replay: a generated (possibly hand-minimised) source, compiled and run.
//===----------------------------------------------------------------------===//

TEST(RandomReplay, File) {
  const char *Src = env("LOOM_RANDOM_REPLAY");
  if (!Src)
    GTEST_SKIP() << "set LOOM_RANDOM_REPLAY=FILE.cpp to compile and run a "
                    "generated source (docs/emu-testing.md)";
  emu::Device *Dev = device();
  ASSERT_NE(Dev, nullptr);
  std::string Clang = env("LOOM_CLANG") ? env("LOOM_CLANG") : LOOM_RANDOM_CLANG;
  std::vector<int> Levels = levels();
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("loom-replay", Dir));
  std::string Stem = llvm::sys::path::stem(Src).str();
  std::string Copy = (Dir + "/" + Stem + ".cpp").str();
  ASSERT_FALSE(llvm::sys::fs::copy_file(Src, Copy)) << "cannot read " << Src;
  for (int L : Levels) {
    FileUnderTest F;
    F.Options.Seed = envNumber("LOOM_RANDOM_SEED", 0);
    F.Level = L;
    F.Paths = {Copy, (Dir + "/" + Stem + ".O" + std::to_string(L) + ".elf").str(),
               (Dir + "/" + Stem + ".host.so").str()};
    std::vector<std::string> Device = deviceCommand(Clang, Copy, F.Paths.Elf, L);
    // Extra device flags, to see whether a failure follows a code pattern
    // (e.g. "-mllvm -disable-promote-alloca-to-vector").
    if (const char *Extra = env("LOOM_RANDOM_DEVICE_FLAGS")) {
      std::istringstream In(Extra);
      for (std::string A; In >> A;)
        Device.push_back(A);
    }
    for (const auto &Cmd : {Device, hostCommand(Clang, Copy, F.Paths.Host)}) {
      std::string Line = commandLine(Cmd) + " 2>&1";
      ASSERT_EQ(std::system(Line.c_str()), 0) << Line;
    }
    FileReport R = runFile(*Dev, F);
    std::printf("[ replay   ] %s -O%d: %u/%u passed (files in %s)\n", Src, L,
                R.Passed, R.Programs, Dir.c_str());
    EXPECT_TRUE(R.ok()) << R.summary(100);
  }
  if (!::testing::Test::HasFailure() && !env("LOOM_RANDOM_KEEP"))
    llvm::sys::fs::remove_directories(Dir);
}

} // namespace
