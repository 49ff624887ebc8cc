//===- tests/runtime/hsa/QueueTest.cpp - AQL queues and packet processing -===//

#include "HsaTestUtil.h"

#include <hsa/amd_hsa_queue.h>

#include <atomic>
#include <set>
#include <string>
#include <cstring>
#include <thread>

using namespace loom;
using namespace loom::test;

namespace {

class QueueTest : public HsaTest {
protected:
  hsa_queue_t *createQueue(uint32_t Size = 256) {
    hsa_queue_t *Q = nullptr;
    EXPECT_HSA(hsa_queue_create(Gpu, Size, HSA_QUEUE_TYPE_MULTI, onError, this,
                                UINT32_MAX, UINT32_MAX, &Q));
    return Q;
  }
  static void onError(hsa_status_t S, hsa_queue_t *Q, void *Data) {
    auto *T = static_cast<QueueTest *>(Data);
    T->ErrorStatus = S;
    T->ErrorQueue = Q;
    T->Errors.fetch_add(1);
  }
  hsa_signal_t signal(int64_t V) {
    hsa_signal_t S;
    EXPECT_HSA(hsa_signal_create(V, 0, nullptr, &S));
    return S;
  }
  bool waitZero(hsa_signal_t S, uint64_t Ns = 20'000'000'000ull) {
    return hsa_signal_wait_scacquire(S, HSA_SIGNAL_CONDITION_EQ, 0, Ns,
                                     HSA_WAIT_STATE_BLOCKED) == 0;
  }

