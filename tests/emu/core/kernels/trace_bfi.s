// A kernel for TraceCompilerTest: the trace LLVM 22.1's AVX-512 backend miscompiled
// (llvm-project#157929; see emu/TraceCompiler.cpp), v_bfi_b32 with a constant mask
// set in the same trace and the destination also its third source, in a
// loop hot enough to be compiled.
//   kernarg: +0 out, +8 a, +16 b (one dword per lane; 64 lanes)

.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
.amdhsa_code_object_version 5

  .text
  .globl bfi_const_mask
  .p2align 8
  .type bfi_const_mask,@function
bfi_const_mask:
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  s_load_dwordx2 s[8:9], s[0:1], 0x10
  v_lshlrev_b32 v4, 2, v0
  s_waitcnt lgkmcnt(0)
  global_load_dword v0, v4, s[6:7]
  global_load_dword v1, v4, s[8:9]
  s_waitcnt vmcnt(0)
  s_mov_b32 s10, 100
1:
  v_add_u32 v0, 0x9e3779b9, v0
  s_sub_u32 s10, s10, 1
  s_getreg_b32 s13, hwreg(HW_REG_MODE) // not compiled: ends a trace
  s_mov_b32 s12, 0x7fffffff
  s_waitcnt vmcnt(0)
  v_bfi_b32 v1, s12, v0, v1
  s_getreg_b32 s13, hwreg(HW_REG_MODE)
  s_cmp_lg_u32 s10, 0
  s_cbranch_scc1 1b
  global_store_dword v4, v1, s[4:5]
  s_endpgm
  .size bfi_const_mask, . - bfi_const_mask

  .rodata
  .p2align 6
  .amdhsa_kernel bfi_const_mask
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_next_free_vgpr 8
    .amdhsa_next_free_sgpr 16
    // Denormals kept, as clang's kernels say: the default float MODE, the
    // one compiled code runs in.
    .amdhsa_float_denorm_mode_32 3
    .amdhsa_float_denorm_mode_16_64 3
    .amdhsa_accum_offset 8
  .end_amdhsa_kernel

  .amdgpu_metadata
---
amdhsa.kernels:
  - .name:           bfi_const_mask
    .symbol:         bfi_const_mask.kd
    .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  global
        .offset:         8
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  global
        .offset:         16
        .size:           8
        .value_kind:     global_buffer
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 24
    .max_flat_workgroup_size: 64
    .private_segment_fixed_size: 0
    .sgpr_count:     16
    .vgpr_count:     8
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx90a
amdhsa.version:
  - 1
  - 2
...
  .end_amdgpu_metadata
