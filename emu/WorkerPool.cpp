//===- emu/WorkerPool.cpp - The threads that join dispatches --------------===//

#include "WorkerPool.h"
#include "Clock.h"
#include "Futex.h"

#include <cstdlib>
#include <thread>

namespace loom::emu {

namespace {

/// Longer than the gap between back-to-back dispatches (the host's packet
/// handling, a few µs) and than a wake-up, short enough that an idle
/// device gives its cores back at once.
constexpr uint64_t DefaultSpinNs = 50'000;
/// The most an idle thread polls while a dispatch runs: a thread done with
/// a dispatch's last work-groups waits at most one group's time for it to
/// end; where that is longer, a wake-up is a small part of the dispatch.
constexpr uint64_t MaxBusySpinNs = 1'000'000;

} // namespace

uint64_t WorkerPool::spinNs() {
  static const uint64_t Ns = [] {
    if (const char *Env = std::getenv("LOOM_POOL_SPIN_US"))
      return uint64_t(std::strtoull(Env, nullptr, 10)) * 1000;
    return DefaultSpinNs;
  }();
  return Ns;
}

uint64_t WorkerPool::busySpinNs() {
  return spinNs() ? MaxBusySpinNs : 0;
}

WorkerPool::WorkerPool(unsigned N) : Size(N) {}

WorkerPool::~WorkerPool() {
  Stopping.store(true, std::memory_order_seq_cst);
  Epoch.fetch_add(1, std::memory_order_seq_cst);
  futexWake(Epoch);
  std::lock_guard<std::mutex> G(StartLock);
  for (std::thread &T : Threads)
    T.join();
}

void WorkerPool::post(unsigned Count, const std::function<void()> &Fn) {
  InFlight.fetch_add(1, std::memory_order_relaxed); // until finished()
  if (!Count)
    return;
  {
    // Threads start with the first dispatch that needs them: a device that
    // only ever runs one work-group at a time has none (their stacks, once
    // freed, would also stay cached by the C library).
    std::lock_guard<std::mutex> G(StartLock);
    while (Threads.size() < Size)
      Threads.emplace_back([this] { run(); });
  }
  Post P{std::make_shared<const std::function<void()>>(Fn), Count};
  {
    std::lock_guard<SpinLock> G(QueueLock);
    Tasks.push_back(std::move(P));
    Queued.fetch_add(Count, std::memory_order_release);
  }
  Epoch.fetch_add(1, std::memory_order_seq_cst);
  if (Sleepers.load(std::memory_order_seq_cst))
    futexWake(Epoch);
}

void WorkerPool::finished() {
  InFlight.fetch_sub(1, std::memory_order_relaxed);
}

bool WorkerPool::take(Task &Fn) {
  std::lock_guard<SpinLock> G(QueueLock);
  if (Tasks.empty())
    return false;
  Post &P = Tasks.front();
  Fn = P.Fn;
  if (--P.Left == 0)
    Tasks.pop_front();
  Queued.fetch_sub(1, std::memory_order_relaxed);
  return true;
}

void WorkerPool::run() {
  Task Fn;
  while (true) {
    if (take(Fn)) {
      (*Fn)();
      Fn.reset();
      continue;
    }
    // Idle: poll the queue while a dispatch runs and a while after, then
    // sleep until a post.
    uint32_t E = Epoch.load(std::memory_order_seq_cst);
    uint64_t Start = nowNs(), Busy = Start, Spin = spinNs(),
             MaxSpin = busySpinNs();
    bool Work = false;
    for (unsigned Polls = 1; !Work; ++Polls) {
      Work = Queued.load(std::memory_order_acquire) != 0;
      if (Work || Epoch.load(std::memory_order_relaxed) != E) // or stopping
        break;
      if (Polls % 64 == 0) {
        uint64_t Now = nowNs();
        if (InFlight.load(std::memory_order_relaxed))
          Busy = Now;
        if (Now - Busy >= Spin || Now - Start >= MaxSpin)
          break;
        // A poller must not keep a thread with work off its core (more
        // threads than cores: other programs, or a busy 2-core machine).
        std::this_thread::yield();
      }
      __builtin_ia32_pause();
    }
    if (Work)
      continue;
    if (Stopping.load(std::memory_order_seq_cst) &&
        !Queued.load(std::memory_order_seq_cst))
      return;
    Sleepers.fetch_add(1, std::memory_order_seq_cst);
    if (Epoch.load(std::memory_order_seq_cst) == E &&
        Queued.load(std::memory_order_seq_cst) == 0 &&
        !Stopping.load(std::memory_order_seq_cst))
      futexWait(Epoch, E);
    Sleepers.fetch_sub(1, std::memory_order_seq_cst);
  }
}

} // namespace loom::emu
