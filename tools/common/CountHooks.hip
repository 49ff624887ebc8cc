// The hook of the counting tools (instr_count, opcode_hist, bb_count): one
// call per counting point adds 1 (the wave) and EXEC's active lanes to the
// point's slot of LoomCounts. The host side (Counting.h) knows which
// instructions each slot stands for.
#include "loom/instrument/Hooks.h"

#include "CountSlots.h"

LOOM_DEVICE unsigned long long LoomCounts[2 * LOOM_COUNT_SLOTS];

// Slot: the point's counter (checked against LOOM_COUNT_SLOTS on the host);
// Exec: the wave's EXEC at the point.
LOOM_HOOK void loom_count(uint32_t Slot, uint64_t Exec) {
  if (loom::isFirstActiveLane()) {
    loom::atomicAdd(&LoomCounts[2 * Slot], 1ull);
    loom::atomicAdd(&LoomCounts[2 * Slot + 1],
                    (unsigned long long)__builtin_popcountll(Exec));
  }
}
