//===- instrument/DispatchAbi.cpp - Registers a kernel starts with --------===//

#include "loom/instrument/DispatchAbi.h"

namespace loom::instrument {

RegisterSet initialRegisters(const codeobj::KernelDescriptor &KD,
                             llvm::StringRef Processor) {
  RegisterSet S;
  const auto &R2 = KD.Rsrc2;
  unsigned Sgprs = R2.UserSgprCount;
  Sgprs += R2.EnableSgprWorkgroupIdX + R2.EnableSgprWorkgroupIdY +
           R2.EnableSgprWorkgroupIdZ + R2.EnableSgprWorkgroupInfo +
           R2.EnablePrivateSegment;
  S.addSgprs(0, Sgprs);
  bool Packed = Processor == "gfx90a" || Processor.starts_with("gfx94") ||
                Processor.starts_with("gfx95");
  S.addVgprs(0, Packed ? 1 : R2.EnableVgprWorkitemId + 1);
  S.addExec().add(SpecialReg::Mode);
  if (Processor.starts_with("gfx94") || Processor.starts_with("gfx95"))
    S.add(SpecialReg::FlatScratchLo).add(SpecialReg::FlatScratchHi);
  return S;
}

} // namespace loom::instrument
