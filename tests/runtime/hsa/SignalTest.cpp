//===- tests/runtime/hsa/SignalTest.cpp - HSA signals ---------------------===//

#include "HsaTestUtil.h"

#include <hsa/amd_hsa_signal.h>

#include <atomic>
#include <chrono>
#include <thread>

using namespace loom::test;

namespace {

class SignalTest : public HsaTest {
protected:
  hsa_signal_t make(int64_t V) {
    hsa_signal_t S;
    EXPECT_HSA(hsa_signal_create(V, 0, nullptr, &S));
    return S;
  }
};

TEST_F(SignalTest, HandleIsAnAmdSignal) {
  hsa_signal_t S = make(42);
  auto *A = reinterpret_cast<amd_signal_t *>(S.handle);
  EXPECT_EQ(AMD_SIGNAL_KIND_USER, A->kind);
  EXPECT_EQ(42, A->value);
  hsa_signal_store_relaxed(S, -5);
  EXPECT_EQ(-5, A->value);
  volatile hsa_signal_value_t *P = nullptr;
  ASSERT_HSA(hsa_amd_signal_value_pointer(S, &P));
  EXPECT_EQ(&A->value, P);
  EXPECT_HSA(hsa_signal_destroy(S));
}

TEST_F(SignalTest, EveryOperationAndOrdering) {
  hsa_signal_t S = make(0);
  // Each operation computed against a host model of the value.
  int64_t Model = 0;
  auto Check = [&] { EXPECT_EQ(Model, hsa_signal_load_scacquire(S)); };
  hsa_signal_store_screlease(S, 100), Model = 100, Check();
  hsa_signal_add_relaxed(S, 5), Model += 5, Check();
  hsa_signal_add_scacquire(S, 6), Model += 6, Check();
  hsa_signal_add_screlease(S, 7), Model += 7, Check();
  hsa_signal_add_scacq_screl(S, 8), Model += 8, Check();
  hsa_signal_subtract_relaxed(S, 1), Model -= 1, Check();
  hsa_signal_subtract_scacquire(S, 2), Model -= 2, Check();
  hsa_signal_subtract_screlease(S, 3), Model -= 3, Check();
  hsa_signal_subtract_scacq_screl(S, 4), Model -= 4, Check();
  hsa_signal_and_relaxed(S, 0xfe), Model &= 0xfe, Check();
  hsa_signal_and_scacq_screl(S, 0x7c), Model &= 0x7c, Check();
  hsa_signal_or_screlease(S, 0x101), Model |= 0x101, Check();
  hsa_signal_or_scacquire(S, 0x1000), Model |= 0x1000, Check();
  hsa_signal_xor_relaxed(S, 0xff), Model ^= 0xff, Check();
  hsa_signal_xor_scacq_screl(S, 0x3), Model ^= 0x3, Check();
  EXPECT_EQ(Model, hsa_signal_exchange_scacq_screl(S, 9)), Model = 9, Check();
  EXPECT_EQ(9, hsa_signal_exchange_relaxed(S, 10)), Model = 10, Check();
  EXPECT_EQ(10, hsa_signal_cas_scacq_screl(S, 10, 11)), Model = 11, Check();
  EXPECT_EQ(11, hsa_signal_cas_relaxed(S, 10, 12)), Check(); // fails
  EXPECT_EQ(11, hsa_signal_cas_screlease(S, 11, 13)), Model = 13, Check();
  hsa_signal_silent_store_relaxed(S, 77), Model = 77, Check();
  // The deprecated names are the same operations.
  hsa_signal_add_acq_rel(S, 3), Model += 3, Check();
  EXPECT_EQ(Model, hsa_signal_load_acquire(S));
  EXPECT_HSA(hsa_signal_destroy(S));
}

TEST_F(SignalTest, WaitConditionsAndTimeouts) {
  hsa_signal_t S = make(5);
  // Already satisfied: returns at once with the value.
  EXPECT_EQ(5, hsa_signal_wait_scacquire(S, HSA_SIGNAL_CONDITION_EQ, 5,
                                         UINT64_MAX, HSA_WAIT_STATE_BLOCKED));
  EXPECT_EQ(5, hsa_signal_wait_relaxed(S, HSA_SIGNAL_CONDITION_NE, 4,
                                       UINT64_MAX, HSA_WAIT_STATE_ACTIVE));
  EXPECT_EQ(5, hsa_signal_wait_scacquire(S, HSA_SIGNAL_CONDITION_LT, 6,
                                         UINT64_MAX, HSA_WAIT_STATE_BLOCKED));
  EXPECT_EQ(5, hsa_signal_wait_scacquire(S, HSA_SIGNAL_CONDITION_GTE, 5,
                                         UINT64_MAX, HSA_WAIT_STATE_BLOCKED));
  // Never satisfied: returns after about the timeout (1 GHz ticks).
  for (hsa_wait_state_t Hint : {HSA_WAIT_STATE_BLOCKED, HSA_WAIT_STATE_ACTIVE}) {
    auto T0 = std::chrono::steady_clock::now();
    EXPECT_EQ(5, hsa_signal_wait_scacquire(S, HSA_SIGNAL_CONDITION_EQ, 0,
                                           30'000'000, Hint));
    auto Ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::steady_clock::now() - T0)
                  .count();
    EXPECT_GE(Ms, 29);
    EXPECT_LT(Ms, 2000);
  }
  EXPECT_HSA(hsa_signal_destroy(S));
}

