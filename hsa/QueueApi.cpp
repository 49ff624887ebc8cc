//===- hsa/QueueApi.cpp - Queues, indices, profiling, interception --------===//

#include "ApiTable.h"

#include "loom/runtime/Events.h"
#include "loom/runtime/Queue.h"
#include "loom/runtime/Signal.h"

#include <cstring>
#include <mutex>

using namespace loom;
using namespace loom::runtime;

namespace {
// hsa_amd_runtime_queue_create_register: told of every queue created.
std::mutex NotifierLock;
hsa_amd_runtime_queue_notifier Notifier = nullptr;
void *NotifierData = nullptr;

bool isPowerOfTwo(uint32_t V) { return V && !(V & (V - 1)); }

amd_queue_t *amdOf(const hsa_queue_t *Q) {
  // Hot path: the pointer comes from hsa_queue_create; reject only unknown
  // ones, which have no status to report.
  return Queue::lookup(Q) ? reinterpret_cast<amd_queue_t *>(
                                const_cast<hsa_queue_t *>(Q))
                          : nullptr;
}

hsa_status_t createQueue(hsa_agent_t AgentH, uint32_t Size,
                         hsa_queue_type32_t Type,
                         void (*Callback)(hsa_status_t, hsa_queue_t *, void *),
                         void *Data, uint32_t PrivateSize, uint32_t GroupSize,
                         hsa_queue_t **Out, bool Intercept) {
  LOOM_HSA_STATE(State);
  Agent *A = State->agent(AgentH.handle);
  if (!A)
    return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!A->isGpu())
    return HSA_STATUS_ERROR_INVALID_QUEUE_CREATION;
  if (!Out || !isPowerOfTwo(Size) || Size > gpu::QueueMaxSize)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (Type != HSA_QUEUE_TYPE_MULTI && Type != HSA_QUEUE_TYPE_SINGLE)
    return HSA_STATUS_ERROR_INVALID_QUEUE_CREATION;
  Size = std::max(Size, gpu::QueueMinSize);
  Queue *Q = nullptr;
  if (hsa_status_t S = Queue::create(*A, Size, Type, Callback, Data,
                                     PrivateSize, GroupSize, &Q);
      S != HSA_STATUS_SUCCESS)
    return S;
  Q->Intercept = Intercept;
  *Out = Q->hsa();
  hsa_amd_runtime_queue_notifier N;
  void *ND;
  {
    std::lock_guard<std::mutex> L(NotifierLock);
    N = Notifier;
    ND = NotifierData;
  }
  if (N)
    N(*Out, AgentH, ND);
  return HSA_STATUS_SUCCESS;
}
} // namespace

