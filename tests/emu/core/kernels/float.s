// Kernels for VectorFloatTest and PackedTest: one floating-point (or
// packed) vector instruction per kernel, with chosen operands, modifiers
// and encodings, run by one wave of 64 lanes.
//
// Every kernel (VTEST) has the same frame:
//   kernarg: +0 in, +8 out, +16 EXEC for the instruction, +24 VCC before
//            it, +32 MODE[9:0] (s_setreg)
//   in:  32 bytes per lane: v[2:3] A, v[4:5] B, v[6:7] C, v[8:9] D (the
//        destination's value before the instruction)
//   out: 32 bytes per lane: v[8:9] D after, VCC, EXEC after, s[16:17]
//        (the SGPR-pair destination of e64 compares, 0 before)
// so a test sees the result of active lanes, the kept value of inactive
// ones, and every mask the instruction writes.

.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
.amdhsa_code_object_version 5

.macro VTEST name, insn:vararg
  .text
  .globl \name
  .p2align 8
  .type \name,@function
\name:
  s_load_dwordx8 s[4:11], s[0:1], 0x0
  s_load_dword s12, s[0:1], 0x20
  s_mov_b64 s[16:17], 0
  v_lshlrev_b32 v1, 5, v0
  s_waitcnt lgkmcnt(0)
  global_load_dwordx4 v[2:5], v1, s[4:5]
  global_load_dwordx4 v[6:9], v1, s[4:5] offset:16
  s_waitcnt vmcnt(0)
  s_setreg_b32 hwreg(HW_REG_MODE, 0, 10), s12
  s_mov_b64 vcc, s[10:11]
  s_mov_b64 exec, s[8:9]
  \insn
  s_mov_b64 s[14:15], exec
  s_mov_b64 exec, -1
  v_mov_b32 v10, vcc_lo
  v_mov_b32 v11, vcc_hi
  v_mov_b32 v12, s14
  v_mov_b32 v13, s15
  v_mov_b32 v14, s16
  v_mov_b32 v15, s17
  global_store_dwordx4 v1, v[8:11], s[6:7]
  global_store_dwordx4 v1, v[12:15], s[6:7] offset:16
  s_endpgm
  .size \name, . - \name
  .rodata
  .p2align 6
  .amdhsa_kernel \name
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_next_free_vgpr 16
    .amdhsa_next_free_sgpr 24
    .amdhsa_accum_offset 16
  .end_amdhsa_kernel
.endm

// --- f32 arithmetic, VOP2 / VOP3 / modifiers ---------------------------------
VTEST add_f32, v_add_f32 v8, v2, v4
VTEST add_f32_mods, v_add_f32_e64 v8, -v2, |v4| clamp
VTEST sub_f32_mul2, v_sub_f32_e64 v8, v2, v4 mul:2
VTEST subrev_f32, v_subrev_f32 v8, v2, v4
VTEST mul_f32_div2, v_mul_f32_e64 v8, v2, -v4 div:2
VTEST mul_legacy_f32, v_mul_legacy_f32 v8, v2, v4
VTEST fma_f32, v_fma_f32 v8, v2, v4, v6
VTEST fma_f32_mods, v_fma_f32 v8, -v2, v4, |v6|
VTEST mad_f32, v_mad_f32 v8, v2, v4, v6
VTEST mad_legacy_f32, v_mad_legacy_f32 v8, v2, v4, v6
VTEST mac_f32, v_mac_f32 v8, v2, v4
VTEST fmac_f32, v_fmac_f32 v8, v2, v4
VTEST fmac_f32_e64, v_fmac_f32_e64 v8, -v2, v4 mul:4
VTEST madak_f32, v_madak_f32 v8, v2, v4, 0x40490fdb
VTEST madmk_f32, v_madmk_f32 v8, v2, 0x3fc00000, v4
VTEST min_f32, v_min_f32 v8, v2, v4
VTEST max_f32, v_max_f32 v8, v2, v4
VTEST min3_f32, v_min3_f32 v8, v2, v4, v6
VTEST max3_f32, v_max3_f32 v8, v2, v4, v6
VTEST med3_f32, v_med3_f32 v8, v2, v4, v6
VTEST ldexp_f32, v_ldexp_f32 v8, v2, v4
VTEST add_f32_sgpr, v_add_f32 v8, s10, v4
VTEST add_f32_inline, v_add_f32 v8, 0.5, v4
VTEST add_f32_dpp, v_add_f32_dpp v8, v2, v4 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
VTEST mul_f32_dpp_shr, v_mul_f32_dpp v8, v2, v4 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:0
VTEST max_f32_sdwa, v_max_f32_sdwa v8, -v2, |v4| dst_sel:DWORD dst_unused:UNUSED_PRESERVE src0_sel:DWORD src1_sel:DWORD

