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

// At: the device address of the point's slot (or word) in LoomCounts, a
// constant the glue sets with two s_mov_b32 (HookArg::globalAddress), so
// that points at different slots share their code and no add is left to
// the hook; EXEC is read where it is. A hook runs at every counted point:
// each instruction saved here is saved there.
static inline __attribute__((device, always_inline)) unsigned long long *
slot(unsigned long long At) {
  return reinterpret_cast<unsigned long long *>(At);
}

// Waits for its own atomics (lgkmcnt), so the kernel's own waits count what
// they counted before.
#define LOOM_SCALAR_ADD(VALUE, AT, OFFSET)                                     \
  __asm__ volatile("s_atomic_add_x2 %0, %1, " #OFFSET "\n\t"                  \
                   "s_waitcnt lgkmcnt(0)"                                      \
                   :                                                           \
                   : "s"(VALUE), "s"(AT)                                       \
                   : "memory")

// The wave (1) and its active lanes, in the slot's two words: a point a
// wave may pass many times (in a loop, in a function).
LOOM_HOOK void loom_count(unsigned long long At) {
  unsigned long long *Counts = slot(At);
  unsigned long long One = 1;
  unsigned long long Lanes = loom::activeLanes();
  __asm__ volatile("s_atomic_add_x2 %0, %2, 0x0\n\t"
                   "s_atomic_add_x2 %1, %2, 0x8\n\t"
                   "s_waitcnt lgkmcnt(0)"
                   :
                   : "s"(One), "s"(Lanes), "s"(Counts)
                   : "memory");
}

// The same for a point a wave passes at most once per dispatch: the wave
// and its lanes packed in the slot's first word, one atomic
// (LOOM_COUNT_WAVE_SHIFT; the host unpacks).
LOOM_HOOK void loom_count_once(unsigned long long At) {
  unsigned long long Packed =
      (1ull << LOOM_COUNT_WAVE_SHIFT) | loom::activeLanes();
  LOOM_SCALAR_ADD(Packed, slot(At), 0x0);
}

// The wave only: a point whose instructions are all scalar, or a block
// entry counted for itself.
LOOM_HOOK void loom_count_waves(unsigned long long At) {
  unsigned long long One = 1;
  LOOM_SCALAR_ADD(One, slot(At), 0x0);
}

// The active lanes only: a point inside a block (after an EXEC write),
// which as many waves reach as reach the block's entry.
LOOM_HOOK void loom_count_lanes(unsigned long long At) {
  unsigned long long Lanes = loom::activeLanes();
  LOOM_SCALAR_ADD(Lanes, slot(At), 0x8);
}

// A wave that lost lanes to an s_and_saveexec_b64 (Saved: the mask it
// saved; EXEC: what is left), called before the s_cbranch_execz after it
// only on such waves (HookRequest::UnlessExecIs): the lanes lost, and the
// wave if none is left (it skips the block the branch guards), packed in
// one word as loom_count_once packs them (once per wave: the kernel's top).
// The host works the block's waves and lanes out from them (Counting.h,
// Loss).
LOOM_HOOK void loom_count_lost(unsigned long long At, uint32_t SavedLo,
                               uint32_t SavedHi) {
  unsigned long long Saved =
      (static_cast<unsigned long long>(SavedHi) << 32) | SavedLo;
  // EXEC read where it is (the compiler takes a function's EXEC for
  // non-empty, and would copy it first), the halves in 32 bits each (the
  // compiler's popcount is 64 bits wide: a zero high word and an s_or_b64
  // more), so that the pair is built where they are.
  unsigned long long Rest;
  uint32_t Lost, Skipped;
  __asm__ volatile("s_andn2_b64 %2, %3, exec\n\t"
                   "s_bcnt1_i32_b64 %0, %2\n\t"
                   "s_cmp_eq_u64 exec, 0\n\t"
                   "s_cselect_b32 %1, %4, 0"
                   : "=s"(Lost), "=s"(Skipped), "=&s"(Rest)
                   : "s"(Saved), "n"(1u << (LOOM_COUNT_WAVE_SHIFT - 32))
                   : "scc");
  unsigned long long Packed =
      (static_cast<unsigned long long>(Skipped) << 32) | Lost;
  LOOM_SCALAR_ADD(Packed, slot(At), 0x0);
}
