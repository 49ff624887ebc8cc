//===- WaitStatesTest.cpp - The wait-state rules on real instructions -----===//
//
// hazard_cases.s: each function is producers, then a consumer, then its
// return; the instructions come from the assembler and the lifter (MC's
// tables), as the instrumenter sees them at a seam.
//
//===----------------------------------------------------------------------===//
#include "LiftTestUtil.h"

#include "loom/instrument/WaitStates.h"

#include <gtest/gtest.h>

using namespace loom::instrument;
using namespace loom::instrument::test;

namespace {

class WaitStatesTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() { L = liftFile(LOOM_HAZARD_CASES); }
  static void TearDownTestSuite() { L.reset(); }

  /// Wait states case \p Name's consumer needs after its producers.
  unsigned need(llvm::StringRef Name, bool Gfx94x = false) {
    const BinaryFunction &F = L->fn(("hz_" + Name).str());
    std::vector<HazardInst> All;
    for (const BinaryBasicBlock &B : F.blocks())
      for (const BinaryInstruction &I : B.Instructions)
        All.push_back(describeHazards(L->BC->mc(), I.Inst, I.Props));
    All.pop_back(); // the return
    HazardInst Next = All.back();
    All.pop_back();
    return waitStatesNeeded(All, Next, HazardTarget{Gfx94x});
  }

  static std::optional<LiftedFile> L;
};
std::optional<LiftedFile> WaitStatesTest::L;

TEST_F(WaitStatesTest, ValuSgprWriteThenVmemRead) {
  EXPECT_EQ(need("vmem_after_valu_sgpr"), 5u);
  EXPECT_EQ(need("vmem_after_valu_sgpr_nop"), 3u); // s_nop 1: two of five
  EXPECT_EQ(need("vmem_other_sgpr"), 0u);
}

TEST_F(WaitStatesTest, VccAndLaneSelects) {
  EXPECT_EQ(need("div_fmas_after_vcc"), 4u);
  EXPECT_EQ(need("lane_select"), 4u);
  EXPECT_EQ(need("lane_select_salu"), 0u); // only a VALU's write
}

TEST_F(WaitStatesTest, Dpp) {
  EXPECT_EQ(need("dpp_after_cmpx"), 5u);
  EXPECT_EQ(need("dpp_after_vgpr"), 2u);
  EXPECT_EQ(need("dpp_other_vgpr"), 0u);
}

TEST_F(WaitStatesTest, M0) {
  EXPECT_EQ(need("m0_sendmsg"), 1u);
  EXPECT_EQ(need("m0_valu"), 0u);
}

TEST_F(WaitStatesTest, MfmaResults) {
  EXPECT_EQ(need("mfma_read"), MaxHazardWaitStates);
  EXPECT_EQ(need("mfma_far"), 0u); // 8 + 8 + 3 wait states of s_nop
  EXPECT_EQ(need("mfma_other"), 0u);
  EXPECT_EQ(need("mfma_exec"), 4u);
  EXPECT_EQ(need("dot"), 3u);
}

TEST_F(WaitStatesTest, WideStoreData) { EXPECT_EQ(need("wide_store"), 1u); }

TEST_F(WaitStatesTest, Gfx94xOnlyRules) {
  EXPECT_EQ(need("readfirstlane_after_cmpx"), 0u);
  EXPECT_EQ(need("readfirstlane_after_cmpx", true), 4u);
  EXPECT_EQ(need("valu_sgpr_valu"), 0u);
  EXPECT_EQ(need("valu_sgpr_valu", true), 2u);
  EXPECT_EQ(need("salu_sgpr_valu", true), 0u);
  EXPECT_EQ(HazardTarget::of("gfx942").Gfx94x, true);
  EXPECT_EQ(HazardTarget::of("gfx90a").Gfx94x, false);
}

// Seams where control flow joins before and splits after: every
// instruction that may be at a distance counts (the worst way in and the
// worst way out), less the instructions between.
TEST_F(WaitStatesTest, SeamsOverJoinsAndSplits) {
  auto Case = [&](llvm::StringRef Name) {
    const BinaryFunction &F = L->fn(("hz_" + Name).str());
    std::vector<HazardInst> All;
    for (const BinaryInstruction &I : F.blocks()[0].Instructions)
      All.push_back(describeHazards(L->BC->mc(), I.Inst, I.Props));
    return All;
  };
  // v_readfirstlane s4; global_load reading s[4:5]; m0 write; VALU add.
  std::vector<HazardInst> Vmem = Case("vmem_after_valu_sgpr");
  std::vector<HazardInst> Quiet = Case("m0_valu");
  const HazardInst *Write = &Vmem[0], *Load = &Vmem[1], *Add = &Quiet[1],
                   *SetM0 = &Quiet[0];
  // Joining: the nearest instruction is the write on one way in, the add
  // on the other; then the M0 write on the second.
  HazardSteps Join = {{Add, Write}, {SetM0}};
  EXPECT_EQ(waitStatesNeeded(Join, {{Load}}, {}), 5u);
  // The write one further back on its way in: a wait state less.
  EXPECT_EQ(waitStatesNeeded({{Add}, {Write, SetM0}}, {{Load}}, {}), 4u);
  // Splitting: the load two instructions after the seam on one way out.
  EXPECT_EQ(waitStatesNeeded(Join, {{Add}, {Add, Add}, {Load}}, {}), 3u);
  // A stand-in that may be no instruction is no distance.
  HazardInst Maybe = *Add;
  Maybe.WaitStates = 0;
  EXPECT_EQ(waitStatesNeeded(Join, {{&Maybe}, {Load}}, {}), 5u);
  EXPECT_EQ(waitStatesNeeded({{Add}, {SetM0}}, {{Load}}, {}), 0u);
  EXPECT_EQ(nopsFor(0), "");
  EXPECT_EQ(nopsFor(5), "\ts_nop 4\n");
  EXPECT_EQ(nopsFor(19), "\ts_nop 15\n\ts_nop 2\n");
}

} // namespace
