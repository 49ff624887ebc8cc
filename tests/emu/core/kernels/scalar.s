// Kernels for ScalarTest: the scalar unit (SOP1, SOP2, SOPC, SOPK, SOPP,
// SMEM), one instruction at a time with chosen operands and encodings.
//
// Most kernels are "record loops" (RECORD): for each of `count` input
// records of 64 bytes they load the record into s[8:23], set up the
// destination, M0, EXEC and SCC from it, run one instruction and store the
// destination, SCC (through s_cselect), M0 and EXEC as a 32-byte output
// record. Register roles, which the test's references follow:
//
//   kernarg: +0 in, +8 out, +16 count
//   input:  s[8:9] A   s[10:11] B   s12 SCC   s13 M0   s[14:15] D
//           s[16:17] EXEC   s[18:19] C   s[20:23] 0
//   output: s[24:25] R (starts as D)  s26 SCC  s27 M0  s[28:29] EXEC
//           s[30:31] R2 (starts as C)
//   s32 = 0x18 (an SGPR offset for the memory kernels)
//
// The other kernels are described where they are defined.

.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
.amdhsa_code_object_version 5

.macro KBEGIN name
  .text
  .globl \name
  .p2align 8
  .type \name,@function
\name:
.endm

.macro KEND name, wgid=0
  .size \name, . - \name
  .rodata
  .p2align 6
  .amdhsa_kernel \name
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_system_sgpr_workgroup_id_x \wgid
    .amdhsa_next_free_vgpr 8
    .amdhsa_next_free_sgpr 48
    .amdhsa_accum_offset 8
  .end_amdhsa_kernel
.endm

.macro LOOP_BEGIN name
  KBEGIN \name
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  s_load_dword s3, s[0:1], 0x10
  s_waitcnt lgkmcnt(0)
1:
  s_load_dwordx16 s[8:23], s[4:5], 0x0
  s_waitcnt lgkmcnt(0)
  s_mov_b64 s[24:25], s[14:15]
  s_mov_b64 s[30:31], s[18:19]
  s_mov_b32 m0, s13
  s_mov_b64 exec, s[16:17]
  s_movk_i32 s32, 0x18
  s_cmp_lg_u32 s12, 0
.endm

.macro LOOP_END name
  s_cselect_b32 s26, 1, 0
  s_mov_b32 s27, m0
  s_mov_b64 s[28:29], exec
  s_store_dwordx4 s[24:27], s[6:7], 0x0
  s_store_dwordx4 s[28:31], s[6:7], 0x10
  s_add_u32 s4, s4, 64
  s_addc_u32 s5, s5, 0
  s_add_u32 s6, s6, 32
  s_addc_u32 s7, s7, 0
  s_add_u32 s3, s3, -1
  s_cmp_lg_u32 s3, 0
  s_cbranch_scc1 1b
  s_endpgm
  KEND \name
.endm

.macro RECORD name, op:vararg
  LOOP_BEGIN \name
  \op
  LOOP_END \name
.endm

//===----------------------------------------------------------------------===//
// SOP2
//===----------------------------------------------------------------------===//

