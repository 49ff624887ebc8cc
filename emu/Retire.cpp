//===- emu/Retire.cpp - Free what running dispatches may still use --------===//
//
// Epochs: a dispatch records the epoch at which it began; a release
// records the epoch at which it was asked for and advances it. A release
// may run once every running dispatch began after it.
//
//===----------------------------------------------------------------------===//

#include "loom/emu/Retire.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <vector>

namespace loom::emu {

namespace {
struct Epochs {
  std::mutex Lock;
  uint64_t Now = 0;
  /// Running dispatches per epoch at which they began, oldest first (the
  /// epochs only grow, so a deque without per-dispatch allocation).
  std::deque<std::pair<uint64_t, uint64_t>> Running;
  std::deque<std::pair<uint64_t, std::function<void()>>> Pending;
  std::condition_variable NoneRunning;
};
std::atomic<bool> Stopping{false};
// Never destroyed: dispatches may end during static destruction.
Epochs &epochs() {
  static auto *E = new Epochs;
  return *E;
}
} // namespace

uint64_t beginDispatch() {
  Epochs &E = epochs();
  std::lock_guard<std::mutex> G(E.Lock);
  if (E.Running.empty() || E.Running.back().first != E.Now)
    E.Running.emplace_back(E.Now, 0);
  ++E.Running.back().second;
  return E.Now;
}

void endDispatch(uint64_t Token) {
  Epochs &E = epochs();
  std::vector<std::function<void()>> Ready;
  {
    std::lock_guard<std::mutex> G(E.Lock);
    for (auto &[Epoch, N] : E.Running)
      if (Epoch == Token) {
        --N;
        break;
      }
    while (!E.Running.empty() && E.Running.front().second == 0)
      E.Running.pop_front();
    if (E.Running.empty())
      E.NoneRunning.notify_all();
    if (E.Pending.empty())
      return;
    uint64_t Oldest = E.Running.empty() ? UINT64_MAX : E.Running.front().first;
    while (!E.Pending.empty() && E.Pending.front().first < Oldest) {
      Ready.push_back(std::move(E.Pending.front().second));
      E.Pending.pop_front();
    }
  }
  for (auto &R : Ready)
    R();
}

void retireAfterDispatches(std::function<void()> Release) {
  Epochs &E = epochs();
  {
    std::lock_guard<std::mutex> G(E.Lock);
    if (!E.Running.empty()) {
      E.Pending.emplace_back(E.Now++, std::move(Release));
      return;
    }
  }
  Release();
}

void stopAllDispatches() {
  Stopping.store(true);
  Epochs &E = epochs();
  std::unique_lock<std::mutex> G(E.Lock);
  // Bounded: a worker stuck outside the emulator must not hang exit.
  E.NoneRunning.wait_for(G, std::chrono::seconds(5),
                         [&] { return E.Running.empty(); });
}

namespace {
std::atomic<bool> Armed{false};
}

void armStopAtExit() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    std::atexit(stopAllDispatches);
    Armed.store(true);
  });
}

bool stopAtExitArmed() { return Armed.load(std::memory_order_relaxed); }

bool stoppingAllDispatches() {
  return Stopping.load(std::memory_order_relaxed);
}

} // namespace loom::emu
