// Integer VALU operations, one kernel per instruction form, pinned with
// inline asm. Every kernel runs its instruction with EXEC set to the `mask`
// argument, on a destination preloaded from `out`, so the test sees both
// the active lanes' results and the inactive lanes' old values.
#define KERNEL __attribute__((amdgpu_kernel, visibility("default")))

typedef unsigned u32;
typedef unsigned long u64;

static inline u32 gid(void) {
  return __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
}

// Runs `text` with EXEC = mask (s[40:41] keeps the old EXEC).
#define MASKED(text)                                                           \
  "s_mov_b64 s[40:41], exec\n s_mov_b64 exec, %[m]\n " text                   \
  "\n s_mov_b64 exec, s[40:41]"

// d = op(a, b, c) on 32-bit lanes; `s` is a uniform (SGPR) operand.
#define OP32(name, text)                                                       \
  KERNEL void name(u32 *out, const u32 *a, const u32 *b, const u32 *c,       \
                   u32 s, u64 m) {                                             \
    u32 i = gid(), d = out[i];                                                 \
    asm volatile(MASKED(text)                                                  \
                 : [d] "+v"(d)                                                 \
                 : [a] "v"(a[i]), [b] "v"(b[i]), [c] "v"(c[i]), [s] "s"(s),    \
                   [m] "s"(m)                                                  \
                 : "s40", "s41", "vcc");                                       \
    out[i] = d;                                                                \
  }

// d = op(a, b[, ci]) with a carry-out mask (cc) and a carry-in mask (ci).
#define CARRY32(name, text)                                                    \
  KERNEL void name(u32 *out, const u32 *a, const u32 *b, u64 *cout, u64 ci,   \
                   u64 m) {                                                    \
    u32 i = gid(), d = out[i];                                                 \
    u64 cc;                                                                    \
    asm volatile(MASKED(text)                                                  \
                 : [d] "+v"(d), [cc] "=&s"(cc)                                 \
                 : [a] "v"(a[i]), [b] "v"(b[i]), [ci] "s"(ci), [m] "s"(m)      \
                 : "s40", "s41", "vcc");                                       \
    out[i] = d;                                                                \
    cout[i / 64] = cc;                                                         \
  }

// 64-bit results: d = op(a (32-bit), b, c (64-bit)), optional mask cc.
#define OP64(name, text)                                                       \
  KERNEL void name(u64 *out, const u32 *a, const u64 *b, const u64 *c,        \
                   u64 *cout, u64 m) {                                         \
    u32 i = gid();                                                             \
    u64 d = out[i], cc = 0;                                                    \
    asm volatile(MASKED(text)                                                  \
                 : [d] "+v"(d), [cc] "+s"(cc)                                  \
                 : [a] "v"(a[i]), [b] "v"(b[i]), [c] "v"(c[i]),               \
                   [e] "v"((u32)b[i]), [m] "s"(m)                              \
                 : "s40", "s41", "vcc");                                       \
    out[i] = d;                                                                \
    cout[i / 64] = cc;                                                         \
  }

// Inline asm needs its "s" operands in SGPRs, which clang -O0 does not
// guarantee: the pinned-instruction kernels are built when optimising.
#ifdef __OPTIMIZE__

