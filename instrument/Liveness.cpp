//===- instrument/Liveness.cpp - Live registers at every instruction ------===//

#include "loom/instrument/Liveness.h"

#include "loom/instrument/BinaryContext.h"

#include "llvm/MC/MCInst.h"

#include <bitset>

using namespace llvm;

namespace loom::instrument {

//===----------------------------------------------------------------------===//
// Calling convention
//===----------------------------------------------------------------------===//

namespace callconv {

RegisterSet argumentRegisters() {
  RegisterSet S;
  S.addSgprs(0, 30).addSgprs(32).addVgprs(0, 32).addExec();
  S.add(SpecialReg::FlatScratchLo).add(SpecialReg::FlatScratchHi);
  S.add(SpecialReg::Mode);
  return S;
}

RegisterSet clobberedRegisters() {
  RegisterSet S;
  S.addSgprs(4, 28).addVcc().add(SpecialReg::Scc).add(SpecialReg::M0);
  S.addVgprs(0, 40);
  // Past v39 the convention alternates 8 preserved and 8 clobbered VGPRs.
  for (unsigned V = 48; V < RegisterSet::NumVgprs; V += 16)
    S.addVgprs(V, 8);
  S.addAgprs(0, 32);
  return S;
}

} // namespace callconv

static RegisterSet allUnits() {
  RegisterSet S;
  for (unsigned U = 0; U != RegisterSet::NumUnits; ++U)
    S.setUnit(U);
  return S;
}

const RegisterSet &FunctionLiveness::liveAfter(unsigned Block,
                                               unsigned Index) const {
  if (Index + 1 < Before[Block].size())
    return Before[Block][Index + 1];
  return Out[Block];
}

//===----------------------------------------------------------------------===//
// EXEC: has it lost lanes the wave started with?
//===----------------------------------------------------------------------===//

namespace {

/// Forward state: whether EXEC holds at least the initial lanes ("full"),
/// and which SGPRs hold a copy of such an EXEC (saved by s_*_saveexec or
/// s_mov_b64 sN, exec) so restoring from them makes EXEC full again.
struct ExecState {
  bool Full = true;
  std::bitset<RegisterSet::NumSgprs> Saved;

  static ExecState top() {
    ExecState S;
    S.Saved.set();
    return S;
  }
  bool meet(const ExecState &O) {
    ExecState Old = *this;
    Full = Full && O.Full;
    Saved &= O.Saved;
    return Full != Old.Full || Saved != Old.Saved;
  }
};

class ExecAnalysis {
public:
  explicit ExecAnalysis(const BinaryContext &BC) : BC(BC) {}

  /// Partial[b][i]: EXEC may have lost initial lanes before instruction i.
  std::vector<std::vector<bool>> run(const BinaryFunction &F) const {
    ArrayRef<BinaryBasicBlock> Blocks = F.blocks();
    std::vector<ExecState> In(Blocks.size(), ExecState::top());
    std::vector<bool> Reached(Blocks.size(), false);
    ExecState Entry;
    // A device function runs under its caller's EXEC, which may lack lanes
    // the caller still needs.
    Entry.Full = F.isKernel();
    In[0] = Entry;
    Reached[0] = true;
    std::vector<unsigned> Work{0};
    while (!Work.empty()) {
      unsigned B = Work.back();
      Work.pop_back();
      ExecState S = In[B];
      for (const BinaryInstruction &I : Blocks[B].Instructions)
        step(I, S);
      for (unsigned Succ : Blocks[B].Successors) {
        bool Changed = !Reached[Succ] ? (In[Succ] = S, true) : In[Succ].meet(S);
        Reached[Succ] = true;
        if (Changed)
          Work.push_back(Succ);
      }
    }
    std::vector<std::vector<bool>> Partial(Blocks.size());
    for (unsigned B = 0; B != Blocks.size(); ++B) {
      ExecState S = In[B];
      if (!Reached[B])
        S.Full = false;
      for (const BinaryInstruction &I : Blocks[B].Instructions) {
        Partial[B].push_back(!S.Full);
        step(I, S);
      }
    }
    return Partial;
  }

private:
  /// The SGPR units of a register operand; empty if it has none.
  SmallVector<unsigned, 2> sgprs(const MCOperand &Op) const {
    SmallVector<unsigned, 2> Out;
    if (!Op.isReg())
      return Out;
    const RegisterSet &U = BC.analyzer().unitsOf(Op.getReg().id());
    for (unsigned N = 0; N != RegisterSet::NumSgprs; ++N)
      if (U.hasSgpr(N))
        Out.push_back(N);
    return Out;
  }

