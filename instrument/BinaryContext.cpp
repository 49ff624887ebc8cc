//===- instrument/BinaryContext.cpp - One code object, lifted -------------===//

#include "loom/instrument/BinaryContext.h"
#include "loom/instrument/RegisterBudget.h"

#include "llvm/MC/MCInst.h"

#include <map>
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

namespace {

/// SGPR pairs holding a known address, by their first SGPR.
using KnownPairs = std::map<unsigned, uint64_t>;

/// What a call to \p F may write, transitively; null if anything
/// (a call whose target is not known, a cycle of calls).
const RegisterSet *
callClobbers(const BinaryFunction &F, const BinaryContext &BC,
             std::map<const BinaryFunction *, std::optional<RegisterSet>> &Memo) {
  auto [It, New] = Memo.try_emplace(&F);
  if (!New)
    return It->second ? &*It->second : nullptr; // done, or a cycle
  RegisterSet Writes;
  for (const BinaryBasicBlock &B : F.blocks())
    for (const BinaryInstruction &I : B.Instructions) {
      Writes |= I.Props.Writes;
      Writes |= I.Props.PartialWrites;
      if (I.Info.Flow != isa::ControlFlow::Call &&
          I.Info.Flow != isa::ControlFlow::TailCall)
        continue;
      const BinaryFunction *Callee =
          I.Info.Target ? BC.functionAt(*I.Info.Target) : nullptr;
      const RegisterSet *More =
          Callee ? callClobbers(*Callee, BC, Memo) : nullptr;
      if (!More)
        return nullptr; // Memo keeps the cycle mark: anything
      Writes |= *More;
    }
  It = Memo.find(&F);
  It->second = Writes;
  return &*It->second;
}

} // namespace

/// Calls through an SGPR pair set to an address in another block: LLVM
/// hoists the s_getpc_b64/s_add_u32/s_addc_u32 of a callee's address out of
/// loops and shares it between calls, which the disassembler, tracking
/// registers within a block and up to a call, leaves unknown. A forward
/// pass over each function's blocks knows a pair at a block's entry where
/// every way in leaves it with one address; a write of either half, or a
/// call whose callee (transitively) may write it, forgets it.
void BinaryContext::resolveCallsAcrossBlocks() {
  std::map<const BinaryFunction *, std::optional<RegisterSet>> Clobbers;
  for (const auto &F : Functions) {
    std::vector<BinaryBasicBlock> &Blocks = F->Blocks;
    bool Unresolved = false;
    for (const BinaryBasicBlock &B : Blocks)
      for (const BinaryInstruction &I : B.Instructions)
        Unresolved |= I.Info.Flow == isa::ControlFlow::Call &&
                      I.Info.Source == isa::TargetSource::None;
    if (!Unresolved)
      continue;
    auto Forget = [](KnownPairs &K, const RegisterSet &W) {
      for (auto It = K.begin(); It != K.end();)
        It = W.hasSgpr(It->first) || W.hasSgpr(It->first + 1) ? K.erase(It)
                                                               : std::next(It);
    };
    // Steps \p K over instruction \p I; with \p Resolve, a call through a
    // known pair gets its target.
    auto Step = [&](KnownPairs &K, BinaryInstruction &I, bool Resolve) {
      const MCInst &Inst = I.Inst;
      StringRef Name = MC.opcodeBaseName(Inst.getOpcode());
      if (I.Info.Flow == isa::ControlFlow::Call) {
        // Its target: known, or through a pair known here (in the pass to
        // the fixed point, an assumption the next round checks).
        std::optional<uint64_t> Target = I.Info.Target;
        const MCOperand *Through = isa::targetRegOperand(Inst);
        if (I.Info.Source == isa::TargetSource::None && Through) {
          SmallVector<unsigned, 4> Pair =
              MC.scalarCodes(Through->getReg().id());
          if (Pair.size() == 2 && Pair[1] == Pair[0] + 1)
            if (auto Known = K.find(Pair[0]); Known != K.end())
              Target = Known->second;
          if (Resolve && Target) {
            I.Info.Target = Target;
            I.Info.Source = isa::TargetSource::PcRelative;
            if (const BinaryFunction *Callee = functionAt(*Target))
              I.Info.TargetName = Callee->name().str();
          }
        }
        const BinaryFunction *Callee = Target ? functionAt(*Target) : nullptr;
        const RegisterSet *Writes =
            Callee ? callClobbers(*Callee, *this, Clobbers) : nullptr;
        if (!Writes) {
          K.clear();
          return;
        }
        Forget(K, *Writes);
      }
      if (Name.starts_with("S_MOVREL") || !I.Info.Valid) {
        K.clear(); // writes where M0 says, or unknown
        return;
      }
      Forget(K, I.Props.Writes);
      Forget(K, I.Props.PartialWrites);
      if (I.Info.ComputedAddress && Name == "S_ADDC_U32" &&
          Inst.getOperand(0).isReg())
        if (std::optional<unsigned> Hi =
                MC.scalarCode(Inst.getOperand(0).getReg().id());
            Hi && *Hi % 2 && *Hi < MaxSgprs)
          K[*Hi - 1] = *I.Info.ComputedAddress;
    };
    // To a fixed point: a block's entry knows what all its predecessors
    // seen so far leave known alike (none seen: not reached yet).
    std::vector<std::optional<KnownPairs>> Out(Blocks.size());
    auto In = [&](unsigned BI) {
      std::optional<KnownPairs> K;
      if (BI == 0)
        K.emplace();
      for (unsigned P : Blocks[BI].Predecessors) {
        if (!Out[P])
          continue;
        if (!K) {
          K = *Out[P];
          continue;
        }
        for (auto It = K->begin(); It != K->end();) {
          auto O = Out[P]->find(It->first);
          It = O == Out[P]->end() || O->second != It->second ? K->erase(It)
                                                              : std::next(It);
        }
      }
      return K;
    };
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (unsigned BI = 0; BI < Blocks.size(); ++BI) {
        std::optional<KnownPairs> K = In(BI);
        if (!K)
          continue;
        for (BinaryInstruction &I : Blocks[BI].Instructions)
          Step(*K, I, /*Resolve=*/false);
        if (Out[BI] != K) {
          Out[BI] = std::move(K);
          Changed = true;
        }
      }
    }
    for (unsigned BI = 0; BI < Blocks.size(); ++BI)
      if (std::optional<KnownPairs> K = In(BI))
        for (BinaryInstruction &I : Blocks[BI].Instructions)
          Step(*K, I, /*Resolve=*/true);
  }
}

Error BinaryContext::buildCFGs() {
  for (const auto &F : Functions)
    if (F->state() == FunctionState::Disassembled)
      if (Error E = F->buildCFG())
        return E;
  resolveCallsAcrossBlocks();

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
