//===- loom/jit/KernelRef.h - Launch a loaded kernel by its symbol --------===//
//
// Header-only, over the public HSA API (and its AMD loader extension), so
// it works on any HSA runtime -- Loom's virtual GPU or ROCm -- in any
// program, HIP ones included. The use case of LLVM review D86376: a host
// program names a kernel by its own (mangled) symbol, with no
// __device_stub_ and no module handle, and launches it:
//
//   loom::kernel_ref<void(float *, int)> Scale{"_Z5scalePfi"};
//   loom::launch_result R = Scale.launch({Blocks}, {256}, Data, N);
//   hsa_status_t S = R.wait();
//
// The signature is checked at compile time: launch takes exactly its
// parameter types. The symbol is resolved once, on first use, against
// every executable loaded in the process (hsa_ven_amd_loader_iterate_
// executables), and cached. Arguments are laid out as clang lays out
// kernel arguments (each at its natural alignment); hidden arguments
// follow at the next 8-byte boundary when the kernel has them, filled as a
// runtime fills them (code object v5/v6 layout; v4's are zero: global
// offsets and buffers this launcher does not provide).
//
// C++17 (hipcc defaults to C++11: pass -std=c++17). Launches go to one HSA
// queue per agent, shared by every kernel_ref, with
// a ring of preallocated kernarg slots and completion signals: a launch
// allocates nothing. Errors are hsa_status_t values, as in the HSA API.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_JIT_KERNELREF_H
#define LOOM_JIT_KERNELREF_H

#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"
#include "hsa/hsa_ven_amd_loader.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <tuple>
#include <type_traits>

namespace loom {

struct dim3 {
  uint32_t x = 1, y = 1, z = 1;
  constexpr dim3(uint32_t X = 1, uint32_t Y = 1, uint32_t Z = 1)
      : x(X), y(Y), z(Z) {}
};

namespace detail {

/// The launch machinery of one GPU agent: a queue and a ring of slots, each
/// a completion signal and a kernarg buffer, reused once their launch has
/// completed.
class agent_launcher {
public:
  static constexpr uint32_t Slots = 256;
  static constexpr uint32_t KernargBytes = 4096;

  hsa_status_t init(hsa_agent_t A) {
    Agent = A;
    hsa_status_t S = findKernargPool();
    if (S != HSA_STATUS_SUCCESS)
      return S;
    S = hsa_amd_memory_pool_allocate(KernargPool, size_t(Slots) * KernargBytes,
                                     0, reinterpret_cast<void **>(&Kernargs));
    if (S != HSA_STATUS_SUCCESS)
      return S;
    hsa_amd_agents_allow_access(1, &Agent, nullptr, Kernargs);
    for (uint32_t I = 0; I < Slots; ++I)
      if ((S = hsa_signal_create(0, 0, nullptr, &Signals[I])) !=
          HSA_STATUS_SUCCESS)
        return S;
    return hsa_queue_create(Agent, 4096, HSA_QUEUE_TYPE_MULTI, nullptr,
                            nullptr, UINT32_MAX, UINT32_MAX, &Queue);
  }

  /// Takes the next slot, waiting for its previous launch to complete.
  uint32_t acquire(uint8_t *&Kernarg, hsa_signal_t &Signal) {
    uint32_t Slot = Next.fetch_add(1, std::memory_order_relaxed) % Slots;
    Signal = Signals[Slot];
    while (hsa_signal_wait_scacquire(Signal, HSA_SIGNAL_CONDITION_LT, 1,
                                     UINT64_MAX, HSA_WAIT_STATE_ACTIVE) >= 1)
      ;
    hsa_signal_store_relaxed(Signal, 1);
    Kernarg = Kernargs + size_t(Slot) * KernargBytes;
    return Slot;
  }

  void submit(const hsa_kernel_dispatch_packet_t &Packet, uint16_t Header,
              uint16_t Setup) {
    uint64_t Index = hsa_queue_add_write_index_relaxed(Queue, 1);
    while (Index - hsa_queue_load_read_index_scacquire(Queue) >= Queue->size)
      ;
    auto *P = static_cast<hsa_kernel_dispatch_packet_t *>(
                  Queue->base_address) +
              (Index & (Queue->size - 1));
    std::memcpy(reinterpret_cast<char *>(P) + 4,
                reinterpret_cast<const char *>(&Packet) + 4,
                sizeof(Packet) - 4);
    __atomic_store_n(reinterpret_cast<uint32_t *>(P),
                     uint32_t(Header) | (uint32_t(Setup) << 16),
                     __ATOMIC_RELEASE);
    hsa_signal_store_screlease(Queue->doorbell_signal, Index);
  }

