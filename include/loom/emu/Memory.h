//===- loom/emu/Memory.h - Device memory is host memory ------------------===//
//
// A GPU virtual address is the host virtual address of the same byte
// (ARCHITECTURE decision 4). Every range the device may touch is registered
// here; an access outside every registered range is a memory fault, found
// before the host touches the byte.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_EMU_MEMORY_H
#define LOOM_EMU_MEMORY_H

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace loom::emu {

/// Access rights of a registered range.
enum MemoryAccess : uint8_t {
  AccessRead = 1,
  AccessWrite = 2,
  AccessReadWrite = AccessRead | AccessWrite,
};

struct MemoryRange {
  uint64_t Base = 0;
  uint64_t Size = 0;
  uint8_t Access = AccessReadWrite;

  bool contains(uint64_t Addr, uint64_t Bytes) const {
    return Addr >= Base && Bytes <= Size && Addr - Base <= Size - Bytes;
  }
};

/// The set of registered ranges. Registration takes a lock and publishes a
/// new immutable snapshot; lookups read the current snapshot without a
/// lock. A replaced snapshot is freed once no lookup is in flight. Lookups
/// announce themselves in one of several reader counts, each on its own
/// cache line, so that threads looking up at once do not contend for one
/// line. (Waves also cache the ranges they hit, see RangeCache, so lookups
/// are rare on the device's hot path.)
class MemoryMap {
public:
  MemoryMap();
  ~MemoryMap();

  /// Registers [Base, Base + Size). Overlapping an existing range is
  /// allowed (the union is accessible); the same base may be registered
  /// several times and must then be unregistered as often.
  void add(const void *Base, uint64_t Size, uint8_t Access = AccessReadWrite);
  void add(uint64_t Base, uint64_t Size, uint8_t Access = AccessReadWrite);
  /// Removes the most recent registration starting at \p Base. Returns
  /// false if none does.
  bool remove(uint64_t Base);
  bool remove(const void *Base) {
    return remove(reinterpret_cast<uint64_t>(Base));
  }

  /// True if every byte of [Addr, Addr + Bytes) is in one registered range
  /// that grants \p Access.
  bool check(uint64_t Addr, uint64_t Bytes, uint8_t Access) const;
  /// The range holding \p Addr, if any (a copy: ranges may go away).
  bool find(uint64_t Addr, MemoryRange &Out) const;

  /// Frees replaced snapshots if no lookup is in flight.
  void reclaim();

private:
  struct Snapshot;
  void publish(); // with Lock held
  bool noReaders() const;

  std::mutex Lock;
  std::vector<MemoryRange> Ranges; // guarded by Lock, registration order
  std::atomic<const Snapshot *> Current{nullptr};
  static constexpr unsigned ReaderSlots = 8;
  struct alignas(64) ReaderCount {
    std::atomic<int> N{0};
  };
  mutable ReaderCount Readers[ReaderSlots];
  std::vector<std::unique_ptr<const Snapshot>> Retired; // guarded by Lock
};

/// The last few ranges one thread of execution (a wave) found, to check
/// its accesses without the shared map: most accesses of a wave fall in
/// the few buffers it works on. Entries are copies; a range unregistered
/// while the wave runs stays usable by it until it ends.
class RangeCache {
public:
  static constexpr unsigned Ways = 4;

  /// The cached range holding \p Addr that grants \p Access, if any.
  const MemoryRange *lookup(uint64_t Addr, uint8_t Access) const {
    for (const MemoryRange &R : Entries)
      if (Addr - R.Base < R.Size && (R.Access & Access) == Access)
        return &R;
    return nullptr;
  }
  /// Caches \p R in place of the oldest entry; returns the cached copy.
  const MemoryRange *insert(const MemoryRange &R) {
    MemoryRange &E = Entries[Next];
    Next = (Next + 1) % Ways;
    E = R;
    return &E;
  }

private:
  MemoryRange Entries[Ways]; // empty: size 0 holds no address
  unsigned Next = 0;
};

} // namespace loom::emu

#endif // LOOM_EMU_MEMORY_H
