//===- tests/runtime/hsa/ApiMisuseTest.cpp - Bad input gets a status ------===//

#include "HsaTestUtil.h"

#include <hsa/hsa_ven_amd_loader.h>

#include <cstring>

using namespace loom::test;

namespace {

TEST(ApiBeforeInit, AnswersNotInitialized) {
  hsa_signal_t S;
  EXPECT_EQ(HSA_STATUS_ERROR_NOT_INITIALIZED,
            hsa_signal_create(0, 0, nullptr, &S));
  EXPECT_EQ(HSA_STATUS_ERROR_NOT_INITIALIZED,
            hsa_iterate_agents([](hsa_agent_t, void *) {
              return HSA_STATUS_SUCCESS;
            }, nullptr));
  uint16_t V;
  EXPECT_EQ(HSA_STATUS_ERROR_NOT_INITIALIZED,
            hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &V));
  EXPECT_EQ(HSA_STATUS_ERROR_NOT_INITIALIZED, hsa_shut_down());
  hsa_ext_image_t Image;
  EXPECT_EQ(HSA_STATUS_ERROR_NOT_INITIALIZED,
            hsa_ext_image_create({1}, nullptr, nullptr,
                                 HSA_ACCESS_PERMISSION_RW, &Image));
  // hsa_status_string works before hsa_init (it reports hsa_init's errors).
  const char *Msg = nullptr;
  EXPECT_HSA(hsa_status_string(HSA_STATUS_ERROR_NOT_INITIALIZED, &Msg));
  EXPECT_NE(nullptr, Msg);
}

TEST(ApiInit, IsReferenceCounted) {
  ASSERT_HSA(hsa_init());
  ASSERT_HSA(hsa_init());
  EXPECT_HSA(hsa_shut_down());
  uint16_t V = 0;
  EXPECT_HSA(hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &V));
  EXPECT_EQ(1, V);
  EXPECT_HSA(hsa_shut_down());
  EXPECT_EQ(HSA_STATUS_ERROR_NOT_INITIALIZED,
            hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &V));
}

TEST(ApiInit, ShutDownReclaimsWhatWasLeft) {
  for (int Round = 0; Round < 2; ++Round) {
    ASSERT_HSA(hsa_init());
    hsa_agent_t Gpu{0};
    for (hsa_agent_t A : collect<hsa_agent_t>(hsa_iterate_agents))
      if (deviceType(A) == HSA_DEVICE_TYPE_GPU)
        Gpu = A;
    hsa_queue_t *Q;
    ASSERT_HSA(hsa_queue_create(Gpu, 64, HSA_QUEUE_TYPE_MULTI, nullptr,
                                nullptr, UINT32_MAX, UINT32_MAX, &Q));
    hsa_signal_t S, Gate;
    ASSERT_HSA(hsa_signal_create(1, 0, nullptr, &S));
    ASSERT_HSA(hsa_signal_create(1, 0, nullptr, &Gate));
    // A barrier still waiting and a copy whose dependency never comes.
    hsa_barrier_and_packet_t B{};
    B.header = header(HSA_PACKET_TYPE_BARRIER_AND);
    B.dep_signal[0] = Gate;
    submit(Q, B);
    auto Pools = collect<hsa_amd_memory_pool_t>(
        hsa_amd_agent_iterate_memory_pools, Gpu);
    void *P = nullptr;
    ASSERT_HSA(hsa_amd_memory_pool_allocate(Pools.at(0), 4096, 0, &P));
    ASSERT_HSA(hsa_amd_memory_async_copy(P, Gpu, P, Gpu, 64, 1, &Gate, S));
    // Nothing destroyed: hsa_shut_down reclaims it all, and the runtime can
    // start again.
    ASSERT_HSA(hsa_shut_down());
  }
}

class ApiMisuseTest : public HsaTest {};

