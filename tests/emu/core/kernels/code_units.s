// Kernels for CodeRegionTest: code that crosses the units the emulator
// decodes one at a time (emu/CodeRegion.h): execution falling from one
// function into the next, a branch into another function, and running off
// the end of the code. Compiled code does none of these.
//   kernarg: +0 out (one dword per lane; 64 lanes)

.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
.amdhsa_code_object_version 5

  .text
  .globl falls_through
  .p2align 8
  .type falls_through,@function
falls_through:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v4, 2, v0
  v_mov_b32 v1, 1
  s_waitcnt lgkmcnt(0)
  // No s_endpgm: the next function's code runs on.
  .size falls_through, . - falls_through

  .globl landing
  .type landing,@function
landing:
  v_add_u32 v1, 10, v1
  global_store_dword v4, v1, s[4:5]
  s_endpgm
  .size landing, . - landing

  .globl branches_away
  .p2align 8
  .type branches_away,@function
branches_away:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v4, 2, v0
  v_mov_b32 v1, 7
  s_waitcnt lgkmcnt(0)
  s_branch far_target
  .size branches_away, . - branches_away

  .globl far_away
  .p2align 8
  .type far_away,@function
far_away:
  v_mov_b32 v1, 99
far_target:
  v_add_u32 v1, 100, v1
  global_store_dword v4, v1, s[4:5]
  s_endpgm
  .size far_away, . - far_away

  .globl runs_off
  .p2align 8
  .type runs_off,@function
runs_off:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_waitcnt lgkmcnt(0)
  // Neither s_endpgm nor a function after it: the end of the code.
  .size runs_off, . - runs_off

  .rodata
  .p2align 6
  .amdhsa_kernel falls_through
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_next_free_vgpr 8
    .amdhsa_next_free_sgpr 16
    .amdhsa_accum_offset 8
  .end_amdhsa_kernel
  .p2align 6
  .amdhsa_kernel branches_away
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_next_free_vgpr 8
    .amdhsa_next_free_sgpr 16
    .amdhsa_accum_offset 8
  .end_amdhsa_kernel
  .p2align 6
  .amdhsa_kernel runs_off
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_next_free_vgpr 8
    .amdhsa_next_free_sgpr 16
    .amdhsa_accum_offset 8
  .end_amdhsa_kernel

  .amdgpu_metadata
---
amdhsa.kernels:
  - .name:           falls_through
    .symbol:         falls_through.kd
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
  - .name:           branches_away
    .symbol:         branches_away.kd
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
  - .name:           runs_off
    .symbol:         runs_off.kd
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
