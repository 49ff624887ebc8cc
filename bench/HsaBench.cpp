//===- bench/HsaBench.cpp - Dispatch latency and rate through HSA ---------===//
//
// The cost of Loom's HSA runtime around a kernel: an empty kernel dispatched
// through an AQL queue the way HIP and LLVM libc's loader do (packet written,
// header published with a release store, doorbell rung, completion signal
// waited on). Reports the round trip (median, p99) and the rate of 100,000
// back-to-back dispatches, each next to a baseline measured in the same run:
// the same dispatch handed directly to the virtual GPU (emu::Device), which
// is what the runtime adds its queue, packet processor and signals to.
//
//===----------------------------------------------------------------------===//

#include "loom/emu/Module.h"

#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void fail(const char *Step, hsa_status_t S) {
  const char *Text = nullptr;
  hsa_status_string(S, &Text);
  std::fprintf(stderr, "hsa_bench: %s failed: %s\n", Step, Text ? Text : "?");
  std::exit(1);
}
void check(hsa_status_t S, const char *Step) {
  if (S != HSA_STATUS_SUCCESS)
    fail(Step, S);
}

struct Target {
  hsa_agent_t Gpu{};
  hsa_amd_memory_pool_t Kernarg{};
  bool HaveGpu = false, HaveKernarg = false;
};

Target findTarget() {
  Target T;
  check(hsa_iterate_agents(
            [](hsa_agent_t A, void *D) {
              hsa_device_type_t Type;
              hsa_agent_get_info(A, HSA_AGENT_INFO_DEVICE, &Type);
              auto &T = *static_cast<Target *>(D);
              if (Type == HSA_DEVICE_TYPE_GPU && !T.HaveGpu) {
                T.Gpu = A;
                T.HaveGpu = true;
              }
              if (Type == HSA_DEVICE_TYPE_CPU && !T.HaveKernarg)
                hsa_amd_agent_iterate_memory_pools(
                    A,
                    [](hsa_amd_memory_pool_t P, void *D) {
                      uint32_t Flags = 0;
                      hsa_amd_memory_pool_get_info(
                          P, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &Flags);
                      auto &T = *static_cast<Target *>(D);
                      if (Flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) {
                        T.Kernarg = P;
                        T.HaveKernarg = true;
                        return HSA_STATUS_INFO_BREAK;
                      }
                      return HSA_STATUS_SUCCESS;
                    },
                    &T);
              return HSA_STATUS_SUCCESS;
            },
            &T),
        "hsa_iterate_agents");
  if (!T.HaveGpu || !T.HaveKernarg) {
    std::fprintf(stderr, "hsa_bench: no GPU agent or kernarg pool\n");
    std::exit(1);
  }
  return T;
}

uint64_t kernelObject(hsa_agent_t Gpu, const std::string &Path) {
  hsa_file_t Fd = open(Path.c_str(), O_RDONLY);
  if (Fd < 0) {
    std::fprintf(stderr, "hsa_bench: cannot open %s\n", Path.c_str());
    std::exit(1);
  }
  hsa_code_object_reader_t Reader;
  check(hsa_code_object_reader_create_from_file(Fd, &Reader),
        "hsa_code_object_reader_create_from_file");
  hsa_executable_t Exe;
  check(hsa_executable_create_alt(HSA_PROFILE_FULL,
                                  HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                                  nullptr, &Exe),
        "hsa_executable_create_alt");
  check(hsa_executable_load_agent_code_object(Exe, Gpu, Reader, nullptr,
                                              nullptr),
        "hsa_executable_load_agent_code_object");
  check(hsa_executable_freeze(Exe, nullptr), "hsa_executable_freeze");
  hsa_executable_symbol_t Sym;
  check(hsa_executable_get_symbol_by_name(Exe, "empty.kd", &Gpu, &Sym),
        "hsa_executable_get_symbol_by_name(empty.kd)");
  uint64_t Object = 0;
  check(hsa_executable_symbol_get_info(
            Sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &Object),
        "hsa_executable_symbol_get_info(KERNEL_OBJECT)");
  return Object;
}