  std::atomic<hsa_status_t> ErrorStatus{HSA_STATUS_SUCCESS};
  std::atomic<hsa_queue_t *> ErrorQueue{nullptr};
  std::atomic<int> Errors{0};
};

TEST_F(QueueTest, LayoutIsAmdQueue) {
  hsa_queue_t *Q = createQueue(1024);
  ASSERT_NE(nullptr, Q);
  auto *A = reinterpret_cast<amd_queue_t *>(Q);
  EXPECT_EQ(1024u, Q->size);
  EXPECT_EQ(HSA_QUEUE_TYPE_MULTI, Q->type);
  EXPECT_NE(nullptr, Q->base_address);
  EXPECT_EQ(0u, reinterpret_cast<uintptr_t>(Q) % 64);
  EXPECT_EQ(0u, hsa_queue_load_read_index_relaxed(Q));
  EXPECT_EQ(0u, hsa_queue_load_write_index_relaxed(Q));
  // The AMD fields clients and kernels read.
  EXPECT_NE(0u, A->group_segment_aperture_base_hi);
  EXPECT_NE(0u, A->private_segment_aperture_base_hi);
  EXPECT_TRUE(A->queue_properties & AMD_QUEUE_PROPERTIES_IS_PTR64);
  EXPECT_EQ(A->write_dispatch_id, hsa_queue_load_write_index_scacquire(Q));
  EXPECT_NE(0u, Q->doorbell_signal.handle);
  EXPECT_HSA(hsa_queue_destroy(Q));
}

TEST_F(QueueTest, IndexOperations) {
  hsa_queue_t *Q = createQueue(64);
  hsa_queue_store_write_index_relaxed(Q, 10);
  EXPECT_EQ(10u, hsa_queue_load_write_index_scacquire(Q));
  EXPECT_EQ(10u, hsa_queue_cas_write_index_scacq_screl(Q, 10, 12));
  EXPECT_EQ(12u, hsa_queue_cas_write_index_relaxed(Q, 10, 99)); // fails
  EXPECT_EQ(12u, hsa_queue_add_write_index_screlease(Q, 3));
  EXPECT_EQ(15u, hsa_queue_load_write_index_relaxed(Q));
  hsa_queue_store_write_index_screlease(Q, 0);
  EXPECT_HSA(hsa_queue_destroy(Q));
}

TEST_F(QueueTest, BarrierAndChainCompletesInOrder) {
  hsa_queue_t *Q = createQueue();
  hsa_signal_t Gate = signal(1);
  constexpr int N = 8;
  hsa_signal_t Done[N];
  for (int I = 0; I < N; ++I) {
    Done[I] = signal(1);
    hsa_barrier_and_packet_t B{};
    B.header = header(HSA_PACKET_TYPE_BARRIER_AND, true);
    // The first waits for the host's gate, each next for the previous one.
    B.dep_signal[0] = I == 0 ? Gate : Done[I - 1];
    B.completion_signal = Done[I];
    submit(Q, B);
  }
  // Nothing completes while the gate is closed.
  EXPECT_EQ(1, hsa_signal_wait_scacquire(Done[0], HSA_SIGNAL_CONDITION_EQ, 0,
                                         50'000'000, HSA_WAIT_STATE_BLOCKED));
  // The first barrier is consumed and waiting; the rest wait behind it.
  EXPECT_GE(1u, hsa_queue_load_read_index_scacquire(Q));
  hsa_signal_store_screlease(Gate, 0);
  ASSERT_TRUE(waitZero(Done[N - 1]));
  for (int I = 0; I < N; ++I)
    EXPECT_EQ(0, hsa_signal_load_scacquire(Done[I]));
  EXPECT_EQ(uint64_t(N), hsa_queue_load_read_index_scacquire(Q));
  for (hsa_signal_t S : Done)
    hsa_signal_destroy(S);
  hsa_signal_destroy(Gate);
  EXPECT_HSA(hsa_queue_destroy(Q));
}

TEST_F(QueueTest, BarrierOrAndBarrierValue) {
  hsa_queue_t *Q = createQueue();
  hsa_signal_t A = signal(1), B = signal(1), Done = signal(1),
               Value = signal(0), Done2 = signal(1);
  hsa_barrier_or_packet_t Or{};
  Or.header = header(HSA_PACKET_TYPE_BARRIER_OR);
  Or.dep_signal[0] = A;
  Or.dep_signal[1] = B;
  Or.completion_signal = Done;
  submit(Q, Or);
  hsa_signal_store_screlease(B, 0); // one of the two is enough
  ASSERT_TRUE(waitZero(Done));

  // AMD barrier-value: waits until (value & mask) >= 0x40.
  hsa_amd_barrier_value_packet_t V{};
  V.header.header = header(HSA_PACKET_TYPE_VENDOR_SPECIFIC);
  V.header.AmdFormat = HSA_AMD_PACKET_TYPE_BARRIER_VALUE;
  V.signal = Value;
  V.value = 0x40;
  V.mask = 0xf0;
  V.cond = HSA_SIGNAL_CONDITION_GTE;
  V.completion_signal = Done2;
  submit(Q, V);
  hsa_signal_store_screlease(Value, 0x0f); // masked away: still < 0x40
  EXPECT_EQ(1, hsa_signal_wait_scacquire(Done2, HSA_SIGNAL_CONDITION_EQ, 0,
                                         30'000'000, HSA_WAIT_STATE_BLOCKED));
  hsa_signal_store_screlease(Value, 0x4f);
  EXPECT_TRUE(waitZero(Done2));
  for (hsa_signal_t S : {A, B, Done, Value, Done2})
    hsa_signal_destroy(S);
  EXPECT_HSA(hsa_queue_destroy(Q));
}

TEST_F(QueueTest, MalformedPacketsPutTheQueueInError) {
  struct Case {
    const char *What;
    hsa_status_t Expected;
    void (*Break)(hsa_kernel_dispatch_packet_t &);
  };
  const Case Cases[] = {
      {"null kernel object", HSA_STATUS_ERROR_INVALID_PACKET_FORMAT,
       [](hsa_kernel_dispatch_packet_t &P) { P.kernel_object = 0; }},
      {"zero dimensions", HSA_STATUS_ERROR_INVALID_PACKET_FORMAT,
       [](hsa_kernel_dispatch_packet_t &P) { P.setup = 0; }},
      {"zero grid", HSA_STATUS_ERROR_INVALID_PACKET_FORMAT,
       [](hsa_kernel_dispatch_packet_t &P) { P.grid_size_x = 0; }},
      {"work-group too large", HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS,
       [](hsa_kernel_dispatch_packet_t &P) {
         P.workgroup_size_x = 64;
         P.workgroup_size_y = 32;
       }},
      {"unknown packet type", HSA_STATUS_ERROR_INVALID_PACKET_FORMAT,
       [](hsa_kernel_dispatch_packet_t &P) { P.header = header(hsa_packet_type_t(7)); }},
      {"agent dispatch on a GPU queue", HSA_STATUS_ERROR_INVALID_PACKET_FORMAT,
       [](hsa_kernel_dispatch_packet_t &P) {
         P.header = header(HSA_PACKET_TYPE_AGENT_DISPATCH);
       }},
  };
  for (const Case &C : Cases) {
    SCOPED_TRACE(C.What);
    Errors = 0;
    ErrorStatus = HSA_STATUS_SUCCESS;
    hsa_queue_t *Q = createQueue();
    hsa_signal_t Done = signal(1);
    auto P = dispatchPacket(0x1000, 64, 64, nullptr, Done);
    C.Break(P);
    submit(Q, P);
    for (int I = 0; I < 2000 && Errors == 0; ++I)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_EQ(1, Errors.load());
    EXPECT_EQ(C.Expected, ErrorStatus.load());
    EXPECT_EQ(Q, ErrorQueue.load());
    EXPECT_EQ(1, hsa_signal_load_relaxed(Done)); // never completed
    EXPECT_HSA(hsa_queue_destroy(Q));
    hsa_signal_destroy(Done);
  }
}

/// scale_add from the fixtures: out[i] = in[i] * gscale + table[i & 63].
class DispatchTest : public QueueTest {
protected:
  void SetUp() override {
    QueueTest::SetUp();
    if (HasFatalFailure())
      return;
    Mod = &loadFixture(Gpu, "gfx90a_v5_kernels.elf");
    auto K = Mod->kernelObject("scale_add");
    ASSERT_TRUE(K.has_value());
    Kernel = *K;
    Scale = *reinterpret_cast<float *>(*Mod->symbolAddress("gscale"));
    Table = reinterpret_cast<int *>(*Mod->symbolAddress("table"));
    for (int I = 0; I < 64; ++I)
      Table[I] = I * 3 - 7;
  }

