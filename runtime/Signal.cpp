//===- runtime/Signal.cpp - HSA signals -----------------------------------===//

#include "loom/runtime/Signal.h"
#include "loom/runtime/Memory.h"
#include "loom/runtime/Queue.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <climits>
#include <cstdlib>
#include <ctime>
#include <linux/futex.h>
#include <mutex>
#include <shared_mutex>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>
#include <unordered_map>
#include <vector>

namespace loom::runtime {

uint64_t nowTicks() {
  timespec Ts;
  clock_gettime(CLOCK_MONOTONIC, &Ts);
  return uint64_t(Ts.tv_sec) * 1000000000ull + uint64_t(Ts.tv_nsec);
}

void futexWait(std::atomic<uint32_t> &Word, uint32_t Expected,
               uint64_t MaxNs) {
  timespec Ts;
  Ts.tv_sec = time_t(MaxNs / 1000000000ull);
  Ts.tv_nsec = long(MaxNs % 1000000000ull);
  syscall(SYS_futex, reinterpret_cast<uint32_t *>(&Word),
          FUTEX_WAIT_PRIVATE, Expected, &Ts, nullptr, 0);
}

void futexWakeAll(std::atomic<uint32_t> &Word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t *>(&Word), FUTEX_WAKE_PRIVATE,
          INT_MAX, nullptr, nullptr, 0);
}

namespace {
std::atomic<uint32_t> ActivityEpoch{0};
std::atomic<uint32_t> ActivityWaiters{0};

// How long a sleeping waiter trusts notifications alone before it rechecks
// the value (which a client may have written straight into memory).
constexpr uint64_t RecheckNs = 5'000'000;
// Spin this long before sleeping: a dispatch round trip is a few µs.
constexpr uint64_t SpinNs = 20'000;

inline void cpuRelax() { __builtin_ia32_pause(); }
} // namespace

uint32_t activityEpoch() {
  return ActivityEpoch.load(std::memory_order_seq_cst);
}

void waitActivity(uint32_t Epoch, uint64_t MaxNs) {
  ActivityWaiters.fetch_add(1, std::memory_order_seq_cst);
  if (ActivityEpoch.load(std::memory_order_seq_cst) == Epoch)
    futexWait(ActivityEpoch, Epoch, MaxNs);
  ActivityWaiters.fetch_sub(1, std::memory_order_seq_cst);
}

bool waitUntil(const std::function<bool()> &Ready, uint64_t DeadlineTicks,
               const std::atomic<bool> *Stop) {
  uint64_t Start = nowTicks();
  while (true) {
    if (Ready())
      return true;
    if (Stop && Stop->load(std::memory_order_relaxed))
      return false;
    uint64_t Now = nowTicks();
    if (Now >= DeadlineTicks)
      return false;
    if (Now - Start < SpinNs) {
      cpuRelax();
      continue;
    }
    ActivityWaiters.fetch_add(1, std::memory_order_seq_cst);
    uint32_t E = ActivityEpoch.load(std::memory_order_seq_cst);
    bool R = Ready();
    if (!R && !(Stop && Stop->load(std::memory_order_relaxed)))
      futexWait(ActivityEpoch, E, std::min(RecheckNs, DeadlineTicks - Now));
    ActivityWaiters.fetch_sub(1, std::memory_order_seq_cst);
    if (R)
      return true;
  }
}

bool conditionHolds(hsa_signal_condition_t Cond, int64_t V, int64_t Compare) {
  switch (Cond) {
  case HSA_SIGNAL_CONDITION_EQ:
    return V == Compare;
  case HSA_SIGNAL_CONDITION_NE:
    return V != Compare;
  case HSA_SIGNAL_CONDITION_LT:
    return V < Compare;
  case HSA_SIGNAL_CONDITION_GTE:
    return V >= Compare;
  }
  return false;
}

void Signal::notify() {
  Epoch.fetch_add(1, std::memory_order_seq_cst);
  if (Waiters.load(std::memory_order_seq_cst))
    futexWakeAll(Epoch);
  if (DoorbellOf)
    DoorbellOf->ringDoorbell();
  if (ActivityWaiters.load(std::memory_order_seq_cst)) {
    ActivityEpoch.fetch_add(1, std::memory_order_seq_cst);
    futexWakeAll(ActivityEpoch);
  }
}

int64_t Signal::rmw(Op O, int64_t V, std::memory_order Order) {
  int G = toGcc(Order);
  int64_t Old = 0;
  switch (O) {
  case Op::Add:
    Old = __atomic_fetch_add(&Amd.value, V, G);
    break;
  case Op::Sub:
    Old = __atomic_fetch_sub(&Amd.value, V, G);
    break;
  case Op::And:
    Old = __atomic_fetch_and(&Amd.value, V, G);
    break;
  case Op::Or:
    Old = __atomic_fetch_or(&Amd.value, V, G);
    break;
  case Op::Xor:
    Old = __atomic_fetch_xor(&Amd.value, V, G);
    break;
  case Op::Exchange:
    Old = __atomic_exchange_n(&Amd.value, V, G);
    break;
  }
  notify();
  return Old;
}