// --- f32 unary ---------------------------------------------------------------
VTEST fract_f32, v_fract_f32 v8, v2
VTEST trunc_f32, v_trunc_f32 v8, v2
VTEST ceil_f32, v_ceil_f32 v8, v2
VTEST floor_f32, v_floor_f32 v8, v2
VTEST rndne_f32, v_rndne_f32 v8, v2
VTEST exp_f32, v_exp_f32 v8, v2
VTEST log_f32, v_log_f32 v8, v2
VTEST rcp_f32, v_rcp_f32 v8, v2
VTEST rcp_iflag_f32, v_rcp_iflag_f32 v8, v2
VTEST rsq_f32, v_rsq_f32 v8, v2
VTEST sqrt_f32, v_sqrt_f32 v8, v2
VTEST sin_f32, v_sin_f32 v8, v2
VTEST cos_f32, v_cos_f32 v8, v2
VTEST frexp_mant_f32, v_frexp_mant_f32 v8, v2
VTEST frexp_exp_f32, v_frexp_exp_i32_f32 v8, v2
VTEST floor_f32_e64, v_floor_f32_e64 v8, -|v2| clamp

// --- division and the other VOP3-only f32 operations --------------------------
VTEST div_scale_f32, v_div_scale_f32 v8, vcc, v2, v4, v6
VTEST div_scale_f32_sgpr, v_div_scale_f32 v8, s[16:17], v2, v4, v6
VTEST div_fmas_f32, v_div_fmas_f32 v8, v2, v4, v6
VTEST div_fixup_f32, v_div_fixup_f32 v8, v2, v4, v6
VTEST cubeid_f32, v_cubeid_f32 v8, v2, v4, v6
VTEST cubema_f32, v_cubema_f32 v8, v2, v4, v6

// --- f32 conversions ---------------------------------------------------------
VTEST cvt_i32_f32, v_cvt_i32_f32 v8, v2
VTEST cvt_u32_f32, v_cvt_u32_f32 v8, v2
VTEST cvt_f32_i32, v_cvt_f32_i32 v8, v2
VTEST cvt_f32_u32, v_cvt_f32_u32 v8, v2
VTEST cvt_rpi_i32_f32, v_cvt_rpi_i32_f32 v8, v2
VTEST cvt_flr_i32_f32, v_cvt_flr_i32_f32 v8, v2
VTEST cvt_f16_f32, v_cvt_f16_f32 v8, v2
VTEST cvt_f32_f16, v_cvt_f32_f16 v8, v2
VTEST cvt_f32_f64, v_cvt_f32_f64 v8, v[2:3]
VTEST cvt_f64_f32, v_cvt_f64_f32 v[8:9], v2
VTEST cvt_f64_i32, v_cvt_f64_i32 v[8:9], v2
VTEST cvt_i32_f64, v_cvt_i32_f64 v8, v[2:3]
VTEST cvt_u32_f64, v_cvt_u32_f64 v8, v[2:3]
VTEST cvt_f32_ubyte2, v_cvt_f32_ubyte2 v8, v2
VTEST cvt_off_f32_i4, v_cvt_off_f32_i4 v8, v2
VTEST cvt_pkrtz_f16_f32, v_cvt_pkrtz_f16_f32 v8, v2, v4
VTEST cvt_pknorm_i16_f32, v_cvt_pknorm_i16_f32 v8, v2, v4
VTEST cvt_pknorm_u16_f32, v_cvt_pknorm_u16_f32 v8, v2, v4
VTEST cvt_pk_u8_f32, v_cvt_pk_u8_f32 v8, v2, v4, v6

