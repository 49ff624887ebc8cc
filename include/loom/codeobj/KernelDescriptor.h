//===- loom/codeobj/KernelDescriptor.h - The 64-byte AMDHSA descriptor ----===//
//
// A kernel descriptor (`<kernel>.kd`) as AMDGPUUsage "Kernel Descriptor"
// defines it, decoded field by field. Bit positions come from LLVM's
// AMDHSAKernelDescriptor.h, the single definition of the layout.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_CODEOBJ_KERNELDESCRIPTOR_H
#define LOOM_CODEOBJ_KERNELDESCRIPTOR_H

#include <cstdint>

namespace loom::codeobj {

/// COMPUTE_PGM_RSRC1, GFX6-GFX9 meaning of each field.
struct PgmRsrc1 {
  uint32_t GranulatedWorkitemVgprCount = 0;
  uint32_t GranulatedWavefrontSgprCount = 0;
  uint32_t Priority = 0;
  uint32_t FloatRoundMode32 = 0;
  uint32_t FloatRoundMode16_64 = 0;
  uint32_t FloatDenormMode32 = 0;
  uint32_t FloatDenormMode16_64 = 0;
  bool Priv = false;
  bool EnableDx10Clamp = false;
  bool DebugMode = false;
  bool EnableIeeeMode = false;
  bool Bulky = false;
  bool CdbgUser = false;
  bool Fp16Ovfl = false;
};

/// COMPUTE_PGM_RSRC2.
struct PgmRsrc2 {
  bool EnablePrivateSegment = false;
  uint32_t UserSgprCount = 0;
  bool EnableTrapHandler = false;
  bool EnableSgprWorkgroupIdX = false;
  bool EnableSgprWorkgroupIdY = false;
  bool EnableSgprWorkgroupIdZ = false;
  bool EnableSgprWorkgroupInfo = false;
  /// 0: X, 1: X and Y, 2: X, Y and Z.
  uint32_t EnableVgprWorkitemId = 0;
  bool EnableExceptionAddressWatch = false;
  bool EnableExceptionMemory = false;
  uint32_t GranulatedLdsSize = 0;
  /// The seven ENABLE_EXCEPTION_* floating-point/int bits (24..30), as a mask.
  uint32_t ExceptionMask = 0;
};

/// COMPUTE_PGM_RSRC3 as GFX90A/GFX942 define it.
struct PgmRsrc3Gfx90a {
  /// Raw field; the first AGPR is at VGPR index (AccumOffset + 1) * 4.
  uint32_t AccumOffset = 0;
  bool TgSplit = false;
};

/// KERNEL_CODE_PROPERTIES: which user SGPRs the kernel expects.
struct KernelCodeProperties {
  bool EnableSgprPrivateSegmentBuffer = false;
  bool EnableSgprDispatchPtr = false;
  bool EnableSgprQueuePtr = false;
  bool EnableSgprKernargSegmentPtr = false;
  bool EnableSgprDispatchId = false;
  bool EnableSgprFlatScratchInit = false;
  bool EnableSgprPrivateSegmentSize = false;
  bool EnableWavefrontSize32 = false;
  bool UsesDynamicStack = false;
};

struct KernelDescriptor {
  static constexpr unsigned Size = 64;

  uint32_t GroupSegmentFixedSize = 0;
  uint32_t PrivateSegmentFixedSize = 0;
  uint32_t KernargSize = 0;
  /// Byte offset from the descriptor's own address to the kernel's entry.
  int64_t KernelCodeEntryByteOffset = 0;
  uint32_t ComputePgmRsrc1 = 0;
  uint32_t ComputePgmRsrc2 = 0;
  uint32_t ComputePgmRsrc3 = 0;
  uint16_t KernelCodePropertiesRaw = 0;
  uint16_t KernargPreloadRaw = 0;

  PgmRsrc1 Rsrc1;
  PgmRsrc2 Rsrc2;
  PgmRsrc3Gfx90a Rsrc3;
  KernelCodeProperties Properties;
  uint32_t KernargPreloadLength = 0;
  uint32_t KernargPreloadOffset = 0;

  /// Decodes exactly KernelDescriptor::Size little-endian bytes.
  static KernelDescriptor decode(const uint8_t *Bytes);

  /// First AGPR index in the unified gfx90a register file.
  uint32_t accumOffsetInVgprs() const { return (Rsrc3.AccumOffset + 1) * 4; }
  /// Number of user SGPRs the enabled properties imply, in ABI order.
  uint32_t enabledUserSgprCount() const;
};

} // namespace loom::codeobj

#endif // LOOM_CODEOBJ_KERNELDESCRIPTOR_H
