//===- isa/Disassembler.cpp - Functions of a code object, decoded ---------===//

#include "loom/isa/Disassembler.h"

#include "loom/isa/McContext.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/MC/MCExpr.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstrAnalysis.h"
#include "llvm/MC/MCInstrDesc.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <tuple>

using namespace llvm;

namespace loom::isa {

StringRef controlFlowName(ControlFlow F) {
  switch (F) {
  case ControlFlow::None:
    return "none";
  case ControlFlow::Branch:
    return "branch";
  case ControlFlow::CondBranch:
    return "conditional branch";
  case ControlFlow::IndirectBranch:
    return "indirect branch";
  case ControlFlow::Call:
    return "call";
  case ControlFlow::TailCall:
    return "tail call";
  case ControlFlow::Return:
    return "return";
  case ControlFlow::EndProgram:
    return "end program";
  }
  llvm_unreachable("unknown control flow");
}

StringRef targetSourceName(TargetSource S) {
  switch (S) {
  case TargetSource::None:
    return "none";
  case TargetSource::Immediate:
    return "immediate";
  case TargetSource::PcRelative:
    return "pc-relative";
  case TargetSource::Constant:
    return "constant";
  case TargetSource::Got:
    return "got";
  }
  llvm_unreachable("unknown target source");
}

StringRef functionKindName(FunctionKind K) {
  return K == FunctionKind::Kernel ? "kernel" : "function";
}

bool isBarrier(ControlFlow F) {
  switch (F) {
  case ControlFlow::Branch:
  case ControlFlow::IndirectBranch:
  case ControlFlow::TailCall:
  case ControlFlow::Return:
  case ControlFlow::EndProgram:
    return true;
  default:
    return false;
  }
}

bool endsBlock(ControlFlow F) {
  return isBarrier(F) || F == ControlFlow::CondBranch;
}

bool Instruction::isBarrier() const { return isa::isBarrier(Flow); }

bool Instruction::endsBlock() const { return isa::endsBlock(Flow); }

std::optional<size_t>
DisassembledFunction::blockStartingAt(uint64_t Addr) const {
  auto It = partition_point(
      Blocks, [&](const BasicBlock &B) { return B.Address < Addr; });
  if (It == Blocks.end() || It->Address != Addr)
    return std::nullopt;
  return It - Blocks.begin();
}

std::optional<size_t> DisassembledFunction::instructionAt(uint64_t Addr) const {
  auto It = partition_point(
      Instructions, [&](const Instruction &I) { return I.Address < Addr; });
  if (It == Instructions.end() || It->Address != Addr)
    return std::nullopt;
  return It - Instructions.begin();
}

//===----------------------------------------------------------------------===//
// Decoding
//===----------------------------------------------------------------------===//

namespace {

struct DecodedInst {
  Instruction I;
  MCInst Inst;
};

} // namespace

/// llvm-objdump's rendering of bytes that decode to nothing.
static std::string dataDirective(ArrayRef<uint8_t> Bytes) {
  std::string S;
  raw_string_ostream OS(S);
  if (Bytes.size() >= 4) {
    OS << format(".long 0x%08" PRIx32, support::endian::read32le(Bytes.data()));
  } else {
    OS << format(".byte 0x%02" PRIx8, Bytes[0]);
    for (uint8_t B : Bytes.drop_front())
      OS << format(", 0x%02" PRIx8, B);
  }
  return S;
}

FlowInfo classifyFlow(McContext &MC, const MCInst &Inst, uint64_t Address,
                      uint64_t Size) {
  const MCInstrDesc &D = MC.desc(Inst.getOpcode());
  std::optional<uint64_t> Target;
  uint64_t T;
  if (const MCInstrAnalysis *MIA = MC.instrAnalysis();
      MIA && MIA->evaluateBranch(Inst, Address, Size, T)) {
    Target = T;
  } else {
    // MCInstrAnalysis only looks at operand 0; s_call_b64 keeps its offset
    // after the return-address register.
    for (unsigned K = 0, E = std::min<unsigned>(Inst.getNumOperands(),
                                                D.getNumOperands());
         K != E; ++K)
      if (D.operands()[K].OperandType == MCOI::OPERAND_PCREL &&
          Inst.getOperand(K).isImm()) {
        Target = Address + Size +
                 SignExtend64<16>(Inst.getOperand(K).getImm()) * 4;
        break;
      }
  }

  FlowInfo F;
  if (Target && (D.isCall() || D.isBranch())) {
    F.Target = Target;
    if (D.isCall())
      F.Flow = ControlFlow::Call;
    else
      F.Flow = D.isBarrier() ? ControlFlow::Branch : ControlFlow::CondBranch;
    return F;
  }
  if (D.isCall())
    F.Flow = ControlFlow::Call;
  else if (D.isBranch() || D.isIndirectBranch())
    F.Flow = ControlFlow::IndirectBranch;
  else if (D.isReturn())
    F.Flow = ControlFlow::EndProgram;
  return F;
}

/// Fills Flow, and Target for a PC-relative immediate (classifyFlow).
static void classify(McContext &MC, const MCInst &Inst, Instruction &I) {
  FlowInfo F = classifyFlow(MC, Inst, I.Address, I.size());
  I.Flow = F.Flow;
  if (F.Target) {
    I.Target = F.Target;
    I.Source = TargetSource::Immediate;
  }
}

static std::vector<DecodedInst>
decodeAll(McContext &MC, ArrayRef<uint8_t> Bytes, uint64_t Address,
          bool WithText = true) {
  std::vector<DecodedInst> Out;
  for (uint64_t Off = 0; Off < Bytes.size();) {
    DecodedInst D;
    Instruction &I = D.I;
    I.Address = Address + Off;
    McContext::DecodeResult R = MC.decode(Bytes.slice(Off), I.Address, D.Inst);
    std::string Text;
    if (R.Valid && WithText)
      Text = MC.print(D.Inst, I.Address);
    if (R.Valid && WithText && Text.empty()) // the printer crashed: skip a word
      R.Size = std::min<uint64_t>(4, Bytes.size() - Off);
    ArrayRef<uint8_t> Enc = Bytes.slice(Off, R.Size);
    I.Bytes.assign(Enc.begin(), Enc.end());
    I.Valid = WithText ? !Text.empty() : R.Valid;
    if (I.Valid) {
      I.Opcode = D.Inst.getOpcode();
      I.OpcodeName = MC.opcodeName(I.Opcode).str();
      I.Text = std::move(Text);
      classify(MC, D.Inst, I);
    } else {
      D.Inst = MCInst();
      if (WithText)
        I.Text = dataDirective(Enc);
    }
    Off += R.Size;
    Out.push_back(std::move(D));
  }
  return Out;
}

std::vector<Instruction>
decodeInstructions(McContext &MC, ArrayRef<uint8_t> Bytes, uint64_t Address) {
  std::vector<Instruction> Out;
  for (DecodedInst &D : decodeAll(MC, Bytes, Address))
    Out.push_back(std::move(D.I));
  return Out;
}

//===----------------------------------------------------------------------===//
// Basic blocks
//===----------------------------------------------------------------------===//

static bool hasDirectTarget(const Instruction &I) {
  return I.Target &&
         (I.Flow == ControlFlow::Branch || I.Flow == ControlFlow::CondBranch);
}

std::vector<BasicBlock> buildBasicBlocks(ArrayRef<Instruction> Insts) {
  std::vector<BasicBlock> Blocks;
  if (Insts.empty())
    return Blocks;

  auto IndexOf = [&](uint64_t Addr) -> std::optional<size_t> {
    auto It = partition_point(
        Insts, [&](const Instruction &I) { return I.Address < Addr; });
    if (It == Insts.end() || It->Address != Addr)
      return std::nullopt;
    return It - Insts.begin();
  };

  std::vector<bool> Leader(Insts.size(), false);
  Leader[0] = true;
  for (size_t K = 0; K != Insts.size(); ++K) {
    const Instruction &I = Insts[K];
    if (I.endsBlock() && K + 1 != Insts.size())
      Leader[K + 1] = true;
    if (hasDirectTarget(I))
      if (std::optional<size_t> T = IndexOf(*I.Target))
        Leader[*T] = true;
  }

  std::vector<size_t> BlockOfInst(Insts.size());
  for (size_t K = 0; K != Insts.size(); ++K) {
    if (Leader[K]) {
      BasicBlock B;
      B.Address = Insts[K].Address;
      B.FirstInstruction = K;
      Blocks.push_back(B);
    }
    BasicBlock &B = Blocks.back();
    ++B.NumInstructions;
    B.EndAddress = Insts[K].endAddress();
    BlockOfInst[K] = Blocks.size() - 1;
  }

  for (size_t BI = 0; BI != Blocks.size(); ++BI) {
    BasicBlock &B = Blocks[BI];
    const Instruction &Last = Insts[B.FirstInstruction + B.NumInstructions - 1];
    auto AddEdge = [&](size_t To) {
      if (!is_contained(B.Successors, To))
        B.Successors.push_back(To);
    };
    if (hasDirectTarget(Last))
      if (std::optional<size_t> T = IndexOf(*Last.Target))
        AddEdge(BlockOfInst[*T]);
    if (!Last.isBarrier() && BI + 1 != Blocks.size())
      AddEdge(BI + 1);
  }
  for (size_t BI = 0; BI != Blocks.size(); ++BI)
    for (size_t S : Blocks[BI].Successors)
      Blocks[S].Predecessors.push_back(BI);
  return Blocks;
}

//===----------------------------------------------------------------------===//
// Disassembler
//===----------------------------------------------------------------------===//

Disassembler::Disassembler(McContext &MC, const codeobj::CodeObject &CO)
    : MC(MC), CO(CO) {
  for (const codeobj::Kernel &K : CO.kernels())
    Symbols.push_back({K.Code.Name, K.Code.Address, K.Code.Size, true});
  for (const codeobj::Function &F : CO.functions())
    Symbols.push_back({F.Sym.Name, F.Sym.Address, F.Sym.Size, true});
  for (const codeobj::Variable &V : CO.variables())
    Symbols.push_back({V.Sym.Name, V.Sym.Address, V.Sym.Size, false});
  llvm::sort(Symbols, [](const Symbol &A, const Symbol &B) {
    return std::tie(A.Address, A.Name) < std::tie(B.Address, B.Name);
  });
  for (const Symbol &S : Symbols)
    MaxSymbolSize = std::max(MaxSymbolSize, S.Size);

  const MCRegisterInfo &MRI = MC.registerInfo();
  for (unsigned R = 1, E = MRI.getNumRegs(); R != E; ++R)
    if (StringRef(MRI.getName(R)) == "SCC") {
      SccReg = R;
      break;
    }
}

const Disassembler::Symbol *Disassembler::findSymbol(uint64_t Addr,
                                                     bool CodeOnly) const {
  auto It = partition_point(Symbols,
                            [&](const Symbol &S) { return S.Address <= Addr; });
  const Symbol *Best = nullptr;
  while (It != Symbols.begin()) {
    --It;
    // Nothing that starts this far back can reach the address.
    if (Addr - It->Address > MaxSymbolSize)
      break;
    if (CodeOnly && !It->IsCode)
      continue;
    bool Contains =
        It->Size ? Addr < It->Address + It->Size : Addr == It->Address;
    if (!Contains)
      continue;
    // Code wins over data at the same place; otherwise the nearest start.
    if (!Best || (It->IsCode && !Best->IsCode))
      Best = &*It;
    if (Best->IsCode)
      break;
  }
  return Best;
}

std::string Disassembler::symbolize(uint64_t Addr) const {
  const Symbol *S = findSymbol(Addr, /*CodeOnly=*/false);
  if (!S)
    return "";
  if (Addr == S->Address)
    return S->Name.str();
  return (S->Name + "+0x" + Twine::utohexstr(Addr - S->Address)).str();
}

namespace {

/// What is known of one 32-bit scalar register while walking a block.
struct SgprValue {
  enum KindTy : uint8_t { Unknown, Const, GotLo, GotHi } Kind = Unknown;
  /// Set for a constant derived from s_getpc_b64.
  bool FromPc = false;
  /// Const: the value (32 bits). GotLo/GotHi: the GOT entry's address.
  uint64_t Value = 0;
};

/// Just enough scalar-register constant tracking to follow address
/// arithmetic: s_getpc_b64, s_add/addc/sub/subb_u32, s_mov, and 64-bit
/// loads from a constant address.
class ScalarTracker {
public:
  ScalarTracker(McContext &MC, unsigned SccReg) : MC(MC), SccReg(SccReg) {}