RECORD k_add_u32, s_add_u32 s24, s8, s10
RECORD k_sub_u32, s_sub_u32 s24, s8, s10
RECORD k_add_i32, s_add_i32 s24, s8, s10
RECORD k_sub_i32, s_sub_i32 s24, s8, s10
RECORD k_addc_u32, s_addc_u32 s24, s8, s10
RECORD k_subb_u32, s_subb_u32 s24, s8, s10
RECORD k_min_i32, s_min_i32 s24, s8, s10
RECORD k_min_u32, s_min_u32 s24, s8, s10
RECORD k_max_i32, s_max_i32 s24, s8, s10
RECORD k_max_u32, s_max_u32 s24, s8, s10
RECORD k_cselect_b32, s_cselect_b32 s24, s8, s10
RECORD k_cselect_b64, s_cselect_b64 s[24:25], s[8:9], s[10:11]
RECORD k_and_b32, s_and_b32 s24, s8, s10
RECORD k_and_b64, s_and_b64 s[24:25], s[8:9], s[10:11]
RECORD k_or_b32, s_or_b32 s24, s8, s10
RECORD k_or_b64, s_or_b64 s[24:25], s[8:9], s[10:11]
RECORD k_xor_b32, s_xor_b32 s24, s8, s10
RECORD k_xor_b64, s_xor_b64 s[24:25], s[8:9], s[10:11]
RECORD k_andn2_b32, s_andn2_b32 s24, s8, s10
RECORD k_andn2_b64, s_andn2_b64 s[24:25], s[8:9], s[10:11]
RECORD k_orn2_b32, s_orn2_b32 s24, s8, s10
RECORD k_orn2_b64, s_orn2_b64 s[24:25], s[8:9], s[10:11]
RECORD k_nand_b32, s_nand_b32 s24, s8, s10
RECORD k_nand_b64, s_nand_b64 s[24:25], s[8:9], s[10:11]
RECORD k_nor_b32, s_nor_b32 s24, s8, s10
RECORD k_nor_b64, s_nor_b64 s[24:25], s[8:9], s[10:11]
RECORD k_xnor_b32, s_xnor_b32 s24, s8, s10
RECORD k_xnor_b64, s_xnor_b64 s[24:25], s[8:9], s[10:11]
RECORD k_lshl_b32, s_lshl_b32 s24, s8, s10
RECORD k_lshl_b64, s_lshl_b64 s[24:25], s[8:9], s10
RECORD k_lshr_b32, s_lshr_b32 s24, s8, s10
RECORD k_lshr_b64, s_lshr_b64 s[24:25], s[8:9], s10
RECORD k_ashr_i32, s_ashr_i32 s24, s8, s10
RECORD k_ashr_i64, s_ashr_i64 s[24:25], s[8:9], s10
RECORD k_bfm_b32, s_bfm_b32 s24, s8, s10
RECORD k_bfm_b64, s_bfm_b64 s[24:25], s8, s10
RECORD k_mul_i32, s_mul_i32 s24, s8, s10
RECORD k_mul_hi_u32, s_mul_hi_u32 s24, s8, s10
RECORD k_mul_hi_i32, s_mul_hi_i32 s24, s8, s10
RECORD k_bfe_u32, s_bfe_u32 s24, s8, s10
RECORD k_bfe_i32, s_bfe_i32 s24, s8, s10
RECORD k_bfe_u64, s_bfe_u64 s[24:25], s[8:9], s10
RECORD k_bfe_i64, s_bfe_i64 s[24:25], s[8:9], s10
RECORD k_absdiff_i32, s_absdiff_i32 s24, s8, s10
RECORD k_lshl1_add_u32, s_lshl1_add_u32 s24, s8, s10
RECORD k_lshl2_add_u32, s_lshl2_add_u32 s24, s8, s10
RECORD k_lshl3_add_u32, s_lshl3_add_u32 s24, s8, s10
RECORD k_lshl4_add_u32, s_lshl4_add_u32 s24, s8, s10
RECORD k_pack_ll_b32_b16, s_pack_ll_b32_b16 s24, s8, s10
RECORD k_pack_lh_b32_b16, s_pack_lh_b32_b16 s24, s8, s10
RECORD k_pack_hh_b32_b16, s_pack_hh_b32_b16 s24, s8, s10

//===----------------------------------------------------------------------===//
// SOP1
//===----------------------------------------------------------------------===//

RECORD k_mov_b32, s_mov_b32 s24, s8
RECORD k_mov_b64, s_mov_b64 s[24:25], s[8:9]
RECORD k_cmov_b32, s_cmov_b32 s24, s8
RECORD k_cmov_b64, s_cmov_b64 s[24:25], s[8:9]
RECORD k_not_b32, s_not_b32 s24, s8
RECORD k_not_b64, s_not_b64 s[24:25], s[8:9]
RECORD k_wqm_b32, s_wqm_b32 s24, s8
RECORD k_wqm_b64, s_wqm_b64 s[24:25], s[8:9]
RECORD k_brev_b32, s_brev_b32 s24, s8
RECORD k_brev_b64, s_brev_b64 s[24:25], s[8:9]
RECORD k_bcnt0_i32_b32, s_bcnt0_i32_b32 s24, s8
RECORD k_bcnt0_i32_b64, s_bcnt0_i32_b64 s24, s[8:9]
RECORD k_bcnt1_i32_b32, s_bcnt1_i32_b32 s24, s8
RECORD k_bcnt1_i32_b64, s_bcnt1_i32_b64 s24, s[8:9]
RECORD k_ff0_i32_b32, s_ff0_i32_b32 s24, s8
RECORD k_ff0_i32_b64, s_ff0_i32_b64 s24, s[8:9]
RECORD k_ff1_i32_b32, s_ff1_i32_b32 s24, s8
RECORD k_ff1_i32_b64, s_ff1_i32_b64 s24, s[8:9]
RECORD k_flbit_i32_b32, s_flbit_i32_b32 s24, s8
RECORD k_flbit_i32_b64, s_flbit_i32_b64 s24, s[8:9]
RECORD k_flbit_i32, s_flbit_i32 s24, s8
RECORD k_flbit_i32_i64, s_flbit_i32_i64 s24, s[8:9]
RECORD k_sext_i32_i8, s_sext_i32_i8 s24, s8
RECORD k_sext_i32_i16, s_sext_i32_i16 s24, s8
RECORD k_bitset0_b32, s_bitset0_b32 s24, s8
RECORD k_bitset0_b64, s_bitset0_b64 s[24:25], s8
RECORD k_bitset1_b32, s_bitset1_b32 s24, s8
RECORD k_bitset1_b64, s_bitset1_b64 s[24:25], s8
RECORD k_abs_i32, s_abs_i32 s24, s8
RECORD k_quadmask_b32, s_quadmask_b32 s24, s8
RECORD k_quadmask_b64, s_quadmask_b64 s[24:25], s[8:9]
RECORD k_bitreplicate_b64_b32, s_bitreplicate_b64_b32 s[24:25], s8
// M0-relative: s_movrels reads s[8 + M0], s_movreld writes s[24 + M0].
RECORD k_movrels_b32, s_movrels_b32 s24, s8
RECORD k_movrels_b64, s_movrels_b64 s[24:25], s[8:9]
RECORD k_movreld_b32, s_movreld_b32 s24, s8
RECORD k_movreld_b64, s_movreld_b64 s[24:25], s[8:9]
// EXEC: the source is A.
RECORD k_and_saveexec_b64, s_and_saveexec_b64 s[24:25], s[8:9]
RECORD k_or_saveexec_b64, s_or_saveexec_b64 s[24:25], s[8:9]
RECORD k_xor_saveexec_b64, s_xor_saveexec_b64 s[24:25], s[8:9]
RECORD k_andn2_saveexec_b64, s_andn2_saveexec_b64 s[24:25], s[8:9]
RECORD k_orn2_saveexec_b64, s_orn2_saveexec_b64 s[24:25], s[8:9]
RECORD k_nand_saveexec_b64, s_nand_saveexec_b64 s[24:25], s[8:9]
RECORD k_nor_saveexec_b64, s_nor_saveexec_b64 s[24:25], s[8:9]
RECORD k_xnor_saveexec_b64, s_xnor_saveexec_b64 s[24:25], s[8:9]
RECORD k_andn1_saveexec_b64, s_andn1_saveexec_b64 s[24:25], s[8:9]
RECORD k_orn1_saveexec_b64, s_orn1_saveexec_b64 s[24:25], s[8:9]
RECORD k_andn1_wrexec_b64, s_andn1_wrexec_b64 s[24:25], s[8:9]
RECORD k_andn2_wrexec_b64, s_andn2_wrexec_b64 s[24:25], s[8:9]