  struct Args {
    float *Out;
    const float *In;
    int N;
  };

  /// Runs scale_add over \p N items on \p Q and checks the result.
  void runAndCheck(hsa_queue_t *Q, uint32_t N, unsigned Seed) {
    auto *In = alloc<float>(Vram, N * 4);
    auto *Out = alloc<float>(Vram, N * 4);
    auto *KA = alloc<Args>(Kernarg, 256);
    for (uint32_t I = 0; I < N; ++I) {
      In[I] = float(I * 7 + Seed) * 0.25f;
      Out[I] = -1;
    }
    *KA = {Out, In, int(N)};
    hsa_signal_t Done = signal(1);
    submit(Q, dispatchPacket(Kernel, N, 64, KA, Done));
    ASSERT_TRUE(waitZero(Done));
    for (uint32_t I = 0; I < N; ++I)
      ASSERT_EQ(In[I] * Scale + float(Table[I & 63]), Out[I]) << "item " << I;
    hsa_signal_destroy(Done);
    hsa_amd_memory_pool_free(In);
    hsa_amd_memory_pool_free(Out);
    hsa_amd_memory_pool_free(KA);
  }

  emu::Module *Mod = nullptr;
  uint64_t Kernel = 0;
  float Scale = 0;
  int *Table = nullptr;
};

TEST_F(DispatchTest, KernelDispatchWrittenByHand) {
  hsa_queue_t *Q = createQueue();
  runAndCheck(Q, 1000, 1);
  runAndCheck(Q, 64, 2);
  EXPECT_EQ(0, Errors.load());
  EXPECT_HSA(hsa_queue_destroy(Q));
}

TEST_F(DispatchTest, ProfilingTimestamps) {
  hsa_queue_t *Q = createQueue();
  ASSERT_HSA(hsa_amd_profiling_set_profiler_enabled(Q, 1));
  uint64_t Before = 0, After = 0;
  hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &Before);
  auto *In = alloc<float>(Vram, 256), *Out = alloc<float>(Vram, 256);
  auto *KA = alloc<Args>(Kernarg, 256);
  *KA = {Out, In, 64};
  hsa_signal_t Done = signal(1);
  submit(Q, dispatchPacket(Kernel, 64, 64, KA, Done));
  ASSERT_TRUE(waitZero(Done));
  hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &After);
  hsa_amd_profiling_dispatch_time_t T;
  ASSERT_HSA(hsa_amd_profiling_get_dispatch_time(Gpu, Done, &T));
  EXPECT_LE(Before, T.start);
  EXPECT_LE(T.start, T.end);
  EXPECT_LE(T.end, After);
  uint64_t Sys = 0;
  EXPECT_HSA(hsa_amd_profiling_convert_tick_to_system_domain(Gpu, T.start, &Sys));
  EXPECT_EQ(T.start, Sys);
  hsa_signal_destroy(Done);
  EXPECT_HSA(hsa_queue_destroy(Q));
}

