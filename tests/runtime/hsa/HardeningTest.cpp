//===- tests/runtime/hsa/HardeningTest.cpp - Misuse and races survive -----===//
//
// Issue 14: inputs, misuse and races that used to kill or hang the host
// process. Each test checks the documented status or queue error, then that
// a correct kernel still runs in the same process. Kernels are loaded
// through the HSA loader API, as clients do.
//
//===----------------------------------------------------------------------===//

#include "HsaTestUtil.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/BinaryFormat/ELF.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <malloc.h>
#include <mutex>
#include <sys/resource.h>
#include <thread>

using namespace loom;
using namespace loom::test;

namespace {

std::vector<uint8_t> fixtureBytes(const std::string &Name) {
  std::ifstream F(std::string(LOOM_FIXTURE_DIR) + "/" + Name, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(F), {});
}

/// An executable holding one code object, loaded from memory.
struct Loaded {
  hsa_code_object_reader_t Reader{0};
  hsa_executable_t Exe{0};
  hsa_status_t Status = HSA_STATUS_ERROR;
};

Loaded loadFromMemory(hsa_agent_t Agent, const std::vector<uint8_t> &Bytes) {
  Loaded L;
  L.Status = hsa_code_object_reader_create_from_memory(Bytes.data(),
                                                       Bytes.size(), &L.Reader);
  if (L.Status != HSA_STATUS_SUCCESS)
    return L;
  L.Status = hsa_executable_create_alt(HSA_PROFILE_FULL,
                                       HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                                       nullptr, &L.Exe);
  if (L.Status != HSA_STATUS_SUCCESS)
    return L;
  L.Status = hsa_executable_load_agent_code_object(L.Exe, Agent, L.Reader,
                                                   nullptr, nullptr);
  if (L.Status != HSA_STATUS_SUCCESS)
    return L;
  L.Status = hsa_executable_freeze(L.Exe, nullptr);
  return L;
}

void unload(Loaded &L) {
  if (L.Exe.handle)
    EXPECT_HSA(hsa_executable_destroy(L.Exe));
  if (L.Reader.handle)
    EXPECT_HSA(hsa_code_object_reader_destroy(L.Reader));
  L = Loaded();
}

class HardeningTest : public HsaTest {
protected:
  void SetUp() override {
    HsaTest::SetUp();
    if (HasFatalFailure())
      return;
    Code = fixtureBytes("hardening_kernels.elf");
    ASSERT_FALSE(Code.empty());
    Exe = loadFromMemory(Gpu, Code);
    ASSERT_HSA(Exe.Status);
  }
  void TearDown() override {
    for (hsa_queue_t *Q : Queues)
      EXPECT_HSA(hsa_queue_destroy(Q));
    unload(Exe);
    HsaTest::TearDown();
  }

