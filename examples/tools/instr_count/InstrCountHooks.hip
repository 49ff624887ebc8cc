// The hooks of instr_count: one call before each instruction of the kernel.
#include "loom/instrument/Hooks.h"

LOOM_DEVICE unsigned long long WaveInstructions;
LOOM_DEVICE unsigned long long LaneInstructions;

// Exec: the wave's EXEC before the instruction; IsVector: whether the
// instruction runs per lane (it then counts once per active lane).
LOOM_HOOK void instr_count(uint64_t Exec, uint32_t IsVector) {
  if (loom::isFirstActiveLane()) {
    loom::atomicAdd(&WaveInstructions, 1ull);
    if (IsVector)
      loom::atomicAdd(&LaneInstructions,
                      (unsigned long long)__builtin_popcountll(Exec));
  }
}
