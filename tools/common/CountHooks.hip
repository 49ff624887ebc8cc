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

// Slot: the point's counter (checked against LOOM_COUNT_SLOTS on the host);
// Exec: the wave's EXEC at the point.
LOOM_HOOK void loom_count(uint32_t Slot, uint64_t Exec) {
  unsigned long long *Counts = &LoomCounts[2 * Slot];
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
