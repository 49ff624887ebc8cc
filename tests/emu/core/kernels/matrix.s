// MFMA and AGPR-move fixtures for MatrixTest.cpp.
//
// One kernel, mfma_run(in, out, entry, count), jumps to `entry`: one of the
// variant blocks below, each a single instruction with chosen operands and
// modifiers. `in` holds register images (64 dwords per register, lane L at
// dword L): srcA registers at dword 0, srcB at 128, srcC at 256; the
// variant loads them into its registers, runs its instruction and stores
// the destination registers to `out` the same way. One wave of 64 lanes.
//
// Registers: A in v[2:3] or a[40:41], B in v[4:5] or a[44:45], C and D in
// v[8:39] (the _vcd forms) or a[0:31] (the _acd forms). The load/store
// base pointers are s[10:11] (A), s[12:13] (B), s[14:15] (C), s[6:7] (out).

// Loads \count registers \kind[\first...] from the region at s[\sb:\sb+1].
.macro LOADS kind, first, count, sb
  .set ld_i, 0
  .rept \count
    global_load_dword \kind[\first+ld_i], v1, s[\sb:\sb+1]
    s_add_u32 s[\sb], s[\sb], 0x100
    s_addc_u32 s[\sb+1], s[\sb+1], 0
    .set ld_i, ld_i+1
  .endr
.endm

// Stores \count registers \kind[\first...] to out, advancing s[6:7].
.macro STORES kind, first, count
  .set st_i, 0
  .rept \count
    global_store_dword v1, \kind[\first+st_i], s[6:7]
    s_add_u32 s6, s6, 0x100
    s_addc_u32 s7, s7, 0
    .set st_i, st_i+1
  .endr
.endm

.macro ENTRY name
  .globl \name
  .p2align 2
  .type \name,@function
\name:
.endm

// One MFMA: \nA/\nB/\nC registers for A/B/C (C counts 32-bit registers);
// \dk/\ak/\bk the register files ("v" or "a") of D and C, A, B; \csrc an
// inline constant for srcC (default: the D registers, loaded from `in`);
// \mods the cbsz/abid/blgp modifiers; \execlo/\exechi an EXEC to run the
// MFMA under (restored to all lanes for the stores).
.macro VARIANT name, mnem, nA, nB, nC, dk, ak, bk, csrc=, mods=, execlo=, exechi=
  ENTRY \name
  .ifc \dk,v
    .set d_base, 8
  .else
    .set d_base, 0
  .endif
  .ifc \ak,v
    .set a_base, 2
  .else
    .set a_base, 40
  .endif
  .ifc \bk,v
    .set b_base, 4
  .else
    .set b_base, 44
  .endif
  LOADS \ak, a_base, \nA, 10
  LOADS \bk, b_base, \nB, 12
  .ifb \csrc
    LOADS \dk, d_base, \nC, 14
  .endif
  s_waitcnt vmcnt(0)
  .ifnb \execlo
    s_mov_b32 exec_lo, \execlo
    s_mov_b32 exec_hi, \exechi
  .endif
  .ifb \csrc
    \mnem \dk[d_base:d_base+\nC-1], \ak[a_base:a_base+\nA-1], \bk[b_base:b_base+\nB-1], \dk[d_base:d_base+\nC-1] \mods
  .else
    \mnem \dk[d_base:d_base+\nC-1], \ak[a_base:a_base+\nA-1], \bk[b_base:b_base+\nB-1], \csrc \mods
  .endif
  // The result is ready after at most 64 cycles (16 passes).
  s_nop 15
  s_nop 15
  s_nop 15
  s_nop 15
  .ifnb \execlo
    s_mov_b64 exec, -1
  .endif
  STORES \dk, d_base, \nC
  s_endpgm
.endm

// Every operation in its _vcd form (A, B, C, D in VGPRs) and its _acd form
// (C and D in AGPRs, A from AGPRs, B from VGPRs).
.macro BOTH name, mnem, nA, nC
  VARIANT \name\()_v, \mnem, \nA, \nA, \nC, v, v, v
  VARIANT \name\()_a, \mnem, \nA, \nA, \nC, a, a, v
.endm

  .text
  .globl mfma_run
  .p2align 8
  .type mfma_run,@function
