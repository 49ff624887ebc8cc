//===- loom/runtime/MemoryTraceLine.h - One memory access as JSON ---------===//
//
// The keys of one memory access of `loom exec --memory-trace` (JSON Lines,
// docs/counters.md). `loom trace show --json` prints mem_trace's accesses
// with the same keys, then its own (docs/tools.md), so that one reader
// takes both: this is their one definition. Header-only: the runtime
// writes it, and the CLI's trace reader does, without the other's library.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_RUNTIME_MEMORYTRACELINE_H
#define LOOM_RUNTIME_MEMORYTRACELINE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <cstdint>

namespace loom::runtime {

/// An access's "space", by number: the virtual GPU's
/// (emu::MemoryAccessRecord::Space) and mem_trace's (trace::Space).
inline llvm::StringRef memorySpaceName(unsigned Space) {
  static constexpr const char *Names[] = {"global", "lds", "scratch",
                                          "scalar"};
  return Space < std::size(Names) ? Names[Space] : "unknown";
}

struct MemoryTraceLine {
  uint64_t Dispatch = 0;
  uint64_t Pc = 0;
  uint64_t Wave = 0; ///< in the dispatch
  uint64_t Exec = 0; ///< the lanes of this access
  unsigned Space = 0;
  bool Write = false; ///< a store, or an atomic
  bool Atomic = false;
  uint32_t BytesPerLane = 0;
  llvm::ArrayRef<uint64_t> Addresses; ///< per lane of Exec, in lane order
};

/// Writes \p L's keys into the JSON object \p J is writing.
inline void writeMemoryTraceKeys(llvm::json::OStream &J,
                                 const MemoryTraceLine &L) {
  J.attribute("dispatch", L.Dispatch);
  J.attribute("pc", L.Pc);
  J.attribute("wave", L.Wave);
  J.attribute("exec", llvm::formatv("{0:x16}", L.Exec).str());
  J.attribute("space", memorySpaceName(L.Space));
  J.attribute("direction", L.Write ? "write" : "read");
  J.attribute("atomic", L.Atomic);
  J.attribute("bytes_per_lane", L.BytesPerLane);
  J.attributeArray("addresses", [&] {
    for (uint64_t A : L.Addresses)
      J.value(A);
  });
}

} // namespace loom::runtime

#endif // LOOM_RUNTIME_MEMORYTRACELINE_H