// --- Add / subtract ---------------------------------------------------------
OP32(add_u32, "v_add_u32 %[d], %[a], %[b]")
OP32(add_u32_clamp, "v_add_u32_e64 %[d], %[a], %[b] clamp")
OP32(add_u32_sgpr, "v_add_u32 %[d], %[s], %[b]")
OP32(add_u32_const, "v_add_u32 %[d], -7, %[b]")
OP32(add_u32_literal, "v_add_u32 %[d], 0x12345678, %[b]")
OP32(sub_u32, "v_sub_u32 %[d], %[a], %[b]")
OP32(sub_u32_clamp, "v_sub_u32_e64 %[d], %[a], %[b] clamp")
OP32(subrev_u32, "v_subrev_u32 %[d], %[a], %[b]")
OP32(subrev_u32_clamp, "v_subrev_u32_e64 %[d], %[a], %[b] clamp")
OP32(add_i32, "v_add_i32 %[d], %[a], %[b]")
OP32(add_i32_clamp, "v_add_i32 %[d], %[a], %[b] clamp")
OP32(sub_i32_clamp, "v_sub_i32 %[d], %[a], %[b] clamp")
OP32(add_u16, "v_add_u16 %[d], %[a], %[b]")
OP32(add_u16_clamp, "v_add_u16_e64 %[d], %[a], %[b] clamp")
OP32(sub_u16_clamp, "v_sub_u16_e64 %[d], %[a], %[b] clamp")
OP32(subrev_u16, "v_subrev_u16 %[d], %[a], %[b]")
OP32(add_i16_clamp, "v_add_i16 %[d], %[a], %[b] clamp")
OP32(sub_i16_opsel, "v_sub_i16 %[d], %[a], %[b] op_sel:[1,0,1]")
OP32(add3_u32, "v_add3_u32 %[d], %[a], %[b], %[c]")
CARRY32(add_co_u32, "v_add_co_u32 %[d], vcc, %[a], %[b]\n s_mov_b64 %[cc], vcc")
CARRY32(add_co_u32_e64, "v_add_co_u32_e64 %[d], %[cc], %[a], %[b]")
CARRY32(add_co_u32_clamp, "v_add_co_u32_e64 %[d], %[cc], %[a], %[b] clamp")
CARRY32(sub_co_u32, "v_sub_co_u32 %[d], vcc, %[a], %[b]\n s_mov_b64 %[cc], vcc")
CARRY32(subrev_co_u32_e64, "v_subrev_co_u32_e64 %[d], %[cc], %[a], %[b]")
CARRY32(addc_co_u32,
        "s_mov_b64 vcc, %[ci]\n v_addc_co_u32 %[d], vcc, %[a], %[b], vcc\n"
        " s_mov_b64 %[cc], vcc")
CARRY32(addc_co_u32_e64, "v_addc_co_u32_e64 %[d], %[cc], %[a], %[b], %[ci]")
CARRY32(subb_co_u32,
        "s_mov_b64 vcc, %[ci]\n v_subb_co_u32 %[d], vcc, %[a], %[b], vcc\n"
        " s_mov_b64 %[cc], vcc")
CARRY32(subbrev_co_u32_e64,
        "v_subbrev_co_u32_e64 %[d], %[cc], %[a], %[b], %[ci]")
CARRY32(cndmask_vcc,
        "s_mov_b64 vcc, %[ci]\n v_cndmask_b32 %[d], %[a], %[b], vcc\n"
        " s_mov_b64 %[cc], 0")
CARRY32(cndmask_e64,
        "v_cndmask_b32_e64 %[d], %[a], %[b], %[ci]\n s_mov_b64 %[cc], 0")
CARRY32(cndmask_mods,
        "v_cndmask_b32_e64 %[d], -%[a], |%[b]|, %[ci]\n s_mov_b64 %[cc], 0")

