//===- tool/Tool.cpp - The tool API's own functions -----------------------===//

#include "Registry.h"

#include "loom/instrument/RegisterBudget.h"
#include "loom/instrument/Tool.h"

#include <algorithm>
#include <mutex>

using namespace llvm;

namespace loom::instrument {

std::vector<BinaryFunction *> KernelInstrumentation::functions() const {
  // The kernel, then its callees breadth first, each once (a call through
  // a pointer may reach every function of the code object).
  std::vector<BinaryFunction *> Order;
  for (const BinaryFunction *F : BC.callGraph().reachableFrom(Kernel))
    Order.push_back(BC.function(F->name()));
  return Order;
}

unsigned KernelInstrumentation::spareSgprs() const {
  std::vector<BinaryFunction *> Functions = functions();
  std::vector<const BinaryFunction *> Copied(Functions.begin(),
                                             Functions.end());
  RegistersInUse R = registersInUse(BC, {&Kernel}, Copied);
  unsigned Taken = unsigned(R.HighestSgpr + 1) + LoomOwnSgprs;
  return Taken >= MaxSgprs ? 0 : MaxSgprs - Taken;
}

void registerTool(const char *Name, ToolFactory Factory,
                  const void *AnchorInLibrary) {
  tool::Registry &R = tool::registry();
  std::lock_guard<std::mutex> L(R.Lock);
  R.Tools.push_back({Name, Factory, AnchorInLibrary});
}

} // namespace loom::instrument
