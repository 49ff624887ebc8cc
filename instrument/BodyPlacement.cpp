//===- instrument/BodyPlacement.cpp - A hook body's registers at a point --===//

#include "BodyPlacement.h"

#include "loom/instrument/BinaryContext.h"
#include "loom/isa/McContext.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/MC/MCInstrDesc.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"

using namespace llvm;

namespace loom::instrument::detail {

namespace {

/// Union-find over the definitions of one unit: a web is the definitions
/// some read joins, and the reads.
struct DefWebs {
  std::vector<unsigned> Parent;
  unsigned add() {
    Parent.push_back(Parent.size());
    return Parent.size() - 1;
  }
  unsigned find(unsigned D) {
    while (Parent[D] != D)
      D = Parent[D] = Parent[Parent[D]];
    return D;
  }
  void join(unsigned A, unsigned B) { Parent[find(A)] = find(B); }
};

} // namespace

std::map<uint64_t, uint64_t> paramReads(const BinaryFunction &F,
                                        const RegisterSet &Params,
                                        const RegisterSet &Results,
                                        RegisterSet &Mixed) {
  ArrayRef<BinaryBasicBlock> Blocks = F.blocks();
  const InstrAnalyzer &A = F.context().analyzer();
  isa::McContext &MC = A.mc();
  // Per operand (instruction address, operand) and unit: its web.
  std::map<std::pair<uint64_t, unsigned>,
           std::vector<std::pair<unsigned, unsigned>>>
      OperandWebs;
  std::map<unsigned, std::vector<unsigned>> Renamed; // unit -> webs renamed
  std::map<unsigned, DefWebs> Sets;
  Params.forEachUnit([&](unsigned U) {
    // Definitions: 0 the value passed, then each write, in block order.
    // Reaching definitions as bit sets: a unit with more than 63 writes
    // is not renamed.
    DefWebs &W = Sets[U];
    W.add();
    std::map<const BinaryInstruction *, unsigned> DefOf;
    bool Bad = false;
    for (const BinaryBasicBlock &B : Blocks)
      for (const BinaryInstruction &I : B.Instructions)
        if (I.Props.Writes.testUnit(U)) {
          if (W.Parent.size() == 64)
            Bad = true;
          else
            DefOf[&I] = W.add();
        }
    if (Bad) {
      Mixed.setUnit(U);
      return;
    }
    // A write that keeps part of the value (lanes EXEC has off, a lane,
    // some bits) also reads it.
    auto Keeps = [&](const BinaryInstruction &I) {
      return U >= RegisterSet::VgprBase || I.Props.PartialWrites.testUnit(U);
    };
    std::vector<uint64_t> Out(Blocks.size(), 0);
    auto In = [&](size_t B) {
      uint64_t R = B == 0 ? 1 : 0;
      for (unsigned P : Blocks[B].Predecessors)
        R |= Out[P];
      return R;
    };
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (size_t B = 0; B < Blocks.size(); ++B) {
        uint64_t R = In(B);
        for (const BinaryInstruction &I : Blocks[B].Instructions)
          if (auto It = DefOf.find(&I); It != DefOf.end())
            R = (Keeps(I) ? R : 0) | uint64_t(1) << It->second;
        Changed |= R != Out[B];
        Out[B] = R;
      }
    }
    // Each use joins the definitions that reach it.
    auto Join = [&](uint64_t R) -> std::optional<unsigned> {
      std::optional<unsigned> First;
      for (unsigned D = 0; D < W.Parent.size(); ++D)
        if (R >> D & 1) {
          if (First)
            W.join(D, *First);
          else
            First = D;
        }
      return First;
    };
    std::vector<std::optional<unsigned>> ExitWebs;
    for (size_t B = 0; B < Blocks.size(); ++B) {
      uint64_t R = In(B);
      for (const BinaryInstruction &I : Blocks[B].Instructions) {
        const MCInstrDesc &D = MC.desc(I.Inst.getOpcode());
        for (unsigned K = D.getNumDefs(); K < I.Inst.getNumOperands(); ++K) {
          const MCOperand &Op = I.Inst.getOperand(K);
          if (Op.isReg() && A.unitsOf(Op.getReg().id()).testUnit(U))
            if (std::optional<unsigned> Web = Join(R))
              OperandWebs[{I.address(), K}].push_back({U, *Web});
        }
        auto It = DefOf.find(&I);
        if (It == DefOf.end())
          continue;
        if (Keeps(I))
          if (std::optional<unsigned> Old = Join(R))
            W.join(It->second, *Old);
        // The write, by its operand; one written otherwise (implicitly)
        // cannot be renamed.
        bool Named = false;
        for (unsigned K = 0; K < D.getNumDefs(); ++K) {
          const MCOperand &Op = I.Inst.getOperand(K);
          if (Op.isReg() && A.unitsOf(Op.getReg().id()).testUnit(U)) {
            OperandWebs[{I.address(), K}].push_back({U, It->second});
            Named = true;
          }
        }
        if (!Named)
          OperandWebs[{I.address(), ~0u}].push_back({U, It->second});
        R = (Keeps(I) ? R : 0) | uint64_t(1) << It->second;
      }
      if (Results.testUnit(U) && Blocks[B].last().Props.isReturn())
        ExitWebs.push_back(Join(R));
    }
    // The webs renamed: the value passed's; for a result, the values
    // returned too. A parameter passed to the body is renamed only if its
    // web holds no write of the body (the source must keep its value).
    std::vector<unsigned> &Mine = Renamed[U];
    Mine.push_back(W.find(0));
    if (Results.testUnit(U)) {
      for (std::optional<unsigned> E : ExitWebs)
        if (E)
          Mine.push_back(W.find(*E));
    } else {
      for (unsigned D = 1; D < W.Parent.size(); ++D)
        if (W.find(D) == Mine[0])
          Mixed.setUnit(U);
    }
  });
  // Operands whose every parameter unit is in a renamed web; a parameter
  // in an operand that is not, or in an implicit write or one side of a
  // tied pair renamed alone, is not renamed.
  auto InRenamed = [&](unsigned U, unsigned Web) {
    return llvm::is_contained(Renamed[U], Sets[U].find(Web));
  };
  std::map<uint64_t, uint64_t> Entry;
  for (const BinaryBasicBlock &B : Blocks)
    for (const BinaryInstruction &I : B.Instructions) {
      uint64_t Mask = 0;
      const MCInstrDesc &D = MC.desc(I.Inst.getOpcode());
      for (unsigned K = 0; K < I.Inst.getNumOperands(); ++K) {
        auto It = OperandWebs.find({I.address(), K});
        if (It == OperandWebs.end())
          continue;
        bool All = true, Any = false;
        for (auto [U, Web] : It->second) {
          bool R = InRenamed(U, Web);
          All &= R;
          Any |= R;
        }
        if (All && K < 64)
          Mask |= uint64_t(1) << K;
        else if (Any)
          for (auto [U, Web] : It->second)
            if (InRenamed(U, Web))
              Mixed.setUnit(U);
      }
      if (auto It = OperandWebs.find({I.address(), ~0u}); It != OperandWebs.end())
        for (auto [U, Web] : It->second)
          if (InRenamed(U, Web))
            Mixed.setUnit(U);
      for (unsigned K = 0; K < I.Inst.getNumOperands(); ++K) {
        int Tied = D.getOperandConstraint(K, MCOI::TIED_TO);
        if (Tied < 0 || bool(Mask >> K & 1) == bool(Mask >> Tied & 1))
          continue;
        for (unsigned Op : {K, unsigned(Tied)})
          if (auto It = OperandWebs.find({I.address(), Op});
              It != OperandWebs.end())
            for (auto [U, Web] : It->second)
              if (InRenamed(U, Web))
                Mixed.setUnit(U);
      }
      Entry[I.address()] = Mask;
    }
  return Entry;
}

