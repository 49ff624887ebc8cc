//===- tests/cli/DisasmCliTest.cpp - `loom disasm` ------------------------===//
//
// The listing must carry llvm-objdump-22's text for every instruction, mark
// blocks, and name call targets; errors go to stderr with exit code 1.
// Format: docs/cli.md, "loom disasm".
//
//===----------------------------------------------------------------------===//

#include "../support/RunCommand.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

#include <map>

using namespace loom::test;
using namespace llvm;

namespace {

std::string fixture(const std::string &Name) {
  return std::string(LOOM_FIXTURE_DIR) + "/" + Name;
}

/// Address -> text of every instruction line "  +0x0010  0x1e10  text ...".
std::map<uint64_t, std::string> listingTexts(StringRef Out) {
  std::map<uint64_t, std::string> Texts;
  SmallVector<StringRef, 0> Lines;
  Out.split(Lines, '\n');
  for (StringRef L : Lines) {
    if (!L.consume_front("  +0x"))
      continue;
    auto [Offset, Rest] = L.split("  0x");
    auto [Addr, Text] = Rest.split("  ");
    uint64_t A;
    if (Addr.getAsInteger(16, A)) {
      ADD_FAILURE() << "bad line: " << L.str();
      continue;
    }
    size_t Comment = Text.find(" // ");
    Texts[A] = Text.take_front(Comment).rtrim().str();
  }
  return Texts;
}

/// Address -> text from llvm-objdump -d (see tests/isa/DisassemblerTest.cpp).
std::map<uint64_t, std::string> objdumpTexts(const std::string &File) {
  CommandResult R = runCommand({LOOM_LLVM_OBJDUMP, "-d", File});
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  std::map<uint64_t, std::string> Texts;
  SmallVector<StringRef, 0> Lines;
  StringRef(R.Out).split(Lines, '\n');
  for (StringRef L : Lines) {
    if (!L.consume_front("\t"))
      continue;
    size_t Pos = L.find("// ");
    uint64_t A;
    if (Pos == StringRef::npos || L.size() < Pos + 16 || L[Pos + 15] != ':' ||
        L.substr(Pos + 3, 12).getAsInteger(16, A))
      continue;
    Texts[A] = L.take_front(Pos).rtrim().str();
  }
  return Texts;
}

TEST(DisasmCli, ListsEveryFunctionWithObjdumpText) {
  std::string File = fixture("gfx90a_v5_kernels.elf");
  CommandResult R = runCommand({LOOM_BIN, "disasm", File});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(R.Err, "");

  for (const char *Header :
       {"scale_add (kernel) @ 0x", "call_chain (kernel) @ 0x",
        "mixed_args (kernel) @ 0x", "helper_mul (function) @ 0x",
        "helper_sum (function) @ 0x", "helper_fib (function) @ 0x"})
    EXPECT_NE(R.Out.find(Header), std::string::npos) << Header;
  // No header line for a plain code object.
  EXPECT_EQ(R.Out.find("code object"), std::string::npos);

  std::map<uint64_t, std::string> Mine = listingTexts(R.Out);
  std::map<uint64_t, std::string> Ref = objdumpTexts(File);
  ASSERT_GT(Mine.size(), 50u);
  for (const auto &[Addr, Text] : Mine) {
    auto It = Ref.find(Addr);
    ASSERT_NE(It, Ref.end()) << "0x" << utohexstr(Addr);
    EXPECT_EQ(Text, It->second) << "0x" << utohexstr(Addr);
  }
}

TEST(DisasmCli, BlocksAndCallTargets) {
  CommandResult R =
      runCommand({LOOM_BIN, "disasm", fixture("gfx90a_v5_kernels.elf"),
                  "--kernel", "call_chain"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_TRUE(StringRef(R.Out).starts_with("call_chain (kernel) @ 0x"));
  EXPECT_EQ(R.Out.find("helper_mul (function)"), std::string::npos);
  for (const char *Callee : {"helper_mul", "helper_sum", "helper_fib"})
    EXPECT_NE(R.Out.find(std::string("// call <") + Callee + ">"),
              std::string::npos)
        << Callee << "\n"
        << R.Out;

  R = runCommand({LOOM_BIN, "disasm", fixture("gfx90a_v5_kernels.elf"),
                  "--function", "helper_sum"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  // The loop: a labelled block reached from two places, and a conditional
  // branch back to it.
  EXPECT_NE(R.Out.find("// 2 predecessors"), std::string::npos) << R.Out;
  EXPECT_NE(R.Out.find("// -> .LBB_0x"), std::string::npos) << R.Out;
  EXPECT_NE(R.Out.find("s_setpc_b64 s[30:31]"), std::string::npos);
  EXPECT_NE(R.Out.find("// return"), std::string::npos);
}

TEST(DisasmCli, LiftedCfgLivenessAndProperties) {
  CommandResult R =
      runCommand({LOOM_BIN, "disasm", fixture("gfx90a_v5_kernels.elf"),
                  "--kernel", "scale_add", "--liveness", "--props"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  // if (gid < n) { ... }: what the dispatch gives and the kernel reads is
  // live at entry; the branch's successors; per-instruction properties.
  for (const char *Line :
       {"  // instrumentable\n", "  // live-in: s[4:6] v0 exec mode\n",
        "  // successors: .LBB_0x",
        "; scalar; reads s[4:5]; writes s0; mem: scalar load 4B; live after: "
        "s0 s[4:6] v0 exec mode\n",
        "; scalar; reads exec vcc; writes s[0:1] exec scc; live after: "
        "s[4:5] v0 v2 exec mode\n",
        "exec may be partial", "mem: global load 4B", "call graph: no calls"})
    EXPECT_NE(R.Out.find(Line), std::string::npos) << Line << "\n" << R.Out;

  R = runCommand({LOOM_BIN, "disasm", fixture("gfx90a_v5_kernels.elf"), "--cfg"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  for (const char *Line : {" calls helper_mul [pc-relative]\n",
                           "  helper_fib+0x", " calls helper_fib [pc-relative]\n"})
    EXPECT_NE(R.Out.find(Line), std::string::npos) << Line << "\n" << R.Out;

  R = runCommand({LOOM_BIN, "disasm", fixture("xco_caller.elf"), "--cfg"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_NE(R.Out.find(" calls xco_shared_add (outside this code object) "
                       "[got]\n"),
            std::string::npos)
      << R.Out;
}

TEST(DisasmCli, CrossCodeObjectCall) {
  CommandResult R = runCommand({LOOM_BIN, "disasm", fixture("xco_caller.elf")});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_NE(R.Out.find("// call xco_shared_add (via GOT)"), std::string::npos)
      << R.Out;
}

TEST(DisasmCli, BundleAndHostBinaryPrintOneHeaderPerCodeObject) {
  CommandResult R =
      runCommand({LOOM_BIN, "disasm", fixture("bundle_plain.hipfb"), "--kernel",
                  "scale_add"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_NE(R.Out.find("code object hipv4-amdgcn-amd-amdhsa--gfx90a ("),
            std::string::npos)
      << R.Out;
  EXPECT_NE(R.Out.find("code object hipv4-amdgcn-amd-amdhsa--gfx942 ("),
            std::string::npos);

  std::string Hip = fixture("hip_two_kernels");
  if (!sys::fs::exists(Hip))
    GTEST_SKIP() << "hipcc fixture not built";
  // By symbol, and by demangled name.
  for (const char *Name : {"_Z5saxpyfPKfPfi", "saxpy"}) {
    R = runCommand({LOOM_BIN, "disasm", Hip, "--kernel", Name});
    ASSERT_EQ(R.ExitCode, 0) << R.Err;
    EXPECT_NE(R.Out.find("code object hipv4-amdgcn-amd-amdhsa--gfx90a"),
              std::string::npos);
    EXPECT_NE(R.Out.find("_Z5saxpyfPKfPfi (kernel) @ 0x"), std::string::npos)
        << R.Out;
    EXPECT_NE(R.Out.find("// saxpy(float, float const*, float*, int)"),
              std::string::npos);
    EXPECT_EQ(R.Out.find("histogram"), std::string::npos);
  }
}

TEST(DisasmCli, Errors) {
  std::string File = fixture("gfx90a_v5_kernels.elf");
  CommandResult R =
      runCommand({LOOM_BIN, "disasm", File, "--kernel", "no_such_kernel"});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_EQ(R.Out, "");
  EXPECT_TRUE(StringRef(R.Err).starts_with(
      "loom disasm: " + File + ": no kernel named 'no_such_kernel'"))
      << R.Err;

  // A device function is not a kernel.
  R = runCommand({LOOM_BIN, "disasm", File, "--kernel", "helper_mul"});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_NE(R.Err.find("no kernel named 'helper_mul'"), std::string::npos);

  R = runCommand({LOOM_BIN, "disasm", File, "--kernel", "scale_add",
                  "--function", "helper_mul"});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_TRUE(StringRef(R.Err).starts_with("loom disasm: " + File + ": "));

  std::string Missing = fixture("does_not_exist.elf");
  R = runCommand({LOOM_BIN, "disasm", Missing});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_TRUE(StringRef(R.Err).starts_with("loom disasm: " + Missing + ": "))
      << R.Err;
  EXPECT_FALSE(R.crashed());
}

} // namespace
