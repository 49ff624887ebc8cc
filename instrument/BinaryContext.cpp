//===- instrument/BinaryContext.cpp - One code object, lifted -------------===//

#include "loom/instrument/BinaryContext.h"

#include "llvm/MC/MCInst.h"

#include <optional>

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
  if (Error E = BC->disassemble({}))
    return std::move(E);
  return BC;
}

Expected<std::unique_ptr<BinaryContext>>
BinaryContext::create(const codeobj::CodeObject &CO, isa::McContext &MC) {
  std::unique_ptr<BinaryContext> BC(new BinaryContext(CO, MC, nullptr));
  if (Error E = BC->disassemble({}))
    return std::move(E);
  return BC;
}

Expected<std::unique_ptr<BinaryContext>>
BinaryContext::create(const codeobj::CodeObject &CO, isa::McContext &MC,
                      ArrayRef<StringRef> Roots) {
  if (Roots.empty())
    return createStringError(inconvertibleErrorCode(),
                             "%s: no function to lift", CO.name().str().c_str());
  std::unique_ptr<BinaryContext> BC(new BinaryContext(CO, MC, nullptr));
  if (Error E = BC->disassemble(Roots))
    return std::move(E);
  return BC;
}

Error BinaryContext::disassemble(ArrayRef<StringRef> Roots) {
  // Symbols name the functions (decision 8): every kernel entry and every
  // other STT_FUNC.
  auto All = Disasm.functionSymbols();
  struct Lifted {
    isa::DisassembledFunction DF;
    std::vector<MCInst> Decoded;
  };
  std::vector<std::optional<Lifted>> Done(All.size());
  auto Lift = [&](size_t I) -> Error {
    if (Done[I])
      return Error::success();
    Lifted L;
    Expected<isa::DisassembledFunction> DF =
        Disasm.disassemble(*All[I].first, All[I].second, L.Decoded);
    if (!DF)
      return DF.takeError();
    L.DF = std::move(*DF);
    Done[I].emplace(std::move(L));
    return Error::success();
  };

  bool Everything = Roots.empty();
  if (!Everything) {
    // The closure of Roots under direct calls, found as it is disassembled.
    DenseMap<uint64_t, size_t> AtAddress;
    StringMap<size_t> Named;
    for (size_t I = 0; I < All.size(); ++I) {
      AtAddress.try_emplace(All[I].first->Address, I);
      Named.try_emplace(All[I].first->Name, I);
    }
    std::vector<size_t> Work;
    for (StringRef R : Roots) {
      auto It = Named.find(R);
      if (It == Named.end())
        return createStringError(inconvertibleErrorCode(),
                                 "%s: no kernel or function %s",
                                 CO.name().str().c_str(), R.str().c_str());
      Work.push_back(It->second);
    }
    while (!Work.empty() && !Everything) {
      size_t I = Work.back();
      Work.pop_back();
      if (Done[I])
        continue;
      if (Error E = Lift(I))
        return E;
      for (const isa::Instruction &In : Done[I]->DF.Instructions) {
        if (In.Flow != isa::ControlFlow::Call &&
            In.Flow != isa::ControlFlow::TailCall)
          continue;
        if (In.Target) {
          auto It = AtAddress.find(*In.Target);
          if (It != AtAddress.end())
            Work.push_back(It->second);
        } else if (In.TargetName.empty()) {
          // Through a pointer: any function may be the callee.
          Everything = true;
          break;
        }
        // A named callee of another code object is not lifted here.
      }
    }
  }

  for (size_t I = 0; I < All.size(); ++I) {
    if (Everything)
      if (Error E = Lift(I))
        return E;
    if (!Done[I])
      continue;
    const codeobj::SymbolInfo *Sym = All[I].first;
    Lifted &L = *Done[I];
    auto F = std::make_unique<BinaryFunction>(*this, Sym->Name, All[I].second,
                                              Sym->Address, Sym->Size);
    F->Exported = Sym->Binding != codeobj::SymbolBinding::Local &&
                  (Sym->Visibility == codeobj::SymbolVisibility::Default ||
                   Sym->Visibility == codeobj::SymbolVisibility::Protected);
    F->Insts.reserve(L.DF.Instructions.size());
    for (size_t K = 0; K != L.DF.Instructions.size(); ++K) {
      BinaryInstruction BI;
      BI.Info = std::move(L.DF.Instructions[K]);
      BI.Inst = std::move(L.Decoded[K]);
      if (BI.Info.Valid)
        BI.Props = Analyzer.analyze(BI.Inst, BI.Info.Flow);
      F->Insts.push_back(std::move(BI));
    }
    Done[I].reset(); // its memory, before the next function's
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
