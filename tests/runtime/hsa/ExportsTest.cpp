//===- tests/runtime/hsa/ExportsTest.cpp - ABI and command-line checks ----===//

#include "RunCommand.h"

#include "gtest/gtest.h"

#include <set>
#include <sstream>

using namespace loom::test;

namespace {

/// Defined dynamic symbols of \p Lib with their versions ("name@@VER").
std::set<std::string> exports(const std::string &Lib) {
  CommandResult R = runCommand({LOOM_NM, "-D", "--defined-only", Lib});
  EXPECT_EQ(0, R.ExitCode) << R.Err;
  std::set<std::string> Out;
  std::istringstream In(R.Out);
  std::string Addr, Kind, Name;
  while (In >> Addr >> Kind >> Name)
    if (Kind != "A") // version definitions
      Out.insert(Name);
  return Out;
}

TEST(ExportsTest, EveryRocrExportIsOurs) {
  std::set<std::string> Rocr = exports(LOOM_ROCR_LIB);
  std::set<std::string> Ours = exports(LOOM_HSA_LIB);
  ASSERT_GT(Rocr.size(), 200u);
  for (const std::string &S : Rocr)
    EXPECT_TRUE(Ours.count(S)) << "missing " << S;
  // Nothing but HSA functions (and Loom's private entry points) leaks.
  for (const std::string &S : Ours)
    EXPECT_TRUE(S.rfind("hsa_", 0) == 0 || S.rfind("_amdgpu_r_debug", 0) == 0 ||
                S.rfind("loom_hsa_", 0) == 0)
        << "leaked " << S;
}

TEST(CliTest, RocminfoThroughLoomExecListsGfx90a) {
  CommandResult R = runCommand({LOOM_BIN, "exec", "--", "/usr/bin/rocminfo"});
  ASSERT_EQ(0, R.ExitCode) << R.Out << R.Err;
  EXPECT_NE(std::string::npos, R.Out.find("gfx90a"));
  EXPECT_NE(std::string::npos, R.Out.find("Device Type:             GPU"));
  EXPECT_NE(std::string::npos,
            R.Out.find("amdgcn-amd-amdhsa--gfx90a"));
}

TEST(CliTest, LoomInfoListsAgentsAndPools) {
  CommandResult R = runCommand({LOOM_BIN, "info"});
  ASSERT_EQ(0, R.ExitCode) << R.Err;
  EXPECT_NE(std::string::npos, R.Out.find("GPU gfx90a"));
  EXPECT_NE(std::string::npos, R.Out.find("compute units 104"));
  EXPECT_NE(std::string::npos, R.Out.find("kernarg"));
  EXPECT_NE(std::string::npos, R.Out.find("GROUP, 64 KiB"));
}

TEST(CliTest, LoomExecReportsAMissingProgram) {
  CommandResult R = runCommand({LOOM_BIN, "exec", "--", "/nonexistent/app"});
  // Exit code 127 (LLVM reports it as "could not execute": -1).
  EXPECT_NE(0, R.ExitCode);
  EXPECT_NE(std::string::npos, R.Err.find("cannot run"));
}

} // namespace