TEST_F(ApiMisuseTest, InvalidHandles) {
  hsa_agent_t BadAgent{0xdead0000};
  char Name[64];
  EXPECT_EQ(HSA_STATUS_ERROR_INVALID_AGENT,
            hsa_agent_get_info(BadAgent, HSA_AGENT_INFO_NAME, Name));
  hsa_queue_t *Q;
  EXPECT_EQ(HSA_STATUS_ERROR_INVALID_AGENT,
            hsa_queue_create(BadAgent, 64, HSA_QUEUE_TYPE_MULTI, nullptr,
                             nullptr, 0, 0, &Q));
  EXPECT_EQ(HSA_STATUS_ERROR_INVALID_QUEUE_CREATION,
            hsa_queue_create(Cpu, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr,
                             0, 0, &Q));
  hsa_region_t BadRegion{0xbad};
  void *P;
  EXPECT_EQ(HSA_STATUS_ERROR_INVALID_REGION,
            hsa_memory_allocate(BadRegion, 64, &P));
  EXPECT_EQ(hsa_status_t(HSA_STATUS_ERROR_INVALID_MEMORY_POOL),
            hsa_amd_memory_pool_allocate({0xbad}, 64, 0, &P));
  EXPECT_EQ(HSA_STATUS_ERROR_INVALID_SIGNAL, hsa_signal_destroy({0xbad0}));
  // Value operations on a bad handle have no status: they must not crash.
  hsa_signal_store_relaxed({0xbad0}, 1);
  EXPECT_EQ(0, hsa_signal_load_relaxed({0xbad0}));
  EXPECT_EQ(HSA_STATUS_ERROR_INVALID_ISA,
            hsa_isa_get_info_alt({0xbad}, HSA_ISA_INFO_NAME, Name));
  hsa_isa_t Isa;
  EXPECT_EQ(HSA_STATUS_ERROR_INVALID_ISA_NAME,
            hsa_isa_from_name("amdgcn-amd-amdhsa--gfx9999", &Isa));
  EXPECT_HSA(hsa_isa_from_name("amdgcn-amd-amdhsa--gfx90a", &Isa));
  hsa_queue_t Fake{};
  EXPECT_EQ(HSA_STATUS_ERROR_INVALID_QUEUE, hsa_queue_destroy(&Fake));
  EXPECT_EQ(0u, hsa_queue_load_read_index_relaxed(&Fake));
}

TEST_F(ApiMisuseTest, NullPointersAndBadArguments) {
  char Buf[64];
  EXPECT_EQ(HSA_STATUS_ERROR_INVALID_ARGUMENT,
            hsa_agent_get_info(Gpu, HSA_AGENT_INFO_NAME, nullptr));
  EXPECT_EQ(HSA_STATUS_ERROR_INVALID_ARGUMENT,
            hsa_agent_get_info(Gpu, hsa_agent_info_t(0x7777), Buf));
  EXPECT_EQ(HSA_STATUS_ERROR_INVALID_ARGUMENT,
            hsa_iterate_agents(nullptr, nullptr));
  EXPECT_EQ(HSA_STATUS_ERROR_INVALID_ARGUMENT,
            hsa_signal_create(0, 0, nullptr, nullptr));
  hsa_queue_t *Q;
  EXPECT_EQ(HSA_STATUS_ERROR_INVALID_ARGUMENT,
            hsa_queue_create(Gpu, 100, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr,
                             0, 0, &Q)); // not a power of two
  EXPECT_EQ(HSA_STATUS_ERROR_INVALID_ARGUMENT,
            hsa_queue_create(Gpu, 1u << 20, HSA_QUEUE_TYPE_MULTI, nullptr,
                             nullptr, 0, 0, &Q)); // above the maximum
  EXPECT_EQ(HSA_STATUS_ERROR_INVALID_ARGUMENT,
            hsa_amd_memory_pool_allocate(Vram, 0, 0, (void **)&Q));
  EXPECT_EQ(HSA_STATUS_ERROR_INVALID_ALLOCATION,
            hsa_amd_memory_pool_allocate(Vram, 1ull << 40, 0, (void **)&Q));
  EXPECT_EQ(HSA_STATUS_ERROR_INVALID_ARGUMENT,
            hsa_amd_memory_fill(reinterpret_cast<void *>(0x1001), 0, 1));
  EXPECT_EQ(HSA_STATUS_ERROR_INVALID_ARGUMENT,
            hsa_memory_copy(nullptr, nullptr, 4));
  EXPECT_EQ(HSA_STATUS_ERROR_INVALID_ARGUMENT,
            hsa_amd_pointer_info(nullptr, nullptr, nullptr, nullptr, nullptr));
  hsa_signal_t S;
  ASSERT_HSA(hsa_signal_create(1, 0, nullptr, &S));
  EXPECT_EQ(HSA_STATUS_ERROR_INVALID_SIGNAL,
            hsa_amd_memory_async_copy(&S, Gpu, &S, Gpu, 8, 0, nullptr,
                                      {0xbad0}));
  EXPECT_HSA(hsa_signal_destroy(S));
  // Images answer "no such agent support", never crash.
  hsa_ext_image_t Image;
  hsa_ext_image_descriptor_t Desc{};
  EXPECT_EQ(HSA_STATUS_ERROR_INVALID_AGENT,
            hsa_ext_image_create(Gpu, &Desc, nullptr, HSA_ACCESS_PERMISSION_RW,
                                 &Image));
}

