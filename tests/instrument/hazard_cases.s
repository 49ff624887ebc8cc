// Instruction pairs for the wait-state rules (WaitStatesTest.cpp): in each
// function, the last instruction before the return is the consumer, the
// ones before it the producers. Assembled for gfx90a; the gfx94x rules are
// applied to the same instructions.

  .text

  .globl hz_vmem_after_valu_sgpr
  .p2align 2
  .type hz_vmem_after_valu_sgpr,@function
hz_vmem_after_valu_sgpr:
  v_readfirstlane_b32 s4, v0
  global_load_dword v1, v2, s[4:5]
  s_setpc_b64 s[30:31]
.Lhz_vmem_after_valu_sgpr_end:
  .size hz_vmem_after_valu_sgpr, .Lhz_vmem_after_valu_sgpr_end-hz_vmem_after_valu_sgpr

  .globl hz_vmem_after_valu_sgpr_nop
  .p2align 2
  .type hz_vmem_after_valu_sgpr_nop,@function
hz_vmem_after_valu_sgpr_nop:
  v_readfirstlane_b32 s4, v0
  s_nop 1
  global_load_dword v1, v2, s[4:5]
  s_setpc_b64 s[30:31]
.Lhz_vmem_after_valu_sgpr_nop_end:
  .size hz_vmem_after_valu_sgpr_nop, .Lhz_vmem_after_valu_sgpr_nop_end-hz_vmem_after_valu_sgpr_nop

  .globl hz_vmem_other_sgpr
  .p2align 2
  .type hz_vmem_other_sgpr,@function
hz_vmem_other_sgpr:
  v_readfirstlane_b32 s6, v0
  global_load_dword v1, v2, s[4:5]
  s_setpc_b64 s[30:31]
.Lhz_vmem_other_sgpr_end:
  .size hz_vmem_other_sgpr, .Lhz_vmem_other_sgpr_end-hz_vmem_other_sgpr

  .globl hz_div_fmas_after_vcc
  .p2align 2
  .type hz_div_fmas_after_vcc,@function
hz_div_fmas_after_vcc:
  v_cmp_eq_u32_e32 vcc, v0, v1
  v_div_fmas_f32 v2, v3, v4, v5
  s_setpc_b64 s[30:31]
.Lhz_div_fmas_after_vcc_end:
  .size hz_div_fmas_after_vcc, .Lhz_div_fmas_after_vcc_end-hz_div_fmas_after_vcc

  .globl hz_dpp_after_cmpx
  .p2align 2
  .type hz_dpp_after_cmpx,@function
hz_dpp_after_cmpx:
  v_cmpx_eq_u32_e32 v0, v1
  v_mov_b32_dpp v1, v2 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
  s_setpc_b64 s[30:31]
.Lhz_dpp_after_cmpx_end:
  .size hz_dpp_after_cmpx, .Lhz_dpp_after_cmpx_end-hz_dpp_after_cmpx

  .globl hz_dpp_after_vgpr
  .p2align 2
  .type hz_dpp_after_vgpr,@function
hz_dpp_after_vgpr:
  v_add_u32_e32 v2, v0, v1
  v_mov_b32_dpp v3, v2 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
  s_setpc_b64 s[30:31]
.Lhz_dpp_after_vgpr_end:
  .size hz_dpp_after_vgpr, .Lhz_dpp_after_vgpr_end-hz_dpp_after_vgpr

  .globl hz_dpp_other_vgpr
  .p2align 2
  .type hz_dpp_other_vgpr,@function
hz_dpp_other_vgpr:
  v_add_u32_e32 v5, v0, v1
  v_mov_b32_dpp v3, v2 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
  s_setpc_b64 s[30:31]
.Lhz_dpp_other_vgpr_end:
  .size hz_dpp_other_vgpr, .Lhz_dpp_other_vgpr_end-hz_dpp_other_vgpr

  .globl hz_lane_select
  .p2align 2
  .type hz_lane_select,@function
hz_lane_select:
  v_readlane_b32 s4, v0, 0
  v_readlane_b32 s5, v1, s4
  s_setpc_b64 s[30:31]
.Lhz_lane_select_end:
  .size hz_lane_select, .Lhz_lane_select_end-hz_lane_select

  .globl hz_lane_select_salu
  .p2align 2
  .type hz_lane_select_salu,@function
hz_lane_select_salu:
  s_mov_b32 s4, 3
  v_readlane_b32 s5, v1, s4
  s_setpc_b64 s[30:31]
.Lhz_lane_select_salu_end:
  .size hz_lane_select_salu, .Lhz_lane_select_salu_end-hz_lane_select_salu

  .globl hz_m0_sendmsg
  .p2align 2
  .type hz_m0_sendmsg,@function