  void reset() {
    Regs.fill(SgprValue());
    Carry.reset();
  }

  /// Value of a 32-bit source operand, if constant.
  std::optional<SgprValue> constOf(const MCOperand &Op) const {
    SgprValue V;
    V.Kind = SgprValue::Const;
    if (Op.isImm()) {
      V.Value = static_cast<uint32_t>(Op.getImm());
      return V;
    }
    if (Op.isExpr()) {
      // Forced literals (lit(...)) come back as expressions.
      int64_t Imm;
      if (!Op.getExpr()->evaluateAsAbsolute(Imm))
        return std::nullopt;
      V.Value = static_cast<uint32_t>(Imm);
      return V;
    }
    if (Op.isReg())
      if (std::optional<unsigned> N = MC.scalarCode(Op.getReg().id()))
        if (*N < Regs.size() && Regs[*N].Kind == SgprValue::Const)
          return Regs[*N];
    return std::nullopt;
  }

  /// 64-bit constant in a register pair, if known.
  std::optional<std::pair<uint64_t, bool>> pairConst(unsigned Reg) const {
    SmallVector<unsigned, 4> Ns = MC.scalarCodes(Reg);
    if (Ns.size() != 2 || Ns[1] >= Regs.size())
      return std::nullopt;
    const SgprValue &Lo = Regs[Ns[0]], &Hi = Regs[Ns[1]];
    if (Lo.Kind != SgprValue::Const || Hi.Kind != SgprValue::Const)
      return std::nullopt;
    return std::make_pair(Hi.Value << 32 | Lo.Value, Lo.FromPc && Hi.FromPc);
  }

