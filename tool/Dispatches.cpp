//===- tool/Dispatches.cpp - Intercepting kernel dispatches ---------------===//
//
// Every queue the program creates is an intercept queue
// (hsa_amd_queue_intercept_create), so each packet passes through here
// before the packet processor sees it. A kernel dispatch is offered to
// every tool; if one asks for instrumented code, the packet is redirected
// to the copy. Then, so that dispatchComplete runs after the dispatch and
// before anything that follows it in the queue, the dispatch is written as
//
//   dispatch   completion signal: Done (ours), release fence: system
//   barrier-AND (barrier bit)  waits for Gate (ours); completion signal:
//              the program's, so its waits see the dispatch complete only
//              once the tools have seen it too
//
// and an async handler on Done runs the tools, then opens Gate. A barrier
// packet holds its queue until it completes (HSA: later packets are not
// launched before), so the next packet of the queue starts after the
// tools' dispatchComplete: per-dispatch results need no more than that.
//
// Both signals of a dispatch are destroyed by the next dispatch's handler
// on the same queue: by then its barrier packet has completed (no one reads
// Gate any more) and the handler that used Done has returned.
//
// Written for any HSA runtime: in ROCr, interceptors and async handlers
// share one thread, so nothing here waits for a handler.
//
//===----------------------------------------------------------------------===//

#include "Hsa.h"
#include "Launch.h"
#include "ToolRuntime.h"

#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <set>

using namespace llvm;
using namespace loom::instrument;

