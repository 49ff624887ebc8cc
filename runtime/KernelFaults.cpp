//===- runtime/KernelFaults.cpp - Faulting kernels as reported errors -----===//

#include "loom/runtime/KernelFaults.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace loom::runtime {

namespace {
std::atomic<uint64_t> FaultCount{0};
std::atomic<int> FirstFault{HSA_STATUS_SUCCESS};
} // namespace

bool reportKernelFaults() {
  // Read at the first fault: the HIP shim sets it before main runs.
  static const bool Report = [] {
    const char *V = std::getenv("LOOM_KERNEL_FAULTS");
    return V && std::strcmp(V, "report") == 0;
  }();
  return Report;
}

void recordKernelFault(hsa_status_t Status) {
  int Expected = HSA_STATUS_SUCCESS;
  FirstFault.compare_exchange_strong(Expected, int(Status));
  FaultCount.fetch_add(1, std::memory_order_release);
}

uint64_t kernelFaults(hsa_status_t *FirstStatus) {
  uint64_t N = FaultCount.load(std::memory_order_acquire);
  if (N && FirstStatus)
    *FirstStatus = hsa_status_t(FirstFault.load(std::memory_order_relaxed));
  return N;
}

} // namespace loom::runtime
