//===- tool/HostMemory.cpp - Memory the host and the agents share ---------===//

#include "HostMemory.h"
#include "Hsa.h"

#include "llvm/Support/MathExtras.h"

using namespace llvm;

namespace loom::tool {

namespace {

/// Blocks kept per (use, agent, size): a few more than the dispatches
/// usually in flight at once.
constexpr size_t KeptPerSize = 64;

template <typename T>
T poolInfo(hsa_amd_memory_pool_t Pool, hsa_amd_memory_pool_info_t What) {
  T V{};
  if (hsa().Amd.hsa_amd_memory_pool_get_info_fn(Pool, What, &V) !=
      HSA_STATUS_SUCCESS)
    return T{};
  return V;
}

} // namespace

const HostMemory::Pools &HostMemory::pools() {
  if (Found)
    return *Found;
  Found.emplace();
  // The CPU agents' global pools the runtime allocates from; the first
  // kernarg pool and the first fine-grained one.
  auto AgentCallback = [](hsa_agent_t Agent, void *Data) {
    hsa_device_type_t Type{};
    if (hsa().Core.hsa_agent_get_info_fn(Agent, HSA_AGENT_INFO_DEVICE,
                                         &Type) != HSA_STATUS_SUCCESS ||
        Type != HSA_DEVICE_TYPE_CPU)
      return HSA_STATUS_SUCCESS;
    auto PoolCallback = [](hsa_amd_memory_pool_t Pool, void *Data) {
      auto &P = *static_cast<Pools *>(Data);
      if (poolInfo<hsa_amd_segment_t>(Pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT) !=
              HSA_AMD_SEGMENT_GLOBAL ||
          !poolInfo<bool>(Pool,
                          HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED))
        return HSA_STATUS_SUCCESS;
      uint32_t Flags =
          poolInfo<uint32_t>(Pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS);
      if ((Flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) && !P.Kernarg)
        P.Kernarg = Pool;
      if ((Flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED) && !P.Fine)
        P.Fine = Pool;
      return HSA_STATUS_SUCCESS;
    };
    hsa().Amd.hsa_amd_agent_iterate_memory_pools_fn(Agent, PoolCallback, Data);
    return HSA_STATUS_SUCCESS;
  };
  hsa().Core.hsa_iterate_agents_fn(AgentCallback, &*Found);
  // The kernarg pool is fine-grained system memory too, on ROCr and Loom.
  if (!Found->Kernarg)
    Found->Kernarg = Found->Fine;
  if (!Found->Fine)
    Found->Fine = Found->Kernarg;
  if (Found->Kernarg) {
    size_t G = poolInfo<size_t>(*Found->Kernarg,
                                HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE);
    if (G && isPowerOf2_64(G))
      Found->Granule = G;
  }
  return *Found;
}

Expected<HostMemory::Block> HostMemory::allocate(Use For, size_t Bytes,
                                                 hsa_agent_t Agent) {
  const Pools &P = pools();
  std::optional<hsa_amd_memory_pool_t> Pool =
      For == Use::Kernarg ? P.Kernarg : P.Fine;
  if (!Pool)
    return createStringError(inconvertibleErrorCode(),
                             "the HSA runtime offers no fine-grained or "
                             "kernarg system memory pool");
  const AmdExtTable &Amd = hsa().Amd;
  Block B;
  B.Bytes = Bytes;
  B.For = For;
  B.Agent = Agent;
  if (Error E = check(Amd.hsa_amd_memory_pool_allocate_fn(*Pool, Bytes, 0,
                                                          &B.Ptr),
                      "hsa_amd_memory_pool_allocate"))
    return std::move(E);
  // System memory is usually open to every agent; where it is not, the
  // kernel's agent is let in.
  hsa_amd_memory_pool_access_t Access = HSA_AMD_MEMORY_POOL_ACCESS_NEVER_ALLOWED;
  Error E = check(Amd.hsa_amd_agent_memory_pool_get_info_fn(
                      Agent, *Pool, HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS,
                      &Access),
                  "hsa_amd_agent_memory_pool_get_info(ACCESS)");
  if (!E && Access == HSA_AMD_MEMORY_POOL_ACCESS_NEVER_ALLOWED)
    E = createStringError(inconvertibleErrorCode(),
                          "the agent cannot access the system memory pool");
  if (!E && Access == HSA_AMD_MEMORY_POOL_ACCESS_DISALLOWED_BY_DEFAULT)
    E = check(Amd.hsa_amd_agents_allow_access_fn(1, &Agent, nullptr, B.Ptr),
              "hsa_amd_agents_allow_access");
  if (E) {
    Amd.hsa_amd_memory_pool_free_fn(B.Ptr);
    return std::move(E);
  }
  return B;
}

Expected<HostMemory::Block> HostMemory::get(Use For, size_t Bytes,
                                            hsa_agent_t Agent) {
  std::lock_guard<std::mutex> L(Lock);
  Bytes = alignTo(std::max<size_t>(Bytes, 1), pools().Granule);
  auto It = Free.find({For, Agent.handle, Bytes});
  if (It != Free.end() && !It->second.empty()) {
    Block B{It->second.back().first, Bytes, For, Agent,
            It->second.back().second};
    It->second.pop_back();
    return B;
  }
  return allocate(For, Bytes, Agent);
}

void HostMemory::put(Block B) {
  if (!B)
    return;
  std::lock_guard<std::mutex> L(Lock);
  auto &Kept = Free[{B.For, B.Agent.handle, B.Bytes}];
  if (Kept.size() < KeptPerSize)
    Kept.push_back({B.Ptr, B.Left});
  else
    hsa().Amd.hsa_amd_memory_pool_free_fn(B.Ptr);
}

void HostMemory::clear() {
  std::lock_guard<std::mutex> L(Lock);
  for (auto &[Key, Kept] : Free)
    for (auto &[P, Left] : Kept)
      hsa().Amd.hsa_amd_memory_pool_free_fn(P);
  Free.clear();
  Found.reset();
}

} // namespace loom::tool
