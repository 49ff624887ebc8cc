//===- jit/Device.cpp - GPU agents, streams and launches over HSA ---------===//
//
// Only the public HSA API, so the JIT runs on any HSA runtime: Loom's
// virtual GPU, or ROCm's on real hardware. Every status is checked at the
// call and the error names the call.
//
//===----------------------------------------------------------------------===//

#include "loom/jit/Jit.h"

#include "HsaError.h"

#include "loom/codeobj/Kernarg.h"
#include "loom/codeobj/Metadata.h"

#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstring>

using namespace llvm;

namespace loom::jit {

Error hsaError(hsa_status_t S, const Twine &Call) {
  const char *Text = nullptr;
  if (hsa_status_string(S, &Text) != HSA_STATUS_SUCCESS || !Text)
    Text = "unknown status";
  return createStringError(Call + " failed: " + Text +
                           formatv(" (0x{0:x})", unsigned(S)));
}

namespace {

/// Calls \p Fn for each item of an HSA iterate function, stopping early
/// when it returns true.
template <typename Handle, typename Iterate, typename Fn>
void forEach(Iterate It, Fn F) {
  auto CB = [](Handle H, void *D) -> hsa_status_t {
    return (*static_cast<Fn *>(D))(H) ? HSA_STATUS_INFO_BREAK
                                      : HSA_STATUS_SUCCESS;
  };
  It(CB, &F);
}

std::string agentIsa(hsa_agent_t A) {
  std::string Name;
  forEach<hsa_isa_t>(
      [&](auto CB, void *D) { return hsa_agent_iterate_isas(A, CB, D); },
      [&](hsa_isa_t Isa) {
        uint32_t Len = 0;
        if (hsa_isa_get_info_alt(Isa, HSA_ISA_INFO_NAME_LENGTH, &Len) !=
            HSA_STATUS_SUCCESS)
          return false;
        Name.assign(Len, '\0');
        hsa_isa_get_info_alt(Isa, HSA_ISA_INFO_NAME, Name.data());
        Name.resize(std::strlen(Name.c_str()));
        return true;
      });
  return Name;
}

/// Default scratch per work-item for kernels with a dynamic stack, as
/// HIP's default stack size (and emu::Module::launch).
constexpr uint32_t DefaultDynamicStack = 1024;

} // namespace

//===----------------------------------------------------------------------===//
// Device
//===----------------------------------------------------------------------===//

Expected<std::unique_ptr<Device>> Device::open(unsigned Index) {
  std::unique_ptr<Device> D(new Device());
  CHECK_HSA(hsa_init());
  D->Initialized = true;

  unsigned Seen = 0;
  bool Found = false;
  forEach<hsa_agent_t>(hsa_iterate_agents, [&](hsa_agent_t A) {
    hsa_device_type_t T;
    if (hsa_agent_get_info(A, HSA_AGENT_INFO_DEVICE, &T) != HSA_STATUS_SUCCESS)
      return false;
    if (T == HSA_DEVICE_TYPE_CPU && !D->Cpu)
      D->Cpu = A.handle;
    if (T == HSA_DEVICE_TYPE_GPU && Seen++ == Index) {
      D->Agent = A.handle;
      Found = true;
    }
    return false;
  });
  if (!Found)
    return createStringError(
        formatv("no GPU agent {0}: the HSA runtime has {1}", Index, Seen).str());
  hsa_agent_t Agent{D->Agent};
  char Name[64] = {};
  CHECK_HSA(hsa_agent_get_info(Agent, HSA_AGENT_INFO_NAME, Name));
  D->AgentName = Name;
  std::string Isa = agentIsa(Agent);
  auto T = TargetSpec::fromIsaName(Isa);
  if (!T)
    return T.takeError();
  D->Target = *T;

  // Global memory on the GPU; the kernarg pool wherever the runtime keeps
  // it (ROCr: a system pool of the CPU agent).
  auto FindPools = [&](hsa_agent_t Owner) {
    forEach<hsa_amd_memory_pool_t>(
        [&](auto CB, void *Data) {
          return hsa_amd_agent_iterate_memory_pools(Owner, CB, Data);
        },
        [&](hsa_amd_memory_pool_t P) {
          hsa_amd_segment_t Seg;
          uint32_t Flags = 0;
          bool Alloc = false;
          hsa_amd_memory_pool_get_info(P, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &Seg);
          if (Seg != HSA_AMD_SEGMENT_GLOBAL)
            return false;
          hsa_amd_memory_pool_get_info(
              P, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &Alloc);
          hsa_amd_memory_pool_get_info(
              P, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &Flags);
          if (!Alloc)
            return false;
          if ((Flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) &&
              !D->KernargPool)
            D->KernargPool = P.handle;
          if (Owner.handle == D->Agent && !D->GlobalPool &&
              (Flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED))
            D->GlobalPool = P.handle;
          return false;
        });
  };
  FindPools(Agent);
  if (D->Cpu)
    FindPools(hsa_agent_t{D->Cpu});
  if (!D->GlobalPool || !D->KernargPool)
    return createStringError("GPU agent " + D->AgentName +
                             " has no global or no kernarg memory pool");
  auto S = D->createStream();
  if (!S)
    return S.takeError();
  D->Default = std::move(*S);
  return std::move(D);
}

Device::~Device() {
  Default.reset();
  if (Initialized)
    hsa_shut_down();
}

Expected<void *> Device::allocate(size_t Bytes) {
  void *P = nullptr;
  CHECK_HSA(hsa_amd_memory_pool_allocate(hsa_amd_memory_pool_t{GlobalPool},
                                         Bytes, 0, &P));
  // Every agent may use it: the host (on Loom) and copies through the CPU.
  hsa_agent_t Agents[2] = {{Agent}, {Cpu}};
  hsa_status_t S = hsa_amd_agents_allow_access(Cpu ? 2 : 1, Agents, nullptr, P);
  if (S != HSA_STATUS_SUCCESS) {
    hsa_amd_memory_pool_free(P);
    return hsaError(S, "hsa_amd_agents_allow_access");
  }
  return P;
}

Error Device::free(void *Ptr) {
  CHECK_HSA(hsa_amd_memory_pool_free(Ptr));
  return Error::success();
}

Error Device::copy(void *Dst, const void *Src, size_t Bytes) {
  CHECK_HSA(hsa_memory_copy(Dst, Src, Bytes));
  return Error::success();
}

Expected<std::unique_ptr<Stream>> Device::createStream() {
  std::unique_ptr<Stream> S(new Stream(*this));
  hsa_queue_t *Q = nullptr;
  CHECK_HSA(hsa_queue_create(hsa_agent_t{Agent}, 1024, HSA_QUEUE_TYPE_MULTI,
                             reinterpret_cast<void (*)(hsa_status_t,
                                                       hsa_queue_t *, void *)>(
                                 &Stream::onQueueError),
                             S.get(), UINT32_MAX, UINT32_MAX, &Q));
  S->Queue = Q;
  return std::move(S);
}

//===----------------------------------------------------------------------===//
// Stream
//===----------------------------------------------------------------------===//

void Stream::onQueueError(int Status, void *, void *Self) {
  static_cast<Stream *>(Self)->QueueStatus.store(Status,
                                                 std::memory_order_release);
}

Stream::~Stream() {
  if (Queue) {
    if (!QueueStatus.load(std::memory_order_acquire))
      consumeError(synchronize());
    hsa_queue_destroy(static_cast<hsa_queue_t *>(Queue));
  }
  for (Slot &S : FreeSlots) {
    hsa_signal_destroy(hsa_signal_t{S.Signal});
    hsa_amd_memory_pool_free(S.Kernarg);
  }
}

Expected<Stream::Slot> Stream::takeSlot(uint32_t KernargBytes) {
  if (KernargBytes <= SlotKernargBytes) {
    std::lock_guard<std::mutex> Lock(SlotLock);
    if (!FreeSlots.empty()) {
      Slot S = FreeSlots.back();
      FreeSlots.pop_back();
      hsa_signal_store_relaxed(hsa_signal_t{S.Signal}, 1);
      return S;
    }
  }
  Slot S;
  S.Bytes = std::max(KernargBytes, SlotKernargBytes);
  CHECK_HSA(hsa_amd_memory_pool_allocate(
      hsa_amd_memory_pool_t{Dev.KernargPool}, S.Bytes, 0, &S.Kernarg));
  hsa_agent_t Gpu{Dev.Agent};
  hsa_amd_agents_allow_access(1, &Gpu, nullptr, S.Kernarg);
  hsa_signal_t Signal;
  hsa_status_t St = hsa_signal_create(1, 0, nullptr, &Signal);
  if (St != HSA_STATUS_SUCCESS) {
    hsa_amd_memory_pool_free(S.Kernarg);
    return hsaError(St, "hsa_signal_create");
  }
  S.Signal = Signal.handle;
  return S;
}

void Stream::giveBack(Slot S) {
  std::lock_guard<std::mutex> Lock(SlotLock);
  FreeSlots.push_back(S);
}

Error Stream::status() const {
  if (int S = QueueStatus.load(std::memory_order_acquire))
    return hsaError(hsa_status_t(S), "a kernel on this stream");
  return Error::success();
}

Error Stream::waitSignal(uint64_t Signal, StringRef Kernel) const {
  hsa_signal_t Sig{Signal};
  // Poll the queue's status between waits: a faulted kernel never
  // completes its signal.
  while (hsa_signal_wait_scacquire(Sig, HSA_SIGNAL_CONDITION_LT, 1,
                                   /*timeout_hint=*/1000000,
                                   HSA_WAIT_STATE_BLOCKED) >= 1) {
    if (int S = QueueStatus.load(std::memory_order_acquire))
      return hsaError(hsa_status_t(S), "kernel '" + Kernel + "'");
  }
  return Error::success();
}

namespace {

/// Reserves a packet slot of \p Q, waiting while the queue is full.
hsa_kernel_dispatch_packet_t *reserve(hsa_queue_t *Q, uint64_t &Index) {
  Index = hsa_queue_add_write_index_relaxed(Q, 1);
  while (Index - hsa_queue_load_read_index_scacquire(Q) >= Q->size)
    ;
  return static_cast<hsa_kernel_dispatch_packet_t *>(Q->base_address) +
         (Index & (Q->size - 1));
}

void publish(hsa_queue_t *Q, void *Packet, uint64_t Index, uint16_t Type,
             uint16_t Setup) {
  uint16_t Header = (Type << HSA_PACKET_HEADER_TYPE) |
                    (1 << HSA_PACKET_HEADER_BARRIER) |
                    (HSA_FENCE_SCOPE_SYSTEM
                     << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                    (HSA_FENCE_SCOPE_SYSTEM
                     << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
  __atomic_store_n(static_cast<uint32_t *>(Packet),
                   uint32_t(Header) | (uint32_t(Setup) << 16),
                   __ATOMIC_RELEASE);
  hsa_signal_store_screlease(Q->doorbell_signal, Index);
}

} // namespace

Error Stream::synchronize() {
  if (Error E = status())
    return E;
  // A barrier packet behind every launch so far (they all have the barrier
  // bit, so it completes after the last of them).
  hsa_signal_t Done;
  CHECK_HSA(hsa_signal_create(1, 0, nullptr, &Done));
  auto *Q = static_cast<hsa_queue_t *>(Queue);
  uint64_t Index;
  auto *P = reinterpret_cast<hsa_barrier_and_packet_t *>(reserve(Q, Index));
  std::memset(reinterpret_cast<char *>(P) + 4, 0, sizeof(*P) - 4);
  P->completion_signal = Done;
  publish(Q, P, Index, HSA_PACKET_TYPE_BARRIER_AND, 0);
  Error E = waitSignal(Done.handle, "<synchronize>");
  hsa_signal_destroy(Done);
  return E;
}

Expected<Launch> Stream::submit(Kernel &K, const LaunchOptions &O,
                                ArrayRef<ArgValue> Args) {
  if (Error E = status())
    return std::move(E);
  const codeobj::KernelMetadata &MD = *K.Metadata;

  // The arguments, against the metadata.
  if (Args.size() != K.Explicit.size())
    return createStringError(formatv("kernel '{0}' takes {1} arguments, {2} "
                                     "given",
                                     K.Demangled, K.Explicit.size(),
                                     Args.size())
                                 .str());
  for (size_t I = 0; I < Args.size(); ++I) {
    const Kernel::Argument &A = K.Explicit[I];
    if (Args[I].Size == A.Size && A.Offset % Args[I].Align == 0)
      continue;
    std::string Which = formatv("argument {0}{1}{2}{3} of kernel '{4}'", I,
                                A.Name.empty() ? "" : " '", A.Name,
                                A.Name.empty() ? "" : "'", K.Demangled);
    if (Args[I].Size != A.Size)
      return createStringError(
          formatv("{0} is {1} bytes ({2}), but a {3} of {4} bytes was given",
                  Which, A.Size, A.ValueKind, Args[I].Type, Args[I].Size)
              .str());
    return createStringError(
        formatv("{0} lies at offset {1}, not aligned for a {2} (alignment "
                "{3})",
                Which, A.Offset, Args[I].Type, Args[I].Align)
            .str());
  }

  // The geometry.
  uint64_t Items[3] = {uint64_t(O.Grid.X) * O.Block.X,
                       uint64_t(O.Grid.Y) * O.Block.Y,
                       uint64_t(O.Grid.Z) * O.Block.Z};
  uint64_t BlockItems = uint64_t(O.Block.X) * O.Block.Y * O.Block.Z;
  if (!BlockItems || !Items[0] || !Items[1] || !Items[2])
    return createStringError("kernel '" + K.Demangled +
                             "': empty grid or work-group");
  if (BlockItems > 1024 || O.Block.X > UINT16_MAX || O.Block.Y > UINT16_MAX ||
      O.Block.Z > UINT16_MAX)
    return createStringError(formatv("kernel '{0}': a work-group of {1} "
                                     "work-items is more than 1024",
                                     K.Demangled, BlockItems)
                                 .str());
  for (uint64_t N : Items)
    if (N > UINT32_MAX)
      return createStringError(formatv("kernel '{0}': a grid of {1} "
                                       "work-items on one axis does not fit "
                                       "the dispatch packet (32 bits)",
                                       K.Demangled, N)
                                   .str());

  // The kernarg segment: explicit arguments, then the hidden ones.
  uint32_t KernargBytes = std::max<uint32_t>(K.KernargSize, 16);
  auto Taken = takeSlot(KernargBytes);
  if (!Taken)
    return Taken.takeError();
  Slot Sl = *Taken;
  auto *Bytes = static_cast<uint8_t *>(Sl.Kernarg);
  std::memset(Bytes, 0, KernargBytes);
  for (size_t I = 0; I < Args.size(); ++I)
    std::memcpy(Bytes + K.Explicit[I].Offset, Args[I].Data, Args[I].Size);
  codeobj::HiddenArgumentValues H;
  H.GridItems[0] = Items[0];
  H.GridItems[1] = Items[1];
  H.GridItems[2] = Items[2];
  H.GroupItems[0] = O.Block.X;
  H.GroupItems[1] = O.Block.Y;
  H.GroupItems[2] = O.Block.Z;
  unsigned Dims = std::max(O.Grid.dimensions(), O.Block.dimensions());
  H.Dimensions = Dims;
  H.DynamicLdsBytes = O.DynamicLdsBytes;
  H.QueuePointer = reinterpret_cast<uint64_t>(Queue);
  if (Error E = codeobj::writeHiddenArguments(
          MD, H, MutableArrayRef<uint8_t>(Bytes, KernargBytes))) {
    giveBack(Sl);
    return std::move(E);
  }
  hsa_signal_t Done{Sl.Signal};

  auto *Q = static_cast<hsa_queue_t *>(Queue);
  uint64_t Index;
  hsa_kernel_dispatch_packet_t *P = reserve(Q, Index);
  std::memset(reinterpret_cast<char *>(P) + 4, 0, sizeof(*P) - 4);
  P->workgroup_size_x = O.Block.X;
  P->workgroup_size_y = O.Block.Y;
  P->workgroup_size_z = O.Block.Z;
  P->grid_size_x = Items[0];
  P->grid_size_y = Items[1];
  P->grid_size_z = Items[2];
  P->private_segment_size =
      K.PrivateSize + (MD.UsesDynamicStack.value_or(false)
                           ? DefaultDynamicStack
                           : 0);
  P->group_segment_size = K.GroupSize + O.DynamicLdsBytes;
  P->kernel_object = K.Object;
  P->kernarg_address = Sl.Kernarg;
  P->completion_signal = Done;
  publish(Q, P, Index, HSA_PACKET_TYPE_KERNEL_DISPATCH,
          Dims << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
  return Launch(*this, Sl.Signal, Sl.Kernarg, Sl.Bytes, K.Demangled);
}

//===----------------------------------------------------------------------===//
// Launch
//===----------------------------------------------------------------------===//

Launch::Launch(Launch &&O)
    : S(std::exchange(O.S, nullptr)), Signal(std::exchange(O.Signal, 0)),
      Kernarg(std::exchange(O.Kernarg, nullptr)), KernargBytes(O.KernargBytes),
      KernelName(O.KernelName), Waited(O.Waited) {}

Launch &Launch::operator=(Launch &&O) {
  if (this != &O) {
    release();
    S = std::exchange(O.S, nullptr);
    Signal = std::exchange(O.Signal, 0);
    Kernarg = std::exchange(O.Kernarg, nullptr);
    KernargBytes = O.KernargBytes;
    KernelName = O.KernelName;
    Waited = O.Waited;
  }
  return *this;
}

Launch::~Launch() { release(); }

void Launch::release() {
  if (!S)
    return;
  // A kernel that faulted never completes; its queue is dead and will not
  // read the kernarg segment again.
  consumeError(wait());
  S->giveBack({Signal, Kernarg, KernargBytes});
  S = nullptr;
}

Error Launch::wait() {
  if (!S)
    return createStringError("wait on a launch that was moved from");
  if (Waited)
    return S->status();
  if (Error E = S->waitSignal(Signal, *KernelName))
    return E;
  Waited = true;
  return Error::success();
}

bool Launch::done() const {
  return !S || Waited ||
         hsa_signal_load_scacquire(hsa_signal_t{Signal}) < 1;
}

} // namespace loom::jit