// --- f32 compares and classes ------------------------------------------------
VTEST cmp_lt_f32, v_cmp_lt_f32 vcc, v2, v4
VTEST cmp_lg_f32, v_cmp_lg_f32 vcc, v2, v4
VTEST cmp_o_f32, v_cmp_o_f32 vcc, v2, v4
VTEST cmp_u_f32, v_cmp_u_f32 vcc, v2, v4
VTEST cmp_nge_f32_e64, v_cmp_nge_f32_e64 s[16:17], v2, v4
VTEST cmp_nlg_f32_e64, v_cmp_nlg_f32_e64 s[16:17], -v2, v4
VTEST cmp_tru_f32, v_cmp_tru_f32 vcc, v2, v4
VTEST cmpx_neq_f32, v_cmpx_neq_f32 vcc, v2, v4
VTEST cmpx_ge_f32_e64, v_cmpx_ge_f32_e64 s[16:17], v2, |v4|
VTEST cmp_class_f32, v_cmp_class_f32 vcc, v2, v4
VTEST cmp_class_f32_e64, v_cmp_class_f32_e64 s[16:17], v2, v4
VTEST cmpx_class_f32, v_cmpx_class_f32 vcc, v2, v4
VTEST cmp_gt_f32_sdwa, v_cmp_gt_f32_sdwa s[16:17], v2, v4 src0_sel:WORD_1 src1_sel:DWORD

// --- f64 ---------------------------------------------------------------------
VTEST add_f64, v_add_f64 v[8:9], v[2:3], -v[4:5]
VTEST mul_f64, v_mul_f64 v[8:9], |v[2:3]|, v[4:5] clamp
VTEST fma_f64, v_fma_f64 v[8:9], v[2:3], v[4:5], v[6:7]
VTEST fmac_f64, v_fmac_f64 v[8:9], v[2:3], v[4:5]
VTEST min_f64, v_min_f64 v[8:9], v[2:3], v[4:5]
VTEST max_f64, v_max_f64 v[8:9], v[2:3], v[4:5]
VTEST ldexp_f64, v_ldexp_f64 v[8:9], v[2:3], v4
VTEST fract_f64, v_fract_f64 v[8:9], v[2:3]
VTEST trunc_f64, v_trunc_f64 v[8:9], v[2:3]
VTEST ceil_f64, v_ceil_f64 v[8:9], v[2:3]
VTEST floor_f64, v_floor_f64 v[8:9], v[2:3]
VTEST rndne_f64, v_rndne_f64 v[8:9], v[2:3]
VTEST rcp_f64, v_rcp_f64 v[8:9], v[2:3]
VTEST rsq_f64, v_rsq_f64 v[8:9], v[2:3]
VTEST sqrt_f64, v_sqrt_f64 v[8:9], v[2:3]
VTEST frexp_mant_f64, v_frexp_mant_f64 v[8:9], v[2:3]
VTEST frexp_exp_f64, v_frexp_exp_i32_f64 v8, v[2:3]
VTEST div_scale_f64, v_div_scale_f64 v[8:9], vcc, v[2:3], v[4:5], v[6:7]
VTEST div_fmas_f64, v_div_fmas_f64 v[8:9], v[2:3], v[4:5], v[6:7]
VTEST div_fixup_f64, v_div_fixup_f64 v[8:9], v[2:3], v[4:5], v[6:7]
VTEST trig_preop_f64, v_trig_preop_f64 v[8:9], v[2:3], v4
VTEST cmp_lt_f64, v_cmp_lt_f64 vcc, v[2:3], v[4:5]
VTEST cmpx_nle_f64_e64, v_cmpx_nle_f64_e64 s[16:17], v[2:3], v[4:5]
VTEST cmp_class_f64, v_cmp_class_f64 vcc, v[2:3], v4