const Rename *BodyPlacement::renameOf(unsigned U) const {
  auto It = llvm::partition_point(Renames,
                                  [&](const Rename &R) { return R.From < U; });
  return It != Renames.end() && It->From == U ? &*It : nullptr;
}

unsigned BodyPlacement::unit(unsigned U, bool InWeb) const {
  if (const Rename *R = renameOf(U); R && InWeb)
    return R->To;
  if (U < RegisterSet::VgprBase)
    return U + SgprShift;
  if (U < RegisterSet::AgprBase)
    return U + VgprShift;
  return U;
}

RegisterSet BodyPlacement::sources() const {
  RegisterSet S;
  for (const Rename &R : Renames)
    S.setUnit(R.To);
  return S;
}

RegisterSet bodyWrites(const InstrAnalyzer &A, ArrayRef<MCInst> Insts) {
  RegisterSet W;
  for (const MCInst &I : Insts)
    W |= A.analyze(I).Writes;
  return W;
}

namespace {

/// What register operand \p K of \p Inst (register \p Reg) becomes under
/// \p P, if it has a place; \p InWeb: it is in its parameters' webs.
std::optional<unsigned> placeRegister(const InstrAnalyzer &A,
                                      const MCInst &Inst, unsigned K,
                                      unsigned Reg, bool InWeb,
                                      const BodyPlacement &P) {
  isa::McContext &MC = A.mc();
  const RegisterSet &Units = A.unitsOf(Reg);
  bool Renamed = false;
  Units.forEachUnit([&](unsigned U) {
    Renamed |= P.unit(U, InWeb) !=
               BodyPlacement{P.SgprShift, P.VgprShift, {}}.unit(U, false);
  });
  if (!Renamed)
    return MC.renumbered(Reg, P.SgprShift, P.VgprShift);
  // The units it becomes, in the order of its own: a tuple stays a tuple
  // of the same halves in the same order.
  RegisterSet To;
  std::optional<unsigned> Last;
  bool InOrder = true;
  Units.forEachUnit([&](unsigned U) {
    unsigned New = P.unit(U, InWeb);
    InOrder &= !Last || New > *Last;
    Last = New;
    To.setUnit(New);
  });
  if (!InOrder)
    return std::nullopt;
  // A register of the operand's class with exactly those units.
  const MCInstrDesc &D = MC.desc(Inst.getOpcode());
  if (K >= D.getNumOperands())
    return std::nullopt;
  int16_t RC = MC.instrInfo().getOpRegClassID(
      D.operands()[K],
      MC.subtargetInfo().getHwMode(MCSubtargetInfo::HwMode_RegInfo));
  if (RC < 0)
    return std::nullopt;
  // Each unit set is one register, but for M0: codegen's M0, which encodes
  // as s0, and the encodings before and from gfx11 (M0_gfxpre11,
  // M0_gfx11plus): take the one the disassembler and the assembler give
  // this target.
  StringRef Cpu = MC.processor();
  StringRef M0 = Cpu.starts_with("gfx1") && Cpu.size() > 5 && Cpu[4] >= '1'
                     ? "M0_gfx11plus"
                     : "M0_gfxpre11";
  for (MCPhysReg R : MC.registerInfo().getRegClass(RC)) {
    if (A.unitsOf(R) != To)
      continue;
    StringRef Name = MC.registerInfo().getName(R);
    if (!Name.starts_with("M0") || Name == M0)
      return R;
  }
  return std::nullopt;
}

bool inWeb(uint64_t Entry, unsigned K) { return K < 64 && (Entry >> K & 1); }

/// The renamed units of the register operands of \p Insts that have no
/// place under \p P.
RegisterSet unplaceable(const InstrAnalyzer &A, ArrayRef<MCInst> Insts,
                        const ParamReads &Reads, const BodyPlacement &P) {
  RegisterSet Renamed, Bad;
  for (const Rename &R : P.Renames)
    Renamed.setUnit(R.From);
  for (size_t N = 0; N < Insts.size(); ++N) {
    const MCInst &I = Insts[N];
    for (unsigned K = 0; K < I.getNumOperands(); ++K) {
      const MCOperand &Op = I.getOperand(K);
      if (!Op.isReg())
        continue;
      const RegisterSet &Units = A.unitsOf(Op.getReg().id());
      if (Units.intersects(Renamed) &&
          !placeRegister(A, I, K, Op.getReg().id(),
                         inWeb(Reads.Entry[N], K), P))
        Bad |= Units;
    }
  }
  return Bad &= Renamed;
}

} // namespace

