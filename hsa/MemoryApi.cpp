//===- hsa/MemoryApi.cpp - Regions, pools, allocations, copies ------------===//

#include "ApiTable.h"

#include "loom/runtime/Signal.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

using namespace loom;
using namespace loom::runtime;

namespace {
// hsa_amd_register_deallocation_callback: called when the block is freed.
struct DeallocCallbacks {
  std::mutex Lock;
  std::multimap<uint64_t, std::pair<hsa_amd_deallocation_callback_t, void *>>
      ByPtr;
};
DeallocCallbacks &deallocCallbacks() {
  static auto *D = new DeallocCallbacks;
  return *D;
}

void runDeallocCallbacks(void *Ptr) {
  std::vector<std::pair<hsa_amd_deallocation_callback_t, void *>> Calls;
  {
    std::lock_guard<std::mutex> L(deallocCallbacks().Lock);
    auto R = deallocCallbacks().ByPtr.equal_range(uint64_t(Ptr));
    for (auto It = R.first; It != R.second; ++It)
      Calls.push_back(It->second);
    deallocCallbacks().ByPtr.erase(R.first, R.second);
  }
  for (auto &[Fn, Data] : Calls)
    Fn(Ptr, Data);
}

hsa_status_t checkSignals(uint32_t Num, const hsa_signal_t *Deps,
                          hsa_signal_t Completion) {
  if (Num && !Deps)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (uint32_t I = 0; I < Num; ++I)
    if (!SignalRef(Deps[I]))
      return HSA_STATUS_ERROR_INVALID_SIGNAL;
  if (!SignalRef(Completion))
    return HSA_STATUS_ERROR_INVALID_SIGNAL;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t freeAllocation(void *Ptr) {
  if (!Ptr)
    return HSA_STATUS_SUCCESS;
  auto A = AllocationTable::find(Ptr);
  if (!A || A->Base != uint64_t(Ptr) || !A->OwnedStorage)
    return HSA_STATUS_ERROR_INVALID_ALLOCATION;
  runDeallocCallbacks(Ptr);
  return AllocationTable::free(Ptr) ? HSA_STATUS_SUCCESS
                                    : HSA_STATUS_ERROR_INVALID_ALLOCATION;
}
} // namespace

namespace loom::hsa::impl {

//===--- Regions and pools ------------------------------------------------===//

hsa_status_t hsa_agent_iterate_regions(hsa_agent_t AgentH,
                                       hsa_status_t (*Callback)(hsa_region_t,
                                                                void *),
                                       void *Data) {
  LOOM_HSA_STATE(State);
  Agent *A = State->agent(AgentH.handle);
  if (!A)
    return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!Callback)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return visitEach(A->Regions, [&](MemoryPool *P) {
    return Callback({P->handle()}, Data);
  });
}

hsa_status_t hsa_region_get_info(hsa_region_t Region,
                                 hsa_region_info_t Attribute, void *Value) {
  LOOM_HSA_STATE(State);
  MemoryPool *P = State->pool(Region.handle);
  if (!P)
    return HSA_STATUS_ERROR_INVALID_REGION;
  if (!Value)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return P->getRegionInfo(Attribute, Value);
}

hsa_status_t hsa_amd_agent_iterate_memory_pools(
    hsa_agent_t AgentH, hsa_status_t (*Callback)(hsa_amd_memory_pool_t, void *),
    void *Data) {
  LOOM_HSA_STATE(State);
  Agent *A = State->agent(AgentH.handle);
  if (!A)
    return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!Callback)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return visitEach(A->Pools, [&](MemoryPool *P) {
    return Callback({P->handle()}, Data);
  });
}

hsa_status_t hsa_amd_memory_pool_get_info(hsa_amd_memory_pool_t Pool,
                                          hsa_amd_memory_pool_info_t Attribute,
                                          void *Value) {
  LOOM_HSA_STATE(State);
  MemoryPool *P = State->pool(Pool.handle);
  if (!P)
    return hsa_status_t(HSA_STATUS_ERROR_INVALID_MEMORY_POOL);
  if (!Value)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return P->getPoolInfo(Attribute, Value);
}

