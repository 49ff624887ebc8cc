// The clobber tool's hook: overwrites every register a hook may (the
// scratch registers of the calling convention, VCC, M0, SCC), writes a
// stack frame of its own, then counts its point's kind, so instrumented
// code must save and restore them all, and keep the hooks' stack clear of
// the program's.
#include "loom/instrument/Hooks.h"

LOOM_DEVICE unsigned long long ClobberCounts[5]; // by ClobberPoint

LOOM_HOOK void clobber_hook(uint32_t Which) {
  asm volatile(
      "v_mov_b32 v0, -1\n v_mov_b32 v1, -2\n v_mov_b32 v2, -3\n"
      "v_mov_b32 v3, -4\n v_mov_b32 v4, -5\n v_mov_b32 v5, -6\n"
      "v_mov_b32 v6, -7\n v_mov_b32 v7, -8\n v_mov_b32 v31, -9\n"
      "s_mov_b32 s4, -1\n s_mov_b32 s5, -2\n s_mov_b32 s6, -3\n"
      "s_mov_b32 s7, -4\n s_mov_b32 s8, -5\n s_mov_b32 s9, -6\n"
      "s_mov_b32 s10, -7\n s_mov_b32 s11, -8\n s_mov_b32 s29, -9\n"
      "s_mov_b64 vcc, -1\n s_mov_b32 m0, -1\n s_cmp_eq_u32 0, 1\n" ::
          : "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v31", "s4", "s5",
            "s6", "s7", "s8", "s9", "s10", "s11", "s29", "vcc", "m0", "scc");
  volatile uint32_t Frame[16];
  for (uint32_t I = 0; I < 16; ++I)
    Frame[I] = Which + I;
  if (loom::isFirstActiveLane())
    loom::atomicAdd(&ClobberCounts[Which], 1ull);
}