TEST_F(SignalTest, BlockedWaiterWakesOnStoreWithoutSpinning) {
  hsa_signal_t S = make(1);
  std::atomic<int64_t> Got{-1};
  clock_t Cpu0 = 0;
  std::thread Waiter([&] {
    Got = hsa_signal_wait_scacquire(S, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX,
                                    HSA_WAIT_STATE_BLOCKED);
  });
  Cpu0 = clock();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  // A sleeping waiter burns (almost) no CPU while it waits.
  double CpuSeconds = double(clock() - Cpu0) / CLOCKS_PER_SEC;
  EXPECT_LT(CpuSeconds, 0.1);
  EXPECT_EQ(-1, Got.load());
  hsa_signal_store_screlease(S, 0);
  Waiter.join();
  EXPECT_EQ(0, Got.load());
  EXPECT_HSA(hsa_signal_destroy(S));
}

TEST_F(SignalTest, MultithreadedAddLosesNothing) {
  hsa_signal_t S = make(0);
  constexpr int Threads = 4, Adds = 20000;
  std::vector<std::thread> Pool;
  for (int T = 0; T < Threads; ++T)
    Pool.emplace_back([&, T] {
      for (int I = 0; I < Adds; ++I)
        hsa_signal_add_scacq_screl(S, T + 1);
    });
  for (auto &Th : Pool)
    Th.join();
  int64_t Expected = 0;
  for (int T = 0; T < Threads; ++T)
    Expected += int64_t(T + 1) * Adds;
  EXPECT_EQ(Expected, hsa_signal_load_scacquire(S));
  EXPECT_HSA(hsa_signal_destroy(S));
}

TEST_F(SignalTest, AsyncHandlerRunsWhenConditionHolds) {
  hsa_signal_t S = make(3);
  struct State {
    std::atomic<int> Calls{0};
    std::atomic<int64_t> Value{0};
  } St;
  ASSERT_HSA(hsa_amd_signal_async_handler(
      S, HSA_SIGNAL_CONDITION_LT, 2,
      [](hsa_signal_value_t V, void *Arg) {
        auto *St = static_cast<State *>(Arg);
        St->Value = V;
        // Stay armed for one more firing.
        return St->Calls.fetch_add(1) == 0;
      },
      &St));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(0, St.Calls.load());
  hsa_signal_store_screlease(S, 1);
  for (int I = 0; I < 2000 && St.Calls < 2; ++I)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  // Still below 2: it fires again (the handler returned true once).
  EXPECT_EQ(2, St.Calls.load());
  EXPECT_EQ(1, St.Value.load());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(2, St.Calls.load()); // then it was disarmed
  EXPECT_HSA(hsa_signal_destroy(S));
}

TEST_F(SignalTest, WaitAnyAndGroups) {
  hsa_signal_t S[3] = {make(1), make(1), make(1)};
  hsa_signal_condition_t Conds[3] = {HSA_SIGNAL_CONDITION_EQ,
                                     HSA_SIGNAL_CONDITION_EQ,
                                     HSA_SIGNAL_CONDITION_EQ};
  hsa_signal_value_t Values[3] = {0, 0, 0};
  std::thread Setter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    hsa_signal_store_screlease(S[2], 0);
  });
  hsa_signal_value_t Seen = -1;
  EXPECT_EQ(2u, hsa_amd_signal_wait_any(3, S, Conds, Values, UINT64_MAX,
                                        HSA_WAIT_STATE_BLOCKED, &Seen));
  EXPECT_EQ(0, Seen);
  Setter.join();
  // Timeout: no index.
  hsa_signal_store_relaxed(S[2], 1);
  EXPECT_EQ(UINT32_MAX,
            hsa_amd_signal_wait_any(3, S, Conds, Values, 10'000'000,
                                    HSA_WAIT_STATE_BLOCKED, &Seen));
  hsa_signal_group_t G;
  ASSERT_HSA(hsa_signal_group_create(3, S, 0, nullptr, &G));
  hsa_signal_store_relaxed(S[1], 0);
  hsa_signal_t Which{0};
  ASSERT_HSA(hsa_signal_group_wait_any_scacquire(G, Conds, Values,
                                                 HSA_WAIT_STATE_BLOCKED,
                                                 &Which, &Seen));
  EXPECT_EQ(S[1].handle, Which.handle);
  EXPECT_HSA(hsa_signal_group_destroy(G));
  EXPECT_EQ(HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP, hsa_signal_group_destroy(G));
  for (hsa_signal_t X : S)
    EXPECT_HSA(hsa_signal_destroy(X));
}

} // namespace

namespace {

TEST_F(SignalTest, AmdSignalCreateAndAsyncFunction) {
  hsa_signal_t S;
  ASSERT_HSA(hsa_amd_signal_create(7, 0, nullptr, 0, &S));
  EXPECT_EQ(7, hsa_signal_load_relaxed(S));
  EXPECT_EQ(HSA_STATUS_ERROR_INVALID_ARGUMENT,
            hsa_amd_signal_create(0, 0, nullptr, HSA_AMD_SIGNAL_IPC, &S));
  // An async function runs on the handler thread; it may signal.
  ASSERT_HSA(hsa_amd_async_function(
      [](void *Arg) {
        hsa_signal_subtract_screlease(*static_cast<hsa_signal_t *>(Arg), 7);
      },
      &S));
  EXPECT_EQ(0, hsa_signal_wait_scacquire(S, HSA_SIGNAL_CONDITION_EQ, 0,
                                         UINT64_MAX, HSA_WAIT_STATE_BLOCKED));
  EXPECT_HSA(hsa_signal_destroy(S));
}

} // namespace
