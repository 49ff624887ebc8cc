//===- loom/runtime/RuntimeState.h - The runtime instance -----------------===//
//
// Created by the first hsa_init, destroyed by the last hsa_shut_down. Holds
// the agents, pools and settings (environment, read at hsa_init):
//   LOOM_GPUS         number of virtual GPUs (default 1, at most 64)
//   LOOM_ISA          processor of the virtual GPUs (default gfx90a)
//   LOOM_GPU_THREADS  host threads per virtual GPU (default 0: one per core)
//   LOOM_KERNEL_TIMEOUT  seconds after which a dispatch ends with a queue
//                     error (default 0: never)
// A value that is not a number in range makes hsa_init fail.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_RUNTIME_RUNTIMESTATE_H
#define LOOM_RUNTIME_RUNTIMESTATE_H

#include "loom/runtime/Agent.h"
#include "loom/runtime/Memory.h"

#include "hsa/hsa.h"

#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace loom::runtime {

struct Settings {
  unsigned Gpus = 1;
  std::string Processor = "gfx90a";
  unsigned Threads = 0;
  unsigned KernelTimeoutSeconds = 0;
  /// HSA_STATUS_ERROR_INVALID_ARGUMENT when a setting is malformed.
  static hsa_status_t fromEnvironment(Settings &Out);
};

class RuntimeState {
public:
  /// hsa_init / hsa_shut_down, reference-counted.
  static hsa_status_t acquire();
  static hsa_status_t release();
  /// How many hsa_init calls are not yet matched by hsa_shut_down.
  static unsigned references();
  /// The instance, or nullptr before hsa_init / after the last shut-down.
  static RuntimeState *get() { return Instance.load(std::memory_order_acquire); }

  Agent *agent(uint64_t Handle) const;
  MemoryPool *pool(uint64_t Handle) const;
  Agent *cpu() const { return Agents.front().get(); }

  Settings Config;
  std::vector<std::unique_ptr<Agent>> Agents; // CPU first, then GPUs
  std::vector<std::unique_ptr<MemoryPool>> Pools;
  MemoryPool *SystemFine = nullptr;
  MemoryPool *SystemCoarse = nullptr;
  uint64_t SystemMemoryBytes = 0;

private:
  static hsa_status_t create();
  static std::atomic<RuntimeState *> Instance;
};

} // namespace loom::runtime

#endif // LOOM_RUNTIME_RUNTIMESTATE_H
