// Hand-written cases for the lifting tests (tests/instrument): control flow,
// calls, instructions of every family, and liveness with EXEC changes.

  .text

// A diamond: entry -> then | else -> join -> return.
  .globl cfg_diamond
  .hidden cfg_diamond
  .p2align 2
  .type cfg_diamond,@function
cfg_diamond:
  s_cmp_eq_u32 s4, 0
  s_cbranch_scc1 .Ldiamond_else
  v_add_u32_e32 v0, v0, v1
  s_branch .Ldiamond_join
.Ldiamond_else:
  v_sub_u32_e32 v0, v0, v1
.Ldiamond_join:
  s_setpc_b64 s[30:31]
.Ldiamond_end:
  .size cfg_diamond, .Ldiamond_end-cfg_diamond

// Nested loops (ControlEquivalenceTest.cpp): blocks B0 entry, B1 outer
// loop's head, B2 inner loop (do-while), B3 after it, B4 a then-block, B5
// the outer loop's latch, B6 the return.
  .globl nested_loops
  .hidden nested_loops
  .p2align 2
  .type nested_loops,@function
nested_loops:
  s_mov_b32 s4, 0
.Lnested_outer:
  s_mov_b32 s5, 0
.Lnested_inner:
  s_add_u32 s5, s5, 1
  s_cmp_lt_u32 s5, 3
  s_cbranch_scc1 .Lnested_inner
  s_cmp_eq_u32 s4, 1
  s_cbranch_scc1 .Lnested_latch
  v_add_u32_e32 v0, v0, v1
.Lnested_latch:
  s_add_u32 s4, s4, 1
  s_cmp_lt_u32 s4, 4
  s_cbranch_scc1 .Lnested_outer
  s_setpc_b64 s[30:31]
.Lnested_end:
  .size nested_loops, .Lnested_end-nested_loops

// A call through s_getpc_b64 + s_add_u32/s_addc_u32, then a return.
  .globl caller
  .p2align 2
  .type caller,@function
caller:
  s_mov_b64 s[40:41], s[30:31]
  s_getpc_b64 s[16:17]
  s_add_u32 s16, s16, cfg_diamond@rel32@lo+4
  s_addc_u32 s17, s17, cfg_diamond@rel32@hi+12
  s_swappc_b64 s[30:31], s[16:17]
  s_mov_b64 s[30:31], s[40:41]
  s_setpc_b64 s[30:31]
.Lcaller_end:
  .size caller, .Lcaller_end-caller

// A tail call: s_setpc_b64 to another function's entry.
  .globl tail_caller
  .p2align 2
  .type tail_caller,@function
tail_caller:
  s_getpc_b64 s[16:17]
  s_add_u32 s16, s16, cfg_diamond@rel32@lo+4
  s_addc_u32 s17, s17, cfg_diamond@rel32@hi+12
  s_setpc_b64 s[16:17]
.Ltail_end:
  .size tail_caller, .Ltail_end-tail_caller

// A call to an address loaded from memory: the callee is unknown.
  .globl indirect_call
  .p2align 2
  .type indirect_call,@function
indirect_call:
  s_mov_b64 s[40:41], s[30:31]
  s_load_dwordx2 s[16:17], s[4:5], 0x0
  s_waitcnt lgkmcnt(0)
  s_swappc_b64 s[30:31], s[16:17]
  s_mov_b64 s[30:31], s[40:41]
  s_setpc_b64 s[30:31]
.Lindirect_call_end:
  .size indirect_call, .Lindirect_call_end-indirect_call

// A device function jumping to an address loaded from memory: a tail call
// through a pointer, to an unknown callee.
  .globl tail_through_pointer
  .p2align 2
  .type tail_through_pointer,@function
tail_through_pointer:
  s_load_dwordx2 s[16:17], s[4:5], 0x0
  s_waitcnt lgkmcnt(0)
  s_setpc_b64 s[16:17]
.Ltail_through_pointer_end:
  .size tail_through_pointer, .Ltail_through_pointer_end-tail_through_pointer

// Calls through a pair set in another block, as LLVM hoists a callee's
// address out of a loop: the first call's callee writes neither half, so
// the loop's calls (the pair known on both ways into the loop) resolve.
  .globl hoisted_calls
  .p2align 2
  .type hoisted_calls,@function
hoisted_calls:
  s_mov_b64 s[40:41], s[30:31]
  s_getpc_b64 s[20:21]
  s_add_u32 s20, s20, cfg_diamond@rel32@lo+4
  s_addc_u32 s21, s21, cfg_diamond@rel32@hi+12
  s_swappc_b64 s[30:31], s[20:21]
  s_mov_b32 s6, 3
