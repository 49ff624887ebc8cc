//===- faults.cpp - Kernels that must end in a reported fault -------------===//
#include "Kernel.h"

// Only work-item 0 misbehaves, so the faulting address is a single one.
DIFF_KERNEL store_at(uint32_t *P, uint64_t Index) {
  if (laneId() == 0)
    P[Index] = 0x5a5a5a5au;
}

DIFF_KERNEL load_from(uint32_t *Out, const uint32_t *P) {
  if (laneId() == 0)
    Out[0] = *P;
}

DIFF_KERNEL trap_now(uint32_t *Out) {
  Out[globalId()] = 1;
  __builtin_trap();
}

extern "C" DIFF_NOINLINE void faulting_callee(uint32_t *P, uint32_t V) {
  P[V & 1] = V;
}

DIFF_KERNEL store_in_callee(uint32_t *P) {
  if (laneId() == 0)
    faulting_callee(P, 2);
}

DIFF_KERNEL fill_ids(uint32_t *Out, uint32_t N) {
  uint32_t I = globalId();
  if (I < N)
    Out[I] = I * 3 + 1;
}

// Lane L stores L to P[L]: with a buffer of fewer than 64 words, the first
// lane past its end faults.
DIFF_KERNEL store_lanes(uint32_t *P) { P[laneId()] = laneId(); }

// The same with the lanes from N on inactive: nothing faults.
DIFF_KERNEL store_lanes_below(uint32_t *P, uint32_t N) {
  if (laneId() < N)
    P[laneId()] = laneId();
}

// Lane L stores L to word L / 6 of buffer L % 6: one instruction's lanes
// spread over more buffers than a wave keeps at hand.
DIFF_KERNEL store_spread(uint32_t *const *Buffers) {
  uint32_t L = laneId();
  Buffers[L % 6][L / 6] = L;
}

// Reads, then writes, the same words: on read-only memory the write faults.
DIFF_KERNEL increment_lanes(uint32_t *P) { P[laneId()] += 1; }
