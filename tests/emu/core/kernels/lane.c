// Moves and cross-lane operations: v_readlane / v_readfirstlane /
// v_writelane (which ignore EXEC), v_swap, AGPR moves, and the lane
// builtins clang lowers to them and to DPP.
#define KERNEL __attribute__((amdgpu_kernel, visibility("default")))

typedef unsigned u32;
typedef unsigned long u64;

static inline u32 gid(void) {
  return __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
}

// Inline asm needs its "s" operands in SGPRs, which clang -O0 does not
// guarantee: the pinned-instruction kernels are built when optimising.
#ifdef __OPTIMIZE__

#define MASKED(text)                                                           \
  "s_mov_b64 s[40:41], exec\n s_mov_b64 exec, %[m]\n " text                   \
  "\n s_mov_b64 exec, s[40:41]"

// Scalar results (one per wave): r = op(a, s).
#define TO_SCALAR(name, text)                                                  \
  KERNEL void name(u32 *out, const u32 *a, u32 s, u64 m) {                     \
    u32 i = gid(), r;                                                          \
    asm volatile(MASKED(text)                                                  \
                 : [r] "=&s"(r)                                                \
                 : [a] "v"(a[i]), [s] "s"(s), [m] "s"(m)                       \
                 : "s40", "s41");                                              \
    out[i / 64] = r;                                                           \
  }
TO_SCALAR(readlane_sgpr, "v_readlane_b32 %[r], %[a], %[s]")
TO_SCALAR(readlane_m0, "s_mov_b32 m0, %[s]\n v_readlane_b32 %[r], %[a], m0")
TO_SCALAR(readlane_const, "v_readlane_b32 %[r], %[a], 37")
TO_SCALAR(readfirstlane, "v_readfirstlane_b32 %[r], %[a]")

// Vector results: d (old value from out) and e (old value from out2).
#define TO_VECTOR(name, text)                                                  \
  KERNEL void name(u32 *out, u32 *out2, const u32 *a, u32 s, u64 m) {          \
    u32 i = gid(), d = out[i], e = out2[i];                                    \
    asm volatile(MASKED(text)                                                  \
                 : [d] "+v"(d), [e] "+v"(e)                                    \
                 : [a] "v"(a[i]), [s] "s"(s), [m] "s"(m)                       \
                 : "s40", "s41", "a0", "a1");                                  \
    out[i] = d;                                                                \
    out2[i] = e;                                                               \
  }
TO_VECTOR(writelane_sgpr, "v_writelane_b32 %[d], %[s], %[s]")
TO_VECTOR(writelane_const, "v_writelane_b32 %[d], -3, 60")
TO_VECTOR(swap, "v_swap_b32 %[d], %[e]")
TO_VECTOR(mov_sgpr, "v_mov_b32 %[d], %[s]")
TO_VECTOR(mov_const, "v_mov_b32_e64 %[d], -16")
TO_VECTOR(mov_literal, "v_mov_b32 %[d], 0xcafe1234")
TO_VECTOR(accvgpr,
          "v_accvgpr_write_b32 a0, %[a]\n v_accvgpr_mov_b32 a1, a0\n"
          " v_accvgpr_write_b32 a0, 64\n v_accvgpr_read_b32 %[d], a1\n"
          " v_accvgpr_read_b32 %[e], a0")

// GPR indexing as clang -O0 uses it for dynamically indexed vectors:
// v_mov_b32 reads v[1 + s] (SRC0) or writes v[1 + s] (DST).
#define GPR_IDX(name, text)                                                    \
  KERNEL void name(u32 *out, u32 *out2, const u32 *a, u32 s, u64 m) {          \
    u32 i = gid(), d = out[i], e = out2[i];                                    \
    asm volatile("s_mov_b32 s42, m0\n v_mov_b32 v1, 11\n v_mov_b32 v2, 22\n" \
                 " v_mov_b32 v3, 33\n" MASKED(text) "\n s_mov_b32 m0, s42"     \
                 : [d] "+v"(d), [e] "+v"(e)                                    \
                 : [a] "v"(a[i]), [s] "s"(s), [m] "s"(m)                       \
                 : "s40", "s41", "s42", "v1", "v2", "v3");                     \
    out[i] = d;                                                                \
    out2[i] = e;                                                               \
  }
GPR_IDX(gpr_idx_src,
        "s_set_gpr_idx_on %[s], gpr_idx(SRC0)\n v_mov_b32 %[d], v1\n"
        " s_set_gpr_idx_off")
GPR_IDX(gpr_idx_dst,
        "s_set_gpr_idx_on %[s], gpr_idx(DST)\n v_mov_b32 v1, %[a]\n"
        " s_set_gpr_idx_off\n v_mov_b32 %[d], v2\n v_mov_b32 %[e], v1")

#endif // __OPTIMIZE__

// Lane builtins as clang lowers them, with full and divergent EXEC.
KERNEL void lane_mix(u32 *out, const u32 *a, const u32 *b) {
  u32 i = gid(), x = a[i], y = b[i];
  u32 *o = out + 8 * i;
  o[0] = __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0));
  o[1] = __builtin_amdgcn_readfirstlane(x);
  o[2] = __builtin_amdgcn_readlane(x, 5);
  o[3] = __builtin_amdgcn_update_dpp(7u, x, 0x111, 0xf, 0xf, 0);
  o[4] = __builtin_amdgcn_mov_dpp(x, 0xb1, 0xf, 0xf, 1);
  o[5] = __builtin_amdgcn_readlane(x + y, 63);
  o[6] = (u32)__builtin_popcountll(__builtin_amdgcn_ballot_w64(x & 1));
  u32 r = 0;
  if (x & 1)
    r = __builtin_amdgcn_readfirstlane(y) +
        __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0));
  o[7] = r;
}
