//===- LivenessTest.cpp - Live registers, checked by hand -----------------===//
//
// live_kernel in lift_cases.s (the dispatch gives it s[0:1], v0, EXEC):
//
//   0  v_mov_b32 v1, 1            full EXEC: ends v1's life
//   1  v_cmp_gt_u32 vcc, 32, v0
//   2  s_and_saveexec_b64 s[2:3], vcc
//   3  v_mov_b32 v2, 5            partial: v2's inactive lanes stay live
//   4  v_mov_b32 v5, 1            partial, read only under the same EXEC
//   5  v_add_u32 v6, v5, v5       partial: v6's inactive lanes stay live
//   6  s_or_b64 exec, exec, s[2:3]  restored from the saved copy: full
//   7  v_add_u32 v3, v1, v2       reads v2 in every lane
//   8  v_add_u32 v3, v3, v6
//   9  v_mov_b32 v4, 0            full: ends v4's life
//  10  global_store_dword v4, v3, s[0:1]
//  11  s_endpgm
//
//===----------------------------------------------------------------------===//
#include "LiftTestUtil.h"

#include "loom/instrument/DispatchAbi.h"

using namespace loom;
using namespace loom::instrument;
using namespace loom::instrument::test;

namespace {

RegisterSet vgprs(std::initializer_list<unsigned> Ns) {
  RegisterSet S;
  for (unsigned N : Ns)
    S.addVgprs(N);
  return S;
}

TEST(Liveness, PartialExecKeepsInactiveLanesLive) {
  auto L = liftFile(LOOM_LIFT_CASES);
  ASSERT_TRUE(L);
  const BinaryFunction &F = L->fn("live_kernel");
  ASSERT_EQ(F.blocks().size(), 1u);
  ASSERT_EQ(F.blocks()[0].Instructions.size(), 12u);
  const FunctionLiveness &Live = L->live("live_kernel");

  RegisterSet Entry;
  Entry.addSgprs(0, 2).addVgprs(0).addVgprs(2).addVgprs(6).addExec();
  EXPECT_EQ(Live.entryLiveIn(), Entry) << Live.entryLiveIn().str();

  // EXEC: full until the s_and_saveexec, partial until it is restored.
  for (unsigned K = 0; K != 12; ++K)
    EXPECT_EQ(Live.execMayBePartial(0, K), K >= 3 && K <= 6) << K;
  // Its names: the entry's, one made by the s_and_saveexec, and the
  // entry's again once s_or_b64 restores it from the saved copy.
  std::optional<unsigned> Narrowed = Live.execName(0, 3);
  ASSERT_TRUE(Narrowed);
  EXPECT_NE(*Narrowed, FunctionLiveness::ExecAtEntry);
  for (unsigned K = 0; K != 12; ++K)
    EXPECT_EQ(Live.execName(0, K),
              K >= 3 && K <= 6 ? Narrowed : FunctionLiveness::ExecAtEntry)
        << K;

  EXPECT_FALSE(Live.liveBefore(0, 0).hasVgpr(1)); // killed under full EXEC
  EXPECT_TRUE(Live.liveAfter(0, 0).hasVgpr(1));
  EXPECT_TRUE(Live.liveBefore(0, 3).hasVgpr(2));  // partial write
  EXPECT_TRUE(Live.liveInOtherLanes(0, 3).hasVgpr(2));
  EXPECT_TRUE(Live.liveAfter(0, 4).hasVgpr(5));
  EXPECT_FALSE(Live.liveBefore(0, 4).hasVgpr(5)); // same EXEC as its read
  EXPECT_TRUE(Live.liveBefore(0, 5).hasVgpr(6) == false ||
              Live.liveInOtherLanes(0, 5).hasVgpr(6));
  EXPECT_FALSE(Live.liveBefore(0, 9).hasVgpr(4));
  EXPECT_TRUE(Live.liveBefore(0, 10).contains(vgprs({3, 4})));
  EXPECT_TRUE(Live.liveAfter(0, 10).empty());
  // SCC written by s_or_b64 and never read.
  EXPECT_FALSE(Live.liveAfter(0, 6).has(SpecialReg::Scc));
  EXPECT_TRUE(Live.liveAfter(0, 1).has(SpecialReg::VccLo));
  EXPECT_FALSE(Live.liveAfter(0, 2).has(SpecialReg::VccLo));

  const codeobj::Kernel *K = L->CO->findKernel("live_kernel");
  ASSERT_TRUE(K);
  RegisterSet Init = initialRegisters(K->KD, "gfx90a");
  RegisterSet Expected;
  // s[0:1] kernarg segment pointer, s2 work-group id x (on by default).
  Expected.addSgprs(0, 3).addVgprs(0).addExec().add(SpecialReg::Mode);
  EXPECT_EQ(Init, Expected) << Init.str();
}

// else_kernel: v_cmp; s_and_saveexec (then T); s_xor (else mask); then:
// v2 = 1, v3 = 7, v2 += v3; s_andn2_saveexec (else E); v2 = 2;
// s_or_b64 exec (E | T = X); v1 = 0; store v2.
TEST(Liveness, IfElseRestoresTheFullExec) {
  auto L = liftFile(LOOM_LIFT_CASES);
  ASSERT_TRUE(L);
  const FunctionLiveness &Live = L->live("else_kernel");
  // Both sides write v2, each under its half of EXEC: the else side's
  // write leaves only the then side's lanes needing the old value, and the
  // then side's write ends it.
  RegisterSet Entry;
  Entry.addSgprs(0, 2).addVgprs(0).addExec();
  EXPECT_EQ(Live.entryLiveIn(), Entry);
  EXPECT_TRUE(Live.liveBefore(0, 7).hasVgpr(2));  // before the else write
  EXPECT_FALSE(Live.liveBefore(0, 3).hasVgpr(2)); // before the then write
  // v3 is read only under the EXEC it is written under.
  EXPECT_FALSE(Live.liveBefore(0, 4).hasVgpr(3));
  for (unsigned K = 0; K != 12; ++K)
    EXPECT_EQ(Live.execMayBePartial(0, K), K >= 2 && K <= 8) << K;
  // After the restore EXEC is whole again: v1's write ends its life.
  EXPECT_FALSE(Live.liveBefore(0, 9).hasVgpr(1));
}

// loop_kernel: each trip saves EXEC, narrows it with v_cmpx, reads v4 (the
// last trip's) and writes v4, then restores EXEC.
TEST(Liveness, LoopTripsNarrowExecDifferently) {
  auto L = liftFile(LOOM_LIFT_CASES);
  ASSERT_TRUE(L);
  const BinaryFunction &F = L->fn("loop_kernel");
  ASSERT_EQ(F.blocks().size(), 3u);
  const FunctionLiveness &Live = L->live("loop_kernel");
  // v_mov_b32 v4, s4 writes v4 under this trip's EXEC; the next trip reads
  // it under its own, which may hold lanes this one lacks: the write must
  // not end v4's life (textbook liveness would).
  const BinaryInstruction &Write = F.blocks()[1].Instructions[3];
  ASSERT_EQ(Write.Info.Text, "v_mov_b32_e32 v4, s4");
  EXPECT_TRUE(Live.execMayBePartial(1, 3));
  EXPECT_TRUE(Live.liveBefore(1, 3).hasVgpr(4));
  // The restore from the copy saved at the top of the loop: whole again.
  EXPECT_FALSE(Live.execMayBePartial(1, 5));
  EXPECT_FALSE(Live.execMayBePartial(2, 0));
  EXPECT_FALSE(Live.liveIn(2).hasVgpr(4));
}

TEST(Liveness, ReturnAndCalls) {
  auto L = liftFile(LOOM_LIFT_CASES);
  ASSERT_TRUE(L);
  // cfg_diamond may be reached through indirect_call's unknown callee, so
  // its return keeps live all an unknown caller may read: every vector
  // register, the preserved scalar ones and the arguments, not the scalar
  // ones the convention lets a callee clobber; a device function's vector
  // writes never kill (its caller's inactive lanes).
  const FunctionLiveness &D = L->live("cfg_diamond");
  EXPECT_TRUE(D.liveBefore(1, 0).hasVgpr(0));
  EXPECT_TRUE(D.liveOut(3).hasVgpr(200) && D.liveOut(3).hasVgpr(35));
  EXPECT_TRUE(D.liveOut(3).hasSgpr(40) && D.liveOut(3).hasSgpr(20));
  EXPECT_FALSE(D.liveOut(3).has(SpecialReg::Scc) ||
               D.liveOut(3).has(SpecialReg::VccHi) ||
               D.liveOut(3).has(SpecialReg::M0));
  EXPECT_TRUE(D.execMayBePartial(0, 0));

  // An unknown callee reads the convention's argument registers and
  // clobbers the caller-saved ones.
  const BinaryFunction &IC = L->fn("indirect_call");
  const FunctionLiveness &I = L->live("indirect_call");
  unsigned Call = 3;
  ASSERT_TRUE(IC.blocks()[0].Instructions[Call].Props.isCall());
  RegisterSet Args = callconv::argumentRegisters();
  Args.subtract(RegisterSet().addSgprs(16, 2)); // the target, read anyway
  EXPECT_TRUE(I.liveBefore(0, Call).contains(Args))
      << I.liveBefore(0, Call).str();
  EXPECT_FALSE(I.liveBefore(0, Call).hasSgpr(30)); // written by the call
  EXPECT_TRUE(I.liveBefore(0, Call).hasSgpr(40));  // saved return address
  EXPECT_FALSE(I.liveBefore(0, Call).has(SpecialReg::Scc));

  // A tail call through a pointer: as an unknown call then a return. The
  // callee reads the arguments and returns through s[30:31]; the scalar
  // registers it may clobber (SCC, VCC) are dead, vector ones keep their
  // inactive lanes live.
  const BinaryFunction &TC = L->fn("tail_through_pointer");
  const FunctionLiveness &T = L->live("tail_through_pointer");
  unsigned Jump = 2;
  ASSERT_TRUE(TC.blocks()[0].Instructions[Jump].Info.Flow ==
              isa::ControlFlow::TailCall);
  RegisterSet Before = T.liveBefore(0, Jump);
  EXPECT_TRUE(Before.contains(Args)) << Before.str();
  EXPECT_TRUE(Before.hasSgpr(16) && Before.hasSgpr(30) && Before.hasSgpr(31));
  EXPECT_TRUE(Before.hasSgpr(40) && Before.hasVgpr(40)); // preserved
  EXPECT_TRUE(Before.hasVgpr(35)); // clobbered, but not in inactive lanes
  EXPECT_FALSE(Before.has(SpecialReg::Scc) || Before.has(SpecialReg::VccLo) ||
               Before.has(SpecialReg::M0));
}

TEST(Liveness, CallingConventionSets) {
  RegisterSet C = callconv::clobberedRegisters();
  EXPECT_TRUE(C.hasSgpr(4) && C.hasSgpr(31) && !C.hasSgpr(3) && !C.hasSgpr(32));
  EXPECT_TRUE(C.hasVgpr(39) && !C.hasVgpr(40) && !C.hasVgpr(47) &&
              C.hasVgpr(48) && C.hasVgpr(55) && !C.hasVgpr(56));
  EXPECT_TRUE(C.hasAgpr(31) && !C.hasAgpr(32));
  EXPECT_TRUE(C.has(SpecialReg::VccLo) && C.has(SpecialReg::Scc) &&
              C.has(SpecialReg::M0) && !C.has(SpecialReg::ExecLo));
  RegisterSet A = callconv::argumentRegisters();
  EXPECT_TRUE(A.hasVgpr(31) && !A.hasVgpr(32) && A.hasSgpr(32) &&
              !A.hasSgpr(30) && A.has(SpecialReg::ExecHi));
}

TEST(Liveness, ClangBuiltCallChain) {
  auto L = liftFile(std::string(LOOM_FIXTURE_DIR) + "/gfx90a_v5_kernels.elf");
  ASSERT_TRUE(L);
  // scale_add calls nothing: what is live at its entry is exactly what the
  // dispatch sets up and the kernel reads.
  const codeobj::Kernel *K = L->CO->findKernel("scale_add");
  ASSERT_TRUE(K);
  RegisterSet Init = initialRegisters(K->KD, "gfx90a");
  const RegisterSet &Entry = L->live("scale_add").entryLiveIn();
  EXPECT_TRUE(Init.contains(Entry)) << Entry.str() << " vs " << Init.str();
  EXPECT_TRUE(Entry.hasVgpr(0) && Entry.hasSgpr(4) && Entry.hasSgpr(5));

  // helper_sum is static: its only caller, call_chain, decides what is
  // live at its return.
  const BinaryFunction &Sum = L->fn("helper_sum");
  EXPECT_FALSE(Sum.isExported());
  const FunctionLiveness &S = L->live("helper_sum");
  unsigned Last = Sum.blocks().size() - 1;
  EXPECT_FALSE(S.liveOut(Last).hasVgpr(200));
  EXPECT_TRUE(S.liveOut(Last).hasSgpr(30) == false);
}

} // namespace
