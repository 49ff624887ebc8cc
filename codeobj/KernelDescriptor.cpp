//===- codeobj/KernelDescriptor.cpp - Decode the 64-byte descriptor -------===//

#include "loom/codeobj/KernelDescriptor.h"

#include "llvm/Support/AMDHSAKernelDescriptor.h"
#include "llvm/Support/Endian.h"

using namespace llvm;
using namespace llvm::amdhsa;

namespace loom::codeobj {

// Extracts the field NAME (from AMDHSAKernelDescriptor.h's NAME and
// NAME_SHIFT enumerators) of a register value.
#define LOOM_KD_FIELD(REG, NAME) (((REG) & (NAME)) >> (NAME##_SHIFT))

KernelDescriptor KernelDescriptor::decode(const uint8_t *B) {
  auto U16 = [&](unsigned Off) { return support::endian::read16le(B + Off); };
  auto U32 = [&](unsigned Off) { return support::endian::read32le(B + Off); };

  KernelDescriptor KD;
  KD.GroupSegmentFixedSize = U32(GROUP_SEGMENT_FIXED_SIZE_OFFSET);
  KD.PrivateSegmentFixedSize = U32(PRIVATE_SEGMENT_FIXED_SIZE_OFFSET);
  KD.KernargSize = U32(KERNARG_SIZE_OFFSET);
  KD.KernelCodeEntryByteOffset = static_cast<int64_t>(
      support::endian::read64le(B + KERNEL_CODE_ENTRY_BYTE_OFFSET_OFFSET));
  KD.ComputePgmRsrc3 = U32(COMPUTE_PGM_RSRC3_OFFSET);
  KD.ComputePgmRsrc1 = U32(COMPUTE_PGM_RSRC1_OFFSET);
  KD.ComputePgmRsrc2 = U32(COMPUTE_PGM_RSRC2_OFFSET);
  KD.KernelCodePropertiesRaw = U16(KERNEL_CODE_PROPERTIES_OFFSET);
  KD.KernargPreloadRaw = U16(KERNARG_PRELOAD_OFFSET);

  const uint32_t R1 = KD.ComputePgmRsrc1;
  PgmRsrc1 &P1 = KD.Rsrc1;
  P1.GranulatedWorkitemVgprCount =
      LOOM_KD_FIELD(R1, COMPUTE_PGM_RSRC1_GRANULATED_WORKITEM_VGPR_COUNT);
  P1.GranulatedWavefrontSgprCount =
      LOOM_KD_FIELD(R1, COMPUTE_PGM_RSRC1_GRANULATED_WAVEFRONT_SGPR_COUNT);
  P1.Priority = LOOM_KD_FIELD(R1, COMPUTE_PGM_RSRC1_PRIORITY);
  P1.FloatRoundMode32 = LOOM_KD_FIELD(R1, COMPUTE_PGM_RSRC1_FLOAT_ROUND_MODE_32);
  P1.FloatRoundMode16_64 =
      LOOM_KD_FIELD(R1, COMPUTE_PGM_RSRC1_FLOAT_ROUND_MODE_16_64);
  P1.FloatDenormMode32 =
      LOOM_KD_FIELD(R1, COMPUTE_PGM_RSRC1_FLOAT_DENORM_MODE_32);
  P1.FloatDenormMode16_64 =
      LOOM_KD_FIELD(R1, COMPUTE_PGM_RSRC1_FLOAT_DENORM_MODE_16_64);
  P1.Priv = LOOM_KD_FIELD(R1, COMPUTE_PGM_RSRC1_PRIV);
  P1.EnableDx10Clamp =
      LOOM_KD_FIELD(R1, COMPUTE_PGM_RSRC1_GFX6_GFX11_ENABLE_DX10_CLAMP);
  P1.DebugMode = LOOM_KD_FIELD(R1, COMPUTE_PGM_RSRC1_DEBUG_MODE);
  P1.EnableIeeeMode =
      LOOM_KD_FIELD(R1, COMPUTE_PGM_RSRC1_GFX6_GFX11_ENABLE_IEEE_MODE);
  P1.Bulky = LOOM_KD_FIELD(R1, COMPUTE_PGM_RSRC1_BULKY);
  P1.CdbgUser = LOOM_KD_FIELD(R1, COMPUTE_PGM_RSRC1_CDBG_USER);
  P1.Fp16Ovfl = LOOM_KD_FIELD(R1, COMPUTE_PGM_RSRC1_GFX9_PLUS_FP16_OVFL);

  const uint32_t R2 = KD.ComputePgmRsrc2;
  PgmRsrc2 &P2 = KD.Rsrc2;
  P2.EnablePrivateSegment =
      LOOM_KD_FIELD(R2, COMPUTE_PGM_RSRC2_ENABLE_PRIVATE_SEGMENT);
  P2.UserSgprCount =
      LOOM_KD_FIELD(R2, COMPUTE_PGM_RSRC2_GFX6_GFX120_USER_SGPR_COUNT);
  P2.EnableTrapHandler =
      LOOM_KD_FIELD(R2, COMPUTE_PGM_RSRC2_GFX6_GFX11_ENABLE_TRAP_HANDLER);
  P2.EnableSgprWorkgroupIdX =
      LOOM_KD_FIELD(R2, COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_X);
  P2.EnableSgprWorkgroupIdY =
      LOOM_KD_FIELD(R2, COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_Y);
  P2.EnableSgprWorkgroupIdZ =
      LOOM_KD_FIELD(R2, COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_Z);
  P2.EnableSgprWorkgroupInfo =
      LOOM_KD_FIELD(R2, COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_INFO);
  P2.EnableVgprWorkitemId =
      LOOM_KD_FIELD(R2, COMPUTE_PGM_RSRC2_ENABLE_VGPR_WORKITEM_ID);
  P2.EnableExceptionAddressWatch =
      LOOM_KD_FIELD(R2, COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_ADDRESS_WATCH);
  P2.EnableExceptionMemory =
      LOOM_KD_FIELD(R2, COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_MEMORY);
  P2.GranulatedLdsSize = LOOM_KD_FIELD(R2, COMPUTE_PGM_RSRC2_GRANULATED_LDS_SIZE);
  P2.ExceptionMask = (R2 >> 24) & 0x7f;

  const uint32_t R3 = KD.ComputePgmRsrc3;
  KD.Rsrc3.AccumOffset =
      LOOM_KD_FIELD(R3, COMPUTE_PGM_RSRC3_GFX90A_ACCUM_OFFSET);
  KD.Rsrc3.TgSplit = LOOM_KD_FIELD(R3, COMPUTE_PGM_RSRC3_GFX90A_TG_SPLIT);

  const uint32_t KCP = KD.KernelCodePropertiesRaw;
  KernelCodeProperties &P = KD.Properties;
  P.EnableSgprPrivateSegmentBuffer =
      LOOM_KD_FIELD(KCP, KERNEL_CODE_PROPERTY_ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER);
  P.EnableSgprDispatchPtr =
      LOOM_KD_FIELD(KCP, KERNEL_CODE_PROPERTY_ENABLE_SGPR_DISPATCH_PTR);
  P.EnableSgprQueuePtr =
      LOOM_KD_FIELD(KCP, KERNEL_CODE_PROPERTY_ENABLE_SGPR_QUEUE_PTR);
  P.EnableSgprKernargSegmentPtr =
      LOOM_KD_FIELD(KCP, KERNEL_CODE_PROPERTY_ENABLE_SGPR_KERNARG_SEGMENT_PTR);
  P.EnableSgprDispatchId =
      LOOM_KD_FIELD(KCP, KERNEL_CODE_PROPERTY_ENABLE_SGPR_DISPATCH_ID);
  P.EnableSgprFlatScratchInit =
      LOOM_KD_FIELD(KCP, KERNEL_CODE_PROPERTY_ENABLE_SGPR_FLAT_SCRATCH_INIT);
  P.EnableSgprPrivateSegmentSize =
      LOOM_KD_FIELD(KCP, KERNEL_CODE_PROPERTY_ENABLE_SGPR_PRIVATE_SEGMENT_SIZE);
  P.EnableWavefrontSize32 =
      LOOM_KD_FIELD(KCP, KERNEL_CODE_PROPERTY_ENABLE_WAVEFRONT_SIZE32);
  P.UsesDynamicStack =
      LOOM_KD_FIELD(KCP, KERNEL_CODE_PROPERTY_USES_DYNAMIC_STACK);

  KD.KernargPreloadLength =
      LOOM_KD_FIELD(KD.KernargPreloadRaw, KERNARG_PRELOAD_SPEC_LENGTH);
  KD.KernargPreloadOffset =
      LOOM_KD_FIELD(KD.KernargPreloadRaw, KERNARG_PRELOAD_SPEC_OFFSET);
  return KD;
}

#undef LOOM_KD_FIELD

uint32_t KernelDescriptor::enabledUserSgprCount() const {
  // Sizes in SGPRs, AMDGPUUsage "Initial Kernel Execution State".
  const KernelCodeProperties &P = Properties;
  return 4 * P.EnableSgprPrivateSegmentBuffer + 2 * P.EnableSgprDispatchPtr +
         2 * P.EnableSgprQueuePtr + 2 * P.EnableSgprKernargSegmentPtr +
         2 * P.EnableSgprDispatchId + 2 * P.EnableSgprFlatScratchInit +
         1 * P.EnableSgprPrivateSegmentSize;
}

} // namespace loom::codeobj
