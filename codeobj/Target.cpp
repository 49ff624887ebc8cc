//===- codeobj/Target.cpp - AMDGPU target ids ------------------------------===//

#include "loom/codeobj/Target.h"

#include "llvm/ADT/Twine.h"
#include "llvm/BinaryFormat/ELF.h"

using namespace llvm;

namespace loom::codeobj {

StringRef featureSettingName(FeatureSetting S) {
  switch (S) {
  case FeatureSetting::Unsupported:
    return "unsupported";
  case FeatureSetting::Any:
    return "any";
  case FeatureSetting::Off:
    return "off";
  case FeatureSetting::On:
    return "on";
  }
  return "unknown";
}

static FeatureSetting decodeV4(uint32_t Field, uint32_t Any, uint32_t Off,
                               uint32_t On) {
  if (Field == On)
    return FeatureSetting::On;
  if (Field == Off)
    return FeatureSetting::Off;
  if (Field == Any)
    return FeatureSetting::Any;
  return FeatureSetting::Unsupported;
}

TargetId TargetId::fromElf(StringRef Processor, uint32_t EFlags,
                           unsigned AbiVersion) {
  TargetId T;
  T.Processor = Processor.str();
  if (AbiVersion <= 3) {
    // v3 has one bit per feature: set means on, clear means off.
    T.Xnack = (EFlags & ELF::EF_AMDGPU_FEATURE_XNACK_V3) ? FeatureSetting::On
                                                         : FeatureSetting::Off;
    T.Sramecc = (EFlags & ELF::EF_AMDGPU_FEATURE_SRAMECC_V3)
                    ? FeatureSetting::On
                    : FeatureSetting::Off;
    return T;
  }
  T.Xnack = decodeV4(EFlags & ELF::EF_AMDGPU_FEATURE_XNACK_V4,
                     ELF::EF_AMDGPU_FEATURE_XNACK_ANY_V4,
                     ELF::EF_AMDGPU_FEATURE_XNACK_OFF_V4,
                     ELF::EF_AMDGPU_FEATURE_XNACK_ON_V4);
  T.Sramecc = decodeV4(EFlags & ELF::EF_AMDGPU_FEATURE_SRAMECC_V4,
                       ELF::EF_AMDGPU_FEATURE_SRAMECC_ANY_V4,
                       ELF::EF_AMDGPU_FEATURE_SRAMECC_OFF_V4,
                       ELF::EF_AMDGPU_FEATURE_SRAMECC_ON_V4);
  if (AbiVersion >= 6)
    T.GenericVersion = (EFlags & ELF::EF_AMDGPU_GENERIC_VERSION) >>
                       ELF::EF_AMDGPU_GENERIC_VERSION_OFFSET;
  return T;
}

std::string TargetId::str() const {
  std::string S = Processor;
  auto Append = [&](StringRef Name, FeatureSetting F) {
    if (F == FeatureSetting::On || F == FeatureSetting::Off)
      S += (Twine(":") + Name + (F == FeatureSetting::On ? "+" : "-")).str();
  };
  Append("sramecc", Sramecc);
  Append("xnack", Xnack);
  return S;
}

} // namespace loom::codeobj
