//===- tests/runtime/hsa/tools/CountingTool.cpp - An HSA_TOOLS_LIB tool ---===//
//
// Loaded through HSA_TOOLS_LIB, as rocprof-style tools are: OnLoad replaces
// hsa_queue_create in the API table with a version that counts queue
// creations and creates an interceptable queue whose interceptor counts
// kernel dispatch packets before passing them on.
//
//===----------------------------------------------------------------------===//

#include <hsa/hsa_api_trace.h>

#include <atomic>

namespace {
CoreApiTable Saved;
AmdExtTable SavedAmd;
std::atomic<int> QueueCreates{0}, Dispatches{0}, Loads{0}, Unloads{0};
std::atomic<int> LastFailedCount{-1};

void countPackets(const void *Packets, uint64_t Count, uint64_t, void *,
                  hsa_amd_queue_intercept_packet_writer Writer) {
  auto *P = static_cast<const hsa_kernel_dispatch_packet_t *>(Packets);
  for (uint64_t I = 0; I < Count; ++I)
    if (((P[I].header >> HSA_PACKET_HEADER_TYPE) & 0xff) ==
        HSA_PACKET_TYPE_KERNEL_DISPATCH)
      Dispatches.fetch_add(1);
  Writer(Packets, Count);
}

hsa_status_t countingQueueCreate(hsa_agent_t Agent, uint32_t Size,
                                 hsa_queue_type32_t Type,
                                 void (*Callback)(hsa_status_t, hsa_queue_t *,
                                                  void *),
                                 void *Data, uint32_t Private, uint32_t Group,
                                 hsa_queue_t **Queue) {
  QueueCreates.fetch_add(1);
  hsa_status_t S = SavedAmd.hsa_amd_queue_intercept_create_fn(
      Agent, Size, Type, Callback, Data, Private, Group, Queue);
  if (S != HSA_STATUS_SUCCESS)
    return S;
  return SavedAmd.hsa_amd_queue_intercept_register_fn(*Queue, countPackets,
                                                      nullptr);
}
} // namespace

extern "C" {

__attribute__((visibility("default"))) bool
OnLoad(HsaApiTable *Table, uint64_t RuntimeVersion, uint64_t FailedCount,
       const char *const *FailedNames) {
  if (Table->version.major_id != HSA_API_TABLE_MAJOR_VERSION ||
      Table->core_->version.minor_id < sizeof(CoreApiTable))
    return false;
  LastFailedCount = int(FailedCount);
  Saved = *Table->core_;
  SavedAmd = *Table->amd_ext_;
  Table->core_->hsa_queue_create_fn = countingQueueCreate;
  Loads.fetch_add(1);
  return true;
}

__attribute__((visibility("default"))) void OnUnload() { Unloads.fetch_add(1); }

__attribute__((visibility("default"))) int countingToolQueueCreates() {
  return QueueCreates;
}
__attribute__((visibility("default"))) int countingToolDispatches() {
  return Dispatches;
}
__attribute__((visibility("default"))) int countingToolLoads() { return Loads; }
__attribute__((visibility("default"))) int countingToolLastFailedCount() {
  return LastFailedCount;
}
__attribute__((visibility("default"))) int countingToolUnloads() {
  return Unloads;
}
}
