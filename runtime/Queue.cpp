//===- runtime/Queue.cpp - AQL queues and their packet processors ---------===//

#include "loom/runtime/Queue.h"
#include "loom/runtime/Agent.h"
#include "loom/runtime/CountersReport.h"
#include "loom/runtime/Events.h"
#include "loom/runtime/KernelFaults.h"
#include "loom/runtime/Memory.h"
#include "loom/runtime/RuntimeState.h"
#include "loom/runtime/Signal.h"

#include "loom/emu/Device.h"

#include "hsa/hsa_ext_amd.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <sys/mman.h>
#include <system_error>
#include <unordered_map>

namespace loom::runtime {

namespace {
struct Registry {
  std::shared_mutex Lock;
  std::unordered_map<const hsa_queue_t *, Queue *> Live;
};
Registry &registry() {
  static auto *R = new Registry;
  return *R;
}
std::atomic<uint64_t> NextQueueId{0};

constexpr size_t PacketBytes = 64;
constexpr uint64_t SpinNs = 20'000;
constexpr uint64_t RecheckNs = 20'000'000; // idle queues: clients ring

uint8_t packetType(uint16_t Header) {
  return uint8_t((Header >> HSA_PACKET_HEADER_TYPE) &
                 ((1 << HSA_PACKET_HEADER_WIDTH_TYPE) - 1));
}

void fenceFor(uint16_t Header, int Shift) {
  if ((Header >> Shift) & 3)
    std::atomic_thread_fence(std::memory_order_seq_cst);
}

hsa_status_t statusOfFault(emu::DispatchStatus S) {
  switch (S) {
  case emu::DispatchStatus::MemoryFault:
    return hsa_status_t(HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION);
  case emu::DispatchStatus::IllegalInstruction:
    return hsa_status_t(HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION);
  case emu::DispatchStatus::Trap:
    return HSA_STATUS_ERROR_EXCEPTION;
  case emu::DispatchStatus::InvalidDispatch:
    return HSA_STATUS_ERROR_INVALID_PACKET_FORMAT;
  case emu::DispatchStatus::TimedOut:
    return HSA_STATUS_ERROR;
  default:
    return HSA_STATUS_SUCCESS;
  }
}

// A status meaning "the queue is going away": stop without an error.
const hsa_status_t Aborted = hsa_status_t(0x7fffffff);

/// LDS accesses out of range run as on the hardware (dropped, zero) but
/// are most likely a bug: one stderr line per kernel and process says so.
void warnLdsOutOfRange(const emu::DispatchResult &R) {
  struct Kernels {
    std::mutex Lock;
    std::set<std::string> Names;
  };
  // Never destroyed: queue threads may still dispatch during exit.
  static auto *Warned = new Kernels;
  {
    std::lock_guard<std::mutex> G(Warned->Lock);
    if (!Warned->Names.insert(R.KernelName).second)
      return;
  }
  fprintf(stderr,
          "Loom: warning: %llu LDS access%s out of range in a dispatch of "
          "'%s' (the hardware drops such writes and reads zero; "
          "LOOM_STRICT_LDS=1 makes it a memory fault; later dispatches of "
          "this kernel are not reported); first: %s\n",
          (unsigned long long)R.LdsOutOfRange,
          R.LdsOutOfRange == 1 ? "" : "es", R.KernelName.c_str(),
          R.FirstLdsOutOfRange ? R.FirstLdsOutOfRange->Message.c_str() : "");
}
} // namespace

//===--- Creation and destruction -----------------------------------------===//

std::vector<uint32_t> fullCuMask(uint32_t ComputeUnits) {
  std::vector<uint32_t> Mask((ComputeUnits + 31) / 32, 0xffffffffu);
  if (ComputeUnits % 32)
    Mask.back() = (1u << (ComputeUnits % 32)) - 1;
  return Mask;
}

static void *mapZeroed(size_t Bytes) {
  void *P = mmap(nullptr, Bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return P == MAP_FAILED ? nullptr : P;
}

static hsa_status_t allocateQueueMemory(Queue &Q, amd_queue_t *&Amd,
                                        void *&Ring, uint8_t *&Copy,
                                        uint32_t Size) {
  Amd = static_cast<amd_queue_t *>(mapZeroed(4096));
  Ring = mapZeroed(size_t(Size) * PacketBytes);
  if (!Amd || !Ring)
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  // The packet copy (dispatch_ptr target) shares the amd_queue_t's page.
  Copy = reinterpret_cast<uint8_t *>(Amd) + 2048;
  registerRange(Amd, 4096);
  registerRange(Ring, size_t(Size) * PacketBytes);
  auto *Packets = static_cast<uint16_t *>(Ring);
  for (uint32_t I = 0; I < Size; ++I)
    Packets[I * PacketBytes / 2] = HSA_PACKET_TYPE_INVALID;
  return HSA_STATUS_SUCCESS;
}

static void fillAmdQueue(amd_queue_t *Amd, void *Ring, uint32_t Size,
                         hsa_queue_type32_t Type, uint32_t Features,
                         hsa_signal_t Doorbell, uint32_t ComputeUnits) {
  Amd->hsa_queue.type = Type;
  Amd->hsa_queue.features = Features;
  Amd->hsa_queue.base_address = Ring;
  Amd->hsa_queue.doorbell_signal = Doorbell;
  Amd->hsa_queue.size = Size;
  Amd->hsa_queue.id = NextQueueId.fetch_add(1);
  Amd->group_segment_aperture_base_hi =
      uint32_t(emu::SharedApertureBase >> 32);
  Amd->private_segment_aperture_base_hi =
      uint32_t(emu::PrivateApertureBase >> 32);
  Amd->max_cu_id = ComputeUnits ? ComputeUnits - 1 : 0;
  Amd->max_wave_id = gpu::MaxWavesPerCu - 1;
  Amd->read_dispatch_id_field_base_byte_offset = uint32_t(
      offsetof(amd_queue_t, read_dispatch_id) - offsetof(amd_queue_t, hsa_queue));
  AMD_HSA_BITS_SET(Amd->queue_properties, AMD_QUEUE_PROPERTIES_IS_PTR64, 1);
}

hsa_status_t Queue::create(Agent &A, uint32_t Size, hsa_queue_type32_t Type,
                           ErrorCallback Callback, void *Data,
                           uint32_t PrivateSegmentSize,
                           uint32_t GroupSegmentSize, Queue **Out) {
  std::unique_ptr<Queue> Q(new Queue);
  Q->TheAgent = &A;
  Q->Callback = Callback;
  Q->CallbackData = Data;
  Q->PrivateSegmentSize =
      PrivateSegmentSize == UINT32_MAX ? 0 : PrivateSegmentSize;
  Q->GroupSegmentSize = GroupSegmentSize == UINT32_MAX ? 0 : GroupSegmentSize;
  if (hsa_status_t S =
          allocateQueueMemory(*Q, Q->Amd, Q->Ring, Q->PacketCopy, Size);
      S != HSA_STATUS_SUCCESS)
    return S;
  Q->Doorbell = SignalTable::create(0);
  Q->InactiveSignal = SignalTable::create(0);
  if (!Q->Doorbell || !Q->InactiveSignal)
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  Q->Doorbell->DoorbellOf = Q.get();
  fillAmdQueue(Q->Amd, Q->Ring, Size, Type, HSA_QUEUE_FEATURE_KERNEL_DISPATCH,
               {Q->Doorbell->handle()}, A.computeUnits());
  Q->Amd->queue_inactive_signal = {Q->InactiveSignal->handle()};
  Q->Amd->compute_tmpring_size = 0;
  Q->CuMask = fullCuMask(A.computeUnits());
  Queue *Raw = Q.get();
  {
    std::unique_lock<std::shared_mutex> L(registry().Lock);
    // The agent's documented limit (HSA_AGENT_INFO_QUEUES_MAX): each
    // queue costs a host thread.
    uint32_t OfAgent = 0;
    for (auto &[H, Other] : registry().Live)
      OfAgent += Other->TheAgent == &A;
    if (OfAgent >= gpu::QueuesMax)
      return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    registry().Live.emplace(Raw->hsa(), Raw);
  }
  // std::thread reports a thread it cannot start (address space, thread
  // limits) by throwing: that must not cross the C API.
  try {
    Raw->Processor = std::thread([Raw] { Raw->run(); });
  } catch (const std::system_error &) {
    std::unique_lock<std::shared_mutex> L(registry().Lock);
    registry().Live.erase(Raw->hsa());
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  Q.release();
  *Out = Raw;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t Queue::createSoft(uint32_t Size, hsa_queue_type32_t Type,
                               uint32_t Features, hsa_signal_t Doorbell,
                               Queue **Out) {
  std::unique_ptr<Queue> Q(new Queue);
  if (hsa_status_t S =
          allocateQueueMemory(*Q, Q->Amd, Q->Ring, Q->PacketCopy, Size);
      S != HSA_STATUS_SUCCESS)
    return S;
  Q->OwnsDoorbell = false;
  fillAmdQueue(Q->Amd, Q->Ring, Size, Type, Features, Doorbell, 0);
  Queue *Raw = Q.release();
  std::unique_lock<std::shared_mutex> L(registry().Lock);
  registry().Live.emplace(Raw->hsa(), Raw);
  *Out = Raw;
  return HSA_STATUS_SUCCESS;
}

Queue *Queue::lookup(const hsa_queue_t *Q) {
  std::shared_lock<std::shared_mutex> L(registry().Lock);
  auto It = registry().Live.find(Q);
  return It == registry().Live.end() ? nullptr : It->second;
}

bool Queue::destroy(const hsa_queue_t *HQ) {
  Queue *Q;
  {
    std::unique_lock<std::shared_mutex> L(registry().Lock);
    auto It = registry().Live.find(HQ);
    if (It == registry().Live.end())
      return false;
    Q = It->second;
    registry().Live.erase(It);
  }
  if (Q->Processor.joinable() &&
      Q->Processor.get_id() == std::this_thread::get_id()) {
    // Destroyed from its own error callback: run() frees it on the way out.
    Q->SelfDestroy = true;
    Q->Stop = true;
    return true;
  }
  delete Q;
  return true;
}

void Queue::destroyAll() {
  std::unordered_map<const hsa_queue_t *, Queue *> Left;
  {
    std::unique_lock<std::shared_mutex> L(registry().Lock);
    Left.swap(registry().Live);
  }
  for (auto &[H, Q] : Left)
    delete Q;
}

void Queue::stopAll() {
  std::vector<Queue *> Live;
  {
    std::shared_lock<std::shared_mutex> L(registry().Lock);
    for (auto &[H, Q] : registry().Live)
      Live.push_back(Q);
  }
  for (Queue *Q : Live) {
    Q->Stop = true;
    Q->Cancel = true;
    Q->ringDoorbell();
  }
  for (Queue *Q : Live)
    if (Q->Processor.joinable() &&
        Q->Processor.get_id() != std::this_thread::get_id())
      Q->Processor.join();
}

Queue::~Queue() {
  Stop = true;
  Cancel = true;
  ringDoorbell();
  if (Processor.joinable())
    Processor.join();
  if (Doorbell) {
    Doorbell->DoorbellOf = nullptr;
    if (OwnsDoorbell)
      SignalTable::destroy(Doorbell->handle());
  }
  if (InactiveSignal)
    SignalTable::destroy(InactiveSignal->handle());
  if (Ring) {
    unregisterRange(Ring);
    munmap(Ring, size_t(Amd->hsa_queue.size) * PacketBytes);
  }
  if (Amd) {
    unregisterRange(Amd);
    munmap(Amd, 4096);
  }
}

void Queue::inactivate() {
  Stop = true;
  ringDoorbell();
}

void Queue::ringDoorbell() {
  DoorbellEpoch.fetch_add(1, std::memory_order_seq_cst);
  if (Sleeping.load(std::memory_order_seq_cst))
    futexWakeAll(DoorbellEpoch);
}

void Queue::addInterceptor(hsa_amd_queue_intercept_handler H, void *Data) {
  std::lock_guard<std::mutex> L(ConfigLock);
  Interceptors.push_back({H, Data});
}

//===--- The packet processor ---------------------------------------------===//

void Queue::run() {
  const uint64_t Mask = Amd->hsa_queue.size - 1;
  auto *Base = static_cast<uint8_t *>(Ring);
  auto Ready = [&](uint64_t R) {
    uint64_t W = __atomic_load_n(&Amd->write_dispatch_id, __ATOMIC_ACQUIRE);
    if (W <= R)
      return false;
    auto *Header = reinterpret_cast<uint16_t *>(Base + (R & Mask) * PacketBytes);
    return packetType(__atomic_load_n(Header, __ATOMIC_ACQUIRE)) !=
           HSA_PACKET_TYPE_INVALID;
  };
  uint64_t IdleSince = nowTicks();
  uint32_t Polls = 0;
  while (!Stop.load(std::memory_order_relaxed)) {
    uint64_t R = Amd->read_dispatch_id;
    if (!Ready(R)) {
      // Spin a while (reading the clock only every 64 polls), then sleep.
      if (++Polls & 63) {
        __builtin_ia32_pause();
        continue;
      }
      if (nowTicks() - IdleSince < SpinNs) {
        // A client thread spinning for our result may share this core.
        if (!(Polls & 1023))
          std::this_thread::yield();
        continue;
      }
      Sleeping.store(1, std::memory_order_seq_cst);
      uint32_t E = DoorbellEpoch.load(std::memory_order_seq_cst);
      if (!Ready(R) && !Stop.load())
        futexWait(DoorbellEpoch, E, RecheckNs);
      Sleeping.store(0, std::memory_order_relaxed);
      IdleSince = nowTicks();
      continue;
    }
    uint8_t *Slot = Base + (R & Mask) * PacketBytes;
    alignas(64) uint8_t Packet[PacketBytes];
    std::memcpy(Packet, Slot, PacketBytes);
    // The packet is consumed (as a command processor does at launch): its
    // slot is free again once the read index moves, before it completes.
    __atomic_store_n(reinterpret_cast<uint16_t *>(Slot),
                     uint16_t(HSA_PACKET_TYPE_INVALID), __ATOMIC_RELAXED);
    __atomic_store_n(&Amd->read_dispatch_id, R + 1, __ATOMIC_RELEASE);
    hsa_status_t S;
    bool HasInterceptors;
    {
      std::lock_guard<std::mutex> L(ConfigLock);
      HasInterceptors = !Interceptors.empty();
    }
    S = HasInterceptors ? processIntercepted(Packet, R) : execute(Packet, R);
    if (S == Aborted)
      break;
    if (S != HSA_STATUS_SUCCESS) {
      fail(S);
      break;
    }
    IdleSince = nowTicks();
  }
  if (SelfDestroy) {
    Processor.detach();
    delete this;
  }
}

void Queue::fail(hsa_status_t Status) {
  Errored = true;
  Stop = true;
  if (InactiveSignal)
    InactiveSignal->store(int64_t(Status), std::memory_order_release);
  if (Callback)
    Callback(Status, hsa(), CallbackData);
}

namespace {
// The interceptor chain of the packet being processed on this thread.
struct InterceptContext {
  Queue *Q = nullptr;
  size_t Level = 0;
  uint64_t Index = 0;
  hsa_status_t Status = HSA_STATUS_SUCCESS;
};
thread_local InterceptContext Ctx;
} // namespace

struct InterceptWriter {
  static void write(const void *Packets, uint64_t Count) {
    Queue *Q = Ctx.Q;
    size_t Next = Ctx.Level + 1;
    Queue::Interceptor I{nullptr, nullptr};
    {
      std::lock_guard<std::mutex> L(Q->ConfigLock);
      if (Next < Q->Interceptors.size())
        I = Q->Interceptors[Next];
    }
    if (I.Handler) {
      size_t Saved = Ctx.Level;
      Ctx.Level = Next;
      I.Handler(Packets, Count, Ctx.Index, I.Data, &InterceptWriter::write);
      Ctx.Level = Saved;
      return;
    }
    auto *P = static_cast<const uint8_t *>(Packets);
    for (uint64_t K = 0; K < Count && Ctx.Status == HSA_STATUS_SUCCESS; ++K)
      Ctx.Status = Q->execute(P + K * PacketBytes, Ctx.Index);
  }
};

hsa_status_t Queue::processIntercepted(const void *Packet, uint64_t Index) {
  Queue::Interceptor First;
  {
    std::lock_guard<std::mutex> L(ConfigLock);
    First = Interceptors.front();
  }
  Ctx = {this, 0, Index, HSA_STATUS_SUCCESS};
  First.Handler(Packet, 1, Index, First.Data, &InterceptWriter::write);
  hsa_status_t S = Ctx.Status;
  Ctx = {};
  return S;
}

hsa_status_t Queue::execute(const void *PacketPtr, uint64_t Index) {
  const auto *P = static_cast<const uint8_t *>(PacketPtr);
  uint16_t Header;
  std::memcpy(&Header, P, 2);
  uint8_t Type = packetType(Header);
  fenceFor(Header, HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE);
  hsa_signal_t Completion{0};
  uint64_t Start = nowTicks();

  switch (Type) {
  case HSA_PACKET_TYPE_KERNEL_DISPATCH: {
    hsa_kernel_dispatch_packet_t K;
    std::memcpy(&K, P, sizeof(K));
    Completion = K.completion_signal;
    unsigned Dims = K.setup & 3;
    if (Dims < 1 || Dims > 3 || !K.kernel_object)
      return HSA_STATUS_ERROR_INVALID_PACKET_FORMAT;
    uint32_t Grid[3] = {K.grid_size_x, K.grid_size_y, K.grid_size_z};
    uint16_t Wg[3] = {K.workgroup_size_x, K.workgroup_size_y,
                      K.workgroup_size_z};
    for (unsigned D = Dims; D < 3; ++D) {
      // Unused dimensions must be 1 (0 is tolerated, as by ROCr's clients).
      Grid[D] = Grid[D] ? Grid[D] : 1;
      Wg[D] = Wg[D] ? Wg[D] : 1;
    }
    uint64_t WgItems = uint64_t(Wg[0]) * Wg[1] * Wg[2];
    if (!Grid[0] || !Grid[1] || !Grid[2] || !WgItems)
      return HSA_STATUS_ERROR_INVALID_PACKET_FORMAT;
    if (WgItems > gpu::WorkgroupMax ||
        K.group_segment_size > gpu::LdsBytes)
      return HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS;
    std::memcpy(PacketCopy, &K, sizeof(K));
    emu::DispatchParams D;
    D.KernelObject = K.kernel_object;
    for (int I = 0; I < 3; ++I) {
      D.GridSize[I] = Grid[I];
      D.WorkgroupSize[I] = Wg[I];
    }
    D.Dimensions = Dims;
    D.Kernarg = reinterpret_cast<uint64_t>(K.kernarg_address);
    D.GroupSegmentSize = std::max(K.group_segment_size, GroupSegmentSize);
    D.PrivateSegmentSize =
        std::max(K.private_segment_size, PrivateSegmentSize);
    D.DispatchPacket = reinterpret_cast<uint64_t>(PacketCopy);
    D.Queue = reinterpret_cast<uint64_t>(Amd);
    D.DispatchId = Index;
    D.Cancel = &Cancel;
    if (RuntimeState *RS = RuntimeState::get())
      D.TimeoutNs = uint64_t(RS->Config.KernelTimeoutSeconds) * 1'000'000'000;
    auto Start = std::chrono::steady_clock::now();
    emu::DispatchResult R = TheAgent->device()->dispatch(D);
    if (CountersReport *Report = CountersReport::get())
      Report->record(TheAgent->node(), D, R,
                     std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - Start)
                         .count());
    if (R.LdsOutOfRange)
      warnLdsOutOfRange(R);
    if (R.Status == emu::DispatchStatus::Cancelled)
      return Aborted;
    if (!R.ok()) {
      if (R.Status == emu::DispatchStatus::MemoryFault) {
        hsa_amd_event_t E{};
        E.event_type = HSA_AMD_GPU_MEMORY_FAULT_EVENT;
        E.memory_fault.agent = TheAgent->hsa();
        E.memory_fault.virtual_address = R.FirstFault.Address;
        E.memory_fault.fault_reason_mask =
            HSA_AMD_MEMORY_FAULT_PAGE_NOT_PRESENT |
            (R.FirstFault.IsWrite ? HSA_AMD_MEMORY_FAULT_READ_ONLY : 0);
        if (!events::raise(E))
          fprintf(stderr,
                  "Loom: memory access fault by GPU node-%u on address "
                  "0x%llx: %s\n",
                  TheAgent->node(),
                  (unsigned long long)R.FirstFault.Address,
                  R.FirstFault.Message.c_str());
      } else {
        // Clients (HIP) often abort in their callback with only the status:
        // say which instruction failed first.
        fprintf(stderr, "Loom: GPU queue error: %s\n",
                R.FirstFault.Message.c_str());
      }
      if (!reportKernelFaults())
        return statusOfFault(R.Status);
      // Recorded for the HIP shim; the packet completes so waiters return.
      recordKernelFault(statusOfFault(R.Status));
    }
    break;
  }
  case HSA_PACKET_TYPE_BARRIER_AND:
  case HSA_PACKET_TYPE_BARRIER_OR: {
    hsa_barrier_and_packet_t B;
    std::memcpy(&B, P, sizeof(B));
    Completion = B.completion_signal;
    bool IsAnd = Type == HSA_PACKET_TYPE_BARRIER_AND;
    auto Satisfied = [&] {
      bool Any = false, All = true, HaveDeps = false;
      for (hsa_signal_t Dep : B.dep_signal) {
        if (!Dep.handle)
          continue;
        HaveDeps = true;
        SignalRef S(Dep);
        bool Zero = !S || S->load(std::memory_order_acquire) == 0;
        Any |= Zero;
        All &= Zero;
      }
      return IsAnd ? All : (Any || !HaveDeps);
    };
    if (!waitUntil(Satisfied, UINT64_MAX, &Stop))
      return Aborted;
    break;
  }
  case HSA_PACKET_TYPE_VENDOR_SPECIFIC: {
    hsa_amd_barrier_value_packet_t V;
    std::memcpy(&V, P, sizeof(V));
    if (V.header.AmdFormat != HSA_AMD_PACKET_TYPE_BARRIER_VALUE)
      return HSA_STATUS_ERROR_INVALID_PACKET_FORMAT;
    Completion = V.completion_signal;
    auto Satisfied = [&] {
      SignalRef S(V.signal);
      if (!S)
        return true;
      return conditionHolds(hsa_signal_condition_t(V.cond),
                            S->load(std::memory_order_acquire) & V.mask,
                            V.value);
    };
    if (!waitUntil(Satisfied, UINT64_MAX, &Stop))
      return Aborted;
    break;
  }
  default: // agent dispatch (no agent here runs them), unknown types
    return HSA_STATUS_ERROR_INVALID_PACKET_FORMAT;
  }

  fenceFor(Header, HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
  if (Completion.handle) {
    if (SignalRef C(Completion); C) {
      if (Profiling.load(std::memory_order_relaxed)) {
        C->amd().start_ts = Start;
        C->amd().end_ts = nowTicks();
      }
      C->rmw(Signal::Op::Sub, 1, std::memory_order_release);
    }
  }
  return HSA_STATUS_SUCCESS;
}

} // namespace loom::runtime
