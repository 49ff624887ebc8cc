//===- loom/codeobj/Target.h - AMDGPU target ids ---------------------------===//
//
// A target id as AMDGPUUsage "Target ID" defines it: a processor name plus
// the xnack and sramecc settings, e.g. "gfx90a:sramecc+:xnack-".
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_CODEOBJ_TARGET_H
#define LOOM_CODEOBJ_TARGET_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace loom::codeobj {

/// A target feature setting. Unsupported: the processor lacks the feature;
/// Any: code works either way (the feature is absent from the target id).
enum class FeatureSetting : uint8_t { Unsupported, Any, Off, On };

llvm::StringRef featureSettingName(FeatureSetting S);

struct TargetId {
  std::string Processor; // "gfx90a"; empty if e_flags names no processor
  FeatureSetting Xnack = FeatureSetting::Unsupported;
  FeatureSetting Sramecc = FeatureSetting::Unsupported;
  /// Code object v6 generic processor version (0 if not generic).
  unsigned GenericVersion = 0;

  /// Builds the id of a code object from its processor name (which LLVM
  /// derives from EF_AMDGPU_MACH) and its e_flags feature fields, whose
  /// layout depends on the code object ABI version (3 to 6).
  static TargetId fromElf(llvm::StringRef Processor, uint32_t EFlags,
                          unsigned AbiVersion);

  /// "gfx90a:sramecc+:xnack-": settings that are On/Off are spelled out,
  /// in the canonical (alphabetical) order.
  std::string str() const;
};

} // namespace loom::codeobj

#endif // LOOM_CODEOBJ_TARGET_H
