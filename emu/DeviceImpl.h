//===- emu/DeviceImpl.h - The device's shared state -----------------------===//
#ifndef LOOM_EMU_DEVICEIMPL_H
#define LOOM_EMU_DEVICEIMPL_H

#include "CodeRegion.h"
#include "Decoder.h"
#include "WorkerPool.h"

#include "loom/emu/Device.h"
#include "loom/isa/McContext.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <vector>

namespace loom::emu {

struct Device::Impl {
  DeviceOptions Options;
  TargetProperties Target;
  unsigned Threads = 1;
  std::unique_ptr<isa::McContext> MC;
  std::unique_ptr<Decoder> Dec;
  MemoryMap Memory;

  /// Registered code, sorted by address; readers (jumps between code
  /// objects, dispatch set-up) take the lock shared.
  mutable std::shared_mutex CodeLock;
  std::vector<std::unique_ptr<CodeRegion>> Regions;
  uint32_t NextInstructionId = 0;

  /// Workers shared by every dispatch: a dispatch runs on its caller's
  /// thread and on the pool threads free to join it (see dispatch).
  std::unique_ptr<WorkerPool> Pool;

  /// Device-owned stand-ins for the AQL packet when the caller passes none
  /// (registered memory, one per concurrent dispatch; a dispatch that
  /// finds none free registers one of its own), and for the queue (read
  /// only by kernels, so shared).
  static constexpr unsigned PacketSlots = 8;
  struct alignas(64) PacketSlot {
    uint8_t Bytes[64];
  };
  PacketSlot PacketStorage[PacketSlots] = {};
  std::atomic<unsigned> FreePackets{(1u << PacketSlots) - 1}; // bit per free slot
  alignas(64) uint8_t QueueStorage[256] = {};

  const CodeRegion *regionFor(uint64_t Addr) const;
};

} // namespace loom::emu

#endif // LOOM_EMU_DEVICEIMPL_H
