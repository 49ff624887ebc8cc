//===- instrument/Liveness.cpp - Live registers at every instruction ------===//

#include "loom/instrument/Liveness.h"

#include "loom/instrument/BinaryContext.h"

#include "llvm/MC/MCInst.h"

#include <array>

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
// EXEC values
//===----------------------------------------------------------------------===//
//
// A forward pass names the EXEC value at every instruction. Names form a
// tree: a child's lanes are a subset of its parent's in every execution
// (an EXEC narrowed by s_and_saveexec or v_cmpx is a child of the one it
// narrowed). Entry is the value the function starts with; All is every
// lane (s_mov_b64 exec, -1); a kernel's Entry is a child of All. Restoring
// EXEC from a saved copy gives back the saved name. Before each instruction
// the pass knows the name EXEC holds (Exact, if known) and a name whose
// lanes contain it (Upper).
//
// Names made inside a loop stand for a new value on each trip, so none is
// carried around a back edge: there, each becomes its nearest ancestor made
// outside the loop.

namespace {

constexpr int Top = -2;     // lanes not known: all lanes, or more
constexpr int Unknown = -1; // Exact: EXEC holds no known name
constexpr int AllLanes = FunctionLiveness::ExecAllLanes;
constexpr int EntryLanes = FunctionLiveness::ExecAtEntry;
constexpr int FirstFresh = 2;
/// Longest parent chain walked; longer chains count as unrelated.
constexpr unsigned MaxDepth = 256;

struct ExecTree {
  std::vector<int> Parent; // by name; Top for a root
  /// For the else side E of an if/else: the then side T, with E and T
  /// splitting Parent[E] (E = Parent \ T). Unknown otherwise.
  std::vector<int> Complement;

  bool isWithin(int N, int E) const {
    if (N == Top || E == Unknown || N == Unknown)
      return false;
    for (unsigned D = 0; D != MaxDepth && N != Top; ++D) {
      if (N == E)
        return true;
      N = Parent[N];
    }
    return false;
  }
  /// The nearest name containing both.
  int join(int A, int B) const {
    if (A == B)
      return A;
    if (A == Top || B == Top)
      return Top;
    SmallVector<int, 16> Up;
    for (unsigned D = 0; D != MaxDepth && A != Top; ++D, A = Parent[A])
      Up.push_back(A);
    for (unsigned D = 0; D != MaxDepth && B != Top; ++D, B = Parent[B])
      if (is_contained(Up, B))
        return B;
    return Top;
  }
};

struct ExecState {
  int Exact = Unknown;
  int Upper = Top;
  /// SGPR -> name of the EXEC copy it holds, or Unknown.
  std::array<int, RegisterSet::NumSgprs> Saved;
  /// SGPR -> name T when it holds Parent[T] \ T (the else mask that
  /// s_xor_b64 sN, exec, saved computes), or Unknown.
  std::array<int, RegisterSet::NumSgprs> RestOf;
  bool Reached = false;

  ExecState() {
    Saved.fill(Unknown);
    RestOf.fill(Unknown);
  }
  bool operator==(const ExecState &O) const {
    return Exact == O.Exact && Upper == O.Upper && Saved == O.Saved &&
           RestOf == O.RestOf && Reached == O.Reached;
  }
};

/// Per function: the blocks of each loop, found from the back edges of a
/// depth-first walk (retreating edges; for irreducible flow, more blocks
/// than the loop, which only loses precision).
struct LoopInfo {
  /// Back edge (From, To) -> blocks of its loop.
  std::map<std::pair<unsigned, unsigned>, std::vector<bool>> Loops;

  explicit LoopInfo(ArrayRef<BinaryBasicBlock> Blocks) {
    unsigned N = Blocks.size();
    std::vector<int> State(N, 0); // 0 new, 1 on stack, 2 done
    std::vector<std::pair<unsigned, unsigned>> Stack{{0, 0}};
    State[0] = 1;
    while (!Stack.empty()) {
      auto &[B, K] = Stack.back();
      if (K == Blocks[B].Successors.size()) {
        State[B] = 2;
        Stack.pop_back();
        continue;
      }
      unsigned S = Blocks[B].Successors[K++];
      if (State[S] == 1) {
        addLoop(Blocks, B, S);
      } else if (State[S] == 0) {
        State[S] = 1;
        Stack.push_back({S, 0});
      }
    }
  }

