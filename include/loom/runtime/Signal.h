//===- loom/runtime/Signal.h - HSA signals laid out as amd_signal_t -------===//
//
// A signal's handle is the address of its amd_signal_t (as in ROCr), so a
// client that reads the value through the handle works; signal memory is
// registered with every virtual GPU, so kernels may update it too. Waiters spin
// briefly, then sleep on a futex that every update through the runtime
// wakes; a long wait also rechecks the value every few milliseconds, so a
// value written straight into memory is noticed too.
//
// Waits on several signals at once (wait-any, barrier packets, async
// handlers, copy dependencies) sleep on one process-wide "signal activity"
// futex that every update bumps while such waiters exist.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_RUNTIME_SIGNAL_H
#define LOOM_RUNTIME_SIGNAL_H

#include "hsa/amd_hsa_signal.h"
#include "hsa/hsa.h"

#include <atomic>
#include <cstdint>
#include <functional>

namespace loom::runtime {

class Queue;

/// Nanoseconds of a monotonic clock: the runtime's timestamp (1 GHz).
uint64_t nowTicks();

class Signal {
public:
  /// The value, with the given order (relaxed / acquire / seq_cst ...).
  int64_t load(std::memory_order Order) const {
    return __atomic_load_n(&Amd.value, toGcc(Order));
  }
  void store(int64_t V, std::memory_order Order) {
    __atomic_store_n(&Amd.value, V, toGcc(Order));
    notify();
  }
  /// Stores without waking waiters (hsa_signal_silent_store_*).
  void silentStore(int64_t V, std::memory_order Order) {
    __atomic_store_n(&Amd.value, V, toGcc(Order));
  }
  enum class Op { Add, Sub, And, Or, Xor, Exchange };
  int64_t rmw(Op O, int64_t V, std::memory_order Order);
  int64_t cas(int64_t Expected, int64_t V, std::memory_order Order);

  /// Waits until the value satisfies \p Cond against \p Compare or
  /// \p TimeoutTicks pass; returns the last value seen. \p Hint is not
  /// followed: every wait spins 20 µs, then sleeps until an update
  /// through the runtime (notify()) wakes it.
  int64_t wait(hsa_signal_condition_t Cond, int64_t Compare,
               uint64_t TimeoutTicks, hsa_wait_state_t Hint,
               std::memory_order Order);

  /// Wakes every waiter (after an update through the runtime).
  void notify();

  uint64_t handle() const { return reinterpret_cast<uint64_t>(&Amd); }
  amd_signal_t &amd() { return Amd; }

  /// Set for a queue's doorbell: stores wake the queue's packet processor.
  Queue *DoorbellOf = nullptr;

private:
  friend class SignalTable;
  Signal() = default;
  static int toGcc(std::memory_order O) {
    switch (O) {
    case std::memory_order_relaxed:
      return __ATOMIC_RELAXED;
    case std::memory_order_acquire:
    case std::memory_order_consume:
      return __ATOMIC_ACQUIRE;
    case std::memory_order_release:
      return __ATOMIC_RELEASE;
    case std::memory_order_acq_rel:
      return __ATOMIC_ACQ_REL;
    default:
      return __ATOMIC_SEQ_CST;
    }
  }

  amd_signal_t Amd; // the handle points here
  std::atomic<uint32_t> Epoch{0};   // bumped by every notify (futex word)
  std::atomic<uint32_t> Waiters{0}; // sleeping in wait()
  std::atomic<uint32_t> Refs{1};    // the table's, plus each SignalRef's
};

/// True if \p V satisfies \p Cond against \p Compare.
bool conditionHolds(hsa_signal_condition_t Cond, int64_t V, int64_t Compare);

/// The live signals, by handle. lookup() returns a reference the caller
/// must release(); a destroyed signal's memory stays valid until its last
/// reference goes.
class SignalTable {
public:
  static Signal *create(int64_t Initial);
  static Signal *lookup(uint64_t Handle);
  static void release(Signal *S);
  /// False if \p Handle is not a live signal.
  static bool destroy(uint64_t Handle);
  /// Destroys every signal left (at shut-down).
  static void clear();
};

/// A counted reference from SignalTable::lookup.
class SignalRef {
public:
  explicit SignalRef(uint64_t Handle)
      : S(Handle ? SignalTable::lookup(Handle) : nullptr) {}
  explicit SignalRef(hsa_signal_t H) : SignalRef(H.handle) {}
  SignalRef(SignalRef &&O) noexcept : S(O.S) { O.S = nullptr; }
  SignalRef(const SignalRef &) = delete;
  ~SignalRef() {
    if (S)
      SignalTable::release(S);
  }
  Signal *operator->() const { return S; }
  Signal *get() const { return S; }
  explicit operator bool() const { return S != nullptr; }

private:
  Signal *S;
};

/// The process-wide signal-activity counter (see the file comment).
uint32_t activityEpoch();
/// Sleeps until the activity counter moves past \p Epoch or \p MaxNs pass.
void waitActivity(uint32_t Epoch, uint64_t MaxNs);
/// Waits until \p Ready() holds, \p DeadlineTicks passes, or \p Stop is
/// raised; spins briefly, then sleeps on signal activity. Returns Ready().
bool waitUntil(const std::function<bool()> &Ready, uint64_t DeadlineTicks,
               const std::atomic<bool> *Stop = nullptr);

/// futex helpers on a 32-bit word.
void futexWait(std::atomic<uint32_t> &Word, uint32_t Expected,
               uint64_t MaxNs);
void futexWakeAll(std::atomic<uint32_t> &Word);

} // namespace loom::runtime

#endif // LOOM_RUNTIME_SIGNAL_H
