// The hook of the counting tools (instr_count, opcode_hist, bb_count): one
// call per counting point adds 1 (the wave) and EXEC's active lanes to the
// point's slot of LoomCounts. The host side (Counting.h) knows which
// instructions each slot stands for.
//
// Scalar code only: the wave adds with scalar atomics (s_atomic_add_x2),
// which run whatever EXEC is, so a wave reaching the point with EXEC empty
// (a loop's tail once every lane has left, a wave whose lanes are all past
// an `if (i < n)`) is counted too, as the virtual GPU counts it. A hook
// written with loom::atomicAdd (vector memory) would not run there.
#include "loom/instrument/Hooks.h"

#include "CountSlots.h"

LOOM_DEVICE unsigned long long LoomCounts[2 * LOOM_COUNT_SLOTS];

// Exec: the wave's EXEC at the point; Offset: the byte offset of the
// point's slot in LoomCounts (16 bytes a slot, checked against
// LOOM_COUNT_SLOTS on the host). In this order EXEC arrives in an aligned
// register pair and the slot's address takes one add: the hook runs at
// every counted point, so each instruction saved here is saved there.
LOOM_HOOK void loom_count(uint64_t Exec, uint32_t Offset) {
  unsigned long long *Counts = reinterpret_cast<unsigned long long *>(
      reinterpret_cast<char *>(LoomCounts) + Offset);
  unsigned long long One = 1;
  unsigned long long Lanes = __builtin_popcountll(Exec);
  // Waits for its own atomics (lgkmcnt), so the kernel's own waits count
  // what they counted before.
  __asm__ volatile("s_atomic_add_x2 %0, %2, 0x0\n\t"
                   "s_atomic_add_x2 %1, %2, 0x8\n\t"
                   "s_waitcnt lgkmcnt(0)"
                   :
                   : "s"(One), "s"(Lanes), "s"(Counts)
                   : "memory");
}