//===----------------------------------------------------------------------===//
// SOPC
//===----------------------------------------------------------------------===//

RECORD k_cmp_eq_i32, s_cmp_eq_i32 s8, s10
RECORD k_cmp_lg_i32, s_cmp_lg_i32 s8, s10
RECORD k_cmp_gt_i32, s_cmp_gt_i32 s8, s10
RECORD k_cmp_ge_i32, s_cmp_ge_i32 s8, s10
RECORD k_cmp_lt_i32, s_cmp_lt_i32 s8, s10
RECORD k_cmp_le_i32, s_cmp_le_i32 s8, s10
RECORD k_cmp_eq_u32, s_cmp_eq_u32 s8, s10
RECORD k_cmp_lg_u32, s_cmp_lg_u32 s8, s10
RECORD k_cmp_gt_u32, s_cmp_gt_u32 s8, s10
RECORD k_cmp_ge_u32, s_cmp_ge_u32 s8, s10
RECORD k_cmp_lt_u32, s_cmp_lt_u32 s8, s10
RECORD k_cmp_le_u32, s_cmp_le_u32 s8, s10
RECORD k_cmp_eq_u64, s_cmp_eq_u64 s[8:9], s[10:11]
RECORD k_cmp_lg_u64, s_cmp_lg_u64 s[8:9], s[10:11]
RECORD k_bitcmp0_b32, s_bitcmp0_b32 s8, s10
RECORD k_bitcmp1_b32, s_bitcmp1_b32 s8, s10
RECORD k_bitcmp0_b64, s_bitcmp0_b64 s[8:9], s10
RECORD k_bitcmp1_b64, s_bitcmp1_b64 s[8:9], s10

//===----------------------------------------------------------------------===//
// SOPK (immediates: 0x8000 is -32768 signed, 32768 unsigned)
//===----------------------------------------------------------------------===//

RECORD k_movk_i32, s_movk_i32 s24, 0x8765
RECORD k_cmovk_i32, s_cmovk_i32 s24, 0x8001
RECORD k_addk_i32_pos, s_addk_i32 s24, 0x7fff
RECORD k_addk_i32_neg, s_addk_i32 s24, 0x8000
RECORD k_mulk_i32, s_mulk_i32 s24, 0xfff3
RECORD k_cmpk_eq_i32, s_cmpk_eq_i32 s8, 0x8000
RECORD k_cmpk_lg_i32, s_cmpk_lg_i32 s8, 0x8000
RECORD k_cmpk_gt_i32, s_cmpk_gt_i32 s8, 0x8000
RECORD k_cmpk_ge_i32, s_cmpk_ge_i32 s8, 0x8000
RECORD k_cmpk_lt_i32, s_cmpk_lt_i32 s8, 0x8000
RECORD k_cmpk_le_i32, s_cmpk_le_i32 s8, 0x8000
RECORD k_cmpk_eq_u32, s_cmpk_eq_u32 s8, 0x8000
RECORD k_cmpk_lg_u32, s_cmpk_lg_u32 s8, 0x8000
RECORD k_cmpk_gt_u32, s_cmpk_gt_u32 s8, 0x8000
RECORD k_cmpk_ge_u32, s_cmpk_ge_u32 s8, 0x8000
RECORD k_cmpk_lt_u32, s_cmpk_lt_u32 s8, 0x8000
RECORD k_cmpk_le_u32, s_cmpk_le_u32 s8, 0x8000

