//===- runtime/Memory.cpp - Memory pools, regions and allocations ---------===//

#include "loom/runtime/Memory.h"

#include "loom/emu/Retire.h"
#include "loom/runtime/Agent.h"
#include "loom/runtime/Runtime.h"
#include "loom/runtime/RuntimeState.h"

#include "loom/emu/Device.h"

#include <algorithm>
#include <cstring>
#include <sys/mman.h>

namespace loom::runtime {

namespace {
template <typename T> hsa_status_t put(void *Value, T V) {
  std::memcpy(Value, &V, sizeof(T));
  return HSA_STATUS_SUCCESS;
}
} // namespace

MemoryPool::MemoryPool(Kind K, Agent *Owner, uint64_t Size)
    : TheKind(K), Owner(Owner), Size(Size) {}

uint32_t MemoryPool::globalFlags() const {
  if (TheKind == Kind::Group)
    return 0;
  if (TheKind == Kind::SystemFine)
    return HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED |
           HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT;
  return HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED;
}

hsa_status_t MemoryPool::getPoolInfo(hsa_amd_memory_pool_info_t Attribute,
                                     void *Value) const {
  switch (Attribute) {
  case HSA_AMD_MEMORY_POOL_INFO_SEGMENT:
    return put(Value, TheKind == Kind::Group ? HSA_AMD_SEGMENT_GROUP
                                             : HSA_AMD_SEGMENT_GLOBAL);
  case HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS:
    return put<uint32_t>(Value, globalFlags());
  case HSA_AMD_MEMORY_POOL_INFO_SIZE:
  case HSA_AMD_MEMORY_POOL_INFO_ALLOC_MAX_SIZE:
    return put<size_t>(Value, Size);
  case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED:
    return put<bool>(Value, TheKind != Kind::Group);
  case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE:
  case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALIGNMENT:
    return put<size_t>(Value, TheKind == Kind::Group ? 0 : Granule);
  case HSA_AMD_MEMORY_POOL_INFO_ACCESSIBLE_BY_ALL:
    return put<bool>(Value, TheKind == Kind::SystemFine);
  }
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

hsa_status_t MemoryPool::getRegionInfo(hsa_region_info_t Attribute,
                                       void *Value) const {
  switch (uint32_t(Attribute)) {
  case HSA_REGION_INFO_SEGMENT:
    return put(Value, TheKind == Kind::Group ? HSA_REGION_SEGMENT_GROUP
                                             : HSA_REGION_SEGMENT_GLOBAL);
  case HSA_REGION_INFO_GLOBAL_FLAGS:
    return put<uint32_t>(Value, TheKind == Kind::Group ? 0
                                : TheKind == Kind::SystemFine
                                    ? HSA_REGION_GLOBAL_FLAG_KERNARG |
                                          HSA_REGION_GLOBAL_FLAG_FINE_GRAINED
                                    : HSA_REGION_GLOBAL_FLAG_COARSE_GRAINED);
  case HSA_REGION_INFO_SIZE:
  case HSA_REGION_INFO_ALLOC_MAX_SIZE:
    return put<size_t>(Value, Size);
  case HSA_REGION_INFO_ALLOC_MAX_PRIVATE_WORKGROUP_SIZE:
    return put<uint32_t>(Value, 0);
  case HSA_REGION_INFO_RUNTIME_ALLOC_ALLOWED:
    return put<bool>(Value, TheKind != Kind::Group);
  case HSA_REGION_INFO_RUNTIME_ALLOC_GRANULE:
  case HSA_REGION_INFO_RUNTIME_ALLOC_ALIGNMENT:
    return put<size_t>(Value, TheKind == Kind::Group ? 0 : Granule);
  case HSA_AMD_REGION_INFO_HOST_ACCESSIBLE:
    return put<bool>(Value, TheKind != Kind::DeviceLocal);
  case HSA_AMD_REGION_INFO_BASE:
    return put<void *>(Value, nullptr);
  case HSA_AMD_REGION_INFO_BUS_WIDTH:
    return put<uint32_t>(Value, TheKind == Kind::DeviceLocal ? 4096 : 0);
  case HSA_AMD_REGION_INFO_MAX_CLOCK_FREQUENCY:
    return put<uint32_t>(Value, TheKind == Kind::DeviceLocal ? 1600 : 0);
  }
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

hsa_amd_memory_pool_access_t MemoryPool::accessFrom(const Agent &A) const {
  switch (TheKind) {
  case Kind::SystemFine:
    return HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT;
  case Kind::SystemCoarse:
    return A.isGpu() ? HSA_AMD_MEMORY_POOL_ACCESS_DISALLOWED_BY_DEFAULT
                     : HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT;
  case Kind::Group:
    return &A == Owner ? HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT
                       : HSA_AMD_MEMORY_POOL_ACCESS_NEVER_ALLOWED;
  case Kind::DeviceLocal:
    return &A == Owner ? HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT
                       : HSA_AMD_MEMORY_POOL_ACCESS_DISALLOWED_BY_DEFAULT;
  }
  return HSA_AMD_MEMORY_POOL_ACCESS_NEVER_ALLOWED;
}

//===--- Device registration ----------------------------------------------===//

void registerRange(const void *Base, size_t Bytes) {
  for (emu::Device *D : devices())
    D->memory().add(Base, Bytes);
}

void unregisterRange(const void *Base) {
  for (emu::Device *D : devices())
    D->memory().remove(Base);
}

//===--- Allocations ------------------------------------------------------===//

namespace {
struct Allocations {
  std::mutex Lock;
  std::map<uint64_t, Allocation> ByBase;
  // mmap'ed span behind each runtime allocation: (start, length).
  std::map<uint64_t, std::pair<void *, size_t>> Spans;
};
Allocations &allocs() {
  static auto *A = new Allocations;
  return *A;
}

std::map<uint64_t, Allocation>::iterator findLocked(uint64_t P) {
  auto &M = allocs().ByBase;
  auto It = M.upper_bound(P);
  if (It == M.begin())
    return M.end();
  --It;
  if (P - It->second.Base < std::max<uint64_t>(It->second.Size, 1))
    return It;
  return M.end();
}
} // namespace

void *AllocationTable::allocate(MemoryPool *Pool, Agent *Owner, size_t Bytes,
                                size_t Align) {
  if (!Bytes || (Align & (Align - 1)))
    return nullptr;
  Align = std::max<size_t>(Align, MemoryPool::Granule);
  size_t Size = (Bytes + MemoryPool::Granule - 1) & ~(MemoryPool::Granule - 1);
  if (Size < Bytes)
    return nullptr;
  size_t Span = Size + (Align > MemoryPool::Granule ? Align : 0);
  // mmap: zero-filled pages, committed only when touched.
  void *Raw = mmap(nullptr, Span, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (Raw == MAP_FAILED)
    return nullptr;
  uint64_t Base = (reinterpret_cast<uint64_t>(Raw) + Align - 1) & ~(Align - 1);
  Allocation A;
  A.Base = Base;
  A.Size = Bytes;
  A.Pool = Pool;
  A.Owner = Owner;
  registerRange(reinterpret_cast<void *>(Base), Size);
  std::lock_guard<std::mutex> L(allocs().Lock);
  allocs().ByBase[Base] = A;
  allocs().Spans[Base] = {Raw, Span};
  return reinterpret_cast<void *>(Base);
}

bool AllocationTable::free(void *Ptr) {
  uint64_t P = reinterpret_cast<uint64_t>(Ptr);
  std::pair<void *, size_t> Span;
  {
    std::lock_guard<std::mutex> L(allocs().Lock);
    auto It = allocs().ByBase.find(P);
    if (It == allocs().ByBase.end() || !It->second.OwnedStorage)
      return false;
    allocs().ByBase.erase(It);
    auto S = allocs().Spans.find(P);
    Span = S->second;
    allocs().Spans.erase(S);
  }
  // New accesses fault at once (as on the hardware after a free); a kernel
  // that already reached the buffer keeps reading valid pages until it
  // ends, when the mapping goes.
  unregisterRange(Ptr);
  emu::retireAfterDispatches([Span] { munmap(Span.first, Span.second); });
  return true;
}

void AllocationTable::addClientRange(void *Ptr, size_t Bytes,
                                     hsa_amd_pointer_type_t Type,
                                     MemoryPool *Pool, Agent *Owner) {
  uint64_t P = reinterpret_cast<uint64_t>(Ptr);
  {
    std::lock_guard<std::mutex> L(allocs().Lock);
    auto It = allocs().ByBase.find(P);
    if (It != allocs().ByBase.end() && !It->second.OwnedStorage &&
        It->second.Type == Type) {
      ++It->second.RegisterCount;
      It->second.Size = std::max<uint64_t>(It->second.Size, Bytes);
    } else if (It == allocs().ByBase.end()) {
      Allocation A;
      A.Base = P;
      A.Size = Bytes;
      A.Type = Type;
      A.Pool = Pool;
      A.Owner = Owner;
      A.OwnedStorage = false;
      allocs().ByBase[P] = A;
    }
  }
  registerRange(Ptr, Bytes);
}

bool AllocationTable::removeClientRange(void *Ptr,
                                        hsa_amd_pointer_type_t Type) {
  uint64_t P = reinterpret_cast<uint64_t>(Ptr);
  {
    std::lock_guard<std::mutex> L(allocs().Lock);
    auto It = allocs().ByBase.find(P);
    if (It == allocs().ByBase.end() || It->second.OwnedStorage ||
        It->second.Type != Type)
      return false;
    if (--It->second.RegisterCount == 0)
      allocs().ByBase.erase(It);
  }
  unregisterRange(Ptr);
  return true;
}

std::optional<Allocation> AllocationTable::find(const void *Ptr) {
  std::lock_guard<std::mutex> L(allocs().Lock);
  auto It = findLocked(reinterpret_cast<uint64_t>(Ptr));
  if (It == allocs().ByBase.end())
    return std::nullopt;
  return It->second;
}

bool AllocationTable::setUserData(const void *Ptr, void *UserData) {
  std::lock_guard<std::mutex> L(allocs().Lock);
  auto It = allocs().ByBase.find(reinterpret_cast<uint64_t>(Ptr));
  if (It == allocs().ByBase.end())
    return false;
  It->second.UserData = UserData;
  return true;
}

bool AllocationTable::allowAgents(const void *Ptr,
                                  const std::vector<uint64_t> &Agents) {
  std::lock_guard<std::mutex> L(allocs().Lock);
  auto It = findLocked(reinterpret_cast<uint64_t>(Ptr));
  if (It == allocs().ByBase.end())
    return false;
  for (uint64_t A : Agents)
    if (std::find(It->second.AllowedAgents.begin(),
                  It->second.AllowedAgents.end(),
                  A) == It->second.AllowedAgents.end())
      It->second.AllowedAgents.push_back(A);
  return true;
}

void AllocationTable::clear() {
  std::map<uint64_t, std::pair<void *, size_t>> Spans;
  {
    std::lock_guard<std::mutex> L(allocs().Lock);
    allocs().ByBase.clear();
    Spans.swap(allocs().Spans);
  }
  // The devices go away with the runtime; only the storage is left to free.
  for (auto &[Base, Span] : Spans)
    munmap(Span.first, Span.second);
}

} // namespace loom::runtime
