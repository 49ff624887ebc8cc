//===- BodyPlacementTest.cpp - A hook body's parameters renamed -----------===//
//
// body_cases.s: small functions standing for hook bodies. Their parameters
// are renamed to registers the values "already live in" (BodyPlacement.h)
// where that is the same program, and only there; the placed instructions
// are checked as the assembler prints them. The instrumenter tests run
// real bodies placed so (InstrumenterTest.cpp).
//
//===----------------------------------------------------------------------===//
#include "LiftTestUtil.h"

#include "BodyPlacement.h"

#include "loom/isa/McContext.h"

#include <gtest/gtest.h>

using namespace loom::instrument;
using namespace loom::instrument::detail;
using namespace loom::instrument::test;

namespace {

unsigned sgpr(unsigned N) { return RegisterSet::SgprBase + N; }
unsigned vgpr(unsigned N) { return RegisterSet::VgprBase + N; }

class BodyPlacementTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() { L = liftFile(LOOM_BODY_CASES); }
  static void TearDownTestSuite() { L.reset(); }

  struct Body {
    std::vector<llvm::MCInst> Insts;
    ParamReads Reads;
    RegisterSet Writes;
  };
  /// Function \p Name as a body with parameters \p Params (\p Results
  /// returned in), its return left out.
  Body body(llvm::StringRef Name, const RegisterSet &Params,
            const RegisterSet &Results = {}) {
    const BinaryFunction &F = L->fn(Name);
    Body B;
    std::map<uint64_t, uint64_t> Entry =
        paramReads(F, Params, Results, B.Reads.Mixed);
    for (const BinaryBasicBlock &Block : F.blocks())
      for (const BinaryInstruction &I : Block.Instructions)
        if (!I.Props.isReturn()) {
          B.Insts.push_back(I.Inst);
          B.Reads.Entry.push_back(Entry[I.address()]);
        }
    B.Writes = bodyWrites(L->BC->analyzer(), B.Insts);
    return B;
  }
  BodyPlacement place(const Body &B, std::vector<ParamSource> Params,
                      unsigned SgprShift = 0, unsigned VgprShift = 0) {
    return placeBody(L->BC->analyzer(), B.Insts, B.Reads, B.Writes, SgprShift,
                     VgprShift, Params);
  }
  /// The body's instructions placed, as printed.
  std::vector<std::string> placed(const Body &B, const BodyPlacement &P) {
    std::vector<std::string> Out;
    for (size_t N = 0; N < B.Insts.size(); ++N) {
      llvm::MCInst I = B.Insts[N];
      EXPECT_TRUE(placeInstruction(L->BC->analyzer(), I, B.Reads.Entry[N], P));
      Out.push_back(L->BC->mc().print(I, 0));
    }
    return Out;
  }
  /// The body's instructions with \p F folded, then placed, as printed.
  std::vector<std::string> folded(const Body &B, const BodyPlacement &P,
                                  const Folds &F) {
    std::vector<std::string> Out;
    for (size_t N = 0; N < B.Insts.size(); ++N) {
      llvm::MCInst I = B.Insts[N];
      foldInstruction(L->BC->analyzer(), I, B.Reads.Entry[N], F);
      EXPECT_TRUE(placeInstruction(L->BC->analyzer(), I, B.Reads.Entry[N], P));
      Out.push_back(L->BC->mc().print(I, 0));
    }
    return Out;
  }
  static std::vector<unsigned> froms(const BodyPlacement &P) {
    std::vector<unsigned> Out;
    for (const Rename &R : P.Renames)
      Out.push_back(R.From);
    return Out;
  }

  static std::optional<LiftedFile> L;
};
std::optional<LiftedFile> BodyPlacementTest::L;

// A parameter read as passed and then reused as a temporary: its reads of
// the value passed go to the source, its later writes and reads stay.
TEST_F(BodyPlacementTest, ReadsOfTheValuePassedAreRenamed) {
  Body B = body("bp_reused", RegisterSet().addSgprs(4, 2));
  EXPECT_TRUE(B.Reads.Mixed.empty());
  BodyPlacement P =
      place(B, {{sgpr(4), sgpr(40), false}, {sgpr(5), sgpr(41), false}});
  EXPECT_EQ(froms(P), (std::vector<unsigned>{sgpr(4), sgpr(5)}));
  EXPECT_EQ(placed(B, P), (std::vector<std::string>{
                              "s_add_u32 s6, s40, 1", "s_mov_b32 s4, 7",
                              "s_add_u32 s7, s4, s41"}));
  // Moved up as well: the body's own registers shift, the sources stay.
  P = place(B, {{sgpr(4), sgpr(2), false}, {sgpr(5), sgpr(3), false}}, 8);
  EXPECT_EQ(placed(B, P), (std::vector<std::string>{
                              "s_add_u32 s14, s2, 1", "s_mov_b32 s12, 7",
                              "s_add_u32 s15, s12, s3"}));
  // The body writes s4 (still written there, its parameter register
  // outside the webs): the glue copies nothing into it, yet it is
  // clobbered.
  RegisterSet Clobbers = B.Writes;
  Clobbers.addSgprs(4, 2);
  P = place(B, {{sgpr(4), sgpr(40), false}, {sgpr(5), sgpr(41), false}});
  EXPECT_EQ(placedClobbers(Clobbers, B.Writes, P),
            RegisterSet().addSgprs(4).addSgprs(6, 2).add(SpecialReg::Scc));
}