  bool isExec(const MCOperand &Op) const {
    return Op.isReg() &&
           BC.analyzer().unitsOf(Op.getReg().id()).has(SpecialReg::ExecLo);
  }

  static bool isAllOnes(const MCOperand &Op) {
    return Op.isImm() && (Op.getImm() == -1 ||
                          static_cast<uint32_t>(Op.getImm()) == 0xffffffffu);
  }

  /// True if \p Op is an EXEC value that holds the initial lanes.
  bool fullSource(const MCOperand &Op, const ExecState &S) const {
    if (isAllOnes(Op))
      return true;
    if (isExec(Op))
      return S.Full;
    SmallVector<unsigned, 2> Ns = sgprs(Op);
    if (Ns.empty())
      return false;
    for (unsigned N : Ns)
      if (!S.Saved[N])
        return false;
    return true;
  }

  void step(const BinaryInstruction &I, ExecState &S) const {
    if (!I.Info.Valid) {
      S.Full = false;
      S.Saved.reset();
      return;
    }
    const InstrProperties &P = I.Props;
    const MCInst &Inst = I.Inst;
    StringRef Base = BC.mc().opcodeBaseName(Inst.getOpcode());
    auto Op = [&](unsigned K) -> const MCOperand * {
      return K < Inst.getNumOperands() ? &Inst.getOperand(K) : nullptr;
    };

    // Saved copies die with any other write to their registers.
    auto ClobberSaved = [&](const RegisterSet &W) {
      for (unsigned N = 0; N != RegisterSet::NumSgprs; ++N)
        if (W.hasSgpr(N))
          S.Saved.reset(N);
    };

    if (I.Info.Flow == isa::ControlFlow::Call) {
      // EXEC is preserved across calls; caller-saved SGPRs are not.
      ClobberSaved(callconv::clobberedRegisters());
      ClobberSaved(P.Writes);
      return;
    }

    bool OldFull = S.Full;
    if (!P.writesExec()) {
      // s_mov_b64 sN, exec: a copy of EXEC.
      if ((Base == "S_MOV_B64" || Base == "S_MOV_B32") && Op(0) && Op(1) &&
          isExec(*Op(1))) {
        ClobberSaved(P.Writes);
        if (OldFull)
          for (unsigned N : sgprs(*Op(0)))
            S.Saved.set(N);
        return;
      }
      ClobberSaved(P.Writes);
      return;
    }

    bool NewFull = false;
    SmallVector<unsigned, 2> SaveDst;
    if ((Base == "S_MOV_B64" || Base == "S_MOV_B32") && Op(1)) {
      NewFull = fullSource(*Op(1), S);
    } else if ((Base == "S_OR_B64" || Base == "S_OR_B32") && Op(1) && Op(2)) {
      NewFull = fullSource(*Op(1), S) || fullSource(*Op(2), S);
    } else if (Base.starts_with("S_") && Base.contains("_SAVEEXEC_")) {
      // sdst = old EXEC; EXEC = op(src, EXEC).
      if (Op(0))
        SaveDst = sgprs(*Op(0));
      if (Base.starts_with("S_OR_SAVEEXEC") && Op(1))
        NewFull = OldFull || fullSource(*Op(1), S);
    }
    ClobberSaved(P.Writes);
    if (OldFull)
      for (unsigned N : SaveDst)
        S.Saved.set(N);
    S.Full = NewFull;
  }

