//===- tool/InstrumenterStub.cpp - TEMPORARY stand-in for the generator ---===//
//
// Until instrument/Instrumenter.cpp lands: records the plan and "instruments"
// by handing back the original code object unchanged (hooks are ignored),
// so the tool runtime's redirection and loading can be exercised. Delete
// when the code generator is merged.
//
//===----------------------------------------------------------------------===//

#include "loom/instrument/Instrumenter.h"

using namespace llvm;

namespace loom::instrument {

StringRef hookPointName(HookPoint P) {
  switch (P) {
  case HookPoint::Before: return "before";
  case HookPoint::After: return "after";
  case HookPoint::BlockEntry: return "block-entry";
  case HookPoint::KernelEntry: return "kernel-entry";
  case HookPoint::KernelExit: return "kernel-exit";
  }
  return "?";
}

std::string HookArg::str() const { return "arg"; }

Error InstrumentationPlan::add(HookRequest R) {
  Requests.push_back(std::move(R));
  return Error::success();
}
Error InstrumentationPlan::before(const BinaryFunction &F,
                                  const BinaryInstruction &I, StringRef Hook,
                                  std::vector<HookArg> Args) {
  return add({F.name().str(), HookPoint::Before, I.Info.Address,
              {Hook.str(), std::move(Args)}});
}
Error InstrumentationPlan::after(const BinaryFunction &F,
                                 const BinaryInstruction &I, StringRef Hook,
                                 std::vector<HookArg> Args) {
  return add({F.name().str(), HookPoint::After, I.Info.Address,
              {Hook.str(), std::move(Args)}});
}
Error InstrumentationPlan::atBlockEntry(const BinaryFunction &F,
                                        const BinaryBasicBlock &B,
                                        StringRef Hook,
                                        std::vector<HookArg> Args) {
  return add({F.name().str(), HookPoint::BlockEntry, 0,
              {Hook.str(), std::move(Args)}});
}
Error InstrumentationPlan::atKernelEntry(const BinaryFunction &K,
                                         StringRef Hook,
                                         std::vector<HookArg> Args) {
  return add({K.name().str(), HookPoint::KernelEntry, 0,
              {Hook.str(), std::move(Args)}});
}
Error InstrumentationPlan::atKernelExit(const BinaryFunction &K,
                                        StringRef Hook,
                                        std::vector<HookArg> Args) {
  return add({K.name().str(), HookPoint::KernelExit, 0,
              {Hook.str(), std::move(Args)}});
}

const InstrumentedKernel *
InstrumentedCodeObject::kernel(StringRef Original) const {
  for (const InstrumentedKernel &K : Kernels)
    if (K.Original == Original)
      return &K;
  return nullptr;
}

Expected<InstrumentedCodeObject>
instrumentCodeObject(const InstrumentationPlan &Plan,
                     ArrayRef<HookLibrary> Hooks,
                     const InstrumentOptions &Options) {
  InstrumentedCodeObject Out;
  ArrayRef<uint8_t> Bytes = Plan.context().codeObject().bytes();
  Out.Elf.assign(Bytes.begin(), Bytes.end());
  for (const std::string &K : Plan.kernels())
    Out.Kernels.push_back({K, K, 0, 0, 0});
  Out.Assembly = "; stub: the original code object\n";
  return Out;
}

} // namespace loom::instrument
