//===- emu/Device.cpp - Dispatches: set-up, scheduling, interpretation ----===//
//
// A dispatch is split into work-groups that worker threads take from a
// shared counter. A worker runs the waves of its work-group round-robin in
// slices, so s_barrier works and a spinning wave lets its siblings run. The
// initial register state follows AMDGPUUsage "Initial Kernel Execution
// State" for gfx90a.
//
//===----------------------------------------------------------------------===//

#include "Clock.h"
#include "DeviceImpl.h"
#include "Dispatch.h"
#include "DispatchProfile.h"
#include "Futex.h"
#include "Takeover.h"
#include "TraceCache.h"

#include "loom/codeobj/Target.h"
#include "loom/emu/Retire.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Threading.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <thread>

using namespace llvm;

namespace loom::emu {

StringRef dispatchStatusName(DispatchStatus S) {
  switch (S) {
  case DispatchStatus::Completed:
    return "completed";
  case DispatchStatus::MemoryFault:
    return "memory fault";
  case DispatchStatus::IllegalInstruction:
    return "illegal instruction";
  case DispatchStatus::Trap:
    return "trap";
  case DispatchStatus::InvalidDispatch:
    return "invalid dispatch";
  case DispatchStatus::Cancelled:
    return "cancelled";
  case DispatchStatus::TimedOut:
    return "timed out";
  }
  return "unknown";
}

//===----------------------------------------------------------------------===//
// Services for handlers
//===----------------------------------------------------------------------===//

uint64_t Wave::pc() const { return Region->insts()[Index].Address; }

void DispatchState::stop(Fault F) {
  std::lock_guard<std::mutex> G(FaultLock);
  if (Status == DispatchStatus::Completed) {
    Status = F.Status;
    First = std::move(F);
  }
  Stop.store(true, std::memory_order_relaxed);
}

/// \p What at the wave's current instruction: where (code object,
/// function and offset, hook, instruction) and which work-group and wave.
static Fault describeAt(Wave &W, DispatchStatus Status, uint64_t Address,
                        bool IsWrite, const std::string &What) {
  Fault F;
  F.Status = Status;
  F.Address = Address;
  F.IsWrite = IsWrite;
  const CodeRegion *R = W.Region;
  F.Pc = W.pc();
  F.Code = R->name().str();
  if (const CodeRegion::Symbol *S = R->symbolAt(F.Pc)) {
    F.Function = S->Name;
    F.Offset = F.Pc - S->Address;
  }
  F.Instruction = R->text(W.Index);
  std::string Where =
      F.Function.empty()
          ? formatv("pc {0:x}", F.Pc).str()
          : formatv("{0}+{1:x}", F.Function, F.Offset).str();
  if (const CodeRegion::Symbol *H = R->hookAt(F.Pc)) {
    F.Hook = H->Name;
    Where += ", in " + F.Hook;
  }
  // Which wave: with a lane in What, the work-item is wave * 64 + lane.
  F.Message = formatv("{0} in kernel '{1}' at {2} ({3}: {4}); work-group "
                      "({5}, {6}, {7}), wave {8}",
                      What, W.D->KernelName, Where, F.Code, F.Instruction,
                      W.WG ? W.WG->Id[0] : 0, W.WG ? W.WG->Id[1] : 0,
                      W.WG ? W.WG->Id[2] : 0, W.WaveInGroup)
                  .str();
  return F;
}

void raiseFault(Wave &W, DispatchStatus Status, uint64_t Address, bool IsWrite,
                const std::string &What) {
  Fault F = describeAt(W, Status, Address, IsWrite, What);
  W.State = WaveState::Faulted;
  W.D->stop(std::move(F));
}

void noteLdsOutOfRange(Wave &W, uint64_t Lanes, uint64_t Address,
                       bool IsWrite, function_ref<std::string()> What) {
  DispatchState &D = *W.D;
  D.LdsOutOfRange.fetch_add(Lanes, std::memory_order_relaxed);
  if (D.LdsOutOfRangeNoted.exchange(true, std::memory_order_relaxed))
    return;
  // Read once the workers are done (dispatch joins them first).
  D.FirstLdsOutOfRange =
      describeAt(W, DispatchStatus::Completed, Address, IsWrite, What());
}

const CodeRegion *Device::Impl::regionFor(uint64_t Addr) const {
  std::shared_lock<std::shared_mutex> G(CodeLock);
  for (const auto &R : Regions)
    if (R->contains(Addr))
      return R.get();
  return nullptr;
}

void jumpTo(Wave &W, uint64_t Address) {
  const CodeRegion *R = W.Region;
  if (!R->contains(Address))
    R = W.D->Dev->regionFor(Address);
  uint32_t Idx = R ? R->indexOf(Address) : NoInstruction;
  if (Idx == NoInstruction) {
    raiseFault(W, DispatchStatus::IllegalInstruction, Address, false,
               formatv("jump to {0:x}, where no instruction starts", Address)
                   .str());
    return;
  }
  W.Region = R;
  W.NextIndex = Idx;
}

const MemoryRange *lookUpRange(Wave &W, uint64_t Addr, uint8_t Access) {
  MemoryRange Found;
  if (!W.D->Dev->Memory.find(Addr, Found) || (Found.Access & Access) != Access)
    return nullptr;
  return W.Ranges.insert(Found);
}

bool checkMemory(Wave &W, uint64_t Addr, uint32_t Bytes, bool IsWrite,
                 int Lane) {
  if (IsWrite)
    W.StoredMemory = true;
  else
    W.noteLoad(Addr);
  const MemoryRange *R =
      rangeFor(W, Addr, IsWrite ? AccessWrite : AccessRead);
  if (R && R->contains(Addr, Bytes))
    return true;
  std::string What = formatv("memory fault: {0} of {1} bytes at {2:x}",
                             IsWrite ? "write" : "read", Bytes, Addr)
                         .str();
  if (Lane >= 0)
    What += formatv(" in lane {0}", Lane).str();
  raiseFault(W, DispatchStatus::MemoryFault, Addr, IsWrite, What);
  return false;
}

uint64_t specialValue(const Wave &W, uint16_t Which) {
  switch (static_cast<SpecialValue>(Which)) {
  case SpecialValue::SharedBase:
    return SharedApertureBase;
  case SpecialValue::SharedLimit:
    return SharedApertureBase + ApertureSize - 1;
  case SpecialValue::PrivateBase:
    return PrivateApertureBase;
  case SpecialValue::PrivateLimit:
    return PrivateApertureBase + ApertureSize - 1;
  case SpecialValue::PopsExitingWaveId:
    return 0;
  case SpecialValue::Vccz:
    return W.vcc() == 0;
  case SpecialValue::Execz:
    return W.exec() == 0;
  case SpecialValue::Scc:
    return W.SCC;
  }
  return 0;
}

void illegalInstruction(Wave &W, const DecodedInst &I) {
  raiseFault(W, DispatchStatus::IllegalInstruction, 0, false,
             I.Opcode ? "instruction not implemented by Loom"
                      : "bytes that are no gfx90a instruction");
}

//===----------------------------------------------------------------------===//
// Device
//===----------------------------------------------------------------------===//

Device::Device(std::unique_ptr<Impl> I) : P(std::move(I)) {}
Device::~Device() = default;

Expected<TargetProperties> TargetProperties::of(StringRef Processor) {
  TargetProperties T;
  T.Processor = Processor.str();
  if (Processor == "gfx90a")
    return T;
  if (Processor == "gfx940" || Processor == "gfx941" || Processor == "gfx942") {
    T.ArchitectedFlatScratch = true;
    return T;
  }
  return createStringError(
      inconvertibleErrorCode(),
      "the virtual GPU does not emulate '%s' (it emulates gfx90a, gfx940, "
      "gfx941 and gfx942)",
      Processor.str().c_str());
}

Expected<std::unique_ptr<Device>> Device::create(const DeviceOptions &Options) {
  auto I = std::make_unique<Impl>();
  I->Options = Options;
  StringRef Target = Options.Target;
  auto [Processor, FeatureText] = Target.split(':');
  auto Props = TargetProperties::of(Processor);
  if (!Props)
    return Props.takeError();
  I->Target = std::move(*Props);
  if (I->Options.LdsSize > I->Target.LdsBytes)
    I->Options.LdsSize = I->Target.LdsBytes;
  if (const char *Strict = std::getenv("LOOM_STRICT_LDS"))
    I->Options.StrictLds = StringRef(Strict) == "1";
  codeobj::TargetId Id;
  Id.Processor = Processor.str();
  for (StringRef F : split(FeatureText, ':')) {
    codeobj::FeatureSetting S = F.ends_with("+") ? codeobj::FeatureSetting::On
                                                 : codeobj::FeatureSetting::Off;
    if (F.starts_with("xnack"))
      Id.Xnack = S;
    else if (F.starts_with("sramecc"))
      Id.Sramecc = S;
  }
  auto MC = isa::McContext::create(Id);
  if (!MC)
    return MC.takeError();
  I->MC = std::move(*MC);
  I->Dec = std::make_unique<Decoder>(*I->MC);
  I->Threads = Options.Threads ? Options.Threads
                               : std::max(1u, std::thread::hardware_concurrency());
  // The thread that dispatches is one of the workers (see dispatch).
  if (I->Threads > 1)
    I->Pool = std::make_unique<WorkerPool>(I->Threads - 1);
  I->Memory.add(I->PacketStorage, sizeof(I->PacketStorage), AccessRead);
  I->Memory.add(I->QueueStorage, sizeof(I->QueueStorage), AccessReadWrite);
  // amd_queue_t's group/private_segment_aperture_base_hi (offsets 64 and
  // 68 in amd_hsa_queue.h), for code that reads the apertures there.
  uint32_t SharedHi = SharedApertureBase >> 32,
           PrivateHi = PrivateApertureBase >> 32;
  std::memcpy(I->QueueStorage + 64, &SharedHi, 4);
  std::memcpy(I->QueueStorage + 68, &PrivateHi, 4);
  return std::unique_ptr<Device>(new Device(std::move(I)));
}

const DeviceOptions &Device::options() const { return P->Options; }
StringRef Device::processor() const { return P->MC->processor(); }
const TargetProperties &Device::target() const { return P->Target; }
MemoryMap &Device::memory() { return P->Memory; }

/// Compiled traces live in the trace compiler, a static object destroyed
/// at exit; workers still running then would call into unmapped code. Made
/// to exist before an atexit handler that stops every dispatch, which so
/// runs first (handlers and static destructors run in reverse order).
static void stopDispatchesAtExit(uint32_t Threshold) {
  if (!Threshold)
    return;
  static std::once_flag Once;
  std::call_once(Once, [] {
    (void)traceCompilerStats();
    armStopAtExit();
  });
}

Error Device::registerCode(std::shared_ptr<const codeobj::CodeObject> CO,
                           uint64_t LoadBase, StringRef Name) {
  stopDispatchesAtExit(traceThreshold(P->Options.TraceThreshold));
  std::unique_lock<std::shared_mutex> G(P->CodeLock);
  // The code decodes as it runs (CodeRegion.h).
  auto R = CodeRegion::create(*P->Dec, std::move(CO), LoadBase, Name,
                              P->NextInstructionId,
                              traceThreshold(P->Options.TraceThreshold));
  if (!R)
    return R.takeError();
  P->NextInstructionId += (*R)->size() + 1;
  P->Regions.push_back(std::move(*R));
  return Error::success();
}

void Device::unregisterCode(uint64_t LoadBase) {
  std::shared_ptr<std::vector<std::unique_ptr<CodeRegion>>> Gone =
      std::make_shared<std::vector<std::unique_ptr<CodeRegion>>>();
  {
    std::unique_lock<std::shared_mutex> G(P->CodeLock);
    for (auto &R : P->Regions)
      if (R->loadBase() == LoadBase)
        Gone->push_back(std::move(R));
    llvm::erase_if(P->Regions, [](const std::unique_ptr<CodeRegion> &R) {
      return !R;
    });
  }
  // No new dispatch finds the code; waves already in it keep running it.
  retireAfterDispatches([Gone] { Gone->clear(); });
}

//===----------------------------------------------------------------------===//
// Running work-groups
//===----------------------------------------------------------------------===//

namespace {

/// Instructions a wave runs before its siblings get a turn.
constexpr unsigned SliceLength = 512;
/// Consecutive loop iterations that only re-read the addresses the
/// iteration before read after which a wave is considered to be spinning
/// on memory.
constexpr unsigned SpinIterations = 8;
/// Most work-groups one worker keeps resident (interleaved) at once.
constexpr unsigned MaxResidentGroups = 32;
/// Cap on the scratch a dispatch reserves (virtual; pages are touched
/// only where waves write).
constexpr uint64_t MaxScratchBytes = uint64_t(1) << 30;
/// The most scratch one wave can have: COMPUTE_TMPRING_SIZE.WAVESIZE is a
/// 13-bit count of 1 KiB units on GFX9 (LLVM's
/// AMDGPU::IsaInfo::getMaxWaveScratchSize), so 128 KiB less 16 bytes per
/// lane. A descriptor or packet asking for more cannot run on the hardware.
constexpr uint64_t MaxWaveScratchBytes = ((uint64_t(1) << 13) - 1) * 1024;

/// A work-group resident on a worker: its waves' slots and its LDS.
struct Resident {
  Workgroup G;
  /// Resident slot: waves use Slot * WavesPerGroup + i. A group taken over
  /// from another worker is in the slot after the last, or, exchanged,
  /// in its partner's slot.
  unsigned Slot = 0;
  /// It changed workers: its scratch is still that of the slot that
  /// started it, which is not used again in this dispatch (nor is this one).
  bool Moved = false;
  uint64_t Slices = 0;   // wave time slices run (takeovers' estimates)
  uint64_t Admitted = 0; // LOOM_DISPATCH_PROFILE only
  std::vector<uint8_t> Lds;
};

/// Per worker thread, reused across dispatches: the register files of the
/// waves it runs, its resident work-groups and its counters.
struct WorkerResources {
  /// A wave's VGPR/AGPR file, aligned to a cache line: vector code reads a
  /// register's 64 lanes as whole host vectors, and a file that starts
  /// mid-line splits one load in two (fma_loop ran 20% slower on the
  /// thread whose allocator returned such a file).
  struct alignas(64) VgprFile {
    uint32_t Lanes[MaxVgprs * WaveSize];
  };
  /// Null where a takeover swapped in a slot that had none: allocated
  /// when used.
  std::vector<std::unique_ptr<Wave>> Waves;
  std::vector<std::unique_ptr<VgprFile>> Vgprs;
  std::vector<std::unique_ptr<Resident>> Residents;
  WorkerCounters Counters;
  TraceTally Traces;