// --- f16 ---------------------------------------------------------------------
VTEST add_f16, v_add_f16 v8, v2, v4
VTEST sub_f16_mods, v_sub_f16_e64 v8, -v2, |v4| clamp
VTEST subrev_f16, v_subrev_f16 v8, v2, v4
VTEST mul_f16, v_mul_f16 v8, v2, v4
VTEST mul_f16_mul2, v_mul_f16_e64 v8, v2, v4 mul:2
VTEST mac_f16, v_mac_f16 v8, v2, v4
VTEST madak_f16, v_madak_f16 v8, v2, v4, 0x4248
VTEST max_f16, v_max_f16 v8, v2, v4
VTEST min_f16, v_min_f16 v8, v2, v4
VTEST ldexp_f16, v_ldexp_f16 v8, v2, v4
VTEST fma_f16, v_fma_f16 v8, v2, v4, v6
VTEST fma_f16_opsel, v_fma_f16 v8, v2, v4, v6 op_sel:[1,0,1,1]
VTEST fma_legacy_f16, v_fma_legacy_f16 v8, v2, v4, v6
VTEST mad_f16, v_mad_f16 v8, v2, v4, v6 op_sel:[0,1,0,0]
VTEST mad_legacy_f16, v_mad_legacy_f16 v8, v2, v4, v6
VTEST div_fixup_f16, v_div_fixup_f16 v8, v2, v4, v6
VTEST med3_f16_opsel, v_med3_f16 v8, v2, v4, v6 op_sel:[1,1,1,1]
VTEST max3_f16, v_max3_f16 v8, v2, v4, v6
VTEST pack_b32_f16, v_pack_b32_f16 v8, -v2, v4 op_sel:[1,0]
VTEST cvt_pknorm_i16_f16, v_cvt_pknorm_i16_f16 v8, v2, v4
VTEST rcp_f16, v_rcp_f16 v8, v2
VTEST sqrt_f16, v_sqrt_f16 v8, v2
VTEST rsq_f16, v_rsq_f16 v8, v2
VTEST exp_f16, v_exp_f16 v8, v2
VTEST log_f16, v_log_f16 v8, v2
VTEST sin_f16, v_sin_f16 v8, v2
VTEST cos_f16, v_cos_f16 v8, v2
VTEST fract_f16, v_fract_f16 v8, v2
VTEST floor_f16, v_floor_f16 v8, v2
VTEST rndne_f16, v_rndne_f16 v8, v2
VTEST frexp_mant_f16, v_frexp_mant_f16 v8, v2
VTEST frexp_exp_f16, v_frexp_exp_i16_f16 v8, v2
VTEST cvt_f16_u16, v_cvt_f16_u16 v8, v2
VTEST cvt_f16_i16, v_cvt_f16_i16 v8, v2
VTEST cvt_u16_f16, v_cvt_u16_f16 v8, v2
VTEST cvt_i16_f16, v_cvt_i16_f16 v8, v2
VTEST cvt_norm_u16_f16, v_cvt_norm_u16_f16 v8, v2
VTEST add_f16_sdwa, v_add_f16_sdwa v8, v2, v4 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_1 src1_sel:WORD_0
VTEST mul_f16_sdwa_pad, v_mul_f16_sdwa v8, -v2, v4 dst_sel:WORD_0 dst_unused:UNUSED_PAD src0_sel:WORD_0 src1_sel:WORD_1
VTEST cmp_le_f16, v_cmp_le_f16 vcc, v2, v4
VTEST cmp_ngt_f16_e64, v_cmp_ngt_f16_e64 s[16:17], v2, v4
VTEST cmp_class_f16, v_cmp_class_f16 vcc, v2, v4

