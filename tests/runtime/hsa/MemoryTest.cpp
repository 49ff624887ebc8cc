//===- tests/runtime/hsa/MemoryTest.cpp - Pools, regions, copies ----------===//

#include "HsaTestUtil.h"

#include <cstring>
#include <numeric>

using namespace loom::test;

namespace {

class MemoryTest : public HsaTest {
protected:
  hsa_signal_t make(int64_t V) {
    hsa_signal_t S;
    EXPECT_HSA(hsa_signal_create(V, 0, nullptr, &S));
    return S;
  }
};

TEST_F(MemoryTest, PoolsAndAccess) {
  hsa_amd_memory_pool_access_t Access;
  ASSERT_HSA(hsa_amd_agent_memory_pool_get_info(
      Gpu, Vram, HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS, &Access));
  EXPECT_EQ(HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT, Access);
  ASSERT_HSA(hsa_amd_agent_memory_pool_get_info(
      Cpu, Vram, HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS, &Access));
  EXPECT_EQ(HSA_AMD_MEMORY_POOL_ACCESS_DISALLOWED_BY_DEFAULT, Access);
  ASSERT_HSA(hsa_amd_agent_memory_pool_get_info(
      Gpu, Kernarg, HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS, &Access));
  EXPECT_EQ(HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT, Access);
  size_t Size = 0, Granule = 0;
  bool Allowed = false;
  EXPECT_HSA(hsa_amd_memory_pool_get_info(Vram, HSA_AMD_MEMORY_POOL_INFO_SIZE,
                                          &Size));
  EXPECT_EQ(64ull << 30, Size);
  EXPECT_HSA(hsa_amd_memory_pool_get_info(
      Vram, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE, &Granule));
  EXPECT_EQ(4096u, Granule);
  EXPECT_HSA(hsa_amd_memory_pool_get_info(
      Vram, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &Allowed));
  EXPECT_TRUE(Allowed);
}

TEST_F(MemoryTest, RegionsOfTheGpuIncludeKernarg) {
  bool FoundKernarg = false;
  for (hsa_region_t R :
       collect<hsa_region_t>(hsa_agent_iterate_regions, Gpu)) {
    uint32_t Flags = 0;
    hsa_region_segment_t Seg;
    ASSERT_HSA(hsa_region_get_info(R, HSA_REGION_INFO_SEGMENT, &Seg));
    if (Seg != HSA_REGION_SEGMENT_GLOBAL)
      continue;
    ASSERT_HSA(hsa_region_get_info(R, HSA_REGION_INFO_GLOBAL_FLAGS, &Flags));
    if (Flags & HSA_REGION_GLOBAL_FLAG_KERNARG) {
      FoundKernarg = true;
      void *P = nullptr;
      ASSERT_HSA(hsa_memory_allocate(R, 100, &P));
      std::memset(P, 0xab, 100);
      EXPECT_HSA(hsa_memory_free(P));
    }
  }
  EXPECT_TRUE(FoundKernarg);
}

TEST_F(MemoryTest, PointerInfoAndUserData) {
  char *P = alloc<char>(Vram, 10000);
  hsa_amd_pointer_info_t Info{};
  Info.size = sizeof(Info);
  hsa_agent_t *Agents = nullptr;
  uint32_t NumAgents = 0;
  ASSERT_HSA(hsa_amd_pointer_info(P + 1234, &Info, malloc, &NumAgents, &Agents));
  EXPECT_EQ(HSA_EXT_POINTER_TYPE_HSA, Info.type);
  EXPECT_EQ(P, Info.agentBaseAddress);
  EXPECT_EQ(P, Info.hostBaseAddress);
  EXPECT_EQ(10000u, Info.sizeInBytes);
  EXPECT_EQ(Gpu.handle, Info.agentOwner.handle);
  EXPECT_EQ(1u, NumAgents); // VRAM: only its GPU until allowed
  free(Agents);
  ASSERT_HSA(hsa_amd_agents_allow_access(1, &Cpu, nullptr, P));
  ASSERT_HSA(hsa_amd_pointer_info(P, &Info, malloc, &NumAgents, &Agents));
  EXPECT_EQ(2u, NumAgents);
  free(Agents);
  int Tag;
  ASSERT_HSA(hsa_amd_pointer_info_set_userdata(P, &Tag));
  ASSERT_HSA(hsa_amd_pointer_info(P, &Info, nullptr, nullptr, nullptr));
  EXPECT_EQ(&Tag, Info.userData);
  int Local;
  ASSERT_HSA(hsa_amd_pointer_info(&Local, &Info, nullptr, nullptr, nullptr));
  EXPECT_EQ(HSA_EXT_POINTER_TYPE_UNKNOWN, Info.type);
  EXPECT_HSA(hsa_amd_memory_pool_free(P));
}

TEST_F(MemoryTest, LockUnlockAndFill) {
  std::vector<uint32_t> Host(1000, 0);
  void *AgentPtr = nullptr;
  ASSERT_HSA(hsa_amd_memory_lock(Host.data(), Host.size() * 4, &Gpu, 1,
                                 &AgentPtr));
  hsa_amd_pointer_info_t Info{};
  Info.size = sizeof(Info);
  ASSERT_HSA(hsa_amd_pointer_info(Host.data(), &Info, nullptr, nullptr, nullptr));
  EXPECT_EQ(HSA_EXT_POINTER_TYPE_LOCKED, Info.type);
  ASSERT_HSA(hsa_amd_memory_fill(AgentPtr, 0xdeadbeef, 500));
  for (size_t I = 0; I < Host.size(); ++I)
    ASSERT_EQ(I < 500 ? 0xdeadbeefu : 0u, Host[I]);
  EXPECT_HSA(hsa_amd_memory_unlock(Host.data()));
  EXPECT_EQ(HSA_STATUS_ERROR_INVALID_ARGUMENT,
            hsa_amd_memory_unlock(Host.data()));
}

TEST_F(MemoryTest, AsyncCopyWaitsForDependencies) {
  constexpr size_t N = 1 << 16;
  auto *A = alloc<uint8_t>(Kernarg, N), *B = alloc<uint8_t>(Vram, N),
       *C = alloc<uint8_t>(Kernarg, N);
  for (size_t I = 0; I < N; ++I)
    A[I] = uint8_t(I * 13 + 5);
  hsa_signal_t Gate = make(1), First = make(1), Second = make(1);
  // A -> B after the gate; B -> C after the first copy.
  ASSERT_HSA(hsa_amd_memory_async_copy(B, Gpu, A, Cpu, N, 1, &Gate, First));
  ASSERT_HSA(hsa_amd_memory_async_copy(C, Cpu, B, Gpu, N, 1, &First, Second));
  EXPECT_EQ(1, hsa_signal_wait_scacquire(First, HSA_SIGNAL_CONDITION_EQ, 0,
                                         30'000'000, HSA_WAIT_STATE_BLOCKED));
  EXPECT_EQ(0, B[N - 1] | B[0]); // nothing copied before the gate opens
  hsa_signal_store_screlease(Gate, 0);
  ASSERT_EQ(0, hsa_signal_wait_scacquire(Second, HSA_SIGNAL_CONDITION_EQ, 0,
                                         UINT64_MAX, HSA_WAIT_STATE_BLOCKED));
  EXPECT_EQ(0, std::memcmp(A, C, N));
  for (hsa_signal_t S : {Gate, First, Second})
    hsa_signal_destroy(S);
}

TEST_F(MemoryTest, AsyncCopyProfiling) {
  ASSERT_HSA(hsa_amd_profiling_async_copy_enable(true));
  std::vector<char> Src(1 << 20, 'x'), Dst(1 << 20, 0);
  hsa_signal_t Done = make(1);
  uint64_t Before = 0, After = 0;
  hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &Before);
  ASSERT_HSA(hsa_amd_memory_async_copy(Dst.data(), Cpu, Src.data(), Cpu,
                                       Src.size(), 0, nullptr, Done));
  ASSERT_EQ(0, hsa_signal_wait_scacquire(Done, HSA_SIGNAL_CONDITION_EQ, 0,
                                         UINT64_MAX, HSA_WAIT_STATE_BLOCKED));
  hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &After);
  hsa_amd_profiling_async_copy_time_t T;
  ASSERT_HSA(hsa_amd_profiling_get_async_copy_time(Done, &T));
  EXPECT_LE(Before, T.start);
  EXPECT_LE(T.start, T.end);
  EXPECT_LE(T.end, After);
  EXPECT_EQ(Src, Dst);
  EXPECT_HSA(hsa_amd_profiling_async_copy_enable(false));
  hsa_signal_destroy(Done);
}