  /// Address of the GOT entry a register pair was loaded from, if so.
  std::optional<uint64_t> pairGot(unsigned Reg) const {
    SmallVector<unsigned, 4> Ns = MC.scalarCodes(Reg);
    if (Ns.size() != 2 || Ns[1] >= Regs.size())
      return std::nullopt;
    const SgprValue &Lo = Regs[Ns[0]], &Hi = Regs[Ns[1]];
    if (Lo.Kind != SgprValue::GotLo || Hi.Kind != SgprValue::GotHi ||
        Lo.Value != Hi.Value)
      return std::nullopt;
    return Lo.Value;
  }

  /// Applies \p Inst; returns the 64-bit address it completes, if any
  /// (s_addc_u32 of a PC-derived pair, or a GOT load's entry address).
  std::optional<uint64_t> step(const MCInst &Inst, const Instruction &I) {
    StringRef Name = MC.opcodeBaseName(Inst.getOpcode());
    const MCInstrDesc &D = MC.desc(Inst.getOpcode());
    auto Op = [&](unsigned K) -> const MCOperand * {
      return K < Inst.getNumOperands() ? &Inst.getOperand(K) : nullptr;
    };
    auto DstIndex = [&]() -> std::optional<unsigned> {
      const MCOperand *O = Op(0);
      if (!O || !O->isReg())
        return std::nullopt;
      std::optional<unsigned> N = MC.scalarCode(O->getReg().id());
      if (N && *N >= Regs.size())
        return std::nullopt;
      return N;
    };

    if (Name == "S_GETPC_B64") {
      killDefs(Inst, D);
      SmallVector<unsigned, 4> Ns;
      if (Op(0) && Op(0)->isReg())
        Ns = MC.scalarCodes(Op(0)->getReg().id());
      if (Ns.size() == 2 && Ns[1] < Regs.size()) {
        uint64_t Pc = I.endAddress();
        Regs[Ns[0]] = {SgprValue::Const, true, Pc & 0xffffffff};
        Regs[Ns[1]] = {SgprValue::Const, true, Pc >> 32};
      }
      return std::nullopt;
    }

    bool IsAdd = Name == "S_ADD_U32", IsAddc = Name == "S_ADDC_U32";
    bool IsSub = Name == "S_SUB_U32", IsSubb = Name == "S_SUBB_U32";
    if (IsAdd || IsAddc || IsSub || IsSubb) {
      std::optional<unsigned> Dst = DstIndex();
      std::optional<SgprValue> A, B;
      if (Op(1) && Op(2)) {
        A = constOf(*Op(1));
        B = constOf(*Op(2));
      }
      bool NeedCarry = IsAddc || IsSubb;
      std::optional<uint32_t> CarryIn = NeedCarry ? Carry : 0;
      killDefs(Inst, D);
      if (!Dst || !A || !B || !CarryIn)
        return std::nullopt;
      uint64_t R;
      if (IsAdd || IsAddc) {
        R = A->Value + B->Value + *CarryIn;
        Carry = static_cast<uint32_t>(R >> 32);
      } else {
        R = A->Value - B->Value - *CarryIn;
        Carry = A->Value < B->Value + *CarryIn ? 1 : 0;
      }
      Regs[*Dst] = {SgprValue::Const, A->FromPc, R & 0xffffffff};
      // The high half of a PC-derived pair is done: report the address.
      if (NeedCarry && A->FromPc && *Dst > 0 &&
          Regs[*Dst - 1].Kind == SgprValue::Const && Regs[*Dst - 1].FromPc)
        return Regs[*Dst].Value << 32 | Regs[*Dst - 1].Value;
      return std::nullopt;
    }

    if (Name == "S_MOV_B32") {
      std::optional<unsigned> Dst = DstIndex();
      std::optional<SgprValue> V;
      if (Op(1)) {
        V = constOf(*Op(1));
        // Copies of GOT halves keep their meaning.
        if (!V && Op(1)->isReg())
          if (std::optional<unsigned> N = MC.scalarCode(Op(1)->getReg().id()))
            if (*N < Regs.size() && Regs[*N].Kind != SgprValue::Unknown)
              V = Regs[*N];
      }
      killDefs(Inst, D);
      if (Dst && V)
        Regs[*Dst] = *V;
      return std::nullopt;
    }

    if (Name == "S_MOV_B64") {
      SmallVector<unsigned, 4> DstNs;
      if (Op(0) && Op(0)->isReg())
        DstNs = MC.scalarCodes(Op(0)->getReg().id());
      std::optional<std::pair<SgprValue, SgprValue>> V;
      if (const MCOperand *Src = Op(1)) {
        if (Src->isImm()) {
          uint64_t Imm = static_cast<uint64_t>(Src->getImm());
          V = {{SgprValue::Const, false, Imm & 0xffffffff},
               {SgprValue::Const, false, Imm >> 32}};
        } else if (Src->isReg()) {
          SmallVector<unsigned, 4> Ns = MC.scalarCodes(Src->getReg().id());
          if (Ns.size() == 2 && Ns[1] < Regs.size())
            V = {Regs[Ns[0]], Regs[Ns[1]]};
        }
      }
      killDefs(Inst, D);
      if (DstNs.size() == 2 && DstNs[1] < Regs.size() && V) {
        Regs[DstNs[0]] = V->first;
        Regs[DstNs[1]] = V->second;
      }
      return std::nullopt;
    }

    if (Name == "S_LOAD_DWORDX2_IMM") {
      SmallVector<unsigned, 4> DstNs;
      if (Op(0) && Op(0)->isReg())
        DstNs = MC.scalarCodes(Op(0)->getReg().id());
      std::optional<uint64_t> Addr;
      if (Op(1) && Op(1)->isReg() && Op(2) && Op(2)->isImm())
        if (auto Base = pairConst(Op(1)->getReg().id()))
          Addr = Base->first + static_cast<uint64_t>(Op(2)->getImm());
      killDefs(Inst, D);
      if (DstNs.size() == 2 && DstNs[1] < Regs.size() && Addr) {
        Regs[DstNs[0]] = {SgprValue::GotLo, false, *Addr};
        Regs[DstNs[1]] = {SgprValue::GotHi, false, *Addr};
        return Addr;
      }
      return std::nullopt;
    }

    killDefs(Inst, D);
    return std::nullopt;
  }

private:
  void kill(MCRegister R) {
    if (R == SccReg) {
      Carry.reset();
      return;
    }
    for (unsigned N : MC.scalarCodes(R.id()))
      if (N < Regs.size())
        Regs[N] = SgprValue();
  }