BodyPlacement placeBody(const InstrAnalyzer &A, ArrayRef<MCInst> Insts,
                        const ParamReads &Reads, const RegisterSet &Writes,
                        unsigned SgprShift, unsigned VgprShift,
                        ArrayRef<ParamSource> Params) {
  BodyPlacement P{SgprShift, VgprShift, {}};
  // What the body writes, and every register it names, shifted only.
  RegisterSet Named = Writes;
  for (const MCInst &I : Insts)
    for (const MCOperand &Op : I)
      if (Op.isReg())
        Named |= A.unitsOf(Op.getReg().id());
  RegisterSet WrittenAt = Writes.shifted(SgprShift, VgprShift),
              NamedAt = Named.shifted(SgprShift, VgprShift);

  std::vector<const ParamSource *> Chosen;
  for (const ParamSource &S : Params) {
    if (!S.Source || WrittenAt.testUnit(*S.Source))
      continue;
    // A counter returned into is updated in place: the body must name its
    // register no other way.
    if (Reads.Mixed.testUnit(S.Param) || (S.Result && NamedAt.testUnit(*S.Source)))
      continue;
    Chosen.push_back(&S);
  }
  // Dropping one rename can end others (its register is copied into
  // again): until none changes.
  for (;;) {
    P.Renames.clear();
    for (const ParamSource *S : Chosen)
      P.Renames.push_back({S->Param, *S->Source, S->Result});
    llvm::sort(P.Renames);
    RegisterSet Copied, Returned;
    for (const ParamSource &S : Params)
      if (!llvm::is_contained(Chosen, &S))
        Copied.setUnit(P.unit(S.Param, false));
    for (const ParamSource *S : Chosen)
      if (S->Result)
        Returned.setUnit(*S->Source);
    RegisterSet Bad = unplaceable(A, Insts, Reads, P);
    size_t Before = Chosen.size();
    llvm::erase_if(Chosen, [&](const ParamSource *S) {
      return Bad.testUnit(S->Param) || Copied.testUnit(*S->Source) ||
             (!S->Result && Returned.testUnit(*S->Source));
    });
    if (Chosen.size() == Before)
      return P;
  }
}

