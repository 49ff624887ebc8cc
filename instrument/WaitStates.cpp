//===- instrument/WaitStates.cpp - Software-managed hazards ---------------===//

#include "loom/instrument/WaitStates.h"

#include "loom/isa/McContext.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace llvm;

namespace loom::instrument {

namespace {

/// The RegisterSet unit of 32-bit scalar register \p Reg (an SGPR or a
/// half of VCC); -1 for anything else.
int scalarUnit(isa::McContext &MC, unsigned Reg) {
  std::optional<unsigned> Code = MC.scalarCode(Reg);
  if (!Code)
    return -1;
  if (*Code == isa::McContext::VccLoCode)
    return RegisterSet::SpecialBase + unsigned(SpecialReg::VccLo);
  if (*Code == isa::McContext::VccHiCode)
    return RegisterSet::SpecialBase + unsigned(SpecialReg::VccHi);
  return *Code < RegisterSet::NumSgprs ? int(RegisterSet::SgprBase + *Code)
                                       : -1;
}

/// SGPRs and VCC: what "VALU writes SGPR" covers.
RegisterSet sgprsAndVcc(const RegisterSet &S) {
  RegisterSet Out = S.withoutVector();
  for (SpecialReg R :
       {SpecialReg::ExecLo, SpecialReg::ExecHi, SpecialReg::Scc, SpecialReg::M0,
        SpecialReg::FlatScratchLo, SpecialReg::FlatScratchHi, SpecialReg::Mode})
    if (Out.has(R))
      Out.subtract(RegisterSet().add(R));
  return Out;
}

bool writesExec(const RegisterSet &S) {
  return S.has(SpecialReg::ExecLo) || S.has(SpecialReg::ExecHi);
}

constexpr HazardRule Rules[] = {
    {"VALU writes an SGPR or VCC", "VMEM reads it", 5, false},
    {"VALU writes an SGPR or VCC",
     "v_readlane/v_writelane selects the lane with it", 4, false},
    {"VALU writes VCC", "v_div_fmas", 4, false},
    {"VALU writes EXEC", "DPP operation", 5, false},
    {"VALU writes a VGPR", "DPP operation reads it", 2, false},
    {"VALU writes a VGPR", "MFMA reads it", 2, false},
    {"VALU writes EXEC", "MFMA", 4, false},
    {"v_dot writes a VGPR",
     "another VALU or a memory instruction reads or writes it", 3, false},
    {"SALU writes M0",
     "s_movrel, s_sendmsg, GDS, LDS DMA or add-TID, v_movrel, v_interp", 1,
     false},
    {"VMEM store of more than 8 bytes", "VALU writes its data VGPRs", 1, false},
    {"MFMA writes a VGPR or AGPR", "a non-MFMA reads or writes it",
     MaxHazardWaitStates, false},
    {"MFMA reads a VGPR or AGPR (in flight)", "a non-MFMA VALU writes it", 15,
     false},
    {"s_setreg", "s_getreg or s_setreg", 2, false},
    {"VALU writes an SGPR or VCC", "VALU reads it", 2, true},
    {"VALU writes EXEC", "v_readlane/v_readfirstlane/v_writelane", 4, true},
    {"VALU writes a VGPR", "v_readlane/v_readfirstlane reads it", 1, true},
    {"transcendental VALU writes a VGPR", "non-transcendental VALU reads it", 1,
     true},
};

/// Wait states rule by rule between producer \p P and consumer \p C.
unsigned required(const HazardInst &P, const HazardInst &C, HazardTarget T) {
  unsigned R = 0;
  auto Need = [&](unsigned W) { R = std::max(R, W); };
  if (P.isValu()) {
    RegisterSet S = sgprsAndVcc(P.Writes);
    RegisterSet V = P.Writes.vectorOnly();
    if (C.isVmem() && S.intersects(C.Reads))
      Need(5);
    if (C.LaneSelect >= 0 && S.testUnit(C.LaneSelect))
      Need(4);
    if (C.DivFmas &&
        (P.Writes.has(SpecialReg::VccLo) || P.Writes.has(SpecialReg::VccHi)))
      Need(4);
    if (C.Dpp && writesExec(P.Writes))
      Need(5);
    if (C.Dpp && V.intersects(C.Reads))
      Need(2);
    if (C.Mfma && !P.Mfma && V.intersects(C.Reads))
      Need(2);
    if (C.Mfma && !P.Mfma && writesExec(P.Writes))
      Need(4);
    if (P.Dot && (C.isValu() || C.isVmem() || C.U == HazardInst::Unit::Lds) &&
        (V.intersects(C.Reads) || V.intersects(C.Writes)))
      Need(3);
    if (P.Mfma && !C.Mfma && (V.intersects(C.Reads) || V.intersects(C.Writes)))
      Need(MaxHazardWaitStates);
    if (P.Mfma && !C.Mfma && C.isValu() &&
        P.Reads.vectorOnly().intersects(C.Writes))
      Need(15);
    if (T.Gfx94x) {
      if (C.isValu() && S.intersects(C.Reads))
        Need(2);
      if (C.RwLane && writesExec(P.Writes))
        Need(4);
      if (C.ReadLane && V.intersects(C.Reads))
        Need(1);
      if (P.Trans && !C.Trans && C.isValu() && V.intersects(C.Reads))
        Need(1);
    }
  }
  if (P.U == HazardInst::Unit::Salu && P.Writes.has(SpecialReg::M0) &&
      C.ReadsM0Late)
    Need(1);
  if (P.WideStore && C.isValu() && P.Reads.vectorOnly().intersects(C.Writes))
    Need(1);
  if (P.SetReg && (C.GetReg || C.SetReg))
    Need(2);
  return R;
}

} // namespace

HazardTarget HazardTarget::of(StringRef Processor) {
  return {Processor.starts_with("gfx94") || Processor.starts_with("gfx95")};
}

ArrayRef<HazardRule> hazardRules() { return Rules; }

HazardInst describeHazards(isa::McContext &MC, const MCInst &I,
                           const InstrProperties &P) {
  HazardInst H;
  StringRef Name = MC.opcodeBaseName(I.getOpcode());
  H.Reads = P.Reads;
  H.Writes = P.Writes;
  switch (P.Memory) {
  case MemoryKind::Global:
  case MemoryKind::Flat:
  case MemoryKind::Scratch:
  case MemoryKind::Buffer:
    H.U = HazardInst::Unit::Vmem;
    H.WideStore = P.MayStore && P.AccessBytes > 8;
    break;
  case MemoryKind::Lds:
    H.U = HazardInst::Unit::Lds;
    break;
  case MemoryKind::Scalar:
    H.U = HazardInst::Unit::Smem;
    break;
  case MemoryKind::None:
    H.U = Name.starts_with("V_") ? HazardInst::Unit::Valu
                                 : HazardInst::Unit::Salu;
    break;
  }
  // Opcode-name families the properties do not carry (SIInstrFlags, which
  // would, are not public).
  std::string Lower = Name.lower();
  StringRef L(Lower);
  H.Dpp = L.contains("_dpp");
  H.Mfma = L.starts_with("v_mfma") || L.starts_with("v_smfmac");
  H.Dot = L.starts_with("v_dot");
  H.Trans = any_of(ArrayRef<StringRef>{"v_exp_", "v_log_", "v_rcp_", "v_rsq_",
                                       "v_sqrt_", "v_sin_", "v_cos_"},
                   [&](StringRef Prefix) { return L.starts_with(Prefix); });
  H.DivFmas = L.starts_with("v_div_fmas");
  bool ReadLane =
      L.starts_with("v_readlane_b32") || L.starts_with("v_readfirstlane_b32");
  H.RwLane = ReadLane || L.starts_with("v_writelane_b32");
  if (H.RwLane && !L.starts_with("v_readfirstlane") && I.getNumOperands() > 2 &&
      I.getOperand(2).isReg())
    H.LaneSelect = scalarUnit(MC, I.getOperand(2).getReg().id());
  H.ReadLane = ReadLane;
  H.ReadsM0Late = P.Reads.has(SpecialReg::M0) &&
                  (H.U != HazardInst::Unit::Salu || L.starts_with("s_movrel") ||
                   L.starts_with("s_sendmsg"));
  H.SetReg = L.starts_with("s_setreg");
  H.GetReg = L.starts_with("s_getreg");
  if (L == "s_nop" && I.getNumOperands() && I.getOperand(0).isImm())
    H.WaitStates = unsigned(I.getOperand(0).getImm() & 0xf) + 1;
  return H;
}

unsigned waitStatesNeeded(const HazardSteps &Before, const HazardSteps &After,
                          HazardTarget T) {
  auto Fewest = [](ArrayRef<const HazardInst *> Step) {
    unsigned W = ~0u;
    for (const HazardInst *I : Step)
      W = std::min(W, I->WaitStates);
    return Step.empty() ? 0u : W;
  };
  unsigned Need = 0, Back = 0;
  for (const auto &Producers : Before) {
    if (Back >= MaxHazardWaitStates)
      break;
    unsigned Ahead = 0;
    for (const auto &Consumers : After) {
      unsigned Distance = Back + Ahead;
      if (Distance >= MaxHazardWaitStates)
        break;
      for (const HazardInst *P : Producers)
        for (const HazardInst *C : Consumers) {
          unsigned R = required(*P, *C, T);
          if (R > Distance)
            Need = std::max(Need, R - Distance);
        }
      Ahead += Fewest(Consumers);
    }
    Back += Fewest(Producers);
  }
  return Need;
}

HazardSteps hazardSteps(ArrayRef<HazardInst> Insts, bool Reversed) {
  HazardSteps Steps;
  for (const HazardInst &I : Insts)
    Steps.push_back({&I});
  if (Reversed)
    std::reverse(Steps.begin(), Steps.end());
  return Steps;
}

unsigned waitStatesNeeded(ArrayRef<HazardInst> Before, const HazardInst &Next,
                          HazardTarget T) {
  return waitStatesNeeded(hazardSteps(Before, true), {{&Next}}, T);
}

std::string nopsFor(unsigned WaitStates) {
  std::string S;
  for (; WaitStates; WaitStates -= std::min(WaitStates, 16u))
    S += "\ts_nop " + std::to_string(std::min(WaitStates, 16u) - 1) + "\n";
  return S;
}

} // namespace loom::instrument
