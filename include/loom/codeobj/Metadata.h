//===- loom/codeobj/Metadata.h - NT_AMDGPU_METADATA, decoded ---------------===//
//
// The msgpack metadata note of code object v3+ (AMDGPUUsage "Code Object V3
// to V6 Metadata"), as plain data. Keys a producer did not emit stay unset.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_CODEOBJ_METADATA_H
#define LOOM_CODEOBJ_METADATA_H

#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace loom::codeobj {

struct KernelArgMetadata {
  std::string Name;          // .name
  std::string TypeName;      // .type_name
  uint64_t Offset = 0;       // .offset
  uint64_t Size = 0;         // .size
  std::string ValueKind;     // .value_kind: by_value, global_buffer, hidden_*...
  std::string AddressSpace;  // .address_space: global, constant, generic...
  std::string Access;        // .access
  std::string ActualAccess;  // .actual_access
  std::optional<uint64_t> PointeeAlign; // .pointee_align
  bool IsConst = false;
  bool IsRestrict = false;
  bool IsVolatile = false;
  bool IsPipe = false;

  bool isHidden() const { return ValueKind.rfind("hidden_", 0) == 0; }
};

struct KernelMetadata {
  std::string Name;    // .name
  std::string Symbol;  // .symbol (the descriptor, "<name>.kd")
  std::string LanguageName;
  std::vector<uint64_t> LanguageVersion;
  std::vector<KernelArgMetadata> Args;
  uint64_t KernargSegmentSize = 0;
  uint64_t KernargSegmentAlign = 0;
  uint64_t GroupSegmentFixedSize = 0;
  uint64_t PrivateSegmentFixedSize = 0;
  uint64_t WavefrontSize = 0;
  uint64_t SgprCount = 0;
  uint64_t VgprCount = 0;
  uint64_t AgprCount = 0;
  uint64_t SgprSpillCount = 0;
  uint64_t VgprSpillCount = 0;
  uint64_t MaxFlatWorkgroupSize = 0;
  std::optional<bool> UniformWorkgroupSize; // v5+
  std::optional<bool> UsesDynamicStack;
  std::optional<std::array<uint64_t, 3>> ReqdWorkgroupSize;
  std::optional<std::array<uint64_t, 3>> WorkgroupSizeHint;
  std::optional<std::string> Kind; // .kind: normal, init, fini
};

struct Metadata {
  std::vector<uint64_t> Version; // amdhsa.version
  std::string Target;            // amdhsa.target
  std::vector<KernelMetadata> Kernels;
  std::vector<std::string> Printf; // amdhsa.printf format descriptors

  /// Parses the msgpack blob of an NT_AMDGPU_METADATA note. Missing
  /// required keys or mistyped values are errors; unknown keys are ignored.
  static llvm::Expected<Metadata> parse(llvm::StringRef Blob);

  const KernelMetadata *findKernel(llvm::StringRef Name) const;
};

} // namespace loom::codeobj

#endif // LOOM_CODEOBJ_METADATA_H
