//===- fuzz/fuzz_loader.cpp - libFuzzer target for the HSA loader path ----===//
//
// Feeds arbitrary bytes through Loom's HSA runtime as a client would:
// hsa_code_object_reader_create_from_memory, load into an executable,
// freeze, then dispatch every kernel it defines (one work-group, zeroed
// kernel arguments) and wait. Every step may fail with an HSA status and a
// kernel may fault or run away (LOOM_KERNEL_TIMEOUT ends it); the process
// must not die. The runtime (libhsa-runtime64) is not instrumented, so
// libFuzzer is guided only by the instrumented codeobj/ parsers; the
// sanitizers still watch the whole process.
//
//===----------------------------------------------------------------------===//

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

struct Runtime {
  hsa_agent_t Gpu{0};
  hsa_amd_memory_pool_t Kernarg{0};
  hsa_queue_t *Queue = nullptr;
};

hsa_status_t findGpu(hsa_agent_t A, void *Data) {
  hsa_device_type_t T;
  if (hsa_agent_get_info(A, HSA_AGENT_INFO_DEVICE, &T) == HSA_STATUS_SUCCESS &&
      T == HSA_DEVICE_TYPE_GPU)
    static_cast<Runtime *>(Data)->Gpu = A;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t findKernargPool(hsa_amd_memory_pool_t P, void *Data) {
  uint32_t Flags = 0;
  if (hsa_amd_memory_pool_get_info(P, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS,
                                   &Flags) == HSA_STATUS_SUCCESS &&
      (Flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT))
    static_cast<Runtime *>(Data)->Kernarg = P;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t findCpuPools(hsa_agent_t A, void *Data) {
  hsa_device_type_t T;
  if (hsa_agent_get_info(A, HSA_AGENT_INFO_DEVICE, &T) == HSA_STATUS_SUCCESS &&
      T == HSA_DEVICE_TYPE_CPU)
    hsa_amd_agent_iterate_memory_pools(A, findKernargPool, Data);
  return HSA_STATUS_SUCCESS;
}

void check(hsa_status_t S, const char *What) {
  if (S != HSA_STATUS_SUCCESS) {
    std::fprintf(stderr, "fuzz_loader: %s failed: 0x%x\n", What, unsigned(S));
    std::abort();
  }
}

Runtime &runtime() {
  static Runtime *R = [] {
    // A runaway kernel ends after a second; faults complete the packet
    // (recorded, not a queue error), so one queue serves every input.
    setenv("LOOM_KERNEL_TIMEOUT", "1", 0);
    setenv("LOOM_KERNEL_FAULTS", "report", 0);
    setenv("LOOM_GPU_THREADS", "1", 0);
    check(hsa_init(), "hsa_init");
    auto *R = new Runtime;
    check(hsa_iterate_agents(findGpu, R), "hsa_iterate_agents");
    check(hsa_iterate_agents(findCpuPools, R), "finding the kernarg pool");
    check(hsa_queue_create(R->Gpu, 64, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr,
                           UINT32_MAX, UINT32_MAX, &R->Queue),
          "hsa_queue_create");
    return R;
  }();
  return *R;
}

struct Kernels {
  std::vector<hsa_executable_symbol_t> Symbols;
};

hsa_status_t collectKernel(hsa_executable_t, hsa_agent_t,
                           hsa_executable_symbol_t S, void *Data) {
  hsa_symbol_kind_t Kind;
  if (hsa_executable_symbol_get_info(S, HSA_EXECUTABLE_SYMBOL_INFO_TYPE,
                                     &Kind) == HSA_STATUS_SUCCESS &&
      Kind == HSA_SYMBOL_KIND_KERNEL)
    static_cast<Kernels *>(Data)->Symbols.push_back(S);
  return HSA_STATUS_SUCCESS;
}

void dispatch(Runtime &R, hsa_executable_symbol_t S) {
  uint64_t Object = 0;
  uint32_t KernargSize = 0, Group = 0, Private = 0;
  if (hsa_executable_symbol_get_info(
          S, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &Object) ||
      hsa_executable_symbol_get_info(
          S, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE,
          &KernargSize) ||
      hsa_executable_symbol_get_info(
          S, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE, &Group) ||
      hsa_executable_symbol_get_info(
          S, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE, &Private))
    return;
  void *Args = nullptr;
  size_t Bytes = std::min<uint32_t>(std::max<uint32_t>(KernargSize, 256), 4096);
  if (hsa_amd_memory_pool_allocate(R.Kernarg, Bytes, 0, &Args))
    return;
  std::memset(Args, 0, Bytes);
  hsa_signal_t Done;
  check(hsa_signal_create(1, 0, nullptr, &Done), "hsa_signal_create");
  hsa_kernel_dispatch_packet_t P{};
  P.setup = 1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS;
  P.workgroup_size_x = 64;
  P.workgroup_size_y = P.workgroup_size_z = 1;
  P.grid_size_x = 64;
  P.grid_size_y = P.grid_size_z = 1;
  P.group_segment_size = Group > 65536 ? 65536 : Group;
  P.private_segment_size = Private;
  P.kernel_object = Object;
  P.kernarg_address = Args;
  P.completion_signal = Done;
  uint64_t Index = hsa_queue_add_write_index_relaxed(R.Queue, 1);
  auto *Slot = static_cast<hsa_kernel_dispatch_packet_t *>(
                   R.Queue->base_address) +
               (Index & (R.Queue->size - 1));
  std::memcpy(reinterpret_cast<uint8_t *>(Slot) + 4,
              reinterpret_cast<uint8_t *>(&P) + 4, sizeof(P) - 4);
  uint16_t Header = HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE |
                    HSA_FENCE_SCOPE_SYSTEM
                        << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE |
                    HSA_FENCE_SCOPE_SYSTEM
                        << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE;
  __atomic_store_n(reinterpret_cast<uint32_t *>(Slot),
                   uint32_t(Header) | uint32_t(P.setup) << 16,
                   __ATOMIC_RELEASE);
  hsa_signal_store_screlease(R.Queue->doorbell_signal, int64_t(Index));
  // The watchdog ends a runaway kernel after a second; a packet the queue
  // refused never completes, so the wait is bounded too.
  hsa_signal_wait_scacquire(Done, HSA_SIGNAL_CONDITION_EQ, 0,
                            5'000'000'000ull, HSA_WAIT_STATE_BLOCKED);
  bool Completed = hsa_signal_load_relaxed(Done) == 0;
  hsa_signal_destroy(Done);
  hsa_amd_memory_pool_free(Args);
  if (!Completed) {
    // The queue is in error (an invalid packet): start a fresh one.
    hsa_queue_destroy(R.Queue);
    check(hsa_queue_create(R.Gpu, 64, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr,
                           UINT32_MAX, UINT32_MAX, &R.Queue),
          "hsa_queue_create");
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  Runtime &R = runtime();
  hsa_code_object_reader_t Reader;
  if (hsa_code_object_reader_create_from_memory(Data, Size, &Reader))
    return 0;
  hsa_executable_t Exe;
  check(hsa_executable_create_alt(HSA_PROFILE_FULL,
                                  HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                                  nullptr, &Exe),
        "hsa_executable_create_alt");
  if (hsa_executable_load_agent_code_object(Exe, R.Gpu, Reader, nullptr,
                                            nullptr) == HSA_STATUS_SUCCESS &&
      hsa_executable_freeze(Exe, nullptr) == HSA_STATUS_SUCCESS) {
    Kernels K;
    hsa_executable_iterate_agent_symbols(Exe, R.Gpu, collectKernel, &K);
    for (hsa_executable_symbol_t S : K.Symbols)
      dispatch(R, S);
  }
  check(hsa_executable_destroy(Exe), "hsa_executable_destroy");
  check(hsa_code_object_reader_destroy(Reader), "hsa_code_object_reader_destroy");
  return 0;
}
