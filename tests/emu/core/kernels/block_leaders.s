// Kernels for CodeRegionTest's basic blocks: the emulator marks a unit's
// block starts from its own decoding where each instruction's flow decides
// them (branches, conditional branches, loops, s_endpgm), and asks the
// Disassembler where an s_setpc_b64 may jump inside the function (its
// target, found from the registers, starts a block). Both must find the
// blocks `loom disasm` finds.
//   kernarg: +0 out (one dword per lane; 64 lanes)

.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
.amdhsa_code_object_version 5

  .text
  .globl branchy
  .p2align 8
  .type branchy,@function
branchy:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v4, 2, v0
  v_mov_b32 v1, 0
  s_mov_b32 s6, 3
.Lloop:
  v_add_u32 v1, 2, v1
  s_add_u32 s6, s6, -1
  s_cmp_eq_u32 s6, 0
  s_cbranch_scc0 .Lloop
  s_branch .Lskip
  v_mov_b32 v1, 99
.Lskip:
  s_waitcnt lgkmcnt(0)
  global_store_dword v4, v1, s[4:5]
  s_endpgm
  .size branchy, . - branchy

  .globl jumps_by_register
  .p2align 8
  .type jumps_by_register,@function
jumps_by_register:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v4, 2, v0
  v_mov_b32 v1, 5
  s_getpc_b64 s[6:7]
.Lpc:
  s_add_u32 s6, s6, .Ltarget-.Lpc
  s_addc_u32 s7, s7, 0
  s_setpc_b64 s[6:7]
  v_mov_b32 v1, 99
.Ltarget:
  v_add_u32 v1, 100, v1
  s_waitcnt lgkmcnt(0)
  global_store_dword v4, v1, s[4:5]
  s_endpgm
  .size jumps_by_register, . - jumps_by_register

  .rodata
  .p2align 6
  .amdhsa_kernel branchy
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_next_free_vgpr 8
    .amdhsa_next_free_sgpr 16
    .amdhsa_accum_offset 8
  .end_amdhsa_kernel
  .p2align 6
  .amdhsa_kernel jumps_by_register
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_next_free_vgpr 8
    .amdhsa_next_free_sgpr 16
    .amdhsa_accum_offset 8
  .end_amdhsa_kernel

  .amdgpu_metadata
---
amdhsa.kernels:
  - .name:           branchy
    .symbol:         branchy.kd
    .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 8
    .max_flat_workgroup_size: 64
    .private_segment_fixed_size: 0
    .sgpr_count:     16
    .vgpr_count:     8
    .wavefront_size: 64
  - .name:           jumps_by_register
    .symbol:         jumps_by_register.kd
    .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 8
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