//===----------------------------------------------------------------------===//
// Constants in 64-bit operands: a 32-bit literal is zero-extended for
// B64/U64 operands and sign-extended for I64 ones; inline constants are
// 64-bit values.
//===----------------------------------------------------------------------===//

RECORD k_lit_mov_b64, s_mov_b64 s[24:25], 0x80000000
RECORD k_lit_mov_b64_fff0, s_mov_b64 s[24:25], 0xfffffff0
RECORD k_lit_and_b64, s_and_b64 s[24:25], s[8:9], 0x80000000
RECORD k_lit_lshr_b64, s_lshr_b64 s[24:25], 0x80000000, s10
RECORD k_lit_bfe_u64, s_bfe_u64 s[24:25], 0x87654321, s10
RECORD k_lit_cmp_eq_u64, s_cmp_eq_u64 s[8:9], 0x80000000
RECORD k_lit_ashr_i64, s_ashr_i64 s[24:25], 0x80000000, s10
RECORD k_lit_bfe_i64, s_bfe_i64 s[24:25], 0x87654321, s10
RECORD k_lit_flbit_i32_i64, s_flbit_i32_i64 s24, 0x80000000
RECORD k_inl_mov_b64_m1, s_mov_b64 s[24:25], -1
RECORD k_inl_mov_b64_m16, s_mov_b64 s[24:25], -16
RECORD k_inl_mov_b64_f, s_mov_b64 s[24:25], -4.0
RECORD k_inl_ashr_i64_m16, s_ashr_i64 s[24:25], -16, s10
RECORD k_inl_add_u32_f, s_add_u32 s24, s8, 0.5
RECORD k_inl_cselect_b64, s_cselect_b64 s[24:25], 64, -2.0

//===----------------------------------------------------------------------===//
// Scalar atomics in record form: the memory cell is the output record's R2
// (out + 24), first set to D. The data registers start as s[24:27] = A, B
// (32-bit: data A.lo; cmpswap: A.lo new value, A.hi compare value; 64-bit
// cmpswap: A new, B compare), so R is what a returning atomic returned
// over A, and R2 is what memory holds afterwards.
//===----------------------------------------------------------------------===//

.macro ATOMIC name, op:vararg
  LOOP_BEGIN \name
  s_store_dwordx2 s[14:15], s[6:7], 0x18
  s_mov_b64 s[24:25], s[8:9]
  s_mov_b64 s[26:27], s[10:11]
  \op
  s_load_dwordx2 s[30:31], s[6:7], 0x18
  s_waitcnt lgkmcnt(0)
  LOOP_END \name
.endm

ATOMIC k_atomic_swap, s_atomic_swap s24, s[6:7], 0x18 glc
ATOMIC k_atomic_cmpswap, s_atomic_cmpswap s[24:25], s[6:7], 0x18 glc
ATOMIC k_atomic_add, s_atomic_add s24, s[6:7], 0x18 glc
ATOMIC k_atomic_sub, s_atomic_sub s24, s[6:7], 0x18 glc
ATOMIC k_atomic_smin, s_atomic_smin s24, s[6:7], 0x18 glc
ATOMIC k_atomic_umin, s_atomic_umin s24, s[6:7], 0x18 glc
ATOMIC k_atomic_smax, s_atomic_smax s24, s[6:7], 0x18 glc
ATOMIC k_atomic_umax, s_atomic_umax s24, s[6:7], 0x18 glc
ATOMIC k_atomic_and, s_atomic_and s24, s[6:7], 0x18 glc
ATOMIC k_atomic_or, s_atomic_or s24, s[6:7], 0x18 glc
ATOMIC k_atomic_xor, s_atomic_xor s24, s[6:7], 0x18 glc
ATOMIC k_atomic_inc, s_atomic_inc s24, s[6:7], 0x18 glc
ATOMIC k_atomic_dec, s_atomic_dec s24, s[6:7], 0x18 glc
ATOMIC k_atomic_swap_x2, s_atomic_swap_x2 s[24:25], s[6:7], 0x18 glc
ATOMIC k_atomic_cmpswap_x2, s_atomic_cmpswap_x2 s[24:27], s[6:7], 0x18 glc
ATOMIC k_atomic_add_x2, s_atomic_add_x2 s[24:25], s[6:7], 0x18 glc
ATOMIC k_atomic_sub_x2, s_atomic_sub_x2 s[24:25], s[6:7], 0x18 glc
ATOMIC k_atomic_smin_x2, s_atomic_smin_x2 s[24:25], s[6:7], 0x18 glc
ATOMIC k_atomic_umin_x2, s_atomic_umin_x2 s[24:25], s[6:7], 0x18 glc
ATOMIC k_atomic_smax_x2, s_atomic_smax_x2 s[24:25], s[6:7], 0x18 glc
ATOMIC k_atomic_umax_x2, s_atomic_umax_x2 s[24:25], s[6:7], 0x18 glc
ATOMIC k_atomic_and_x2, s_atomic_and_x2 s[24:25], s[6:7], 0x18 glc
ATOMIC k_atomic_or_x2, s_atomic_or_x2 s[24:25], s[6:7], 0x18 glc
ATOMIC k_atomic_xor_x2, s_atomic_xor_x2 s[24:25], s[6:7], 0x18 glc
ATOMIC k_atomic_inc_x2, s_atomic_inc_x2 s[24:25], s[6:7], 0x18 glc
ATOMIC k_atomic_dec_x2, s_atomic_dec_x2 s[24:25], s[6:7], 0x18 glc
// Non-returning forms leave the data registers alone (R stays A).
ATOMIC k_atomic_add_nortn, s_atomic_add s24, s[6:7], 0x18
ATOMIC k_atomic_cmpswap_x2_nortn, s_atomic_cmpswap_x2 s[24:27], s[6:7], 0x18
// The same cell through an SGPR offset (s32 = 0x18), and through an SGPR
// (s20 = 0) plus an immediate.
ATOMIC k_atomic_add_soff, s_atomic_add s24, s[6:7], s32 glc
ATOMIC k_atomic_add_sgpr_imm, s_atomic_add s24, s[6:7], s20 offset:0x18 glc
// The gfx9 SOE=1, IMM=0 encoding of s_atomic_add s24, s[6:7], s32 glc
// (LLVM's S_ATOMIC_ADD_SGPR_RTN_alt).
ATOMIC k_atomic_add_alt, .long 0xc2094603, 0x40000000

