//===- instrument/CallGraph.cpp - Calls between lifted functions ----------===//

#include "loom/instrument/CallGraph.h"

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

const CallSite *CallGraph::siteAt(uint64_t Address) const {
  for (const CallSite &S : Sites)
    if (S.Address == Address)
      return &S;
  return nullptr;
}

} // namespace loom::instrument
