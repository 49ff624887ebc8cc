// MUBUF: loads, stores, format conversions and atomics through a V# the
// test builds (raw, structured, swizzled; with range checking), every
// addressing mode (OFFSET, OFFEN, IDXEN, BOTHEN) and soffset; plus the
// clang buffer builtins at every optimisation level.
#define KERNEL __attribute__((amdgpu_kernel, visibility("default")))
#define LOCAL __attribute__((address_space(3)))

typedef unsigned u32;
typedef unsigned long u64;
typedef u32 u32x2 __attribute__((ext_vector_type(2)));
typedef u32 u32x3 __attribute__((ext_vector_type(3)));
typedef u32 u32x4 __attribute__((ext_vector_type(4)));

static inline u32 gid(void) {
  return __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() +
         __builtin_amdgcn_workitem_id_x();
}

// --- The builtins: raw buffers of n bytes ------------------------------------
// out[i] = dword i + 1 of in and byte 3 of it, read through a V# of n bytes
// (0 out of range); dword i + 2 of out2 is written through another (dropped
// out of range).
KERNEL void buf_builtin(u32 *out, u32 *in, u32 *out2, u32 n) {
  u32 i = gid();
  __amdgpu_buffer_rsrc_t r = __builtin_amdgcn_make_buffer_rsrc(in, 0, n, 0x27000);
  __amdgpu_buffer_rsrc_t w = __builtin_amdgcn_make_buffer_rsrc(out2, 0, n, 0x27000);
  u32 v = __builtin_amdgcn_raw_buffer_load_b32(r, 4 * i + 4, 0, 0);
  unsigned char b = __builtin_amdgcn_raw_buffer_load_b8(r, 4 * i + 3, 0, 0);
  out[i] = v ^ (u32)b << 24;
  __builtin_amdgcn_raw_buffer_store_b32(v + 1, w, 4 * i, 8, 0);
}

// Inline asm needs its "s" operands in SGPRs, which clang -O0 does not
// guarantee: the pinned-instruction kernels are built when optimising.
#ifdef __OPTIMIZE__

#define WAIT "\n s_waitcnt vmcnt(0) lgkmcnt(0)"

// Every kernel: item i, V# rsrc, soffset soff, per-item index vidx[i] and
// offset voff[i]; results to out (typed as the instruction's data).
#define ARGS(T) T *out, u32x4 rsrc, u32 soff, const u32 *vidx, const u32 *voff
#define V_OFFSET(i) 0
#define V_OFFEN(i) voff[i]
#define V_IDXEN(i) vidx[i]
#define V_BOTHEN(i) ((u64)voff[i] << 32 | vidx[i])
#define A_OFFSET "off"
#define A_OFFEN "%1 offen"
#define A_IDXEN "%1 idxen"
#define A_BOTHEN "%1 idxen offen"
// The vaddr operand placeholder appears where the syntax wants it.
#define SYNTAX(op, mode) op " %0, " VADDR_##mode ", %2, %3 " MODE_##mode
#define VADDR_OFFSET "off"
#define VADDR_OFFEN "%1"
#define VADDR_IDXEN "%1"
#define VADDR_BOTHEN "%1"
#define MODE_OFFSET ""
#define MODE_OFFEN "offen"
#define MODE_IDXEN "idxen"
#define MODE_BOTHEN "idxen offen"

