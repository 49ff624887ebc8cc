//===- loom/emu/Device.h - The virtual AMD GPU ----------------------------===//
//
// A CPU emulator of the gfx90a ISA. It knows nothing of HSA: callers register
// memory, register loaded code, and run dispatches described the way the
// hardware sees them (kernel descriptor address, grid, work-group size,
// kernarg address, AQL packet and queue addresses for the SGPRs that point
// at them). A dispatch returns how it ended (completed, or the first fault
// with its address, kernel and pc) and counters of what really ran.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_EMU_DEVICE_H
#define LOOM_EMU_DEVICE_H

#include "loom/emu/Counters.h"
#include "loom/emu/Memory.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace loom::codeobj {
class CodeObject;
}

namespace loom::emu {

/// Flat-address apertures: a flat address whose high 32 bits are the shared
/// (private) aperture's reaches LDS (the lane's scratch), as on gfx9. They lie
/// above the 47-bit user address space, so they never alias host memory.
inline constexpr uint64_t SharedApertureBase = 0x0001000000000000ULL;
inline constexpr uint64_t PrivateApertureBase = 0x0002000000000000ULL;
inline constexpr uint64_t ApertureSize = 0x0000000100000000ULL;

/// Whether idle workers take started work-groups over from slower ones once
/// every group of a dispatch is claimed (docs/emu.md, "Takeovers").
enum class TakeoverMode : uint8_t {
  Off,
  /// A worker takes a group from one it would finish it sooner than.
  On,
  /// For tests: idle workers take groups from any busy worker and wait
  /// while any is busy, so groups move at nearly every safe point; every
  /// dispatch gets a worker per thread, idle ones from its start.
  Always,
};

struct DeviceOptions {
  /// Processor and features, as in a target id ("gfx90a", "gfx90a:xnack-").
  std::string Target = "gfx90a";
  /// Host threads that run work-groups; 0 means one per core.
  unsigned Threads = 0;
  /// Count instructions, blocks, lanes and memory bytes per dispatch.
  bool CollectCounters = true;
  /// Also record every memory access (address, size, lanes) per dispatch,
  /// each wave's in order (no takeovers then).
  bool RecordMemoryAccesses = false;
  /// LDS per work-group, bytes (gfx90a: 64 KiB).
  uint32_t LdsSize = 64 * 1024;
  /// Runs of a trace (straight-line ALU code in one basic block), over all
  /// waves, before it is compiled to host code; 0 keeps everything in the
  /// interpreter. Compiling costs 1-6 ms per instruction of the trace, what
  /// a few hundred thousand runs save (docs/performance.md, "Session 9").
  /// LOOM_TRACE_THRESHOLD overrides it (docs/emu.md, "Trace compiler").
  uint32_t TraceThreshold = 500'000;
  /// Fault on a DS access outside the work-group's LDS instead of doing
  /// what the hardware does (drop the write, read zero; docs/emu.md, "LDS
  /// out of range"). LOOM_STRICT_LDS=1 sets it.
  bool StrictLds = false;
  /// LOOM_TAKEOVERS (0, 1, always) overrides it.
  TakeoverMode Takeovers = TakeoverMode::On;
};

/// What the trace compiler (DeviceOptions::TraceThreshold) has done in this
/// process, over every device.
struct TraceCompilerStats {
  uint64_t Compiled = 0; ///< host functions compiled
  uint64_t Reused = 0;   ///< traces whose code was already compiled
  double Seconds = 0;    ///< time spent compiling
};
TraceCompilerStats traceCompilerStats();

/// What differs between the processors the virtual GPU emulates. gfx90a
/// (MI200) is complete; gfx940/gfx941/gfx942 (MI300) share its wave64
/// register model and add architected flat scratch. The instruction set
/// itself comes from LLVM's MC layer for the processor.
struct TargetProperties {
  std::string Processor;
  /// VGPRs + AGPRs in the unified file, per lane (512 on both).
  unsigned VectorRegisters = 512;
  /// The hardware initialises FLAT_SCRATCH to the wave's scratch base
  /// (AMDGPUUsage "Flat Scratch"); no flat-scratch-init SGPRs or private
  /// segment buffer are used.
  bool ArchitectedFlatScratch = false;
  /// LDS per work-group, bytes.
  uint32_t LdsBytes = 64 * 1024;