  const BinaryContext &BC;
};

} // namespace

//===----------------------------------------------------------------------===//
// Liveness
//===----------------------------------------------------------------------===//

/// A function's entry needs, for its call sites.
struct CalleeSummary {
  /// Live at entry if nothing is live at its return.
  RegisterSet Gen;
  /// Live at entry with its ReturnLive live at its return.
  RegisterSet In;
  bool operator==(const CalleeSummary &O) const {
    return Gen == O.Gen && In == O.In;
  }
};

struct LivenessBuilder {
  static void computeFunction(
    const BinaryContext &BC, const BinaryFunction &F, FunctionLiveness &L,
    const std::vector<std::vector<bool>> &Partial,
    const std::map<const BinaryFunction *, CalleeSummary> &Callees,
    const RegisterSet &ReturnLive) {
  ArrayRef<BinaryBasicBlock> Blocks = F.blocks();
  static const RegisterSet All = allUnits();
  const RegisterSet Args = callconv::argumentRegisters();
  const RegisterSet Clobbered = callconv::clobberedRegisters();

  // What a known callee needs at its entry when \p After is live after it
  // returns: what it reads itself, plus what passes through it unkilled
  // (liveness is per register, so Through(After) = In(ReturnLive) & After
  // for any After within the callee's ReturnLive).
  auto CalleeUses = [&](const BinaryInstruction &I,
                        const RegisterSet &After) -> RegisterSet {
    if (I.Info.Target)
      if (BinaryFunction *Callee = BC.functionAt(*I.Info.Target)) {
        auto It = Callees.find(Callee);
        if (It == Callees.end())
          return RegisterSet();
        RegisterSet Through = It->second.In;
        Through &= After;
        return It->second.Gen | Through;
      }
    return RegisterSet();
  };
  auto KnownCallee = [&](const BinaryInstruction &I) {
    return I.Info.Target && BC.functionAt(*I.Info.Target);
  };

  // What leaves the function at a block's end, besides its successors.
  std::vector<RegisterSet> Exit(Blocks.size());
  for (unsigned B = 0; B != Blocks.size(); ++B) {
    const BinaryInstruction &Last = Blocks[B].last();
    switch (Last.Info.Flow) {
    case isa::ControlFlow::EndProgram:
      break;
    case isa::ControlFlow::Return:
      Exit[B] = ReturnLive;
      break;
    case isa::ControlFlow::TailCall:
      Exit[B] = KnownCallee(Last) ? CalleeUses(Last, ReturnLive)
                                  : Args | ReturnLive;
      break;
    case isa::ControlFlow::IndirectBranch:
      Exit[B] = All;
      break;
    default:
      // s_trap ending a function ends the wave (llvm.trap): nothing after
      // it reads registers.
      if (Last.Info.Valid && B + 1 == Blocks.size() &&
          BC.mc().opcodeBaseName(Last.Inst.getOpcode()) == "S_TRAP")
        break;
      if (!Last.Info.Valid || (!Last.Info.isBarrier() && B + 1 == Blocks.size()))
        Exit[B] = All; // falls off the end: nothing is known
      break;
    }
  }

  L.Before.assign(Blocks.size(), {});
  L.OtherBefore.assign(Blocks.size(), {});
  for (unsigned B = 0; B != Blocks.size(); ++B) {
    L.Before[B].assign(Blocks[B].Instructions.size(), RegisterSet());
    L.OtherBefore[B].assign(Blocks[B].Instructions.size(), RegisterSet());
  }
  L.Out.assign(Blocks.size(), RegisterSet());
  L.OtherOut.assign(Blocks.size(), RegisterSet());
  L.Partial = Partial;

  // Live: every unit live. Other: the vector units that may be needed in
  // lanes outside the current EXEC; a vector write under a partial EXEC
  // cannot end their life.
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (unsigned B = Blocks.size(); B-- > 0;) {
      RegisterSet Live = Exit[B];
      RegisterSet Other = Exit[B].vectorOnly();
      for (unsigned S : Blocks[B].Successors) {
        Live |= L.Before[S][0];
        Other |= L.OtherBefore[S][0];
      }
      L.Out[B] = Live;
      L.OtherOut[B] = Other;
      ArrayRef<BinaryInstruction> Insts = Blocks[B].Instructions;
      for (unsigned K = Insts.size(); K-- > 0;) {
        const BinaryInstruction &I = Insts[K];
        const InstrProperties &P = I.Props;
        bool MayBePartial = Partial[B][K];
        // Ends the life of \p Kill: vector units only where EXEC covers
        // every lane that may need them.
        auto KillUnits = [&](RegisterSet Kill, bool LaneMasked) {
          if (LaneMasked && MayBePartial) {
            Kill.subtract(Other);
          } else {
            Other.subtract(Kill);
          }
          Live.subtract(Kill);
        };
        if (!I.Info.Valid) {
          Live = All;
          Other = All.vectorOnly();
        } else {
          // Lanes needed after an EXEC change need not be active before it.
          if (P.writesExec())
            Other |= Live.vectorOnly();
          if (I.Info.Flow == isa::ControlFlow::Call) {
            if (KnownCallee(I)) {
              RegisterSet Uses = CalleeUses(I, Live);
              Live |= Uses;
              Other |= Uses.vectorOnly();
            } else {
              KillUnits(Clobbered, /*LaneMasked=*/true);
              Live |= Args;
              Other |= Args.vectorOnly();
            }
          }
          RegisterSet Kill = P.Writes;
          Kill.subtract(P.PartialWrites);
          KillUnits(Kill, P.IsVector);
          Live |= P.Reads;
          if (P.ReadsOtherLanes)
            Other |= P.Reads.vectorOnly();
        }
        if (Live != L.Before[B][K] || Other != L.OtherBefore[B][K]) {
          L.Before[B][K] = Live;
          L.OtherBefore[B][K] = Other;
          Changed = true;
        }
      }
    }
  }
}
};