int64_t Signal::cas(int64_t Expected, int64_t V, std::memory_order Order) {
  int G = toGcc(Order);
  int Fail = G == __ATOMIC_RELEASE   ? __ATOMIC_RELAXED
             : G == __ATOMIC_ACQ_REL ? __ATOMIC_ACQUIRE
                                     : G;
  int64_t Old = Expected;
  if (__atomic_compare_exchange_n(&Amd.value, &Old, V, false, G, Fail))
    notify();
  return Old;
}

int64_t Signal::wait(hsa_signal_condition_t Cond, int64_t Compare,
                     uint64_t TimeoutTicks, hsa_wait_state_t /*Hint*/,
                     std::memory_order Order) {
  uint64_t Start = nowTicks();
  uint64_t Deadline =
      TimeoutTicks >= UINT64_MAX - Start ? UINT64_MAX : Start + TimeoutTicks;
  // Whatever the hint: HIP waits for every kernel with the active hint, and
  // a waiter that spun for the whole kernel took a core from the emulator
  // (a third of one on a 2-core machine). A round trip takes a few µs; past
  // that the waiter sleeps until notify() wakes it.
  uint64_t Spin = SpinNs;
  for (uint32_t Polls = 1;; ++Polls) {
    int64_t V = load(Order);
    if (conditionHolds(Cond, V, Compare))
      return V;
    if (Polls & 31) { // read the clock every 32 polls only
      cpuRelax();
      continue;
    }
    uint64_t Now = nowTicks();
    if (Now >= Deadline)
      return V;
    if (Now - Start < Spin) {
      // Let the thread that will satisfy us run if it shares this core.
      if (!(Polls & 511))
        std::this_thread::yield();
      continue;
    }
    Waiters.fetch_add(1, std::memory_order_seq_cst);
    uint32_t E = Epoch.load(std::memory_order_seq_cst);
    V = load(Order);
    if (!conditionHolds(Cond, V, Compare))
      futexWait(Epoch, E, std::min(RecheckNs, Deadline - Now));
    Waiters.fetch_sub(1, std::memory_order_seq_cst);
  }
}

namespace {
struct Table {
  std::shared_mutex Lock;
  std::unordered_map<uint64_t, Signal *> Live;
};

// Signals live in slabs registered with every virtual GPU, so kernels may
// update them (HIP's hostcall does), without one memory-map entry each.
struct Slabs {
  static constexpr size_t PerSlab = 512;
  std::mutex Lock;
  std::vector<void *> Free;
  std::vector<void *> Chunks;
  size_t InUse = 0;

  void *take() {
    std::lock_guard<std::mutex> L(Lock);
    if (Free.empty()) {
      size_t Bytes = PerSlab * sizeof(Signal);
      void *Chunk = std::aligned_alloc(alignof(Signal), Bytes);
      if (!Chunk)
        return nullptr;
      registerRange(Chunk, Bytes);
      Chunks.push_back(Chunk);
      for (size_t I = PerSlab; I-- > 0;)
        Free.push_back(static_cast<char *>(Chunk) + I * sizeof(Signal));
    }
    void *Slot = Free.back();
    Free.pop_back();
    ++InUse;
    return Slot;
  }
  void give(void *Slot) {
    std::lock_guard<std::mutex> L(Lock);
    Free.push_back(Slot);
    --InUse;
  }
  /// At shut-down: the devices (and their registrations) go; the next
  /// runtime registers fresh slabs. Slabs still in use are left alone.
  void reset() {
    std::lock_guard<std::mutex> L(Lock);
    if (InUse == 0)
      for (void *C : Chunks)
        std::free(C);
    Chunks.clear();
    Free.clear();
  }
};
Slabs &slabs() {
  static auto *S = new Slabs;
  return *S;
}
Table &table() {
  static Table *T = new Table; // outlives static destructors
  return *T;
}
} // namespace

Signal *SignalTable::create(int64_t Initial) {
  void *Slot = slabs().take();
  if (!Slot)
    return nullptr;
  Signal *S = new (Slot) Signal;
  std::memset(&S->Amd, 0, sizeof(S->Amd));
  S->Amd.kind = AMD_SIGNAL_KIND_USER;
  S->Amd.value = Initial;
  std::unique_lock<std::shared_mutex> L(table().Lock);
  table().Live.emplace(S->handle(), S);
  return S;
}

Signal *SignalTable::lookup(uint64_t Handle) {
  std::shared_lock<std::shared_mutex> L(table().Lock);
  auto It = table().Live.find(Handle);
  if (It == table().Live.end())
    return nullptr;
  It->second->Refs.fetch_add(1, std::memory_order_relaxed);
  return It->second;
}

void SignalTable::release(Signal *S) {
  if (S->Refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    S->~Signal();
    slabs().give(S);
  }
}

bool SignalTable::destroy(uint64_t Handle) {
  Signal *S;
  {
    std::unique_lock<std::shared_mutex> L(table().Lock);
    auto It = table().Live.find(Handle);
    if (It == table().Live.end())
      return false;
    S = It->second;
    table().Live.erase(It);
  }
  S->Amd.kind = AMD_SIGNAL_KIND_INVALID;
  release(S);
  return true;
}

void SignalTable::clear() {
  std::unordered_map<uint64_t, Signal *> Left;
  {
    std::unique_lock<std::shared_mutex> L(table().Lock);
    Left.swap(table().Live);
  }
  for (auto &[H, S] : Left)
    release(S);
  slabs().reset();
}

} // namespace loom::runtime