mfma_run:
  s_load_dwordx4 s[4:7], s[0:1], 0x0   // in, out
  s_load_dwordx2 s[8:9], s[0:1], 0x10  // entry
  s_load_dword s16, s[0:1], 0x18       // count (mfma_loop)
  v_lshlrev_b32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  s_mov_b64 s[10:11], s[4:5]
  s_add_u32 s12, s4, 0x200
  s_addc_u32 s13, s5, 0
  s_add_u32 s14, s4, 0x400
  s_addc_u32 s15, s5, 0
  s_setpc_b64 s[8:9]
.Lmfma_run_end:
  .size mfma_run, .Lmfma_run_end-mfma_run

  BOTH f32_32x32x1f32, v_mfma_f32_32x32x1f32, 1, 32
  BOTH f32_16x16x1f32, v_mfma_f32_16x16x1f32, 1, 16
  BOTH f32_4x4x1f32, v_mfma_f32_4x4x1f32, 1, 4
  BOTH f32_32x32x2f32, v_mfma_f32_32x32x2f32, 1, 16
  BOTH f32_16x16x4f32, v_mfma_f32_16x16x4f32, 1, 4
  BOTH f32_32x32x4f16, v_mfma_f32_32x32x4f16, 2, 32
  BOTH f32_16x16x4f16, v_mfma_f32_16x16x4f16, 2, 16
  BOTH f32_4x4x4f16, v_mfma_f32_4x4x4f16, 2, 4
  BOTH f32_32x32x8f16, v_mfma_f32_32x32x8f16, 2, 16
  BOTH f32_16x16x16f16, v_mfma_f32_16x16x16f16, 2, 4
  BOTH f32_32x32x2bf16, v_mfma_f32_32x32x2bf16, 1, 32
  BOTH f32_16x16x2bf16, v_mfma_f32_16x16x2bf16, 1, 16
  BOTH f32_4x4x2bf16, v_mfma_f32_4x4x2bf16, 1, 4
  BOTH f32_32x32x4bf16, v_mfma_f32_32x32x4bf16, 1, 16
  BOTH f32_16x16x8bf16, v_mfma_f32_16x16x8bf16, 1, 4
  BOTH f32_32x32x4bf16_1k, v_mfma_f32_32x32x4bf16_1k, 2, 32
  BOTH f32_16x16x4bf16_1k, v_mfma_f32_16x16x4bf16_1k, 2, 16
  BOTH f32_4x4x4bf16_1k, v_mfma_f32_4x4x4bf16_1k, 2, 4
  BOTH f32_32x32x8bf16_1k, v_mfma_f32_32x32x8bf16_1k, 2, 16
  BOTH f32_16x16x16bf16_1k, v_mfma_f32_16x16x16bf16_1k, 2, 4
  BOTH i32_32x32x4i8, v_mfma_i32_32x32x4i8, 1, 32
  BOTH i32_16x16x4i8, v_mfma_i32_16x16x4i8, 1, 16
  BOTH i32_4x4x4i8, v_mfma_i32_4x4x4i8, 1, 4
  BOTH i32_32x32x8i8, v_mfma_i32_32x32x8i8, 1, 16
  BOTH i32_16x16x16i8, v_mfma_i32_16x16x16i8, 1, 4
  BOTH f64_16x16x4f64, v_mfma_f64_16x16x4f64, 2, 8
  BOTH f64_4x4x4f64, v_mfma_f64_4x4x4f64, 2, 2

