//===- tools/mem_trace/TraceSummary.h - What a memory trace adds up to ----===//
//
// `loom trace show --summary`: per kind of access, wave-accesses, lanes and
// bytes; coalescing of vector global accesses (distinct 64-byte lines per
// wave-access, against the fewest their distinct bytes could fit in); LDS
// bank conflicts per access, by the model of docs/tools.md:
//
//   gfx90a's LDS has 32 banks of 4 bytes (bank = address bits 6:2). A
//   wave64 access is served in phases of 128 bytes of lanes: 32 lanes for
//   accesses of 4 bytes or less, 16 for 8 bytes, 8 for 12 and 16 bytes.
//   In a phase, a bank serves one dword per cycle and lanes reading the
//   same dword share it (broadcast), so the phase takes as many cycles as
//   the most distinct dwords any one bank holds; an access's conflict
//   cycles are what its phases take beyond one cycle each.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TOOLS_MEMTRACE_TRACESUMMARY_H
#define LOOM_TOOLS_MEMTRACE_TRACESUMMARY_H

#include "TraceFile.h"

#include <map>
#include <string>

namespace loom::trace {

/// 64-byte lines the lanes of \p A touch (a lane's bytes may cross a line).
uint64_t distinctLines(const TraceAccess &A, uint32_t Bytes);
/// The fewest 64-byte lines the distinct bytes of \p A could fit in.
uint64_t fewestLines(const TraceAccess &A, uint32_t Bytes);
/// LDS conflict cycles of \p A (0: conflict-free), and the worst bank
/// degree of its phases in \p Degree.
uint64_t ldsConflictCycles(const TraceAccess &A, uint32_t Bytes,
                           unsigned *Degree = nullptr);

class TraceSummary : public TraceVisitor {
public:
  void site(const TraceSite &S) override { Sites[S.Id] = S; }
  void dispatch(const TraceDispatch &) override { ++Dispatches; }
  void access(const TraceAccess &A, const TraceSite &S) override;

  /// The summary as text, ending with a per-site list of the worst
  /// coalesced and most conflicting instructions (\p Top of each).
  void print(llvm::raw_ostream &OS, unsigned Top = 10) const;

  struct Totals {
    uint64_t Accesses = 0, Lanes = 0, Bytes = 0;
    uint64_t Lines = 0, FewestLines = 0, LineAccesses = 0; // vector, not LDS
    uint64_t ConflictCycles = 0, ConflictedAccesses = 0; // LDS
    unsigned WorstDegree = 0;
    void add(const Totals &O);
  };
  /// By "instruction kind -> space" ("flat->lds", "global", "scalar").
  const std::map<std::string, Totals> &byKind() const { return ByKind; }
  const Totals &all() const { return All; }

private:
  uint64_t Dispatches = 0;
  std::map<uint32_t, TraceSite> Sites;
  std::map<std::string, Totals> ByKind;
  std::map<uint32_t, Totals> BySite;
  Totals All;
};

} // namespace loom::trace

#endif // LOOM_TOOLS_MEMTRACE_TRACESUMMARY_H
