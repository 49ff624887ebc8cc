//===- emu/Takeover.h - Idle workers take over started work-groups --------===//
//
// A dispatch's work-groups are equal and indivisible for the claiming
// counter: on cores of unequal speed (a busy virtual machine's, one
// thread's rate 25-56 M/s), the dispatch lasts as long as the slowest core
// takes for its last group while faster cores sit idle (docs/performance.md,
// "Session 10"). Once every group is claimed, an idle worker takes a
// started group over from a slower busy one and runs the rest of it. The
// groups that are left so end up on the fastest cores, the one whose group
// would end last first (longest remaining time on the fastest core).
//
// The hand-over happens at the owner's safe point, between two rounds of
// the group (all its waves stopped between time slices, at a barrier or
// not), or, for a one-wave group, at the next taken branch or trace inside
// a slice (Wave::Preempt): the group's waves, registers and LDS are plain
// memory, so the owner swaps them with the thief's spare memory of the same
// shape and never runs the group again; the thief continues the same
// round-robin, so the group's waves run in the order they would have on
// its owner and results are bit-identical. A group runs on one thread at a
// time.
//
// Taking only helps once a worker is idle: with as many groups as workers
// (16 one-wave groups on 16 threads) a slow core's group ends late while
// the fast ones have nothing left to take. So in the dispatch's tail a busy
// faster worker whose group is ahead also exchanges it for a slower
// worker's group that is behind (swap()): the same hand-over, with the
// asker's own group in its spare memory. The groups so share the cores'
// speeds and end closer together, with every core busy.
//
// What an owner pays while nobody is idle: two relaxed stores (the wave time
// slices it has run, published for thieves' speed estimates) and a relaxed
// load of its request word per round of a group; a one-wave group's wave
// also loads that word at each taken branch and trace; in the tail, a
// clock read per round and a scan of the workers every 20 us.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_EMU_TAKEOVER_H
#define LOOM_EMU_TAKEOVER_H

#include "loom/emu/Device.h"

#include <atomic>
#include <cstdint>
#include <memory>

namespace loom::emu {

/// \p Option, or LOOM_TAKEOVERS's: 0 off, 1 on, "always".
TakeoverMode takeoverMode(TakeoverMode Option);

/// The takeover protocol between a dispatch's workers: what each publishes,
/// requests and answers. The group itself is opaque here (Device.cpp).
class Takeovers {
public:
  /// A worker's published progress and its hand-over words, each written
  /// side on a line of its own.
  struct alignas(64) Slot {
    // Written by the owner.
    std::atomic<uint64_t> Start{0};  ///< joined the dispatch (ns); 0: not yet
    /// Wave time slices run in it: the measure of work (a group's waves
    /// run the same slices wherever they run; counting instructions cost
    /// the interpreter's loop a register).
    std::atomic<uint64_t> Slices{0};
    /// Slices run so far of the group it would give.
    std::atomic<uint64_t> GroupSlices{0};
    /// Started groups it would give (0 while it has claimed groups to start).
    std::atomic<uint32_t> Held{0};
    /// The owner's memory that a victim swaps the group into (set by the
    /// owner before it asks; read by the victim it asked).
    void *Spare = nullptr;
    /// Whether Spare holds the asker's own group, to exchange for the
    /// victim's (swap()) rather than empty memory (take()).
    bool Swapping = false;
    // Written by a thief asking this worker: its index + 1, or Closed.
    alignas(64) std::atomic<uint32_t> Request{0};
    // Written by the victim this worker asked: the group, or Refused.
    alignas(64) std::atomic<void *> Answer{nullptr};
  };

  /// Slots for \p Workers workers running \p Groups groups; mode() stays
  /// Off with fewer than two workers.
  void start(unsigned Workers, uint64_t Groups, TakeoverMode M);
  TakeoverMode mode() const { return Mode; }
  Slot &slot(unsigned W) { return Slots[W]; }

