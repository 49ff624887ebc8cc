//===- emu/Decoder.cpp - MCInst -> DecodedInst ----------------------------===//

#include "Decoder.h"

#include "loom/isa/Disassembler.h"
#include "loom/isa/McContext.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCExpr.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstrDesc.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/Support/Endian.h"

using namespace llvm;

namespace loom::emu {

void HandlerTable::add(StringRef OpName, Handler Fn, uint32_t Flags,
                       Specializer Specialize) {
  Ops[OpName] = OpInfo{Fn, Flags, Specialize};
}

const OpInfo *HandlerTable::find(StringRef OpName) const {
  auto It = Ops.find(OpName);
  return It == Ops.end() ? nullptr : &It->second;
}

std::vector<std::string> HandlerTable::names() const {
  std::vector<std::string> Out;
  for (const auto &E : Ops)
    Out.push_back(E.getKey().str());
  llvm::sort(Out);
  return Out;
}

OpName operationName(StringRef McName) {
  OpName R;
  StringRef N = isa::stripEncodingSuffix(McName);
  // MFMA variants by destination file: the operation is the same.
  if (N.consume_back("_acd") || N.consume_back("_vcd"))
    N = isa::stripEncodingSuffix(N);
  struct Suffix {
    StringLiteral Text;
    uint32_t Flag;
  };
  static const Suffix Encodings[] = {{"_e32", 0},
                                     {"_e64", FlagE64},
                                     {"_sdwa", FlagSdwa},
                                     {"_dpp", FlagDpp},
                                     {"_SADDR", FlagSaddr}};
  for (const Suffix &S : Encodings)
    if (N.consume_back(S.Text))
      R.Flags |= S.Flag;
  // gfx940 SCRATCH address forms: _VE (vaddr, the SVE bit set), _ST (no
  // address operand), _SVS (saddr and vaddr). Which address operands an
  // instruction has is read from its operands (FlatOps.cpp).
  if (N.starts_with("SCRATCH_"))
    for (StringRef Form : {"_VE", "_ST", "_SVS"})
      if (N.consume_back(Form))
        break;
  R.Name = N.str();
  return R;
}

namespace {

/// Parses "SGPR4_SGPR5" style names: prefix, first index, count.
bool parseTuple(StringRef Name, StringRef Prefix, unsigned &First,
                unsigned &Count) {
  SmallVector<StringRef, 16> Parts;
  Name.split(Parts, '_');
  Count = 0;
  for (StringRef P : Parts) {
    if (!P.consume_front(Prefix))
      return false;
    unsigned N;
    if (P.getAsInteger(10, N))
      return false;
    if (Count == 0)
      First = N;
    ++Count;
  }
  return Count != 0;
}

/// The block flags of instruction \p I, whose flow is \p F. A direct
/// branch's target is the one the region resolves (FlagBranch: its simm16
/// in Imm[0]); a target found another way leaves the blocks to the
/// Disassembler.
uint32_t blockFlags(const isa::FlowInfo &F, const DecodedInst &I) {
  uint32_t Flags = isa::endsBlock(F.Flow) ? FlagFlowEndsBlock : 0;
  if (F.Flow == isa::ControlFlow::IndirectBranch)
    Flags |= FlagFlowRegister;
  if (F.Flow == isa::ControlFlow::Call)
    Flags |= FlagFlowCall;
  if (F.Target && (F.Flow == isa::ControlFlow::Branch ||
                   F.Flow == isa::ControlFlow::CondBranch)) {
    if (!(I.Flags & FlagBranch) ||
        *F.Target != I.branchTarget())
      return FlagFlowUnknown;
    Flags |= FlagFlowTarget;
  }
  return Flags;
}

} // namespace

Decoder::Decoder(isa::McContext &MC) : MC(MC) {
  MaxInstBytes = MC.asmInfo().getMaxInstLength(&MC.subtargetInfo());
  const MCRegisterInfo &MRI = MC.registerInfo();
  RegOperands.resize(MRI.getNumRegs());
  for (unsigned R = 1; R < MRI.getNumRegs(); ++R) {
    StringRef Name = MRI.getName(R);
    // Per-generation aliases ("FLAT_SCR_LO_vi", "M0_gfxpre11") name the
    // same architectural register.
    for (StringRef Suffix : {"_vi", "_ci", "_gfxpre11", "_gfx11plus"})
      Name.consume_back(Suffix);
    Operand Op;
    unsigned First = 0, Count = 0;
    auto Scalar = [&](unsigned Index, unsigned Regs) {
      Op.K = Operand::Sgpr;
      Op.Index = Index;
      Op.Regs = Regs;
    };
    auto Special = [&](SpecialValue V) {
      Op.K = Operand::Special;
      Op.Index = static_cast<uint16_t>(V);
      Op.Regs = 2;
    };
    if (parseTuple(Name, "SGPR", First, Count))
      Scalar(First, Count);
    else if (parseTuple(Name, "TTMP", First, Count))
      Scalar(SgprTtmp0 + First, Count);
    else if (parseTuple(Name, "VGPR", First, Count)) {
      Op.K = Operand::Vgpr;
      Op.Index = First;
      Op.Regs = Count;
    } else if (parseTuple(Name, "AGPR", First, Count)) {
      Op.K = Operand::Agpr;
      Op.Index = First;
      Op.Regs = Count;
    } else if (Name == "VCC")
      Scalar(SgprVccLo, 2);
    else if (Name == "VCC_LO")
      Scalar(SgprVccLo, 1);
    else if (Name == "VCC_HI")
      Scalar(SgprVccHi, 1);
    else if (Name == "EXEC")
      Scalar(SgprExecLo, 2);
    else if (Name == "EXEC_LO")
      Scalar(SgprExecLo, 1);
    else if (Name == "EXEC_HI")
      Scalar(SgprExecHi, 1);
    else if (Name == "M0")
      Scalar(SgprM0, 1);
    else if (Name == "FLAT_SCR")
      Scalar(SgprFlatScratchLo, 2);
    else if (Name == "FLAT_SCR_LO")
      Scalar(SgprFlatScratchLo, 1);
    else if (Name == "FLAT_SCR_HI")
      Scalar(SgprFlatScratchHi, 1);
    else if (Name == "XNACK_MASK")
      Scalar(SgprXnackMaskLo, 2);
    else if (Name == "XNACK_MASK_LO")
      Scalar(SgprXnackMaskLo, 1);
    else if (Name == "XNACK_MASK_HI")
      Scalar(SgprXnackMaskHi, 1);
    else if (Name.starts_with("SGPR_NULL"))
      Scalar(SgprNull, Name == "SGPR_NULL64" ? 2 : 1);
    else if (Name.starts_with("SRC_SHARED_BASE"))
      Special(SpecialValue::SharedBase);
    else if (Name.starts_with("SRC_SHARED_LIMIT"))
      Special(SpecialValue::SharedLimit);
    else if (Name.starts_with("SRC_PRIVATE_BASE"))
      Special(SpecialValue::PrivateBase);
    else if (Name.starts_with("SRC_PRIVATE_LIMIT"))
      Special(SpecialValue::PrivateLimit);
    else if (Name == "SRC_POPS_EXITING_WAVE_ID")
      Special(SpecialValue::PopsExitingWaveId);
    else if (Name == "SRC_VCCZ")
      Special(SpecialValue::Vccz);
    else if (Name == "SRC_EXECZ")
      Special(SpecialValue::Execz);
    else if (Name == "SRC_SCC")
      Special(SpecialValue::Scc);
    RegOperands[R] = Op;
  }

  // Learn the operand type LLVM gives VOP3 input modifiers.
  const MCInstrInfo &MII = MC.instrInfo();
  for (unsigned Opc = 0; Opc < MII.getNumOpcodes(); ++Opc)
    if (MII.getName(Opc) == "V_ADD_F32_e64_vi") {
      InputModsType = MII.get(Opc).operands()[1].OperandType;
      break;
    }
  assert(InputModsType >= 0 && "LLVM lacks V_ADD_F32_e64_vi");
  // Code decodes while dispatches run and read names (nameOf): the names
  // must never move. A NameId has 16 bits.
  Names.reserve(size_t(1) << 16);
  internName("<invalid>");
}

Decoder::~Decoder() = default;

uint16_t Decoder::internName(StringRef Name) {
  auto [It, Inserted] = NameIds.try_emplace(Name, Names.size());
  if (Inserted)
    Names.push_back(Name.str());
  return It->second;
}

bool Decoder::convertRegister(unsigned Reg, Operand &Op) const {
  if (Reg == 0 || Reg >= RegOperands.size() ||
      RegOperands[Reg].K == Operand::None)
    return false;
  Op = RegOperands[Reg];
  return true;
}

void Decoder::convert(const MCInst &Inst, DecodedInst &Out) {
  const MCInstrDesc &Desc = MC.desc(Inst.getOpcode());
  unsigned NumDefs = Desc.getNumDefs();
  int PendingMods = -1;
  bool Ok = true;
  for (unsigned I = 0; I < Inst.getNumOperands(); ++I) {
    const MCOperand &MO = Inst.getOperand(I);
    int Type = I < Desc.getNumOperands()
                   ? Desc.operands()[I].OperandType
                   : int(MCOI::OPERAND_IMMEDIATE);
    if (I < NumDefs) {
      if (!MO.isReg() || Out.NumDst == DecodedInst::MaxDst ||
          !convertRegister(MO.getReg(), Out.Dst[Out.NumDst++]))
        Ok = false;
      continue;
    }
    if (Type == InputModsType && MO.isImm()) {
      PendingMods = static_cast<int>(MO.getImm());
      continue;
    }
    bool IsPlainImm = Type == MCOI::OPERAND_IMMEDIATE ||
                      Type == MCOI::OPERAND_UNKNOWN ||
                      Type == MCOI::OPERAND_PCREL;
    if (IsPlainImm && MO.isImm()) {
      if (Out.NumImm == DecodedInst::MaxImm) {
        Ok = false;
        continue;
      }
      Out.Imm[Out.NumImm++] = MO.getImm();
      if (Type == MCOI::OPERAND_PCREL)
        Out.Flags |= FlagBranch;
      continue;
    }
    if (Out.NumSrc == DecodedInst::MaxSrc) {
      Ok = false;
      continue;
    }
    Operand &Op = Out.Src[Out.NumSrc++];
    if (MO.isReg()) {
      if (!convertRegister(MO.getReg(), Op))
        Ok = false;
    } else if (MO.isImm() ||
               // lit(V): a literal whose value could have been inline.
               (MO.isExpr() && MO.getExpr()->evaluateAsAbsolute(Op.Value))) {
      Op.K = Operand::Imm;
      Op.Regs = 1;
      if (MO.isImm())
        Op.Value = MO.getImm();
    } else {
      Ok = false; // expressions: unresolved relocations in code
    }
    if (PendingMods >= 0) {
      Op.Mods = static_cast<uint8_t>(PendingMods);
      if (PendingMods)
        Out.Flags |= FlagHasSrcMods;
      PendingMods = -1;
    }
    Op.Tied = Desc.getOperandConstraint(I, MCOI::TIED_TO) >= 0;
  }
  if (!Ok)
    Out.Fn = illegalInstruction;
}

std::string Decoder::text(ArrayRef<uint8_t> Bytes, uint64_t Address) {
  std::lock_guard<std::mutex> G(McLock);
  isa::CrashRecoveryScope Recovery; // see Device::registerCode
  MCInst Inst;
  if (MC.decode(Bytes, Address, Inst).Valid)
    return MC.print(Inst, Address);
  std::string Text = ".long 0x";
  for (unsigned I = std::min<size_t>(4, Bytes.size()); I-- > 0;)
    Text += utohexstr(Bytes[I], /*LowerCase=*/true, /*Width=*/2);
  return Text;
}

void Decoder::decode(ArrayRef<uint8_t> Bytes, uint64_t Address,
                     DecodedInst &Out) {
  // LLVM decodes from the first getMaxInstLength bytes (8 on gfx9) alone:
  // the same 8 bytes decode to the same instruction at any address.
  if (MaxInstBytes > 8 || Bytes.size() < 8) {
    decodeBytes(Bytes, Address, Out);
    return;
  }
  uint64_t Key = support::endian::read64le(Bytes.data());
  if (Key >= DenseMapInfo<uint64_t>::getTombstoneKey()) { // reserved
    decodeBytes(Bytes, Address, Out);
    return;
  }
  if (auto It = SeenAt.find(Key); It != SeenAt.end()) {
    Out = Seen[It->second];
    Out.Address = Address;
    return;
  }
  if (Seen.size() >= MaxSeen) {
    SeenAt.clear();
    Seen.clear();
  }
  decodeBytes(Bytes, Address, Out);
  SeenAt[Key] = static_cast<uint32_t>(Seen.size());
  Seen.push_back(Out);
}

void Decoder::decodeBytes(ArrayRef<uint8_t> Bytes, uint64_t Address,
                          DecodedInst &Out) {
  Out = DecodedInst();
  Out.Address = Address;
  MCInst Inst;
  isa::McContext::DecodeResult R = MC.decode(Bytes, Address, Inst);
  Out.Size = static_cast<uint8_t>(R.Size ? R.Size : 4);
  if (!R.Valid) {
    Out.Fn = illegalInstruction;
    Out.NameId = 0;
    Out.Flags = FlagFlowUnknown;
    return;
  }
  Out.Opcode = Inst.getOpcode();
  OpName Op = operationName(MC.opcodeName(Out.Opcode));
  Out.NameId = internName(Op.Name);
  Out.Flags |= Op.Flags;
  const OpInfo *Info = handlers().find(Op.Name);
  if (Info) {
    Out.Fn = Info->Fn;
    Out.Flags |= Info->Flags;
  } else {
    Out.Fn = illegalInstruction;
  }
  convert(Inst, Out);
  if (Op.Name.rfind("V_PK_", 0) == 0)
    Out.Flags |= FlagVop3p;
  if (Info && Info->Specialize && Out.Fn == Info->Fn)
    if (Handler Fast = Info->Specialize(Out))
      Out.Fn = Fast;
  Out.Flags |= blockFlags(isa::classifyFlow(MC, Inst, Address, R.Size), Out);
}

} // namespace loom::emu