Expected<Liveness> Liveness::compute(const BinaryContext &BC) {
  for (const BinaryFunction &F : BC.functions())
    if (F.state() == FunctionState::Disassembled)
      return F.requireState(FunctionState::CFGBuilt);

  ExecAnalysis Exec(BC);
  std::map<const BinaryFunction *, std::vector<std::vector<bool>>> Partial;
  for (const BinaryFunction &F : BC.functions())
    if (!F.blocks().empty())
      Partial[&F] = Exec.run(F);

  // Where every caller is known, a function's return keeps live only what
  // its callers need after the call; otherwise (exported, or callable
  // through an unknown pointer) what the convention preserves.
  bool UnknownCalls = false;
  for (const CallSite &S : BC.callGraph().sites())
    if (S.isUnknown() && S.CalleeName.empty())
      UnknownCalls = true;
  auto CallersKnown = [&](const BinaryFunction &F) {
    if (F.isKernel() || F.isExported() || UnknownCalls)
      return false;
    for (const codeobj::DynamicRelocation &R :
         BC.codeObject().dynamicRelocations())
      if (R.Symbol == F.name())
        return false; // its address is in a GOT entry
    return true;
  };

  Liveness Result;
  std::map<const BinaryFunction *, CalleeSummary> Summaries;
  std::map<const BinaryFunction *, RegisterSet> ReturnLive;
  for (const BinaryFunction &F : BC.functions())
    ReturnLive[&F] = CallersKnown(F) ? RegisterSet() : allUnits();

  // Entry and return live sets only grow, so this reaches a fixed point
  // (recursion included).
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (const BinaryFunction &F : BC.functions()) {
      if (F.blocks().empty())
        continue;
      CalleeSummary S;
      if (!F.isKernel()) {
        FunctionLiveness Bare;
        LivenessBuilder::computeFunction(BC, F, Bare, Partial[&F], Summaries,
                                         RegisterSet());
        S.Gen = Bare.entryLiveIn();
      }
      auto L = std::make_unique<FunctionLiveness>();
      LivenessBuilder::computeFunction(BC, F, *L, Partial[&F], Summaries,
                                       ReturnLive[&F]);
      S.In = L->entryLiveIn();
      CalleeSummary &Old = Summaries[&F];
      if (!(Old == S)) {
        Old = S;
        Changed = true;
      }
      Result.Results[&F] = std::move(L);
    }
    for (const CallSite &S : BC.callGraph().sites()) {
      if (!S.Callee || !CallersKnown(*S.Callee))
        continue;
      const FunctionLiveness *CL = Result.of(*S.Caller);
      if (!CL)
        continue;
      RegisterSet Need;
      if (S.IsTailCall) {
        Need = ReturnLive[S.Caller];
      } else {
        std::optional<unsigned> B = S.Caller->blockContaining(S.Address);
        if (!B)
          continue;
        ArrayRef<BinaryInstruction> Insts = S.Caller->blocks()[*B].Instructions;
        for (unsigned K = 0; K != Insts.size(); ++K)
          if (Insts[K].address() == S.Address)
            Need = CL->liveAfter(*B, K);
      }
      RegisterSet &R = ReturnLive[S.Callee];
      if (!R.contains(Need)) {
        R |= Need;
        Changed = true;
      }
    }
  }
  return Result;
}

const FunctionLiveness *Liveness::of(const BinaryFunction &F) const {
  auto It = Results.find(&F);
  return It == Results.end() ? nullptr : It->second.get();
}

} // namespace loom::instrument