.Lhoisted_loop:
  s_swappc_b64 s[30:31], s[20:21]
  s_sub_u32 s6, s6, 1
  s_cmp_lg_u32 s6, 0
  s_cbranch_scc1 .Lhoisted_loop
  s_mov_b64 s[30:31], s[40:41]
  s_setpc_b64 s[30:31]
.Lhoisted_end:
  .size hoisted_calls, .Lhoisted_end-hoisted_calls

// The same pair, but one way into the call writes its high half: unknown.
  .globl clobbered_pair
  .p2align 2
  .type clobbered_pair,@function
clobbered_pair:
  s_mov_b64 s[40:41], s[30:31]
  s_getpc_b64 s[20:21]
  s_add_u32 s20, s20, cfg_diamond@rel32@lo+4
  s_addc_u32 s21, s21, cfg_diamond@rel32@hi+12
  s_cmp_eq_u32 s4, 0
  s_cbranch_scc1 .Lclobbered_call
  s_mov_b32 s21, 0
.Lclobbered_call:
  s_swappc_b64 s[30:31], s[20:21]
  s_mov_b64 s[30:31], s[40:41]
  s_setpc_b64 s[30:31]
.Lclobbered_end:
  .size clobbered_pair, .Lclobbered_end-clobbered_pair

// A kernel jumping to an unknown address (a kernel has no caller to tail
// call for): not instrumentable.
  .globl indirect_branch
  .p2align 8
  .type indirect_branch,@function
indirect_branch:
  s_load_dwordx2 s[16:17], s[0:1], 0x0
  s_waitcnt lgkmcnt(0)
  s_setpc_b64 s[16:17]
.Lindirect_branch_end:
  .size indirect_branch, .Lindirect_branch_end-indirect_branch

// Memory instructions with immediate offsets: what HookArg::memoryBaseOf
// leaves out of their addresses (InstrPropertiesTest.cpp).
  .globl base_offsets
  .p2align 2
  .type base_offsets,@function
base_offsets:
  global_load_dword v1, v[2:3], off offset:256
  global_load_dword v1, v2, s[4:5] offset:-4
  flat_load_dword v1, v[2:3] offset:16
  scratch_load_dword v1, v2, off offset:-8
  ds_read_b32 v1, v2 offset:12
  ds_read2_b32 v[4:5], v2 offset0:3 offset1:5
  ds_read2st64_b32 v[4:5], v2 offset0:1 offset1:2
  global_load_dword v1, v[2:3], off
  s_load_dword s4, s[6:7], 0x10
  buffer_load_dword v1, off, s[0:3], 0 offset:8
  buffer_load_dword v5, s[0:3], s6 offen offset:12 lds
  global_load_dword v[6:7], off offset:-16 lds
  s_setpc_b64 s[30:31]
.Lbase_offsets_end:
  .size base_offsets, .Lbase_offsets_end-base_offsets

// One instruction of each family, for their properties.
  .globl props
  .p2align 2
  .type props,@function
props:
  v_add_f32_e32 v1, v2, v3
  s_add_u32 s1, s2, s3
  s_load_dwordx2 s[4:5], s[6:7], 0x0
  global_load_dword v1, v[2:3], off
  global_store_dwordx4 v[2:3], v[4:7], off
  global_atomic_add v1, v[2:3], v4, off glc
  global_atomic_add_x2 v[2:3], v[4:5], off
  flat_load_dword v1, v[2:3]
  flat_store_short v[2:3], v1
  scratch_load_dword v1, v2, off
  ds_read_b32 v1, v2
  ds_write2_b32 v1, v2, v3 offset1:1
  ds_add_rtn_u32 v1, v2, v3
  buffer_load_dword v1, off, s[0:3], 0
  buffer_atomic_add v1, off, s[0:3], 0 glc
  buffer_store_byte v1, off, s[0:3], 0
  buffer_load_dword v5, s[0:3], 0 offen lds
  global_load_dword v[6:7], off lds
  v_cmp_lt_f32_e32 vcc, v1, v2
  s_mov_b32 m0, s1
  v_writelane_b32 v1, s2, 3
  v_readlane_b32 s2, v1, 3
  s_barrier
  s_waitcnt vmcnt(0) lgkmcnt(0)
  s_and_saveexec_b64 s[8:9], vcc
  v_mfma_f32_4x4x1f32 a[0:3], v1, v2, a[0:3]
  global_load_short_d16_hi v1, v[2:3], off
  v_add_f16_e32 v1, v2, v3
  v_cvt_f32_f16_e32 v1, v2
  s_set_gpr_idx_on s4, gpr_idx(SRC0)
  v_mov_b32_e32 v26, v10            // reads v[10 + m0]
  s_set_gpr_idx_off
  s_set_gpr_idx_on s4, gpr_idx(DST)
  v_mov_b32_e32 v27, v11            // writes v[27 + m0]
  s_set_gpr_idx_off
  s_movrels_b32 s1, s20             // reads s[20 + m0]
  s_setpc_b64 s[30:31]
