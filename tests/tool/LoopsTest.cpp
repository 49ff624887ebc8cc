//===- tests/tool/LoopsTest.cpp - Block counting of loops, against truth ---===//
//
// loop_program (LoopProgram.hip: a kernel per kind of loop block counting
// treats apart) under instr_count, both modes, and bb_count, against the
// virtual GPU's own counts of the same program; and, from the instrumented
// code (`loom instrument --dump`), that each kind took the way meant for
// it: lanes taken at the loop's entry and multiplied at the flush (also
// where the body writes EXEC and gives it back), folded at the exits, the
// flush skipping loops not entered, 32-bit loop counters.
//
//===----------------------------------------------------------------------===//

#include "ToolTruth.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

using namespace llvm;
using namespace loom::test;

namespace {

TEST(BlockCountingLoops, CountsEqualTheTruth) {
  std::vector<DispatchTruth> Truth = groundTruth(LOOM_LOOP_PROGRAM);
  ASSERT_EQ(Truth.size(), 11u);
  expectInstrCountsEqualTruth(instrCount(LOOM_LOOP_PROGRAM, "block"), Truth);
  expectInstrCountsEqualTruth(instrCount(LOOM_LOOP_PROGRAM, "instruction"),
                              Truth);
  expectBlocksEqualTruth(LOOM_LOOP_PROGRAM, Truth);
}

/// The instrumented code of \p Kernel under instr_count mode=block.
std::string dumped(StringRef Kernel) {
  SmallString<128> Dir;
  EXPECT_FALSE(sys::fs::createUniqueDirectory("loom-loops-dump", Dir));
  CommandResult R = instrument(
      LOOM_LOOP_PROGRAM, {"--tool", "instr_count", "--tool-arg", "mode=block",
                          "--tool-arg", "kernel=^" + Kernel.str() + "$",
                          "--tool-arg", "output=/dev/null", "--dump",
                          Dir.str().str()});
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  std::string Text;
  std::error_code EC;
  for (sys::fs::directory_iterator I(Dir, EC), E; I != E && !EC;
       I.increment(EC))
    if (StringRef(I->path()).ends_with(".s"))
      if (auto B = MemoryBuffer::getFile(I->path()))
        Text += (*B)->getBuffer().str();
  sys::fs::remove_directories(Dir);
  EXPECT_FALSE(Text.empty()) << "no code dumped for " << Kernel.str();
  return Text;
}

/// Lines of \p Text holding \p Needle.
size_t count(StringRef Text, StringRef Needle) {
  size_t N = 0;
  for (size_t At = Text.find(Needle); At != StringRef::npos;
       At = Text.find(Needle, At + 1))
    ++N;
  return N;
}

TEST(BlockCountingLoops, EachLoopTakesItsWay) {
  // Entered once per wave, EXEC the same throughout: the lanes taken at the
  // entry, multiplied at the flush; the runs in a 32-bit counter (no
  // s_addc_u32 of ours in the loop).
  std::string Invariant = dumped("_Z9invariantPKiPiii");
  EXPECT_EQ(count(Invariant, "\ts_bcnt1_i32_b64"), 1u) << Invariant;
  EXPECT_EQ(count(Invariant, "\ts_mul_hi_u32"), 1u) << Invariant;
  EXPECT_EQ(count(Invariant, "\ts_addc_u32"), 0u) << Invariant;
  // Divergent: the lanes an iteration, each active lane adding 1 to its
  // own count in a VGPR, one vector atomic at the end.
  std::string Divergent = dumped("_Z9divergentPKiPii");
  EXPECT_EQ(count(Divergent, "\ts_mul_hi_u32"), 0u) << Divergent;
  EXPECT_EQ(count(Divergent, "\ts_bcnt1_i32_b64"), 0u) << Divergent;
  EXPECT_GE(count(Divergent, "\tv_add_u32_e32"), 1u) << Divergent;
  EXPECT_GE(count(Divergent, "\tglobal_atomic_add_x2 v0"), 1u) << Divergent;
  // The inner loop of a divergent one: folded where it is left.
  std::string Nested = dumped("_Z6nestedPKiS0_Piii");
  EXPECT_GE(count(Nested, "\ts_sub_u32"), 1u) << Nested;
  EXPECT_GE(count(Nested, "\ts_mul_hi_u32"), 1u) << Nested;
  // Left by three ways, entered once: the lanes taken at the entry, once
  // (the hooks' own instructions are dumped as .long), for the products of
  // each of its classes with vector instructions.
  std::string Exits = dumped("_Z5exitsPKiS0_Piii");
  EXPECT_EQ(count(Exits, "\ts_bcnt1_i32_b64"), 1u) << Exits;
  EXPECT_GE(count(Exits, "\ts_mul_hi_u32"), 1u) << Exits;
  // Six trips the code fixes: nothing counted in the loop, nothing at all
  // (the `if (i < n)` block's waves and lanes come from the lanes lost).
  std::string Fixed = dumped("_Z5fixedPKiPii");
  EXPECT_EQ(count(Fixed, "\ts_add_u32"), 0u) << Fixed;
  EXPECT_EQ(count(Fixed, "\tv_add_u32_e32"), 0u) << Fixed;
  // The losses' call: the waves that skipped and the lanes lost packed in
  // one word, one atomic.
  EXPECT_EQ(count(Fixed, "s_atomic_add_x2"), 1u) << Fixed;
  // Two loops a wave enters one of: the flush skips the other's words.
  std::string Some = dumped("_Z9someWavesPKiPiii");
  EXPECT_GE(count(Some, ".Lloom_fs"), 4u) << Some; // two branches, two labels
  // An `if` inside a uniform loop writes EXEC and gives it back at its
  // join: the loop's lanes are still its runs times the lanes at its entry
  // (a product at the flush); only the `if`'s block counts lanes an
  // iteration.
  std::string InnerIf = dumped("_Z7innerIfPKiPiii");
  EXPECT_GE(count(InnerIf, "\ts_mul_hi_u32"), 1u) << InnerIf;
  EXPECT_EQ(count(InnerIf, "\tv_add_u32_e32"), 1u) << InnerIf;
  // A device function called only from known places: its entries are its
  // calls', no hook at its entry (CountsEqualTheTruth checks the sums).
  std::string Calls = dumped("_Z5callsPKiPiii");
  EXPECT_NE(Calls.find("_Z5mixedii.loom:"), std::string::npos) << Calls;
  EXPECT_EQ(Calls.find("(function _Z5mixedii, block entry +0x0)"),
            std::string::npos)
      << Calls;
}

/// The bodies of the points calling \p Hook in \p Text, each from its
/// label to its end.
std::vector<std::string> hookBodies(StringRef Text, StringRef Hook) {
  std::vector<std::string> Bodies;
  std::string Label = ("\n\"hook " + Hook + " ").str(); // the label's line
  for (size_t At = Text.find(Label); At != StringRef::npos;
       At = Text.find(Label, At + 1))
    Bodies.push_back(Text.substr(At, Text.find("_end:", At) - At).str());
  return Bodies;
}

// A kernel's blocks outside loops, which a wave passes at most once: each
// hook adds the wave and its lanes packed in one word with one atomic
// (waves << 35 | lanes; CountsEqualTheTruth above checks what the host
// unpacks), its address set by the glue (two s_mov_b32, no add). The losses
// of an `if (i < n)`: packed too, and the guard, before the kernel's
// `s_and_saveexec_b64 sX, vcc`, is `s_andn2_b64 sX, exec, vcc;
// s_cbranch_scc0` past the s_cbranch_execz after it: a wave that loses no
// lane runs as many instructions as the kernel alone would.
TEST(BlockCountingOnce, PackedWordsAndTheGuard) {
  std::string Some = dumped("_Z9someWavesPKiPiii");
  std::vector<std::string> Once = hookBodies(Some, "loom_count_once");
  EXPECT_GE(Once.size(), 2u) << Some;
  for (const std::string &Body : Once) {
    EXPECT_EQ(count(Body, "s_atomic_add_x2"), 1u) << Body;
    EXPECT_EQ(count(Body, "\ts_mov_b32 s"), 2u) << Body; // the address
    EXPECT_EQ(count(Body, "s_add_u32"), 0u) << Body;
    EXPECT_EQ(count(Body, "s_bcnt1_i32_b64"), 1u) << Body; // the lanes
    // The wave: 8 in the high word (1 << 35).
    EXPECT_EQ(count(Body, "s_mov_b32 s"), 3u) << Body;
    EXPECT_EQ(count(Body, ", 8\n"), 1u) << Body;
  }
  std::string Fixed = dumped("_Z5fixedPKiPii");
  std::vector<std::string> Lost = hookBodies(Fixed, "loom_count_lost");
  ASSERT_EQ(Lost.size(), 1u) << Fixed;
  EXPECT_EQ(count(Lost[0], "s_atomic_add_x2"), 1u) << Lost[0];
  size_t Guard = Fixed.find("\ts_cbranch_scc0 .Lloom_u0\n");
  ASSERT_NE(Guard, std::string::npos) << Fixed;
  size_t Test = Fixed.rfind("\n", Guard - 2); // the line before
  EXPECT_EQ(Fixed.compare(Test + 1, 13, "\ts_andn2_b64 "), 0)
      << Fixed.substr(Test, 200);
  EXPECT_NE(Fixed.substr(Test, Guard - Test).find(", exec, vcc"),
            std::string::npos)
      << Fixed.substr(Test, 200);
  size_t Save = Fixed.find("\n", Guard + 1);
  EXPECT_NE(Fixed.substr(Save, 64).find("s_and_saveexec_b64"),
            std::string::npos)
      << Fixed.substr(Guard, 200);
  size_t Skip = Fixed.find("\n.Lloom_u0:\n", Guard);
  ASSERT_NE(Skip, std::string::npos) << Fixed;
  size_t Before = Fixed.rfind("\n", Skip - 1);
  EXPECT_EQ(Fixed.compare(Before + 1, 16, "\ts_cbranch_execz"), 0)
      << Fixed.substr(Guard, Skip - Guard + 12);
  EXPECT_EQ(count(Fixed, "s_cmp_eq_u64 s"), 0u) << Fixed; // no other guard
}

} // namespace