  /// Forgets every scalar register (and SCC) the instruction writes.
  void killDefs(const MCInst &Inst, const MCInstrDesc &D) {
    for (unsigned K = 0,
                  E = std::min<unsigned>(D.getNumDefs(), Inst.getNumOperands());
         K != E; ++K)
      if (Inst.getOperand(K).isReg())
        kill(Inst.getOperand(K).getReg());
    for (MCPhysReg R : D.implicit_defs())
      kill(R);
  }

  McContext &MC;
  unsigned SccReg;
  std::array<SgprValue, 128> Regs;
  std::optional<uint32_t> Carry;
};

} // namespace

const MCOperand *targetRegOperand(const MCInst &Inst) {
  for (unsigned K = Inst.getNumOperands(); K-- > 0;)
    if (Inst.getOperand(K).isReg())
      return &Inst.getOperand(K);
  return nullptr;
}

static std::string withAddend(StringRef Name, int64_t Addend) {
  if (Addend == 0)
    return Name.str();
  std::string S = Name.str();
  if (Addend > 0)
    S += "+0x" + utohexstr(static_cast<uint64_t>(Addend), /*LowerCase=*/true);
  else
    S += "-0x" + utohexstr(-static_cast<uint64_t>(Addend), /*LowerCase=*/true);
  return S;
}

/// Resolves \p D's register target (s_setpc_b64, s_swappc_b64) from what
/// the pair holds before it, tells an indirect branch's kind by where it
/// goes (the function [FnBegin, FnEnd), of \p Kind), and steps \p Tracker
/// past it.
static void trackFlow(McContext &MC, const codeobj::CodeObject &CO,
                      ScalarTracker &Tracker, DecodedInst &D,
                      uint64_t FnBegin, uint64_t FnEnd, FunctionKind Kind) {
  Instruction &I = D.I;
  // Resolve s_setpc_b64 / s_swappc_b64 from what the pair holds before
  // the instruction runs.
  bool RegisterTarget = (I.Flow == ControlFlow::Call ||
                         I.Flow == ControlFlow::IndirectBranch) &&
                        I.Source == TargetSource::None;
  bool ReturnPair = false;
  if (RegisterTarget) {
    if (const MCOperand *R = targetRegOperand(D.Inst)) {
      unsigned Reg = R->getReg().id();
      SmallVector<unsigned, 4> Ns = MC.sgprIndices(Reg);
      ReturnPair = Ns.size() == 2 && Ns[0] == 30 && Ns[1] == 31;
      if (auto C = Tracker.pairConst(Reg)) {
        I.Target = C->first;
        I.Source =
            C->second ? TargetSource::PcRelative : TargetSource::Constant;
      } else if (std::optional<uint64_t> Got = Tracker.pairGot(Reg)) {
        I.Source = TargetSource::Got;
        const codeobj::DynamicRelocation *Rel = nullptr;
        for (const codeobj::DynamicRelocation &DR : CO.dynamicRelocations())
          if (DR.Offset == *Got) {
            Rel = &DR;
            break;
          }
        if (Rel && !Rel->Symbol.empty()) {
          I.TargetName = withAddend(Rel->Symbol, Rel->Addend);
          if (const codeobj::Function *Fn = CO.findFunction(Rel->Symbol))
            I.Target = Fn->Sym.Address + Rel->Addend;
          else if (const codeobj::Kernel *K = CO.findKernel(Rel->Symbol))
            I.Target = K->Code.Address + Rel->Addend;
        } else if (Rel) {
          I.Target = static_cast<uint64_t>(Rel->Addend); // RELATIVE
        } else if (Expected<ArrayRef<uint8_t>> Slot = CO.contents(*Got, 8)) {
          // No relocation: the link-time contents are the address.
          I.Target = support::endian::read64le(Slot->data());
        } else {
          consumeError(Slot.takeError());
          I.Source = TargetSource::None;
        }
      }
    }
  }

  if (I.Flow == ControlFlow::IndirectBranch) {
    if (I.Target) {
      bool Inside = *I.Target >= FnBegin && *I.Target < FnEnd &&
                    *I.Target != FnBegin;
      I.Flow = Inside ? ControlFlow::Branch : ControlFlow::TailCall;
    } else if (!I.TargetName.empty()) {
      I.Flow = ControlFlow::TailCall; // to a symbol defined elsewhere
    } else if (Kind == FunctionKind::Function && ReturnPair) {
      I.Flow = ControlFlow::Return;
    } else if (Kind == FunctionKind::Function) {
      // A pointer loaded or passed in: a tail call through it. LLVM's
      // AMDGPU backend makes no jump tables, so an s_setpc_b64 on a pair
      // it computed at run time leaves the function.
      I.Flow = ControlFlow::TailCall;
    }
  }

  if (std::optional<uint64_t> A = Tracker.step(D.Inst, I))
    I.ComputedAddress = *A;
  // The callee may clobber any scalar register.
  if (I.Flow == ControlFlow::Call)
    Tracker.reset();
}

Expected<DisassembledFunction>
Disassembler::disassemble(const codeobj::SymbolInfo &Sym, FunctionKind Kind) {
  std::vector<MCInst> Unused;
  return disassemble(Sym, Kind, Unused);
}

Expected<DisassembledFunction>
Disassembler::disassemble(const codeobj::SymbolInfo &Sym, FunctionKind Kind,
                          std::vector<MCInst> &Insts) {
  Insts.clear();
  if (!CO.target().Processor.empty() && CO.target().Processor != MC.processor())
    return createStringError("code object is for " + CO.target().Processor +
                             " but the MC context is for " + MC.processor());

  DisassembledFunction F;
  F.Name = Sym.Name;
  F.Kind = Kind;
  F.Address = Sym.Address;
  F.Size = Sym.Size;
  Expected<ArrayRef<uint8_t>> Bytes = CO.contents(Sym.Address, Sym.Size);
  if (!Bytes)
    return createStringError(functionKindName(Kind) + " " + Sym.Name + ": " +
                             toString(Bytes.takeError()));

  std::vector<DecodedInst> Decoded =
      decodeAll(MC, *Bytes, Sym.Address, WithText);

  // Direct branch targets start blocks; register contents are not carried
  // across them, since other paths join there.
  DenseSet<uint64_t> JoinPoints;
  for (const DecodedInst &D : Decoded)
    if (hasDirectTarget(D.I))
      JoinPoints.insert(*D.I.Target);

  uint64_t FnEnd = F.Address + F.Size;
  ScalarTracker Tracker(MC, SccReg);
  Tracker.reset();
  for (DecodedInst &D : Decoded) {
    Instruction &I = D.I;
    if (JoinPoints.contains(I.Address))
      Tracker.reset();
    if (!I.Valid) {
      Tracker.reset();
      continue;
    }

    trackFlow(MC, CO, Tracker, D, F.Address, FnEnd, Kind);
  }

  for (DecodedInst &D : Decoded) {
    Instruction &I = D.I;
    if (I.Target && I.TargetName.empty())
      I.TargetName = symbolize(*I.Target);
    F.Instructions.push_back(std::move(I));
    Insts.push_back(std::move(D.Inst));
  }
  F.Blocks = buildBasicBlocks(F.Instructions);
  return F;
}

std::optional<uint64_t>
Disassembler::registerJumpTarget(const codeobj::SymbolInfo &Sym,
                                 FunctionKind Kind, uint64_t From,
                                 uint64_t To) {
  if (From < Sym.Address || To <= From || To > Sym.Address + Sym.Size)
    return std::nullopt;
  Expected<ArrayRef<uint8_t>> Bytes = CO.contents(From, To - From);
  if (!Bytes) {
    consumeError(Bytes.takeError());
    return std::nullopt;
  }
  std::vector<DecodedInst> Decoded = decodeAll(MC, *Bytes, From, false);
  ScalarTracker Tracker(MC, SccReg);
  Tracker.reset();
  for (DecodedInst &D : Decoded) {
    if (!D.I.Valid)
      return std::nullopt;
    trackFlow(MC, CO, Tracker, D, Sym.Address, Sym.Address + Sym.Size, Kind);
  }
  const Instruction &Last = Decoded.back().I;
  if (Last.endAddress() != To || Last.Flow != ControlFlow::Branch)
    return std::nullopt;
  return Last.Target;
}

Expected<DisassembledFunction>
Disassembler::disassemble(const codeobj::Kernel &K) {
  return disassemble(K.Code, FunctionKind::Kernel);
}

Expected<DisassembledFunction>
Disassembler::disassemble(const codeobj::Function &Fn) {
  return disassemble(Fn.Sym, FunctionKind::Function);
}

Expected<DisassembledFunction> Disassembler::disassemble(StringRef Name) {
  if (const codeobj::Kernel *K = CO.findKernel(Name))
    return disassemble(*K);
  if (const codeobj::Function *Fn = CO.findFunction(Name))
    return disassemble(*Fn);
  return createStringError("no kernel or device function named '" + Name + "'");
}

std::vector<std::pair<const codeobj::SymbolInfo *, FunctionKind>>
Disassembler::functionSymbols() const {
  std::vector<std::pair<const codeobj::SymbolInfo *, FunctionKind>> All;
  for (const codeobj::Kernel &K : CO.kernels())
    All.push_back({&K.Code, FunctionKind::Kernel});
  for (const codeobj::Function &Fn : CO.functions())
    All.push_back({&Fn.Sym, FunctionKind::Function});
  llvm::sort(All, [](const auto &A, const auto &B) {
    return std::tie(A.first->Address, A.first->Name) <
           std::tie(B.first->Address, B.first->Name);
  });
  return All;
}

Expected<std::vector<DisassembledFunction>> Disassembler::disassembleAll() {
  std::vector<DisassembledFunction> Out;
  for (const auto &[Sym, Kind] : functionSymbols()) {
    Expected<DisassembledFunction> F = disassemble(*Sym, Kind);
    if (!F)
      return F.takeError();
    Out.push_back(std::move(*F));
  }
  return Out;
}

} // namespace loom::isa