TEST_F(ApiMisuseTest, DoubleDestroysAndFrees) {
  hsa_signal_t S;
  ASSERT_HSA(hsa_signal_create(0, 0, nullptr, &S));
  EXPECT_HSA(hsa_signal_destroy(S));
  EXPECT_EQ(HSA_STATUS_ERROR_INVALID_SIGNAL, hsa_signal_destroy(S));
  hsa_queue_t *Q;
  ASSERT_HSA(hsa_queue_create(Gpu, 64, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr,
                              UINT32_MAX, UINT32_MAX, &Q));
  EXPECT_EQ(HSA_STATUS_ERROR_INVALID_SIGNAL,
            hsa_signal_destroy(Q->doorbell_signal)); // owned by the queue
  EXPECT_HSA(hsa_queue_destroy(Q));
  EXPECT_EQ(HSA_STATUS_ERROR_INVALID_QUEUE, hsa_queue_destroy(Q));
  void *P = alloc(Vram, 100);
  EXPECT_HSA(hsa_amd_memory_pool_free(P));
  EXPECT_EQ(HSA_STATUS_ERROR_INVALID_ALLOCATION, hsa_amd_memory_pool_free(P));
  EXPECT_HSA(hsa_amd_memory_pool_free(nullptr));
}

TEST_F(ApiMisuseTest, SystemAndExtensions) {
  uint64_t Freq = 0, T0 = 0, T1 = 0;
  ASSERT_HSA(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &Freq));
  ASSERT_HSA(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &T0));
  ASSERT_HSA(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &T1));
  EXPECT_GT(Freq, 0u);
  EXPECT_LE(T0, T1);
  hsa_endianness_t E;
  ASSERT_HSA(hsa_system_get_info(HSA_SYSTEM_INFO_ENDIANNESS, &E));
  EXPECT_EQ(HSA_ENDIANNESS_LITTLE, E);
  bool Supported = false;
  ASSERT_HSA(hsa_system_extension_supported(HSA_EXTENSION_AMD_LOADER, 1, 0,
                                            &Supported));
  EXPECT_TRUE(Supported);
  ASSERT_HSA(hsa_system_extension_supported(HSA_EXTENSION_IMAGES, 1, 0,
                                            &Supported));
  EXPECT_FALSE(Supported);
  hsa_ven_amd_loader_1_03_pfn_t Loader{};
  ASSERT_HSA(hsa_system_get_major_extension_table(
      HSA_EXTENSION_AMD_LOADER, 1, sizeof(Loader), &Loader));
  EXPECT_NE(nullptr, Loader.hsa_ven_amd_loader_query_host_address);
  EXPECT_NE(nullptr, Loader.hsa_ven_amd_loader_iterate_executables);
  hsa_ven_amd_loader_1_00_pfn_t Old{};
  ASSERT_HSA(hsa_system_get_major_extension_table(HSA_EXTENSION_AMD_LOADER, 1,
                                                  sizeof(Old), &Old));
  EXPECT_EQ(Loader.hsa_ven_amd_loader_query_executable,
            Old.hsa_ven_amd_loader_query_executable);
  char Table[256];
  EXPECT_NE(HSA_STATUS_SUCCESS, hsa_system_get_major_extension_table(
                                    HSA_EXTENSION_IMAGES, 1, sizeof(Table),
                                    Table));
}

