//===- loom/runtime/Queue.h - AQL queues and their packet processors ------===//
//
// A queue is laid out as amd_queue_t (hsa_queue_t first, then the AMD
// fields: write/read dispatch ids, apertures, ...), with a ring buffer of
// 64-byte AQL packets and a doorbell signal. One packet-processor thread
// per queue consumes packets in order: it spins briefly after the doorbell
// and then sleeps on it. Kernel dispatches run on the agent's emu::Device
// with dispatch_ptr pointing at a copy of the packet and queue_ptr at the
// amd_queue_t. A malformed packet or a fault puts the queue in error: the
// processor stops and calls the queue's error callback.
//
// Interception (hsa_amd_queue_intercept_*): handlers see each packet before
// it runs and pass on, through their writer, the packets to run instead.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_RUNTIME_QUEUE_H
#define LOOM_RUNTIME_QUEUE_H

#include "hsa/amd_hsa_queue.h"
#include "hsa/hsa.h"
#include "hsa/hsa_api_trace.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace loom::runtime {

class Agent;
class Signal;

/// A CU mask enabling all \p ComputeUnits (32 per word).
std::vector<uint32_t> fullCuMask(uint32_t ComputeUnits);

class Queue {
public:
  using ErrorCallback = void (*)(hsa_status_t, hsa_queue_t *, void *);

  /// A hardware-like queue on GPU \p A (with a packet processor).
  static hsa_status_t create(Agent &A, uint32_t Size, hsa_queue_type32_t Type,
                             ErrorCallback Callback, void *Data,
                             uint32_t PrivateSegmentSize,
                             uint32_t GroupSegmentSize, Queue **Out);
  /// A soft queue: memory and a client-provided doorbell, no processor.
  static hsa_status_t createSoft(uint32_t Size, hsa_queue_type32_t Type,
                                 uint32_t Features, hsa_signal_t Doorbell,
                                 Queue **Out);
  /// The live queue whose hsa_queue_t is \p Q, or nullptr.
  static Queue *lookup(const hsa_queue_t *Q);
  /// Destroys \p Q; false if it is not a live queue.
  static bool destroy(const hsa_queue_t *Q);
  static void destroyAll();
  /// Cancels every queue's dispatch and stops its packet processor, freeing
  /// nothing (process exit: emulator workers must stop before static
  /// destructors unmap what they run).
  static void stopAll();

  ~Queue();

  hsa_queue_t *hsa() { return &Amd->hsa_queue; }
  amd_queue_t *amd() { return Amd; }
  Agent *agent() const { return TheAgent; }

  /// Stops processing packets (hsa_queue_inactivate).
  void inactivate();
  /// Called on every store to the doorbell signal.
  void ringDoorbell();
  /// True once a packet or a fault has put the queue in error.
  bool inError() const { return Errored; }

  /// Interception (queues made by hsa_amd_queue_intercept_create).
  struct Interceptor {
    hsa_amd_queue_intercept_handler Handler;
    void *Data;
  };
  void addInterceptor(hsa_amd_queue_intercept_handler H, void *Data);
  bool isIntercept() const { return Intercept; }
  bool Intercept = false;

  /// Runs one packet; returns the queue error status or SUCCESS.
  hsa_status_t execute(const void *Packet, uint64_t Index);

  /// Recorded settings (the virtual GPU has no CUs to mask or priorities).
  std::atomic<bool> Profiling{false};
  std::mutex ConfigLock; // guards CuMask, Priority and the interceptors
  std::vector<uint32_t> CuMask;
  hsa_amd_queue_priority_t Priority = HSA_AMD_QUEUE_PRIORITY_NORMAL;

private:
  friend struct InterceptWriter;
  Queue() = default;
  void run();
  hsa_status_t processIntercepted(const void *Packet, uint64_t Index);
  void fail(hsa_status_t Status);

  amd_queue_t *Amd = nullptr;
  void *Ring = nullptr;
  Signal *Doorbell = nullptr; // owned unless soft
  bool OwnsDoorbell = true;
  Signal *InactiveSignal = nullptr;
  Agent *TheAgent = nullptr;
  ErrorCallback Callback = nullptr;
  void *CallbackData = nullptr;
  uint32_t PrivateSegmentSize = 0, GroupSegmentSize = 0;
  uint8_t *PacketCopy = nullptr; // registered: the dispatch_ptr target
  std::vector<Interceptor> Interceptors;

  std::thread Processor;
  std::atomic<bool> Stop{false};
  std::atomic<bool> Cancel{false};
  std::atomic<bool> Errored{false};
  bool SelfDestroy = false; // destroyed from its own error callback
  std::atomic<uint32_t> DoorbellEpoch{0};
  std::atomic<uint32_t> Sleeping{0};
};

} // namespace loom::runtime

#endif // LOOM_RUNTIME_QUEUE_H
