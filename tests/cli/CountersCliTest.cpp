//===- tests/cli/CountersCliTest.cpp - loom exec --counters, --memory-trace ===//
//
// The sample HIP program's saxpy (4096 elements, work-groups of 256) run
// under `loom exec` with both reports on. Its counts follow from the
// program: 64 waves; every wave loads x and y and stores y once per lane;
// each line of the memory trace is one wave-instruction of a memory
// instruction; and the totals agree with the per-instruction entries.
//
//===----------------------------------------------------------------------===//

#include "../support/RunCommand.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

using namespace llvm;
using namespace loom::test;

namespace {

std::vector<json::Value> readLines(const std::string &Path) {
  std::vector<json::Value> Lines;
  auto Buf = MemoryBuffer::getFile(Path);
  if (!Buf) {
    ADD_FAILURE() << Path << ": " << Buf.getError().message();
    return Lines;
  }
  SmallVector<StringRef, 0> Text;
  (*Buf)->getBuffer().split(Text, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef L : Text) {
    auto V = json::parse(L);
    if (!V) {
      ADD_FAILURE() << toString(V.takeError()) << " in " << L.str();
      continue;
    }
    Lines.push_back(std::move(*V));
  }
  return Lines;
}

TEST(CountersCli, SaxpyCountsFollowFromTheProgram) {
  SmallString<128> Counters, Trace;
  sys::fs::createTemporaryFile("counters", "jsonl", Counters);
  sys::fs::createTemporaryFile("trace", "jsonl", Trace);
  CommandResult R = runCommand(
      {LOOM_BIN, "exec", "--counters", std::string(Counters), "--memory-trace",
       std::string(Trace), "--",
       std::string(LOOM_FIXTURE_DIR) + "/hip_two_kernels"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_NE(R.Out.find("saxpy ok"), std::string::npos);

  std::vector<json::Value> Dispatches = readLines(std::string(Counters));
  ASSERT_EQ(Dispatches.size(), 1u);
  const json::Object &D = *Dispatches[0].getAsObject();
  EXPECT_EQ(*D.getString("kernel"), "_Z5saxpyfPKfPfi");
  EXPECT_EQ(*D.getString("status"), "completed");
  EXPECT_EQ(*(*D.getArray("grid"))[0].getAsInteger(), 4096);
  EXPECT_EQ(*(*D.getArray("workgroup"))[0].getAsInteger(), 256);
  EXPECT_EQ(*D.getInteger("workgroups"), 16);
  EXPECT_EQ(*D.getInteger("waves"), 64);
  const json::Object &Ops = *D.getObject("opcodes");
  // [wave-instructions, active lanes]
  EXPECT_EQ(*(*Ops.getArray("GLOBAL_STORE_DWORD"))[0].getAsInteger(), 64);
  EXPECT_EQ(*(*Ops.getArray("GLOBAL_STORE_DWORD"))[1].getAsInteger(), 4096);
  EXPECT_EQ(*(*Ops.getArray("GLOBAL_LOAD_DWORD"))[1].getAsInteger(), 8192);
  EXPECT_EQ(*(*Ops.getArray("S_ENDPGM"))[0].getAsInteger(), 64);
  EXPECT_EQ(*D.getObject("memory")->getObject("global")->getInteger("bytes"),
            3 * 4096 * 4);

  int64_t Waves = 0, Memory = 0, Lanes = 0;
  for (const json::Value &I : *D.getArray("instructions")) {
    const json::Object &O = *I.getAsObject();
    Waves += *O.getInteger("waves");
    Lanes += *O.getInteger("lanes");
    StringRef Op = *O.getString("opcode");
    if (Op.starts_with("GLOBAL_") || Op.starts_with("S_LOAD"))
      Memory += *O.getInteger("waves");
  }
  EXPECT_EQ(Waves, *D.getInteger("wave_instructions"));
  EXPECT_EQ(Lanes, *D.getInteger("lane_instructions"));
  EXPECT_EQ(Memory, *D.getInteger("memory_instructions"));
  // Every block of saxpy is entered by every wave.
  for (const auto &[Block, N] : *D.getObject("blocks"))
    EXPECT_EQ(*N.getAsInteger(), 64) << Block.str();

  std::vector<json::Value> Accesses = readLines(std::string(Trace));
  EXPECT_EQ(int64_t(Accesses.size()), Memory);
  int64_t Stores = 0;
  for (const json::Value &A : Accesses) {
    const json::Object &O = *A.getAsObject();
    if (*O.getString("direction") == "write") {
      ++Stores;
      EXPECT_EQ(O.getArray("addresses")->size(), 64u);
      EXPECT_EQ(*O.getInteger("bytes_per_lane"), 4);
      EXPECT_EQ(*O.getString("space"), "global");
    }
  }
  EXPECT_EQ(Stores, 64);
  sys::fs::remove(Counters);
  sys::fs::remove(Trace);
}

} // namespace