  WorkerResources() { Counters.Traces = &Traces; }
  WorkerResources(const WorkerResources &) = delete;
  WorkerResources &operator=(const WorkerResources &) = delete;

  /// A fresh wave in slot \p I for dispatch \p Serial. The slot's range
  /// cache stays when its last wave ran in the same dispatch: a range
  /// registered then stays mapped until the dispatch ends (the runtime
  /// frees after running dispatches), and each wave of Stencil otherwise
  /// looked its buffers up in the device's map again (4.7 % of its time).
  Wave &wave(unsigned I, uint64_t Serial) {
    reserveWave(I);
    Wave &W = *Waves[I];
    RangeCache Kept = W.RangesOf == Serial ? W.Ranges : RangeCache();
    W = Wave();
    W.Ranges = Kept;
    W.RangesOf = Serial;
    W.V = Vgprs[I]->Lanes;
    return W;
  }
  Resident &resident(unsigned Slot) {
    fit(Slot, 0);
    if (!Residents[Slot])
      Residents[Slot] = std::make_unique<Resident>();
    return *Residents[Slot];
  }
  void reserveWave(unsigned I) {
    if (Waves.size() <= I) {
      Waves.resize(I + 1);
      Vgprs.resize(I + 1);
    }
    if (!Waves[I]) {
      Waves[I] = std::make_unique<Wave>();
      Vgprs[I] = std::make_unique<VgprFile>();
    }
  }
  /// Makes room for resident slot \p Slot and its waves (unallocated).
  void fit(unsigned Slot, unsigned WavesPerGroup) {
    if (Residents.size() <= Slot)
      Residents.resize(Slot + 1);
    size_t NumWaves = size_t(Slot + 1) * WavesPerGroup;
    if (Waves.size() < NumWaves) {
      Waves.resize(NumWaves);
      Vgprs.resize(NumWaves);
    }
  }
};

/// Moves the group in resident slot \p From of \p A to slot \p To of \p B,
/// and B's memory there to A's slot: the group's waves, register files and
/// LDS stay where they are in memory, so every pointer into them (the
/// waves' to their group and LDS, the group's to its waves) holds.
void swapSlots(WorkerResources &A, unsigned From, WorkerResources &B,
               unsigned To, unsigned WavesPerGroup) {
  std::swap(A.Residents[From], B.Residents[To]);
  for (unsigned I = 0; I < WavesPerGroup; ++I) {
    std::swap(A.Waves[From * WavesPerGroup + I], B.Waves[To * WavesPerGroup + I]);
    std::swap(A.Vgprs[From * WavesPerGroup + I], B.Vgprs[To * WavesPerGroup + I]);
  }
}

WorkerResources &workerResources() {
  thread_local WorkerResources R;
  return R;
}

template <bool Count> void runSlice(Wave &W, unsigned Budget) {
  WorkerCounters &C = *W.Counters;
  // The next instruction's index lives in a register, not only in W: a
  // handler reports a jump through W.NextIndex, but the common case (the
  // next instruction) must not wait for that store to be read back before
  // the next handler's address can be loaded.
  const CodeRegion *Region = W.Region;
  const DecodedInst *Insts = Region->insts();
  uint32_t Idx = W.Index;
  while (Budget-- && W.State == WaveState::Running) {
    const DecodedInst &I = Insts[Idx];
    W.Index = Idx;
    W.NextIndex = Idx + 1;
    if constexpr (Count) {
      C.Executions[I.Id]++;
      if (I.Flags & FlagVector)
        C.Lanes[I.Id] += std::popcount(W.exec());
    }
    // Atomic: the trace compiler may switch a handler while waves run
    // (acquire pairs with its release, so the compiled code is visible).
    __atomic_load_n(&I.Fn, __ATOMIC_ACQUIRE)(W, I);
    if (W.State == WaveState::Faulted)
      return;
    uint32_t Next = W.NextIndex;
    if (Next != Idx + 1 || W.Region != Region) [[unlikely]] {
      // A loop whose iterations only re-read the same memory is waiting
      // for another wave or the host: let them run rather than burn the
      // slice. Once found spinning, a wave yields after every such
      // iteration until one does something else.
      if ((I.Flags & FlagBackwardBranch) && Next == I.Target) {
        bool Spin = W.LoadedMemory && !W.StoredMemory &&
                    W.LoadedFrom == W.LoadedBefore;
        W.LoadedBefore = W.LoadedFrom;
        W.LoadedFrom = 0;
        W.LoadedMemory = W.StoredMemory = false;
        W.SpinCount = Spin ? std::min<unsigned>(W.SpinCount + 1, SpinIterations)
                           : 0;
        if (W.SpinCount >= SpinIterations) {
          W.Spinning = true;
          W.Yield = true;
        }
      }
      Idx = Next;
      Region = W.Region;
      Insts = Region->insts();
      // Takeovers' safe point inside a slice: a thief waits for this
      // (one-wave) group. Here, not at every instruction: loops and traces
      // pass here often enough, and straight-line code ends its slice soon.
      if (W.Preempt->load(std::memory_order_relaxed)) [[unlikely]]
        W.Yield = W.Preempted = true;
    } else {
      ++Idx;
      // Keeps the compiler from merging the two paths into Idx = Next,
      // which would bring the dependency on the store back.
      asm volatile("" : "+r"(Idx));
    }
    if (W.Yield) {
      W.Index = Idx;
      W.Yield = false;
      return;
    }
  }
  W.Index = Idx;
}

void initWave(Wave &W, DispatchState &D, Workgroup &G, unsigned WaveInGroup,
              WorkerCounters &C, uint64_t ScratchSlot) {
  const codeobj::KernelDescriptor &KD = D.KD;
  W.D = &D;
  W.WG = &G;
  W.Counters = &C;
  W.WaveInGroup = WaveInGroup;
  W.Region = D.EntryRegion;
  W.Index = D.EntryIndex;
  W.AccumOffset = KD.accumOffsetInVgprs();
  W.ScratchBytesPerLane = D.ScratchBytesPerLane;
  uint64_t WaveOffset = ScratchSlot * D.ScratchBytesPerWave;
  W.ScratchBase = D.ScratchBase + WaveOffset;

  // MODE from COMPUTE_PGM_RSRC1.
  W.Mode = KD.Rsrc1.FloatRoundMode32 | (KD.Rsrc1.FloatRoundMode16_64 << 2) |
           (KD.Rsrc1.FloatDenormMode32 << 4) |
           (KD.Rsrc1.FloatDenormMode16_64 << 6) |
           (uint32_t(KD.Rsrc1.EnableDx10Clamp) << 8) |
           (uint32_t(KD.Rsrc1.EnableIeeeMode) << 9);

  // User SGPRs, in ABI order.
  unsigned S = 0;
  const codeobj::KernelCodeProperties &P = KD.Properties;
  if (P.EnableSgprPrivateSegmentBuffer) {
    // V#: base = the dispatch's scratch, swizzled by lane with 4-byte
    // elements and an index stride of 64 (ADD_TID_ENABLE), as ROCr sets it.
    uint64_t Base = D.ScratchBase;
    W.S[S + 0] = uint32_t(Base);
    W.S[S + 1] = (uint32_t(Base >> 32) & 0xffff) | (1u << 31); // SWIZZLE_ENABLE
    W.S[S + 2] = 0xffffffffu;
    W.S[S + 3] = (3u << 21) | (1u << 23) | (1u << 19); // stride 64, add tid
    S += 4;
  }
  if (P.EnableSgprDispatchPtr) {
    W.write64(S, D.DispatchPacket);
    S += 2;
  }
  if (P.EnableSgprQueuePtr) {
    W.write64(S, D.Queue);
    S += 2;
  }
  if (P.EnableSgprKernargSegmentPtr) {
    W.write64(S, D.Params.Kernarg);
    S += 2;
  }
  if (P.EnableSgprDispatchId) {
    W.write64(S, D.Params.DispatchId);
    S += 2;
  }
  if (P.EnableSgprFlatScratchInit) {
    W.write64(S, D.ScratchBase);
    S += 2;
  }
  if (P.EnableSgprPrivateSegmentSize) {
    W.S[S] = D.ScratchBytesPerLane;
    S += 1;
  }
  // System SGPRs follow the USER_SGPR_COUNT user SGPRs.
  S = std::max(S, KD.Rsrc2.UserSgprCount);
  if (KD.Rsrc2.EnableSgprWorkgroupIdX)
    W.S[S++] = G.Id[0];
  if (KD.Rsrc2.EnableSgprWorkgroupIdY)
    W.S[S++] = G.Id[1];
  if (KD.Rsrc2.EnableSgprWorkgroupIdZ)
    W.S[S++] = G.Id[2];
  if (KD.Rsrc2.EnableSgprWorkgroupInfo)
    W.S[S++] = 0; // first-wave bit and wave count: not modelled
  if (KD.Rsrc2.EnablePrivateSegment) {
    W.S[S++] = uint32_t(WaveOffset);
    if (D.Dev->Target.ArchitectedFlatScratch)
      W.write64(SgprFlatScratchLo, W.ScratchBase);
  }
  W.S[SgprM0] = 0xffffffffu;

  // Work-item ids, packed into v0 (gfx90a): x | y << 10 | z << 20.
  const uint32_t *Size = G.Size;
  uint32_t Items = Size[0] * Size[1] * Size[2];
  uint32_t *V0 = W.vgpr(0);
  uint32_t First = WaveInGroup * WaveSize;
  unsigned Live = First < Items ? std::min<uint32_t>(WaveSize, Items - First)
                                : 0;
  // The first lane's id by division, the others by counting on from it (a
  // division per lane was most of this function's time in many-group
  // programs).
  uint32_t X = First % Size[0], Y = (First / Size[0]) % Size[1],
           Z = First / (Size[0] * Size[1]);
  for (unsigned L = 0; L < Live; ++L) {
    V0[L] = X | (Y << 10) | (Z << 20);
    if (++X == Size[0]) {
      X = 0;
      if (++Y == Size[1]) {
        Y = 0;
        ++Z;
      }
    }
  }
  for (unsigned L = Live; L < WaveSize; ++L)
    V0[L] = 0;
  W.setExec(Live == WaveSize ? ~uint64_t(0) : (uint64_t(1) << Live) - 1);
  W.State = WaveState::Running;
}

/// Points a one-wave group's wave at \p Worker's request word, its
/// takeover safe point inside a slice (Wave::Preempt).
void allowSafePoint(DispatchState &D, Workgroup &G, unsigned Worker) {
  if (D.Takeover && G.Waves.size() == 1)
    G.Waves[0]->Preempt = D.Takeover->safePoint(Worker);
}

/// How often a worker with one group left looks for an exchange (a scan of
/// every worker's published progress).
constexpr uint64_t SwapCheckNs = 20'000;

/// Makes work-group \p GroupIndex resident in slot \p Slot of this worker.
void admit(DispatchState &D, uint64_t GroupIndex, unsigned Worker,
           unsigned Slot, WorkerResources &Res) {
  Resident &R = Res.resident(Slot);
  Workgroup &G = R.G;
  G = Workgroup();
  R.Slot = Slot;
  R.Moved = false;
  R.Slices = 0;
  G.Id[0] = GroupIndex % D.NumGroups[0];
  G.Id[1] = (GroupIndex / D.NumGroups[0]) % D.NumGroups[1];
  G.Id[2] = GroupIndex / (uint64_t(D.NumGroups[0]) * D.NumGroups[1]);
  // Partial work-groups at the grid's edge hold fewer items.
  uint32_t Items = 1;
  for (int Dim = 0; Dim < 3; ++Dim) {
    G.Size[Dim] = std::min<uint32_t>(D.Params.WorkgroupSize[Dim],
                                     D.Params.GridSize[Dim] -
                                         G.Id[Dim] *
                                             D.Params.WorkgroupSize[Dim]);
    Items *= G.Size[Dim];
  }
  unsigned NumWaves = (Items + WaveSize - 1) / WaveSize;
  // LDS starts zeroed so results never depend on a previous group's data.
  R.Lds.assign(D.LdsBytes, 0);
  for (unsigned I = 0; I < NumWaves; ++I) {
    unsigned WaveSlot = Slot * D.WavesPerGroup + I;
    Wave &W = Res.wave(WaveSlot, D.Serial);
    initWave(W, D, G, I, Res.Counters,
             uint64_t(Worker) * D.MaxWavesPerWorker + WaveSlot);
    W.Lds = R.Lds.data();
    W.LdsSize = D.LdsBytes;
    W.WaveId = GroupIndex * D.WavesPerGroup + I;
    G.Waves.push_back(&W);
  }
  allowSafePoint(D, G, Worker);
  G.Live = NumWaves;
  Res.Counters.Waves += NumWaves;
  Res.Counters.Workgroups += 1;
}

/// Gives every running wave of \p G one slice and releases a barrier all
/// live waves reached; adds the slices run to \p Slices. Returns false if
/// every wave that ran was spinning. Not inlined into runWorker, whose
/// scheduling state (takeovers') would take the slice loop's registers: it
/// kept its code region on the stack there.
[[gnu::noinline]] bool runRound(DispatchState &D, Workgroup &G,
                                uint64_t &Slices) {
  bool Progress = false;
  unsigned AtBarrier = 0;
  for (Wave *W : G.Waves) {
    if (W->State == WaveState::Running) {
      W->Spinning = W->Preempted = false;
      if (D.Count)
        runSlice<true>(*W, SliceLength);
      else
        runSlice<false>(*W, SliceLength);
      ++Slices;
      if (W->State == WaveState::Faulted)
        return true;
      if (W->State == WaveState::Ended)
        --G.Live;
      Progress |= !W->Spinning;
    }
    AtBarrier += W->State == WaveState::AtBarrier;
  }
  // s_barrier releases when every wave still running has arrived.
  if (AtBarrier && AtBarrier == G.Live) {
    for (Wave *W : G.Waves)
      if (W->State == WaveState::AtBarrier)
        W->State = WaveState::Running;
    Progress = true;
  }
  return Progress;
}

/// The work-groups a worker has claimed and not yet started. An idle
/// worker claims a run of consecutive groups: waves of neighbouring groups
/// stream through neighbouring memory, so the host's prefetchers keep up
/// (interleaving single groups between threads left every thread's
/// prefetcher fetching its neighbour's lines: a memory stream ran at 1.5x
/// on two threads instead of 2x). Runs shrink toward the end so that
/// workers finish together (guided self-scheduling). A worker with
/// resident groups claims one group at a time, as before.
///
/// Forward progress is as with single claims: a run is claimed only with
/// nothing resident and is no longer than MaxResidentGroups, so every
/// claimed group can become resident, and a stalled worker admits its own
/// claimed groups first.
class GroupClaims {
public:
  /// The next group this worker starts, or TotalGroups when none is left.
  uint64_t next(DispatchState &D, bool Idle) {
    if (Next == End) {
      uint64_t Run = 1;
      // Takeovers' test mode: one group at a time, none waiting to start
      // (a worker with claimed groups gives none).
      if (Idle && !(D.Takeover && D.Takeover->mode() == TakeoverMode::Always)) {
        uint64_t Left = D.TotalGroups -
                        std::min(D.TotalGroups,
                                 D.NextGroup.load(std::memory_order_relaxed));
        Run = std::clamp<uint64_t>(Left / (2 * D.Workers), 1,
                                   std::min<uint64_t>(MaxRun, D.MaxResidentGroups));
      }
      Next = D.NextGroup.fetch_add(Run, std::memory_order_relaxed);
      End = std::min(Next + Run, D.TotalGroups);
      Next = std::min(Next, End);
      if (Next == End)
        return D.TotalGroups;
    }
    return Next++;
  }
  /// Whether every group this worker claimed has started.
  bool empty() const { return Next == End; }

private:
  /// Longer runs gain nothing more for prefetching.
  static constexpr uint64_t MaxRun = 8;
  uint64_t Next = 0, End = 0;
};

/// Makes \p R, which came from another worker, \p Worker's: its waves
/// count here and poll this worker's request word.
void adopt(DispatchState &D, Resident &R, unsigned Worker,
           WorkerResources &Res) {
  for (Wave *W : R.G.Waves)
    W->Counters = &Res.Counters;
  allowSafePoint(D, R.G, Worker);
}

/// Hands \p R, between two of its rounds, to the worker that asked
/// \p Worker: the group moves to the asker's spare slot (swapSlots), whose
/// memory takes the group's place here: empty memory from a thief, or, in
/// an exchange (Takeovers::swap), the asker's own group, returned to run
/// here. A group's scratch stays where it is, so a slot given away is not
/// used again in this dispatch.
Resident *handOver(DispatchState &D, unsigned Worker, WorkerResources &Res,
                   Resident &R, unsigned Asker) {
  Takeovers::Slot &To = D.Takeover->slot(Asker);
  unsigned Slot = R.Slot;
  Res.fit(Slot, D.WavesPerGroup);
  swapSlots(Res, Slot, *static_cast<WorkerResources *>(To.Spare),
            D.MaxResidentGroups, D.WavesPerGroup);
  R.Slot = D.MaxResidentGroups;
  R.Moved = true;
  if (R.G.Waves.size() == 1 && R.G.Waves[0]->Preempted)
    D.Takeover->noteMidSlice();
  Resident *Back = nullptr;
  if (To.Swapping) { // read before the answer: the asker resets it then
    Back = Res.Residents[Slot].get();
    Back->Slot = Slot;
    Back->Moved = true;
    adopt(D, *Back, Worker, Res);
  }
  D.Takeover->answer(Worker, Asker, &R);
  return Back;
}

/// Spare memory of a group's shape in the slot after the last, to swap for
/// a group's.
void reserveSpare(DispatchState &D, WorkerResources &Res) {
  Res.resident(D.MaxResidentGroups);
  for (unsigned I = 0; I < D.WavesPerGroup; ++I)
    Res.reserveWave(D.MaxResidentGroups * D.WavesPerGroup + I);
}

/// In the dispatch's tail, exchanges \p R, this worker's one group, for a
/// slower worker's group that is further from its end (Takeover.h): the
/// group to run on, \p R where none was exchanged.
Resident *swapGroups(DispatchState &D, unsigned Worker, WorkerResources &Res,
                     Resident &R, DispatchProfile::Worker *Prof) {
  Takeovers &T = *D.Takeover;
  int Partner = T.swapPartner(Worker, R.Slices);
  if (Partner < 0)
    return &R;
  Takeovers::Slot &Me = T.slot(Worker);
  uint32_t Held = Me.Held.load(std::memory_order_relaxed);
  Me.Held.store(0, std::memory_order_relaxed);
  // The group to the spare slot, where the partner's hand-over takes it.
  if (unsigned Spare = D.MaxResidentGroups; R.Slot != Spare) {
    reserveSpare(D, Res);
    Res.fit(R.Slot, D.WavesPerGroup);
    swapSlots(Res, R.Slot, Res, Spare, D.WavesPerGroup);
    R.Slot = Spare;
    R.Moved = true;
  }
  Me.Spare = &Res;
  Me.Swapping = true;
  uint64_t WaitNs = 0;
  auto *Got = static_cast<Resident *>(T.swap(Worker, unsigned(Partner), WaitNs));
  Me.Swapping = false;
  Me.Held.store(Held, std::memory_order_relaxed);
  if (!Got)
    return &R;
  adopt(D, *Got, Worker, Res);
  if (Prof) {
    ++Prof->Takeovers;
    Prof->TakeoverWaitNs += WaitNs;
  }
  return Got;
}

/// Takes a started group over from a slower worker (Takeover.h), into the
/// slot after the last; null if none is worth taking.
Resident *takeOver(DispatchState &D, unsigned Worker, WorkerResources &Res,
                   bool Wait, DispatchProfile::Worker *Prof) {
  Takeovers &T = *D.Takeover;
  Takeovers::Slot &Me = T.slot(Worker);
  uint64_t IdleSince = nowNs();
  Me.Held.store(0, std::memory_order_relaxed);
  reserveSpare(D, Res);
  Me.Spare = &Res;
  uint64_t WaitNs = 0;
  auto *R = static_cast<Resident *>(
      T.take(Worker, IdleSince, D.Stop, Wait, WaitNs));
  if (!R)
    return nullptr;
  adopt(D, *R, Worker, Res);
  if (Prof) {
    ++Prof->Takeovers;
    Prof->TakeoverWaitNs += WaitNs;
  }
  return R;
}

/// Runs work-groups until none are left. A worker interleaves the
/// work-groups resident on it; when all of them are spinning (waiting for
/// a work-group not yet started, or for the host), it admits another, up
/// to MaxResidentGroups, and lets other host threads run. Once every group
/// is claimed, an idle worker may take a started group over from a slower
/// one (Takeover.h); the owner looks for such a request after each round.
void runWorker(DispatchState &D, unsigned Worker, size_t NumIds,
               WorkerCounters &Merged, std::mutex &MergeLock) {
  WorkerResources &Res = workerResources();
  if (D.Count)
    Res.Counters.reset(NumIds);
  DispatchProfile::Worker *Prof =
      D.Profile ? &D.Profile->Workers[Worker] : nullptr;
  if (Prof)
    Prof->Join = nowNs();
  Takeovers *T = D.Takeover;
  Takeovers::Slot *Mine = T ? &T->slot(Worker) : nullptr;
  if (Mine)
    Mine->Start.store(nowNs(), std::memory_order_relaxed);
  uint64_t Slices = 0; // wave time slices run, published for thieves
  uint32_t Held = 0;  // groups others may take, as published
  bool Always = T && T->mode() == TakeoverMode::Always;
  unsigned IdleTurns = 0;
  uint64_t NextSwapCheck = 0;
  if (Always && Worker == 0)
    T->awaitJoins(20'000'000);
  std::vector<Resident *> Active;
  std::vector<unsigned> FreeSlots;
  for (unsigned S = D.MaxResidentGroups; S-- > 0;)
    FreeSlots.push_back(S);
  bool Exhausted = false;
  bool Stalled = false;
  unsigned Rounds = 0;
  GroupClaims Claims;
  while (!D.Stop.load(std::memory_order_relaxed)) {
    if (Always && Active.empty() && (++IdleTurns & 1)) {
      // Tests: every other time idle, take a started group before
      // claiming one (claims in between keep spinning groups' partners
      // coming).
      Held = 0;
      if (Resident *R = takeOver(D, Worker, Res, /*Wait=*/false, Prof)) {
        Active.push_back(R);
        continue;
      }
    }
    if ((Active.empty() || Stalled) && !Exhausted && !FreeSlots.empty()) {
      uint64_t G = Claims.next(D, Active.empty());
      if (G >= D.TotalGroups) {
        Exhausted = true;
      } else {
        unsigned Slot = FreeSlots.back();
        FreeSlots.pop_back();
        admit(D, G, Worker, Slot, Res);
        Active.push_back(&Res.resident(Slot));
        if (Prof)
          Active.back()->Admitted = nowNs();
      }
    }
    if (Active.empty()) {
      // Idle with every group claimed: take one over, or leave.
      if (!T || !Claims.empty() ||
          D.NextGroup.load(std::memory_order_relaxed) < D.TotalGroups)
        break;
      Held = 0;
      Resident *R = takeOver(D, Worker, Res, /*Wait=*/true, Prof);
      if (!R)
        break;
      Active.push_back(R);
      Stalled = false;
      continue;
    }
    if (Mine) {
      // A worker with groups claimed and not started gives none: it may
      // need every free slot for them.
      uint32_t H = Claims.empty() ? uint32_t(Active.size()) : 0;
      if (H != Held)
        Mine->Held.store(Held = H, std::memory_order_relaxed);
    }
    bool Progress = false;
    for (size_t I = 0; I < Active.size();) {
      Resident *R = Active[I];
      uint64_t Before = Slices;
      Progress |= runRound(D, R->G, Slices);
      R->Slices += Slices - Before;
      if (D.Stop.load(std::memory_order_relaxed))
        break;
      if (R->G.Live == 0) {
        if (Prof) {
          uint64_t Ns = nowNs() - R->Admitted;
          Prof->GroupNs += Ns;
          Prof->LongestGroupNs = std::max(Prof->LongestGroupNs, Ns);
          ++Prof->Groups;
        }
        if (T)
          T->noteGroup(R->Slices);
        // A group that moved keeps its first owner's scratch slot.
        if (!R->Moved)
          FreeSlots.push_back(R->Slot);
        Active.erase(Active.begin() + I);
        Progress = true;
        continue;
      }
      if (Mine) {
        Mine->Slices.store(Slices, std::memory_order_relaxed);
        Mine->GroupSlices.store(R->Slices, std::memory_order_relaxed);
        if (T->asked(Worker)) [[unlikely]] {
          int Thief = T->asker(Worker);
          if (Thief >= 0 && Held) {
            Progress = true;
            if (Resident *Back = handOver(D, Worker, Res, *R, unsigned(Thief))) {
              Active[I++] = Back; // an exchange
              continue;
            }
            Active.erase(Active.begin() + I);
            Mine->Held.store(--Held, std::memory_order_relaxed);
            continue;
          }
          if (Thief >= 0)
            T->answer(Worker, unsigned(Thief), nullptr);
        }
        // The tail (every group claimed, this worker's one started): look
        // for an exchange now and then. One-wave groups only: they move at
        // the next taken branch, with a small state; exchanging lds_barrier's
        // four-wave groups (a round's wait, the LDS's cold lines) cost more
        // than it gained (docs/performance.md, "Session 12").
        if (Held == 1 && Active.size() == 1 && D.WavesPerGroup == 1 &&
            D.NextGroup.load(std::memory_order_relaxed) >= D.TotalGroups) {
          if (uint64_t Now = nowNs(); Now >= NextSwapCheck) {
            NextSwapCheck = Now + SwapCheckNs;
            Active[I] = swapGroups(D, Worker, Res, *R, Prof);
          }
        }
      }
      ++I;
    }
    Stalled = !Progress;
    if (Stalled && (Exhausted || FreeSlots.empty()))
      std::this_thread::yield();
    if (D.cancelled() || stoppingAllDispatches()) {
      Fault F;
      F.Status = DispatchStatus::Cancelled;
      F.Message = "dispatch of kernel '" + D.KernelName + "' cancelled";
      D.stop(std::move(F));
    }
    if (D.Deadline && !(++Rounds & 15) && nowNs() > D.Deadline) {
      Fault F;
      F.Status = DispatchStatus::TimedOut;
      uint64_t Ms = D.Params.TimeoutNs / 1'000'000;
      F.Message = formatv("kernel '{0}' ran longer than the {1} timeout",
                          D.KernelName,
                          Ms % 1000 ? formatv("{0} ms", Ms).str()
                                    : formatv("{0} s", Ms / 1000).str())
                      .str();
      D.stop(std::move(F));
    }
  }
  if (T)
    T->close(Worker);
  Res.Traces.flush();
  if (Prof)
    Prof->Done = nowNs();
  if (!D.Count)
    return;
  std::lock_guard<std::mutex> L(MergeLock);
  for (size_t I = 0; I < NumIds; ++I) {
    Merged.Executions[I] += Res.Counters.Executions[I];
    Merged.Lanes[I] += Res.Counters.Lanes[I];
    Merged.Bytes[I] += Res.Counters.Bytes[I];
  }
  Merged.Waves += Res.Counters.Waves;
  Merged.Workgroups += Res.Counters.Workgroups;
  for (MemoryAccessRecord &A : Res.Counters.Accesses)
    Merged.Accesses.push_back(std::move(A));
}

/// A dispatch and what its workers share beyond it. Pool workers hold it
/// by shared_ptr: one that starts after the dispatch is over (its pool
/// thread was busy with another dispatch's spinning kernel) finds it
/// closed and returns at once.
///
/// Joining and leaving are one atomic add each, and the dispatching
/// thread polls for the last worker (up to WorkerPool::busySpinNs()) before
/// it sleeps: a lock here made the pool threads that start together queue
/// for it, and a sleeping dispatcher added a wake-up to every dispatch.
struct DispatchRun {
  DispatchState D;
  Takeovers Takeover;
  size_t NumIds = 0;
  WorkerCounters Merged;
  std::mutex MergeLock;

