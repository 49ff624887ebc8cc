//===- hsa/LoomPrivate.cpp - Loom's own entry points, outside the HSA ABI -===//
//
// Exported with version LOOM_PRIVATE_1 for Loom's tests and tools that live
// in another binary than the runtime (the runtime's C++ objects are hidden
// inside libhsa-runtime64.so). Not part of any HSA header.
//
//===----------------------------------------------------------------------===//

#include "ApiTable.h"

#include "loom/emu/Retire.h"
#include "loom/runtime/KernelFaults.h"
#include "loom/runtime/Runtime.h"

extern "C" {

/// The loom::emu::Device behind a GPU agent (nullptr for other handles).
HSA_API_EXPORT void *loom_hsa_device_of_agent(uint64_t AgentHandle) {
  return loom::runtime::deviceOfAgent(AgentHandle);
}

/// Number of faulting dispatches recorded under LOOM_KERNEL_FAULTS=report;
/// the first one's HSA status in *FirstStatus. Read by hsa/HipFaultShim.c.
HSA_API_EXPORT uint64_t loom_hsa_kernel_faults(int *FirstStatus) {
  hsa_status_t S = HSA_STATUS_SUCCESS;
  uint64_t N = loom::runtime::kernelFaults(&S);
  if (FirstStatus)
    *FirstStatus = int(S);
  return N;
}

/// For hsa/ExitGuardShim.c: whether the exit handler that stops every
/// dispatch is registered, and the handler itself.
HSA_API_EXPORT int loom_hsa_exit_guard_armed(void) {
  return loom::emu::stopAtExitArmed();
}
HSA_API_EXPORT void loom_hsa_stop_all_dispatches(void) {
  loom::emu::stopAllDispatches();
}

} // extern "C"