//===----------------------------------------------------------------------===//
// k_loads(src, out): SMEM loads of every width and addressing form from
// src, each result stored to out at the next free dword (see the test).
//===----------------------------------------------------------------------===//

KBEGIN k_loads
  s_load_dwordx4 s[4:7], s[0:1], 0x0        // s[4:5] src, s[6:7] out
  s_waitcnt lgkmcnt(0)
  s_load_dword s8, s[4:5], 0x4              // out[0] = src[1]
  s_load_dwordx2 s[10:11], s[4:5], 0x8      // out[1:2] = src[2:3]
  s_waitcnt lgkmcnt(0)
  s_store_dword s8, s[6:7], 0x0
  s_store_dwordx2 s[10:11], s[6:7], 0x4
  s_load_dwordx4 s[12:15], s[4:5], 0x10     // out[3:6] = src[4:7]
  s_waitcnt lgkmcnt(0)
  s_store_dwordx4 s[12:15], s[6:7], 0xc
  s_load_dwordx8 s[16:23], s[4:5], 0x20     // out[7:14] = src[8:15]
  s_waitcnt lgkmcnt(0)
  s_store_dwordx4 s[16:19], s[6:7], 0x1c
  s_store_dwordx4 s[20:23], s[6:7], 0x2c
  s_load_dwordx16 s[16:31], s[4:5], 0x40    // out[15:30] = src[16:31]
  s_waitcnt lgkmcnt(0)
  s_store_dwordx4 s[16:19], s[6:7], 0x3c
  s_store_dwordx4 s[20:23], s[6:7], 0x4c
  s_store_dwordx4 s[24:27], s[6:7], 0x5c
  s_store_dwordx4 s[28:31], s[6:7], 0x6c
  s_mov_b32 s32, 0x84
  s_load_dword s8, s[4:5], s32              // out[31] = src[33] (SGPR)
  s_load_dwordx2 s[10:11], s[4:5], s32 offset:0x8 // out[32:33] = src[35:36]
  s_waitcnt lgkmcnt(0)
  s_store_dword s8, s[6:7], 0x7c
  s_store_dwordx2 s[10:11], s[6:7], 0x80
  s_load_dword s8, s[4:5], 0x7              // out[34] = src[1] (low bits ignored)
  s_add_u32 s34, s4, 0x100
  s_addc_u32 s35, s5, 0
  s_load_dword s9, s[34:35], -0x8           // out[35] = src[62] (negative)
  // out[36] = src[40]: s_load_dword s12, s[4:5], s32 in the gfx9 encoding
  // with SOE=1, IMM=0 (LLVM's S_LOAD_DWORD_SGPR_alt), s32 = 0xa0.
  s_mov_b32 s32, 0xa0
  .long 0xc0004302, 0x40000000
  s_waitcnt lgkmcnt(0)
  s_store_dword s8, s[6:7], 0x88
  s_store_dword s9, s[6:7], 0x8c
  s_store_dword s12, s[6:7], 0x90
  // Stores through the SGPR and SGPR+immediate forms: out[37] = 0x5a5a,
  // out[38:39] = {1, 2}.
  s_movk_i32 s13, 0x5a5a
  s_mov_b32 s32, 0x94
  s_store_dword s13, s[6:7], s32
  s_mov_b32 s14, 1
  s_mov_b32 s15, 2
  s_store_dwordx2 s[14:15], s[6:7], s32 offset:0x4
  s_endpgm
KEND k_loads

//===----------------------------------------------------------------------===//
// k_buffer(buf, out, num_records, stride): scalar buffer loads, stores and
// atomics through a V# over buf; see the test for the expected slots.
//===----------------------------------------------------------------------===//

