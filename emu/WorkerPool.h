//===- emu/WorkerPool.h - The threads that join dispatches ----------------===//
//
// A dispatch runs on its caller's thread and on pool threads that join it
// (Device.cpp). The pool hands a dispatch's N-1 joins to its threads in one
// step: the tasks are queued under one lock and every sleeping thread is
// woken with one futex call, instead of a lock, a queue push and a
// condition-variable wake per thread (llvm::StdThreadPool).
//
// An idle thread polls a short while (spinNs()) before it sleeps: dispatches
// of a few hundred microseconds back to back (kernels of 16 or 32
// work-groups on 16 cores) otherwise paid a sleeping thread's wake-up, tens
// to hundreds of microseconds on a virtual machine, at every dispatch, and
// the work-groups of the late threads were the dispatch's tail.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_EMU_WORKERPOOL_H
#define LOOM_EMU_WORKERPOOL_H

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
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

  /// Queues \p Count calls of \p Task (each on some pool thread) and wakes
  /// the threads.
  void post(unsigned Count, const std::function<void()> &Task);

  /// How long an idle thread polls for work before it sleeps (nanoseconds;
  /// LOOM_POOL_SPIN_US overrides it).
  static uint64_t spinNs();

private:
  void run();
  bool take(std::function<void()> &Task);

  std::mutex Lock;
  std::deque<std::function<void()>> Tasks;
  bool Stopping = false;
  /// Bumped by every post (the futex word sleeping threads wait on).
  alignas(64) std::atomic<uint32_t> Epoch{0};
  std::atomic<uint32_t> Sleepers{0};
  /// Tasks queued and not yet taken: what idle threads poll.
  alignas(64) std::atomic<uint32_t> Queued{0};
  unsigned Size;
  std::vector<std::thread> Threads; // guarded by Lock
};

} // namespace loom::emu

#endif // LOOM_EMU_WORKERPOOL_H
