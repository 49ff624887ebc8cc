//===- DispatchOracle.h - Lifted code checked against what ran ------------===//
//
// The checks of one completed dispatch against the lifted code object it
// ran from (LiftOracleTest.cpp lists them): every executed instruction is a
// lifted one, block starts agree, control enters and leaves blocks only at
// their ends, the counts admit a flow on the lifted CFG, and recorded memory
// accesses fit the lifted instructions' properties. Shared by the
// differential corpus (emu::Device dispatches) and the HIP test programs
// (the counters `loom exec` writes).
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TESTS_INSTRUMENT_DISPATCHORACLE_H
#define LOOM_TESTS_INSTRUMENT_DISPATCHORACLE_H

#include "loom/emu/Counters.h"
#include "loom/instrument/BinaryContext.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <set>
#include <string>

namespace loom::instrument::test {

struct OracleTotals {
  uint64_t Dispatches = 0;
  uint64_t FunctionsChecked = 0;
  uint64_t InstructionAddresses = 0;
  uint64_t WaveInstructions = 0;
  uint64_t BlocksChecked = 0;
  uint64_t ExecutedBlocks = 0;
  uint64_t FlowChecks = 0;
  uint64_t FlowInferred = 0;
  uint64_t MemoryShapes = 0;
  std::set<std::string> KernelsRun; // "file:kernel"

  /// "N dispatches of K kernels checked: ..., M memory access shapes".
  std::string str() const;
};

/// Checks the dispatch of \p Kernel that counted \p C against \p BC (its
/// code object, CFGs built), reporting to GoogleTest; adds to \p T.
void checkDispatch(BinaryContext &BC, llvm::StringRef Kernel,
                   const emu::DispatchCounters &C, OracleTotals &T);

} // namespace loom::instrument::test

#endif