// Broadcast modifiers. Names: <op>_c<cbsz>a<abid>b<blgp>.
  VARIANT f32_32x32x1f32_c1a1b0, v_mfma_f32_32x32x1f32, 1, 1, 32, a, v, v, , "cbsz:1 abid:1"
  VARIANT f32_16x16x1f32_c2a3b0, v_mfma_f32_16x16x1f32, 1, 1, 16, v, v, v, , "cbsz:2 abid:3"
  VARIANT f32_16x16x1f32_c1a1b0, v_mfma_f32_16x16x1f32, 1, 1, 16, v, v, v, , "cbsz:1 abid:1"
  VARIANT f32_4x4x1f32_c4a9b0, v_mfma_f32_4x4x1f32, 1, 1, 4, v, v, v, , "cbsz:4 abid:9"
  VARIANT f32_4x4x1f32_c3a5b0, v_mfma_f32_4x4x1f32, 1, 1, 4, a, v, a, , "cbsz:3 abid:5"
  VARIANT f32_4x4x1f32_c0a0b1, v_mfma_f32_4x4x1f32, 1, 1, 4, v, v, v, , "blgp:1"
  VARIANT f32_4x4x1f32_c0a0b2, v_mfma_f32_4x4x1f32, 1, 1, 4, v, v, v, , "blgp:2"
  VARIANT f32_4x4x1f32_c0a0b3, v_mfma_f32_4x4x1f32, 1, 1, 4, v, v, v, , "blgp:3"
  VARIANT f32_4x4x1f32_c0a0b4, v_mfma_f32_4x4x1f32, 1, 1, 4, v, v, v, , "blgp:4"
  VARIANT f32_4x4x1f32_c0a0b5, v_mfma_f32_4x4x1f32, 1, 1, 4, v, v, v, , "blgp:5"
  VARIANT f32_4x4x1f32_c0a0b6, v_mfma_f32_4x4x1f32, 1, 1, 4, v, v, v, , "blgp:6"
  VARIANT f32_4x4x1f32_c0a0b7, v_mfma_f32_4x4x1f32, 1, 1, 4, v, v, v, , "blgp:7"
  VARIANT f32_4x4x1f32_c2a1b6, v_mfma_f32_4x4x1f32, 1, 1, 4, v, v, v, , "cbsz:2 abid:1 blgp:6"
  VARIANT f32_32x32x8f16_c0a0b1, v_mfma_f32_32x32x8f16, 2, 2, 16, v, v, v, , "blgp:1"
  VARIANT f32_32x32x8f16_c0a0b2, v_mfma_f32_32x32x8f16, 2, 2, 16, v, v, v, , "blgp:2"
  VARIANT f32_32x32x8f16_c0a0b3, v_mfma_f32_32x32x8f16, 2, 2, 16, a, v, v, , "blgp:3"
  VARIANT f32_32x32x8f16_c0a0b4, v_mfma_f32_32x32x8f16, 2, 2, 16, v, v, v, , "blgp:4"
  VARIANT f32_32x32x8f16_c0a0b5, v_mfma_f32_32x32x8f16, 2, 2, 16, v, v, v, , "blgp:5"
  VARIANT f32_32x32x8f16_c0a0b6, v_mfma_f32_32x32x8f16, 2, 2, 16, v, v, v, , "blgp:6"
  VARIANT f32_32x32x8f16_c0a0b7, v_mfma_f32_32x32x8f16, 2, 2, 16, v, v, v, , "blgp:7"
  // Single-block operations have no broadcast: CBSZ/ABID change nothing.
  VARIANT f32_32x32x8f16_c3a5b0, v_mfma_f32_32x32x8f16, 2, 2, 16, v, v, v, , "cbsz:3 abid:5"
  VARIANT f32_4x4x4f16_c2a2b0, v_mfma_f32_4x4x4f16, 2, 2, 4, v, v, v, , "cbsz:2 abid:2"
  VARIANT f32_32x32x4f16_c1a1b3, v_mfma_f32_32x32x4f16, 2, 2, 32, a, a, a, , "cbsz:1 abid:1 blgp:3"
  VARIANT f32_32x32x2bf16_c1a1b0, v_mfma_f32_32x32x2bf16, 1, 1, 32, v, v, v, , "cbsz:1 abid:1"
  VARIANT f32_16x16x2bf16_c2a2b5, v_mfma_f32_16x16x2bf16, 1, 1, 16, v, v, v, , "cbsz:2 abid:2 blgp:5"
  VARIANT f32_4x4x4bf16_1k_c4a15b0, v_mfma_f32_4x4x4bf16_1k, 2, 2, 4, v, v, v, , "cbsz:4 abid:15"
  VARIANT f32_32x32x4bf16_1k_c0a0b5, v_mfma_f32_32x32x4bf16_1k, 2, 2, 32, v, v, v, , "blgp:5"
  VARIANT f32_16x16x4bf16_1k_c1a0b2, v_mfma_f32_16x16x4bf16_1k, 2, 2, 16, a, v, v, , "cbsz:1 abid:0 blgp:2"
  VARIANT i32_16x16x4i8_c1a1b0, v_mfma_i32_16x16x4i8, 1, 1, 16, v, v, v, , "cbsz:1 abid:1"
  VARIANT i32_4x4x4i8_c3a6b4, v_mfma_i32_4x4x4i8, 1, 1, 4, a, a, a, , "cbsz:3 abid:6 blgp:4"
  VARIANT i32_16x16x16i8_c0a0b3, v_mfma_i32_16x16x16i8, 1, 1, 4, v, v, v, , "blgp:3"
  VARIANT f32_16x16x4f32_c0a0b7, v_mfma_f32_16x16x4f32, 1, 1, 4, v, v, v, , "blgp:7"
  // gfx90a's F64 operations have no BLGP: the field is ignored.
  VARIANT f64_16x16x4f64_c0a0b7, v_mfma_f64_16x16x4f64, 2, 2, 8, v, v, v, , "blgp:7"