namespace loom::hsa::impl {

hsa_status_t hsa_queue_create(hsa_agent_t AgentH, uint32_t Size,
                              hsa_queue_type32_t Type,
                              void (*Callback)(hsa_status_t, hsa_queue_t *,
                                               void *),
                              void *Data, uint32_t PrivateSize,
                              uint32_t GroupSize, hsa_queue_t **Out) {
  return createQueue(AgentH, Size, Type, Callback, Data, PrivateSize,
                     GroupSize, Out, false);
}

hsa_status_t hsa_amd_queue_intercept_create(
    hsa_agent_t AgentH, uint32_t Size, hsa_queue_type32_t Type,
    void (*Callback)(hsa_status_t, hsa_queue_t *, void *), void *Data,
    uint32_t PrivateSize, uint32_t GroupSize, hsa_queue_t **Out) {
  return createQueue(AgentH, Size, Type, Callback, Data, PrivateSize,
                     GroupSize, Out, true);
}

hsa_status_t hsa_amd_queue_intercept_register(
    hsa_queue_t *HQ, hsa_amd_queue_intercept_handler Callback, void *Data) {
  LOOM_HSA_STATE(State);
  Queue *Q = Queue::lookup(HQ);
  if (!Q)
    return HSA_STATUS_ERROR_INVALID_QUEUE;
  if (!Callback)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  // As ROCr: only queues made by hsa_amd_queue_intercept_create.
  if (!Q->isIntercept())
    return HSA_STATUS_ERROR_INVALID_QUEUE;
  Q->addInterceptor(Callback, Data);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_amd_runtime_queue_create_register(
    hsa_amd_runtime_queue_notifier Callback, void *Data) {
  LOOM_HSA_STATE(State);
  std::lock_guard<std::mutex> L(NotifierLock);
  Notifier = Callback;
  NotifierData = Data;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_soft_queue_create(hsa_region_t Region, uint32_t Size,
                                   hsa_queue_type32_t Type, uint32_t Features,
                                   hsa_signal_t Doorbell, hsa_queue_t **Out) {
  LOOM_HSA_STATE(State);
  if (!State->pool(Region.handle))
    return HSA_STATUS_ERROR_INVALID_REGION;
  if (!Out || !isPowerOfTwo(Size) || !Features ||
      (Features & ~uint32_t(HSA_QUEUE_FEATURE_KERNEL_DISPATCH |
                            HSA_QUEUE_FEATURE_AGENT_DISPATCH)))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (!SignalRef(Doorbell))
    return HSA_STATUS_ERROR_INVALID_SIGNAL;
  Queue *Q = nullptr;
  if (hsa_status_t S = Queue::createSoft(Size, Type, Features, Doorbell, &Q);
      S != HSA_STATUS_SUCCESS)
    return S;
  *Out = Q->hsa();
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_queue_destroy(hsa_queue_t *HQ) {
  LOOM_HSA_STATE(State);
  if (!HQ)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return Queue::destroy(HQ) ? HSA_STATUS_SUCCESS
                            : HSA_STATUS_ERROR_INVALID_QUEUE;
}

hsa_status_t hsa_queue_inactivate(hsa_queue_t *HQ) {
  LOOM_HSA_STATE(State);
  if (!HQ)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  Queue *Q = Queue::lookup(HQ);
  if (!Q)
    return HSA_STATUS_ERROR_INVALID_QUEUE;
  Q->inactivate();
  return HSA_STATUS_SUCCESS;
}

//===--- Read and write indices -------------------------------------------===//

#define LOOM_LOAD(Name, Field, Order)                                          \
  uint64_t hsa_queue_##Name(const hsa_queue_t *Q) {                            \
    amd_queue_t *A = amdOf(Q);                                                 \
    return A ? __atomic_load_n(&A->Field, Order) : 0;                          \
  }
LOOM_LOAD(load_read_index_relaxed, read_dispatch_id, __ATOMIC_RELAXED)
LOOM_LOAD(load_read_index_scacquire, read_dispatch_id, __ATOMIC_ACQUIRE)
LOOM_LOAD(load_write_index_relaxed, write_dispatch_id, __ATOMIC_RELAXED)
LOOM_LOAD(load_write_index_scacquire, write_dispatch_id, __ATOMIC_ACQUIRE)
#undef LOOM_LOAD

#define LOOM_STORE(Name, Field, Order)                                         \
  void hsa_queue_##Name(const hsa_queue_t *Q, uint64_t V) {                    \
    if (amd_queue_t *A = amdOf(Q))                                             \
      __atomic_store_n(&A->Field, V, Order);                                   \
  }
LOOM_STORE(store_write_index_relaxed, write_dispatch_id, __ATOMIC_RELAXED)
LOOM_STORE(store_write_index_screlease, write_dispatch_id, __ATOMIC_RELEASE)
LOOM_STORE(store_read_index_relaxed, read_dispatch_id, __ATOMIC_RELAXED)
LOOM_STORE(store_read_index_screlease, read_dispatch_id, __ATOMIC_RELEASE)
#undef LOOM_STORE

#define LOOM_CAS(Name, Order, Fail)                                            \
  uint64_t hsa_queue_cas_write_index_##Name(const hsa_queue_t *Q,              \
                                            uint64_t Expected, uint64_t V) {   \
    amd_queue_t *A = amdOf(Q);                                                 \
    if (!A)                                                                    \
      return 0;                                                                \
    __atomic_compare_exchange_n(&A->write_dispatch_id, &Expected, V, false,    \
                                Order, Fail);                                  \
    return Expected;                                                           \
  }
LOOM_CAS(relaxed, __ATOMIC_RELAXED, __ATOMIC_RELAXED)
LOOM_CAS(scacquire, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)
LOOM_CAS(screlease, __ATOMIC_RELEASE, __ATOMIC_RELAXED)
LOOM_CAS(scacq_screl, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)
#undef LOOM_CAS

#define LOOM_ADD(Name, Order)                                                  \
  uint64_t hsa_queue_add_write_index_##Name(const hsa_queue_t *Q,              \
                                            uint64_t V) {                      \
    amd_queue_t *A = amdOf(Q);                                                 \
    return A ? __atomic_fetch_add(&A->write_dispatch_id, V, Order) : 0;        \
  }
LOOM_ADD(relaxed, __ATOMIC_RELAXED)
LOOM_ADD(scacquire, __ATOMIC_ACQUIRE)
LOOM_ADD(screlease, __ATOMIC_RELEASE)
LOOM_ADD(scacq_screl, __ATOMIC_ACQ_REL)
#undef LOOM_ADD

//===--- CU masks and priority --------------------------------------------===//