  /// The properties of \p Processor ("gfx90a"), or an error naming the
  /// processors Loom emulates.
  static llvm::Expected<TargetProperties> of(llvm::StringRef Processor);
};

/// How a dispatch ended.
enum class DispatchStatus : uint8_t {
  Completed,
  MemoryFault,        ///< An access outside registered memory (or LDS/scratch).
  IllegalInstruction, ///< Bytes that are no instruction, or one not emulated.
  Trap,               ///< s_trap, or s_sethalt/s_sleep forever.
  InvalidDispatch,    ///< Bad kernel object, sizes or descriptor.
  Cancelled,          ///< The caller's cancel flag was raised.
  TimedOut,           ///< It ran longer than DispatchParams::TimeoutNs.
};

llvm::StringRef dispatchStatusName(DispatchStatus S);

/// The first fault of a dispatch (the dispatch stops at it).
struct Fault {
  DispatchStatus Status = DispatchStatus::Completed;
  uint64_t Address = 0; ///< Faulting memory address (MemoryFault).
  bool IsWrite = false;
  uint64_t Pc = 0;      ///< Address of the faulting instruction.
  std::string Code;     ///< Code object the pc is in ("" if none).
  std::string Function; ///< Kernel or device function holding the pc.
  uint64_t Offset = 0;  ///< pc - start of Function.
  std::string Instruction; ///< Its text, when the pc decodes.
  /// In instrumented code, the hook the pc is in: "hook NAME (WHERE)".
  std::string Hook;
  std::string Message;  ///< One line: what happened, where.
};

/// One dispatch, as the command processor would receive it.
struct DispatchParams {
  /// Address of the kernel descriptor (the AQL packet's kernel_object).
  uint64_t KernelObject = 0;
  /// Grid size in work-items and work-group size, per dimension.
  uint32_t GridSize[3] = {1, 1, 1};
  uint16_t WorkgroupSize[3] = {1, 1, 1};
  /// Number of dimensions (1 to 3), for work-item id VGPR packing.
  unsigned Dimensions = 1;
  /// Kernarg segment address (registered memory).
  uint64_t Kernarg = 0;
  /// LDS bytes per work-group (fixed + dynamic); at least the descriptor's.
  uint32_t GroupSegmentSize = 0;
  /// Scratch bytes per work-item; at least the descriptor's.
  uint32_t PrivateSegmentSize = 0;
  /// Addresses the dispatch_ptr and queue_ptr SGPRs receive (0: the device
  /// provides a packet and a queue-like block of its own).
  uint64_t DispatchPacket = 0;
  uint64_t Queue = 0;
  uint64_t DispatchId = 0;
  /// Raised by the caller to stop the dispatch (checked between slices).
  const std::atomic<bool> *Cancel = nullptr;
  /// Ends the dispatch with DispatchStatus::TimedOut once it has run this
  /// long (checked between slices); 0: no limit.
  uint64_t TimeoutNs = 0;
  /// Name used in messages when the kernel object is not a known kernel.
  std::string KernelName;
};

struct DispatchResult {
  DispatchStatus Status = DispatchStatus::Completed;
  Fault FirstFault;
  std::string KernelName; ///< the kernel's symbol, or Params.KernelName
  /// Lanes whose DS access fell outside the work-group's LDS (dropped
  /// writes, zero reads, as on the hardware), and where the first one was
  /// (set when LdsOutOfRange is; Status Completed; Message says what,
  /// where, which lane).
  uint64_t LdsOutOfRange = 0;
  std::optional<Fault> FirstLdsOutOfRange;
  DispatchCounters Counters;
  /// Started work-groups idle workers took over (TakeoverMode).
  uint64_t Takeovers = 0;
  /// One-wave groups handed over (taken or exchanged) at a safe point
  /// inside a time slice (a taken branch or trace), not at the slice's end.
  uint64_t TakeoversMidSlice = 0;
  /// Exchanges of two started groups between a faster and a slower worker
  /// (TakeoverMode), in the dispatch's tail.
  uint64_t TakeoverSwaps = 0;
  bool ok() const { return Status == DispatchStatus::Completed; }
};

class Device {
public:
  static llvm::Expected<std::unique_ptr<Device>>
  create(const DeviceOptions &Options = {});
  ~Device();

  const DeviceOptions &options() const;
  /// The processor name ("gfx90a").
  llvm::StringRef processor() const;
  const TargetProperties &target() const;

  MemoryMap &memory();

  /// Registers the code of \p CO, loaded at host address \p LoadBase (its
  /// PT_LOAD image already copied there), so dispatches and calls can run
  /// it; each kernel or function decodes when it first runs. \p Name names
  /// it in faults. The image must stay in place until unregisterCode.
  llvm::Error registerCode(std::shared_ptr<const codeobj::CodeObject> CO,
                           uint64_t LoadBase, llvm::StringRef Name);
  void unregisterCode(uint64_t LoadBase);

  /// Runs one dispatch to completion (or to its first fault) on the
  /// device's threads. Safe to call from several host threads: dispatches
  /// of different callers run at the same time, each on its caller's
  /// thread plus the pool workers that are free (ARCHITECTURE decision 14).
  DispatchResult dispatch(const DispatchParams &Params);

  struct Impl;
  Impl &impl() { return *P; }

private:
  explicit Device(std::unique_ptr<Impl> I);
  std::unique_ptr<Impl> P;
};

} // namespace loom::emu

#endif // LOOM_EMU_DEVICE_H
