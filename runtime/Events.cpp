//===- runtime/Events.cpp - System events and async signal handlers -------===//

#include "loom/runtime/Events.h"
#include "loom/runtime/Signal.h"

#include <condition_variable>
#include <list>
#include <mutex>
#include <thread>
#include <vector>

namespace loom::runtime {

//===--- System events ----------------------------------------------------===//

namespace {
struct SystemHandlers {
  std::mutex Lock;
  std::vector<std::pair<hsa_amd_system_event_callback_t, void *>> List;
};
SystemHandlers &systemHandlers() {
  static auto *H = new SystemHandlers;
  return *H;
}
} // namespace

void events::addSystemHandler(hsa_amd_system_event_callback_t Callback,
                              void *Data) {
  std::lock_guard<std::mutex> L(systemHandlers().Lock);
  systemHandlers().List.emplace_back(Callback, Data);
}

bool events::raise(const hsa_amd_event_t &E) {
  std::vector<std::pair<hsa_amd_system_event_callback_t, void *>> Copy;
  {
    std::lock_guard<std::mutex> L(systemHandlers().Lock);
    Copy = systemHandlers().List;
  }
  for (auto &[Callback, Data] : Copy)
    Callback(&E, Data);
  return !Copy.empty();
}

void events::clear() {
  std::lock_guard<std::mutex> L(systemHandlers().Lock);
  systemHandlers().List.clear();
}

//===--- Async handlers ---------------------------------------------------===//

namespace {
struct Handler {
  hsa_signal_t Signal;
  hsa_signal_condition_t Cond;
  hsa_signal_value_t Value;
  hsa_amd_signal_handler Fn;
  void *Arg;
  hsa_signal_value_t Seen = 0; ///< The value that satisfied the condition.
};

struct HandlerThread {
  std::mutex Lock;
  std::list<Handler> Handlers;
  std::vector<std::pair<void (*)(void *), void *>> Functions;
  std::thread Worker;
  std::atomic<bool> Stop{false};
  std::atomic<uint32_t> Changed{0};

  void run();
  void ensureStarted() {
    if (!Worker.joinable()) {
      Stop = false;
      Worker = std::thread([this] { run(); });
    }
  }
  void poke() {
    Changed.fetch_add(1);
    // The worker sleeps on signal activity: bump it through a signal-less
    // wake of the activity word.
    wakeActivity();
  }
  static void wakeActivity();
};

HandlerThread &handlerThread() {
  static auto *H = new HandlerThread;
  return *H;
}

// A private signal whose updates wake everything waiting on activity.
Signal *&pokeSignal() {
  static Signal *S = nullptr;
  return S;
}

void HandlerThread::wakeActivity() {
  if (Signal *S = pokeSignal())
    S->notify();
}

void HandlerThread::run() {
  while (!Stop.load()) {
    uint32_t E = activityEpoch();
    uint32_t C = Changed.load();
    std::vector<std::pair<void (*)(void *), void *>> Fns;
    std::vector<Handler> Ready;
    {
      std::lock_guard<std::mutex> L(Lock);
      Fns.swap(Functions);
      for (auto It = Handlers.begin(); It != Handlers.end();) {
        SignalRef S(It->Signal);
        if (!S) { // destroyed: drop the handler
          It = Handlers.erase(It);
          continue;
        }
        int64_t V = S->load(std::memory_order_acquire);
        if (conditionHolds(It->Cond, V, It->Value)) {
          Ready.push_back(*It);
          Ready.back().Seen = V;
          It = Handlers.erase(It);
          continue;
        }
        ++It;
      }
    }
    for (auto &[Fn, Arg] : Fns)
      Fn(Arg);
    for (Handler &H : Ready) {
      if (H.Fn(H.Seen, H.Arg)) { // true: keep the handler armed
        std::lock_guard<std::mutex> L(Lock);
        Handlers.push_back(H);
      }
    }
    if (Fns.empty() && Ready.empty() && Changed.load() == C)
      waitActivity(E, 5'000'000);
  }
}
} // namespace

hsa_status_t async::addHandler(hsa_signal_t S, hsa_signal_condition_t Cond,
                               hsa_signal_value_t Value,
                               hsa_amd_signal_handler Fn, void *Arg) {
  HandlerThread &H = handlerThread();
  {
    std::lock_guard<std::mutex> L(H.Lock);
    if (!pokeSignal())
      pokeSignal() = SignalTable::create(0);
    H.Handlers.push_back({S, Cond, Value, Fn, Arg});
    H.ensureStarted();
  }
  H.poke();
  return HSA_STATUS_SUCCESS;
}

hsa_status_t async::addFunction(void (*Fn)(void *), void *Arg) {
  HandlerThread &H = handlerThread();
  {
    std::lock_guard<std::mutex> L(H.Lock);
    if (!pokeSignal())
      pokeSignal() = SignalTable::create(0);
    H.Functions.emplace_back(Fn, Arg);
    H.ensureStarted();
  }
  H.poke();
  return HSA_STATUS_SUCCESS;
}

void async::shutdown() {
  HandlerThread &H = handlerThread();
  if (!H.Worker.joinable())
    return;
  H.Stop = true;
  H.poke();
  H.Worker.join();
  H.Worker = std::thread();
  std::lock_guard<std::mutex> L(H.Lock);
  H.Handlers.clear();
  H.Functions.clear();
  if (pokeSignal()) {
    SignalTable::destroy(pokeSignal()->handle());
    pokeSignal() = nullptr;
  }
}

} // namespace loom::runtime
