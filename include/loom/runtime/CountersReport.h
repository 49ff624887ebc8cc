//===- loom/runtime/CountersReport.h - Ground truth of every dispatch -----===//
//
// `loom exec --counters FILE` (LOOM_COUNTERS=FILE) writes, per dispatch,
// what the virtual GPU itself counted: one JSON object per line (JSON
// Lines), schema in docs/counters.md. `--memory-trace FILE`
// (LOOM_MEMORY_TRACE=FILE) adds every memory access, one per line. This is
// the reference instrumentation tools are checked against.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_RUNTIME_COUNTERSREPORT_H
#define LOOM_RUNTIME_COUNTERSREPORT_H

#include "loom/emu/Device.h"

#include <cstdio>
#include <mutex>

namespace loom::runtime {

class CountersReport {
public:
  /// The process's report, or null when neither file was asked for.
  static CountersReport *get();

  bool wantsCounters() const { return Counters != nullptr; }
  bool wantsMemoryTrace() const { return Trace != nullptr; }

  /// Appends dispatch \p Result of \p Params on GPU node \p Node, which
  /// the virtual GPU ran in \p Seconds (wall time, counting included).
  void record(unsigned Node, const emu::DispatchParams &Params,
              const emu::DispatchResult &Result, double Seconds);

private:
  CountersReport() = default;
  std::FILE *Counters = nullptr;
  std::FILE *Trace = nullptr;
  std::mutex Lock;
  uint64_t Dispatches = 0;
};

} // namespace loom::runtime

#endif // LOOM_RUNTIME_COUNTERSREPORT_H
