//===- emu/DispatchProfile.h - Where a dispatch's wall time goes ----------===//
//
// LOOM_DISPATCH_PROFILE=1 times each dispatch's phases (set-up, waking the
// pool, each worker's start, work-groups and end, the wait for the last
// worker) and prints, at exit, their means per kernel on stderr. It
// answers why N threads run a short dispatch at less than N times one
// thread's rate: late workers, a last group that runs alone, or fixed
// costs. Off, it costs a load and a branch per dispatch and per worker.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_EMU_DISPATCHPROFILE_H
#define LOOM_EMU_DISPATCHPROFILE_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <vector>

namespace loom::emu {

class DispatchProfile {
public:
  /// Whether LOOM_DISPATCH_PROFILE=1 (read once).
  static bool enabled();

  /// A worker's times, on a line of its own (each is written by its
  /// worker while the others run).
  struct alignas(64) Worker {
    uint64_t Join = 0, Done = 0;
    uint64_t GroupNs = 0, LongestGroupNs = 0;
    uint32_t Groups = 0;
    /// Groups this worker took over, and its wait for them.
    uint32_t Takeovers = 0;
    uint64_t TakeoverWaitNs = 0;
  };

  /// Starts the dispatch's clock.
  DispatchProfile();

  uint64_t Start = 0;  ///< dispatch entered
  uint64_t Post = 0;   ///< the pool is about to be woken
  uint64_t Posted = 0; ///< ... and was (the dispatching thread runs now)
  uint64_t Closed = 0; ///< every worker has left
  std::vector<Worker> Workers; ///< sized by the dispatch

  /// Adds this dispatch, ended now, to \p Kernel's means.
  void finish(llvm::StringRef Kernel);
};

} // namespace loom::emu

#endif // LOOM_EMU_DISPATCHPROFILE_H