hsa_status_t hsa_amd_agent_memory_pool_get_info(
    hsa_agent_t AgentH, hsa_amd_memory_pool_t Pool,
    hsa_amd_agent_memory_pool_info_t Attribute, void *Value) {
  LOOM_HSA_STATE(State);
  Agent *A = State->agent(AgentH.handle);
  if (!A)
    return HSA_STATUS_ERROR_INVALID_AGENT;
  MemoryPool *P = State->pool(Pool.handle);
  if (!P)
    return hsa_status_t(HSA_STATUS_ERROR_INVALID_MEMORY_POOL);
  if (!Value)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  bool Local = P->owner() == A;
  switch (Attribute) {
  case HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS:
    *static_cast<hsa_amd_memory_pool_access_t *>(Value) = P->accessFrom(*A);
    return HSA_STATUS_SUCCESS;
  case HSA_AMD_AGENT_MEMORY_POOL_INFO_NUM_LINK_HOPS:
    *static_cast<uint32_t *>(Value) = Local ? 0 : 1;
    return HSA_STATUS_SUCCESS;
  case HSA_AMD_AGENT_MEMORY_POOL_INFO_LINK_INFO: {
    if (Local)
      return HSA_STATUS_SUCCESS; // no hops, nothing to describe
    hsa_amd_memory_pool_link_info_t L{};
    L.link_type = HSA_AMD_LINK_INFO_TYPE_PCIE;
    L.atomic_support_32bit = L.atomic_support_64bit = true;
    L.coherent_support = true;
    std::memcpy(Value, &L, sizeof(L));
    return HSA_STATUS_SUCCESS;
  }
  }
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

//===--- Allocation -------------------------------------------------------===//

hsa_status_t hsa_memory_allocate(hsa_region_t Region, size_t Size,
                                 void **Ptr) {
  LOOM_HSA_STATE(State);
  MemoryPool *P = State->pool(Region.handle);
  if (!P)
    return HSA_STATUS_ERROR_INVALID_REGION;
  if (!Ptr || !Size)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (P->kind() == MemoryPool::Kind::Group)
    return HSA_STATUS_ERROR_INVALID_ALLOCATION;
  void *R = AllocationTable::allocate(P, P->owner(), Size);
  if (!R)
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  *Ptr = R;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_memory_free(void *Ptr) {
  LOOM_HSA_STATE(State);
  return freeAllocation(Ptr);
}

hsa_status_t hsa_amd_memory_pool_allocate(hsa_amd_memory_pool_t Pool,
                                          size_t Size, uint32_t Flags,
                                          void **Ptr) {
  LOOM_HSA_STATE(State);
  MemoryPool *P = State->pool(Pool.handle);
  if (!P)
    return hsa_status_t(HSA_STATUS_ERROR_INVALID_MEMORY_POOL);
  if (!Ptr || !Size)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  uint64_t Max = 0;
  P->getPoolInfo(HSA_AMD_MEMORY_POOL_INFO_ALLOC_MAX_SIZE, &Max);
  if (Size > Max || P->kind() == MemoryPool::Kind::Group)
    return HSA_STATUS_ERROR_INVALID_ALLOCATION;
  void *R = AllocationTable::allocate(P, P->owner(), Size);
  if (!R)
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  *Ptr = R;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_amd_memory_pool_free(void *Ptr) {
  LOOM_HSA_STATE(State);
  return freeAllocation(Ptr);
}

hsa_status_t hsa_memory_copy(void *Dst, const void *Src, size_t Size) {
  LOOM_HSA_STATE(State);
  if (!Dst || !Src)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  std::memmove(Dst, Src, Size);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_memory_assign_agent(void *Ptr, hsa_agent_t AgentH,
                                     hsa_access_permission_t Access) {
  LOOM_HSA_STATE(State);
  if (!State->agent(AgentH.handle))
    return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!Ptr || Access < HSA_ACCESS_PERMISSION_RO ||
      Access > HSA_ACCESS_PERMISSION_RW)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_memory_register(void *Ptr, size_t Size) {
  LOOM_HSA_STATE(State);
  if (!Ptr || !Size)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  AllocationTable::addClientRange(Ptr, Size, HSA_EXT_POINTER_TYPE_UNKNOWN,
                                  nullptr, State->cpu());
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_memory_deregister(void *Ptr, size_t Size) {
  LOOM_HSA_STATE(State);
  if (!Ptr)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return AllocationTable::removeClientRange(Ptr, HSA_EXT_POINTER_TYPE_UNKNOWN)
             ? HSA_STATUS_SUCCESS
             : HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

static hsa_status_t checkAgents(RuntimeState *State, uint32_t Num,
                                const hsa_agent_t *Agents) {
  if (Num && !Agents)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (uint32_t I = 0; I < Num; ++I)
    if (!State->agent(Agents[I].handle))
      return HSA_STATUS_ERROR_INVALID_AGENT;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_amd_agents_allow_access(uint32_t NumAgents,
                                         const hsa_agent_t *Agents,
                                         const uint32_t *Flags,
                                         const void *Ptr) {
  LOOM_HSA_STATE(State);
  if (!NumAgents || !Agents || !Ptr)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (hsa_status_t S = checkAgents(State, NumAgents, Agents);
      S != HSA_STATUS_SUCCESS)
    return S;
  std::vector<uint64_t> Handles;
  for (uint32_t I = 0; I < NumAgents; ++I)
    Handles.push_back(Agents[I].handle);
  return AllocationTable::allowAgents(Ptr, Handles)
             ? HSA_STATUS_SUCCESS
             : HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

hsa_status_t hsa_amd_memory_pool_can_migrate(hsa_amd_memory_pool_t Src,
                                             hsa_amd_memory_pool_t Dst,
                                             bool *Result) {
  LOOM_HSA_STATE(State);
  if (!State->pool(Src.handle) || !State->pool(Dst.handle))
    return hsa_status_t(HSA_STATUS_ERROR_INVALID_MEMORY_POOL);
  if (!Result)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *Result = false;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_amd_memory_lock(void *HostPtr, size_t Size,
                                 hsa_agent_t *Agents, int NumAgents,
                                 void **AgentPtr) {
  LOOM_HSA_STATE(State);
  if (!HostPtr || !Size || !AgentPtr || NumAgents < 0)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (hsa_status_t S = checkAgents(State, uint32_t(NumAgents), Agents);
      S != HSA_STATUS_SUCCESS)
    return S;
  AllocationTable::addClientRange(HostPtr, Size, HSA_EXT_POINTER_TYPE_LOCKED,
                                  State->SystemFine, State->cpu());
  *AgentPtr = HostPtr; // device memory is host memory
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_amd_memory_lock_to_pool(void *HostPtr, size_t Size,
                                         hsa_agent_t *Agents, int NumAgents,
                                         hsa_amd_memory_pool_t Pool,
                                         uint32_t Flags, void **AgentPtr) {
  LOOM_HSA_STATE(State);
  MemoryPool *P = State->pool(Pool.handle);
  if (!P)
    return hsa_status_t(HSA_STATUS_ERROR_INVALID_MEMORY_POOL);
  if (!HostPtr || !Size || !AgentPtr || NumAgents < 0)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (hsa_status_t S = checkAgents(State, uint32_t(NumAgents), Agents);
      S != HSA_STATUS_SUCCESS)
    return S;
  AllocationTable::addClientRange(HostPtr, Size, HSA_EXT_POINTER_TYPE_LOCKED,
                                  P, State->cpu());
  *AgentPtr = HostPtr;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_amd_memory_unlock(void *HostPtr) {
  LOOM_HSA_STATE(State);
  if (!HostPtr)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return AllocationTable::removeClientRange(HostPtr,
                                            HSA_EXT_POINTER_TYPE_LOCKED)
             ? HSA_STATUS_SUCCESS
             : HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

hsa_status_t hsa_amd_pointer_info(const void *Ptr, hsa_amd_pointer_info_t *Info,
                                  void *(*Alloc)(size_t),
                                  uint32_t *NumAgentsAccessible,
                                  hsa_agent_t **Accessible) {
  LOOM_HSA_STATE(State);
  constexpr size_t Minimal = offsetof(hsa_amd_pointer_info_t, userData);
  if (!Ptr || !Info || Info->size < Minimal)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  hsa_amd_pointer_info_t Out{};
  Out.size = uint32_t(std::min<size_t>(Info->size, sizeof(Out)));
  auto A = AllocationTable::find(Ptr);
  std::vector<hsa_agent_t> Agents;
  if (A) {
    Out.type = A->Type;
    Out.agentBaseAddress = reinterpret_cast<void *>(A->Base);
    Out.hostBaseAddress = reinterpret_cast<void *>(A->Base);
    Out.sizeInBytes = A->Size;
    Out.userData = A->UserData;
    Out.agentOwner = A->Owner ? A->Owner->hsa() : State->cpu()->hsa();
    Out.global_flags = A->Pool ? A->Pool->globalFlags()
                               : HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED;
    for (const auto &Ag : State->Agents) {
      bool Allowed =
          !A->Pool ||
          A->Pool->accessFrom(*Ag) ==
              HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT ||
          std::find(A->AllowedAgents.begin(), A->AllowedAgents.end(),
                    Ag->handle()) != A->AllowedAgents.end();
      if (Allowed)
        Agents.push_back(Ag->hsa());
    }
  } else {
    Out.type = HSA_EXT_POINTER_TYPE_UNKNOWN;
  }
  std::memcpy(Info, &Out, Out.size);
  if (NumAgentsAccessible && Accessible) {
    if (!Alloc)
      return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    *NumAgentsAccessible = uint32_t(Agents.size());
    *Accessible = static_cast<hsa_agent_t *>(
        Alloc(std::max<size_t>(1, Agents.size()) * sizeof(hsa_agent_t)));
    if (!*Accessible)
      return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    std::copy(Agents.begin(), Agents.end(), *Accessible);
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_amd_pointer_info_set_userdata(const void *Ptr,
                                               void *UserData) {
  LOOM_HSA_STATE(State);
  if (!Ptr)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return AllocationTable::setUserData(Ptr, UserData)
             ? HSA_STATUS_SUCCESS
             : HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

hsa_status_t hsa_amd_register_deallocation_callback(
    void *Ptr, hsa_amd_deallocation_callback_t Callback, void *UserData) {
  LOOM_HSA_STATE(State);
  if (!Ptr || !Callback)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  auto A = AllocationTable::find(Ptr);
  if (!A || A->Base != uint64_t(Ptr))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  std::lock_guard<std::mutex> L(deallocCallbacks().Lock);
  deallocCallbacks().ByPtr.emplace(uint64_t(Ptr),
                                   std::make_pair(Callback, UserData));
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_amd_deregister_deallocation_callback(
    void *Ptr, hsa_amd_deallocation_callback_t Callback) {
  LOOM_HSA_STATE(State);
  if (!Ptr || !Callback)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  std::lock_guard<std::mutex> L(deallocCallbacks().Lock);
  auto R = deallocCallbacks().ByPtr.equal_range(uint64_t(Ptr));
  for (auto It = R.first; It != R.second; ++It)
    if (It->second.first == Callback) {
      deallocCallbacks().ByPtr.erase(It);
      return HSA_STATUS_SUCCESS;
    }
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

//===--- Fills and copies -------------------------------------------------===//

hsa_status_t hsa_amd_memory_fill(void *Ptr, uint32_t Value, size_t Count) {
  LOOM_HSA_STATE(State);
  if (!Ptr || (reinterpret_cast<uintptr_t>(Ptr) & 3))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  auto *P = static_cast<uint32_t *>(Ptr);
  std::fill(P, P + Count, Value);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_amd_memory_async_copy(void *Dst, hsa_agent_t DstAgent,
                                       const void *Src, hsa_agent_t SrcAgent,
                                       size_t Size, uint32_t NumDeps,
                                       const hsa_signal_t *Deps,
                                       hsa_signal_t Completion) {
  LOOM_HSA_STATE(State);
  if (!State->agent(DstAgent.handle) || !State->agent(SrcAgent.handle))
    return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!Dst || !Src)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (hsa_status_t S = checkSignals(NumDeps, Deps, Completion);
      S != HSA_STATUS_SUCCESS)
    return S;
  CopyEngine::Task T;
  T.Deps.assign(Deps, Deps + NumDeps);
  T.Completion = Completion;
  T.Work = [Dst, Src, Size] { std::memmove(Dst, Src, Size); };
  CopyEngine::submit(std::move(T));
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_amd_memory_async_copy_rect(
    const hsa_pitched_ptr_t *Dst, const hsa_dim3_t *DstOffset,
    const hsa_pitched_ptr_t *Src, const hsa_dim3_t *SrcOffset,
    const hsa_dim3_t *Range, hsa_agent_t CopyAgent,
    hsa_amd_copy_direction_t Dir, uint32_t NumDeps, const hsa_signal_t *Deps,
    hsa_signal_t Completion) {
  LOOM_HSA_STATE(State);
  if (!State->agent(CopyAgent.handle))
    return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!Dst || !DstOffset || !Src || !SrcOffset || !Range || !Dst->base ||
      !Src->base)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  // Pitches must hold a row; slices must hold the rows (3D copies).
  if (Dst->pitch < DstOffset->x + Range->x ||
      Src->pitch < SrcOffset->x + Range->x ||
      (Range->z > 1 && (Dst->slice < Dst->pitch * (DstOffset->y + Range->y) ||
                        Src->slice < Src->pitch * (SrcOffset->y + Range->y))))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (hsa_status_t S = checkSignals(NumDeps, Deps, Completion);
      S != HSA_STATUS_SUCCESS)
    return S;
  CopyEngine::Task T;
  T.Deps.assign(Deps, Deps + NumDeps);
  T.Completion = Completion;
  hsa_pitched_ptr_t D = *Dst, S = *Src;
  hsa_dim3_t DO = *DstOffset, SO = *SrcOffset, R = *Range;
  T.Work = [D, S, DO, SO, R] {
    for (uint32_t Z = 0; Z < R.z; ++Z)
      for (uint32_t Y = 0; Y < R.y; ++Y) {
        auto *To = static_cast<uint8_t *>(D.base) + (DO.z + Z) * D.slice +
                   (DO.y + Y) * D.pitch + DO.x;
        auto *From = static_cast<const uint8_t *>(S.base) +
                     (SO.z + Z) * S.slice + (SO.y + Y) * S.pitch + SO.x;
        std::memmove(To, From, R.x);
      }
  };
  CopyEngine::submit(std::move(T));
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_amd_profiling_async_copy_enable(bool Enable) {
  LOOM_HSA_STATE(State);
  CopyEngine::setProfiling(Enable);
  return HSA_STATUS_SUCCESS;
}

//===--- SVM and coherency ------------------------------------------------===//

hsa_status_t hsa_amd_svm_attributes_set(void *Ptr, size_t Size,
                                        hsa_amd_svm_attribute_pair_t *Attrs,
                                        size_t Count) {
  LOOM_HSA_STATE(State);
  if (!Ptr || !Size || (Count && !Attrs))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (size_t I = 0; I < Count; ++I) {
    switch (Attrs[I].attribute) {
    case HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE:
    case HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE:
    case HSA_AMD_SVM_ATTRIB_AGENT_NO_ACCESS:
    case HSA_AMD_SVM_ATTRIB_PREFERRED_LOCATION:
    case HSA_AMD_SVM_ATTRIB_PREFETCH_LOCATION:
      if (!State->agent(Attrs[I].value))
        return HSA_STATUS_ERROR_INVALID_AGENT;
      break;
    case HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG:
    case HSA_AMD_SVM_ATTRIB_READ_ONLY:
    case HSA_AMD_SVM_ATTRIB_HIVE_LOCAL:
    case HSA_AMD_SVM_ATTRIB_MIGRATION_GRANULARITY:
    case HSA_AMD_SVM_ATTRIB_READ_MOSTLY:
      break;
    default:
      return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
  }
  // Making a range accessible to an agent registers it with the devices.
  for (size_t I = 0; I < Count; ++I)
    if (Attrs[I].attribute == HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE ||
        Attrs[I].attribute == HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE) {
      AllocationTable::addClientRange(Ptr, Size, HSA_EXT_POINTER_TYPE_UNKNOWN,
                                      nullptr, State->cpu());
      break;
    }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_amd_svm_attributes_get(void *Ptr, size_t Size,
                                        hsa_amd_svm_attribute_pair_t *Attrs,
                                        size_t Count) {
  LOOM_HSA_STATE(State);
  if (!Ptr || !Size || (Count && !Attrs))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  bool Registered = AllocationTable::find(Ptr).has_value();
  for (size_t I = 0; I < Count; ++I) {
    switch (Attrs[I].attribute) {
    case HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG:
      Attrs[I].value = HSA_AMD_SVM_GLOBAL_FLAG_FINE_GRAINED;
      break;
    case HSA_AMD_SVM_ATTRIB_READ_ONLY:
    case HSA_AMD_SVM_ATTRIB_HIVE_LOCAL:
    case HSA_AMD_SVM_ATTRIB_READ_MOSTLY:
      Attrs[I].value = 0;
      break;
    case HSA_AMD_SVM_ATTRIB_MIGRATION_GRANULARITY:
      Attrs[I].value = 9; // 2^9 pages, ROCr's default
      break;
    case HSA_AMD_SVM_ATTRIB_PREFERRED_LOCATION:
    case HSA_AMD_SVM_ATTRIB_PREFETCH_LOCATION:
      Attrs[I].value = State->cpu()->handle();
      break;
    case HSA_AMD_SVM_ATTRIB_ACCESS_QUERY: {
      Agent *A = State->agent(Attrs[I].value);
      if (!A)
        return HSA_STATUS_ERROR_INVALID_AGENT;
      Attrs[I].attribute = !A->isGpu() || Registered
                               ? HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE
                               : HSA_AMD_SVM_ATTRIB_AGENT_NO_ACCESS;
      break;
    }
    default:
      return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_amd_svm_prefetch_async(void *Ptr, size_t Size,
                                        hsa_agent_t AgentH, uint32_t NumDeps,
                                        const hsa_signal_t *Deps,
                                        hsa_signal_t Completion) {
  LOOM_HSA_STATE(State);
  if (!State->agent(AgentH.handle))
    return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!Ptr)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (hsa_status_t S = checkSignals(NumDeps, Deps, Completion);
      S != HSA_STATUS_SUCCESS)
    return S;
  // Nothing moves (one memory); only the completion is signalled in order.
  CopyEngine::Task T;
  T.Deps.assign(Deps, Deps + NumDeps);
  T.Completion = Completion;
  CopyEngine::submit(std::move(T));
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_amd_coherency_get_type(hsa_agent_t AgentH,
                                        hsa_amd_coherency_type_t *Type) {
  LOOM_HSA_STATE(State);
  Agent *A = State->agent(AgentH.handle);
  if (!A || !A->isGpu())
    return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!Type)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *Type = HSA_AMD_COHERENCY_TYPE_COHERENT;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_amd_coherency_set_type(hsa_agent_t AgentH,
                                        hsa_amd_coherency_type_t Type) {
  LOOM_HSA_STATE(State);
  Agent *A = State->agent(AgentH.handle);
  if (!A || !A->isGpu())
    return HSA_STATUS_ERROR_INVALID_AGENT;
  if (Type != HSA_AMD_COHERENCY_TYPE_COHERENT &&
      Type != HSA_AMD_COHERENCY_TYPE_NONCOHERENT)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return HSA_STATUS_SUCCESS;
}

} // namespace loom::hsa::impl
