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
/// lock. A replaced snapshot is freed once no lookup is in flight. (Waves
/// cache the last range they hit, so lookups are rare on the device's hot
/// path.)
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

  std::mutex Lock;
  std::vector<MemoryRange> Ranges; // guarded by Lock, registration order
  std::atomic<const Snapshot *> Current{nullptr};
  mutable std::atomic<int> Readers{0};
  std::vector<std::unique_ptr<const Snapshot>> Retired; // guarded by Lock
};

} // namespace loom::emu

#endif // LOOM_EMU_MEMORY_H
