//===- tests/runtime/hsa/ToolTest.cpp - HSA_TOOLS_LIB ---------------------===//

#include "HsaTestUtil.h"

#include <cstdlib>
#include <dlfcn.h>

using namespace loom;
using namespace loom::test;

namespace {

using CountFn = int (*)();

TEST(ToolTest, ToolSeesQueueCreationsAndDispatches) {
  setenv("HSA_TOOLS_LIB", LOOM_COUNTING_TOOL, 1);
  ASSERT_HSA(hsa_init());
  unsetenv("HSA_TOOLS_LIB");
  void *Tool = dlopen(LOOM_COUNTING_TOOL, RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(nullptr, Tool) << "the runtime did not load the tool";
  auto Creates = reinterpret_cast<CountFn>(dlsym(Tool, "countingToolQueueCreates"));
  auto Dispatches = reinterpret_cast<CountFn>(dlsym(Tool, "countingToolDispatches"));
  auto Loads = reinterpret_cast<CountFn>(dlsym(Tool, "countingToolLoads"));
  auto Unloads = reinterpret_cast<CountFn>(dlsym(Tool, "countingToolUnloads"));
  // Counters are deltas: the tool stays mapped across hsa_shut_down.
  const int Loads0 = Loads(), Creates0 = Creates(), Dispatches0 = Dispatches(),
            Unloads0 = Unloads();
  EXPECT_LE(1, Loads0);

  hsa_agent_t Gpu{0};
  for (hsa_agent_t A : collect<hsa_agent_t>(hsa_iterate_agents))
    if (deviceType(A) == HSA_DEVICE_TYPE_GPU)
      Gpu = A;
  // Place a kernel and run it a few times through two queues.
  auto M = emu::Module::loadFile(
      *static_cast<emu::Device *>(reinterpret_cast<void *(*)(uint64_t)>(
          dlsym(RTLD_DEFAULT, "loom_hsa_device_of_agent"))(Gpu.handle)),
      std::string(LOOM_FIXTURE_DIR) + "/gfx90a_v5_kernels.elf");
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  ASSERT_FALSE(bool((*M)->resolve([](llvm::StringRef) {
    return std::optional<uint64_t>();
  })));
  uint64_t Kernel = *(*M)->kernelObject("scale_add");
  hsa_queue_t *Q[2];
  for (auto &X : Q)
    ASSERT_HSA(hsa_queue_create(Gpu, 64, HSA_QUEUE_TYPE_MULTI, nullptr,
                                nullptr, UINT32_MAX, UINT32_MAX, &X));
  EXPECT_EQ(Creates0 + 2, Creates());
  void *KA = nullptr, *Buf = nullptr;
  hsa_region_t Kernarg{0};
  hsa_agent_iterate_regions(
      Gpu,
      [](hsa_region_t R, void *Data) {
        uint32_t Flags = 0;
        hsa_region_get_info(R, HSA_REGION_INFO_GLOBAL_FLAGS, &Flags);
        if (Flags & HSA_REGION_GLOBAL_FLAG_KERNARG)
          *static_cast<hsa_region_t *>(Data) = R;
        return HSA_STATUS_SUCCESS;
      },
      &Kernarg);
  ASSERT_HSA(hsa_memory_allocate(Kernarg, 64, &KA));
  ASSERT_HSA(hsa_memory_allocate(Kernarg, 1024, &Buf));
  struct {
    void *Out, *In;
    int N;
  } Args{Buf, Buf, 64};
  memcpy(KA, &Args, sizeof(Args));
  hsa_signal_t Done;
  ASSERT_HSA(hsa_signal_create(5, 0, nullptr, &Done));
  for (int I = 0; I < 5; ++I)
    submit(Q[I % 2], dispatchPacket(Kernel, 64, 64, KA, Done));
  hsa_barrier_and_packet_t B{};
  B.header = header(HSA_PACKET_TYPE_BARRIER_AND);
  submit(Q[0], B); // not a dispatch: not counted
  ASSERT_EQ(0, hsa_signal_wait_scacquire(Done, HSA_SIGNAL_CONDITION_EQ, 0,
                                         UINT64_MAX, HSA_WAIT_STATE_BLOCKED));
  EXPECT_EQ(Dispatches0 + 5, Dispatches());
  for (auto &X : Q)
    EXPECT_HSA(hsa_queue_destroy(X));
  hsa_signal_destroy(Done);
  M->reset();
  EXPECT_EQ(Unloads0, Unloads());
  ASSERT_HSA(hsa_shut_down());
  EXPECT_EQ(Unloads0 + 1, Unloads());

  // Without the tool, the table is back to the runtime's own entries.
  ASSERT_HSA(hsa_init());
  hsa_queue_t *Plain;
  ASSERT_HSA(hsa_queue_create(collect<hsa_agent_t>(hsa_iterate_agents).back(),
                              64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr,
                              UINT32_MAX, UINT32_MAX, &Plain));
  EXPECT_EQ(Creates0 + 2, Creates());
  EXPECT_HSA(hsa_queue_destroy(Plain));
  EXPECT_HSA(hsa_shut_down());
}

TEST(ToolTest, FailedToolsAreCountedForTheNextOnes) {
  std::string List = std::string("/nonexistent/libtool.so ") + LOOM_COUNTING_TOOL;
  setenv("HSA_TOOLS_LIB", List.c_str(), 1);
  ASSERT_HSA(hsa_init());
  unsetenv("HSA_TOOLS_LIB");
  void *Tool = dlopen(LOOM_COUNTING_TOOL, RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(nullptr, Tool);
  auto Failed =
      reinterpret_cast<CountFn>(dlsym(Tool, "countingToolLastFailedCount"));
  EXPECT_EQ(1, Failed());
  EXPECT_HSA(hsa_shut_down());
}

} // namespace