// Loads: the register starts as out[i] (D16 forms keep half of it).
#define LOAD(name, op, T, mode)                                                \
  KERNEL void name(ARGS(T)) {                                                  \
    u32 i = gid();                                                             \
    T r = out[i];                                                              \
    asm volatile(SYNTAX(op, mode) " offset:12" WAIT                            \
                 : "+v"(r)                                                     \
                 : "v"(V_##mode(i)), "s"(rsrc), "s"(soff)                      \
                 : "memory");                                                  \
    out[i] = r;                                                                \
  }
LOAD(load_dword_offset, "buffer_load_dword", u32, OFFSET)
LOAD(load_dword_offen, "buffer_load_dword", u32, OFFEN)
LOAD(load_dword_idxen, "buffer_load_dword", u32, IDXEN)
LOAD(load_dword_bothen, "buffer_load_dword", u32, BOTHEN)
LOAD(load_dwordx2_offen, "buffer_load_dwordx2", u32x2, OFFEN)
LOAD(load_dwordx3_offen, "buffer_load_dwordx3", u32x3, OFFEN)
LOAD(load_dwordx4_offen, "buffer_load_dwordx4", u32x4, OFFEN)
LOAD(load_dwordx4_bothen, "buffer_load_dwordx4", u32x4, BOTHEN)
LOAD(load_ubyte_offen, "buffer_load_ubyte", u32, OFFEN)
LOAD(load_sbyte_offen, "buffer_load_sbyte", u32, OFFEN)
LOAD(load_ushort_offen, "buffer_load_ushort", u32, OFFEN)
LOAD(load_sshort_offen, "buffer_load_sshort", u32, OFFEN)
LOAD(load_ubyte_d16_offen, "buffer_load_ubyte_d16", u32, OFFEN)
LOAD(load_sbyte_d16_hi_offen, "buffer_load_sbyte_d16_hi", u32, OFFEN)
LOAD(load_short_d16_hi_idxen, "buffer_load_short_d16_hi", u32, IDXEN)
LOAD(load_format_x_idxen, "buffer_load_format_x", u32, IDXEN)
LOAD(load_format_xy_idxen, "buffer_load_format_xy", u32x2, IDXEN)
LOAD(load_format_xyz_idxen, "buffer_load_format_xyz", u32x3, IDXEN)
LOAD(load_format_xyzw_idxen, "buffer_load_format_xyzw", u32x4, IDXEN)
LOAD(load_format_xyzw_bothen, "buffer_load_format_xyzw", u32x4, BOTHEN)
LOAD(load_format_d16_x_idxen, "buffer_load_format_d16_x", u32, IDXEN)
LOAD(load_format_d16_xy_idxen, "buffer_load_format_d16_xy", u32, IDXEN)
LOAD(load_format_d16_xyzw_idxen, "buffer_load_format_d16_xyzw", u32x2, IDXEN)
LOAD(load_format_d16_hi_x_idxen, "buffer_load_format_d16_hi_x", u32, IDXEN)

// Stores: data from data[i] (typed as the instruction's data).
#define STORE(name, op, T, mode)                                               \
  KERNEL void name(ARGS(T), const T *data) {                                   \
    u32 i = gid();                                                             \
    asm volatile(SYNTAX(op, mode) " offset:12" WAIT                            \
                 :                                                             \
                 : "v"(data[i]), "v"(V_##mode(i)), "s"(rsrc), "s"(soff)        \
                 : "memory");                                                  \
  }
STORE(store_dword_offen, "buffer_store_dword", u32, OFFEN)
STORE(store_dword_idxen, "buffer_store_dword", u32, IDXEN)
STORE(store_dwordx2_offset, "buffer_store_dwordx2", u32x2, OFFSET)
STORE(store_dwordx3_bothen, "buffer_store_dwordx3", u32x3, BOTHEN)
STORE(store_dwordx4_offen, "buffer_store_dwordx4", u32x4, OFFEN)
STORE(store_byte_offen, "buffer_store_byte", u32, OFFEN)
STORE(store_short_offen, "buffer_store_short", u32, OFFEN)
STORE(store_byte_d16_hi_offen, "buffer_store_byte_d16_hi", u32, OFFEN)
STORE(store_short_d16_hi_offen, "buffer_store_short_d16_hi", u32, OFFEN)
STORE(store_format_x_idxen, "buffer_store_format_x", u32, IDXEN)
STORE(store_format_xy_idxen, "buffer_store_format_xy", u32x2, IDXEN)
STORE(store_format_xyzw_idxen, "buffer_store_format_xyzw", u32x4, IDXEN)
STORE(store_format_d16_xy_idxen, "buffer_store_format_d16_xy", u32, IDXEN)
STORE(store_format_d16_hi_x_idxen, "buffer_store_format_d16_hi_x", u32,
      IDXEN)

// Atomics: data from data[i] ({src, cmp} for cmpswap); RTN forms return the
// old value to out[i], the others leave out[i].
#define ATOMIC(name, op, T, D, mode, glc)                                      \
  KERNEL void name(ARGS(T), const D *data) {                                   \
    u32 i = gid();                                                             \
    D r = data[i];                                                             \
    asm volatile(SYNTAX(op, mode) " offset:12 " glc WAIT                       \
                 : "+v"(r)                                                     \
                 : "v"(V_##mode(i)), "s"(rsrc), "s"(soff)                      \
                 : "memory");                                                  \
    if (glc[0])                                                                \
      __builtin_memcpy(&out[i], &r, sizeof(T));                                \
  }
ATOMIC(atomic_add_offen, "buffer_atomic_add", u32, u32, OFFEN, "glc")
ATOMIC(atomic_add_idxen_noret, "buffer_atomic_add", u32, u32, IDXEN, "")
ATOMIC(atomic_smax_bothen, "buffer_atomic_smax", u32, u32, BOTHEN, "glc")
ATOMIC(atomic_cmpswap_offen, "buffer_atomic_cmpswap", u32, u32x2, OFFEN, "glc")
ATOMIC(atomic_add_x2_offen, "buffer_atomic_add_x2", u64, u64, OFFEN, "glc")
ATOMIC(atomic_cmpswap_x2_offen, "buffer_atomic_cmpswap_x2", u64, u32x4, OFFEN,
       "glc")
ATOMIC(atomic_add_f32_offen, "buffer_atomic_add_f32", u32, u32, OFFEN, "glc")
ATOMIC(atomic_pk_add_f16_offen, "buffer_atomic_pk_add_f16", u32, u32, OFFEN,
       "")
ATOMIC(atomic_min_f64_offen, "buffer_atomic_min_f64", u64, u64, OFFEN, "glc")

// buffer_load_dword ... lds: the wave's dwords go to LDS at M0 + 12 + 4 *
// lane and are read back: out[i] (64-item groups).
KERNEL void load_dword_lds_offen(ARGS(u32)) {
  static LOCAL u32 lds[64 + 4] __attribute__((loader_uninitialized));
  u32 i = gid(), t = __builtin_amdgcn_workitem_id_x();
  u32 base = (u32)(LOCAL u32 *)lds;
  lds[t + 3] = 0xabababab;
  asm volatile("s_mov_b32 m0, %3\n buffer_load_dword %0, %1, %2 offen offset:12 lds" WAIT
               : : "v"(voff[i]), "s"(rsrc), "s"(soff), "s"(base) : "memory");
  out[i] = lds[t + 3];
}

#endif // __OPTIMIZE__