TEST_F(DispatchTest, ManyThreadsManyQueuesNoLostCompletion) {
  constexpr int Threads = 4, PerThread = 40;
  hsa_signal_t All = signal(Threads * PerThread);
  std::vector<hsa_queue_t *> Queues;
  for (int T = 0; T < Threads; ++T)
    Queues.push_back(createQueue(64));
  auto *In = alloc<float>(Vram, 64 * 4);
  std::vector<float *> Outs;
  std::vector<Args *> KAs;
  for (int T = 0; T < Threads * PerThread; ++T) {
    Outs.push_back(alloc<float>(Vram, 64 * 4));
    KAs.push_back(alloc<Args>(Kernarg, 64));
    *KAs.back() = {Outs.back(), In, 64};
  }
  for (int I = 0; I < 64; ++I)
    In[I] = float(I);
  std::vector<std::thread> Pool;
  for (int T = 0; T < Threads; ++T)
    Pool.emplace_back([&, T] {
      for (int I = 0; I < PerThread; ++I)
        submit(Queues[T], dispatchPacket(Kernel, 64, 64,
                                         KAs[T * PerThread + I], All));
    });
  for (auto &Th : Pool)
    Th.join();
  ASSERT_TRUE(waitZero(All, 60'000'000'000ull));
  for (float *O : Outs)
    for (int I = 0; I < 64; ++I)
      ASSERT_EQ(In[I] * Scale + float(Table[I]), O[I]);
  for (hsa_queue_t *Q : Queues)
    EXPECT_HSA(hsa_queue_destroy(Q));
  hsa_signal_destroy(All);
}

TEST_F(DispatchTest, KernelsMayWriteSignalMemory) {
  // A kernel storing into a signal's value (as HIP's hostcall does): signal
  // memory is device memory.
  hsa_queue_t *Q = createQueue();
  hsa_signal_t Target = signal(0);
  volatile hsa_signal_value_t *Value = nullptr;
  ASSERT_HSA(hsa_amd_signal_value_pointer(Target, &Value));
  auto *In = alloc<float>(Vram, 256);
  In[0] = 3.0f;
  auto *KA = alloc<Args>(Kernarg, 64);
  *KA = {const_cast<float *>(reinterpret_cast<volatile float *>(Value)), In, 1};
  hsa_signal_t Done = signal(1);
  submit(Q, dispatchPacket(Kernel, 1, 64, KA, Done));
  ASSERT_TRUE(waitZero(Done));
  EXPECT_EQ(0, Errors.load());
  float Want = In[0] * Scale + float(Table[0]);
  uint32_t Bits;
  std::memcpy(&Bits, &Want, 4);
  EXPECT_EQ(int64_t(Bits), hsa_signal_load_scacquire(Target));
  hsa_signal_destroy(Target);
  hsa_signal_destroy(Done);
  EXPECT_HSA(hsa_queue_destroy(Q));
}

struct FaultSeen {
  std::atomic<int> Events{0};
  std::atomic<uint64_t> Address{0};
  std::atomic<uint64_t> Agent{0};
};

TEST_F(DispatchTest, MemoryFaultRaisesEventAndQueueError) {
  static FaultSeen Seen;
  Seen.Events = 0;
  ASSERT_HSA(hsa_amd_register_system_event_handler(
      [](const hsa_amd_event_t *E, void *Data) {
        auto *S = static_cast<FaultSeen *>(Data);
        if (E->event_type == HSA_AMD_GPU_MEMORY_FAULT_EVENT) {
          S->Address = E->memory_fault.virtual_address;
          S->Agent = E->memory_fault.agent.handle;
          S->Events.fetch_add(1);
        }
        return HSA_STATUS_SUCCESS;
      },
      &Seen));
  hsa_queue_t *Q = createQueue();
  // Memory the runtime never gave out: the device may not touch it.
  static float Unregistered[64];
  auto *In = alloc<float>(Vram, 256);
  auto *KA = alloc<Args>(Kernarg, 64);
  *KA = {Unregistered, In, 64};
  hsa_signal_t Done = signal(1);
  submit(Q, dispatchPacket(Kernel, 64, 64, KA, Done));
  for (int I = 0; I < 5000 && Errors == 0; ++I)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_EQ(1, Errors.load());
  EXPECT_EQ(hsa_status_t(HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION),
            ErrorStatus.load());
  EXPECT_EQ(1, Seen.Events.load());
  EXPECT_EQ(Gpu.handle, Seen.Agent.load());
  uint64_t Base = reinterpret_cast<uint64_t>(Unregistered);
  EXPECT_GE(Seen.Address.load(), Base);
  EXPECT_LT(Seen.Address.load(), Base + sizeof(Unregistered));
  EXPECT_EQ(1, hsa_signal_load_relaxed(Done));
  EXPECT_HSA(hsa_queue_destroy(Q));
  hsa_signal_destroy(Done);
  // The process lives on: another queue still runs kernels.
  hsa_queue_t *Q2 = createQueue();
  Errors = 0;
  runAndCheck(Q2, 128, 3);
  EXPECT_HSA(hsa_queue_destroy(Q2));
}

} // namespace

namespace {

TEST_F(QueueTest, SoftQueueInactivateCuMaskPriority) {
  hsa_region_t Region =
      collect<hsa_region_t>(hsa_agent_iterate_regions, Gpu).at(0);
  hsa_signal_t Doorbell = signal(0);
  hsa_queue_t *Soft = nullptr;
  ASSERT_HSA(hsa_soft_queue_create(Region, 128, HSA_QUEUE_TYPE_SINGLE,
                                   HSA_QUEUE_FEATURE_AGENT_DISPATCH, Doorbell,
                                   &Soft));
  EXPECT_EQ(128u, Soft->size);
  EXPECT_EQ(Doorbell.handle, Soft->doorbell_signal.handle);
  EXPECT_EQ(uint32_t(HSA_QUEUE_FEATURE_AGENT_DISPATCH), Soft->features);
  // Nobody consumes a soft queue's packets: the client's agent does.
  hsa_barrier_and_packet_t B{};
  B.header = header(HSA_PACKET_TYPE_BARRIER_AND);
  uint64_t Index = hsa_queue_add_write_index_relaxed(Soft, 1);
  std::memcpy(static_cast<uint8_t *>(Soft->base_address) + Index * 64, &B, 64);
  hsa_signal_store_screlease(Doorbell, int64_t(Index));
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(0u, hsa_queue_load_read_index_scacquire(Soft));
  hsa_queue_store_read_index_screlease(Soft, 1);
  EXPECT_EQ(1u, hsa_queue_load_read_index_relaxed(Soft));
  EXPECT_HSA(hsa_queue_destroy(Soft));
  hsa_signal_destroy(Doorbell);

  hsa_queue_t *Q = createQueue();
  uint32_t Mask[4] = {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff};
  EXPECT_EQ(hsa_status_t(HSA_STATUS_CU_MASK_REDUCED),
            hsa_amd_queue_cu_set_mask(Q, 128, Mask)); // only 104 CUs
  uint32_t Half[4] = {0x55555555, 0x55555555, 0x55555555, 0x55};
  EXPECT_HSA(hsa_amd_queue_cu_set_mask(Q, 128, Half));
  uint32_t Got[4] = {};
  EXPECT_HSA(hsa_amd_queue_cu_get_mask(Q, 128, Got));
  EXPECT_EQ(0, std::memcmp(Half, Got, sizeof(Got)));
  EXPECT_HSA(hsa_amd_queue_set_priority(Q, HSA_AMD_QUEUE_PRIORITY_HIGH));
  EXPECT_EQ(HSA_STATUS_ERROR_INVALID_ARGUMENT,
            hsa_amd_queue_set_priority(Q, hsa_amd_queue_priority_t(9)));
  // An inactive queue consumes nothing more.
  EXPECT_HSA(hsa_queue_inactivate(Q));
  hsa_signal_t Done = signal(1);
  hsa_barrier_and_packet_t B2{};
  B2.header = header(HSA_PACKET_TYPE_BARRIER_AND);
  B2.completion_signal = Done;
  submit(Q, B2);
  EXPECT_EQ(1, hsa_signal_wait_scacquire(Done, HSA_SIGNAL_CONDITION_EQ, 0,
                                         20'000'000, HSA_WAIT_STATE_BLOCKED));
  EXPECT_HSA(hsa_queue_destroy(Q));
  hsa_signal_destroy(Done);
}

TEST(MultiGpuTest, SettingsGiveSeveralDistinctGpus) {
  setenv("LOOM_GPUS", "3", 1);
  ASSERT_HSA(hsa_init());
  unsetenv("LOOM_GPUS");
  std::vector<hsa_agent_t> Gpus;
  for (hsa_agent_t A : collect<hsa_agent_t>(hsa_iterate_agents))
    if (deviceType(A) == HSA_DEVICE_TYPE_GPU)
      Gpus.push_back(A);
  ASSERT_EQ(3u, Gpus.size());
  std::set<uint32_t> Bdfs, Nodes;
  std::set<std::string> Uuids;
  for (hsa_agent_t A : Gpus) {
    uint32_t Bdf = 0, Node = 0;
    char Uuid[32] = {};
    hsa_agent_get_info(A, hsa_agent_info_t(HSA_AMD_AGENT_INFO_BDFID), &Bdf);
    hsa_agent_get_info(A, HSA_AGENT_INFO_NODE, &Node);
    hsa_agent_get_info(A, hsa_agent_info_t(HSA_AMD_AGENT_INFO_UUID), Uuid);
    Bdfs.insert(Bdf);
    Nodes.insert(Node);
    Uuids.insert(Uuid);
    // Each GPU has its own VRAM pool, which only it reaches by default.
    auto Pools = collect<hsa_amd_memory_pool_t>(
        hsa_amd_agent_iterate_memory_pools, A);
    hsa_amd_memory_pool_access_t Own, Other;
    hsa_amd_agent_memory_pool_get_info(
        A, Pools.at(0), HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS, &Own);
    hsa_amd_agent_memory_pool_get_info(
        A.handle == Gpus[0].handle ? Gpus[1] : Gpus[0], Pools.at(0),
        HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS, &Other);
    EXPECT_EQ(HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT, Own);
    EXPECT_EQ(HSA_AMD_MEMORY_POOL_ACCESS_DISALLOWED_BY_DEFAULT, Other);
  }
  EXPECT_EQ(3u, Bdfs.size());
  EXPECT_EQ(3u, Nodes.size());
  EXPECT_EQ(3u, Uuids.size());
  EXPECT_HSA(hsa_shut_down());
}

} // namespace

namespace {

TEST(IsaSettingTest, Gfx942PosesAsMi300x) {
  setenv("LOOM_ISA", "gfx942", 1);
  ASSERT_HSA(hsa_init());
  unsetenv("LOOM_ISA");
  hsa_agent_t Gpu{0};
  for (hsa_agent_t A : collect<hsa_agent_t>(hsa_iterate_agents))
    if (deviceType(A) == HSA_DEVICE_TYPE_GPU)
      Gpu = A;
  char Name[64] = {}, IsaName[128] = {};
  uint32_t Cus = 0;
  hsa_agent_get_info(Gpu, HSA_AGENT_INFO_NAME, Name);
  hsa_agent_get_info(
      Gpu, hsa_agent_info_t(HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT), &Cus);
  hsa_isa_t Isa = collect<hsa_isa_t>(hsa_agent_iterate_isas, Gpu).at(0);
  hsa_isa_get_info_alt(Isa, HSA_ISA_INFO_NAME, IsaName);
  EXPECT_STREQ("gfx942", Name);
  EXPECT_EQ(304u, Cus);
  EXPECT_STREQ("amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-", IsaName);
  // The queue's CU mask covers exactly the board's CUs.
  hsa_queue_t *Q;
  ASSERT_HSA(hsa_queue_create(Gpu, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr,
                              UINT32_MAX, UINT32_MAX, &Q));
  EXPECT_EQ(303u, reinterpret_cast<amd_queue_t *>(Q)->max_cu_id);
  std::vector<uint32_t> Mask(10);
  ASSERT_HSA(hsa_amd_queue_cu_get_mask(Q, 320, Mask.data()));
  unsigned Bits = 0;
  for (uint32_t W : Mask)
    Bits += __builtin_popcount(W);
  EXPECT_EQ(304u, Bits);
  EXPECT_HSA(hsa_queue_destroy(Q));
  EXPECT_HSA(hsa_shut_down());

  setenv("LOOM_ISA", "gfx1234", 1);
  EXPECT_EQ(HSA_STATUS_ERROR_INVALID_ISA_NAME, hsa_init());
  unsetenv("LOOM_ISA");
}

} // namespace
