//===- instrument/DispatchAbi.cpp - Registers a kernel starts with --------===//

#include "loom/instrument/DispatchAbi.h"

#include <algorithm>

namespace loom::instrument {

SgprLayout SgprLayout::of(const codeobj::KernelDescriptor &KD) {
  SgprLayout L;
  unsigned N = 0;
  auto Take = [&](bool Enabled, int &Field, unsigned Size) {
    if (Enabled) {
      Field = N;
      N += Size;
    }
  };
  const codeobj::KernelCodeProperties &P = KD.Properties;
  Take(P.EnableSgprPrivateSegmentBuffer, L.PrivateSegmentBuffer, 4);
  Take(P.EnableSgprDispatchPtr, L.DispatchPtr, 2);
  Take(P.EnableSgprQueuePtr, L.QueuePtr, 2);
  Take(P.EnableSgprKernargSegmentPtr, L.KernargSegmentPtr, 2);
  Take(P.EnableSgprDispatchId, L.DispatchId, 2);
  Take(P.EnableSgprFlatScratchInit, L.FlatScratchInit, 2);
  Take(P.EnableSgprPrivateSegmentSize, L.PrivateSegmentSize, 1);
  L.EnabledUserSgprs = N;
  L.UserSgprs = std::max(N, KD.Rsrc2.UserSgprCount);
  N = L.UserSgprs;
  const codeobj::PgmRsrc2 &R2 = KD.Rsrc2;
  Take(R2.EnableSgprWorkgroupIdX, L.WorkgroupId[0], 1);
  Take(R2.EnableSgprWorkgroupIdY, L.WorkgroupId[1], 1);
  Take(R2.EnableSgprWorkgroupIdZ, L.WorkgroupId[2], 1);
  Take(R2.EnableSgprWorkgroupInfo, L.WorkgroupInfo, 1);
  Take(R2.EnablePrivateSegment, L.PrivateSegmentWaveOffset, 1);
  L.Total = N;
  return L;
}

std::vector<std::pair<unsigned, unsigned>>
SgprLayout::moves(const SgprLayout &Old, const SgprLayout &New) {
  std::vector<std::pair<unsigned, unsigned>> M;
  auto Field = [&](int O, int N, unsigned Size) {
    if (O >= 0)
      for (unsigned I = 0; I < Size; ++I)
        M.emplace_back(O + I, N + I);
  };
  Field(Old.PrivateSegmentBuffer, New.PrivateSegmentBuffer, 4);
  Field(Old.DispatchPtr, New.DispatchPtr, 2);
  Field(Old.QueuePtr, New.QueuePtr, 2);
  Field(Old.KernargSegmentPtr, New.KernargSegmentPtr, 2);
  Field(Old.DispatchId, New.DispatchId, 2);
  Field(Old.FlatScratchInit, New.FlatScratchInit, 2);
  Field(Old.PrivateSegmentSize, New.PrivateSegmentSize, 1);
  // Preloaded kernel arguments follow the enabled inputs.
  for (unsigned I = Old.EnabledUserSgprs; I < Old.UserSgprs; ++I)
    M.emplace_back(I, New.EnabledUserSgprs + I - Old.EnabledUserSgprs);
  for (int D = 0; D < 3; ++D)
    Field(Old.WorkgroupId[D], New.WorkgroupId[D], 1);
  Field(Old.WorkgroupInfo, New.WorkgroupInfo, 1);
  Field(Old.PrivateSegmentWaveOffset, New.PrivateSegmentWaveOffset, 1);
  return M;
}

bool hasUnifiedVectorFile(llvm::StringRef Processor) {
  return Processor.starts_with("gfx90a") || hasArchitectedFlatScratch(Processor);
}

bool hasArchitectedFlatScratch(llvm::StringRef Processor) {
  return Processor.starts_with("gfx94") || Processor.starts_with("gfx95");
}

RegisterSet initialRegisters(const codeobj::KernelDescriptor &KD,
                             llvm::StringRef Processor) {
  RegisterSet S;
  const auto &R2 = KD.Rsrc2;
  S.addSgprs(0, SgprLayout::of(KD).Total);
  bool Packed = hasUnifiedVectorFile(Processor);
  S.addVgprs(0, Packed ? 1 : R2.EnableVgprWorkitemId + 1);
  S.addExec().add(SpecialReg::Mode);
  if (hasArchitectedFlatScratch(Processor))
    S.add(SpecialReg::FlatScratchLo).add(SpecialReg::FlatScratchHi);
  return S;
}

} // namespace loom::instrument
