//===- tests/emu/core/CodeRegionTest.cpp - Code decoded unit by unit ------===//
//
// The emulator decodes a code object one kernel or function at a time, as
// it first runs (emu/CodeRegion.h). Code that crosses from one unit into
// another must run and count as one linear sweep of the code would have
// it: falling through into the next function, branching into another, and
// running off the end of the code (kernels/code_units.s). Its basic blocks
// are those of `loom disasm` (kernels/block_leaders.s).
//
//===----------------------------------------------------------------------===//

#include "loom/codeobj/CodeObject.h"
#include "loom/emu/Module.h"
#include "loom/isa/Disassembler.h"
#include "loom/isa/McContext.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

using namespace loom::emu;

namespace {

struct UnitRun {
  std::vector<uint32_t> Out;
  DispatchResult R;
};

/// Runs \p Kernel of \p File (kernels/*.s) on one wave with counters.
UnitRun run(const char *Kernel, const char *File = "code_units") {
  DeviceOptions O;
  O.CollectCounters = true;
  auto D = Device::create(O);
  EXPECT_TRUE(bool(D));
  if (!D)
    return {};
  auto M = Module::loadFile(
      **D, std::string(LOOM_EMU_CORE_DIR) + "/" + File + ".elf");
  EXPECT_TRUE(bool(M)) << (M ? "" : llvm::toString(M.takeError()));
  if (!M)
    return {};
  DeviceBuffer Out(**D, 64 * 4);
  auto R = (*M)->launch(Kernel, LaunchConfig::linear(64, 64),
                        KernelArgs().add(Out.address()));
  EXPECT_TRUE(bool(R)) << (R ? "" : llvm::toString(R.takeError()));
  UnitRun Result;
  Result.Out.assign(Out.data<uint32_t>(), Out.data<uint32_t>() + 64);
  if (R)
    Result.R = *R;
  return Result;
}

/// Wave executions by function and offset.
std::map<std::pair<std::string, uint64_t>, uint64_t>
byPlace(const DispatchCounters &C) {
  std::map<std::pair<std::string, uint64_t>, uint64_t> M;
  for (const InstructionCount &I : C.Instructions)
    M[{I.Function, I.Offset}] += I.WaveExecutions;
  return M;
}

TEST(CodeRegionTest, ExecutionFallsIntoTheNextFunction) {
  UnitRun R = run("falls_through");
  ASSERT_TRUE(R.R.ok()) << R.R.FirstFault.Message;
  for (unsigned L = 0; L < 64; ++L)
    ASSERT_EQ(R.Out[L], 11u) << "lane " << L;
  // Seven instructions, each once: the slot that continues into the next
  // unit is not one.
  EXPECT_EQ(R.R.Counters.WaveInstructions, 7u);
  std::map<std::pair<std::string, uint64_t>, uint64_t> Expected = {
      {{"falls_through", 0}, 1}, {{"falls_through", 8}, 1},
      {{"falls_through", 12}, 1}, {{"falls_through", 16}, 1},
      {{"landing", 0}, 1},       {{"landing", 4}, 1},
      {{"landing", 12}, 1}};
  EXPECT_EQ(byPlace(R.R.Counters), Expected);
}

TEST(CodeRegionTest, BranchesLandInAnotherFunction) {
  UnitRun R = run("branches_away");
  ASSERT_TRUE(R.R.ok()) << R.R.FirstFault.Message;
  for (unsigned L = 0; L < 64; ++L)
    ASSERT_EQ(R.Out[L], 107u) << "lane " << L;
  EXPECT_EQ(R.R.Counters.WaveInstructions, 8u);
  // far_away's first instruction (8 bytes, with its literal) never runs.
  // Blocks are those of `loom disasm`, function by function: a target that
  // only another function branches to starts none.
  std::map<std::pair<std::string, uint64_t>, uint64_t> Got =
      byPlace(R.R.Counters);
  EXPECT_EQ(Got.count({"far_away", 0}), 0u);
  EXPECT_EQ(Got[std::make_pair(std::string("far_away"), uint64_t(8))], 1u);
  bool Found = false;
  for (const InstructionCount &I : R.R.Counters.Instructions)
    if (I.Function == "far_away" && I.Offset == 8) {
      Found = true;
      EXPECT_FALSE(I.StartsBlock);
    }
  EXPECT_TRUE(Found);
}

/// The offsets where `loom disasm` starts \p Kernel's basic blocks.
std::set<uint64_t> disasmBlockStarts(const char *File, const char *Kernel) {
  std::string Path = std::string(LOOM_EMU_CORE_DIR) + "/" + File + ".elf";
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  EXPECT_TRUE(bool(Buf)) << Path;
  if (!Buf)
    return {};
  auto CO = loom::codeobj::CodeObject::create(
      llvm::arrayRefFromStringRef((*Buf)->getBuffer()), Path);
  EXPECT_TRUE(bool(CO)) << (CO ? "" : llvm::toString(CO.takeError()));
  if (!CO)
    return {};
  auto MC = loom::isa::McContext::create((*CO)->target());
  EXPECT_TRUE(bool(MC)) << (MC ? "" : llvm::toString(MC.takeError()));
  if (!MC)
    return {};
  loom::isa::Disassembler Dis(**MC, **CO);
  auto F = Dis.disassemble(Kernel);
  EXPECT_TRUE(bool(F)) << (F ? "" : llvm::toString(F.takeError()));
  std::set<uint64_t> Starts;
  if (F)
    for (const loom::isa::BasicBlock &B : F->Blocks)
      Starts.insert(B.Address - F->Address);
  return Starts;
}

/// Each instruction \p Kernel ran starts a block iff `loom disasm` starts
/// one there; \p Needed: offsets that must be among them.
void expectDisasmBlocks(const char *Kernel, uint32_t Result,
                        const std::set<uint64_t> &Needed) {
  UnitRun R = run(Kernel, "block_leaders");
  ASSERT_TRUE(R.R.ok()) << R.R.FirstFault.Message;
  for (unsigned L = 0; L < 64; ++L)
    ASSERT_EQ(R.Out[L], Result) << "lane " << L;
  std::set<uint64_t> Starts = disasmBlockStarts("block_leaders", Kernel);
  for (uint64_t N : Needed)
    EXPECT_TRUE(Starts.count(N)) << "the disassembly starts no block at +"
                                 << N;
  std::set<uint64_t> Ran, Started;
  for (const InstructionCount &I : R.R.Counters.Instructions) {
    EXPECT_EQ(I.Function, Kernel);
    Ran.insert(I.Offset);
    if (I.StartsBlock)
      Started.insert(I.Offset);
  }
  std::set<uint64_t> Expected;
  for (uint64_t S : Starts)
    if (Ran.count(S))
      Expected.insert(S);
  EXPECT_EQ(Started, Expected);
}

TEST(CodeRegionTest, BlocksOfBranchesAreTheDisassemblys) {
  // The entry, the loop's head (+0x14), what follows its back edge (+0x24:
  // the s_branch), the forward target (+0x30).
  expectDisasmBlocks("branchy", 6, {0, 0x14, 0x24, 0x30});
}

TEST(CodeRegionTest, BlocksOfARegisterJumpAreTheDisassemblys) {
  // s_setpc_b64 to a constant the function computed: its target (+44)
  // (+0x2c) starts a block, which only the Disassembler's register
  // tracking sees.
  expectDisasmBlocks("jumps_by_register", 105, {0, 0x2c});
}

TEST(CodeRegionTest, RunningOffTheEndOfTheCodeFaults) {
  UnitRun R = run("runs_off");
  EXPECT_EQ(R.R.Status, DispatchStatus::IllegalInstruction);
  EXPECT_NE(R.R.FirstFault.Message.find("ran past the end of the code"),
            std::string::npos)
      << R.R.FirstFault.Message;
  EXPECT_EQ(R.R.Counters.WaveInstructions, 2u);
}

} // namespace