KBEGIN k_buffer
  s_load_dwordx4 s[4:7], s[0:1], 0x0        // s[4:5] buf, s[6:7] out
  s_load_dwordx2 s[8:9], s[0:1], 0x10       // s8 num_records, s9 stride
  s_waitcnt lgkmcnt(0)
  s_mov_b32 s12, s4                         // V# = s[12:15]
  s_lshl_b32 s9, s9, 16
  s_and_b32 s13, s5, 0xffff
  s_or_b32 s13, s13, s9
  s_mov_b32 s14, s8
  s_mov_b32 s15, 0x27000                    // dword 3: formats, ignored
  s_buffer_load_dwordx4 s[16:19], s[12:15], 0x0   // out[0:3]
  s_buffer_load_dwordx8 s[20:27], s[12:15], 0x20  // out[4:11], crosses end
  s_waitcnt lgkmcnt(0)
  s_store_dwordx4 s[16:19], s[6:7], 0x0
  s_store_dwordx4 s[20:23], s[6:7], 0x10
  s_store_dwordx4 s[24:27], s[6:7], 0x20
  s_mov_b32 s28, 0x1000
  s_buffer_load_dword s16, s[12:15], s28          // out[12]: far out, 0
  s_mov_b32 s28, 0x10
  s_buffer_load_dwordx2 s[18:19], s[12:15], s28 offset:0x4 // out[13:14]
  s_waitcnt lgkmcnt(0)
  s_store_dword s16, s[6:7], 0x30
  s_store_dwordx2 s[18:19], s[6:7], 0x34
  // Stores: buf[8:11] = 0x77 + i, partly beyond the end when the range is
  // less than 48 bytes.
  s_mov_b32 s16, 0x77
  s_mov_b32 s17, 0x78
  s_mov_b32 s18, 0x79
  s_mov_b32 s19, 0x7a
  s_buffer_store_dwordx4 s[16:19], s[12:15], 0x20
  // Atomics: buf[1] += 5 (in range), returns the old value -> out[15];
  // buf[200] += 5 (out of range): nothing, returns 0 -> out[16].
  s_mov_b32 s20, 5
  s_buffer_atomic_add s20, s[12:15], 0x4 glc
  s_mov_b32 s21, 5
  s_buffer_atomic_add s21, s[12:15], 0x320 glc
  s_waitcnt lgkmcnt(0)
  s_store_dwordx2 s[20:21], s[6:7], 0x3c
  s_endpgm
KEND k_buffer

//===----------------------------------------------------------------------===//
// k_load_from(addr): a scalar load from an address given as an argument
// (a wild one must fault).
//===----------------------------------------------------------------------===//

KBEGIN k_load_from
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_waitcnt lgkmcnt(0)
  s_load_dword s6, s[4:5], 0x10
  s_waitcnt lgkmcnt(0)
  s_endpgm
KEND k_load_from

//===----------------------------------------------------------------------===//
// k_atomic_count(counter, iterations): every wave adds 1 `iterations` times,
// and also increments a second counter (counter + 8) with s_atomic_inc
// wrapping at 0xffffffff (never reached) and a 64-bit add at counter + 16.
//===----------------------------------------------------------------------===//

KBEGIN k_atomic_count
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_load_dword s3, s[0:1], 0x8
  s_waitcnt lgkmcnt(0)
  s_mov_b32 s8, 1
  s_mov_b32 s9, -1
  s_mov_b32 s10, 1
  s_mov_b32 s11, 1
1:
  s_atomic_add s8, s[4:5], 0x0
  s_atomic_inc s9, s[4:5], 0x8
  s_atomic_add_x2 s[10:11], s[4:5], 0x10
  s_add_u32 s3, s3, -1
  s_cmp_lg_u32 s3, 0
  s_cbranch_scc1 1b
  s_waitcnt lgkmcnt(0)
  s_endpgm
KEND k_atomic_count

//===----------------------------------------------------------------------===//
// k_hw_id(out): each wave takes a slot with a returning atomic on out[0]
// and stores HW_ID and its work-group id to out[2 + 2 * slot].
//===----------------------------------------------------------------------===//

KBEGIN k_hw_id
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_waitcnt lgkmcnt(0)
  s_mov_b32 s8, 1
  s_atomic_add s8, s[4:5], 0x0 glc
  s_waitcnt lgkmcnt(0)
  s_getreg_b32 s10, hwreg(HW_REG_HW_ID)
  s_mov_b32 s11, s2                         // work-group id x
  s_lshl_b32 s8, s8, 3
  s_add_u32 s8, s8, 8
  s_store_dwordx2 s[10:11], s[4:5], s8
  s_endpgm
KEND k_hw_id, 1

//===----------------------------------------------------------------------===//
// k_hwreg(out): hardware registers; out slots as numbered.
//===----------------------------------------------------------------------===//