// --- Multiply -----------------------------------------------------------------
OP32(mul_lo_u32, "v_mul_lo_u32 %[d], %[a], %[b]")
OP32(mul_hi_u32, "v_mul_hi_u32 %[d], %[a], %[b]")
OP32(mul_hi_i32, "v_mul_hi_i32 %[d], %[a], %[b]")
OP32(mul_u32_u24, "v_mul_u32_u24 %[d], %[a], %[b]")
OP32(mul_hi_u32_u24, "v_mul_hi_u32_u24 %[d], %[a], %[b]")
OP32(mul_i32_i24, "v_mul_i32_i24 %[d], %[a], %[b]")
OP32(mul_i32_i24_clamp, "v_mul_i32_i24_e64 %[d], %[a], %[b] clamp")
OP32(mul_hi_i32_i24, "v_mul_hi_i32_i24 %[d], %[a], %[b]")
OP32(mad_u32_u24, "v_mad_u32_u24 %[d], %[a], %[b], %[c]")
OP32(mad_i32_i24, "v_mad_i32_i24 %[d], %[a], %[b], %[c]")
OP32(mad_u32_u24_clamp, "v_mad_u32_u24 %[d], %[a], %[b], %[c] clamp")
OP32(mul_lo_u16, "v_mul_lo_u16 %[d], %[a], %[b]")
OP32(mad_u16, "v_mad_u16 %[d], %[a], %[b], %[c]")
OP32(mad_u16_clamp, "v_mad_u16 %[d], %[a], %[b], %[c] clamp")
OP32(mad_i16_opsel, "v_mad_i16 %[d], %[a], %[b], %[c] op_sel:[1,0,1,1]")
OP32(mad_legacy_u16, "v_mad_legacy_u16 %[d], %[a], %[b], %[c]")
OP32(mad_u32_u16, "v_mad_u32_u16 %[d], %[a], %[b], %[c] op_sel:[1,0,0,0]")
OP32(mad_i32_i16, "v_mad_i32_i16 %[d], %[a], %[b], %[c]")
OP64(mad_u64_u32, "v_mad_u64_u32 %[d], %[cc], %[a], %[e], %[c]")
OP64(mad_u64_u32_clamp, "v_mad_u64_u32 %[d], %[cc], %[a], %[e], %[c] clamp")
OP64(mad_i64_i32, "v_mad_i64_i32 %[d], %[cc], %[a], %[e], %[c]")

// --- Shifts -----------------------------------------------------------------
OP32(lshlrev_b32, "v_lshlrev_b32 %[d], %[a], %[b]")
OP32(lshrrev_b32, "v_lshrrev_b32 %[d], %[a], %[b]")
OP32(ashrrev_i32, "v_ashrrev_i32 %[d], %[a], %[b]")
OP32(lshlrev_b16, "v_lshlrev_b16 %[d], %[a], %[b]")
OP32(lshrrev_b16, "v_lshrrev_b16 %[d], %[a], %[b]")
OP32(ashrrev_i16, "v_ashrrev_i16 %[d], %[a], %[b]")
OP64(lshlrev_b64, "v_lshlrev_b64 %[d], %[a], %[b]")
OP64(lshrrev_b64, "v_lshrrev_b64 %[d], %[a], %[b]")
OP64(ashrrev_i64, "v_ashrrev_i64 %[d], %[a], %[b]")
OP32(lshl_add_u32, "v_lshl_add_u32 %[d], %[a], %[b], %[c]")
OP32(add_lshl_u32, "v_add_lshl_u32 %[d], %[a], %[b], %[c]")
OP32(lshl_or_b32, "v_lshl_or_b32 %[d], %[a], %[b], %[c]")
OP32(alignbit_b32, "v_alignbit_b32 %[d], %[a], %[b], %[c]")
OP32(alignbyte_b32, "v_alignbyte_b32 %[d], %[a], %[b], %[c]")

// --- Logic ------------------------------------------------------------------
OP32(and_b32, "v_and_b32 %[d], %[a], %[b]")
OP32(or_b32, "v_or_b32 %[d], %[a], %[b]")
OP32(xor_b32, "v_xor_b32 %[d], %[a], %[b]")
OP32(xnor_b32, "v_xnor_b32 %[d], %[a], %[b]")
OP32(not_b32, "v_not_b32 %[d], %[a]")
OP32(and_or_b32, "v_and_or_b32 %[d], %[a], %[b], %[c]")
OP32(or3_b32, "v_or3_b32 %[d], %[a], %[b], %[c]")
OP32(xad_u32, "v_xad_u32 %[d], %[a], %[b], %[c]")

// --- Min / max / median -----------------------------------------------------
OP32(min_u32, "v_min_u32 %[d], %[a], %[b]")
OP32(max_i32, "v_max_i32 %[d], %[a], %[b]")
OP32(min_i16, "v_min_i16 %[d], %[a], %[b]")
OP32(max_u16, "v_max_u16 %[d], %[a], %[b]")
OP32(min3_i32, "v_min3_i32 %[d], %[a], %[b], %[c]")
OP32(max3_u32, "v_max3_u32 %[d], %[a], %[b], %[c]")
OP32(med3_i32, "v_med3_i32 %[d], %[a], %[b], %[c]")
OP32(med3_u32, "v_med3_u32 %[d], %[a], %[b], %[c]")
OP32(med3_i16, "v_med3_i16 %[d], %[a], %[b], %[c]")
OP32(max3_u16_opsel, "v_max3_u16 %[d], %[a], %[b], %[c] op_sel:[0,1,0,1]")