  hsa_queue_t *queue() const { return Queue; }

private:
  hsa_status_t findKernargPool() {
    // ROCr keeps the kernarg pool on the CPU agent; Loom on both.
    auto AgentCb = [](hsa_agent_t A, void *D) -> hsa_status_t {
      auto *Pool = static_cast<hsa_amd_memory_pool_t *>(D);
      hsa_amd_agent_iterate_memory_pools(
          A,
          [](hsa_amd_memory_pool_t P, void *D2) -> hsa_status_t {
            hsa_amd_segment_t Seg;
            uint32_t Flags = 0;
            hsa_amd_memory_pool_get_info(P, HSA_AMD_MEMORY_POOL_INFO_SEGMENT,
                                         &Seg);
            hsa_amd_memory_pool_get_info(
                P, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &Flags);
            if (Seg == HSA_AMD_SEGMENT_GLOBAL &&
                (Flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT)) {
              *static_cast<hsa_amd_memory_pool_t *>(D2) = P;
              return HSA_STATUS_INFO_BREAK;
            }
            return HSA_STATUS_SUCCESS;
          },
          Pool);
      return Pool->handle ? HSA_STATUS_INFO_BREAK : HSA_STATUS_SUCCESS;
    };
    KernargPool.handle = 0;
    hsa_iterate_agents(AgentCb, &KernargPool);
    return KernargPool.handle ? HSA_STATUS_SUCCESS
                              : HSA_STATUS_ERROR_INVALID_AGENT;
  }

