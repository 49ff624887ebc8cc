//===- instrument/RegisterBudget.cpp - Registers a copy leaves free -------===//

#include "loom/instrument/RegisterBudget.h"

#include "loom/instrument/BinaryContext.h"
#include "loom/instrument/DispatchAbi.h"

#include "llvm/ADT/SmallPtrSet.h"

#include <algorithm>

using namespace llvm;

namespace loom::instrument {

RegistersInUse registersInUse(const BinaryContext &BC,
                              ArrayRef<const BinaryFunction *> Kernels,
                              ArrayRef<const BinaryFunction *> Copied) {
  RegistersInUse R;
  auto Note = [&R](const RegisterSet &S) {
    R.HighestSgpr = std::max(R.HighestSgpr, S.highestSgpr());
    R.HighestVgpr = std::max(R.HighestVgpr, S.highestVgpr());
    R.HighestAgpr = std::max(R.HighestAgpr, S.highestAgpr());
  };
  // Over the copied functions only: the original code that can run while a
  // copy is on the stack is theirs, or what a callee left uncopied may use.
  SmallPtrSet<const BinaryFunction *, 16> IsCopied(Copied.begin(),
                                                   Copied.end());
  for (const BinaryFunction *F : Copied) {
    for (const BinaryBasicBlock &B : F->blocks())
      for (const BinaryInstruction &I : B.Instructions)
        Note(I.Props.Reads | I.Props.Writes);
    for (const CallSite *C : BC.callGraph().callsFrom(*F))
      R.CallsOut |= C->isUnknown() || !IsCopied.count(C->Callee);
  }
  const codeobj::CodeObject &CO = BC.codeObject();
  int Allocated = -1;
  for (const BinaryFunction *F : Kernels) {
    const codeobj::Kernel *K = CO.findKernel(F->name());
    const codeobj::KernelMetadata *MD = K ? CO.metadataOf(*K) : nullptr;
    Allocated = MD && MD->VgprCount ? std::max<int>(Allocated, MD->VgprCount)
                                    : int(MaxVgprs);
  }
  if (Allocated > 0)
    R.HighestVgpr = std::min(R.HighestVgpr, Allocated - 1);
  for (const BinaryFunction *F : Kernels) {
    const codeobj::Kernel *K = CO.findKernel(F->name());
    if (!K)
      continue;
    Note(initialRegisters(K->KD, CO.target().Processor));
    const codeobj::KernelMetadata *MD = CO.metadataOf(*K);
    if (MD)
      R.HighestAgpr = std::max<int>(R.HighestAgpr, int(MD->AgprCount) - 1);
    if (R.CallsOut) {
      R.HighestAgpr = std::max(R.HighestAgpr, 31);
      if (MD) {
        R.HighestSgpr = std::max<int>(R.HighestSgpr, int(MD->SgprCount) - 1);
        R.HighestVgpr = std::max<int>(R.HighestVgpr, int(MD->VgprCount) - 1);
      }
    }
  }
  return R;
}

} // namespace loom::instrument
