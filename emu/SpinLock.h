//===- emu/SpinLock.h - A lock for critical sections of a few loads -------===//
//
// A std::mutex that finds itself taken puts its thread to sleep at once,
// and each unlock wakes one sleeper: when a dispatch's pool threads all
// reach the same short critical section together, they pass it one
// wake-up after another (tens of microseconds each on a virtual machine).
// This lock spins instead, and yields the core when the holder seems
// descheduled.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_EMU_SPINLOCK_H
#define LOOM_EMU_SPINLOCK_H

#include <atomic>
#include <thread>

namespace loom::emu {

class SpinLock {
public:
  void lock() {
    for (unsigned Tries = 1;; ++Tries) {
      if (!Held.load(std::memory_order_relaxed) &&
          !Held.exchange(true, std::memory_order_acquire))
        return;
      if (Tries % 256 == 0)
        std::this_thread::yield();
      else
        __builtin_ia32_pause();
    }
  }
  void unlock() { Held.store(false, std::memory_order_release); }

private:
  std::atomic<bool> Held{false};
};

} // namespace loom::emu

#endif // LOOM_EMU_SPINLOCK_H
