//===- run/DeviceHeap.h - Device memory for the program's malloc -*- C++
//-*-===//
//
// Serves the device's malloc/free from large chunks of device memory taken
// from the HSA runtime, in power-of-two size classes. One runtime
// allocation per malloc would cost a page per block and the runtime's
// bookkeeping per call (Loom's memory map is rebuilt on every allocation;
// ROCr maps pages through the driver); programs malloc small blocks from
// many lanes at once. Used from the RPC server thread only.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_RUN_DEVICEHEAP_H
#define LOOM_RUN_DEVICEHEAP_H

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

namespace loom::run {

class DeviceHeap {
public:
  /// \p Allocate and \p Release take and give back runtime allocations.
  DeviceHeap(std::function<void *(uint64_t)> Allocate,
             std::function<void(void *)> Release);
  ~DeviceHeap();

  /// A block of at least \p Size bytes, 16-byte aligned; nullptr when the
  /// runtime has no more memory.
  void *allocate(uint64_t Size);
  /// Frees a block allocate() returned; others are ignored.
  void free(void *P);

private:
  static constexpr unsigned MinShift = 4;  // 16 bytes
  static constexpr unsigned MaxShift = 20; // 1 MiB: larger blocks go direct
  static constexpr uint64_t ChunkBytes = 8ull << 20;

  std::function<void *(uint64_t)> Allocate;
  std::function<void(void *)> Release;
  std::vector<void *> Chunks;
  uint8_t *Bump = nullptr, *BumpEnd = nullptr;
  std::vector<void *> FreeLists[MaxShift + 1];
  /// Live block -> its class (0: a direct runtime allocation).
  std::unordered_map<void *, unsigned> Live;
};

} // namespace loom::run

#endif // LOOM_RUN_DEVICEHEAP_H