// --- Bit fields and counts --------------------------------------------------
OP32(bfe_u32, "v_bfe_u32 %[d], %[a], %[b], %[c]")
OP32(bfe_i32, "v_bfe_i32 %[d], %[a], %[b], %[c]")
OP32(bfi_b32, "v_bfi_b32 %[d], %[a], %[b], %[c]")
OP32(bfm_b32, "v_bfm_b32 %[d], %[a], %[b]")
OP32(bfrev_b32, "v_bfrev_b32 %[d], %[a]")
OP32(bcnt_u32_b32, "v_bcnt_u32_b32 %[d], %[a], %[b]")
OP32(ffbh_u32, "v_ffbh_u32 %[d], %[a]")
OP32(ffbl_b32, "v_ffbl_b32 %[d], %[a]")
OP32(ffbh_i32, "v_ffbh_i32 %[d], %[a]")
OP32(mbcnt_lo, "v_mbcnt_lo_u32_b32 %[d], %[s], %[b]")
OP32(mbcnt_hi, "v_mbcnt_hi_u32_b32 %[d], %[s], %[b]")
OP32(perm_b32, "v_perm_b32 %[d], %[a], %[b], %[c]")

// --- SAD and bytes ------------------------------------------------------------
OP32(sad_u8, "v_sad_u8 %[d], %[a], %[b], %[c]")
OP32(sad_hi_u8, "v_sad_hi_u8 %[d], %[a], %[b], %[c]")
OP32(sad_u16, "v_sad_u16 %[d], %[a], %[b], %[c]")
OP32(sad_u32_clamp, "v_sad_u32 %[d], %[a], %[b], %[c] clamp")
OP32(msad_u8, "v_msad_u8 %[d], %[a], %[b], %[c]")
OP32(lerp_u8, "v_lerp_u8 %[d], %[a], %[b], %[c]")
OP64(qsad_pk_u16_u8, "v_qsad_pk_u16_u8 %[d], %[b], %[a], %[c]")
OP64(mqsad_pk_u16_u8, "v_mqsad_pk_u16_u8 %[d], %[b], %[a], %[c]")
typedef unsigned u32x4 __attribute__((ext_vector_type(4)));
KERNEL void mqsad_u32_u8(u32x4 *out, const u64 *a, const u32 *b,
                         const u32x4 *c, u64 m) {
  u32 i = gid();
  u32x4 d = out[i];
  asm volatile(MASKED("v_mqsad_u32_u8 %[d], %[a], %[b], %[c]")
               : [d] "+v"(d)
               : [a] "v"(a[i]), [b] "v"(b[i]), [c] "v"(c[i]), [m] "s"(m)
               : "s40", "s41");
  out[i] = d;
}
OP32(cvt_pk_u16_u32, "v_cvt_pk_u16_u32 %[d], %[a], %[b]")
OP32(cvt_pk_i16_i32, "v_cvt_pk_i16_i32 %[d], %[a], %[b]")
OP32(sat_pk_u8_i16, "v_sat_pk_u8_i16 %[d], %[a]")

// --- SDWA -------------------------------------------------------------------
OP32(sdwa_add_u32,
     "v_add_u32_sdwa %[d], %[a], %[b] dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE"
     " src0_sel:BYTE_2 src1_sel:WORD_0")
OP32(sdwa_add_u32_sext,
     "v_add_u32_sdwa %[d], sext(%[a]), %[b] dst_sel:BYTE_1"
     " dst_unused:UNUSED_SEXT src0_sel:BYTE_3 src1_sel:BYTE_0")
