//===- hsa/SignalApi.cpp - Signals, signal groups, async handlers ---------===//
//
// Value operations on a handle that is not a live signal do nothing and
// read as 0 (they have no status to report); everything with a status
// answers HSA_STATUS_ERROR_INVALID_SIGNAL.
//
//===----------------------------------------------------------------------===//

#include "ApiTable.h"

#include "loom/runtime/Events.h"
#include "loom/runtime/Signal.h"

#include <algorithm>
#include <mutex>
#include <unordered_map>

using namespace loom;
using namespace loom::runtime;

namespace {
constexpr auto Relaxed = std::memory_order_relaxed;
constexpr auto Acquire = std::memory_order_acquire;
constexpr auto Release = std::memory_order_release;
constexpr auto AcqRel = std::memory_order_acq_rel;

hsa_signal_value_t loadOf(hsa_signal_t H, std::memory_order O) {
  SignalRef S(H);
  return S ? S->load(O) : 0;
}
void storeOf(hsa_signal_t H, hsa_signal_value_t V, std::memory_order O) {
  if (SignalRef S(H); S)
    S->store(V, O);
}
void silentStoreOf(hsa_signal_t H, hsa_signal_value_t V, std::memory_order O) {
  if (SignalRef S(H); S)
    S->silentStore(V, O);
}
hsa_signal_value_t rmwOf(hsa_signal_t H, Signal::Op Op, hsa_signal_value_t V,
                         std::memory_order O) {
  SignalRef S(H);
  return S ? S->rmw(Op, V, O) : 0;
}
hsa_signal_value_t casOf(hsa_signal_t H, hsa_signal_value_t E,
                         hsa_signal_value_t V, std::memory_order O) {
  SignalRef S(H);
  return S ? S->cas(E, V, O) : 0;
}
hsa_signal_value_t waitOf(hsa_signal_t H, hsa_signal_condition_t C,
                          hsa_signal_value_t V, uint64_t Timeout,
                          hsa_wait_state_t Hint, std::memory_order O) {
  SignalRef S(H);
  return S ? S->wait(C, V, Timeout, Hint, O) : 0;
}

// Signal groups: a handle is the address of the list.
struct SignalGroup {
  std::vector<hsa_signal_t> Signals;
};
std::mutex GroupLock;
std::unordered_map<uint64_t, SignalGroup *> &groups() {
  static auto *G = new std::unordered_map<uint64_t, SignalGroup *>;
  return *G;
}

hsa_status_t waitAny(const std::vector<hsa_signal_t> &Signals,
                     const hsa_signal_condition_t *Conds,
                     const hsa_signal_value_t *Values, uint64_t Timeout,
                     std::memory_order O, uint32_t *Index,
                     hsa_signal_value_t *Value) {
  std::vector<SignalRef> Refs;
  for (hsa_signal_t H : Signals) {
    Refs.emplace_back(H);
    if (!Refs.back())
      return HSA_STATUS_ERROR_INVALID_SIGNAL;
  }
  uint64_t Start = nowTicks();
  uint64_t Deadline = Timeout >= UINT64_MAX - Start ? UINT64_MAX
                                                    : Start + Timeout;
  uint32_t Found = UINT32_MAX;
  hsa_signal_value_t Seen = 0;
  waitUntil(
      [&] {
        for (size_t I = 0; I < Refs.size(); ++I) {
          hsa_signal_value_t V = Refs[I]->load(O);
          if (conditionHolds(Conds[I], V, Values[I])) {
            Found = uint32_t(I);
            Seen = V;
            return true;
          }
        }
        return false;
      },
      Deadline);
  if (Index)
    *Index = Found;
  if (Value)
    *Value = Seen;
  return HSA_STATUS_SUCCESS;
}
} // namespace

