//===- LiftTest.cpp - Functions, blocks, states and the call graph --------===//
#include "LiftTestUtil.h"

using namespace loom;
using namespace loom::instrument;
using namespace loom::instrument::test;

namespace {

std::vector<unsigned> succs(const BinaryFunction &F, unsigned B) {
  auto S = F.blocks()[B].Successors;
  std::vector<unsigned> V(S.begin(), S.end());
  llvm::sort(V);
  return V;
}
std::vector<unsigned> preds(const BinaryFunction &F, unsigned B) {
  auto S = F.blocks()[B].Predecessors;
  std::vector<unsigned> V(S.begin(), S.end());
  llvm::sort(V);
  return V;
}

TEST(Lift, DiamondCfg) {
  auto L = liftFile(LOOM_LIFT_CASES);
  ASSERT_TRUE(L);
  const BinaryFunction &F = L->fn("cfg_diamond");
  EXPECT_EQ(F.state(), FunctionState::CFGBuilt);
  EXPECT_TRUE(F.isInstrumentable());
  EXPECT_FALSE(F.isKernel());
  ASSERT_EQ(F.blocks().size(), 4u);
  // entry: s_cmp, s_cbranch_scc1 | then: v_add, s_branch | else: v_sub |
  // join: s_setpc_b64 (return).
  EXPECT_EQ(F.blocks()[0].Instructions.size(), 2u);
  EXPECT_EQ(succs(F, 0), (std::vector<unsigned>{1, 2}));
  EXPECT_EQ(succs(F, 1), (std::vector<unsigned>{3}));
  EXPECT_EQ(succs(F, 2), (std::vector<unsigned>{3}));
  EXPECT_TRUE(succs(F, 3).empty());
  EXPECT_EQ(preds(F, 3), (std::vector<unsigned>{1, 2}));
  EXPECT_TRUE(F.blocks()[3].last().Props.isReturn());
  EXPECT_TRUE(F.blocks()[0].last().Props.isBranch());
  EXPECT_EQ(F.blocks()[2].Address, F.address() + 0x10);
  EXPECT_EQ(F.blockContaining(F.address() + 0xc), 1u);
  EXPECT_EQ(F.numInstructions(), 6u);
  // The MCInst is kept: it is what gets re-emitted.
  EXPECT_EQ(L->BC->mc().opcodeBaseName(F.blocks()[1].Instructions[0].Inst.getOpcode()),
            "V_ADD_U32_e32");
}

TEST(Lift, CallGraphOfHandWrittenCalls) {
  auto L = liftFile(LOOM_LIFT_CASES);
  ASSERT_TRUE(L);
  const CallGraph &CG = L->BC->callGraph();
  const BinaryFunction &Diamond = L->fn("cfg_diamond");

  auto From = CG.callsFrom(L->fn("caller"));
  ASSERT_EQ(From.size(), 1u);
  EXPECT_EQ(From[0]->Callee, &Diamond);
  EXPECT_FALSE(From[0]->IsTailCall);
  EXPECT_EQ(From[0]->Source, isa::TargetSource::PcRelative);
  EXPECT_EQ(From[0]->Address, L->fn("caller").address() + 0x18);
  EXPECT_TRUE(L->fn("caller").isInstrumentable());

  auto Tail = CG.callsFrom(L->fn("tail_caller"));
  ASSERT_EQ(Tail.size(), 1u);
  EXPECT_EQ(Tail[0]->Callee, &Diamond);
  EXPECT_TRUE(Tail[0]->IsTailCall);
  EXPECT_TRUE(L->fn("tail_caller").isInstrumentable());

  // A device function's jump through a loaded pointer is a tail call to an
  // unknown callee.
  auto TailUnknown = CG.callsFrom(L->fn("tail_through_pointer"));
  ASSERT_EQ(TailUnknown.size(), 1u);
  EXPECT_TRUE(TailUnknown[0]->IsTailCall);
  EXPECT_TRUE(TailUnknown[0]->isUnknown());
  EXPECT_TRUE(L->fn("tail_through_pointer").isInstrumentable());

  // Calls through a pair another block set: known where every way in
  // leaves the pair alone (hoisted_calls, two blocks after the first
  // call), unknown where one way writes half of it (clobbered_pair).
  auto Hoisted = CG.callsFrom(L->fn("hoisted_calls"));
  ASSERT_EQ(Hoisted.size(), 2u);
  for (const CallSite *C : Hoisted) {
    EXPECT_EQ(C->Callee, &Diamond) << C->Address;
    EXPECT_EQ(C->Source, isa::TargetSource::PcRelative);
  }
  auto Clobbered = CG.callsFrom(L->fn("clobbered_pair"));
  ASSERT_EQ(Clobbered.size(), 1u);
  EXPECT_TRUE(Clobbered[0]->isUnknown());

  auto To = CG.callsTo(Diamond);
  EXPECT_EQ(To.size(), 4u);

  auto Unknown = CG.callsFrom(L->fn("indirect_call"));
  ASSERT_EQ(Unknown.size(), 1u);
  EXPECT_TRUE(Unknown[0]->isUnknown());
  EXPECT_TRUE(Unknown[0]->CalleeName.empty());
  // An unknown callee is the calling convention's business, not a reason
  // to give up.
  EXPECT_TRUE(L->fn("indirect_call").isInstrumentable());
  EXPECT_TRUE(Diamond.isExported() == false);
  EXPECT_TRUE(L->fn("caller").isExported());
}

TEST(Lift, UnresolvedIndirectBranchIsNotInstrumentable) {
  auto L = liftFile(LOOM_LIFT_CASES);
  ASSERT_TRUE(L);
  BinaryFunction &F = L->fn("indirect_branch");
  EXPECT_FALSE(F.isInstrumentable());
  EXPECT_EQ(F.notInstrumentableReason(),
            "indirect branch at +0xc to an unknown target");
  llvm::Error E = F.markInstrumented();
  ASSERT_TRUE(static_cast<bool>(E));
  EXPECT_NE(llvm::toString(std::move(E)).find("not instrumentable"),
            std::string::npos);
}

TEST(Lift, UndecodableBytesAreNotInstrumentable) {
  auto L = liftFile(LOOM_ISA_UNDECODABLE);
  ASSERT_TRUE(L);
  const BinaryFunction &F = L->fn("undecodable");
  EXPECT_FALSE(F.isInstrumentable());
  EXPECT_EQ(F.notInstrumentableReason(), "undecodable bytes at +0x4");
}

TEST(Lift, LifecycleStates) {
  auto L = liftFile(LOOM_LIFT_CASES, /*BuildCfg=*/false);
  ASSERT_TRUE(L);
  BinaryFunction &F = L->fn("cfg_diamond");
  EXPECT_EQ(F.state(), FunctionState::Disassembled);
  EXPECT_EQ(F.instructions().size(), 6u);
  EXPECT_TRUE(F.blocks().empty());
  ASSERT_NE(F.instructionAt(F.address() + 4), nullptr);

  // Passes say what they need.
  llvm::Error Early = F.markInstrumented();
  ASSERT_TRUE(static_cast<bool>(Early));
  EXPECT_EQ(llvm::toString(std::move(Early)),
            "function cfg_diamond is disassembled, not CFG built");
  auto NoLive = Liveness::compute(*L->BC);
  ASSERT_FALSE(static_cast<bool>(NoLive));
  llvm::consumeError(NoLive.takeError());

  ASSERT_FALSE(static_cast<bool>(F.buildCFG()));
  EXPECT_EQ(F.state(), FunctionState::CFGBuilt);
  EXPECT_TRUE(F.instructions().empty());
  EXPECT_EQ(F.numInstructions(), 6u);
  ASSERT_NE(F.instructionAt(F.address() + 4), nullptr);
  llvm::Error Twice = F.buildCFG();
  ASSERT_TRUE(static_cast<bool>(Twice));
  llvm::consumeError(std::move(Twice));

  ASSERT_FALSE(static_cast<bool>(F.markInstrumented()));
  EXPECT_EQ(F.state(), FunctionState::Instrumented);
  ASSERT_FALSE(static_cast<bool>(F.markEmitted()));
  EXPECT_EQ(F.state(), FunctionState::Emitted);

  // buildCFGs builds the rest and the call graph.
  ASSERT_FALSE(static_cast<bool>(L->BC->buildCFGs()));
  EXPECT_EQ(L->fn("caller").state(), FunctionState::CFGBuilt);
}

TEST(Lift, ClangBuiltCallChain) {
  auto L = liftFile(std::string(LOOM_FIXTURE_DIR) + "/gfx90a_v5_kernels.elf");
  ASSERT_TRUE(L);
  const CallGraph &CG = L->BC->callGraph();
  std::vector<std::string> Callees;
  for (const CallSite *S : CG.callsFrom(L->fn("call_chain"))) {
    ASSERT_NE(S->Callee, nullptr);
    Callees.push_back(S->Callee->name().str());
  }
  EXPECT_EQ(Callees,
            (std::vector<std::string>{"helper_mul", "helper_sum", "helper_fib"}));
  // helper_fib calls itself.
  auto Fib = CG.callsFrom(L->fn("helper_fib"));
  ASSERT_EQ(Fib.size(), 1u);
  EXPECT_EQ(Fib[0]->Callee, &L->fn("helper_fib"));
  for (const BinaryFunction &F : L->BC->functions())
    EXPECT_TRUE(F.isInstrumentable())
        << F.name().str() << ": " << F.notInstrumentableReason().str();
  // scale_add: if (gid < n) { ... }: entry, body, exit.
  const BinaryFunction &Scale = L->fn("scale_add");
  ASSERT_EQ(Scale.blocks().size(), 3u);
  EXPECT_EQ(succs(Scale, 0), (std::vector<unsigned>{1, 2}));
  EXPECT_EQ(succs(Scale, 1), (std::vector<unsigned>{2}));
  EXPECT_TRUE(Scale.blocks()[2].last().Props.isEndProgram());
}

TEST(Lift, CallThroughGotToAnotherCodeObject) {
  auto L = liftFile(std::string(LOOM_FIXTURE_DIR) + "/xco_caller.elf");
  ASSERT_TRUE(L);
  auto Sites = L->BC->callGraph().callsFrom(L->fn("xco_caller"));
  ASSERT_EQ(Sites.size(), 1u);
  EXPECT_EQ(Sites[0]->Callee, nullptr);
  EXPECT_EQ(Sites[0]->CalleeName, "xco_shared_add");
  EXPECT_EQ(Sites[0]->Source, isa::TargetSource::Got);
}

/// The names of the functions \p Path's code object lifts with \p Roots.
std::vector<std::string> liftedFrom(const std::string &Path,
                                    std::vector<llvm::StringRef> Roots) {
  auto L = liftFile(Path, /*BuildCfg=*/false);
  if (!L)
    return {};
  auto BC = BinaryContext::create(*L->CO, L->BC->mc(), Roots);
  if (!BC) {
    ADD_FAILURE() << llvm::toString(BC.takeError());
    return {};
  }
  if (llvm::Error E = (*BC)->buildCFGs()) {
    ADD_FAILURE() << llvm::toString(std::move(E));
    return {};
  }
  EXPECT_TRUE(bool(Liveness::compute(**BC)));
  std::vector<std::string> Names;
  for (const BinaryFunction &F : (*BC)->functions())
    Names.push_back(F.name().str());
  llvm::sort(Names);
  return Names;
}

TEST(Lift, RootsLiftOnlyWhatTheyCall) {
  std::string Path = std::string(LOOM_FIXTURE_DIR) + "/gfx90a_v5_kernels.elf";
  EXPECT_EQ(liftedFrom(Path, {"call_chain"}),
            (std::vector<std::string>{"call_chain", "helper_fib", "helper_mul",
                                      "helper_sum"}));
  EXPECT_EQ(liftedFrom(Path, {"scale_add"}),
            (std::vector<std::string>{"scale_add"}));
  // Several roots: the union, each function once.
  EXPECT_EQ(liftedFrom(Path, {"scale_add", "helper_fib", "scale_add"}),
            (std::vector<std::string>{"helper_fib", "scale_add"}));
}

TEST(Lift, RootCallingThroughAPointerLiftsEverything) {
  auto All = liftFile(LOOM_LIFT_CASES);
  ASSERT_TRUE(All);
  std::vector<std::string> Everything;
  for (const BinaryFunction &F : All->BC->functions())
    Everything.push_back(F.name().str());
  llvm::sort(Everything);
  EXPECT_EQ(liftedFrom(LOOM_LIFT_CASES, {"indirect_call"}), Everything);
  // A call to a known function, and none through a pointer: the two.
  EXPECT_EQ(liftedFrom(LOOM_LIFT_CASES, {"caller"}),
            (std::vector<std::string>{"caller", "cfg_diamond"}));
}

TEST(Lift, RootCallingAnotherCodeObject) {
  std::string Path = std::string(LOOM_FIXTURE_DIR) + "/xco_caller.elf";
  EXPECT_EQ(liftedFrom(Path, {"xco_caller"}),
            (std::vector<std::string>{"xco_caller"}));
}

TEST(Lift, UnknownRootIsAnError) {
  auto L = liftFile(LOOM_LIFT_CASES, /*BuildCfg=*/false);
  ASSERT_TRUE(L);
  auto BC = BinaryContext::create(*L->CO, L->BC->mc(), {"no_such_kernel"});
  ASSERT_FALSE(bool(BC));
  EXPECT_NE(llvm::toString(BC.takeError()).find("no kernel or function "
                                                 "no_such_kernel"),
            std::string::npos);
}

} // namespace