  void addLoop(ArrayRef<BinaryBasicBlock> Blocks, unsigned From, unsigned To) {
    std::vector<bool> In(Blocks.size(), false);
    In[To] = true;
    std::vector<unsigned> Work;
    if (!In[From]) {
      In[From] = true;
      Work.push_back(From);
    }
    while (!Work.empty()) {
      unsigned B = Work.back();
      Work.pop_back();
      for (unsigned P : Blocks[B].Predecessors)
        if (!In[P]) {
          In[P] = true;
          Work.push_back(P);
        }
    }
    Loops[{From, To}] = std::move(In);
  }

  const std::vector<bool> *loopOf(unsigned From, unsigned To) const {
    auto It = Loops.find({From, To});
    return It == Loops.end() ? nullptr : &It->second;
  }
};

/// The EXEC names of one function.
struct ExecNames {
  ExecTree Tree;
  /// Before each instruction.
  std::vector<std::vector<int>> Exact, Upper;
  /// Name -> block that makes it (fresh names only; -1 for Entry/All).
  std::vector<int> BlockOf;
  bool Kernel = false;

  /// True if a write under \p E covers every lane a value needed in \p N
  /// may be read in.
  bool covers(int E, int N) const {
    if (E == AllLanes)
      return true;
    return Tree.isWithin(N, E);
  }
  /// \p N, or its nearest ancestor made outside \p Loop.
  int outside(int N, const std::vector<bool> &Loop) const {
    for (unsigned D = 0; D != MaxDepth; ++D) {
      if (N < FirstFresh || !Loop[BlockOf[N]])
        return N;
      N = Tree.Parent[N];
    }
    return Top;
  }
};

class ExecAnalysis {
public:
  explicit ExecAnalysis(const BinaryContext &BC) : BC(BC) {}

  ExecNames run(const BinaryFunction &F, const LoopInfo &Loops) const {
    ArrayRef<BinaryBasicBlock> Blocks = F.blocks();
    ExecNames R;
    R.Kernel = F.isKernel();
    // Fresh names: one per instruction.
    std::vector<unsigned> FirstIndex(Blocks.size());
    unsigned Count = 0;
    for (unsigned B = 0; B != Blocks.size(); ++B) {
      FirstIndex[B] = Count;
      Count += Blocks[B].Instructions.size();
    }
    R.Tree.Parent.assign(FirstFresh + Count, Top);
    R.Tree.Complement.assign(FirstFresh + Count, Unknown);
    R.BlockOf.assign(FirstFresh + Count, -1);
    for (unsigned B = 0; B != Blocks.size(); ++B)
      for (unsigned K = 0; K != Blocks[B].Instructions.size(); ++K)
        R.BlockOf[FirstFresh + FirstIndex[B] + K] = B;
    R.Tree.Parent[EntryLanes] = F.isKernel() ? AllLanes : Top;

    std::vector<ExecState> In(Blocks.size());
    In[0].Reached = true;
    In[0].Exact = In[0].Upper = EntryLanes;

    bool Converged = false;
    for (unsigned Round = 0; Round != 64 && !Converged; ++Round) {
      Converged = true;
      for (unsigned B = 0; B != Blocks.size(); ++B) {
        if (!In[B].Reached)
          continue;
        ExecState S = In[B];
        for (unsigned K = 0; K != Blocks[B].Instructions.size(); ++K)
          step(Blocks[B].Instructions[K], FirstFresh + FirstIndex[B] + K, S,
               R.Tree);
        for (unsigned Succ : Blocks[B].Successors) {
          ExecState Out = S;
          if (const std::vector<bool> *Loop = Loops.loopOf(B, Succ))
            leaveLoop(Out, R, *Loop);
          ExecState Joined = join(In[Succ], Out, R.Tree);
          if (!(Joined == In[Succ])) {
            In[Succ] = Joined;
            Converged = false;
          }
        }
      }
    }

    R.Exact.resize(Blocks.size());
    R.Upper.resize(Blocks.size());
    for (unsigned B = 0; B != Blocks.size(); ++B) {
      ExecState S = In[B];
      if (!S.Reached || !Converged) {
        S.Exact = Unknown;
        S.Upper = Top;
        S.Saved.fill(Unknown);
        S.RestOf.fill(Unknown);
      }
      for (unsigned K = 0; K != Blocks[B].Instructions.size(); ++K) {
        R.Exact[B].push_back(S.Exact);
        R.Upper[B].push_back(S.Upper);
        if (Converged)
          step(Blocks[B].Instructions[K], FirstFresh + FirstIndex[B] + K, S,
               R.Tree);
      }
    }
    return R;
  }

private:
  static ExecState join(const ExecState &A, const ExecState &B,
                        const ExecTree &T) {
    if (!A.Reached)
      return B;
    ExecState R = A;
    R.Exact = A.Exact == B.Exact ? A.Exact : Unknown;
    R.Upper = T.join(A.Upper, B.Upper);
    for (unsigned N = 0; N != R.Saved.size(); ++N) {
      if (A.Saved[N] != B.Saved[N])
        R.Saved[N] = Unknown;
      if (A.RestOf[N] != B.RestOf[N])
        R.RestOf[N] = Unknown;
    }
    return R;
  }

