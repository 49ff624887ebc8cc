//===- hsa/HipFaultShim.c - Kernel faults as HIP errors under `loom exec` -===//
//
// HIP 5.2 (ROCclr) aborts the process from its queue error callback when a
// kernel faults, and its synchronising calls have no way to return a kernel's
// failure. Under `loom exec` this file (part of the preloaded shim) asks the
// runtime to record faults instead (LOOM_KERNEL_FAULTS=report, only when the
// program uses HIP), and wraps HIP's synchronising and error-query calls:
// once a kernel has faulted they return hipErrorIllegalAddress (memory fault)
// or hipErrorLaunchFailure (illegal instruction, trap) after doing their
// work, from then on, like CUDA's sticky errors. Programs that never fault
// see HIP's own results.
//
//===----------------------------------------------------------------------===//
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

// From hip_runtime_api.h (HIP 5.2) and hsa.h, kept here so the shim needs
// neither header.
enum {
  HipSuccess = 0,
  HipErrorIllegalAddress = 700,
  HipErrorLaunchFailure = 719,
  HsaMemoryApertureViolation = 0x29,
};

__attribute__((constructor)) static void loomHipFaultShimInit(void) {
  // Only a program that has HIP loaded gets the reporting mode; other HSA
  // clients keep ROCr's queue-error behaviour.
  if (dlsym(RTLD_NEXT, "hipDeviceSynchronize"))
    setenv("LOOM_KERNEL_FAULTS", "report", /*overwrite=*/0);
}

// The HIP error for the faults the runtime recorded, HipSuccess if none.
static int recordedFault(void) {
  static uint64_t (*Faults)(int *);
  static int Looked;
  if (!Looked) {
    Faults = (uint64_t(*)(int *))dlsym(RTLD_DEFAULT, "loom_hsa_kernel_faults");
    Looked = 1;
  }
  int First = 0;
  if (!Faults || Faults(&First) == 0)
    return HipSuccess;
  return First == HsaMemoryApertureViolation ? HipErrorIllegalAddress
                                             : HipErrorLaunchFailure;
}

static int withFault(int Status) {
  int Fault = recordedFault();
  return Fault != HipSuccess ? Fault : Status;
}

#define LOOM_HIP_WRAP(Name, Params, Args)                                      \
  int Name Params {                                                            \
    static int(*Real) Params;                                                  \
    if (!Real)                                                                 \
      Real = (int(*) Params)dlsym(RTLD_NEXT, #Name);                           \
    return withFault(Real ? Real Args : HipErrorLaunchFailure);                \
  }

LOOM_HIP_WRAP(hipDeviceSynchronize, (void), ())
LOOM_HIP_WRAP(hipStreamSynchronize, (void *Stream), (Stream))
LOOM_HIP_WRAP(hipEventSynchronize, (void *Event), (Event))
LOOM_HIP_WRAP(hipStreamQuery, (void *Stream), (Stream))
LOOM_HIP_WRAP(hipEventQuery, (void *Event), (Event))
LOOM_HIP_WRAP(hipGetLastError, (void), ())
LOOM_HIP_WRAP(hipPeekAtLastError, (void), ())
LOOM_HIP_WRAP(hipMemcpy, (void *Dst, const void *Src, size_t Bytes, int Kind),
              (Dst, Src, Bytes, Kind))
