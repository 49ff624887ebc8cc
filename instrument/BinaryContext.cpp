//===- instrument/BinaryContext.cpp - One code object, lifted -------------===//

#include "loom/instrument/BinaryContext.h"

#include "llvm/MC/MCInst.h"

using namespace llvm;

namespace loom::instrument {

BinaryContext::BinaryContext(const codeobj::CodeObject &CO, isa::McContext &MC,
                             std::unique_ptr<isa::McContext> Owned)
    : OwnedMC(std::move(Owned)), CO(CO), MC(MC), Analyzer(MC), Disasm(MC, CO) {}

BinaryContext::~BinaryContext() = default;

Expected<std::unique_ptr<BinaryContext>>
BinaryContext::create(const codeobj::CodeObject &CO) {
  Expected<std::unique_ptr<isa::McContext>> MC =
      isa::McContext::create(CO.target());
  if (!MC)
    return MC.takeError();
  isa::McContext &Ref = **MC;
  std::unique_ptr<BinaryContext> BC(
      new BinaryContext(CO, Ref, std::move(*MC)));
  if (Error E = BC->disassembleAll())
    return std::move(E);
  return BC;
}

Expected<std::unique_ptr<BinaryContext>>
BinaryContext::create(const codeobj::CodeObject &CO, isa::McContext &MC) {
  std::unique_ptr<BinaryContext> BC(new BinaryContext(CO, MC, nullptr));
  if (Error E = BC->disassembleAll())
    return std::move(E);
  return BC;
}

Error BinaryContext::disassembleAll() {
  // Symbols name the functions (decision 8): every kernel entry and every
  // other STT_FUNC.
  auto All = Disasm.functionSymbols();

  std::vector<MCInst> Decoded;
  for (const auto &[Sym, Kind] : All) {
    Expected<isa::DisassembledFunction> DF =
        Disasm.disassemble(*Sym, Kind, Decoded);
    if (!DF)
      return DF.takeError();
    auto F = std::make_unique<BinaryFunction>(*this, Sym->Name, Kind,
                                              Sym->Address, Sym->Size);
    F->Exported = Sym->Binding != codeobj::SymbolBinding::Local &&
                  (Sym->Visibility == codeobj::SymbolVisibility::Default ||
                   Sym->Visibility == codeobj::SymbolVisibility::Protected);
    F->Insts.reserve(DF->Instructions.size());
    for (size_t K = 0; K != DF->Instructions.size(); ++K) {
      BinaryInstruction BI;
      BI.Info = std::move(DF->Instructions[K]);
      BI.Inst = std::move(Decoded[K]);
      if (BI.Info.Valid)
        BI.Props = Analyzer.analyze(BI.Inst, BI.Info.Flow);
      F->Insts.push_back(std::move(BI));
    }
    ByAddress.try_emplace(F->address(), F.get());
    ByName.try_emplace(F->name(), F.get());
    Functions.push_back(std::move(F));
  }
  return Error::success();
}

BinaryFunction *BinaryContext::function(StringRef Name) const {
  return ByName.lookup(Name);
}

BinaryFunction *BinaryContext::functionAt(uint64_t Address) const {
  return ByAddress.lookup(Address);
}

Error BinaryContext::buildCFGs() {
  for (const auto &F : Functions)
    if (F->state() == FunctionState::Disassembled)
      if (Error E = F->buildCFG())
        return E;

  Calls.clear();
  for (const auto &F : Functions)
    for (const BinaryBasicBlock &B : F->blocks())
      for (const BinaryInstruction &I : B.Instructions) {
        const isa::Instruction &Info = I.Info;
        if (Info.Flow != isa::ControlFlow::Call &&
            Info.Flow != isa::ControlFlow::TailCall)
          continue;
        CallSite S;
        S.Caller = F.get();
        S.Address = Info.Address;
        S.IsTailCall = Info.Flow == isa::ControlFlow::TailCall;
        S.Source = Info.Source;
        S.CalleeName = Info.TargetName;
        if (Info.Target)
          S.Callee = functionAt(*Info.Target);
        if (S.Callee)
          S.CalleeName = S.Callee->name().str();
        Calls.add(std::move(S));
      }
  std::vector<BinaryFunction *> Targets;
  for (const auto &F : Functions)
    if (!F->isKernel())
      Targets.push_back(F.get());
  Calls.setIndirectTargets(std::move(Targets));
  return Error::success();
}

} // namespace loom::instrument
