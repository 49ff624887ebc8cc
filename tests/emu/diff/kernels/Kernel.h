//===- Kernel.h - What every differential-test kernel source shares -------===//
#ifndef LOOM_TESTS_EMU_DIFF_KERNELS_KERNEL_H
#define LOOM_TESTS_EMU_DIFF_KERNELS_KERNEL_H

#include "DiffCommon.h"

#define DIFF_KERNEL                                                            \
  extern "C" __attribute__((amdgpu_kernel, visibility("default"))) void
#define DIFF_LDS __attribute__((address_space(3), loader_uninitialized))

/// Element-wise kernels are launched with 64 work-items per group; the ABI
/// test in dispatch.cpp covers reading the size from the hidden arguments.
inline constexpr uint32_t ElementwiseGroup = 64;

DIFF_FN uint32_t laneId() { return __builtin_amdgcn_workitem_id_x(); }
DIFF_FN uint32_t globalId() {
  return __builtin_amdgcn_workgroup_id_x() * ElementwiseGroup +
         __builtin_amdgcn_workitem_id_x();
}

/// __syncthreads(): LDS and global writes before it are visible to the
/// work-group after it.
DIFF_FN void syncGroup() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

#endif // LOOM_TESTS_EMU_DIFF_KERNELS_KERNEL_H