  hsa_agent_t Agent{};
  hsa_amd_memory_pool_t KernargPool{};
  hsa_queue_t *Queue = nullptr;
  uint8_t *Kernargs = nullptr;
  hsa_signal_t Signals[Slots] = {};
  std::atomic<uint32_t> Next{0};
};

/// The launcher of \p Agent, created on first use and kept for the
/// process (a few hundred bytes of HSA objects).
inline hsa_status_t launcher_for(hsa_agent_t Agent, agent_launcher *&Out) {
  static std::mutex M;
  static struct {
    uint64_t Agent;
    agent_launcher *L;
  } Known[16];
  static unsigned Count = 0;
  std::lock_guard<std::mutex> Lock(M);
  for (unsigned I = 0; I < Count; ++I)
    if (Known[I].Agent == Agent.handle) {
      Out = Known[I].L;
      return HSA_STATUS_SUCCESS;
    }
  if (Count == 16)
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  auto *L = new agent_launcher();
  hsa_status_t S = L->init(Agent);
  if (S != HSA_STATUS_SUCCESS) {
    delete L;
    return S;
  }
  Known[Count++] = {Agent.handle, L};
  Out = L;
  return HSA_STATUS_SUCCESS;
}

/// A resolved kernel: what a dispatch packet and its kernarg need.
struct resolved_kernel {
  hsa_agent_t Agent{};
  uint64_t Object = 0;
  uint32_t KernargSize = 0, GroupSize = 0, PrivateSize = 0;
  unsigned CodeObjectVersion = 0; ///< 4, 5, 6; 0 if unknown
  agent_launcher *Launcher = nullptr;
};

/// Finds \p Symbol (a kernel's symbol, with or without ".kd") in the
/// executables loaded in this process.
inline hsa_status_t resolve_kernel(const char *Symbol, resolved_kernel &R) {
  hsa_ven_amd_loader_1_03_pfn_t Loader;
  hsa_status_t S = hsa_system_get_major_extension_table(
      HSA_EXTENSION_AMD_LOADER, 1, sizeof(Loader), &Loader);
  if (S != HSA_STATUS_SUCCESS)
    return S;
  struct Search {
    std::string Kd, Plain;
    hsa_ven_amd_loader_1_03_pfn_t *Loader;
    resolved_kernel *R;
    bool Found;
  } Ctx{std::string(Symbol), std::string(Symbol), &Loader, &R, false};
  size_t Len = Ctx.Plain.size();
  if (Len > 3 && Ctx.Plain.compare(Len - 3, 3, ".kd") == 0)
    Ctx.Plain.resize(Len - 3);
  else
    Ctx.Kd += ".kd";

  auto PerExecutable = [](hsa_executable_t E, void *D) -> hsa_status_t {
    auto *C = static_cast<Search *>(D);
    struct PerAgent {
      Search *C;
      hsa_executable_t E;
    } PA{C, E};
    auto AgentCb = [](hsa_agent_t A, void *D2) -> hsa_status_t {
      auto *PA = static_cast<PerAgent *>(D2);
      hsa_device_type_t T;
      if (hsa_agent_get_info(A, HSA_AGENT_INFO_DEVICE, &T) !=
              HSA_STATUS_SUCCESS ||
          T != HSA_DEVICE_TYPE_GPU)
        return HSA_STATUS_SUCCESS;
      hsa_executable_symbol_t Sym;
      if (hsa_executable_get_symbol_by_name(PA->E, PA->C->Kd.c_str(), &A,
                                            &Sym) != HSA_STATUS_SUCCESS &&
          hsa_executable_get_symbol_by_name(PA->E, PA->C->Plain.c_str(), &A,
                                            &Sym) != HSA_STATUS_SUCCESS)
        return HSA_STATUS_SUCCESS;
      hsa_symbol_kind_t Kind;
      hsa_executable_symbol_get_info(Sym, HSA_EXECUTABLE_SYMBOL_INFO_TYPE,
                                     &Kind);
      if (Kind != HSA_SYMBOL_KIND_KERNEL)
        return HSA_STATUS_SUCCESS;
      resolved_kernel &R = *PA->C->R;
      R.Agent = A;
      hsa_executable_symbol_get_info(
          Sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &R.Object);
      hsa_executable_symbol_get_info(
          Sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE,
          &R.KernargSize);
      hsa_executable_symbol_get_info(
          Sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE,
          &R.GroupSize);
      hsa_executable_symbol_get_info(
          Sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE,
          &R.PrivateSize);
      // The code object version decides the hidden argument layout: the
      // ELF header's EI_ABIVERSION (2: v4, 3: v5, 4: v6) of the code object
      // whose loaded image holds the kernel descriptor.
      auto PerCodeObject = [](hsa_executable_t, hsa_loaded_code_object_t LCO,
                              void *D3) -> hsa_status_t {
        auto *PA = static_cast<PerAgent *>(D3);
        auto Info = [&](hsa_ven_amd_loader_loaded_code_object_info_t What) {
          uint64_t V = 0;
          PA->C->Loader->hsa_ven_amd_loader_loaded_code_object_get_info(
              LCO, What, &V);
          return V;
        };
        uint64_t Load = Info(
            HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_BASE);
        uint64_t LoadSize = Info(
            HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_SIZE);
        uint64_t Object = PA->C->R->Object;
        if (Object < Load || Object - Load >= LoadSize)
          return HSA_STATUS_SUCCESS;
        uint64_t Base = Info(
            HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_MEMORY_BASE);
        uint64_t Size = Info(
            HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_MEMORY_SIZE);
        if (Base && Size >= 16)
          PA->C->R->CodeObjectVersion =
              reinterpret_cast<const uint8_t *>(Base)[8] + 2;
        return HSA_STATUS_INFO_BREAK;
      };
      PA->C->Loader->hsa_ven_amd_loader_executable_iterate_loaded_code_objects(
          PA->E, PerCodeObject, PA);
      PA->C->Found = true;
      return HSA_STATUS_INFO_BREAK;
    };
    hsa_iterate_agents(AgentCb, &PA);
    return C->Found ? HSA_STATUS_INFO_BREAK : HSA_STATUS_SUCCESS;
  };
  Loader.hsa_ven_amd_loader_iterate_executables(PerExecutable, &Ctx);
  if (!Ctx.Found)
    return HSA_STATUS_ERROR_INVALID_SYMBOL_NAME;
  return launcher_for(R.Agent, R.Launcher);
}

template <typename T> constexpr size_t align_up(size_t X) {
  return (X + alignof(T) - 1) / alignof(T) * alignof(T);
}

/// Places \p V at its natural alignment after \p Offset.
template <typename T> void place(uint8_t *Kernarg, size_t &Offset, const T &V) {
  static_assert(std::is_trivially_copyable<T>::value,
                "kernel arguments are copied bytewise");
  Offset = align_up<T>(Offset);
  std::memcpy(Kernarg + Offset, &V, sizeof(T));
  Offset += sizeof(T);
}

template <typename... Args> constexpr size_t explicit_size() {
  size_t Offset = 0;
  ((Offset = align_up<Args>(Offset) + sizeof(Args)), ...);
  return Offset;
}

template <typename T> void put(uint8_t *P, T V) { std::memcpy(P, &V, sizeof V); }

} // namespace detail

/// A submitted launch. wait() blocks until it completes.
class launch_result {
public:
  launch_result(hsa_status_t S, hsa_signal_t Signal = {})
      : Status(S), Signal(Signal) {}
  hsa_status_t status() const { return Status; }
  /// Waits for completion; the status of the launch.
  hsa_status_t wait() const {
    if (Status != HSA_STATUS_SUCCESS)
      return Status;
    while (hsa_signal_wait_scacquire(Signal, HSA_SIGNAL_CONDITION_LT, 1,
                                     UINT64_MAX, HSA_WAIT_STATE_ACTIVE) >= 1)
      ;
    return HSA_STATUS_SUCCESS;
  }

private:
  hsa_status_t Status;
  hsa_signal_t Signal;
};

template <typename Signature> class kernel_ref;

/// A kernel of signature void(Args...), named by its symbol.
template <typename... Args> class kernel_ref<void(Args...)> {
public:
  explicit kernel_ref(const char *Symbol) : Symbol(Symbol) {}

  const char *symbol() const { return Symbol; }

  /// Resolves the symbol now (launch does it on first use). Thread-safe.
  hsa_status_t resolve() {
    std::call_once(Once, [this] {
      Status = detail::resolve_kernel(Symbol, Kernel);
      if (Status == HSA_STATUS_SUCCESS &&
          (detail::explicit_size<Args...>() > Kernel.KernargSize ||
           Kernel.KernargSize > detail::agent_launcher::KernargBytes))
        Status = HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS;
    });
    return Status;
  }

  /// Launches \p Grid work-groups of \p Block work-items, with
  /// \p DynamicLds bytes of dynamic LDS.
  launch_result launch(dim3 Grid, dim3 Block, Args... A) {
    return launch_with_lds(Grid, Block, 0, A...);
  }
  launch_result launch_with_lds(dim3 Grid, dim3 Block, uint32_t DynamicLds,
                                Args... A) {
    if (hsa_status_t S = resolve(); S != HSA_STATUS_SUCCESS)
      return launch_result(S);
    uint64_t Items[3] = {uint64_t(Grid.x) * Block.x,
                         uint64_t(Grid.y) * Block.y,
                         uint64_t(Grid.z) * Block.z};
    if (!Items[0] || !Items[1] || !Items[2] || Items[0] > UINT32_MAX ||
        Items[1] > UINT32_MAX || Items[2] > UINT32_MAX ||
        uint64_t(Block.x) * Block.y * Block.z > 1024)
      return launch_result(HSA_STATUS_ERROR_INVALID_ARGUMENT);
    uint8_t *KA;
    hsa_signal_t Done;
    Kernel.Launcher->acquire(KA, Done);
    size_t Offset = 0;
    (detail::place(KA, Offset, A), ...);
    uint16_t Dims = Grid.z * Block.z > 1 ? 3 : Grid.y * Block.y > 1 ? 2 : 1;
    if (Kernel.KernargSize > Offset) {
      size_t H = (Offset + 7) & ~size_t(7);
      std::memset(KA + Offset, 0, Kernel.KernargSize - Offset);
      if (Kernel.CodeObjectVersion >= 5 && Kernel.KernargSize >= H + 66) {
        uint32_t N[3] = {Grid.x, Grid.y, Grid.z};
        uint16_t G[3] = {uint16_t(Block.x), uint16_t(Block.y),
                         uint16_t(Block.z)};
        for (int D = 0; D < 3; ++D) {
          detail::put<uint32_t>(KA + H + 4 * D, N[D]);
          detail::put<uint16_t>(KA + H + 12 + 2 * D, G[D]);
        }
        detail::put<uint16_t>(KA + H + 64, Dims);
        if (Kernel.KernargSize >= H + 124)
          detail::put<uint32_t>(KA + H + 120, DynamicLds);
        if (Kernel.KernargSize >= H + 208)
          detail::put<uint64_t>(
              KA + H + 200,
              reinterpret_cast<uint64_t>(Kernel.Launcher->queue()));
      }
    }
    hsa_kernel_dispatch_packet_t P{};
    P.workgroup_size_x = Block.x;
    P.workgroup_size_y = Block.y;
    P.workgroup_size_z = Block.z;
    P.grid_size_x = Items[0];
    P.grid_size_y = Items[1];
    P.grid_size_z = Items[2];
    P.private_segment_size = Kernel.PrivateSize;
    P.group_segment_size = Kernel.GroupSize + DynamicLds;
    P.kernel_object = Kernel.Object;
    P.kernarg_address = KA;
    P.completion_signal = Done;
    uint16_t Header =
        (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
        (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
        (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
    Kernel.Launcher->submit(P, Header,
                            Dims << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
    return launch_result(HSA_STATUS_SUCCESS, Done);
  }

private:
  const char *Symbol;
  std::once_flag Once;
  hsa_status_t Status = HSA_STATUS_ERROR_NOT_INITIALIZED;
  detail::resolved_kernel Kernel;
};

} // namespace loom

#endif // LOOM_JIT_KERNELREF_H