  /// The workers inside, and ClosedBit once the dispatcher closed it.
  alignas(64) std::atomic<uint32_t> Members{0};
  static constexpr uint32_t ClosedBit = 1u << 31;

  /// A pool worker joins unless the dispatch is over.
  bool enter() {
    if (Members.fetch_add(1, std::memory_order_acquire) & ClosedBit) {
      leave();
      return false;
    }
    return true;
  }
  void leave() {
    if (Members.fetch_sub(1, std::memory_order_release) == (ClosedBit | 1))
      futexWake(Members);
  }
  /// Called by the dispatching thread once its own worker is done: every
  /// group is claimed (or the dispatch stopped), so no worker joining later
  /// has anything to do; waits for those that joined.
  void close() {
    uint32_t M = Members.fetch_or(ClosedBit, std::memory_order_acquire);
    uint64_t Start = nowNs(), Spin = WorkerPool::busySpinNs();
    for (unsigned Polls = 1; M != 0; ++Polls) {
      if (Polls % 64 == 0) {
        if (nowNs() - Start >= Spin)
          break;
        std::this_thread::yield(); // the last worker may need this core
      }
      __builtin_ia32_pause();
      M = Members.load(std::memory_order_acquire) & ~ClosedBit;
    }
    while ((M = Members.load(std::memory_order_acquire)) != ClosedBit)
      futexWait(Members, M);
  }
};

DispatchResult invalid(const std::string &Msg) {
  DispatchResult R;
  R.Status = DispatchStatus::InvalidDispatch;
  R.FirstFault.Status = R.Status;
  R.FirstFault.Message = Msg;
  return R;
}

} // namespace

DispatchResult Device::dispatch(const DispatchParams &Params) {
  Impl &I = *P;
  // Code and memory released while this dispatch runs outlive it.
  uint64_t Epoch = beginDispatch();
  scope_exit EndEpoch([Epoch] { endDispatch(Epoch); });
  if (stoppingAllDispatches()) {
    DispatchResult R;
    R.Status = R.FirstFault.Status = DispatchStatus::Cancelled;
    R.FirstFault.Message = "the process is exiting";
    return R;
  }
  auto Run = std::make_shared<DispatchRun>();
  DispatchState &D = Run->D;
  std::optional<DispatchProfile> Profile;
  if (DispatchProfile::enabled())
    D.Profile = &Profile.emplace();
  D.Dev = &I;
  D.Params = Params;
  static std::atomic<uint64_t> Serials{0};
  D.Serial = Serials.fetch_add(1, std::memory_order_relaxed) + 1;

  // The kernel descriptor must be readable device memory.
  if (!I.Memory.check(Params.KernelObject, codeobj::KernelDescriptor::Size,
                      AccessRead))
    return invalid(formatv("kernel object {0:x} is not in registered memory",
                           Params.KernelObject)
                       .str());
  D.KD = codeobj::KernelDescriptor::decode(
      reinterpret_cast<const uint8_t *>(Params.KernelObject));
  uint64_t Entry = Params.KernelObject + D.KD.KernelCodeEntryByteOffset;
  D.EntryRegion = I.regionFor(Entry);
  D.EntryIndex = D.EntryRegion ? D.EntryRegion->indexOf(Entry) : NoInstruction;
  if (D.EntryIndex == NoInstruction)
    return invalid(formatv("kernel entry {0:x} is not registered code", Entry)
                       .str());
  D.KernelName = Params.KernelName;
  if (const CodeRegion::Symbol *S = D.EntryRegion->symbolAt(Entry))
    if (D.KernelName.empty())
      D.KernelName = S->Name;
  if (D.KD.Properties.EnableWavefrontSize32)
    return invalid("wave32 kernels are not supported on gfx90a");

  uint64_t Items = 1;
  for (int Dim = 0; Dim < 3; ++Dim) {
    if (Params.GridSize[Dim] == 0 || Params.WorkgroupSize[Dim] == 0)
      return invalid("grid and work-group sizes must be non-zero");
    // In 64 bits: a grid of 2^32-1 items would wrap to 0 groups in 32.
    D.NumGroups[Dim] = static_cast<uint32_t>(
        (uint64_t(Params.GridSize[Dim]) + Params.WorkgroupSize[Dim] - 1) /
        Params.WorkgroupSize[Dim]);
    if (__builtin_mul_overflow(D.TotalGroups, uint64_t(D.NumGroups[Dim]),
                               &D.TotalGroups))
      return invalid("the grid holds more than 2^64 work-groups");
    Items *= Params.WorkgroupSize[Dim];
  }
  if (Items > 1024)
    return invalid(formatv("work-group of {0} items exceeds 1024", Items).str());
  D.WorkgroupItems = static_cast<uint32_t>(Items);
  D.WavesPerGroup = (D.WorkgroupItems + WaveSize - 1) / WaveSize;
  D.LdsBytes = std::max(Params.GroupSegmentSize, D.KD.GroupSegmentFixedSize);
  if (D.LdsBytes > I.Options.LdsSize)
    return invalid(formatv("{0} bytes of LDS exceed the device's {1}",
                           D.LdsBytes, I.Options.LdsSize)
                       .str());
  // In 64 bits: a size near 2^32 would wrap to 0 once aligned.
  uint64_t PerLane = alignTo(
      std::max(Params.PrivateSegmentSize, D.KD.PrivateSegmentFixedSize), 4);
  if (PerLane * WaveSize > MaxWaveScratchBytes)
    return invalid(formatv("{0} bytes of scratch per work-item exceed the "
                           "{1} a wave can address",
                           PerLane, MaxWaveScratchBytes / WaveSize)
                       .str());
  D.ScratchBytesPerLane = static_cast<uint32_t>(PerLane);
  D.ScratchBytesPerWave = PerLane * WaveSize;
  TakeoverMode Mode = takeoverMode(I.Options.Takeovers);
  // A wave's memory access records go to the list of the worker running
  // it, and the lists are joined worker by worker: a wave that moved would
  // have its later accesses before its earlier ones. Recording is for
  // ground truth, where exact order matters more than speed.
  if (I.Options.RecordMemoryAccesses)
    Mode = TakeoverMode::Off;
  // Always (tests): idle workers from the start, so that groups move.
  unsigned Workers =
      Mode == TakeoverMode::Always
          ? I.Threads
          : static_cast<unsigned>(std::min<uint64_t>(I.Threads, D.TotalGroups));
  D.Workers = Workers;
  Run->Takeover.start(I.Pool ? Workers : 1, D.TotalGroups, Mode);
  if (Run->Takeover.mode() != TakeoverMode::Off)
    D.Takeover = &Run->Takeover;
  if (D.Profile)
    D.Profile->Workers.resize(Workers);
  // Resident work-groups per worker, bounded by the scratch they reserve.
  uint64_t ScratchPerGroup = D.ScratchBytesPerWave * D.WavesPerGroup;
  D.MaxResidentGroups = MaxResidentGroups;
  if (ScratchPerGroup)
    D.MaxResidentGroups = static_cast<unsigned>(std::clamp<uint64_t>(
        MaxScratchBytes / (ScratchPerGroup * Workers), 1, MaxResidentGroups));
  D.MaxWavesPerWorker = D.MaxResidentGroups * D.WavesPerGroup;
  D.DispatchPacket = Params.DispatchPacket;
  D.Queue = Params.Queue ? Params.Queue
                         : reinterpret_cast<uint64_t>(I.QueueStorage);
  // A packet slot of the device, or one registered for this dispatch.
  int PacketSlot = -1;
  std::unique_ptr<Impl::PacketSlot> OwnPacket;
  scope_exit ReleasePacket([&] {
    if (PacketSlot >= 0) {
      I.FreePackets.fetch_or(1u << PacketSlot, std::memory_order_release);
    } else if (OwnPacket) {
      I.Memory.remove(OwnPacket.get());
    }
  });
  if (!D.DispatchPacket) {
    // A packet as the command processor would have read it.
    uint8_t *Pk;
    unsigned Free = I.FreePackets.load(std::memory_order_relaxed);
    while (Free && !I.FreePackets.compare_exchange_weak(
                       Free, Free & (Free - 1), std::memory_order_acquire))
      ;
    if (Free)
      PacketSlot = std::countr_zero(Free);
    if (PacketSlot >= 0) {
      Pk = I.PacketStorage[PacketSlot].Bytes;
    } else {
      OwnPacket = std::make_unique<Impl::PacketSlot>();
      Pk = OwnPacket->Bytes;
      I.Memory.add(Pk, 64, AccessRead);
    }
    std::memset(Pk, 0, 64);
    uint16_t Setup = static_cast<uint16_t>(Params.Dimensions);
    std::memcpy(Pk + 2, &Setup, 2);
    std::memcpy(Pk + 4, Params.WorkgroupSize, 6);
    std::memcpy(Pk + 12, Params.GridSize, 12);
    std::memcpy(Pk + 24, &D.ScratchBytesPerLane, 4);
    std::memcpy(Pk + 28, &D.LdsBytes, 4);
    std::memcpy(Pk + 32, &Params.KernelObject, 8);
    std::memcpy(Pk + 40, &Params.Kernarg, 8);
    D.DispatchPacket = reinterpret_cast<uint64_t>(Pk);
  }

  // calloc of a large block maps zero pages lazily: only the scratch waves
  // touch costs memory.
  std::unique_ptr<void, void (*)(void *)> Scratch(nullptr, std::free);
  uint64_t ScratchSize = D.ScratchBytesPerWave * D.MaxWavesPerWorker * Workers;
  if (ScratchSize) {
    Scratch.reset(std::calloc(ScratchSize, 1));
    if (!Scratch)
      return invalid(formatv("cannot reserve {0} bytes of scratch", ScratchSize)
                         .str());
    D.ScratchBase = reinterpret_cast<uint64_t>(Scratch.get());
    I.Memory.add(D.ScratchBase, ScratchSize);
  }

  D.Count = I.Options.CollectCounters;
  D.Record = I.Options.RecordMemoryAccesses;
  D.StrictLds = I.Options.StrictLds;
  if (Params.TimeoutNs)
    D.Deadline = nowNs() + Params.TimeoutNs;
  size_t &NumIds = Run->NumIds;
  {
    std::shared_lock<std::shared_mutex> G(I.CodeLock);
    NumIds = I.NextInstructionId;
  }
  WorkerCounters &Merged = Run->Merged;
  if (D.Count)
    Merged.reset(NumIds);
  // The dispatching thread is worker 0: it is running already, while a
  // pool thread may take milliseconds to be woken on a busy host (a
  // dispatch of a few milliseconds then ran on one thread for half its
  // time). It also guarantees progress when every pool thread is busy
  // with other dispatches.
  if (D.Profile)
    D.Profile->Post = nowNs();
  if (I.Pool && Workers > 1) {
    // Worker numbers in the order the pool threads join.
    auto Joined = std::make_shared<std::atomic<unsigned>>(1);
    I.Pool->post(Workers - 1, [Run, Joined] {
      if (!Run->enter())
        return;
      unsigned W = Joined->fetch_add(1, std::memory_order_relaxed);
      runWorker(Run->D, W, Run->NumIds, Run->Merged, Run->MergeLock);
      Run->leave();
    });
  }
  if (D.Profile)
    D.Profile->Posted = nowNs();
  runWorker(D, 0, NumIds, Merged, Run->MergeLock);
  if (I.Pool && Workers > 1) {
    Run->close();
    I.Pool->finished();
  }
  if (D.Profile)
    D.Profile->Closed = nowNs();
  if (ScratchSize)
    I.Memory.remove(D.ScratchBase);
  I.Memory.reclaim();

  DispatchResult R;
  R.Status = D.Status;
  R.FirstFault = std::move(D.First);
  R.LdsOutOfRange = D.LdsOutOfRange.load(std::memory_order_relaxed);
  R.Takeovers = Run->Takeover.taken();
  R.TakeoversMidSlice = Run->Takeover.takenMidSlice();
  R.TakeoverSwaps = Run->Takeover.swapped();
  R.FirstLdsOutOfRange = std::move(D.FirstLdsOutOfRange);
  if (D.Profile)
    D.Profile->finish(D.KernelName);
  R.KernelName = std::move(D.KernelName); // the workers are done with it
  if (D.Count) {
    DispatchCounters &C = R.Counters;
    C.Waves = Merged.Waves;
    C.Workgroups = Merged.Workgroups;
    C.Accesses = std::move(Merged.Accesses);
    std::shared_lock<std::shared_mutex> G(I.CodeLock);
    for (const auto &Region : I.Regions) {
      Region->forEachDecoded([&](const DecodedInst &Inst) {
        uint64_t N = Inst.Id < NumIds ? Merged.Executions[Inst.Id] : 0;
        if (!N)
          return;
        InstructionCount IC;
        IC.Code = Region->name().str();
        IC.Pc = Inst.Address;
        if (const CodeRegion::Symbol *S = Region->symbolAt(Inst.Address)) {
          IC.Function = S->Name;
          IC.Offset = Inst.Address - S->Address;
        }
        IC.Opcode = I.Dec->nameOf(Inst.NameId).str();
        IC.WaveExecutions = N;
        IC.ActiveLanes = Merged.Lanes[Inst.Id];
        IC.MemoryBytes = Merged.Bytes[Inst.Id];
        IC.IsMemory = Inst.Flags & FlagMemory;
        IC.StartsBlock = Inst.Flags & FlagStartsBlock;
        C.WaveInstructions += N;
        if (Inst.Flags & FlagVector)
          C.ActiveLaneInstructions += IC.ActiveLanes;
        if (IC.IsMemory) {
          C.MemoryInstructions += N;
          C.MemoryBytes += IC.MemoryBytes;
        }
        C.Instructions.push_back(std::move(IC));
      });
    }
  }
  return R;
}

//===----------------------------------------------------------------------===//
// Counters
//===----------------------------------------------------------------------===//

std::map<std::string, uint64_t> DispatchCounters::byOpcode() const {
  std::map<std::string, uint64_t> Out;
  for (const InstructionCount &I : Instructions)
    Out[I.Opcode] += I.WaveExecutions;
  return Out;
}

std::map<std::string, uint64_t> DispatchCounters::blockEntries() const {
  std::map<std::string, uint64_t> Out;
  for (const InstructionCount &I : Instructions)
    if (I.StartsBlock)
      Out[formatv("{0}+{1:x}", I.Function, I.Offset).str()] += I.WaveExecutions;
  return Out;
}

} // namespace loom::emu
