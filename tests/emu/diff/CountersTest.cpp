//===- CountersTest.cpp - Dispatch counters of a straight-line kernel -----===//
//
// straight_line has no branch and no call, so each wave runs each of its
// instructions exactly once: the counters must equal the disassembly's
// instruction list times the number of waves, and each vector instruction's
// active lanes the work-items of the grid.
//
//===----------------------------------------------------------------------===//
#include "DiffHarness.h"

#include "loom/codeobj/CodeObject.h"
#include "loom/isa/Disassembler.h"
#include "loom/isa/McContext.h"

#include "llvm/Support/MemoryBuffer.h"

#include <map>
#include <set>

using namespace loom;
using namespace loom::emu;
using namespace loom::emu::difftest;

namespace {

class Counters : public LevelTest {};

TEST_P(Counters, StraightLineKernel) {
  std::string Path = kernelPath("counters", level());
  auto File = llvm::MemoryBuffer::getFile(Path);
  ASSERT_TRUE(static_cast<bool>(File)) << Path << ": " << File.getError().message();
  auto CO = codeobj::CodeObject::create(
      llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>((*File)->getBufferStart()),
                              (*File)->getBufferSize()),
      Path);
  ASSERT_TRUE(static_cast<bool>(CO)) << llvm::toString(CO.takeError());
  auto MC = isa::McContext::create((*CO)->target());
  ASSERT_TRUE(static_cast<bool>(MC)) << llvm::toString(MC.takeError());
  isa::Disassembler Dis(**MC, **CO);
  auto Fn = Dis.disassemble("straight_line");
  ASSERT_TRUE(static_cast<bool>(Fn)) << llvm::toString(Fn.takeError());

  // The instructions up to s_endpgm, which must all fall through.
  std::set<uint64_t> Offsets;
  bool Ended = false;
  for (const isa::Instruction &I : Fn->Instructions) {
    ASSERT_TRUE(I.Valid) << "undecodable bytes at " << hex(I.Address);
    Offsets.insert(I.Address - Fn->Address);
    if (I.Flow == isa::ControlFlow::EndProgram) {
      Ended = true;
      break;
    }
    ASSERT_EQ(I.Flow, isa::ControlFlow::None) << "not straight-line: " << I.Text;
  }
  ASSERT_TRUE(Ended) << "no s_endpgm";
  const uint64_t PerWave = Offsets.size();

  Module *M = loadModule("counters", level());
  ASSERT_TRUE(M);
  Device &Dev = *sharedDevice();
  ASSERT_TRUE(Dev.options().CollectCounters);
  // Seven waves, the last one with 54 of 64 lanes.
  constexpr uint32_t Waves = 7, Items = Waves * 64 - 10;
  std::vector<float> In(Waves * 64);
  for (uint32_t I = 0; I < In.size(); ++I)
    In[I] = static_cast<float>(I) * 0.5f;
  auto DI = upload(Dev, In);
  auto Out = filled<float>(Dev, In.size(), -1.0f);
  DispatchResult R;
  ASSERT_TRUE(launchOk(*M, "straight_line", LaunchConfig::linear(Items, 64),
                       KernelArgs().add(Out->address()).add(DI->address()), &R));

  std::vector<float> Got = download<float>(*Out, In.size());
  for (uint32_t I = 0; I < In.size(); ++I)
    EXPECT_EQ(Got[I], I < Items ? In[I] * 3.0f + 1.0f : -1.0f) << "item " << I;

  const DispatchCounters &C = R.Counters;
  EXPECT_EQ(C.Workgroups, Waves);
  EXPECT_EQ(C.Waves, Waves);
  EXPECT_EQ(C.WaveInstructions, Waves * PerWave);
  uint64_t ByOpcode = 0;
  for (const auto &[Opcode, Count] : C.byOpcode())
    ByOpcode += Count;
  EXPECT_EQ(ByOpcode, C.WaveInstructions);
  auto Entries = C.byOpcode();
  uint64_t EndPgm = 0;
  for (const auto &[Opcode, Count] : Entries)
    if (llvm::StringRef(Opcode).starts_with("S_ENDPGM"))
      EndPgm += Count;
  EXPECT_EQ(EndPgm, Waves);

  // Every instruction once per wave; vector ones with EXEC as the grid
  // leaves it (active lanes are counted for vector instructions only).
  constexpr uint64_t Lanes = (Waves - 1) * 64 + 54;
  std::set<uint64_t> Seen;
  uint64_t VectorLanes = 0;
  for (const InstructionCount &I : C.Instructions) {
    EXPECT_EQ(I.Function, "straight_line");
    EXPECT_EQ(I.WaveExecutions, Waves) << I.Opcode << " at +" << hex(I.Offset);
    if (!llvm::StringRef(I.Opcode).starts_with("S_")) {
      EXPECT_EQ(I.ActiveLanes, Lanes) << I.Opcode << " at +" << hex(I.Offset);
      VectorLanes += I.ActiveLanes;
    }
    Seen.insert(I.Offset);
  }
  EXPECT_EQ(Seen, Offsets);
  EXPECT_EQ(C.ActiveLaneInstructions, VectorLanes);
}

LOOM_DIFF_LEVELS(Counters);

} // namespace
