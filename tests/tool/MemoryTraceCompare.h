//===- tests/tool/MemoryTraceCompare.h - mem_trace against the truth ------===//
//
// Compares a mem_trace trace (`loom trace show FILE --json`) with the
// virtual GPU's record of the same program (`loom exec --memory-trace T
// --counters C`, docs/counters.md), for any program: the HIP test
// programs here, and the differential corpus once it runs under tools.
//
// Equal means: per dispatch and wave, the same number of accesses in the
// same order, each of the same instruction (function + offset: the pc
// differs between two runs, the counters name it), space, direction,
// atomicity, bytes per lane, EXEC and addresses. LDS and scratch addresses
// are offsets and must be equal; global and scalar addresses differ from
// run to run by where buffers were placed, so they are equal up to one
// displacement per dispatch and 4 KiB page of the truth's address (a
// buffer moves whole; every lane's address, relative to the others, must
// match exactly), or, given each dispatch's buffers in both runs, by their
// offset in their buffer. With ExactAddresses (two traces of one run), no
// displacement is allowed.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TESTS_TOOL_MEMORYTRACECOMPARE_H
#define LOOM_TESTS_TOOL_MEMORYTRACECOMPARE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace loom::test {

struct MemoryAccess {
  uint64_t Dispatch = 0, Wave = 0;
  std::string Instruction; ///< "function+0xoffset"
  std::string Space, Direction;
  bool Atomic = false;
  uint64_t BytesPerLane = 0;
  uint64_t Exec = 0;
  std::vector<uint64_t> Addresses;
};

/// `loom exec --memory-trace` lines, their pcs named through the
/// `--counters` lines of the same run.
llvm::Expected<std::vector<MemoryAccess>>
readTruthTrace(llvm::StringRef TracePath, llvm::StringRef CountersPath);

/// `loom trace show FILE --json` output (its "function" and "offset").
llvm::Expected<std::vector<MemoryAccess>>
parseMemTraceJson(llvm::StringRef Json);

/// Per dispatch, the values of its 8-byte arguments (the buffers it was
/// given), in argument order: the same arguments in two runs of a program.
using DispatchBuffers = std::map<uint64_t, std::vector<uint64_t>>;

struct CompareOptions {
  bool ExactAddresses = false;
  unsigned MaxDifferences = 20;
  /// When both are given, a global or scalar address may also be as far
  /// above the traced run's value of the argument whose truth value is the
  /// nearest below it as it is in the truth: a buffer's lanes, wherever
  /// each run's allocator put it (two buffers sharing a 4 KiB page may
  /// move apart). The first address of a page sets the page's
  /// displacement either way, so a lane off in its buffer still differs
  /// from the rest of its page; what no argument explains (the kernarg
  /// segment, the dispatch packet) keeps to the page rule.
  const DispatchBuffers *TruthBuffers = nullptr, *TracedBuffers = nullptr;
};

/// The differences, at most MaxDifferences of them; none if equal.
std::vector<std::string>
compareMemoryTraces(const std::vector<MemoryAccess> &Truth,
                    const std::vector<MemoryAccess> &Traced,
                    const CompareOptions &Options = {});

} // namespace loom::test

#endif // LOOM_TESTS_TOOL_MEMORYTRACECOMPARE_H
