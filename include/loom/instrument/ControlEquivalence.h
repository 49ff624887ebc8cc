//===- loom/instrument/ControlEquivalence.h - Blocks that run as often ----===//
//
// Which blocks of a function run equally often, so that a tool counting
// block executions needs one counter per class instead of one per block:
// block B is in the class of block A when A dominates B, B post-dominates A
// and both sit in the same natural loops (then every execution reaching A
// reaches B before A again or the exit, and no B runs without an A before
// it). The class of the entry block, when the entry is in no loop, runs
// exactly once per call: per wave, for a kernel, which the host knows
// without counting.
//
// Blocks the entry cannot reach, or that reach no exit, and every block of
// a function whose CFG is irreducible (a cycle with two entries) are each
// a class of their own: always correct, never merged.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_INSTRUMENT_CONTROLEQUIVALENCE_H
#define LOOM_INSTRUMENT_CONTROLEQUIVALENCE_H

#include "llvm/ADT/BitVector.h"

#include <vector>

namespace loom::instrument {

class BinaryFunction;

class ControlEquivalence {
public:
  /// \p F must have its CFG built.
  explicit ControlEquivalence(const BinaryFunction &F);

  unsigned numClasses() const { return Representatives.size(); }
  unsigned classOf(unsigned Block) const { return ClassOf[Block]; }
  /// The class's block that dominates the others (it runs first).
  unsigned representative(unsigned Class) const {
    return Representatives[Class];
  }
  /// True if the class's blocks run once per call of the function.
  bool runsOncePerCall(unsigned Class) const {
    return Class == ClassOf[0] && OncePerCall;
  }
  /// True if block \p Block is inside a loop (it may run more than once
  /// per call).
  bool inLoop(unsigned Block) const { return InLoop[Block]; }
  /// The natural loops block \p Block is in, by their headers (a bit per
  /// block); empty where the CFG is irreducible.
  const llvm::BitVector &loopsOf(unsigned Block) const { return Loops[Block]; }
  /// The blocks of the natural loop headed by \p Header.
  std::vector<unsigned> loopBody(unsigned Header) const;

private:
  std::vector<unsigned> ClassOf;
  std::vector<unsigned> Representatives;
  std::vector<bool> InLoop;
  std::vector<llvm::BitVector> Loops;
  bool OncePerCall = false;
};

} // namespace loom::instrument

#endif
