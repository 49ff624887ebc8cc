//===- instrument/SeamHazards.cpp - Inserted code as the rules see it -----===//

#include "SeamHazards.h"

namespace loom::instrument::detail {

BodyHazards bodyHazards(const BinaryContext &BC, const CompiledPoint &P,
                        const BodyPlacement &Place,
                        const RegisterSet &Clobbers) {
  BodyHazards B;
  if (!P.Insts) {
    HazardInst Unknown;
    Unknown.U = HazardInst::Unit::Valu;
    Unknown.Dpp = Unknown.RwLane = true;
    Unknown.Reads.addExec();
    Unknown.Writes = Clobbers;
    Unknown.WaitStates = 0;
    B.Head = B.Tail = {Unknown};
    return B;
  }
  const std::vector<llvm::MCInst> &Insts = *P.Insts;
  // The instructions as placed (the glue could not splice them
  // otherwise).
  auto Describe = [&](size_t K) {
    llvm::MCInst I = Insts[K];
    placeInstruction(BC.analyzer(), I, P.Reads->Entry[K], Place);
    return describeHazards(BC.mc(), I, BC.analyzer().analyze(I));
  };
  size_t N = Insts.size(), Look = MaxHazardWaitStates;
  for (size_t I = 0; I < std::min(N, Look); ++I)
    B.Head.push_back(Describe(I));
  for (size_t I = N > Look ? N - Look : 0; I < N; ++I)
    B.Tail.push_back(Describe(I));
  return B;
}

std::vector<HazardInst> glueHead(const RegisterSet &Touched, bool Lanes,
                                 const BodyHazards &Body) {
  HazardInst Glue;
  Glue.U = HazardInst::Unit::Valu;
  Glue.Reads = Lanes ? Touched : Touched.vectorOnly();
  Glue.Reads.addExec();
  Glue.Writes = Touched.vectorOnly(); // argument moves, VGPR saves
  Glue.RwLane = Lanes;
  Glue.WaitStates = 0;
  std::vector<HazardInst> Out = {Glue};
  Out.insert(Out.end(), Body.Head.begin(), Body.Head.end());
  return Out;
}

std::vector<HazardInst> argumentWrites(const CompiledPoint &P,
                                       unsigned VgprShift) {
  if (P.VgprInputs.empty())
    return {};
  HazardInst Moves;
  Moves.U = HazardInst::Unit::Valu;
  Moves.Writes.addVgprs(VgprShift, P.VgprInputs.size());
  return {Moves};
}

std::vector<HazardInst> glueTail(const BodyHazards &Body,
                                 const RegisterSet &RestoredVgprs,
                                 bool RestoresM0, bool LaneNop) {
  std::vector<HazardInst> Path = Body.Tail;
  if (!RestoredVgprs.empty()) {
    HazardInst Copy;
    Copy.U = HazardInst::Unit::Valu;
    Copy.Writes = RestoredVgprs;
    Path.push_back(Copy);
  }
  if (RestoresM0) {
    HazardInst M0;
    M0.Writes.add(SpecialReg::M0);
    Path.push_back(M0);
  }
  if (LaneNop) {
    HazardInst Nop;
    Nop.WaitStates = 5;
    Path.push_back(Nop);
  }
  return Path;
}

} // namespace loom::instrument::detail