KBEGIN k_hwreg
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_waitcnt lgkmcnt(0)
  s_getreg_b32 s8, hwreg(HW_REG_MODE)                   // 0: initial MODE
  s_mov_b32 s9, 0x9                                     // 1
  s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s9             // round modes
  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 4), 0xfffffff5 // denorm modes
  s_getreg_b32 s10, hwreg(HW_REG_MODE)                  // 2
  s_getreg_b32 s11, hwreg(HW_REG_MODE, 2, 3)            // 3: bits 4:2
  s_store_dwordx4 s[8:11], s[4:5], 0x0
  s_cmp_eq_u32 0, 0
  s_getreg_b32 s8, hwreg(HW_REG_STATUS)                 // 4: SCC set
  s_cmp_eq_u32 0, 1
  s_getreg_b32 s9, hwreg(HW_REG_STATUS)                 // 5: SCC clear
  s_mov_b64 vcc, 0
  s_getreg_b32 s10, hwreg(HW_REG_STATUS, 9, 2)          // 6: EXECZ, VCCZ
  s_mov_b64 s[12:13], exec
  s_mov_b64 exec, 0
  s_mov_b64 vcc, 1
  s_getreg_b32 s11, hwreg(HW_REG_STATUS, 9, 2)          // 7
  s_mov_b64 exec, s[12:13]
  s_store_dwordx4 s[8:11], s[4:5], 0x10
  s_setreg_imm32_b32 hwreg(HW_REG_STATUS, 0, 1), 1      // SCC = 1
  s_cselect_b32 s8, 1, 0                                // 8
  s_setreg_imm32_b32 hwreg(HW_REG_STATUS, 0, 1), 0      // SCC = 0
  s_cselect_b32 s9, 1, 0                                // 9
  s_setreg_imm32_b32 hwreg(HW_REG_TRAPSTS, 8, 4), 0xb
  s_getreg_b32 s10, hwreg(HW_REG_TRAPSTS)               // 10
  s_getreg_b32 s11, hwreg(HW_REG_SH_MEM_BASES)          // 11
  s_store_dwordx4 s[8:11], s[4:5], 0x20
  s_getreg_b32 s8, hwreg(HW_REG_GPR_ALLOC)              // 12
  s_getreg_b32 s9, hwreg(HW_REG_LDS_ALLOC)              // 13
  s_getreg_b32 s10, hwreg(HW_REG_IB_STS)                // 14
  s_getreg_b32 s11, hwreg(HW_REG_HW_ID)                 // 15
  s_store_dwordx4 s[8:11], s[4:5], 0x30
  // GPR indexing state: M0 and MODE after each step.
  s_mov_b32 m0, 0x12345678
  s_mov_b32 s9, 0x1f3
  s_set_gpr_idx_on s9, gpr_idx(SRC0,DST)
  s_mov_b32 s8, m0                                      // 16
  s_getreg_b32 s9, hwreg(HW_REG_MODE)                   // 17
  s_set_gpr_idx_mode gpr_idx(SRC1,SRC2)
  s_mov_b32 s10, m0                                     // 18
  s_mov_b32 s11, 0x2c5
  s_set_gpr_idx_idx s11
  s_mov_b32 s11, m0                                     // 19
  s_store_dwordx4 s[8:11], s[4:5], 0x40
  s_set_gpr_idx_off
  s_getreg_b32 s8, hwreg(HW_REG_MODE)                   // 20
  s_mov_b32 s9, m0                                      // 21
  s_store_dwordx2 s[8:9], s[4:5], 0x50
  s_endpgm
KEND k_hwreg

//===----------------------------------------------------------------------===//
// k_branches(out): every branch taken and not taken; out[0] collects the
// path bits; s_call_b64 to a local function; s_getpc_b64 right after the
// call returns (so out[1:2] + 4 == out[3:4]).
//===----------------------------------------------------------------------===//

KBEGIN k_branches
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_waitcnt lgkmcnt(0)
  s_mov_b32 s10, 0
  s_cmp_eq_u32 0, 0
  s_cbranch_scc1 .Lb1
  s_or_b32 s10, s10, 0x1                    // skipped
.Lb1:
  s_cbranch_scc0 .Lb2
  s_or_b32 s10, s10, 0x2                    // runs
.Lb2:
  s_mov_b64 vcc, 0
  s_cbranch_vccz .Lb3
  s_or_b32 s10, s10, 0x4                    // skipped
.Lb3:
  s_cbranch_vccnz .Lb4
  s_or_b32 s10, s10, 0x8                    // runs
.Lb4:
  s_cbranch_execz .Lb5
  s_or_b32 s10, s10, 0x10                   // runs
.Lb5:
  s_cbranch_execnz .Lb6
  s_or_b32 s10, s10, 0x20                   // skipped
.Lb6:
  s_cbranch_cdbgsys .Lb7
  s_or_b32 s10, s10, 0x40                   // runs
.Lb7:
  s_cbranch_cdbguser .Lb8
  s_or_b32 s10, s10, 0x80                   // runs
.Lb8:
  s_cbranch_cdbgsys_or_user .Lb9
  s_or_b32 s10, s10, 0x100                  // runs
.Lb9:
  s_cbranch_cdbgsys_and_user .Lb10
  s_or_b32 s10, s10, 0x200                  // runs
.Lb10:
  s_mov_b64 s[12:13], exec
  s_mov_b64 exec, 0
  s_cbranch_execz .Lb11
  s_or_b32 s10, s10, 0x400                  // skipped