hz_m0_sendmsg:
  s_mov_b32 m0, s0
  s_sendmsg sendmsg(MSG_INTERRUPT)
  s_setpc_b64 s[30:31]
.Lhz_m0_sendmsg_end:
  .size hz_m0_sendmsg, .Lhz_m0_sendmsg_end-hz_m0_sendmsg

  .globl hz_m0_valu
  .p2align 2
  .type hz_m0_valu,@function
hz_m0_valu:
  s_mov_b32 m0, s0
  v_add_u32_e32 v0, v0, v1
  s_setpc_b64 s[30:31]
.Lhz_m0_valu_end:
  .size hz_m0_valu, .Lhz_m0_valu_end-hz_m0_valu

  .globl hz_mfma_read
  .p2align 2
  .type hz_mfma_read,@function
hz_mfma_read:
  v_mfma_f32_32x32x1f32 a[0:31], v0, v1, a[0:31]
  v_accvgpr_read_b32 v2, a0
  s_setpc_b64 s[30:31]
.Lhz_mfma_read_end:
  .size hz_mfma_read, .Lhz_mfma_read_end-hz_mfma_read

  .globl hz_mfma_far
  .p2align 2
  .type hz_mfma_far,@function
hz_mfma_far:
  v_mfma_f32_32x32x1f32 a[0:31], v0, v1, a[0:31]
  s_nop 7
  s_nop 7
  s_nop 2
  v_accvgpr_read_b32 v2, a0
  s_setpc_b64 s[30:31]
.Lhz_mfma_far_end:
  .size hz_mfma_far, .Lhz_mfma_far_end-hz_mfma_far

  .globl hz_mfma_other
  .p2align 2
  .type hz_mfma_other,@function
hz_mfma_other:
  v_mfma_f32_32x32x1f32 a[0:31], v0, v1, a[0:31]
  v_accvgpr_read_b32 v2, a40
  s_setpc_b64 s[30:31]
.Lhz_mfma_other_end:
  .size hz_mfma_other, .Lhz_mfma_other_end-hz_mfma_other

  .globl hz_wide_store
  .p2align 2
  .type hz_wide_store,@function
hz_wide_store:
  global_store_dwordx4 v[0:1], v[2:5], off
  v_mov_b32_e32 v3, 0
  s_setpc_b64 s[30:31]
.Lhz_wide_store_end:
  .size hz_wide_store, .Lhz_wide_store_end-hz_wide_store

  .globl hz_readfirstlane_after_cmpx
  .p2align 2
  .type hz_readfirstlane_after_cmpx,@function
hz_readfirstlane_after_cmpx:
  v_cmpx_eq_u32_e32 v0, v1
  v_readfirstlane_b32 s4, v2
  s_setpc_b64 s[30:31]
.Lhz_readfirstlane_after_cmpx_end:
  .size hz_readfirstlane_after_cmpx, .Lhz_readfirstlane_after_cmpx_end-hz_readfirstlane_after_cmpx

  .globl hz_valu_sgpr_valu
  .p2align 2
  .type hz_valu_sgpr_valu,@function
hz_valu_sgpr_valu:
  v_readfirstlane_b32 s4, v0
  v_add_u32_e32 v1, s4, v1
  s_setpc_b64 s[30:31]
.Lhz_valu_sgpr_valu_end:
  .size hz_valu_sgpr_valu, .Lhz_valu_sgpr_valu_end-hz_valu_sgpr_valu

  .globl hz_salu_sgpr_valu
  .p2align 2
  .type hz_salu_sgpr_valu,@function
hz_salu_sgpr_valu:
  s_mov_b32 s4, 1
  v_add_u32_e32 v1, s4, v1
  s_setpc_b64 s[30:31]
.Lhz_salu_sgpr_valu_end:
  .size hz_salu_sgpr_valu, .Lhz_salu_sgpr_valu_end-hz_salu_sgpr_valu

  .globl hz_mfma_exec
  .p2align 2
  .type hz_mfma_exec,@function
hz_mfma_exec:
  v_cmpx_eq_u32_e32 v0, v1
  v_mfma_f32_4x4x1f32 a[0:3], v0, v1, a[0:3]
  s_setpc_b64 s[30:31]
.Lhz_mfma_exec_end:
  .size hz_mfma_exec, .Lhz_mfma_exec_end-hz_mfma_exec

  .globl hz_dot
  .p2align 2
  .type hz_dot,@function
hz_dot:
  v_dot2_f32_f16 v2, v0, v1, v2
  v_add_f32_e32 v3, v2, v2
  s_setpc_b64 s[30:31]
.Lhz_dot_end:
  .size hz_dot, .Lhz_dot_end-hz_dot
