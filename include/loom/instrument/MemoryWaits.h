//===- loom/instrument/MemoryWaits.h - Memory results still in flight -----===//
//
// Which registers an outstanding memory instruction may still write, by the
// s_waitcnt counter that tracks it. Inserted code needs a wait before it
// touches such a register (a late result would overwrite what it saved or
// computed), and none otherwise: most points wait for nothing. Also says
// whether code leaves memory operations of its own in flight at its end.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_INSTRUMENT_MEMORYWAITS_H
#define LOOM_INSTRUMENT_MEMORYWAITS_H

#include "loom/instrument/RegisterSet.h"

#include <vector>

namespace loom::instrument {

class BinaryFunction;
struct BinaryInstruction;

/// Memory operations in flight, by the counter that tracks them (GFX9:
/// vmcnt for vector memory, lgkmcnt for LDS and scalar memory; flat
/// counts on both).
struct PendingMemory {
  RegisterSet Vm, Lgkm; ///< registers results may still arrive in
  bool AnyVm = false, AnyLgkm = false; ///< any operation, stores included

  /// Everything may be in flight (an unknown caller or callee).
  static PendingMemory unknown();
  /// After \p I.
  void step(const BinaryInstruction &I);
  void join(const PendingMemory &O);
  RegisterSet registers() const { return Vm | Lgkm; }
  friend bool operator==(const PendingMemory &A, const PendingMemory &B) {
    return A.Vm == B.Vm && A.Lgkm == B.Lgkm && A.AnyVm == B.AnyVm &&
           A.AnyLgkm == B.AnyLgkm;
  }
};

/// PendingMemory before every instruction of a function: \p Entry at its
/// entry (by default nothing for a kernel, everything for a device
/// function), everything after calls.
class PendingMemoryAnalysis {
public:
  explicit PendingMemoryAnalysis(const BinaryFunction &F);
  PendingMemoryAnalysis(const BinaryFunction &F, const PendingMemory &Entry);
  /// At the start of block \p B; step it through the block's
  /// instructions for the state before each.
  const PendingMemory &blockIn(unsigned B) const { return In[B]; }
  /// At the end of block \p B (after its last instruction).
  const PendingMemory &blockOut(unsigned B) const { return Out[B]; }

private:
  std::vector<PendingMemory> In, Out;
};

} // namespace loom::instrument

#endif