// A source the body writes under its own name keeps its parameter copied.
TEST_F(BodyPlacementTest, ASourceTheBodyWritesIsNotReadInPlace) {
  Body B = body("bp_reused", RegisterSet().addSgprs(4, 2));
  BodyPlacement P =
      place(B, {{sgpr(4), sgpr(6), false}, {sgpr(5), sgpr(41), false}});
  EXPECT_EQ(froms(P), std::vector<unsigned>{sgpr(5)});
  // Nor one the glue copies another parameter into.
  P = place(B, {{sgpr(4), sgpr(5), false}, {sgpr(5), std::nullopt, false}});
  EXPECT_TRUE(P.Renames.empty());
}

// The value passed on one path, the body's on another: not renamed.
TEST_F(BodyPlacementTest, AParameterReadAfterAWriteOnSomePathsStays) {
  Body B = body("bp_mixed", RegisterSet().addSgprs(4, 2));
  EXPECT_EQ(B.Reads.Mixed, RegisterSet().addSgprs(4));
  BodyPlacement P =
      place(B, {{sgpr(4), sgpr(40), false}, {sgpr(5), sgpr(41), false}});
  EXPECT_EQ(froms(P), std::vector<unsigned>{sgpr(5)});
  EXPECT_EQ(placed(B, P)[0], "s_cmp_eq_u32 s41, 0");
  EXPECT_EQ(placed(B, P)[3], "s_add_u32 s6, s4, 1");
}

// A wave counter returned into: the value passed and the value returned
// are its register; a temporary in the parameter's register between stays.
TEST_F(BodyPlacementTest, AResultIsUpdatedInPlace) {
  Body B = body("bp_result", RegisterSet().addSgprs(4),
                RegisterSet().addSgprs(4));
  BodyPlacement P = place(B, {{sgpr(4), sgpr(40), true}});
  ASSERT_EQ(P.Renames.size(), 1u);
  EXPECT_TRUE(P.Renames[0].InPlace);
  EXPECT_EQ(placed(B, P), (std::vector<std::string>{
                              "s_add_u32 s8, s40, 1", "s_mov_b32 s4, 5",
                              "s_add_u32 s9, s4, s4", "s_mov_b32 s40, s8"}));
  // As a plain parameter, only the read of the value passed: the writes
  // would change the source.
  Body Plain = body("bp_result", RegisterSet().addSgprs(4));
  EXPECT_EQ(placed(Plain, place(Plain, {{sgpr(4), sgpr(40), false}})),
            (std::vector<std::string>{"s_add_u32 s8, s40, 1", "s_mov_b32 s4, 5",
                                      "s_add_u32 s9, s4, s4",
                                      "s_mov_b32 s4, s8"}));
  // Nor if the body names the counter's register itself.
  EXPECT_TRUE(place(B, {{sgpr(4), sgpr(9), true}}).Renames.empty());
}

// A register tuple is renamed whole, in order, to a register of the
// operand's class.
TEST_F(BodyPlacementTest, TuplesAreRenamedWholeAndInOrder) {
  Body B = body("bp_pair", RegisterSet().addSgprs(4, 2));
  BodyPlacement P =
      place(B, {{sgpr(4), sgpr(40), false}, {sgpr(5), sgpr(41), false}});
  EXPECT_EQ(P.Renames.size(), 2u);
  EXPECT_EQ(placed(B, P)[0], "s_load_dwordx2 s[6:7], s[40:41], 0x0");
  // s[41:42] is no register (pairs are even); the halves swapped are no
  // pair; half of it alone is no register either.
  EXPECT_TRUE(
      place(B, {{sgpr(4), sgpr(41), false}, {sgpr(5), sgpr(42), false}})
          .Renames.empty());
  EXPECT_TRUE(
      place(B, {{sgpr(4), sgpr(41), false}, {sgpr(5), sgpr(40), false}})
          .Renames.empty());
  EXPECT_TRUE(
      place(B, {{sgpr(4), sgpr(40), false}, {sgpr(5), std::nullopt, false}})
          .Renames.empty());
}