TEST_F(MemoryTest, AsyncCopyRect) {
  // A 3D box (16 x 5 x 3 bytes) out of a pitched source into another.
  constexpr size_t SrcPitch = 64, SrcSlice = 64 * 8, DstPitch = 32,
                   DstSlice = 32 * 6;
  std::vector<uint8_t> Src(SrcSlice * 4), Dst(DstSlice * 4, 0);
  std::iota(Src.begin(), Src.end(), 0);
  hsa_pitched_ptr_t S{Src.data(), SrcPitch, SrcSlice};
  hsa_pitched_ptr_t D{Dst.data(), DstPitch, DstSlice};
  hsa_dim3_t SO{3, 2, 1}, DO{5, 1, 0}, R{16, 5, 3};
  hsa_signal_t Done = make(1);
  ASSERT_HSA(hsa_amd_memory_async_copy_rect(&D, &DO, &S, &SO, &R, Gpu,
                                            hsaHostToHost, 0, nullptr, Done));
  ASSERT_EQ(0, hsa_signal_wait_scacquire(Done, HSA_SIGNAL_CONDITION_EQ, 0,
                                         UINT64_MAX, HSA_WAIT_STATE_BLOCKED));
  for (size_t Z = 0; Z < 4; ++Z)
    for (size_t Y = 0; Y < 6; ++Y)
      for (size_t X = 0; X < DstPitch; ++X) {
        bool Inside = Z >= DO.z && Z < DO.z + R.z && Y >= DO.y &&
                      Y < DO.y + R.y && X >= DO.x && X < DO.x + R.x;
        uint8_t Want =
            Inside ? Src[(Z - DO.z + SO.z) * SrcSlice +
                         (Y - DO.y + SO.y) * SrcPitch + (X - DO.x + SO.x)]
                   : 0;
        ASSERT_EQ(Want, Dst[Z * DstSlice + Y * DstPitch + X]);
      }
  hsa_signal_destroy(Done);
}

} // namespace
