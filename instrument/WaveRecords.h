//===- instrument/WaveRecords.h - Once-per-wave counters in lanes -*- C++ -*-===//
//
// Internal to instrument/. A wave counter a tool marks OncePerWave (its
// adds sit where a wave passes at most once: a kernel's blocks outside
// loops) is kept in a lane of a pair of VGPRs the copy reserves for the
// wave's life, not in SGPRs: its add is a v_writelane (of 1, or of EXEC's
// halves, one to each VGPR of the pair), which runs whatever EXEC is, needs
// no scratch register and leaves SCC alone. The preamble zeroes the pairs
// under EXEC = -1; before each s_endpgm every lane's EXEC halves become
// their lane count (v_bcnt), and one global_atomic_add_x2 per run of
// records with consecutive words adds each lane to its own word (the
// lane's index times 8 from the run's base). A plan of several such counters
// so pays one vector atomic a wave instead of scalar atomics at each.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_INSTRUMENT_WAVERECORDS_H
#define LOOM_INSTRUMENT_WAVERECORDS_H

#include "loom/instrument/Instrumenter.h"
#include "loom/instrument/WaitStates.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace loom::instrument::detail {

class WaveRecords {
public:
  /// Lanes for the OncePerWave counters of \p Counters, in their order,
  /// whose words are at \p Addresses (0: none, never flushed).
  WaveRecords(llvm::ArrayRef<WaveCounter> Counters,
              llvm::ArrayRef<uint64_t> Addresses);

  bool empty() const { return Pairs == 0; }
  /// VGPR pairs the records take (64 records a pair).
  unsigned pairs() const { return Pairs; }
  /// The even VGPR the first pair starts at (set once they are placed).
  void place(unsigned FirstVgpr) { First = FirstVgpr; }
  unsigned firstVgpr() const { return First; }
  bool isRecord(unsigned Counter) const {
    return Counter < LaneOf.size() && LaneOf[Counter] >= 0;
  }

  /// Zeroes the pairs; EXEC must be -1.
  void emitZero(llvm::raw_ostream &OS) const;
  /// Add \p A (to a record: Amount 1), as instructions and as the wait-state
  /// rules see them.
  void emitAdd(llvm::raw_ostream &OS, const CounterAdd &A) const;
  std::vector<HazardInst> addHazards(const CounterAdd &A) const;
  /// Before an s_endpgm (nothing live): every record to its word, through
  /// VGPR \p Offsets and SGPR pair \p Base (neither a record's). Leaves
  /// EXEC changed.
  void emitFlush(llvm::raw_ostream &OS, unsigned Offsets, unsigned Base) const;
  /// The flush's first instructions.
  std::vector<HazardInst> flushHeadHazards() const;

private:
  /// A run of records in consecutive lanes of one pair, with consecutive
  /// 8-byte words from Address.
  struct Run {
    unsigned Pair = 0, FirstLane = 0, Count = 0;
    uint64_t Address = 0;
  };
  std::vector<int> LaneOf; ///< per counter: pair * 64 + lane, or -1
  std::vector<Run> Runs;
  unsigned Pairs = 0, First = 0;
  bool AnyAboveLane31 = false;
};

} // namespace loom::instrument::detail

#endif // LOOM_INSTRUMENT_WAVERECORDS_H
