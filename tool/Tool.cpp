//===- tool/Tool.cpp - The tool API's own functions -----------------------===//

#include "Registry.h"

#include "loom/instrument/Tool.h"

#include <mutex>
#include <set>

using namespace llvm;

namespace loom::instrument {

std::vector<BinaryFunction *> KernelInstrumentation::functions() const {
  // The kernel, then its callees breadth first, each once.
  std::vector<BinaryFunction *> Order{&Kernel};
  std::set<const BinaryFunction *> Seen{&Kernel};
  for (size_t I = 0; I != Order.size(); ++I)
    for (const CallSite *S : BC.callGraph().callsFrom(*Order[I]))
      if (S->Callee && Seen.insert(S->Callee).second)
        Order.push_back(S->Callee);
  return Order;
}

void registerTool(const char *Name, ToolFactory Factory,
                  const void *AnchorInLibrary) {
  tool::Registry &R = tool::registry();
  std::lock_guard<std::mutex> L(R.Lock);
  R.Tools.push_back({Name, Factory, AnchorInLibrary});
}

} // namespace loom::instrument