namespace loom::hsa::impl {

hsa_status_t hsa_signal_create(hsa_signal_value_t Initial, uint32_t NumConsumers,
                               const hsa_agent_t *Consumers,
                               hsa_signal_t *Out) {
  LOOM_HSA_STATE(State);
  if (!Out || (NumConsumers && !Consumers))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (uint32_t I = 0; I < NumConsumers; ++I)
    if (!State->agent(Consumers[I].handle))
      return HSA_STATUS_ERROR_INVALID_AGENT;
  Signal *S = SignalTable::create(Initial);
  if (!S)
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  Out->handle = S->handle();
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_amd_signal_create(hsa_signal_value_t Initial,
                                   uint32_t NumConsumers,
                                   const hsa_agent_t *Consumers,
                                   uint64_t Attributes, hsa_signal_t *Out) {
  // AMD_SIGNAL_IPC is not supported: one process, no shared signals.
  if (Attributes & HSA_AMD_SIGNAL_IPC)
    return notSupported(HSA_STATUS_ERROR_INVALID_ARGUMENT);
  return impl::hsa_signal_create(Initial, NumConsumers, Consumers, Out);
}

hsa_status_t hsa_signal_destroy(hsa_signal_t H) {
  LOOM_HSA_STATE(State);
  if (!H.handle)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  {
    SignalRef S(H);
    if (S && S->DoorbellOf) // a queue's doorbell goes with its queue
      return HSA_STATUS_ERROR_INVALID_SIGNAL;
  }
  return SignalTable::destroy(H.handle) ? HSA_STATUS_SUCCESS
                                        : HSA_STATUS_ERROR_INVALID_SIGNAL;
}

hsa_signal_value_t hsa_signal_load_relaxed(hsa_signal_t H) {
  return loadOf(H, Relaxed);
}
hsa_signal_value_t hsa_signal_load_scacquire(hsa_signal_t H) {
  return loadOf(H, Acquire);
}
void hsa_signal_store_relaxed(hsa_signal_t H, hsa_signal_value_t V) {
  storeOf(H, V, Relaxed);
}
void hsa_signal_store_screlease(hsa_signal_t H, hsa_signal_value_t V) {
  storeOf(H, V, Release);
}
void hsa_signal_silent_store_relaxed(hsa_signal_t H, hsa_signal_value_t V) {
  silentStoreOf(H, V, Relaxed);
}
void hsa_signal_silent_store_screlease(hsa_signal_t H, hsa_signal_value_t V) {
  silentStoreOf(H, V, Release);
}

#define LOOM_SIGNAL_RMW(Name, Kind)                                              \
  void hsa_signal_##Name##_relaxed(hsa_signal_t H, hsa_signal_value_t V) {     \
    rmwOf(H, Signal::Op::Kind, V, Relaxed);                                      \
  }                                                                            \
  void hsa_signal_##Name##_scacquire(hsa_signal_t H, hsa_signal_value_t V) {   \
    rmwOf(H, Signal::Op::Kind, V, Acquire);                                      \
  }                                                                            \
  void hsa_signal_##Name##_screlease(hsa_signal_t H, hsa_signal_value_t V) {   \
    rmwOf(H, Signal::Op::Kind, V, Release);                                      \
  }                                                                            \
  void hsa_signal_##Name##_scacq_screl(hsa_signal_t H, hsa_signal_value_t V) { \
    rmwOf(H, Signal::Op::Kind, V, AcqRel);                                       \
  }
LOOM_SIGNAL_RMW(add, Add)
LOOM_SIGNAL_RMW(subtract, Sub)
LOOM_SIGNAL_RMW(and, And)
LOOM_SIGNAL_RMW(or, Or)
LOOM_SIGNAL_RMW(xor, Xor)
#undef LOOM_SIGNAL_RMW

hsa_signal_value_t hsa_signal_exchange_relaxed(hsa_signal_t H,
                                               hsa_signal_value_t V) {
  return rmwOf(H, Signal::Op::Exchange, V, Relaxed);
}
hsa_signal_value_t hsa_signal_exchange_scacquire(hsa_signal_t H,
                                                 hsa_signal_value_t V) {
  return rmwOf(H, Signal::Op::Exchange, V, Acquire);
}
hsa_signal_value_t hsa_signal_exchange_screlease(hsa_signal_t H,
                                                 hsa_signal_value_t V) {
  return rmwOf(H, Signal::Op::Exchange, V, Release);
}
hsa_signal_value_t hsa_signal_exchange_scacq_screl(hsa_signal_t H,
                                                   hsa_signal_value_t V) {
  return rmwOf(H, Signal::Op::Exchange, V, AcqRel);
}

hsa_signal_value_t hsa_signal_cas_relaxed(hsa_signal_t H, hsa_signal_value_t E,
                                          hsa_signal_value_t V) {
  return casOf(H, E, V, Relaxed);
}
hsa_signal_value_t hsa_signal_cas_scacquire(hsa_signal_t H,
                                            hsa_signal_value_t E,
                                            hsa_signal_value_t V) {
  return casOf(H, E, V, Acquire);
}
hsa_signal_value_t hsa_signal_cas_screlease(hsa_signal_t H,
                                            hsa_signal_value_t E,
                                            hsa_signal_value_t V) {
  return casOf(H, E, V, Release);
}
hsa_signal_value_t hsa_signal_cas_scacq_screl(hsa_signal_t H,
                                              hsa_signal_value_t E,
                                              hsa_signal_value_t V) {
  return casOf(H, E, V, AcqRel);
}

hsa_signal_value_t hsa_signal_wait_relaxed(hsa_signal_t H,
                                           hsa_signal_condition_t Cond,
                                           hsa_signal_value_t V,
                                           uint64_t Timeout,
                                           hsa_wait_state_t Hint) {
  return waitOf(H, Cond, V, Timeout, Hint, Relaxed);
}
hsa_signal_value_t hsa_signal_wait_scacquire(hsa_signal_t H,
                                             hsa_signal_condition_t Cond,
                                             hsa_signal_value_t V,
                                             uint64_t Timeout,
                                             hsa_wait_state_t Hint) {
  return waitOf(H, Cond, V, Timeout, Hint, Acquire);
}