  static void leaveLoop(ExecState &S, const ExecNames &R,
                        const std::vector<bool> &Loop) {
    auto Inside = [&](int N) {
      return N >= FirstFresh && Loop[R.BlockOf[N]];
    };
    if (Inside(S.Exact))
      S.Exact = Unknown;
    if (S.Upper != Top)
      S.Upper = R.outside(S.Upper, Loop);
    for (int &N : S.Saved)
      if (Inside(N))
        N = Unknown;
    for (int &N : S.RestOf)
      if (Inside(N))
        N = Unknown;
  }

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
  /// The name of the EXEC copy \p Op holds, or Unknown.
  int savedName(const MCOperand &Op, const ExecState &S) const {
    return pairName(Op, S.Saved);
  }
  int pairName(const MCOperand &Op,
               const std::array<int, RegisterSet::NumSgprs> &Map) const {
    SmallVector<unsigned, 2> Ns = sgprs(Op);
    if (Ns.empty())
      return Unknown;
    int Name = Map[Ns[0]];
    for (unsigned N : Ns)
      if (Map[N] != Name)
        return Unknown;
    return Name;
  }

  void step(const BinaryInstruction &I, int Fresh, ExecState &S,
            ExecTree &T) const {
    auto ClobberSaved = [&](const RegisterSet &W) {
      for (unsigned N = 0; N != RegisterSet::NumSgprs; ++N)
        if (W.hasSgpr(N))
          S.Saved[N] = S.RestOf[N] = Unknown;
    };
    if (!I.Info.Valid) {
      S.Exact = Unknown;
      S.Upper = Top;
      S.Saved.fill(Unknown);
      S.RestOf.fill(Unknown);
      return;
    }
    const InstrProperties &P = I.Props;
    const MCInst &Inst = I.Inst;
    StringRef Base = BC.mc().opcodeBaseName(Inst.getOpcode());
    auto Op = [&](unsigned K) -> const MCOperand * {
      return K < Inst.getNumOperands() ? &Inst.getOperand(K) : nullptr;
    };

    if (I.Info.Flow == isa::ControlFlow::Call) {
      // EXEC is preserved across calls; caller-saved SGPRs are not.
      ClobberSaved(callconv::clobberedRegisters());
      ClobberSaved(P.Writes);
      return;
    }
    // Only whole-register forms are followed: a 32-bit write of exec_lo or
    // exec_hi in a wave64 changes half of it.
    bool IsMov = Base == "S_MOV_B64";
    if (!P.writesExec()) {
      // Read the sources before the destination overwrites them.
      int CopyOf = Unknown, RestOfName = Unknown;
      // s_mov_b64 sN, exec: a copy of EXEC.
      if (IsMov && Op(0) && Op(1) && isExec(*Op(1)))
        CopyOf = S.Exact;
      // s_xor_b64 sN, exec, saved: the lanes of the saved EXEC that the
      // current (narrowed) one lacks: the else side's mask.
      if (Base == "S_XOR_B64" && Op(0) && Op(1) && Op(2) &&
          S.Exact >= FirstFresh) {
        const MCOperand *Other = isExec(*Op(1))   ? Op(2)
                                 : isExec(*Op(2)) ? Op(1)
                                                  : nullptr;
        if (Other && T.Parent[S.Exact] != Top &&
            savedName(*Other, S) == T.Parent[S.Exact])
          RestOfName = S.Exact;
      }
      ClobberSaved(P.Writes);
      if (Op(0) && (CopyOf != Unknown || RestOfName != Unknown))
        for (unsigned N : sgprs(*Op(0))) {
          S.Saved[N] = CopyOf;
          S.RestOf[N] = RestOfName;
        }
      return;
    }

    int OldExact = S.Exact, OldUpper = S.Upper;
    auto SetFresh = [&](int Parent) {
      T.Parent[Fresh] = Parent;
      T.Complement[Fresh] = Unknown;
      S.Exact = S.Upper = Fresh;
    };
    auto SetName = [&](int Name) { S.Exact = S.Upper = Name; };
    SmallVector<unsigned, 2> SaveDst;
    bool SrcExec0 = Op(1) && isExec(*Op(1)), SrcExec1 = Op(2) && isExec(*Op(2));

    if (!P.Writes.has(SpecialReg::ExecLo) || !P.Writes.has(SpecialReg::ExecHi)) {
      SetFresh(Top); // half of EXEC
    } else if (IsMov && Op(1)) {
      int Saved = savedName(*Op(1), S);
      if (isAllOnes(*Op(1)))
        SetName(AllLanes);
      else if (Saved != Unknown)
        SetName(Saved);
      else
        SetFresh(Top);
    } else if (Base == "S_OR_B64" && Op(1) && Op(2)) {
      // exec |= a copy saved before narrowing: that copy again.
      int Saved = SrcExec0 ? savedName(*Op(2), S)
                           : SrcExec1 ? savedName(*Op(1), S) : Unknown;
      if (isAllOnes(*Op(1)) || isAllOnes(*Op(2)))
        SetName(AllLanes);
      else if (Saved != Unknown && (SrcExec0 || SrcExec1) &&
               T.isWithin(OldUpper, Saved))
        SetName(Saved);
      else if (Saved != Unknown && OldExact >= FirstFresh &&
               T.Complement[OldExact] == Saved)
        SetName(T.Parent[OldExact]); // else side | then side
      else
        SetFresh(Top);
    } else if (Base.starts_with("S_") && Base.contains("_SAVEEXEC_")) {
      if (Op(0))
        SaveDst = sgprs(*Op(0));
      int Rest = Op(1) ? pairName(*Op(1), S.RestOf) : Unknown;
      if (Base.starts_with("S_AND_SAVEEXEC") ||
          Base.starts_with("S_ANDN1_SAVEEXEC")) {
        SetFresh(OldUpper); // EXEC & x
      } else if (Base.starts_with("S_ANDN2_SAVEEXEC") && Rest != Unknown) {
        // EXEC = (P \ T) & ~EXEC: the else side, within P.
        SetFresh(T.Parent[Rest]);
        if (OldExact == Rest)
          T.Complement[Fresh] = Rest;
      } else if (Base.starts_with("S_OR_SAVEEXEC") && Op(1) && isAllOnes(*Op(1)))
        SetName(AllLanes);
      else
        SetFresh(Top);
    } else if (Base == "S_AND_B64" && (SrcExec0 || SrcExec1)) {
      SetFresh(OldUpper);
    } else if (Base == "S_ANDN2_B64" && SrcExec0) {
      SetFresh(OldUpper); // EXEC & ~x
    } else if (Base == "S_XOR_B64" && Op(1) && Op(2) && (SrcExec0 || SrcExec1)) {
      // The else side of a branch: lanes of the saved copy not in EXEC.
      int Saved = SrcExec0 ? savedName(*Op(2), S) : savedName(*Op(1), S);
      SetFresh(Saved == Unknown ? Top : Saved);
    } else if (Base.starts_with("V_CMPX")) {
      SetFresh(OldUpper); // EXEC & condition
    } else {
      SetFresh(Top);
    }
    ClobberSaved(P.Writes);
    for (unsigned N : SaveDst)
      S.Saved[N] = OldExact;
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

namespace {

constexpr unsigned NumVectorUnits = RegisterSet::NumVgprs + RegisterSet::NumAgprs;

/// Live units plus, for each live VGPR/AGPR unit, the EXEC name whose lanes
/// contain every lane its value may still be read in.
struct LiveState {
  RegisterSet Live;
  std::array<int, NumVectorUnits> Need;
  LiveState() { Need.fill(Top); }

  static unsigned vec(unsigned Unit) { return Unit - RegisterSet::VgprBase; }

  void mergeFrom(const LiveState &O, const ExecTree &T) {
    O.Live.vectorOnly().forEachUnit([&](unsigned U) {
      int &N = Need[vec(U)];
      N = Live.testUnit(U) ? T.join(N, O.Need[vec(U)]) : O.Need[vec(U)];
    });
    Live |= O.Live;
  }
  /// Reads \p Units in lanes within \p Lanes.
  void read(const RegisterSet &Units, int Lanes, const ExecTree &T) {
    Units.vectorOnly().forEachUnit([&](unsigned U) {
      int &N = Need[vec(U)];
      N = Live.testUnit(U) ? T.join(N, Lanes) : Lanes;
    });
    Live |= Units;
  }
  /// Writes \p Units whole in the lanes of EXEC name \p Exec (scalar units
  /// always die).
  void write(const RegisterSet &Units, int Exec, const ExecNames &X) {
    RegisterSet Hit = Units;
    Hit &= Live;
    Hit.forEachUnit([&](unsigned U) {
      bool Vector = U >= RegisterSet::VgprBase && U < RegisterSet::SpecialBase;
      if (!Vector || X.covers(Exec, Need[vec(U)])) {
        Live.clearUnit(U);
        return;
      }
      // The else side of an if/else writes E = P \ T: of lanes within P,
      // only the then side's T still need the old value.
      int &N = Need[vec(U)];
      if (Exec >= FirstFresh && X.Tree.Complement[Exec] != Unknown &&
          X.Tree.isWithin(N, X.Tree.Parent[Exec]))
        N = X.Tree.Complement[Exec];
    });
  }
  bool operator==(const LiveState &O) const {
    if (Live != O.Live)
      return false;
    bool Same = true;
    Live.vectorOnly().forEachUnit([&](unsigned U) {
      Same = Same && Need[vec(U)] == O.Need[vec(U)];
    });
    return Same;
  }
};

} // namespace

struct LivenessBuilder {
  static void computeFunction(
      const BinaryContext &BC, const BinaryFunction &F, FunctionLiveness &L,
      const ExecNames &X, const LoopInfo &Loops,
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

    // What leaves the function at a block's end, besides its successors;
    // vector values there may be read in any lane.
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
        if (KnownCallee(Last)) {
          Exit[B] = CalleeUses(Last, ReturnLive);
        } else {
          // As an unknown call and a return: the callee reads the
          // arguments and the return address, and may clobber the scalar
          // registers the convention lets it (vector ones keep their
          // inactive lanes, which this lane-blind set cannot tell apart).
          Exit[B] = ReturnLive;
          Exit[B].subtract(Clobbered.withoutVector());
          Exit[B] |= Args;
          Exit[B].addSgprs(30, 2);
        }
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
        if (!Last.Info.Valid ||
            (!Last.Info.isBarrier() && B + 1 == Blocks.size()))
          Exit[B] = All; // falls off the end: nothing is known
        break;
      }
    }

    auto Step = [&](LiveState &S, unsigned B, unsigned K) {
      const BinaryInstruction &I = Blocks[B].Instructions[K];
      const InstrProperties &P = I.Props;
      int Exact = X.Exact[B][K], Upper = X.Upper[B][K];
      if (!I.Info.Valid) {
        S.read(All, Top, X.Tree);
        return;
      }
      if (I.Info.Flow == isa::ControlFlow::Call) {
        if (KnownCallee(I)) {
          S.read(CalleeUses(I, S.Live), Top, X.Tree);
        } else {
          S.write(Clobbered, Exact, X);
          S.read(Args, Top, X.Tree);
        }
      }
      RegisterSet Kill = P.Writes;
      Kill.subtract(P.PartialWrites);
      if (!P.IsVector) {
        S.write(Kill, AllLanes, X);
      } else {
        S.write(Kill.withoutVector(), AllLanes, X);
        S.write(Kill.vectorOnly(), Exact, X);
      }
      // A cross-lane read may read any lane, whole-wave code's included.
      S.read(P.Reads, P.ReadsOtherLanes ? AllLanes : Upper, X.Tree);
    };

    std::vector<LiveState> In(Blocks.size()), Out(Blocks.size());
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (unsigned B = Blocks.size(); B-- > 0;) {
        LiveState S;
        S.read(Exit[B], Top, X.Tree);
        for (unsigned Succ : Blocks[B].Successors) {
          LiveState From = In[Succ];
          if (const std::vector<bool> *Loop = Loops.loopOf(B, Succ))
            for (int &N : From.Need)
              if (N != Top)
                N = X.outside(N, *Loop);
          S.mergeFrom(From, X.Tree);
        }
        Out[B] = S;
        for (unsigned K = Blocks[B].Instructions.size(); K-- > 0;)
          Step(S, B, K);
        if (!(S == In[B])) {
          In[B] = S;
          Changed = true;
        }
      }
    }

