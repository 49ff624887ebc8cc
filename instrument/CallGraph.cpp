//===- instrument/CallGraph.cpp - Calls between lifted functions ----------===//

#include "loom/instrument/CallGraph.h"

#include "llvm/ADT/SetVector.h"

namespace loom::instrument {

std::vector<const CallSite *>
CallGraph::callsFrom(const BinaryFunction &F) const {
  std::vector<const CallSite *> Out;
  for (const CallSite &S : Sites)
    if (S.Caller == &F)
      Out.push_back(&S);
  return Out;
}

std::vector<const CallSite *> CallGraph::callsTo(const BinaryFunction &F) const {
  std::vector<const CallSite *> Out;
  for (const CallSite &S : Sites)
    if (S.Callee == &F)
      Out.push_back(&S);
  return Out;
}

std::vector<const BinaryFunction *> CallGraph::reachableFrom(
    const BinaryFunction &Root,
    llvm::function_ref<bool(const BinaryFunction *)> Through) const {
  llvm::SetVector<const BinaryFunction *, std::vector<const BinaryFunction *>>
      Reach;
  Reach.insert(&Root);
  for (unsigned I = 0; I < Reach.size(); ++I)
    for (const CallSite *S : callsFrom(*Reach[I])) {
      if (S->Callee && (!Through || Through(S->Callee)))
        Reach.insert(S->Callee);
      if (S->isIndirect())
        for (const BinaryFunction *T : IndirectTargets)
          if (!Through || Through(T))
            Reach.insert(T);
    }
  return Reach.takeVector();
}

const CallSite *CallGraph::siteAt(uint64_t Address) const {
  for (const CallSite &S : Sites)
    if (S.Address == Address)
      return &S;
  return nullptr;
}

} // namespace loom::instrument