// One register field read and written (s_addk_i32): never renamed on one
// side only.
TEST_F(BodyPlacementTest, TiedOperandsStayTogether) {
  Body B = body("bp_tied", RegisterSet().addSgprs(4));
  EXPECT_EQ(B.Reads.Mixed, RegisterSet().addSgprs(4));
  EXPECT_TRUE(place(B, {{sgpr(4), sgpr(40), false}}).Renames.empty());
}

// A VGPR write keeps the lanes EXEC has off: it joins the value passed, so
// the parameter is not renamed; one only read is.
TEST_F(BodyPlacementTest, VgprParameters) {
  Body Written = body("bp_vgpr", RegisterSet().addVgprs(0));
  EXPECT_EQ(Written.Reads.Mixed, RegisterSet().addVgprs(0));
  Body Read = body("bp_vgpr_read", RegisterSet().addVgprs(0));
  BodyPlacement P = place(Read, {{vgpr(0), vgpr(7), false}}, 0, 4);
  EXPECT_EQ(placed(Read, P)[0], "v_add_u32_e32 v5, v7, v7");
}

// Constants become immediates where every instruction reading them takes
// one: an inline constant anywhere, a literal only in a scalar ALU
// instruction, one literal an instruction.
TEST_F(BodyPlacementTest, ConstantsAreFoldedWhereTheInstructionsTakeThem) {
  Body B = body("bp_imm", RegisterSet().addSgprs(4, 2).addVgprs(0));
  BodyPlacement P = place(B, {{sgpr(4), std::nullopt, false},
                              {sgpr(5), std::nullopt, false},
                              {vgpr(0), std::nullopt, false}},
                          8, 4);
  const InstrAnalyzer &A = L->BC->analyzer();
  Folds Inline = foldImmediates(A, B.Insts, B.Reads, P, {{sgpr(4), 2}});
  ASSERT_EQ(Inline, (Folds{{sgpr(4), 2}}));
  EXPECT_EQ(folded(B, P, Inline),
            (std::vector<std::string>{"s_add_u32 s14, 2, s13",
                                      "v_add_u32_e32 v5, 2, v4"}));
  // A literal: not in the vector add, so s4 stays a register; s5's in the
  // scalar add, with s4 a register there.
  Folds Literals = foldImmediates(A, B.Insts, B.Reads, P,
                                  {{sgpr(4), 0x1234}, {sgpr(5), 0x5678}});
  ASSERT_EQ(Literals, (Folds{{sgpr(5), 0x5678}}));
  EXPECT_EQ(folded(B, P, Literals)[0], "s_add_u32 s14, s12, 0x5678");
  // Two literals in one instruction: the second stays a register.
  EXPECT_EQ(foldImmediates(A, B.Insts, B.Reads, P,
                           {{sgpr(5), 0x5678}, {sgpr(4), 2}}),
            (Folds{{sgpr(4), 2}, {sgpr(5), 0x5678}}));
  Body Scalar = body("bp_reused", RegisterSet().addSgprs(4, 2));
  BodyPlacement Q = place(Scalar, {{sgpr(4), std::nullopt, false},
                                   {sgpr(5), std::nullopt, false}});
  // s4 where the body reads the value passed, not after it reuses s4.
  Folds Both = foldImmediates(A, Scalar.Insts, Scalar.Reads, Q,
                              {{sgpr(4), 0x1234}, {sgpr(5), 0x5678}});
  EXPECT_EQ(Both, (Folds{{sgpr(4), 0x1234}, {sgpr(5), 0x5678}}));
  EXPECT_EQ(folded(Scalar, Q, Both),
            (std::vector<std::string>{"s_add_u32 s6, 0x1234, 1",
                                      "s_mov_b32 s4, 7",
                                      "s_add_u32 s7, s4, 0x5678"}));
  // The glue sets neither register: the body writes s4 itself, not s5.
  RegisterSet Clobbers = Scalar.Writes;
  Clobbers.addSgprs(4, 2);
  EXPECT_EQ(placedClobbers(Clobbers, Scalar.Writes, Q,
                           Folds{{sgpr(4), 0x1234}, {sgpr(5), 0x5678}}),
            RegisterSet().addSgprs(4).addSgprs(6, 2).add(SpecialReg::Scc));
}

} // namespace
