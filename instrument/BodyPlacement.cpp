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

std::map<uint64_t, uint64_t> paramReads(const BinaryFunction &F,
                                        const RegisterSet &Params,
                                        RegisterSet &Mixed) {
  // Forward over the CFG: parameters written on every path (Must) and on
  // some path (May) from the start. A VGPR write may leave lanes (those
  // EXEC had off) as they were: it is never a write on every path.
  ArrayRef<BinaryBasicBlock> Blocks = F.blocks();
  std::vector<RegisterSet> MustOut(Blocks.size(), Params),
      MayOut(Blocks.size());
  auto In = [&](size_t B, RegisterSet &Must, RegisterSet &May) {
    Must = B == 0 ? RegisterSet() : Params;
    May = RegisterSet();
    for (unsigned P : Blocks[B].Predecessors) {
      if (B != 0)
        Must &= MustOut[P];
      May |= MayOut[P];
    }
  };
  auto Step = [&](const BinaryInstruction &I, RegisterSet &Must,
                  RegisterSet &May) {
    RegisterSet W = I.Props.Writes;
    W &= Params;
    May |= W;
    Must |= W.withoutVector();
  };
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (size_t B = 0; B < Blocks.size(); ++B) {
      RegisterSet Must, May;
      In(B, Must, May);
      for (const BinaryInstruction &I : Blocks[B].Instructions)
        Step(I, Must, May);
      Changed |= Must != MustOut[B] || May != MayOut[B];
      MustOut[B] = Must;
      MayOut[B] = May;
    }
  }
  std::map<uint64_t, uint64_t> Entry;
  const InstrAnalyzer &A = F.context().analyzer();
  for (size_t B = 0; B < Blocks.size(); ++B) {
    RegisterSet Must, May;
    In(B, Must, May);
    for (const BinaryInstruction &I : Blocks[B].Instructions) {
      const MCInstrDesc &D = A.mc().desc(I.Inst.getOpcode());
      uint64_t Mask = 0;
      for (unsigned K = D.getNumDefs(); K < I.Inst.getNumOperands(); ++K) {
        const MCOperand &Op = I.Inst.getOperand(K);
        if (!Op.isReg())
          continue;
        RegisterSet Units = A.unitsOf(Op.getReg().id());
        Units &= Params;
        if (Units.empty())
          continue;
        RegisterSet Passed = Units, Written = Units;
        Passed.subtract(Must);
        Written &= May;
        // Only the value passed, and not one side of a tied pair (one
        // register field in the encoding).
        if (Passed == Units && Written.empty() && K < 64 &&
            D.getOperandConstraint(K, MCOI::TIED_TO) < 0)
          Mask |= uint64_t(1) << K;
        else if (!Passed.empty())
          Mixed |= Units;
      }
      Entry[I.address()] = Mask;
      Step(I, Must, May);
    }
  }
  return Entry;
}

const Rename *BodyPlacement::renameOf(unsigned U) const {
  auto It = llvm::partition_point(Renames,
                                  [&](const Rename &R) { return R.From < U; });
  return It != Renames.end() && It->From == U ? &*It : nullptr;
}

unsigned BodyPlacement::unit(unsigned U, bool EntryRead) const {
  if (const Rename *R = renameOf(U); R && (EntryRead || R->InPlace))
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
/// \p P, if it has a place; \p EntryRead: it reads parameters as passed.
std::optional<unsigned> placeRegister(const InstrAnalyzer &A,
                                      const MCInst &Inst, unsigned K,
                                      unsigned Reg, bool EntryRead,
                                      const BodyPlacement &P) {
  isa::McContext &MC = A.mc();
  const RegisterSet &Units = A.unitsOf(Reg);
  bool Renamed = false;
  Units.forEachUnit([&](unsigned U) {
    Renamed |= P.unit(U, EntryRead) !=
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
    unsigned New = P.unit(U, EntryRead);
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
  for (MCPhysReg R : MC.registerInfo().getRegClass(RC))
    if (A.unitsOf(R) == To)
      return R;
  return std::nullopt;
}

bool entryRead(uint64_t Entry, unsigned K) { return K < 64 && (Entry >> K & 1); }

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
                         entryRead(Reads.Entry[N], K), P))
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
    if (S.Result ? NamedAt.testUnit(*S.Source) : Reads.Mixed.testUnit(S.Param))
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
        placeRegister(A, Inst, K, Op.getReg().id(), entryRead(Entry, K), P);
    if (!R)
      return false;
    Op.setReg(*R);
  }
  return true;
}

RegisterSet placedClobbers(const RegisterSet &Clobbers,
                           const RegisterSet &Writes, const BodyPlacement &P) {
  RegisterSet Out;
  Clobbers.forEachUnit([&](unsigned U) {
    const Rename *R = P.renameOf(U);
    if (R && (R->InPlace || !Writes.testUnit(U)))
      return;
    unsigned To = P.unit(U, false);
    if (To < RegisterSet::NumUnits)
      Out.setUnit(To);
  });
  return Out;
}

} // namespace loom::instrument::detail
