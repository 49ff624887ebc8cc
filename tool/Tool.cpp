//===- tool/Tool.cpp - The tool API's own functions -----------------------===//

#include "Registry.h"

#include "loom/instrument/DispatchAbi.h"
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
  // Kept back for Loom's own code above the kernel's registers: the launch
  // state, a long branch's registers, the counters' scratch, and room to
  // move hook bodies above the kernel's registers.
  constexpr unsigned Reserved = 16, Sgprs = 102; // s0..s101 on gfx9
  RegisterSet Used;
  for (const BinaryFunction *F : functions())
    for (const BinaryBasicBlock &B : F->blocks())
      for (const BinaryInstruction &I : B.Instructions)
        Used |= I.Props.Reads | I.Props.Writes;
  const codeobj::CodeObject &CO = BC.codeObject();
  const codeobj::Kernel *K = CO.findKernel(Kernel.name());
  if (K)
    Used |= initialRegisters(K->KD, CO.target().Processor);
  unsigned Count = 0; // SGPRs are the first units
  Used.forEachUnit([&](unsigned U) {
    if (U < Sgprs)
      Count = std::max(Count, U + 1);
  });
  // Code it calls that is not copied may use what the metadata says.
  if (const codeobj::KernelMetadata *MD = K ? CO.metadataOf(*K) : nullptr)
    Count = std::max<unsigned>(Count, MD->SgprCount);
  return Count + Reserved >= Sgprs ? 0 : Sgprs - Count - Reserved;
}

void registerTool(const char *Name, ToolFactory Factory,
                  const void *AnchorInLibrary) {
  tool::Registry &R = tool::registry();
  std::lock_guard<std::mutex> L(R.Lock);
  R.Tools.push_back({Name, Factory, AnchorInLibrary});
}

} // namespace loom::instrument