    // Per instruction, from the fixed point.
    L.Before.assign(Blocks.size(), {});
    L.OtherBefore.assign(Blocks.size(), {});
    L.Partial.assign(Blocks.size(), {});
    L.Out.assign(Blocks.size(), RegisterSet());
    L.OtherOut.assign(Blocks.size(), RegisterSet());
    L.ExecNames = X.Exact;
    for (unsigned B = 0; B != Blocks.size(); ++B) {
      unsigned N = Blocks[B].Instructions.size();
      L.Before[B].resize(N);
      L.OtherBefore[B].resize(N);
      L.Partial[B].resize(N);
      LiveState S = Out[B];
      L.Out[B] = S.Live;
      for (unsigned K = N; K-- > 0;) {
        Step(S, B, K);
        L.Before[B][K] = S.Live;
        int Exact = X.Exact[B][K];
        L.Partial[B][K] = !(Exact == AllLanes ||
                            (X.Kernel && Exact == EntryLanes));
        RegisterSet Other;
        S.Live.vectorOnly().forEachUnit([&](unsigned U) {
          if (!X.Tree.isWithin(S.Need[LiveState::vec(U)], X.Upper[B][K]))
            Other.setUnit(U);
        });
        L.OtherBefore[B][K] = Other;
      }
    }
  }
};