TEST_F(ApiMisuseTest, GpuAgentInfoIsConsistent) {
  char Name[64];
  uint32_t Cus = 0, Simds = 0, Wave = 0, Waves = 0, Chip = 0, WgMax = 0;
  uint16_t WgDim[3];
  ASSERT_HSA(hsa_agent_get_info(Gpu, HSA_AGENT_INFO_NAME, Name));
  EXPECT_STREQ("gfx90a", Name);
  hsa_agent_get_info(Gpu, hsa_agent_info_t(HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT), &Cus);
  hsa_agent_get_info(Gpu, hsa_agent_info_t(HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU), &Simds);
  hsa_agent_get_info(Gpu, hsa_agent_info_t(HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU), &Waves);
  hsa_agent_get_info(Gpu, hsa_agent_info_t(HSA_AMD_AGENT_INFO_CHIP_ID), &Chip);
  hsa_agent_get_info(Gpu, HSA_AGENT_INFO_WAVEFRONT_SIZE, &Wave);
  hsa_agent_get_info(Gpu, HSA_AGENT_INFO_WORKGROUP_MAX_SIZE, &WgMax);
  hsa_agent_get_info(Gpu, HSA_AGENT_INFO_WORKGROUP_MAX_DIM, WgDim);
  EXPECT_EQ(104u, Cus);
  EXPECT_EQ(4u, Simds);
  EXPECT_EQ(64u, Wave);
  EXPECT_EQ(0x740fu, Chip);
  EXPECT_EQ(1024u, WgMax);
  EXPECT_LE(WgDim[0], WgMax);
  EXPECT_EQ(0u, Waves % Simds);
  // The agent's ISA agrees with its name and with hsa_isa_from_name.
  hsa_isa_t Isa = collect<hsa_isa_t>(hsa_agent_iterate_isas, Gpu).at(0);
  char IsaName[128];
  ASSERT_HSA(hsa_isa_get_info_alt(Isa, HSA_ISA_INFO_NAME, IsaName));
  EXPECT_NE(nullptr, strstr(IsaName, "gfx90a"));
  hsa_isa_t Same;
  ASSERT_HSA(hsa_isa_from_name(IsaName, &Same));
  EXPECT_EQ(Isa.handle, Same.handle);
  uint32_t IsaWave = 0;
  hsa_wavefront_t W = collect<hsa_wavefront_t>(hsa_isa_iterate_wavefronts, Isa).at(0);
  ASSERT_HSA(hsa_wavefront_get_info(W, HSA_WAVEFRONT_INFO_SIZE, &IsaWave));
  EXPECT_EQ(Wave, IsaWave);
  // The LDS size is the GPU group pool's.
  size_t Lds = 0;
  for (auto P : collect<hsa_amd_memory_pool_t>(hsa_amd_agent_iterate_memory_pools, Gpu)) {
    hsa_amd_segment_t S;
    hsa_amd_memory_pool_get_info(P, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &S);
    if (S == HSA_AMD_SEGMENT_GROUP)
      hsa_amd_memory_pool_get_info(P, HSA_AMD_MEMORY_POOL_INFO_SIZE, &Lds);
  }
  EXPECT_EQ(64u * 1024, Lds);
}

} // namespace
