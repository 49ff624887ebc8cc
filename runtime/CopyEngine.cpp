//===- runtime/CopyEngine.cpp - Asynchronous copies on a worker thread ----===//
//
// hsa_amd_memory_async_copy(_rect) and fills queue tasks here. The worker
// runs the first task whose dependency signals are all 0 (tasks may finish
// out of submission order, as on several SDMA engines), then decrements the
// task's completion signal.
//
//===----------------------------------------------------------------------===//

#include "loom/runtime/Memory.h"
#include "loom/runtime/Signal.h"

#include <condition_variable>
#include <deque>
#include <thread>

namespace loom::runtime {

namespace {
struct Engine {
  std::mutex Lock;
  std::condition_variable Wake;
  std::deque<CopyEngine::Task> Tasks;
  std::thread Worker;
  bool Stop = false;
  std::atomic<bool> Profiling{false};
  std::atomic<bool> StopFlag{false};

  void run();
};

Engine &engine() {
  static auto *E = new Engine;
  return *E;
}

bool depsSatisfied(const CopyEngine::Task &T) {
  for (hsa_signal_t D : T.Deps) {
    SignalRef S(D);
    // A dependency destroyed under us counts as satisfied.
    if (S && S->load(std::memory_order_acquire) != 0)
      return false;
  }
  return true;
}

void Engine::run() {
  std::unique_lock<std::mutex> L(Lock);
  while (true) {
    Wake.wait(L, [&] { return Stop || !Tasks.empty(); });
    if (Tasks.empty() && Stop)
      return;
    // The first ready task; if none, sleep on signal activity.
    auto It = Tasks.begin();
    for (; It != Tasks.end(); ++It)
      if (depsSatisfied(*It))
        break;
    if (It == Tasks.end()) {
      uint32_t E = activityEpoch();
      L.unlock();
      bool Ready = false;
      {
        std::lock_guard<std::mutex> G(Lock);
        for (auto &T : Tasks)
          Ready |= depsSatisfied(T);
      }
      if (!Ready)
        waitActivity(E, 2'000'000);
      L.lock();
      continue;
    }
    CopyEngine::Task T = std::move(*It);
    Tasks.erase(It);
    L.unlock();
    uint64_t Start = nowTicks();
    if (T.Work)
      T.Work();
    uint64_t End = nowTicks();
    if (SignalRef C(T.Completion); C) {
      if (Profiling.load(std::memory_order_relaxed)) {
        C->amd().start_ts = Start;
        C->amd().end_ts = End;
      }
      C->rmw(Signal::Op::Sub, 1, std::memory_order_release);
    }
    L.lock();
  }
}
} // namespace

void CopyEngine::submit(Task T) {
  Engine &E = engine();
  std::lock_guard<std::mutex> L(E.Lock);
  if (!E.Worker.joinable()) {
    E.Stop = false;
    E.Worker = std::thread([&E] { E.run(); });
  }
  E.Tasks.push_back(std::move(T));
  E.Wake.notify_one();
}

void CopyEngine::shutdown() {
  Engine &E = engine();
  {
    std::lock_guard<std::mutex> L(E.Lock);
    if (!E.Worker.joinable())
      return;
    // Copies whose dependencies never come are dropped.
    for (auto It = E.Tasks.begin(); It != E.Tasks.end();)
      It = depsSatisfied(*It) ? std::next(It) : E.Tasks.erase(It);
    E.Stop = true;
    E.Wake.notify_one();
  }
  E.Worker.join();
  E.Worker = std::thread();
}

void CopyEngine::setProfiling(bool On) { engine().Profiling = On; }
bool CopyEngine::profiling() { return engine().Profiling; }

} // namespace loom::runtime