// Inline constants as srcC: one value for every element of C.
  VARIANT f32_32x32x8f16_k1p0, v_mfma_f32_32x32x8f16, 2, 2, 16, a, v, v, 1.0
  VARIANT f32_4x4x1f32_k4, v_mfma_f32_4x4x1f32, 1, 1, 4, v, v, v, 4
  VARIANT i32_16x16x16i8_km7, v_mfma_i32_16x16x16i8, 1, 1, 4, v, v, v, -7
  VARIANT f64_16x16x4f64_km2p0, v_mfma_f64_16x16x4f64, 2, 2, 8, a, v, v, -2.0
  VARIANT f64_4x4x4f64_k0p5, v_mfma_f64_4x4x4f64, 2, 2, 2, v, v, v, 0.5

// MFMA under a partial EXEC: the matrix core still uses and writes every lane.
  VARIANT f32_16x16x4f32_exec, v_mfma_f32_16x16x4f32, 1, 1, 4, v, v, v, , , 0xffff0000, 0x0000ff0f
  VARIANT f32_32x32x8f16_exec0, v_mfma_f32_32x32x8f16, 2, 2, 16, a, v, v, , , 0, 0

// AGPR moves under a partial EXEC. Loads v2 (A0), v4 (B0), a0..a3 (C0..C3),
// v8 (C4); stores a0, a1, a2, v8.
  ENTRY acc_moves
  LOADS v, 2, 1, 10
  LOADS v, 4, 1, 12
  LOADS a, 0, 4, 14
  LOADS v, 8, 1, 14
  s_waitcnt vmcnt(0)
  s_mov_b32 exec_lo, 0x0f0f3c01
  s_mov_b32 exec_hi, 0x80000ff0
  v_accvgpr_write_b32 a0, v2
  v_accvgpr_write_b32 a1, -3
  v_accvgpr_mov_b32 a2, a3
  v_accvgpr_read_b32 v8, a3
  s_mov_b64 exec, -1
  STORES a, 0, 3
  STORES v, 8, 1
  s_endpgm

// A loop of `count` dependent 32x32x8f16 MFMAs: D += A * B each time.
  ENTRY mfma_loop
  LOADS v, 2, 2, 10
  LOADS v, 4, 2, 12
  LOADS v, 8, 16, 14
  s_waitcnt vmcnt(0)
  s_add_u32 s16, s16, -1       // count - 1 (carry unless count == 0)
  s_cbranch_scc0 .Lloop_done
.Lloop:
  v_mfma_f32_32x32x8f16 v[8:23], v[2:3], v[4:5], v[8:23]
  s_add_u32 s16, s16, -1       // carry (SCC = 1) while the count was > 0
  s_cbranch_scc1 .Lloop
.Lloop_done:
  s_nop 15
  s_nop 15
  s_nop 15
  s_nop 15
  STORES v, 8, 16
  s_endpgm

  .rodata
  .p2align 6
  .amdhsa_kernel mfma_run
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_kernarg_size 32
    .amdhsa_system_vgpr_workitem_id 0
    .amdhsa_next_free_vgpr 512
    .amdhsa_next_free_sgpr 24
    .amdhsa_accum_offset 256
    .amdhsa_reserve_vcc 0
    .amdhsa_reserve_flat_scratch 0
  .end_amdhsa_kernel

  .amdgpu_metadata
---
amdhsa.kernels:
  - .name:           mfma_run
    .symbol:         mfma_run.kd
    .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  global
        .offset:         8
        .size:           8
        .value_kind:     global_buffer
      - .offset:         16
        .size:           8
        .value_kind:     by_value
      - .offset:         24
        .size:           4
        .value_kind:     by_value
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 32
    .max_flat_workgroup_size: 64
    .private_segment_fixed_size: 0
    .sgpr_count:     24
    .vgpr_count:     512
    .agpr_count:     256
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx90a
amdhsa.version:
  - 1
  - 2
...
  .end_amdgpu_metadata
