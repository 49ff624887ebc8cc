//===- loom/runtime/Memory.h - Memory pools, regions and allocations ------===//
//
// Memory pools double as HSA regions (as in ROCr): the system fine-grained
// pool (kernarg), the system coarse-grained pool, and a device-local
// coarse-grained "VRAM" pool per GPU, backed by host memory, and a GPU's
// group-segment (LDS) pool, which reports its size and allocates nothing. Every
// allocation, lock and registration is registered with every virtual GPU's
// memory map, so device memory is host memory (ARCHITECTURE decision 4).
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_RUNTIME_MEMORY_H
#define LOOM_RUNTIME_MEMORY_H

#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

namespace loom::runtime {

class Agent;

class MemoryPool {
public:
  enum class Kind { SystemFine, SystemCoarse, DeviceLocal, Group };
  MemoryPool(Kind K, Agent *Owner, uint64_t Size);

  Kind kind() const { return TheKind; }
  Agent *owner() const { return Owner; }
  uint64_t handle() const { return reinterpret_cast<uint64_t>(this); }
  bool isKernarg() const { return TheKind == Kind::SystemFine; }
  bool isFineGrained() const { return TheKind == Kind::SystemFine; }
  uint32_t globalFlags() const;

  hsa_status_t getPoolInfo(hsa_amd_memory_pool_info_t Attribute,
                           void *Value) const;
  hsa_status_t getRegionInfo(hsa_region_info_t Attribute, void *Value) const;
  /// How \p A may access this pool (hsa_amd_memory_pool_access_t).
  hsa_amd_memory_pool_access_t accessFrom(const Agent &A) const;

  static constexpr size_t Granule = 4096;

private:
  Kind TheKind;
  Agent *Owner;
  uint64_t Size;
};

/// What the runtime knows of a range (hsa_amd_pointer_info).
struct Allocation {
  uint64_t Base = 0;
  uint64_t Size = 0;
  hsa_amd_pointer_type_t Type = HSA_EXT_POINTER_TYPE_HSA;
  MemoryPool *Pool = nullptr;
  Agent *Owner = nullptr;
  void *UserData = nullptr;
  bool OwnedStorage = true; ///< false: locked/registered client memory
  uint32_t RegisterCount = 1;
  std::vector<uint64_t> AllowedAgents;
};

/// Every live allocation, locked or registered range, by base address.
class AllocationTable {
public:
  /// Allocates \p Bytes (rounded to the pool granule), zero-filled.
  static void *allocate(MemoryPool *Pool, Agent *Owner, size_t Bytes,
                        size_t Align = MemoryPool::Granule);
  /// Frees a runtime allocation; false if \p Ptr is not the base of one.
  static bool free(void *Ptr);
  /// Registers client memory [Ptr, Ptr+Bytes) (lock / register).
  static void addClientRange(void *Ptr, size_t Bytes,
                             hsa_amd_pointer_type_t Type, MemoryPool *Pool,
                             Agent *Owner);
  /// Drops one registration of client memory at \p Ptr.
  static bool removeClientRange(void *Ptr,
                                hsa_amd_pointer_type_t Type);
  /// The allocation holding \p Ptr, if any (a copy).
  static std::optional<Allocation> find(const void *Ptr);
  static bool setUserData(const void *Ptr, void *UserData);
  static bool allowAgents(const void *Ptr, const std::vector<uint64_t> &A);
  /// Frees everything (at shut-down).
  static void clear();
};

/// Registers / unregisters a range with every virtual GPU.
void registerRange(const void *Base, size_t Bytes);
void unregisterRange(const void *Base);

/// The asynchronous copy engine: one worker thread running copies in
/// submission order once their dependencies are satisfied.
class CopyEngine {
public:
  struct Task {
    std::vector<hsa_signal_t> Deps;
    hsa_signal_t Completion{0};
    std::function<void()> Work;
  };
  static void submit(Task T);
  /// Stops the worker after the queued copies (at shut-down).
  static void shutdown();
  static void setProfiling(bool On);
  static bool profiling();
};

} // namespace loom::runtime

#endif // LOOM_RUNTIME_MEMORY_H
