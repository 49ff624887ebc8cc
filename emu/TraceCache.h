//===- emu/TraceCache.h - Hot traces of a code region, compiled -----------===//
//
// Tiering for one CodeRegion. As the region is decoded, its traces (runs
// of instructions the trace compiler handles, inside one basic block; see
// TraceCompiler.h) are found and the handler of each trace's first instruction is
// replaced by a counting one. When a trace's runs over all waves reach
// Threshold, the thread that noticed compiles it, and the first
// instruction's handler becomes one that calls the compiled code.
//
// The compiled code runs only when the interpreter would give the same
// result without looking at more than the registers: in the default float
// MODE and without GPR indexing (with counters on, a second compiled copy
// counts as the interpreter does). Otherwise (and while a trace is cold,
// or if it failed to compile) the instruction's own handler runs and the
// interpreter goes on one instruction at a time.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_EMU_TRACECACHE_H
#define LOOM_EMU_TRACECACHE_H

#include "Inst.h"
#include "TraceCompiler.h"

#include <atomic>
#include <bit>
#include <iterator>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace loom::emu {

class Decoder;

class TraceCache {
public:
  /// The traces of \p Insts (\p Size instruction slots of the region named
  /// \p RegionName). \p Threshold is the number of runs (over all waves)
  /// after which a trace compiles (at least 1).
  TraceCache(DecodedInst *Insts, uint32_t Size, const Decoder &Dec,
             uint32_t Threshold, std::string RegionName);

  /// Finds the traces among the decoded instructions [First, End), before
  /// any wave runs them, and installs the counting handler at their heads.
  void scan(uint32_t First, uint32_t End);

  struct Trace {
    std::vector<trace::Op> Ops;
    Handler Original = nullptr;
    /// Runs counted so far; workers add theirs in batches (TraceTally).
    std::atomic<uint32_t> Runs{0};
    uint32_t CompileAt = 1; ///< runs that make it hot
    uint32_t Batch = 1;     ///< runs a worker counts before adding them
    trace::TraceFn Run = nullptr;
    /// Compiled when a wave first runs the trace with counters on.
    std::atomic<trace::CountedTraceFn> RunCounted{nullptr};
    bool CountedFailed = false;
  };

  /// The trace starting at instruction \p Index (which must be a head).
  Trace &at(uint32_t Index) { return *Heads[Index]; }

  /// Compiles the trace at \p Index and switches its head to the compiled
  /// code; on failure the trace stays with the interpreter.
  void compile(uint32_t Index);
  /// The counting copy of the compiled trace at \p Index, compiled on
  /// first use; null if it cannot be.
  trace::CountedTraceFn counted(uint32_t Index);


private:
  /// "region+0xoffset", for messages.
  std::string name(uint32_t Index) const;

  DecodedInst *Insts;
  std::vector<std::unique_ptr<Trace>> Heads; // by instruction index
  const Decoder &Dec;
  uint32_t Threshold;
  std::string RegionName;
  std::mutex CompileLock;
};

/// A worker's runs of cold traces not yet added to the traces' shared
/// counts. A store to the trace's own count on every run made two workers
/// running the same code take turns owning its cache line: countTrace was
/// 3-19 % of the realistic set's samples on two threads, almost all of it
/// waiting for that line. A worker now adds a trace's runs every
/// Trace::Batch runs (a thousandth of the threshold: with 64, the adds were
/// still 10 % of Divergence), when another trace takes its entry, and when
/// it leaves a dispatch; a locked add, so that exactly one worker sees the
/// count reach CompileAt.
class TraceTally {
public:
  /// Counts a run of the trace \p T at \p Index of \p C; compiles it once
  /// the runs added reach its CompileAt.
  void count(TraceCache &C, uint32_t Index, TraceCache::Trace &T) {
    unsigned Slot = slotOf(&T);
    Entry &E = Entries[Slot];
    if (E.T != &T) [[unlikely]] {
      add(E);
      E = {&C, &T, Index, 0};
      Used[Slot / 64] |= uint64_t(1) << (Slot % 64);
    }
    if (++E.Runs >= T.Batch)
      add(E);
  }
  /// Adds every pending run to its trace. Called when a worker leaves a
  /// dispatch, after which a code region may go away.
  void flush() {
    for (unsigned W = 0; W < std::size(Used); ++W)
      for (; Used[W]; Used[W] &= Used[W] - 1) {
        Entry &E = Entries[64 * W + std::countr_zero(Used[W])];
        add(E);
        E = Entry();
      }
  }

private:
  struct Entry {
    TraceCache *Cache = nullptr;
    TraceCache::Trace *T = nullptr;
    uint32_t Index = 0;
    uint32_t Runs = 0;
  };
  static constexpr unsigned Bits = 8;

  static unsigned slotOf(const void *T) {
    return (reinterpret_cast<uintptr_t>(T) * 0x9e3779b97f4a7c15ull) >>
           (64 - Bits);
  }
  /// Adds \p E's runs to its trace, and compiles the trace if they are
  /// the ones that make it hot (one worker sees that; the others go on
  /// interpreting while it compiles).
  static void add(Entry &E) {
    if (!E.Runs)
      return;
    uint32_t Runs = E.Runs;
    E.Runs = 0;
    uint32_t Before = E.T->Runs.fetch_add(Runs, std::memory_order_relaxed);
    if (Before < E.T->CompileAt && Before + Runs >= E.T->CompileAt)
      [[unlikely]] E.Cache->compile(E.Index);
  }

  Entry Entries[1u << Bits];
  uint64_t Used[(1u << Bits) / 64] = {}; ///< entries flush must look at
};

/// The trace threshold a device uses: \p Option, or LOOM_TRACE_THRESHOLD
/// when set (0 turns the trace compiler off).
uint32_t traceThreshold(uint32_t Option);

} // namespace loom::emu

#endif // LOOM_EMU_TRACECACHE_H
