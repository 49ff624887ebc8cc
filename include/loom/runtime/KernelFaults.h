//===- loom/runtime/KernelFaults.h - Faulting kernels as reported errors --===//
//
// By default a kernel that faults puts its queue in error and calls the
// queue's error callback, as ROCr does. HIP 5.2's callback aborts the process
// and its synchronising calls never return an error, so under HIP the runtime
// can instead record the fault, complete the packet and go on; Loom's HIP
// shim (hsa/HipFaultShim.c, preloaded by `loom exec`) then turns the record
// into the error of the next synchronising HIP call. The mode is the setting
// LOOM_KERNEL_FAULTS: "queue-error" (default) or "report".
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_RUNTIME_KERNELFAULTS_H
#define LOOM_RUNTIME_KERNELFAULTS_H

#include "hsa/hsa.h"

#include <cstdint>

namespace loom::runtime {

/// True if LOOM_KERNEL_FAULTS=report: faults are recorded, not queue errors.
bool reportKernelFaults();

/// Records one faulting dispatch with the status its queue would have got.
void recordKernelFault(hsa_status_t Status);

/// Number of faulting dispatches recorded so far; the first one's status in
/// \p FirstStatus (if not null and the count is not 0).
uint64_t kernelFaults(hsa_status_t *FirstStatus);

} // namespace loom::runtime

#endif // LOOM_RUNTIME_KERNELFAULTS_H
