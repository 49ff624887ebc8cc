//===- tests/runtime/hsa/HsaTestUtil.h - Helpers for the HSA runtime tests ===//
//
// The tests are programs linked against Loom's libhsa-runtime64.so.1 and use
// it through the HSA C API, as any client would. Until the HSA loader is
// wired, kernels are placed with emu::Module on the GPU agent's device
// (found through loom_hsa_device_of_agent).
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TESTS_RUNTIME_HSA_HSATESTUTIL_H
#define LOOM_TESTS_RUNTIME_HSA_HSATESTUTIL_H

#include "loom/emu/Module.h"

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include "gtest/gtest.h"

#include <dlfcn.h>
#include <memory>
#include <vector>

namespace loom::test {

#define ASSERT_HSA(Call) ASSERT_EQ(HSA_STATUS_SUCCESS, (Call))
#define EXPECT_HSA(Call) EXPECT_EQ(HSA_STATUS_SUCCESS, (Call))

/// Collects every handle an HSA iteration function reports.
template <typename Handle, typename Iterate, typename... Args>
std::vector<Handle> collect(Iterate Fn, Args... A) {
  std::vector<Handle> Out;
  Fn(
      A...,
      [](Handle H, void *Data) {
        static_cast<std::vector<Handle> *>(Data)->push_back(H);
        return HSA_STATUS_SUCCESS;
      },
      &Out);
  return Out;
}

inline hsa_device_type_t deviceType(hsa_agent_t A) {
  hsa_device_type_t T;
  hsa_agent_get_info(A, HSA_AGENT_INFO_DEVICE, &T);
  return T;
}

/// hsa_init in SetUp, hsa_shut_down in TearDown; finds the agents and pools
/// a client needs, the way LLVM libc's loader does.
class HsaTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_HSA(hsa_init());
    for (hsa_agent_t A : collect<hsa_agent_t>(hsa_iterate_agents)) {
      if (deviceType(A) == HSA_DEVICE_TYPE_GPU)
        Gpus.push_back(A);
      else
        Cpu = A;
    }
    ASSERT_FALSE(Gpus.empty());
    Gpu = Gpus.front();
    for (auto P : collect<hsa_amd_memory_pool_t>(
             hsa_amd_agent_iterate_memory_pools, Cpu)) {
      uint32_t Flags = 0;
      hsa_amd_memory_pool_get_info(P, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS,
                                   &Flags);
      if (Flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT)
        Kernarg = P;
      else if (Flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED)
        SystemCoarse = P;
    }
    for (auto P : collect<hsa_amd_memory_pool_t>(
             hsa_amd_agent_iterate_memory_pools, Gpu)) {
      hsa_amd_segment_t S;
      hsa_amd_memory_pool_get_info(P, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &S);
      if (S == HSA_AMD_SEGMENT_GLOBAL)
        Vram = P;
    }
    ASSERT_NE(0u, Kernarg.handle);
    ASSERT_NE(0u, Vram.handle);
  }
  void TearDown() override {
    Modules.clear();
    EXPECT_HSA(hsa_shut_down());
  }

  template <typename T = void> T *alloc(hsa_amd_memory_pool_t P, size_t Bytes) {
    void *Ptr = nullptr;
    EXPECT_HSA(hsa_amd_memory_pool_allocate(P, Bytes, 0, &Ptr));
    return static_cast<T *>(Ptr);
  }

  /// The virtual GPU behind \p A.
  static emu::Device &device(hsa_agent_t A) {
    using Fn = void *(*)(uint64_t);
    static Fn F = reinterpret_cast<Fn>(
        dlsym(RTLD_DEFAULT, "loom_hsa_device_of_agent"));
    return *static_cast<emu::Device *>(F(A.handle));
  }

  /// Places the fixture code object \p Name (in LOOM_FIXTURE_DIR) on \p A.
  emu::Module &loadFixture(hsa_agent_t A, const std::string &Name) {
    auto M = emu::Module::loadFile(device(A),
                                   std::string(LOOM_FIXTURE_DIR) + "/" + Name);
    if (!M) {
      ADD_FAILURE() << llvm::toString(M.takeError());
      std::abort();
    }
    if (llvm::Error E = (*M)->resolve([](llvm::StringRef) {
          return std::optional<uint64_t>();
        })) {
      ADD_FAILURE() << llvm::toString(std::move(E));
      std::abort();
    }
    Modules.push_back(std::move(*M));
    return *Modules.back();
  }

  hsa_agent_t Cpu{0}, Gpu{0};
  std::vector<hsa_agent_t> Gpus;
  hsa_amd_memory_pool_t Kernarg{0}, SystemCoarse{0}, Vram{0};
  std::vector<std::unique_ptr<emu::Module>> Modules;
};

/// Writes \p Packet (64 bytes, header included) into \p Q the way clients
/// do: reserve a slot, copy the body, publish the header and setup with one
/// atomic store, ring the doorbell. Returns the packet's index.
template <typename Packet>
uint64_t submit(hsa_queue_t *Q, const Packet &P) {
  static_assert(sizeof(Packet) == 64);
  uint64_t Index = hsa_queue_add_write_index_scacq_screl(Q, 1);
  while (Index - hsa_queue_load_read_index_scacquire(Q) >= Q->size)
    ;
  auto *Slot = static_cast<uint8_t *>(Q->base_address) +
               (Index & (Q->size - 1)) * 64;
  std::memcpy(Slot + 4, reinterpret_cast<const uint8_t *>(&P) + 4, 60);
  uint32_t HeaderAndSetup;
  std::memcpy(&HeaderAndSetup, &P, 4);
  __atomic_store_n(reinterpret_cast<uint32_t *>(Slot), HeaderAndSetup,
                   __ATOMIC_RELEASE);
  hsa_signal_store_screlease(Q->doorbell_signal, int64_t(Index));
  return Index;
}

inline uint16_t header(hsa_packet_type_t Type, bool Barrier = false) {
  return uint16_t(Type << HSA_PACKET_HEADER_TYPE |
                  (Barrier ? 1 : 0) << HSA_PACKET_HEADER_BARRIER |
                  HSA_FENCE_SCOPE_SYSTEM
                      << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE |
                  HSA_FENCE_SCOPE_SYSTEM
                      << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
}

/// A 1D dispatch packet of \p Kernel (a kernel object) over \p N items.
inline hsa_kernel_dispatch_packet_t dispatchPacket(uint64_t Kernel,
                                                   uint32_t N, uint16_t Wg,
                                                   void *Kernarg,
                                                   hsa_signal_t Done) {
  hsa_kernel_dispatch_packet_t P{};
  P.header = header(HSA_PACKET_TYPE_KERNEL_DISPATCH);
  P.setup = 1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS;
  P.workgroup_size_x = Wg;
  P.workgroup_size_y = P.workgroup_size_z = 1;
  P.grid_size_x = N;
  P.grid_size_y = P.grid_size_z = 1;
  P.kernel_object = Kernel;
  P.kernarg_address = Kernarg;
  P.completion_signal = Done;
  return P;
}

} // namespace loom::test

#endif // LOOM_TESTS_RUNTIME_HSA_HSATESTUTIL_H
