//===- emu/Dispatch.h - State shared by the waves of one dispatch ---------===//
//
// What a running dispatch shares between its worker threads (kernel, sizes,
// scratch, first fault, stop flag), what a work-group shares between its
// waves (LDS, barrier), and the services handlers call: faults, jumps to
// addresses, and memory checks.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_EMU_DISPATCH_H
#define LOOM_EMU_DISPATCH_H

#include "CodeRegion.h"
#include "TraceCache.h"
#include "Wave.h"

#include "loom/codeobj/KernelDescriptor.h"
#include "loom/emu/Device.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace loom::emu {

class DeviceImplAccess;
class DispatchProfile;
class Takeovers;

/// Per worker thread, per dispatch: indexed by instruction id.
struct WorkerCounters {
  std::vector<uint64_t> Executions, Lanes, Bytes;
  std::vector<MemoryAccessRecord> Accesses;
  uint64_t Waves = 0, Workgroups = 0;
  /// The worker's tally of cold traces' runs, counted whether or not
  /// counters are on (WorkerResources owns it; a dispatch's merged counters
  /// have none).
  TraceTally *Traces = nullptr;
  void reset(size_t NumIds) {
    Executions.assign(NumIds, 0);
    Lanes.assign(NumIds, 0);
    Bytes.assign(NumIds, 0);
    Accesses.clear();
    Waves = Workgroups = 0;
  }
};

struct Workgroup {
  uint32_t Id[3] = {0, 0, 0};
  /// Work-items per dimension: the dispatch's group size, less at the
  /// grid's edge.
  uint32_t Size[3] = {1, 1, 1};
  std::vector<Wave *> Waves;
  uint32_t Live = 0; ///< waves not yet ended
};

struct DispatchState {
  Device::Impl *Dev = nullptr;
  DispatchParams Params;
  codeobj::KernelDescriptor KD;
  std::string KernelName;
  const CodeRegion *EntryRegion = nullptr;
  uint32_t EntryIndex = 0;

  uint32_t NumGroups[3] = {1, 1, 1};
  uint64_t TotalGroups = 1;
  uint32_t WorkgroupItems = 1;
  uint32_t WavesPerGroup = 1;
  uint32_t LdsBytes = 0;
  uint32_t ScratchBytesPerLane = 0;
  uint64_t ScratchBytesPerWave = 0;
  uint64_t ScratchBase = 0; ///< host address of the dispatch's scratch
  uint32_t MaxWavesPerWorker = 0;
  uint32_t MaxResidentGroups = 1;
  uint32_t Workers = 1; ///< host threads running the dispatch
  uint64_t DispatchPacket = 0, Queue = 0;
  /// Unique in the process (from 1): what a wave's range cache belongs to.
  uint64_t Serial = 0;

  bool Count = false;
  bool Record = false;
  bool StrictLds = false; ///< LDS out of range faults (DeviceOptions)
  uint64_t Deadline = 0; ///< steady-clock ns; 0: none
  DispatchProfile *Profile = nullptr; ///< LOOM_DISPATCH_PROFILE only
  /// Idle workers taking started groups over (Takeover.h); null if off.
  Takeovers *Takeover = nullptr;

  // Written while waves run: each on a line of its own, away from the
  // fields above that every wave reads.
  alignas(64) std::atomic<uint64_t> NextGroup{0};
  alignas(64) std::atomic<bool> Stop{false};
  std::mutex FaultLock;
  DispatchStatus Status = DispatchStatus::Completed;
  Fault First;
  std::atomic<uint64_t> LdsOutOfRange{0};
  std::atomic<bool> LdsOutOfRangeNoted{false};
  /// Written once, by the first to note one.
  std::optional<Fault> FirstLdsOutOfRange;

  /// Stops every worker; the first caller's fault is the one reported.
  void stop(Fault F);
  bool cancelled() const {
    return Params.Cancel && Params.Cancel->load(std::memory_order_relaxed);
  }
};

/// Records a fault at the wave's current instruction and stops the dispatch.
void raiseFault(Wave &W, DispatchStatus Status, uint64_t Address,
                bool IsWrite, const std::string &What);

/// Counts \p Lanes DS accesses of the wave's current instruction outside
/// the work-group's LDS; the first of the dispatch is described by
/// \p What() (called once) at the wave's location.
void noteLdsOutOfRange(Wave &W, uint64_t Lanes, uint64_t Address,
                       bool IsWrite,
                       llvm::function_ref<std::string()> What);

/// Continues execution at \p Address (s_setpc/s_swappc and calls into
/// other code objects). Faults if no instruction starts there.
void jumpTo(Wave &W, uint64_t Address);

/// Checks that [Addr, Addr + Bytes) is registered device memory with the
/// given access; raises a memory fault and returns false if not.
bool checkMemory(Wave &W, uint64_t Addr, uint32_t Bytes, bool IsWrite,
                 int Lane = -1);

/// rangeFor when the wave's cache misses: the device's map, then cached.
const MemoryRange *lookUpRange(Wave &W, uint64_t Addr, uint8_t Access);

/// The registered range holding \p Addr that grants \p Access, from the
/// wave's cache or else the device's map (then cached); null if none.
inline const MemoryRange *rangeFor(Wave &W, uint64_t Addr, uint8_t Access) {
  if (const MemoryRange *R = W.Ranges.lookup(Addr, Access)) [[likely]]
    return R;
  return lookUpRange(W, Addr, Access);
}

/// Value of a SpecialValue operand (apertures, vccz, execz, scc).
uint64_t specialValue(const Wave &W, uint16_t Which);

} // namespace loom::emu

#endif // LOOM_EMU_DISPATCH_H