bool placeInstruction(const InstrAnalyzer &A, MCInst &Inst, uint64_t Entry,
                      const BodyPlacement &P) {
  for (unsigned K = 0; K < Inst.getNumOperands(); ++K) {
    MCOperand &Op = Inst.getOperand(K);
    if (!Op.isReg())
      continue;
    std::optional<unsigned> R =
        placeRegister(A, Inst, K, Op.getReg().id(), inWeb(Entry, K), P);
    if (!R)
      return false;
    Op.setReg(*R);
  }
  return true;
}

namespace {

const std::pair<unsigned, uint32_t> *foldOf(const Folds &F, unsigned U) {
  auto It = llvm::partition_point(F, [&](auto &V) { return V.first < U; });
  return It != F.end() && It->first == U ? &*It : nullptr;
}

/// The folded parameter operand \p K of \p Inst reads (in its webs, as
/// \p Entry says), if it reads one alone; a tuple with one in it: none.
std::optional<unsigned> foldedParam(const InstrAnalyzer &A,
                                    const llvm::MCInst &Inst, unsigned K,
                                    uint64_t Entry, const Folds &F) {
  const MCOperand &Op = Inst.getOperand(K);
  if (!Op.isReg() || !inWeb(Entry, K))
    return std::nullopt;
  const RegisterSet &Units = A.unitsOf(Op.getReg().id());
  if (Units.count() != 1)
    return std::nullopt;
  std::optional<unsigned> Param;
  Units.forEachUnit([&](unsigned U) {
    if (foldOf(F, U))
      Param = U;
  });
  return Param;
}

/// Whether \p Inst, with immediates where registers were, is an
/// instruction the target runs as such: each immediate an inline integer
/// constant, or a literal in a scalar ALU instruction; it encodes, and
/// decodes back to itself.
bool takesImmediates(isa::McContext &MC, const MCInst &Inst,
                     ArrayRef<unsigned> Folded) {
  const MCInstrDesc &D = MC.desc(Inst.getOpcode());
  bool Literal = false;
  for (unsigned K : Folded) {
    if (K >= D.getNumOperands() ||
        D.operands()[K].OperandType < MCOI::OPERAND_FIRST_TARGET)
      return false;
    int64_t V = Inst.getOperand(K).getImm();
    Literal |= V < -16 || V > 64;
  }
  SmallVector<char, 16> Bytes;
  if (Error E = MC.encode(Inst, Bytes)) {
    consumeError(std::move(E));
    return false;
  }
  // SOP1, SOP2 and SOPC (and SOPK and SOPP, which take no register
  // operand an immediate could replace) start 0b10.
  if (Literal && (Bytes.size() < 4 || (uint8_t(Bytes[3]) >> 6) != 2))
    return false;
  MCInst Back;
  ArrayRef<uint8_t> Words(reinterpret_cast<const uint8_t *>(Bytes.data()),
                          Bytes.size());
  isa::McContext::DecodeResult R = MC.decode(Words, 0, Back);
  if (!R.Valid || R.Size != Bytes.size() ||
      Back.getOpcode() != Inst.getOpcode() ||
      Back.getNumOperands() != Inst.getNumOperands())
    return false;
  for (unsigned K = 0; K < Inst.getNumOperands(); ++K) {
    const MCOperand &A = Inst.getOperand(K), &B = Back.getOperand(K);
    if (A.isReg() ? !B.isReg() || A.getReg() != B.getReg()
        : A.isImm() ? !B.isImm() || uint32_t(A.getImm()) != uint32_t(B.getImm())
                    : true)
      return false;
  }
  return true;
}

} // namespace

