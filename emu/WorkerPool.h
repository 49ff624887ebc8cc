//===- emu/WorkerPool.h - The threads that join dispatches ----------------===//
//
// A dispatch runs on its caller's thread and on pool threads that join it
// (Device.cpp). The pool hands a dispatch's N-1 joins to its threads in one
// step: the joins are queued as one entry and every sleeping thread is
// woken with one futex call, instead of a lock, a queue push and a
// condition-variable wake per thread (llvm::StdThreadPool). Threads take
// them under a spin lock: they all arrive at once.
//
// An idle thread polls for work before it sleeps, while a dispatch that
// posted to the pool still runs (up to MaxBusySpinNs) and spinNs() after:
// dispatches of a few hundred microseconds back to back (kernels of 16 or
// 32 work-groups on 16 cores) otherwise paid a sleeping thread's wake-up,
// tens of microseconds on a virtual machine, at every dispatch, and the
// threads that finished first, a group's time before the dispatch's end,
// were asleep when the next one came.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_EMU_WORKERPOOL_H
#define LOOM_EMU_WORKERPOOL_H

#include "SpinLock.h"

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace loom::emu {

class WorkerPool {
public:
  /// A pool of \p Threads threads, started by the first post().
  explicit WorkerPool(unsigned Threads);
  /// Runs the queued tasks, then ends the threads.
  ~WorkerPool();

  /// Queues \p Count calls of \p Fn (each on some pool thread) and wakes
  /// the threads. The poster calls finished() once the work is over.
  void post(unsigned Count, const std::function<void()> &Fn);
  /// Ends what a post() began: idle threads poll spinNs() more, then sleep.
  void finished();

  /// How long an idle thread polls for work before it sleeps (nanoseconds;
  /// LOOM_POOL_SPIN_US overrides it).
  static uint64_t spinNs();
  /// The most a thread polls while a dispatch runs (0 where spinNs() is).
  static uint64_t busySpinNs();

private:
  using Task = std::shared_ptr<const std::function<void()>>;
  /// One post: Left more threads are to call Fn.
  struct Post {
    Task Fn;
    unsigned Left;
  };

  void run();
  bool take(Task &Fn);

  SpinLock QueueLock;
  std::deque<Post> Tasks; // guarded by QueueLock
  std::atomic<bool> Stopping{false};
  /// Bumped by every post (the futex word sleeping threads wait on).
  alignas(64) std::atomic<uint32_t> Epoch{0};
  std::atomic<uint32_t> Sleepers{0};
  /// Tasks queued and not yet taken: what idle threads poll.
  alignas(64) std::atomic<uint32_t> Queued{0};
  /// Posts not yet finished().
  alignas(64) std::atomic<uint32_t> InFlight{0};
  unsigned Size;
  std::mutex StartLock;
  std::vector<std::thread> Threads; // guarded by StartLock
};

} // namespace loom::emu

#endif // LOOM_EMU_WORKERPOOL_H
