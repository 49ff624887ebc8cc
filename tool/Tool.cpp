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

namespace {
RegistersInUse inUse(const KernelInstrumentation &K) {
  std::vector<BinaryFunction *> Functions = K.functions();
  std::vector<const BinaryFunction *> Copied(Functions.begin(),
                                             Functions.end());
  return registersInUse(K.context(), {&K.kernel()}, Copied);
}
} // namespace

unsigned KernelInstrumentation::spareSgprs() const {
  unsigned Taken = unsigned(inUse(*this).HighestSgpr + 1) + LoomOwnSgprs;
  return Taken >= MaxSgprs ? 0 : MaxSgprs - Taken;
}

unsigned KernelInstrumentation::spareVgprs() const {
  // One for the launch state's lanes or a long branch's, and one to align
  // a pair.
  unsigned Taken = unsigned(inUse(*this).HighestVgpr + 1) + 2;
  return Taken >= MaxVgprs ? 0 : MaxVgprs - Taken;
}

void registerTool(const char *Name, ToolFactory Factory,
                  const void *AnchorInLibrary) {
  tool::Registry &R = tool::registry();
  std::lock_guard<std::mutex> L(R.Lock);
  R.Tools.push_back({Name, Factory, AnchorInLibrary});
}

} // namespace loom::instrument
