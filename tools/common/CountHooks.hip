// The hooks of the counting tools (instr_count, opcode_hist, bb_count): one
// call per counting point adds 1 (the wave) and/or EXEC's active lanes to
// the point's slot of LoomCounts. The host side (Counting.h) knows which
// instructions each slot stands for, and which counts it needs.
//
// Scalar code only: the wave adds with scalar atomics (s_atomic_add_x2),
// which run whatever EXEC is, so a wave reaching the point with EXEC empty
// (a loop's tail once every lane has left, a wave whose lanes are all past
// an `if (i < n)`) is counted too, as the virtual GPU counts it. A hook
// written with loom::atomicAdd (vector memory) would not run there.
#include "loom/instrument/Hooks.h"

#include "CountSlots.h"

LOOM_DEVICE unsigned long long LoomCounts[2 * LOOM_COUNT_SLOTS];

// Offset: the byte offset of the point's slot in LoomCounts (16 bytes a
// slot, checked against LOOM_COUNT_SLOTS on the host), so that the slot's
// address takes one add; EXEC is read where it is. A hook runs at every
// counted point: each instruction saved here is saved there.
static inline __attribute__((device, always_inline)) unsigned long long *
slot(uint32_t Offset) {
  return reinterpret_cast<unsigned long long *>(
      reinterpret_cast<char *>(LoomCounts) + Offset);
}

// Waits for its own atomics (lgkmcnt), so the kernel's own waits count what
// they counted before.
#define LOOM_SCALAR_ADD(VALUE, AT, OFFSET)                                     \
  __asm__ volatile("s_atomic_add_x2 %0, %1, " #OFFSET "\n\t"                  \
                   "s_waitcnt lgkmcnt(0)"                                      \
                   :                                                           \
                   : "s"(VALUE), "s"(AT)                                       \
                   : "memory")

// The wave (1) and its active lanes.
LOOM_HOOK void loom_count(uint32_t Offset) {
  unsigned long long *Counts = slot(Offset);
  unsigned long long One = 1;
  unsigned long long Lanes = loom::activeLanes();
  __asm__ volatile("s_atomic_add_x2 %0, %2, 0x0\n\t"
                   "s_atomic_add_x2 %1, %2, 0x8\n\t"
                   "s_waitcnt lgkmcnt(0)"
                   :
                   : "s"(One), "s"(Lanes), "s"(Counts)
                   : "memory");
}

// The wave only: a point whose instructions are all scalar, or a block
// entry counted for itself.
LOOM_HOOK void loom_count_waves(uint32_t Offset) {
  unsigned long long One = 1;
  LOOM_SCALAR_ADD(One, slot(Offset), 0x0);
}

// The active lanes only: a point inside a block (after an EXEC write),
// which as many waves reach as reach the block's entry.
LOOM_HOOK void loom_count_lanes(uint32_t Offset) {
  unsigned long long Lanes = loom::activeLanes();
  LOOM_SCALAR_ADD(Lanes, slot(Offset), 0x8);
}

// A wave that lost lanes to an s_and_saveexec_b64 (Saved: the mask it
// saved; EXEC: what is left), called before the s_cbranch_execz after it
// only on such waves (HookRequest::UnlessExecIs): the lanes lost, and the
// wave if none is left (it skips the block the branch guards). The host
// works the block's waves and lanes out from them (Counting.h, Loss).
LOOM_HOOK void loom_count_lost(uint32_t Offset, uint32_t SavedLo,
                               uint32_t SavedHi) {
  unsigned long long Saved =
      (static_cast<unsigned long long>(SavedHi) << 32) | SavedLo;
  // EXEC as it is: the compiler takes a function's EXEC for non-empty.
  unsigned long long Exec;
  __asm__ volatile("s_mov_b64 %0, exec" : "=s"(Exec));
  unsigned long long Lost = __builtin_popcountll(Saved & ~Exec);
  uint32_t None; // scalar: the compiler would compare in a VGPR
  __asm__ volatile("s_cmp_eq_u64 %1, 0\n\ts_cselect_b32 %0, 1, 0"
                   : "=s"(None)
                   : "s"(Exec)
                   : "scc");
  unsigned long long Skipped = None;
  unsigned long long *Counts = slot(Offset);
  __asm__ volatile("s_atomic_add_x2 %0, %2, 0x0\n\t"
                   "s_atomic_add_x2 %1, %2, 0x8\n\t"
                   "s_waitcnt lgkmcnt(0)"
                   :
                   : "s"(Skipped), "s"(Lost), "s"(Counts)
                   : "memory");
}