  uint64_t kernel(const Loaded &L, const char *Name) {
    hsa_executable_symbol_t S;
    EXPECT_HSA(hsa_executable_get_symbol_by_name(
        L.Exe, (std::string(Name) + ".kd").c_str(), &Gpu, &S));
    uint64_t K = 0;
    EXPECT_HSA(hsa_executable_symbol_get_info(
        S, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &K));
    return K;
  }
  hsa_queue_t *createQueue() {
    hsa_queue_t *Q = nullptr;
    EXPECT_HSA(hsa_queue_create(Gpu, 64, HSA_QUEUE_TYPE_MULTI, onError, this,
                                UINT32_MAX, UINT32_MAX, &Q));
    Queues.push_back(Q);
    return Q;
  }
  void destroyQueue(hsa_queue_t *Q) {
    EXPECT_HSA(hsa_queue_destroy(Q));
    llvm::erase(Queues, Q);
  }
  static void onError(hsa_status_t S, hsa_queue_t *, void *Data) {
    auto *T = static_cast<HardeningTest *>(Data);
    T->ErrorStatus = S;
    T->Errors.fetch_add(1);
  }
  hsa_signal_t signal(int64_t V) {
    hsa_signal_t S;
    EXPECT_HSA(hsa_signal_create(V, 0, nullptr, &S));
    return S;
  }
  /// Waits up to 20 s for the queue error callback.
  void waitForError() {
    for (int I = 0; I < 20000 && Errors == 0; ++I)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  bool waitZero(hsa_signal_t S, uint64_t Ns = 60'000'000'000ull) {
    return hsa_signal_wait_scacquire(S, HSA_SIGNAL_CONDITION_EQ, 0, Ns,
                                     HSA_WAIT_STATE_BLOCKED) == 0;
  }
  template <typename T> T *kernargs(const T &V) {
    auto *P = alloc<T>(Kernarg, 256);
    *P = V;
    return P;
  }
  /// Dispatches \p Kernel (one work-group of 64) with \p Args on \p Q.
  template <typename T>
  hsa_signal_t launch(hsa_queue_t *Q, uint64_t Kernel, const T &Args,
                      uint32_t Grid = 64) {
    hsa_signal_t Done = signal(1);
    submit(Q, dispatchPacket(Kernel, Grid, 64, kernargs(Args), Done));
    return Done;
  }

  struct ScaleArgs {
    float *Out;
    const float *In;
    int N;
  };
  /// Runs scale_add over 256 items on a fresh queue and checks the result:
  /// the process and its GPU still work.
  void checkStillRuns(const Loaded &L) {
    hsa_queue_t *Q = createQueue();
    auto *In = alloc<float>(Vram, 1024), *Out = alloc<float>(Vram, 1024);
    hsa_executable_symbol_t Sym;
    ASSERT_HSA(hsa_executable_get_symbol_by_name(L.Exe, "gscale", &Gpu, &Sym));
    uint64_t ScaleAddr = 0;
    ASSERT_HSA(hsa_executable_symbol_get_info(
        Sym, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS, &ScaleAddr));
    float Scale = *reinterpret_cast<float *>(ScaleAddr);
    for (int I = 0; I < 256; ++I)
      In[I] = float(I);
    hsa_signal_t Done =
        launch(Q, kernel(L, "scale_add"), ScaleArgs{Out, In, 256}, 256);
    ASSERT_TRUE(waitZero(Done));
    for (int I = 0; I < 256; ++I)
      ASSERT_EQ(In[I] * Scale, Out[I]) << I;
    hsa_signal_destroy(Done);
    destroyQueue(Q);
  }

  std::vector<uint8_t> Code;
  Loaded Exe;
  std::vector<hsa_queue_t *> Queues;
  std::atomic<hsa_status_t> ErrorStatus{HSA_STATUS_SUCCESS};
  std::atomic<int> Errors{0};
};

struct FlagArgs {
  int *Flag;
  int *Out;
};
struct SetArgs {
  int *Flag;
  int Value;
};
struct CountArgs {
  int *Count;
  int N;
};

// Cases 1 and 2: a PT_LOAD claiming 2^64-1, 64 GiB, 1 TiB or 2^64-4096
// bytes is refused before anything is allocated.
TEST_F(HardeningTest, HugeSegmentIsRefusedBeforeAllocation) {
  for (uint64_t MemSize : {~uint64_t(0), uint64_t(64) << 30,
                           uint64_t(1) << 40, ~uint64_t(0) - 4095,
                           uint64_t(16) << 30}) {
    std::vector<uint8_t> Bad = Code;
    auto *Ehdr = reinterpret_cast<llvm::ELF::Elf64_Ehdr *>(Bad.data());
    auto *Phdrs =
        reinterpret_cast<llvm::ELF::Elf64_Phdr *>(Bad.data() + Ehdr->e_phoff);
    for (unsigned I = 0; I < Ehdr->e_phnum; ++I)
      if (Phdrs[I].p_type == llvm::ELF::PT_LOAD) {
        Phdrs[I].p_memsz = MemSize;
        break;
      }
    Loaded L = loadFromMemory(Gpu, Bad);
    EXPECT_EQ(HSA_STATUS_ERROR_INVALID_CODE_OBJECT, L.Status) << MemSize;
    unload(L);
  }
  checkStillRuns(Exe);
}

// Case 3 and the watchdog: a grid of 2^32-1 items in groups of 64 (2^26
// groups) runs, and LOOM_KERNEL_TIMEOUT ends it with a queue error.
/// A HardeningTest whose runtime starts with one setting.
class WithSetting : public HardeningTest {
protected:
  WithSetting(const char *Name, const char *Value)
      : Name(Name), Value(Value) {}
  void SetUp() override {
    setenv(Name, Value, 1);
    HardeningTest::SetUp();
    unsetenv(Name);
  }
  const char *Name, *Value;
};

class TimeoutTest : public WithSetting {
protected:
  TimeoutTest() : WithSetting("LOOM_KERNEL_TIMEOUT", "1") {}
};

TEST_F(TimeoutTest, LargestGridRunsUntilTheWatchdog) {
  hsa_queue_t *Q = createQueue();
  auto *Out = alloc<float>(Vram, 256);
  hsa_signal_t Done = launch(Q, kernel(Exe, "scale_add"),
                             ScaleArgs{Out, Out, 0}, 0xFFFFFFFFu);
  waitForError();
  ASSERT_EQ(1, Errors.load());
  EXPECT_EQ(HSA_STATUS_ERROR, ErrorStatus.load());
  EXPECT_EQ(1, hsa_signal_load_relaxed(Done));
  hsa_signal_destroy(Done);
  destroyQueue(Q);
  checkStillRuns(Exe);
}

// Cases 10 and 11, decision 14: kernels of different queues run at once.
TEST_F(HardeningTest, KernelOfAnotherQueueRunsBesideANeverEndingOne) {
  hsa_queue_t *Q1 = createQueue();
  int *Flag = alloc<int>(Vram, 64), *Out = alloc<int>(Vram, 64);
  hsa_signal_t Spin = launch(Q1, kernel(Exe, "wait_flag"), FlagArgs{Flag, Out});
  checkStillRuns(Exe); // on a second queue, while Q1 spins
  EXPECT_EQ(1, hsa_signal_load_relaxed(Spin));
  __atomic_store_n(Flag, 5, __ATOMIC_SEQ_CST);
  ASSERT_TRUE(waitZero(Spin));
  EXPECT_EQ(5, *Out);
  hsa_signal_destroy(Spin);
}

TEST_F(HardeningTest, ConsumerAndProducerOnTwoQueues) {
  hsa_queue_t *Q1 = createQueue(), *Q2 = createQueue();
  int *Flag = alloc<int>(Vram, 64), *Out = alloc<int>(Vram, 64);
  hsa_signal_t Consumer =
      launch(Q1, kernel(Exe, "wait_flag"), FlagArgs{Flag, Out});
  hsa_signal_t Producer = launch(Q2, kernel(Exe, "set_flag"), SetArgs{Flag, 42});
  ASSERT_TRUE(waitZero(Producer));
  ASSERT_TRUE(waitZero(Consumer));
  EXPECT_EQ(42, *Out);
  hsa_signal_destroy(Consumer);
  hsa_signal_destroy(Producer);
}

class ConcurrentQueuesTest : public HardeningTest,
                             public ::testing::WithParamInterface<int> {};

TEST_P(ConcurrentQueuesTest, EachKernelWaitsForAllOthersToStart) {
  int N = GetParam();
  int *Count = alloc<int>(Vram, 64);
  std::vector<hsa_signal_t> Done;
  for (int I = 0; I < N; ++I)
    Done.push_back(
        launch(createQueue(), kernel(Exe, "wait_for_all"), CountArgs{Count, N}));
  for (hsa_signal_t S : Done) {
    ASSERT_TRUE(waitZero(S));
    hsa_signal_destroy(S);
  }
  EXPECT_EQ(N, *Count);
  EXPECT_EQ(0, Errors.load());
}

INSTANTIATE_TEST_SUITE_P(Queues, ConcurrentQueuesTest,
                         ::testing::Values(2, 4, 8));

// Case 4: hsa_shut_down while a kernel runs stops it; the runtime starts
// again and runs kernels.
TEST_F(HardeningTest, ShutDownWhileAKernelRuns) {
  hsa_queue_t *Q = createQueue();
  int *Flag = alloc<int>(Vram, 64), *Out = alloc<int>(Vram, 64);
  hsa_signal_t Spin = launch(Q, kernel(Exe, "wait_flag"), FlagArgs{Flag, Out});
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  Queues.clear();
  Exe = Loaded();
  ASSERT_HSA(hsa_shut_down());
  (void)Spin; // gone with the runtime
  ASSERT_HSA(hsa_init());
  Gpus.clear();
  HsaTest::SetUp(); // agents and pools of the new instance
  ASSERT_HSA(hsa_shut_down()); // SetUp's own hsa_init
  Exe = loadFromMemory(Gpu, Code);
  ASSERT_HSA(Exe.Status);
  checkStillRuns(Exe);
}

// Case 5: freeing a buffer a running kernel uses succeeds; the kernel never
// touches unmapped memory (the pages go when it ends).
TEST_F(HardeningTest, FreeWhileAKernelUsesTheBuffer) {
  hsa_queue_t *Q = createQueue();
  int *Flag = alloc<int>(Vram, 64), *Out = alloc<int>(Vram, 64);
  hsa_signal_t Spin = launch(Q, kernel(Exe, "wait_flag"), FlagArgs{Flag, Out});
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_HSA(hsa_amd_memory_pool_free(Flag));
  EXPECT_HSA(hsa_amd_memory_pool_free(Out));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  destroyQueue(Q); // cancels the spinning kernel
  hsa_signal_destroy(Spin);
  checkStillRuns(Exe);
}

// Case 6: destroying the executable of a running kernel succeeds; its code
// stays until the kernel ends.
TEST_F(HardeningTest, DestroyExecutableWhileItsKernelRuns) {
  Loaded Mine = loadFromMemory(Gpu, Code);
  ASSERT_HSA(Mine.Status);
  hsa_queue_t *Q = createQueue();
  int *Flag = alloc<int>(Vram, 64), *Out = alloc<int>(Vram, 64);
  hsa_signal_t Spin =
      launch(Q, kernel(Mine, "wait_flag"), FlagArgs{Flag, Out});
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  unload(Mine);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  __atomic_store_n(Flag, 7, __ATOMIC_SEQ_CST);
  ASSERT_TRUE(waitZero(Spin));
  EXPECT_EQ(7, *Out);
  EXPECT_EQ(0, Errors.load());
  hsa_signal_destroy(Spin);
  checkStillRuns(Exe);
}

// Case 8: the documented limit of 128 queues per agent.
TEST_F(HardeningTest, QueueLimitIsEnforced) {
  uint32_t Max = 0;
  ASSERT_HSA(hsa_agent_get_info(Gpu, HSA_AGENT_INFO_QUEUES_MAX, &Max));
  ASSERT_EQ(128u, Max);
  for (uint32_t I = 0; I < Max; ++I)
    ASSERT_NE(nullptr, createQueue());
  hsa_queue_t *Q = nullptr;
  EXPECT_EQ(HSA_STATUS_ERROR_OUT_OF_RESOURCES,
            hsa_queue_create(Gpu, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr,
                             UINT32_MAX, UINT32_MAX, &Q));
  destroyQueue(Queues.back());
  checkStillRuns(Exe);
}

// Case 8: a packet processor thread that cannot start (address space
// exhausted) is HSA_STATUS_ERROR_OUT_OF_RESOURCES, not an exception.
TEST_F(HardeningTest, QueueThreadThatCannotStart) {
  // glibc keeps the stacks of ended threads (up to 40 MiB) for new ones,
  // and the tests before this one end many: threads of ours take them, so
  // the queue's thread needs new memory.
  std::mutex Lock;
  std::condition_variable Released;
  bool Release = false;
  std::vector<std::thread> Holders;
  for (int I = 0; I < 8; ++I)
    Holders.emplace_back([&] {
      std::unique_lock<std::mutex> G(Lock);
      Released.wait(G, [&] { return Release; });
    });
  llvm::scope_exit ReleaseHolders([&] {
    {
      std::lock_guard<std::mutex> G(Lock);
      Release = true;
    }
    Released.notify_all();
    for (std::thread &T : Holders)
      T.join();
  });
  rlimit Old;
  ASSERT_EQ(0, getrlimit(RLIMIT_AS, &Old));
  // Room for small allocations, none for a thread's 8 MiB stack.
  std::ifstream Status("/proc/self/statm");
  uint64_t Pages = 0;
  Status >> Pages;
  rlimit Tight = Old;
  Tight.rlim_cur = Pages * 4096 + (256 << 10);
  ASSERT_EQ(0, setrlimit(RLIMIT_AS, &Tight));
  hsa_queue_t *Q = nullptr;
  hsa_status_t S = hsa_queue_create(Gpu, 64, HSA_QUEUE_TYPE_MULTI, nullptr,
                                    nullptr, UINT32_MAX, UINT32_MAX, &Q);
  ASSERT_EQ(0, setrlimit(RLIMIT_AS, &Old));
  EXPECT_EQ(HSA_STATUS_ERROR_OUT_OF_RESOURCES, S);
  if (S == HSA_STATUS_SUCCESS)
    Queues.push_back(Q);
  checkStillRuns(Exe);
}

// Minor: an access beyond the work-group's LDS does what gfx90a does (the
// write dropped, the read zero; docs/emu.md, "LDS out of range"), and the
// runtime says so once per kernel on stderr.
struct LdsArgs {
  unsigned *Out;
  unsigned Offset;
};

TEST_F(HardeningTest, LdsBeyondTheGroupIsDroppedWithAWarning) {
  hsa_queue_t *Q = createQueue();
  auto *Out = alloc<unsigned>(Vram, 128);
  for (int Run = 0; Run < 2; ++Run) {
    std::fill(Out, Out + 128, 0xffffffffu);
    testing::internal::CaptureStderr();
    hsa_signal_t Done = launch(Q, kernel(Exe, "lds_beyond"),
                               LdsArgs{Out, 0x10000});
    ASSERT_TRUE(waitZero(Done));
    std::string Err = testing::internal::GetCapturedStderr();
    hsa_signal_destroy(Done);
    for (unsigned T = 0; T < 64; ++T) {
      EXPECT_EQ(100 + T, Out[2 * T]) << "lane " << T;
      EXPECT_EQ(0u, Out[2 * T + 1]) << "lane " << T;
    }
    if (Run == 0)
      EXPECT_EQ(0u, Err.find("Loom: warning: 64 LDS accesses out of range in "
                             "a dispatch of 'lds_beyond' (the hardware drops "
                             "such writes and reads zero; LOOM_STRICT_LDS=1 "
                             "makes it a memory fault; later dispatches of "
                             "this kernel are not reported); first: LDS "
                             "write of 4 bytes at LDS offset 0x10004 in lane "
                             "1, beyond the work-group's 256 bytes of LDS: "
                             "dropped in kernel 'lds_beyond' at lds_beyond+"))
          << Err;
    else
      EXPECT_EQ("", Err);
  }
  EXPECT_EQ(0, Errors.load());
}

// LOOM_STRICT_LDS=1: the same access is a memory fault.
class StrictLdsTest : public WithSetting {
protected:
  StrictLdsTest() : WithSetting("LOOM_STRICT_LDS", "1") {}
};

TEST_F(StrictLdsTest, LdsBeyondTheGroupFaults) {
  hsa_queue_t *Q = createQueue();
  auto *Out = alloc<unsigned>(Vram, 128);
  testing::internal::CaptureStderr();
  hsa_signal_t Done =
      launch(Q, kernel(Exe, "lds_beyond"), LdsArgs{Out, 0x10000});
  waitForError();
  std::string Err = testing::internal::GetCapturedStderr();
  ASSERT_EQ(1, Errors.load());
  EXPECT_EQ(HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION, ErrorStatus.load());
  EXPECT_NE(std::string::npos,
            Err.find("memory fault: LDS write of 4 bytes at LDS offset "
                     "0x10004 in lane 1"))
      << Err;
  hsa_signal_destroy(Done);
  destroyQueue(Q);
  checkStillRuns(Exe);
}

// Minor: loading and destroying an executable leaves nothing behind (it
// grew the heap by about 1.7 KB per cycle). Measured on the heap in use
// (mallinfo2 sums every arena), after warm-up cycles that fill the
// caches a first load fills for good.
TEST_F(HardeningTest, LoadAndDestroyLeaveNothing) {
  auto Cycle = [&] {
    Loaded L = loadFromMemory(Gpu, Code);
    ASSERT_HSA(L.Status);
    unload(L);
  };
  for (int I = 0; I < 200; ++I)
    Cycle();
  constexpr int N = 2000;
  size_t Before = mallinfo2().uordblks;
  for (int I = 0; I < N; ++I)
    Cycle();
  double PerCycle = (double(mallinfo2().uordblks) - double(Before)) / N;
  std::printf("heap growth per load + destroy: %.1f bytes (%d cycles)\n",
              PerCycle, N);
  EXPECT_LT(PerCycle, 64.0);
  checkStillRuns(Exe);
}

// Minor: a malformed LOOM_GPUS makes hsa_init fail.
TEST(SettingsTest, MalformedGpuCountFailsInit) {
  for (const char *V : {"65", "-1", "abc", "1x"}) {
    setenv("LOOM_GPUS", V, 1);
    EXPECT_EQ(HSA_STATUS_ERROR_INVALID_ARGUMENT, hsa_init()) << V;
  }
  setenv("LOOM_GPUS", "2", 1);
  ASSERT_HSA(hsa_init());
  unsetenv("LOOM_GPUS");
  std::vector<hsa_agent_t> Agents = collect<hsa_agent_t>(hsa_iterate_agents);
  EXPECT_EQ(3u, Agents.size());
  EXPECT_HSA(hsa_shut_down());
}

} // namespace