  // --- Owner side ----------------------------------------------------------
  /// Whether a thief waits for an answer (one relaxed load: the owner's
  /// scheduling point).
  bool asked(unsigned W) const {
    return Slots[W].Request.load(std::memory_order_relaxed) != 0;
  }
  /// The thief that asked \p W, or -1 (after asked()).
  int asker(unsigned W);
  /// Hands \p Group (already swapped into the thief's spare memory) to
  /// \p Thief, or refuses where \p Group is null, and takes requests again.
  void answer(unsigned W, unsigned Thief, void *Group);
  /// Leaves the dispatch: refuses a pending request and takes no more.
  void close(unsigned W);
  /// Always: waits up to \p MaxNs for every worker to join, so that
  /// groups have somewhere to move from the start.
  void awaitJoins(uint64_t MaxNs) const;
  /// Groups taken over so far.
  uint64_t taken() const { return Taken.load(std::memory_order_relaxed); }
  /// One-wave groups handed over (taken or exchanged) inside a slice.
  uint64_t takenMidSlice() const {
    return MidSlice.load(std::memory_order_relaxed);
  }
  void noteMidSlice() { MidSlice.fetch_add(1, std::memory_order_relaxed); }
  /// The word a one-wave group's wave on \p W polls at its safe points
  /// inside a slice (Wave::Preempt): \p W's request word.
  const std::atomic<uint32_t> *safePoint(unsigned W) const {
    return &Slots[W].Request;
  }
  /// Notes a finished group's size, the estimate of a group's work.
  void noteGroup(uint64_t Slices) {
    GroupSize.store(Slices, std::memory_order_relaxed);
    if (Mode == TakeoverMode::Always)
      Unfinished.fetch_sub(1, std::memory_order_relaxed);
  }

  // --- Thief side ----------------------------------------------------------
  /// Takes a group over for \p Thief (its Spare set, its Held 0), idle
  /// since \p IdleSince: the group, or null where none is worth taking or
  /// \p Stop is set. Always: waits while any group is unfinished where
  /// \p Wait. \p WaitNs: the time from asking to the answer.
  void *take(unsigned Thief, uint64_t IdleSince, const std::atomic<bool> &Stop,
             bool Wait, uint64_t &WaitNs);

  /// The slower worker \p W should exchange its one group (\p Done slices
  /// run) with, in the dispatch's tail: the one whose group is furthest
  /// from its end, if the exchange brings the later of the two ends
  /// forward by at least MinGainNs (both groups keep running: no core
  /// idles). Always: any holder of one group. -1: none.
  int swapPartner(unsigned W, uint64_t Done) const;
  /// Asks \p Partner to exchange groups with \p W, whose group waits in
  /// its Spare (Swapping set): \p W's new group, or null where \p Partner
  /// refused. \p WaitNs: the time from asking to the answer.
  void *swap(unsigned W, unsigned Partner, uint64_t &WaitNs);
  /// Exchanges so far.
  uint64_t swapped() const { return Swapped.load(std::memory_order_relaxed); }

private:
  /// The worker \p Thief, idle since \p IdleSince, should take a group
  /// from: On: one holding several, or the one whose group would end last
  /// among those it runs slower than it would; Always: any holder. -1: none,
  /// -2: none now (Always, groups unfinished).
  int pick(unsigned Thief, uint64_t IdleSince) const;
  /// Asks \p Victim for a group; false if another thief was first or it
  /// left. After true, the thief must await() the answer.
  bool ask(unsigned Thief, unsigned Victim);
  /// The answer to ask() (the group, or null); refuses requests to
  /// \p Thief meanwhile.
  void *await(unsigned Thief);

  static constexpr uint32_t Closed = ~0u;

  TakeoverMode Mode = TakeoverMode::Off;
  unsigned Workers = 0;
  std::unique_ptr<Slot[]> Slots;
  /// The last finished group's slices (0: none yet).
  alignas(64) std::atomic<uint64_t> GroupSize{0};
  /// Groups not finished (Always only: its thieves wait while any is).
  std::atomic<uint64_t> Unfinished{0};
  std::atomic<uint64_t> Taken{0};
  std::atomic<uint64_t> MidSlice{0};
  std::atomic<uint64_t> Swapped{0};
};

} // namespace loom::emu

#endif // LOOM_EMU_TAKEOVER_H