bool foldInstruction(const InstrAnalyzer &A, MCInst &Inst, uint64_t Entry,
                     const Folds &F) {
  bool Any = false;
  for (unsigned K = 0; K < Inst.getNumOperands(); ++K)
    if (std::optional<unsigned> U = foldedParam(A, Inst, K, Entry, F)) {
      Inst.getOperand(K) = MCOperand::createImm(int32_t(foldOf(F, *U)->second));
      Any = true;
    }
  return Any;
}

Folds foldImmediates(const InstrAnalyzer &A, ArrayRef<MCInst> Insts,
                     const ParamReads &Reads, const BodyPlacement &P,
                     ArrayRef<std::pair<unsigned, uint32_t>> Immediates) {
  Folds Out;
  for (auto [Param, Value] : Immediates) {
    if (Reads.Mixed.testUnit(Param) || P.renamed(Param))
      continue;
    Folds With = Out;
    With.insert(llvm::upper_bound(With, std::make_pair(Param, Value)),
                {Param, Value});
    RegisterSet Only;
    Only.setUnit(Param);
    bool Fits = true;
    for (size_t N = 0; N < Insts.size() && Fits; ++N) {
      const MCInst &I = Insts[N];
      // Every operand with the value passed holds it alone.
      bool Uses = false;
      for (unsigned K = 0; K < I.getNumOperands() && Fits; ++K) {
        const MCOperand &Op = I.getOperand(K);
        if (!Op.isReg() || !inWeb(Reads.Entry[N], K) ||
            !A.unitsOf(Op.getReg().id()).testUnit(Param))
          continue;
        Uses = true;
        Fits = foldedParam(A, I, K, Reads.Entry[N], With) == Param;
      }
      if (!Fits)
        break;
      if (!Uses)
        continue;
      SmallVector<unsigned, 2> Folded;
      for (unsigned K = 0; K < I.getNumOperands(); ++K)
        if (foldedParam(A, I, K, Reads.Entry[N], With))
          Folded.push_back(K);
      MCInst Placed = I;
      foldInstruction(A, Placed, Reads.Entry[N], With);
      Fits = placeInstruction(A, Placed, Reads.Entry[N], P) &&
             takesImmediates(A.mc(), Placed, Folded);
    }
    if (Fits)
      Out = std::move(With);
  }
  return Out;
}

RegisterSet placedClobbers(const RegisterSet &Clobbers,
                           const RegisterSet &Writes, const BodyPlacement &P,
                           const Folds &F) {
  RegisterSet Out;
  Clobbers.forEachUnit([&](unsigned U) {
    if ((P.renamed(U) || foldOf(F, U)) && !Writes.testUnit(U))
      return; // nothing writes it
    unsigned To = P.unit(U, false);
    if (To < RegisterSet::NumUnits)
      Out.setUnit(To);
  });
  return Out;
}

} // namespace loom::instrument::detail