namespace loom::tool {

namespace {

struct Completion;

} // namespace

struct QueueState : std::enable_shared_from_this<QueueState> {
  hsa_queue_t *Queue = nullptr;
  hsa_agent_t Agent{};
  std::mutex Lock;
  std::vector<Completion *> Retired; ///< whose signals may be destroyed
  /// Kernel objects of unknown code whose instrumentation was refused (said
  /// once).
  std::set<uint64_t> Unknown;
  ~QueueState();
};

namespace {

struct Completion {
  std::shared_ptr<QueueState> Queue;
  hsa_signal_t Done{}, Gate{};
  Dispatch D;
  std::vector<bool> Instrumented; ///< per tool: ran with its hooks
  /// The kernarg segment and channel rings, if the copy reads the launch
  /// header.
  std::unique_ptr<Launch> Args;
  ~Completion() {
    if (Done.handle)
      hsa().Core.hsa_signal_destroy_fn(Done);
    if (Gate.handle)
      hsa().Core.hsa_signal_destroy_fn(Gate);
  }
};

bool dispatchCompleted(hsa_signal_value_t, void *Arg) {
  auto *C = static_cast<Completion *>(Arg);
  ToolRuntime &R = ToolRuntime::get();
  for (size_t I = 0; I < R.Tools.size() && I < C->Instrumented.size(); ++I) {
    Dispatch D = C->D;
    D.Instrumented = C->Instrumented[I];
    // The rest of the tool's records come before its dispatchComplete.
    if (ChannelRing *Ring = C->Args ? C->Args->ringOf(R.Tools[I].get())
                                    : nullptr)
      D.ChannelDropped = R.Channels.finish(*Ring);
    R.Tools[I]->call(
        [&](Tool &T, ToolContext &Ctx) { T.dispatchComplete(Ctx, D); });
  }
  C->Args.reset(); // the kernel is done with its arguments and rings
  hsa().Core.hsa_signal_store_screlease_fn(C->Gate, 0);
  // Retired, C no longer holds its queue (that would be a cycle): the
  // queue, if destroyed meanwhile, may go with this last reference.
  std::shared_ptr<QueueState> Q = std::move(C->Queue);
  std::vector<Completion *> Old;
  {
    std::lock_guard<std::mutex> L(Q->Lock);
    Old.swap(Q->Retired);
    Q->Retired.push_back(C);
  }
  for (Completion *P : Old)
    delete P;
  R.dispatchDone();
  return false; // once
}

void interceptPackets(const void *Packets, uint64_t Count, uint64_t, void *Data,
                      hsa_amd_queue_intercept_packet_writer Writer) {
  auto &Q = *static_cast<QueueState *>(Data);
  ToolRuntime &R = ToolRuntime::get();
  for (uint64_t I = 0; I < Count; ++I) {
    const void *P = static_cast<const char *>(Packets) + I * 64;
    uint16_t Header;
    std::memcpy(&Header, P, sizeof(Header));
    uint8_t Type = (Header >> HSA_PACKET_HEADER_TYPE) &
                   ((1 << HSA_PACKET_HEADER_WIDTH_TYPE) - 1);
    if (Type == HSA_PACKET_TYPE_KERNEL_DISPATCH && R.active())
      R.dispatch(Q, P, Writer);
    else
      Writer(P, 1);
  }
}

/// \p Header with the fence scope at bit \p Shift set to \p Scope.
uint16_t withFence(uint16_t Header, unsigned Shift, hsa_fence_scope_t Scope) {
  constexpr unsigned Mask =
      (1u << HSA_PACKET_HEADER_WIDTH_SCACQUIRE_FENCE_SCOPE) - 1;
  return uint16_t((Header & ~(Mask << Shift)) | (unsigned(Scope) << Shift));
}

} // namespace

QueueState::~QueueState() {
  for (Completion *C : Retired)
    delete C;
}

void ToolRuntime::dispatch(QueueState &Q, const void *Packet,
                           hsa_amd_queue_intercept_packet_writer Writer) {
  hsa_kernel_dispatch_packet_t K;
  std::memcpy(&K, Packet, sizeof(K));
  std::shared_ptr<const KernelInfo> Info = Objects.kernel(K.kernel_object);

  auto C = std::make_unique<Completion>();
  Dispatch &D = C->D;
  D.Index = Dispatches.fetch_add(1, std::memory_order_relaxed);
  D.Agent = Q.Agent;
  D.Queue = Q.Queue;
  D.KernelObject = K.kernel_object;
  D.Grid[0] = K.grid_size_x;
  D.Grid[1] = K.grid_size_y;
  D.Grid[2] = K.grid_size_z;
  D.WorkGroup[0] = K.workgroup_size_x;
  D.WorkGroup[1] = K.workgroup_size_y;
  D.WorkGroup[2] = K.workgroup_size_z;
  D.Kernarg = K.kernarg_address;
  if (Info) {
    D.Kernel = Info->Name;
    D.CodeObject = Info->Code->Uri;
    D.Executable = Info->Code->Executable;
  }

  std::vector<ToolChoice> Choices;
  std::vector<std::vector<uint8_t>> LaunchData; ///< by choice
  for (auto &T : Tools) {
    DispatchChoice Choice = T->call(
        [&](Tool &Tl, ToolContext &Ctx) { return Tl.dispatch(Ctx, D); });
    if (Choice.Instrument) {
      Choices.push_back({T.get(), Choice.Configuration});
      LaunchData.push_back(std::move(Choice.LaunchData));
    }
  }
  C->Instrumented.assign(Tools.size(), false);
  if (!Choices.empty() && !Info) {
    std::lock_guard<std::mutex> L(Q.Lock);
    if (Q.Unknown.insert(K.kernel_object).second)
      errs() << format("loom-tool: kernel object 0x%llx: not loaded through "
                       "a code object reader this runtime saw (running the "
                       "original code)\n",
                       (unsigned long long)K.kernel_object);
  } else if (!Choices.empty()) {
    const KernelCopy *Copy = Copies->get(*Info, K.kernel_object, Choices);
    if (Copy && Copy->UsesLaunchHeader) {
      // Slot i of the header is Choices[i], the copy's i-th tool.
      Expected<std::unique_ptr<Launch>> L =
          Launch::make(Memory, Channels, *Copy, K, LaunchData, D);
      if (L) {
        C->Args = std::move(*L);
        K.kernarg_address = C->Args->kernarg();
      } else {
        errs() << "loom-tool: " << D.Kernel << " dispatch " << D.Index
               << ": cannot pass the launch header: "
               << toString(L.takeError()) << " (running the original code)\n";
        Copy = nullptr;
      }
    }
    if (Copy) {
      K.kernel_object = Copy->KernelObject;
      // The hooks' stack on top of what the original code was given.
      K.private_segment_size =
          std::max(K.private_segment_size + Copy->StackSlotSize,
                   Copy->PrivateSegmentSize);
      K.group_segment_size =
          std::max(K.group_segment_size, Copy->GroupSegmentSize);
      for (size_t I = 0; I < Tools.size(); ++I)
        C->Instrumented[I] = llvm::any_of(Choices, [&](const ToolChoice &Ch) {
          return Ch.Tool == Tools[I].get();
        });
    }
  }

  const CoreApiTable &Core = hsa().Core;
  if (Core.hsa_signal_create_fn(1, 0, nullptr, &C->Done) !=
          HSA_STATUS_SUCCESS ||
      Core.hsa_signal_create_fn(1, 0, nullptr, &C->Gate) !=
          HSA_STATUS_SUCCESS) {
    errs() << "loom-tool: cannot create the signals of dispatch " << D.Index
           << " (" << D.Kernel << "): the tools do not see it complete\n";
    // Nothing would drain its channels: the original code.
    Writer(Packet, 1);
    return;
  }

  // The barrier takes over the program's completion signal. Both packets
  // release to system scope: the tools read device memory from the host,
  // and what they write there must be seen by the packets after.
  hsa_barrier_and_packet_t B{};
  B.header = uint16_t(HSA_PACKET_TYPE_BARRIER_AND << HSA_PACKET_HEADER_TYPE |
                      1 << HSA_PACKET_HEADER_BARRIER);
  B.header = withFence(B.header, HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE,
                       HSA_FENCE_SCOPE_SYSTEM);
  B.header = withFence(B.header, HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE,
                       HSA_FENCE_SCOPE_SYSTEM);
  B.dep_signal[0] = C->Gate;
  B.completion_signal = K.completion_signal;
  K.completion_signal = C->Done;
  K.header = withFence(K.header, HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE,
                       HSA_FENCE_SCOPE_SYSTEM);

  C->Queue = Q.shared_from_this();
  {
    std::lock_guard<std::mutex> L(InFlightLock);
    ++InFlight;
  }
  Completion *Raw = C.release();
  if (hsa_status_t S = hsa().Amd.hsa_amd_signal_async_handler_fn(
          Raw->Done, HSA_SIGNAL_CONDITION_LT, 1, dispatchCompleted, Raw);
      S != HSA_STATUS_SUCCESS) {
    errs() << "loom-tool: "
           << toString(check(S, "hsa_amd_signal_async_handler"))
           << ": the tools do not see dispatch " << D.Index << " complete\n";
    delete Raw;
    dispatchDone();
    Writer(Packet, 1);
    return;
  }
  // From here the kernel may run: its rings are drained.
  if (Raw->Args)
    Raw->Args->start();
  struct {
    hsa_kernel_dispatch_packet_t Dispatch;
    hsa_barrier_and_packet_t Barrier;
  } Out{K, B};
  static_assert(sizeof(Out) == 128);
  Writer(&Out, 2);
}

hsa_status_t ToolRuntime::createQueue(
    hsa_agent_t Agent, uint32_t Size, hsa_queue_type32_t Type,
    void (*Callback)(hsa_status_t, hsa_queue_t *, void *), void *Data,
    uint32_t PrivateSize, uint32_t GroupSize, hsa_queue_t **Queue) {
  const AmdExtTable &Amd = hsa().Amd;
  hsa_status_t S = Amd.hsa_amd_queue_intercept_create_fn(
      Agent, Size, Type, Callback, Data, PrivateSize, GroupSize, Queue);
  if (S != HSA_STATUS_SUCCESS)
    return S;
  auto State = std::make_shared<QueueState>();
  State->Queue = *Queue;
  State->Agent = Agent;
  {
    std::lock_guard<std::mutex> L(QueuesLock);
    Queues[*Queue] = State;
  }
  S = Amd.hsa_amd_queue_intercept_register_fn(*Queue, interceptPackets,
                                              State.get());
  if (S != HSA_STATUS_SUCCESS) {
    errs() << "loom-tool: "
           << toString(check(S, "hsa_amd_queue_intercept_register")) << "\n";
    hsa().Core.hsa_queue_destroy_fn(*Queue);
    queueDestroyed(*Queue);
    *Queue = nullptr;
  }
  return S;
}

void ToolRuntime::queueDestroyed(hsa_queue_t *Queue) {
  std::lock_guard<std::mutex> L(QueuesLock);
  Queues.erase(Queue);
}

} // namespace loom::tool
