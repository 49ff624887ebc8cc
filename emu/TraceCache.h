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
    std::atomic<uint32_t> Runs{0};
    uint32_t CompileAt = 1; ///< runs that make it hot
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

/// The trace threshold a device uses: \p Option, or LOOM_TRACE_THRESHOLD
/// when set (0 turns the trace compiler off).
uint32_t traceThreshold(uint32_t Option);

} // namespace loom::emu

#endif // LOOM_EMU_TRACECACHE_H