// --- VOP3P packed math --------------------------------------------------------
VTEST pk_add_f16, v_pk_add_f16 v8, v2, v4
VTEST pk_add_f16_mods, v_pk_add_f16 v8, v2, v4 op_sel:[1,0] op_sel_hi:[0,1] neg_lo:[0,1] neg_hi:[1,0] clamp
VTEST pk_mul_f16, v_pk_mul_f16 v8, v2, v4 op_sel_hi:[1,0]
VTEST pk_fma_f16, v_pk_fma_f16 v8, v2, v4, v6 neg_hi:[0,0,1]
VTEST pk_fma_f16_plain, v_pk_fma_f16 v8, v2, v4, v6
VTEST pk_fma_f16_opsel, v_pk_fma_f16 v8, v2, v4, v6 op_sel:[0,1,0] op_sel_hi:[1,0,1]
VTEST pk_min_f16, v_pk_min_f16 v8, v2, v4
VTEST pk_max_f16, v_pk_max_f16 v8, v2, v4 op_sel:[0,1]
VTEST pk_add_f16_inline, v_pk_add_f16 v8, 1.0, v4 op_sel_hi:[0,1]
VTEST pk_add_u16_clamp, v_pk_add_u16 v8, v2, v4 clamp
VTEST pk_sub_i16_clamp, v_pk_sub_i16 v8, v2, v4 clamp
VTEST pk_sub_u16, v_pk_sub_u16 v8, v2, v4
VTEST pk_mad_i16, v_pk_mad_i16 v8, v2, v4, v6
VTEST pk_mad_u16_clamp, v_pk_mad_u16 v8, v2, v4, v6 clamp
VTEST pk_mul_lo_u16, v_pk_mul_lo_u16 v8, v2, v4
VTEST pk_max_i16, v_pk_max_i16 v8, v2, v4
VTEST pk_min_u16, v_pk_min_u16 v8, v2, v4 op_sel:[1,1] op_sel_hi:[0,0]
VTEST pk_lshlrev_b16, v_pk_lshlrev_b16 v8, v2, v4
VTEST pk_ashrrev_i16, v_pk_ashrrev_i16 v8, v2, v4
VTEST pk_lshrrev_b16, v_pk_lshrrev_b16 v8, v2, v4
VTEST pk_add_f32, v_pk_add_f32 v[8:9], v[2:3], v[4:5]
VTEST pk_mul_f32_opsel, v_pk_mul_f32 v[8:9], v[2:3], v[4:5] op_sel:[1,0] op_sel_hi:[0,1] neg_lo:[0,1]
VTEST pk_fma_f32, v_pk_fma_f32 v[8:9], v[2:3], v[4:5], v[6:7] neg_hi:[1,0,0] clamp
VTEST pk_fma_f32_plain, v_pk_fma_f32 v[8:9], v[2:3], v[4:5], v[6:7]
VTEST pk_fma_f32_opsel, v_pk_fma_f32 v[8:9], v[2:3], v[4:5], v[6:7] op_sel:[1,0,0] op_sel_hi:[0,1,1]
VTEST pk_fma_f32_dst_src, v_pk_fma_f32 v[8:9], v[8:9], v[4:5], v[6:7] op_sel_hi:[0,1,1]
VTEST pk_mov_b32, v_pk_mov_b32 v[8:9], v[2:3], v[4:5] op_sel:[1,0]
VTEST pk_fmac_f16, v_pk_fmac_f16 v8, v2, v4
VTEST fma_mix_f32, v_fma_mix_f32 v8, v2, -v4, |v6| op_sel:[1,0,0] op_sel_hi:[1,0,1]
VTEST fma_mixlo_f16, v_fma_mixlo_f16 v8, v2, v4, v6 op_sel_hi:[1,1,0] clamp
VTEST fma_mixhi_f16, v_fma_mixhi_f16 v8, v2, v4, v6 op_sel:[0,1,0] op_sel_hi:[0,1,1]
VTEST dot2_f32_f16, v_dot2_f32_f16 v8, v2, v4, v6
VTEST dot2_f32_f16_mods, v_dot2_f32_f16 v8, v2, v4, v6 neg_lo:[1,0,0] neg_hi:[0,1,0] clamp
VTEST dot2c_f32_f16, v_dot2c_f32_f16 v8, v2, v4
VTEST dot2_i32_i16_clamp, v_dot2_i32_i16 v8, v2, v4, v6 clamp
VTEST dot2_u32_u16, v_dot2_u32_u16 v8, v2, v4, v6
VTEST dot4_i32_i8, v_dot4_i32_i8 v8, v2, v4, v6
VTEST dot4_u32_u8_clamp, v_dot4_u32_u8 v8, v2, v4, v6 clamp
VTEST dot8_i32_i4, v_dot8_i32_i4 v8, v2, v4, v6
VTEST dot8_u32_u4, v_dot8_u32_u4 v8, v2, v4, v6
VTEST dot4c_i32_i8, v_dot4c_i32_i8 v8, v2, v4
VTEST dot8c_i32_i4_dpp, v_dot8c_i32_i4_dpp v8, v2, v4 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf
