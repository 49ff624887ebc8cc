// Integer VOPC compares, pinned with inline asm. Each kernel runs its
// compare with EXEC = `m` and stores, per wave, the mask it wrote (VCC or
// the SGPR pair) and EXEC after it (v_cmpx writes EXEC too).
#define KERNEL __attribute__((amdgpu_kernel, visibility("default")))

typedef unsigned u32;
typedef unsigned long u64;

static inline u32 gid(void) {
  return __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
}

// Inline asm needs its "s" operands in SGPRs, which clang -O0 does not
// guarantee: the pinned-instruction kernels are built when optimising.
#ifdef __OPTIMIZE__

// text computes %[cc] (and may change EXEC); %[ex] gets EXEC after it.
#define CMP(name, T, text)                                                     \
  KERNEL void name(u64 *cc_out, u64 *exec_out, const T *a, const T *b,        \
                   u32 s, u64 m) {                                             \
    u32 i = gid();                                                             \
    u64 cc, ex;                                                                \
    asm volatile("s_mov_b64 s[40:41], exec\n s_mov_b64 exec, %[m]\n " text    \
                 "\n s_mov_b64 %[ex], exec\n s_mov_b64 exec, s[40:41]"         \
                 : [cc] "=&s"(cc), [ex] "=&s"(ex)                              \
                 : [a] "v"(a[i]), [b] "v"(b[i]), [s] "s"(s), [m] "s"(m)        \
                 : "s40", "s41", "vcc");                                       \
    cc_out[i / 64] = cc;                                                       \
    exec_out[i / 64] = ex;                                                     \
  }

#define E32(op) "v_cmp_" op "_e32 vcc, %[a], %[b]\n s_mov_b64 %[cc], vcc"
#define E64(op) "v_cmp_" op "_e64 %[cc], %[a], %[b]"
#define X32(op) "v_cmpx_" op "_e32 vcc, %[a], %[b]\n s_mov_b64 %[cc], vcc"
#define X64(op) "v_cmpx_" op "_e64 %[cc], %[a], %[b]"

// Every predicate and type in one encoding each; the other encodings on a
// subset.
CMP(cmp_f_i32, u32, E32("f_i32"))
CMP(cmp_lt_i32, u32, E32("lt_i32"))
CMP(cmp_eq_i32, u32, E64("eq_i32"))
CMP(cmp_le_i32, u32, E32("le_i32"))
CMP(cmp_gt_i32, u32, E64("gt_i32"))
CMP(cmp_ne_i32, u32, E32("ne_i32"))
CMP(cmp_ge_i32, u32, E64("ge_i32"))
CMP(cmp_t_i32, u32, E32("t_i32"))
CMP(cmp_lt_u32, u32, E32("lt_u32"))
CMP(cmp_le_u32, u32, E64("le_u32"))
CMP(cmp_gt_u32, u32, E32("gt_u32"))
CMP(cmp_ge_u32, u32, E32("ge_u32"))
CMP(cmp_eq_u32, u32, E32("eq_u32"))
CMP(cmp_ne_u32, u32, E64("ne_u32"))
CMP(cmp_lt_i16, u32, E32("lt_i16"))
CMP(cmp_ge_i16, u32, E64("ge_i16"))
CMP(cmp_gt_u16, u32, E32("gt_u16"))
CMP(cmp_le_u16, u32, E64("le_u16"))
CMP(cmp_eq_u16, u32, E32("eq_u16"))
CMP(cmp_lt_i64, u64, E32("lt_i64"))
CMP(cmp_gt_i64, u64, E64("gt_i64"))
CMP(cmp_le_u64, u64, E32("le_u64"))
CMP(cmp_ne_u64, u64, E64("ne_u64"))
CMP(cmp_eq_u64, u64, E32("eq_u64"))
CMP(cmp_ge_u64, u64, E64("ge_u64"))
CMP(cmp_lt_u32_sgpr, u32, "v_cmp_lt_u32_e64 %[cc], %[s], %[b]")
CMP(cmp_gt_i32_const, u32, "v_cmp_gt_i32_e32 vcc, -5, %[b]\n s_mov_b64 %[cc], vcc")
CMP(cmpx_lt_u32, u32, X32("lt_u32"))
CMP(cmpx_ge_i32, u32, X64("ge_i32"))
CMP(cmpx_ne_u16, u32, X32("ne_u16"))
CMP(cmpx_gt_i64, u64, X64("gt_i64"))
CMP(cmpx_t_u32, u32, X32("t_u32"))
CMP(cmpx_f_u64, u64, X64("f_u64"))
CMP(cmp_sdwa_lt_u32,
    u32, "v_cmp_lt_u32_sdwa vcc, %[a], %[b] src0_sel:WORD_1 src1_sel:BYTE_0\n"
         " s_mov_b64 %[cc], vcc")
CMP(cmp_sdwa_gt_i32_sext,
    u32, "v_cmp_gt_i32_sdwa %[cc], sext(%[a]), sext(%[b]) src0_sel:BYTE_1"
         " src1_sel:WORD_0")
CMP(cmpx_sdwa_eq_u16,
    u32, "v_cmpx_eq_u16_sdwa %[cc], %[a], %[b] src0_sel:BYTE_0"
         " src1_sel:BYTE_2")

#endif // __OPTIMIZE__

// Compares and selects as clang writes them for C.
KERNEL void select_mix(u32 *out, const u32 *a, const u32 *b) {
  u32 i = gid(), x = a[i], y = b[i];
  long long p = (long long)x << 20, q = (long long)(int)y;
  u32 r = 0;
  r |= ((int)x < (int)y) << 0;
  r |= (x <= y) << 1;
  r |= ((short)x > (short)y) << 2;
  r |= (p != q) << 3;
  r |= ((unsigned long long)p >= (unsigned long long)q) << 4;
  r |= (x == 0x12345678u) << 5;
  if ((x & 7) == (y & 7))
    r += x > y ? x - y : y - x;
  out[i] = r;
}
