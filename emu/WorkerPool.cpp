//===- emu/WorkerPool.cpp - The threads that join dispatches --------------===//

#include "WorkerPool.h"
#include "Clock.h"

#include <climits>
#include <cstdlib>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace loom::emu {

namespace {

/// Longer than the gap between back-to-back dispatches (the host's packet
/// handling, a few µs) and than a wake-up, short enough that an idle
/// device gives its cores back at once.
constexpr uint64_t DefaultSpinNs = 50'000;

} // namespace

uint64_t WorkerPool::spinNs() {
  static const uint64_t Ns = [] {
    if (const char *Env = std::getenv("LOOM_POOL_SPIN_US"))
      return uint64_t(std::strtoull(Env, nullptr, 10)) * 1000;
    return DefaultSpinNs;
  }();
  return Ns;
}

WorkerPool::WorkerPool(unsigned N) : Size(N) {}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> G(Lock);
    Stopping = true;
  }
  Epoch.fetch_add(1, std::memory_order_seq_cst);
  syscall(SYS_futex, reinterpret_cast<uint32_t *>(&Epoch), FUTEX_WAKE_PRIVATE,
          INT_MAX, nullptr, nullptr, 0);
  for (std::thread &T : Threads)
    T.join();
}

void WorkerPool::post(unsigned Count, const std::function<void()> &Task) {
  if (!Count)
    return;
  {
    std::lock_guard<std::mutex> G(Lock);
    // Threads start with the first dispatch that needs them: a device that
    // only ever runs one work-group at a time has none (their stacks, once
    // freed, would also stay cached by the C library).
    while (Threads.size() < Size)
      Threads.emplace_back([this] { run(); });
    for (unsigned I = 0; I < Count; ++I)
      Tasks.push_back(Task);
    Queued.fetch_add(Count, std::memory_order_release);
  }
  Epoch.fetch_add(1, std::memory_order_seq_cst);
  if (Sleepers.load(std::memory_order_seq_cst))
    syscall(SYS_futex, reinterpret_cast<uint32_t *>(&Epoch),
            FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
}

bool WorkerPool::take(std::function<void()> &Task) {
  std::lock_guard<std::mutex> G(Lock);
  if (Tasks.empty())
    return false;
  Task = std::move(Tasks.front());
  Tasks.pop_front();
  Queued.fetch_sub(1, std::memory_order_relaxed);
  return true;
}

void WorkerPool::run() {
  std::function<void()> Task;
  while (true) {
    if (take(Task)) {
      Task();
      Task = nullptr;
      continue;
    }
    // Idle: poll the queue for a while, then sleep until a post.
    uint32_t E = Epoch.load(std::memory_order_seq_cst);
    uint64_t Start = nowNs(), Spin = spinNs();
    bool Work = false;
    for (unsigned Polls = 1; !Work; ++Polls) {
      Work = Queued.load(std::memory_order_acquire) != 0;
      if (Work || Epoch.load(std::memory_order_relaxed) != E || // stopping
          (Polls % 64 == 0 && nowNs() - Start >= Spin))
        break;
      __builtin_ia32_pause();
    }
    if (Work)
      continue;
    {
      std::lock_guard<std::mutex> G(Lock);
      if (Stopping && Tasks.empty())
        return;
      if (!Tasks.empty())
        continue;
    }
    Sleepers.fetch_add(1, std::memory_order_seq_cst);
    if (Epoch.load(std::memory_order_seq_cst) == E &&
        Queued.load(std::memory_order_seq_cst) == 0)
      syscall(SYS_futex, reinterpret_cast<uint32_t *>(&Epoch),
              FUTEX_WAIT_PRIVATE, E, nullptr, nullptr, 0);
    Sleepers.fetch_sub(1, std::memory_order_seq_cst);
  }
}

} // namespace loom::emu