hsa_status_t hsa_amd_queue_cu_set_mask(const hsa_queue_t *HQ,
                                       uint32_t NumCuMaskCount,
                                       const uint32_t *CuMask) {
  LOOM_HSA_STATE(State);
  Queue *Q = Queue::lookup(HQ);
  if (!Q || !Q->agent())
    return HSA_STATUS_ERROR_INVALID_QUEUE;
  if ((NumCuMaskCount && !CuMask) || NumCuMaskCount % 32)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  std::lock_guard<std::mutex> L(Q->ConfigLock);
  std::vector<uint32_t> Full = fullCuMask(Q->agent()->computeUnits());
  std::vector<uint32_t> Mask(Full.size(), 0);
  bool Reduced = false;
  for (uint32_t W = 0; W < NumCuMaskCount / 32; ++W) {
    uint32_t Valid = W < Full.size() ? Full[W] : 0;
    if (W < Mask.size())
      Mask[W] = CuMask[W] & Valid;
    Reduced |= (CuMask[W] & ~Valid) != 0;
  }
  if (!NumCuMaskCount) // an empty mask restores every CU
    Mask = Full;
  Q->CuMask = Mask;
  return Reduced ? hsa_status_t(HSA_STATUS_CU_MASK_REDUCED)
                 : HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_amd_queue_cu_get_mask(const hsa_queue_t *HQ,
                                       uint32_t NumCuMaskCount,
                                       uint32_t *CuMask) {
  LOOM_HSA_STATE(State);
  Queue *Q = Queue::lookup(HQ);
  if (!Q || !Q->agent())
    return HSA_STATUS_ERROR_INVALID_QUEUE;
  if (!CuMask || NumCuMaskCount < Q->agent()->computeUnits())
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  std::lock_guard<std::mutex> L(Q->ConfigLock);
  std::memset(CuMask, 0, (NumCuMaskCount + 31) / 32 * 4);
  std::copy(Q->CuMask.begin(), Q->CuMask.end(), CuMask);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_amd_queue_set_priority(hsa_queue_t *HQ,
                                        hsa_amd_queue_priority_t Priority) {
  LOOM_HSA_STATE(State);
  Queue *Q = Queue::lookup(HQ);
  if (!Q || !Q->agent())
    return HSA_STATUS_ERROR_INVALID_QUEUE;
  if (Priority < HSA_AMD_QUEUE_PRIORITY_LOW ||
      Priority > HSA_AMD_QUEUE_PRIORITY_HIGH)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  std::lock_guard<std::mutex> L(Q->ConfigLock);
  Q->Priority = Priority;
  return HSA_STATUS_SUCCESS;
}

//===--- Profiling --------------------------------------------------------===//

hsa_status_t hsa_amd_profiling_set_profiler_enabled(hsa_queue_t *HQ,
                                                    int Enable) {
  LOOM_HSA_STATE(State);
  Queue *Q = Queue::lookup(HQ);
  if (!Q)
    return HSA_STATUS_ERROR_INVALID_QUEUE;
  Q->Profiling = Enable != 0;
  AMD_HSA_BITS_SET(Q->amd()->queue_properties,
                   AMD_QUEUE_PROPERTIES_ENABLE_PROFILING, Enable != 0);
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t signalTimes(hsa_signal_t H, uint64_t &Start,
                                uint64_t &End) {
  SignalRef S(H);
  if (!S)
    return HSA_STATUS_ERROR_INVALID_SIGNAL;
  Start = S->amd().start_ts;
  End = S->amd().end_ts;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_amd_profiling_get_dispatch_time(
    hsa_agent_t AgentH, hsa_signal_t H, hsa_amd_profiling_dispatch_time_t *T) {
  LOOM_HSA_STATE(State);
  Agent *A = State->agent(AgentH.handle);
  if (!A || !A->isGpu())
    return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!T)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return signalTimes(H, T->start, T->end);
}

hsa_status_t hsa_amd_profiling_get_async_copy_time(
    hsa_signal_t H, hsa_amd_profiling_async_copy_time_t *T) {
  LOOM_HSA_STATE(State);
  if (!T)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return signalTimes(H, T->start, T->end);
}

hsa_status_t hsa_amd_profiling_convert_tick_to_system_domain(
    hsa_agent_t AgentH, uint64_t AgentTick, uint64_t *SystemTick) {
  LOOM_HSA_STATE(State);
  if (!State->agent(AgentH.handle))
    return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!SystemTick)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *SystemTick = AgentTick; // one clock: the agents' is the system's
  return HSA_STATUS_SUCCESS;
}

//===--- System events ----------------------------------------------------===//

hsa_status_t
hsa_amd_register_system_event_handler(hsa_amd_system_event_callback_t Callback,
                                      void *Data) {
  LOOM_HSA_STATE(State);
  if (!Callback)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  events::addSystemHandler(Callback, Data);
  return HSA_STATUS_SUCCESS;
}

} // namespace loom::hsa::impl