OP32(sdwa_add_u32_sgpr,
     "v_add_u32_sdwa %[d], %[s], %[b] dst_sel:DWORD dst_unused:UNUSED_PAD"
     " src0_sel:BYTE_1 src1_sel:WORD_1")
OP32(sdwa_sub_u16_pad,
     "v_sub_u16_sdwa %[d], %[a], %[b] dst_sel:WORD_0 dst_unused:UNUSED_PAD"
     " src0_sel:WORD_1 src1_sel:BYTE_1")
OP32(sdwa_mov_b32,
     "v_mov_b32_sdwa %[d], %[a] dst_sel:BYTE_2 dst_unused:UNUSED_PRESERVE"
     " src0_sel:WORD_1")
OP32(sdwa_ashrrev_i32_sext,
     "v_ashrrev_i32_sdwa %[d], %[b], sext(%[a]) dst_sel:DWORD"
     " dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:WORD_1")
OP32(sdwa_mul_u32_u24_clamp,
     "v_mul_u32_u24_sdwa %[d], %[a], %[b] clamp dst_sel:DWORD"
     " dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:WORD_0")
CARRY32(sdwa_addc_co_u32,
        "s_mov_b64 vcc, %[ci]\n v_addc_co_u32_sdwa %[d], vcc, %[a], %[b], vcc"
        " dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:BYTE_0\n"
        " s_mov_b64 %[cc], vcc")

// --- DPP --------------------------------------------------------------------
#define DPP(name, ctrl) OP32(name, "s_nop 1\n v_mov_b32_dpp %[d], %[a] " ctrl)
DPP(dpp_quad_perm, "quad_perm:[2,0,3,1] row_mask:0xf bank_mask:0xf")
DPP(dpp_row_shl1, "row_shl:1 row_mask:0xf bank_mask:0xf")
DPP(dpp_row_shr3_bc, "row_shr:3 row_mask:0xf bank_mask:0xf bound_ctrl:0")
DPP(dpp_row_ror5, "row_ror:5 row_mask:0xf bank_mask:0xf")
DPP(dpp_row_shr15_masks, "row_shr:15 row_mask:0xb bank_mask:0x6")
DPP(dpp_wave_shl1, "wave_shl:1 row_mask:0xf bank_mask:0xf")
DPP(dpp_wave_rol1, "wave_rol:1 row_mask:0xf bank_mask:0xf")
DPP(dpp_wave_shr1_bc, "wave_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:0")
DPP(dpp_wave_ror1, "wave_ror:1 row_mask:0xf bank_mask:0xf")
DPP(dpp_row_mirror, "row_mirror row_mask:0xf bank_mask:0xf")
DPP(dpp_row_half_mirror, "row_half_mirror row_mask:0xf bank_mask:0xf")
DPP(dpp_row_bcast15, "row_bcast:15 row_mask:0xa bank_mask:0xf")
DPP(dpp_row_bcast31, "row_bcast:31 row_mask:0xc bank_mask:0xf")
DPP(dpp_row_newbcast, "row_newbcast:6 row_mask:0xf bank_mask:0xf")
OP32(dpp_add_u32_bc,
     "s_nop 1\n v_add_u32_dpp %[d], %[a], %[b] row_shr:1 row_mask:0xf"
     " bank_mask:0xf bound_ctrl:0")
OP32(dpp_max_i32_masks,
     "s_nop 1\n v_max_i32_dpp %[d], %[a], %[b] row_shl:2 row_mask:0x7"
     " bank_mask:0xd")
OP32(dpp_subrev_u16,
     "s_nop 1\n v_subrev_u16_dpp %[d], %[a], %[b] quad_perm:[3,3,0,1]"
     " row_mask:0xf bank_mask:0xf")

#endif // __OPTIMIZE__

// --- Code clang writes for integer C ----------------------------------------
// The same expressions evaluated on the host give the references.
#include "vector_int_mix.h"

KERNEL void int_mix(u32 *out, const u32 *a, const u32 *b, const u32 *c) {
  u32 i = gid();
  int_mix_lane(out + 16 * i, a[i], b[i], c[i]);
}