uint32_t hsa_amd_signal_wait_any(uint32_t Count, hsa_signal_t *Signals,
                                 hsa_signal_condition_t *Conds,
                                 hsa_signal_value_t *Values, uint64_t Timeout,
                                 hsa_wait_state_t Hint,
                                 hsa_signal_value_t *Value) {
  if (!RuntimeState::get() || !Count || !Signals || !Conds || !Values)
    return UINT32_MAX;
  uint32_t Index = UINT32_MAX;
  std::vector<hsa_signal_t> List(Signals, Signals + Count);
  if (waitAny(List, Conds, Values, Timeout, Acquire, &Index, Value) !=
      HSA_STATUS_SUCCESS)
    return UINT32_MAX;
  return Index;
}

hsa_status_t hsa_amd_signal_value_pointer(hsa_signal_t H,
                                          volatile hsa_signal_value_t **Ptr) {
  LOOM_HSA_STATE(State);
  if (!Ptr)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  SignalRef S(H);
  if (!S)
    return HSA_STATUS_ERROR_INVALID_SIGNAL;
  *Ptr = &S->amd().value;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_amd_signal_async_handler(hsa_signal_t H,
                                          hsa_signal_condition_t Cond,
                                          hsa_signal_value_t Value,
                                          hsa_amd_signal_handler Handler,
                                          void *Arg) {
  LOOM_HSA_STATE(State);
  if (!Handler)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (!SignalRef(H))
    return HSA_STATUS_ERROR_INVALID_SIGNAL;
  return async::addHandler(H, Cond, Value, Handler, Arg);
}

hsa_status_t hsa_amd_async_function(void (*Fn)(void *), void *Arg) {
  LOOM_HSA_STATE(State);
  if (!Fn)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return async::addFunction(Fn, Arg);
}

//===--- Signal groups ----------------------------------------------------===//

hsa_status_t hsa_signal_group_create(uint32_t NumSignals,
                                     const hsa_signal_t *Signals,
                                     uint32_t NumConsumers,
                                     const hsa_agent_t *Consumers,
                                     hsa_signal_group_t *Group) {
  LOOM_HSA_STATE(State);
  if (!Group || !NumSignals || !Signals || (NumConsumers && !Consumers))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (uint32_t I = 0; I < NumSignals; ++I)
    if (!SignalRef(Signals[I]))
      return HSA_STATUS_ERROR_INVALID_SIGNAL;
  auto *G = new SignalGroup{{Signals, Signals + NumSignals}};
  std::lock_guard<std::mutex> L(GroupLock);
  groups()[reinterpret_cast<uint64_t>(G)] = G;
  Group->handle = reinterpret_cast<uint64_t>(G);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_signal_group_destroy(hsa_signal_group_t Group) {
  LOOM_HSA_STATE(State);
  std::lock_guard<std::mutex> L(GroupLock);
  auto It = groups().find(Group.handle);
  if (It == groups().end())
    return HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP;
  delete It->second;
  groups().erase(It);
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t groupWait(hsa_signal_group_t Group,
                              const hsa_signal_condition_t *Conds,
                              const hsa_signal_value_t *Values,
                              std::memory_order O, hsa_signal_t *Signal,
                              hsa_signal_value_t *Value) {
  LOOM_HSA_STATE(State);
  std::vector<hsa_signal_t> List;
  {
    std::lock_guard<std::mutex> L(GroupLock);
    auto It = groups().find(Group.handle);
    if (It == groups().end())
      return HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP;
    List = It->second->Signals;
  }
  if (!Conds || !Values || !Signal || !Value)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  uint32_t Index = UINT32_MAX;
  if (hsa_status_t S = waitAny(List, Conds, Values, UINT64_MAX, O, &Index,
                               Value);
      S != HSA_STATUS_SUCCESS)
    return S;
  *Signal = List[Index];
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_signal_group_wait_any_scacquire(
    hsa_signal_group_t Group, const hsa_signal_condition_t *Conds,
    const hsa_signal_value_t *Values, hsa_wait_state_t Hint,
    hsa_signal_t *Signal, hsa_signal_value_t *Value) {
  return groupWait(Group, Conds, Values, Acquire, Signal, Value);
}

hsa_status_t hsa_signal_group_wait_any_relaxed(
    hsa_signal_group_t Group, const hsa_signal_condition_t *Conds,
    const hsa_signal_value_t *Values, hsa_wait_state_t Hint,
    hsa_signal_t *Signal, hsa_signal_value_t *Value) {
  return groupWait(Group, Conds, Values, Relaxed, Signal, Value);
}

} // namespace loom::hsa::impl
