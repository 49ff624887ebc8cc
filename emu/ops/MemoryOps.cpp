//===- emu/ops/MemoryOps.cpp - FLAT, GLOBAL, SCRATCH, DS, MUBUF -----------===//
//
// The vector memory families: FlatOps.cpp (FLAT, GLOBAL, SCRATCH), DsOps.cpp
// (LDS and the DS lane permutes), BufferOps.cpp (MUBUF and cache control).
// What they share - the private memory layout, data widths, access plans and
// checks, atomic operations - is in Scratch.h.
//
// Memory operations complete when their handler returns (s_waitcnt never
// waits), in lane order within an instruction.
//
//===----------------------------------------------------------------------===//

#include "Scratch.h"

namespace loom::emu {

void registerMemoryOps(HandlerTable &T) {
  registerFlatOps(T);
  registerDsOps(T);
  registerBufferOps(T);
}

} // namespace loom::emu
