//===- tool/Tool.cpp - The tool API's own functions -----------------------===//

#include "Registry.h"

#include "loom/instrument/Tool.h"

#include <mutex>

using namespace llvm;

namespace loom::instrument {

std::vector<BinaryFunction *> KernelInstrumentation::functions() const {
  // The kernel, then its callees breadth first, each once.
  std::vector<BinaryFunction *> Order;
  for (const BinaryFunction *F : BC.callGraph().reachableFrom(Kernel))
    Order.push_back(BC.function(F->name()));
  return Order;
}

void registerTool(const char *Name, ToolFactory Factory,
                  const void *AnchorInLibrary) {
  tool::Registry &R = tool::registry();
  std::lock_guard<std::mutex> L(R.Lock);
  R.Tools.push_back({Name, Factory, AnchorInLibrary});
}

} // namespace loom::instrument