Expected<Liveness> Liveness::compute(const BinaryContext &BC) {
  for (const BinaryFunction &F : BC.functions())
    if (F.state() == FunctionState::Disassembled)
      return F.requireState(FunctionState::CFGBuilt);

  ExecAnalysis Exec(BC);
  std::map<const BinaryFunction *, std::unique_ptr<LoopInfo>> Loops;
  std::map<const BinaryFunction *, ExecNames> Names;
  for (const BinaryFunction &F : BC.functions())
    if (!F.blocks().empty()) {
      Loops[&F] = std::make_unique<LoopInfo>(F.blocks());
      Names[&F] = Exec.run(F, *Loops[&F]);
    }

  // Where every caller is known, a function's return keeps live only what
  // its callers need after the call; otherwise (exported, or callable
  // through an unknown pointer) what the convention preserves.
  bool UnknownCalls = false;
  for (const CallSite &S : BC.callGraph().sites())
    if (S.isIndirect())
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

  // An unknown caller follows the convention: after the call it reads no
  // scalar register the callee may clobber (SCC, VCC, M0, s[30:31]) but
  // the arguments' (return values); every vector register stays, for the
  // lanes the call left inactive.
  RegisterSet UnknownCallersNeed = allUnits();
  UnknownCallersNeed.subtract(callconv::clobberedRegisters().withoutVector());
  UnknownCallersNeed |= callconv::argumentRegisters();

  Liveness Result;
  std::map<const BinaryFunction *, CalleeSummary> Summaries;
  std::map<const BinaryFunction *, RegisterSet> ReturnLive;
  for (const BinaryFunction &F : BC.functions())
    ReturnLive[&F] = CallersKnown(F) ? RegisterSet() : UnknownCallersNeed;

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
        LivenessBuilder::computeFunction(BC, F, Bare, Names[&F], *Loops[&F],
                                         Summaries, RegisterSet());
        S.Gen = Bare.entryLiveIn();
      }
      auto L = std::make_unique<FunctionLiveness>();
      LivenessBuilder::computeFunction(BC, F, *L, Names[&F], *Loops[&F],
                                       Summaries, ReturnLive[&F]);
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
