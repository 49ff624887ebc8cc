// Hook bodies for BodyPlacementTest.cpp: each function stands for a
// point's body, its parameters s4, s5 and v0 as the test says.

  .text

  // s4 read as passed, then reused; s5 read as passed.
  .globl bp_reused
  .p2align 2
  .type bp_reused,@function
bp_reused:
  s_add_u32 s6, s4, 1
  s_mov_b32 s4, 7
  s_add_u32 s7, s4, s5
  s_setpc_b64 s[30:31]
.Lbp_reused_end:
  .size bp_reused, .Lbp_reused_end-bp_reused

  // s4 read after a write on one path only.
  .globl bp_mixed
  .p2align 2
  .type bp_mixed,@function
bp_mixed:
  s_cmp_eq_u32 s5, 0
  s_cbranch_scc1 .Lbp_mixed_join
  s_mov_b32 s4, 1
.Lbp_mixed_join:
  s_add_u32 s6, s4, 1
  s_setpc_b64 s[30:31]
.Lbp_mixed_end:
  .size bp_mixed, .Lbp_mixed_end-bp_mixed

  // s4 returned into: read as passed, a temporary between, the result
  // written last.
  .globl bp_result
  .p2align 2
  .type bp_result,@function
bp_result:
  s_add_u32 s8, s4, 1
  s_mov_b32 s4, 5
  s_add_u32 s9, s4, s4
  s_mov_b32 s4, s8
  s_setpc_b64 s[30:31]
.Lbp_result_end:
  .size bp_result, .Lbp_result_end-bp_result

  // s[4:5] read as one operand.
  .globl bp_pair
  .p2align 2
  .type bp_pair,@function
bp_pair:
  s_load_dwordx2 s[6:7], s[4:5], 0x0
  s_setpc_b64 s[30:31]
.Lbp_pair_end:
  .size bp_pair, .Lbp_pair_end-bp_pair

  // s4 read and written through one register field.
  .globl bp_tied
  .p2align 2
  .type bp_tied,@function
bp_tied:
  s_addk_i32 s4, 0x10
  s_mov_b32 s6, s4
  s_setpc_b64 s[30:31]
.Lbp_tied_end:
  .size bp_tied, .Lbp_tied_end-bp_tied

  // v0 read, then written in the lanes EXEC has on, then read again.
  .globl bp_vgpr
  .p2align 2
  .type bp_vgpr,@function
bp_vgpr:
  v_add_u32_e32 v1, v0, v0
  v_mov_b32_e32 v0, 1
  v_add_u32_e32 v2, v0, v0
  s_setpc_b64 s[30:31]
.Lbp_vgpr_end:
  .size bp_vgpr, .Lbp_vgpr_end-bp_vgpr

  // v0 only read.
  .globl bp_vgpr_read
  .p2align 2
  .type bp_vgpr_read,@function
bp_vgpr_read:
  v_add_u32_e32 v1, v0, v0
  s_setpc_b64 s[30:31]
.Lbp_vgpr_read_end:
  .size bp_vgpr_read, .Lbp_vgpr_read_end-bp_vgpr_read

  // s4 and s5 constants the glue would set: s4 read by a scalar and a
  // vector add, s5 by the scalar one.
  .globl bp_imm
  .p2align 2
  .type bp_imm,@function
bp_imm:
  s_add_u32 s6, s4, s5
  v_add_u32_e32 v1, s4, v0
  s_setpc_b64 s[30:31]
.Lbp_imm_end:
  .size bp_imm, .Lbp_imm_end-bp_imm
