//===- tool/ToolRuntime.h - Between the tools and the HSA API -------------===//
//
// One per process. OnLoad (from HSA_TOOLS_LIB, once per tool library)
// installs the API table wrappers the first time and starts the tools
// registered since; the wrappers feed CodeObjects; queues are made
// intercept queues whose packets pass through interceptPackets; OnUnload
// (the last hsa_shut_down) or the exit of a program that never shuts
// down ends it all.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TOOL_TOOLRUNTIME_H
#define LOOM_TOOL_TOOLRUNTIME_H

#include "Channel.h"
#include "CodeObjects.h"
#include "HostMemory.h"
#include "KernelCopies.h"
#include "ToolHost.h"

#include <hsa/hsa_api_trace.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace loom::tool {

struct QueueState;

class ToolRuntime {
public:
  static ToolRuntime &get();

  bool load(HsaApiTable *Table);
  void unload();
  bool active() const { return Active.load(std::memory_order_acquire); }

  CodeObjects Objects;
  std::unique_ptr<KernelCopies> Copies;
  /// In load order. Changed only by load and unload, which the HSA runtime
  /// calls while no dispatch is in flight (in hsa_init / hsa_shut_down).
  std::vector<std::unique_ptr<ToolHost>> Tools;
  /// Kernarg segments and channel rings of instrumented dispatches.
  HostMemory Memory;
  ChannelDrain Channels{Memory};

  // Queues (Dispatches.cpp).
  hsa_status_t
  createQueue(hsa_agent_t Agent, uint32_t Size, hsa_queue_type32_t Type,
              void (*Callback)(hsa_status_t, hsa_queue_t *, void *), void *Data,
              uint32_t PrivateSize, uint32_t GroupSize, hsa_queue_t **Queue);
  void queueDestroyed(hsa_queue_t *Queue);
  void dispatch(QueueState &Q, const void *Packet,
                hsa_amd_queue_intercept_packet_writer Writer);
  void dispatchDone() {
    std::lock_guard<std::mutex> L(InFlightLock);
    if (--InFlight == 0)
      Drained.notify_all();
  }

private:
  void installWrappers(HsaApiTable &Table);
  void startTools();
  /// Waits (bounded) for the completion handlers of dispatches in flight.
  void drain();

  std::mutex LoadLock;
  std::atomic<bool> Active{false};
  size_t Started = 0; ///< registrations turned into Tools
  std::unique_ptr<ToolOptions> Options;

  std::mutex QueuesLock;
  std::map<hsa_queue_t *, std::shared_ptr<QueueState>> Queues;
  std::atomic<uint64_t> Dispatches{0};

  std::mutex InFlightLock;
  std::condition_variable Drained;
  uint64_t InFlight = 0;
};

} // namespace loom::tool

#endif // LOOM_TOOL_TOOLRUNTIME_H