/// Writes the dispatch packet in slot \p Index and publishes its header.
void submit(hsa_queue_t *Q, uint64_t Object, void *Kernarg,
            hsa_signal_t Completion) {
  uint64_t Index = hsa_queue_add_write_index_relaxed(Q, 1);
  while (Index - hsa_queue_load_read_index_scacquire(Q) >= Q->size)
    ;
  auto *P = static_cast<hsa_kernel_dispatch_packet_t *>(Q->base_address) +
            (Index & (Q->size - 1));
  std::memset(reinterpret_cast<uint8_t *>(P) + 4, 0, sizeof(*P) - 4);
  P->setup = 1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS;
  P->workgroup_size_x = 64;
  P->workgroup_size_y = P->workgroup_size_z = 1;
  P->grid_size_x = 64;
  P->grid_size_y = P->grid_size_z = 1;
  P->kernel_object = Object;
  P->kernarg_address = Kernarg;
  P->completion_signal = Completion;
  uint16_t Header = (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
                    (HSA_FENCE_SCOPE_SYSTEM
                     << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                    (HSA_FENCE_SCOPE_SYSTEM
                     << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
  uint32_t Word = Header | (uint32_t(P->setup) << 16);
  __atomic_store_n(reinterpret_cast<uint32_t *>(P), Word, __ATOMIC_RELEASE);
  hsa_signal_store_screlease(Q->doorbell_signal, int64_t(Index));
}

void wait(hsa_signal_t S, hsa_signal_value_t Below) {
  while (hsa_signal_wait_scacquire(S, HSA_SIGNAL_CONDITION_LT, Below,
                                   UINT64_MAX, HSA_WAIT_STATE_ACTIVE) >= Below)
    ;
}

struct Stats {
  double Median = 0, P99 = 0;
};
Stats stats(std::vector<double> Us) {
  std::sort(Us.begin(), Us.end());
  return {Us[Us.size() / 2], Us[std::min(Us.size() - 1, Us.size() * 99 / 100)]};
}

} // namespace

int main() {
  const unsigned RoundTrips = 20000, BackToBack = 100000;
  std::string Path = std::string(LOOM_BENCH_DIR) + "/throughput.elf";

  // Baseline: the virtual GPU alone.
  std::vector<double> DirectUs;
  double DirectRate = 0;
  {
    loom::emu::DeviceOptions O;
    O.CollectCounters = false;
    auto Dev = loom::emu::Device::create(O);
    auto M = Dev ? loom::emu::Module::loadFile(**Dev, Path)
                 : llvm::Expected<std::unique_ptr<loom::emu::Module>>(
                       Dev.takeError());
    if (!M) {
      std::fprintf(stderr, "hsa_bench: %s\n",
                   llvm::toString(M.takeError()).c_str());
      return 1;
    }
    loom::emu::DispatchParams P;
    P.KernelObject = *(*M)->kernelObject("empty");
    P.GridSize[0] = 64;
    P.WorkgroupSize[0] = 64;
    for (unsigned I = 0; I < RoundTrips; ++I) {
      auto T0 = Clock::now();
      (*Dev)->dispatch(P);
      DirectUs.push_back(
          std::chrono::duration<double, std::micro>(Clock::now() - T0).count());
    }
    auto T0 = Clock::now();
    for (unsigned I = 0; I < BackToBack; ++I)
      (*Dev)->dispatch(P);
    DirectRate = BackToBack /
                 std::chrono::duration<double>(Clock::now() - T0).count();
  }

  check(hsa_init(), "hsa_init");
  Target T = findTarget();
  uint64_t Object = kernelObject(T.Gpu, Path);
  hsa_queue_t *Q = nullptr;
  check(hsa_queue_create(T.Gpu, 4096, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr,
                         UINT32_MAX, UINT32_MAX, &Q),
        "hsa_queue_create");
  void *Kernarg = nullptr;
  check(hsa_amd_memory_pool_allocate(T.Kernarg, 64, 0, &Kernarg),
        "hsa_amd_memory_pool_allocate(kernarg)");
  hsa_signal_t Done;
  check(hsa_signal_create(1, 0, nullptr, &Done), "hsa_signal_create");

  std::vector<double> HsaUs;
  for (unsigned I = 0; I < RoundTrips; ++I) {
    hsa_signal_store_relaxed(Done, 1);
    auto T0 = Clock::now();
    submit(Q, Object, Kernarg, Done);
    wait(Done, 1);
    HsaUs.push_back(
        std::chrono::duration<double, std::micro>(Clock::now() - T0).count());
  }
  hsa_signal_store_relaxed(Done, BackToBack);
  auto T0 = Clock::now();
  for (unsigned I = 0; I < BackToBack; ++I)
    submit(Q, Object, Kernarg, Done);
  wait(Done, 1);
  double HsaRate =
      BackToBack / std::chrono::duration<double>(Clock::now() - T0).count();

  Stats H = stats(HsaUs), D = stats(DirectUs);
  std::printf("%-36s %12s %12s %16s\n", "empty-kernel dispatch", "median",
              "p99", "back-to-back");
  std::printf("%-36s %9.2f us %9.2f us %11.0f /s\n",
              "HSA queue (packet -> signal)", H.Median, H.P99, HsaRate);
  std::printf("%-36s %9.2f us %9.2f us %11.0f /s\n",
              "baseline: emu::Device::dispatch", D.Median, D.P99, DirectRate);
  std::printf("runtime overhead: %.2fx the baseline's median round trip, "
              "%.2fx its rate (target: median <= 2 us)\n",
              H.Median / D.Median, HsaRate / DirectRate);

  hsa_signal_destroy(Done);
  hsa_amd_memory_pool_free(Kernarg);
  hsa_queue_destroy(Q);
  hsa_shut_down();
  return 0;
}