.Lprops_end:
  .size props, .Lprops_end-props

// Liveness across EXEC changes (see LivenessTest.cpp).
  .globl live_kernel
  .p2align 8
  .type live_kernel,@function
live_kernel:
  v_mov_b32_e32 v1, 1               // full EXEC: ends v1's life
  v_cmp_gt_u32_e32 vcc, 32, v0
  s_and_saveexec_b64 s[2:3], vcc
  v_mov_b32_e32 v2, 5               // partial: v2's other lanes stay live
  v_mov_b32_e32 v5, 1               // partial, but read only under this EXEC
  v_add_u32_e32 v6, v5, v5
  s_or_b64 exec, exec, s[2:3]       // EXEC restored: full again
  v_add_u32_e32 v3, v1, v2
  v_add_u32_e32 v3, v3, v6
  v_mov_b32_e32 v4, 0               // full EXEC: ends v4's life
  global_store_dword v4, v3, s[0:1]
  s_endpgm
.Llive_kernel_end:
  .size live_kernel, .Llive_kernel_end-live_kernel

// If/else on EXEC as LLVM emits it (see LivenessTest.cpp).
  .globl else_kernel
  .p2align 8
  .type else_kernel,@function
else_kernel:
  v_cmp_gt_u32_e32 vcc, 32, v0
  s_and_saveexec_b64 s[2:3], vcc    // then side T, s[2:3] = X
  s_xor_b64 s[2:3], exec, s[2:3]    // s[2:3] = X \ T
  v_mov_b32_e32 v2, 1               // then: v2 under T
  v_mov_b32_e32 v3, 7               // then: v3, read only on this side
  v_add_u32_e32 v2, v2, v3
  s_andn2_saveexec_b64 s[2:3], s[2:3]  // else side E, s[2:3] = T
  v_mov_b32_e32 v2, 2               // else: v2 under E
  s_or_b64 exec, exec, s[2:3]       // E | T = X
  v_mov_b32_e32 v1, 0               // X again: ends v1's life
  global_store_dword v1, v2, s[0:1]
  s_endpgm
.Lelse_kernel_end:
  .size else_kernel, .Lelse_kernel_end-else_kernel

// A loop narrowing EXEC on every trip: a value written under this trip's
// EXEC is read on the next trip under that trip's, which may hold other
// lanes (see LivenessTest.cpp).
  .globl loop_kernel
  .p2align 8
  .type loop_kernel,@function
loop_kernel:
  s_mov_b32 s4, 0
  v_mov_b32_e32 v5, 0
.Lloop:
  s_mov_b64 s[6:7], exec            // save X
  v_cmpx_gt_u32_e64 s[8:9], s4, v0  // this trip's EXEC
  v_add_u32_e32 v5, v5, v4          // reads last trip's v4
  v_mov_b32_e32 v4, s4              // writes this trip's v4
  s_mov_b64 exec, s[6:7]            // X again
  s_add_u32 s4, s4, 1
  s_cmp_lt_u32 s4, 4
  s_cbranch_scc1 .Lloop
  global_store_dword v0, v5, s[0:1]
  s_endpgm
.Lloop_kernel_end:
  .size loop_kernel, .Lloop_kernel_end-loop_kernel

  .rodata
  .p2align 6
  .amdhsa_kernel else_kernel
    .amdhsa_next_free_vgpr 8
    .amdhsa_next_free_sgpr 8
    .amdhsa_accum_offset 8
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .end_amdhsa_kernel
  .p2align 6
  .amdhsa_kernel loop_kernel
    .amdhsa_next_free_vgpr 8
    .amdhsa_next_free_sgpr 16
    .amdhsa_accum_offset 8
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .end_amdhsa_kernel
  .p2align 6
  .amdhsa_kernel indirect_branch
    .amdhsa_next_free_vgpr 8
    .amdhsa_next_free_sgpr 24
    .amdhsa_accum_offset 8
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .end_amdhsa_kernel
  .p2align 6
  .amdhsa_kernel live_kernel
    .amdhsa_next_free_vgpr 8
    .amdhsa_next_free_sgpr 8
    .amdhsa_accum_offset 8
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .end_amdhsa_kernel
