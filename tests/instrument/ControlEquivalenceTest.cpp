//===- ControlEquivalenceTest.cpp - Blocks that run as often --------------===//
//
// Classes of hand-written CFGs (lift_cases.s), checked block by block. That
// the classes count right on real code is checked by the counting tools
// against the virtual GPU's counts (tool_corpus_tests, tool_tests).
//
//===----------------------------------------------------------------------===//

#include "LiftTestUtil.h"

#include "loom/instrument/ControlEquivalence.h"

#include <gtest/gtest.h>

using namespace loom::instrument;
using namespace loom::instrument::test;

namespace {

/// The blocks of \p F, each as the number of its class's representative.
std::vector<unsigned> representatives(const BinaryFunction &F,
                                      const ControlEquivalence &C) {
  std::vector<unsigned> R;
  for (unsigned B = 0; B < F.blocks().size(); ++B)
    R.push_back(C.representative(C.classOf(B)));
  return R;
}

TEST(ControlEquivalence, Diamond) {
  auto L = liftFile(LOOM_LIFT_CASES);
  ASSERT_TRUE(L);
  const BinaryFunction &F = L->fn("cfg_diamond");
  ASSERT_EQ(F.blocks().size(), 4u); // entry, then, else, join
  ControlEquivalence C(F);
  EXPECT_EQ(representatives(F, C), (std::vector<unsigned>{0, 1, 2, 0}));
  EXPECT_EQ(C.numClasses(), 3u);
  EXPECT_TRUE(C.runsOncePerCall(C.classOf(3)));
  EXPECT_FALSE(C.runsOncePerCall(C.classOf(1)));
  for (unsigned B = 0; B < 4; ++B)
    EXPECT_FALSE(C.inLoop(B)) << B;
}

TEST(ControlEquivalence, NestedLoops) {
  auto L = liftFile(LOOM_LIFT_CASES);
  ASSERT_TRUE(L);
  const BinaryFunction &F = L->fn("nested_loops");
  ASSERT_EQ(F.blocks().size(), 7u);
  ControlEquivalence C(F);
  // The entry and the return run once; the outer loop's head, the block
  // after the inner loop and the latch once per outer trip; the inner loop
  // and the then-block as often as they run.
  EXPECT_EQ(representatives(F, C),
            (std::vector<unsigned>{0, 1, 2, 1, 4, 1, 0}));
  EXPECT_TRUE(C.runsOncePerCall(C.classOf(6)));
  EXPECT_FALSE(C.runsOncePerCall(C.classOf(1)));
  std::vector<bool> InLoop;
  for (unsigned B = 0; B < 7; ++B)
    InLoop.push_back(C.inLoop(B));
  EXPECT_EQ(InLoop,
            (std::vector<bool>{false, true, true, true, true, true, false}));
}

TEST(ControlEquivalence, LoopAtTheKernelEntry) {
  // loop_kernel's loop starts at its second instruction's block: the entry
  // block runs once, the loop's block as often as it turns.
  auto L = liftFile(LOOM_LIFT_CASES);
  ASSERT_TRUE(L);
  const BinaryFunction &F = L->fn("loop_kernel");
  ControlEquivalence C(F);
  ASSERT_EQ(F.blocks().size(), 3u);
  EXPECT_EQ(representatives(F, C), (std::vector<unsigned>{0, 1, 0}));
  EXPECT_TRUE(C.runsOncePerCall(C.classOf(0)));
  EXPECT_TRUE(C.inLoop(1));
}

} // namespace
