//===- instrument/InstrProperties.cpp - What one instruction does ---------===//

#include "loom/instrument/InstrProperties.h"

#include "loom/isa/McContext.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstrDesc.h"
#include "llvm/MC/MCRegisterInfo.h"

#include <map>

#include <mutex>

using namespace llvm;

namespace loom::instrument {

StringRef memoryKindName(MemoryKind K) {
  switch (K) {
  case MemoryKind::None:
    return "none";
  case MemoryKind::Global:
    return "global";
  case MemoryKind::Flat:
    return "flat";
  case MemoryKind::Scratch:
    return "scratch";
  case MemoryKind::Lds:
    return "lds";
  case MemoryKind::Scalar:
    return "scalar";
  case MemoryKind::Buffer:
    return "buffer";
  }
  llvm_unreachable("unknown memory kind");
}

StringRef memoryDirectionName(MemoryDirection D) {
  switch (D) {
  case MemoryDirection::None:
    return "none";
  case MemoryDirection::Load:
    return "load";
  case MemoryDirection::Store:
    return "store";
  case MemoryDirection::Atomic:
    return "atomic";
  }
  llvm_unreachable("unknown memory direction");
}

/// The unit of a 32-bit (or 16-bit half) register name, if it has one:
/// "SGPR4", "VGPR7_HI16", "EXEC_LO", "M0".
static std::optional<unsigned> unitOfName(StringRef Name) {
  // Encoding variants ("M0_gfxpre11") and 16-bit halves name the same unit.
  Name.consume_back("_gfxpre11") || Name.consume_back("_gfx11plus");
  Name.consume_back("_LO16") || Name.consume_back("_HI16");
  auto Indexed = [&](StringRef Prefix, unsigned Base,
                     unsigned Limit) -> std::optional<unsigned> {
    StringRef Rest = Name;
    unsigned N;
    if (Rest.consume_front(Prefix) && !Rest.getAsInteger(10, N) && N < Limit)
      return Base + N;
    return std::nullopt;
  };
  if (auto U = Indexed("SGPR", RegisterSet::SgprBase, RegisterSet::NumSgprs))
    return U;
  if (auto U = Indexed("VGPR", RegisterSet::VgprBase, RegisterSet::NumVgprs))
    return U;
  if (auto U = Indexed("AGPR", RegisterSet::AgprBase, RegisterSet::NumAgprs))
    return U;
  std::optional<SpecialReg> S = StringSwitch<std::optional<SpecialReg>>(Name)
                                    .Case("EXEC_LO", SpecialReg::ExecLo)
                                    .Case("EXEC_HI", SpecialReg::ExecHi)
                                    .Case("VCC_LO", SpecialReg::VccLo)
                                    .Case("VCC_HI", SpecialReg::VccHi)
                                    .Case("SCC", SpecialReg::Scc)
                                    .Case("M0", SpecialReg::M0)
                                    .Case("FLAT_SCR_LO", SpecialReg::FlatScratchLo)
                                    .Case("FLAT_SCR_HI", SpecialReg::FlatScratchHi)
                                    .Case("MODE", SpecialReg::Mode)
                                    .Default(std::nullopt);
  if (S)
    return RegisterSet::SpecialBase + static_cast<unsigned>(*S);
  return std::nullopt;
}

InstrAnalyzer::InstrAnalyzer(isa::McContext &MC) : MC(MC) {
  const MCRegisterInfo &MRI = MC.registerInfo();
  // The register names are TableGen'd static data: their address names
  // the target. Building the table walks every register tuple, so it is
  // done once, and each register's name is read once, not once per tuple
  // that covers it (which took 20 ms of a process's first copy).
  static std::mutex Lock;
  static std::map<const char *, std::shared_ptr<const std::vector<RegisterSet>>>
      Built;
  std::lock_guard<std::mutex> L(Lock);
  auto &Slot = Built[MRI.getName(1)];
  if (!Slot) {
    unsigned N = MRI.getNumRegs();
    std::vector<std::optional<unsigned>> UnitOf(N);
    for (unsigned R = 1; R != N; ++R)
      UnitOf[R] = unitOfName(MRI.getName(R));
    auto T = std::make_shared<std::vector<RegisterSet>>(N);
    for (unsigned R = 1; R != N; ++R)
      for (MCPhysReg Sub : MRI.subregs_inclusive(R))
        if (UnitOf[Sub])
          (*T)[R].setUnit(*UnitOf[Sub]);
    Slot = std::move(T);
  }
  Units = Slot;
}

const RegisterSet &InstrAnalyzer::unitsOf(unsigned Reg) const {
  static const RegisterSet None;
  return Reg < Units->size() ? (*Units)[Reg] : None;
}

unsigned accessBytesFromName(StringRef Name) {
  SmallVector<StringRef, 8> Tokens;
  SplitString(Name, Tokens, "_");
  unsigned Bytes = 0, Factor = 1;
  bool Atomic = false, Packed = false;
  for (StringRef T : Tokens) {
    if (T == "ATOMIC")
      Atomic = true;
    if (T == "PK")
      Packed = true;
    // "X2" after an atomic operation doubles it (ATOMIC_ADD_X2,
    // ATOMIC_CMPSWAP_X2).
    if (T == "X2")
      Factor = 2;
    if (Bytes)
      continue;
    Bytes = StringSwitch<unsigned>(T)
                .Cases({"BYTE", "UBYTE", "SBYTE", "B8", "U8", "I8"}, 1)
                .Cases({"SHORT", "USHORT", "SSHORT", "B16", "U16", "I16", "F16",
                        "BF16"},
                       2)
                .Cases({"DWORD", "B32", "U32", "I32", "F32"}, 4)
                .Cases({"DWORDX2", "B64", "U64", "I64", "F64"}, 8)
                .Cases({"DWORDX3", "B96"}, 12)
                .Cases({"DWORDX4", "B128"}, 16)
                .Case("DWORDX8", 32)
                .Case("DWORDX16", 64)
                .Default(0);
    // Buffer format loads/stores: one dword per component.
    if (!Bytes && T.size() <= 4 && T.find_first_not_of("XYZW") == StringRef::npos &&
        Name.contains("FORMAT"))
      Bytes = 4 * T.size();
  }
  if (Packed && Bytes == 2)
    Bytes = 4; // two halves: pk_add_f16
  if (!Bytes && Atomic)
    Bytes = 4;
  return Bytes * Factor;
}

static MemoryKind memoryKindFromName(StringRef Base) {
  if (Base.starts_with("GLOBAL_"))
    return MemoryKind::Global;
  if (Base.starts_with("FLAT_"))
    return MemoryKind::Flat;
  if (Base.starts_with("SCRATCH_"))
    return MemoryKind::Scratch;
  if (Base.starts_with("DS_"))
    return MemoryKind::Lds;
  if (Base.starts_with("BUFFER_") || Base.starts_with("TBUFFER_"))
    return MemoryKind::Buffer;
  if (Base.starts_with("S_LOAD_") || Base.starts_with("S_STORE_") ||
      Base.starts_with("S_BUFFER_") || Base.starts_with("S_SCRATCH_") ||
      Base.starts_with("S_ATOMIC_") || Base.starts_with("S_DCACHE_"))
    return MemoryKind::Scalar;
  return MemoryKind::None;
}

/// True if the vector register writes of \p Base may keep part of the old
/// value in the lanes they write.
static bool writesPartially(StringRef Name, StringRef Base) {
  if (Base.starts_with("V_WRITELANE"))
    return true;
  SmallVector<StringRef, 8> Tokens;
  SplitString(Name, Tokens, "_");
  bool Packed = false, Half = false, Typed = false;
  for (StringRef T : Tokens) {
    if (T == "sdwa" || T == "dpp" || T == "dpp8" || T == "DPP" || T == "D16" ||
        T == "TFE" || T == "LDS")
      return true;
    Packed |= T == "PK";
    // The first type in a VALU name is its result's (V_CVT_F32_F16 makes an
    // F32). A 16-bit result may leave the other half of the register as it
    // was (op_sel, and what GFX9 keeps of the high half).
    if (Typed)
      continue;
    bool Is16 = T == "F16" || T == "BF16" || T == "I16" || T == "U16" ||
                T == "B16";
    bool Is32Or64 = T == "F32" || T == "I32" || T == "U32" || T == "B32" ||
                    T == "F64" || T == "I64" || T == "U64" || T == "B64";
    if (Is16 || Is32Or64) {
      Typed = true;
      Half = Is16;
    }
  }
  return Half && !Packed && Base.starts_with("V_");
}

/// Every unit of the same kind as the lowest unit of \p Units (SGPR, VGPR
/// or AGPR), from that one up: where a relative index may land.
static RegisterSet fromLowestUp(const RegisterSet &Units) {
  RegisterSet Out;
  bool Done = false;
  Units.forEachUnit([&](unsigned U) {
    if (Done)
      return;
    Done = true;
    if (U < RegisterSet::VgprBase)
      Out.addSgprs(U, RegisterSet::NumSgprs);
    else if (U < RegisterSet::AgprBase)
      Out.addVgprs(U - RegisterSet::VgprBase, RegisterSet::NumVgprs);
    else if (U < RegisterSet::SpecialBase)
      Out.addAgprs(U - RegisterSet::AgprBase, RegisterSet::NumAgprs);
  });
  return Out;
}

/// The units of the explicit source (or destination) register operands.
static RegisterSet operandUnits(const MCInst &Inst, const MCInstrDesc &D,
                                const InstrAnalyzer &A, bool Defs) {
  RegisterSet S;
  for (unsigned K = 0, E = Inst.getNumOperands(); K != E; ++K) {
    const MCOperand &Op = Inst.getOperand(K);
    if (Op.isReg() && Op.getReg() && (K < D.getNumDefs()) == Defs)
      S |= A.unitsOf(Op.getReg().id());
  }
  return S;
}

void applyGprIndexMode(InstrProperties &P, const MCInst &Inst, unsigned Mask,
                       const InstrAnalyzer &A) {
  const MCInstrDesc &D = A.mc().desc(Inst.getOpcode());
  P.Reads.add(SpecialReg::M0);
  if (Mask & 7) {
    RegisterSet Src = operandUnits(Inst, D, A, /*Defs=*/false);
    P.Reads |= fromLowestUp(Src.vectorOnly());
  }
  if (Mask & 8)
    P.PartialWrites |= P.Writes.vectorOnly();
}

InstrProperties InstrAnalyzer::analyze(const MCInst &Inst,
                                       isa::ControlFlow Flow) const {
  InstrProperties P;
  P.Flow = Flow;
  const MCInstrDesc &D = MC.desc(Inst.getOpcode());
  StringRef Name = MC.opcodeName(Inst.getOpcode());
  StringRef Base = isa::stripEncodingSuffix(Name);

  unsigned NumDefs = D.getNumDefs();
  for (unsigned K = 0, E = Inst.getNumOperands(); K != E; ++K) {
    const MCOperand &Op = Inst.getOperand(K);
    if (!Op.isReg() || !Op.getReg())
      continue;
    (K < NumDefs ? P.Writes : P.Reads) |= unitsOf(Op.getReg().id());
  }
  for (MCPhysReg R : D.implicit_uses())
    P.Reads |= unitsOf(R);
  for (MCPhysReg R : D.implicit_defs())
    P.Writes |= unitsOf(R);

  // LLVM's DS pseudos list M0 as a use for the targets before GFX9, which
  // bounded LDS accesses with it; the real encodings share that
  // description. From GFX9 on only these DS operations read M0.
  if (Base.starts_with("DS_") && !MC.processor().starts_with("gfx6") &&
      !MC.processor().starts_with("gfx7") &&
      !MC.processor().starts_with("gfx8") && !Base.contains("GWS") &&
      !Base.contains("ORDERED_COUNT") && !Base.contains("APPEND") &&
      !Base.contains("CONSUME") && !Base.contains("ADDTID")) {
    bool Explicit = false;
    for (unsigned K = 0, E = Inst.getNumOperands(); K != E; ++K)
      if (Inst.getOperand(K).isReg() &&
          unitsOf(Inst.getOperand(K).getReg().id()).has(SpecialReg::M0))
        Explicit = true;
    if (!Explicit)
      P.Reads.clearUnit(RegisterSet::SpecialBase +
                        static_cast<unsigned>(SpecialReg::M0));
  }

  P.IsVector = !Base.starts_with("S_");
  if (P.IsVector && writesPartially(Name, Base))
    P.PartialWrites = P.Writes.vectorOnly();

  // s_movrel*/v_movrel*: the register is the operand's plus M0, so a read
  // may be of any register from it up and a write ends no known life.
  if (Base.starts_with("V_MOVREL") || Base.starts_with("S_MOVREL")) {
    P.Reads.add(SpecialReg::M0);
    bool RelSrc = Base.starts_with("V_MOVRELS") || Base.starts_with("S_MOVRELS");
    bool RelDst = Base.starts_with("V_MOVRELD") || Base.starts_with("S_MOVRELD") ||
                  Base.starts_with("V_MOVRELSD");
    if (RelSrc) {
      RegisterSet Src = operandUnits(Inst, D, *this, /*Defs=*/false);
      Src.subtract(RegisterSet().add(SpecialReg::M0).addExec());
      P.Reads |= fromLowestUp(Src);
    }
    if (RelDst)
      P.PartialWrites |= P.Writes.withoutVector() | P.Writes.vectorOnly();
  }

  if (P.IsVector)
    P.ReadsOtherLanes = Base.starts_with("V_READLANE") ||
                        Base.starts_with("V_PERMLANE") ||
                        Base.starts_with("DS_BPERMUTE") ||
                        Base.starts_with("DS_PERMUTE") ||
                        Base.starts_with("DS_SWIZZLE") ||
                        Name.contains("_dpp") || Name.contains("_DPP");

  P.MayLoad = D.mayLoad();
  P.MayStore = D.mayStore();
  if (P.MayLoad || P.MayStore)
    P.Memory = memoryKindFromName(Base);
  if (P.isMemory()) {
    bool Atomic = Base.contains("ATOMIC") || (P.MayLoad && P.MayStore);
    // Loads to LDS (buffer_load_dword lds, global_load_lds_dword) read
    // memory and write LDS: a load of their memory, which has no data
    // operand (MC marks them as stores too).
    P.LdsDma = Base.ends_with("_LDS") || Name.contains("_LDS_");
    if (P.LdsDma) {
      P.Direction = MemoryDirection::Load;
    } else if (Atomic) {
      P.Direction = MemoryDirection::Atomic;
      P.AtomicReturns = NumDefs > 0;
    } else {
      P.Direction = P.MayStore ? MemoryDirection::Store : MemoryDirection::Load;
    }
    P.AccessBytes = accessBytesFromName(Base);
    SmallVector<StringRef, 8> Tokens;
    SplitString(Base, Tokens, "_");
    for (StringRef T : Tokens)
      if (T.starts_with("READ2") || T.starts_with("WRITE2") ||
          T.starts_with("WRXCHG2"))
        P.AccessesPerLane = 2;
  }

  P.IsBarrier = Base == "S_BARRIER";
  P.IsWaitcnt = Base.starts_with("S_WAITCNT");
  return P;
}

} // namespace loom::instrument