.Lb11:
  s_cbranch_execnz .Lb12
  s_or_b32 s10, s10, 0x800                  // runs
.Lb12:
  s_mov_b64 exec, s[12:13]
  s_mov_b64 vcc, 4
  s_cbranch_vccnz .Lb13
  s_or_b32 s10, s10, 0x1000                 // skipped
.Lb13:
  s_cmp_eq_u32 0, 1
  s_cbranch_scc0 .Lb14
  s_or_b32 s10, s10, 0x2000                 // skipped
.Lb14:
  s_call_b64 s[14:15], .Lfunc
  s_getpc_b64 s[16:17]
  s_or_b32 s10, s10, 0x8000                 // runs after the return
  s_branch .Lend
  s_or_b32 s10, s10, 0x10000                // skipped
.Lfunc:
  s_or_b32 s10, s10, 0x4000
  s_setpc_b64 s[14:15]
.Lend:
  s_store_dword s10, s[4:5], 0x0
  s_store_dwordx2 s[14:15], s[4:5], 0x4
  s_store_dwordx2 s[16:17], s[4:5], 0xc
  s_endpgm
KEND k_branches

//===----------------------------------------------------------------------===//
// k_swappc(out): s_swappc_b64 to a local function found with s_getpc_b64;
// the function returns with s_setpc_b64. out[0] = 0xffffc0de (s_movk sign-extends) when it ran.
//===----------------------------------------------------------------------===//

KBEGIN k_swappc
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_waitcnt lgkmcnt(0)
  s_mov_b32 s10, 0
  s_getpc_b64 s[12:13]
.Lswap_pc:
  s_add_u32 s12, s12, .Lswap_fn - .Lswap_pc
  s_addc_u32 s13, s13, 0
  s_swappc_b64 s[14:15], s[12:13]
  s_store_dword s10, s[4:5], 0x0
  s_endpgm
.Lswap_fn:
  s_movk_i32 s10, 0xc0de
  s_setpc_b64 s[14:15]
KEND k_swappc

//===----------------------------------------------------------------------===//
// k_clocks(out): s_memrealtime, s_memtime twice, s_memrealtime.
//===----------------------------------------------------------------------===//

KBEGIN k_clocks
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_waitcnt lgkmcnt(0)
  s_memrealtime s[8:9]
  s_memtime s[10:11]
  s_memtime s[12:13]
  s_memrealtime s[14:15]
  s_waitcnt lgkmcnt(0)
  s_store_dwordx4 s[8:11], s[4:5], 0x0
  s_store_dwordx4 s[12:15], s[4:5], 0x10
  s_endpgm
KEND k_clocks

//===----------------------------------------------------------------------===//
// k_noops(out): hints and cache controls run and change nothing;
// out[0] = 0x600d afterwards.
//===----------------------------------------------------------------------===//

KBEGIN k_noops
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_waitcnt lgkmcnt(0)
  s_nop 3
  s_setprio 2
  s_sleep 1
  s_sethalt 0
  s_sendmsg sendmsg(MSG_INTERRUPT)
  s_icache_inv
  s_dcache_inv
  s_dcache_inv_vol
  s_dcache_wb
  s_dcache_wb_vol
  s_dcache_discard s[4:5], 0x0
  s_dcache_discard_x2 s[4:5], 0x40
  s_atc_probe 7, s[4:5], 0x0
  s_incperflevel 1
  s_decperflevel 1
  s_setkill 0
  s_wakeup
  s_ttracedata
  s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)
  s_movk_i32 s8, 0x600d
  s_store_dword s8, s[4:5], 0x0
  s_endpgm
KEND k_noops

//===----------------------------------------------------------------------===//
// Waves that stop themselves: s_sethalt 1, s_sendmsghalt, s_trap.
//===----------------------------------------------------------------------===//

KBEGIN k_sethalt
  s_sethalt 1
  s_endpgm
KEND k_sethalt

KBEGIN k_sendmsghalt
  s_sendmsghalt sendmsg(MSG_INTERRUPT)
  s_endpgm
KEND k_sendmsghalt

KBEGIN k_trap
  s_trap 2
  s_endpgm
KEND k_trap

//===----------------------------------------------------------------------===//
// k_exec_lanes(out, mask): lanes in mask write their id to out[lane]
// (under s_and_saveexec_b64, skipped with s_cbranch_execz when none is);
// EXEC is restored afterwards and every lane writes 1000 to out[64 + lane].
//===----------------------------------------------------------------------===//

KBEGIN k_exec_lanes
  s_load_dwordx4 s[4:7], s[0:1], 0x0        // s[4:5] out, s[6:7] mask
  s_waitcnt lgkmcnt(0)
  v_lshlrev_b32 v1, 2, v0
  s_and_saveexec_b64 s[8:9], s[6:7]
  s_cbranch_execz .Lexec_skip
  global_store_dword v1, v0, s[4:5]
.Lexec_skip:
  s_or_b64 exec, exec, s[8:9]
  v_mov_b32 v2, 1000
  global_store_dword v1, v2, s[4:5] offset:256
  s_endpgm
KEND k_exec_lanes
