// FLAT, GLOBAL and SCRATCH: loads and stores of every width through flat
// and global pointers, the three private-memory paths (MUBUF through the
// private segment V#, SCRATCH_* instructions, FLAT to the private aperture),
// atomics under contention, faults; and (when optimising) instructions
// pinned with inline asm: D16 forms, SADDR forms with negative offsets,
// every global/flat atomic, flat accesses routed to LDS, scratch layout.
#define KERNEL __attribute__((amdgpu_kernel, visibility("default")))
#define GLOBAL __attribute__((address_space(1)))
#define LOCAL __attribute__((address_space(3)))
#define PRIVATE __attribute__((address_space(5)))
#define FLAT_SCRATCH __attribute__((target("enable-flat-scratch")))

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned u32;
typedef unsigned long u64;
typedef int int3v __attribute__((ext_vector_type(3)));
typedef int int4v __attribute__((ext_vector_type(4)));

static inline u32 gid(void) {
  return __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() +
         __builtin_amdgcn_workitem_id_x();
}

// --- Every width, through flat and global pointers ------------------------
// Item i reads its 32-byte window in[32i..] and writes a 96-byte record
// out[96i..] (see the test for the layout). Volatile keeps each access at
// its own width.
#define WIDTHS(name, AS)                                                       \
  KERNEL void name(AS u8 *out, AS const u8 *in, u32 n) {                       \
    u32 i = gid();                                                             \
    if (i >= n)                                                                \
      return;                                                                  \
    AS const volatile u8 *p = in + 32 * i;                                     \
    AS volatile u8 *o = out + 96 * i;                                          \
    *(AS volatile int *)(o + 0) = *(AS const volatile signed char *)(p + 3);   \
    *(AS volatile u32 *)(o + 4) = p[5];                                        \
    *(AS volatile int *)(o + 8) = *(AS const volatile short *)(p + 6);         \
    *(AS volatile u32 *)(o + 12) = *(AS const volatile u16 *)(p + 10);         \
    *(AS volatile int *)(o + 16) = *(AS const volatile int *)(p + 12);         \
    *(AS volatile u64 *)(o + 24) = *(AS const volatile u64 *)(p + 16);         \
    *(AS volatile int3v *)(o + 32) = *(AS const volatile int3v *)(p + 16);     \
    *(AS volatile int4v *)(o + 48) = *(AS const volatile int4v *)(p + 16);     \
    o[64] = p[1] + 1;                                                          \
    o[65] = p[2] - 1;                                                          \
    *(AS volatile short *)(o + 66) = *(AS const volatile short *)(p + 8) ^ 0x5a5a; \
    *(AS volatile int3v *)(o + 80) = *(AS const volatile int3v *)(p + 0) + 1;  \
  }
WIDTHS(widths_flat, )
WIDTHS(widths_global, GLOBAL)

// --- Private memory ----------------------------------------------------------
// A dynamically indexed local array, bytes, a pointer to a stack variable
// passed on as a flat pointer, and recursion; out[8i..8i+7]. Built twice:
// with MUBUF scratch (the default) and with SCRATCH_* instructions.
#define SCRATCH_KERNEL(name, ATTR)                                             \
  ATTR __attribute__((noinline)) static int name##_rec(int n, int *p) {        \
    volatile int loc[4];                                                       \
    loc[n & 3] = n * 3 + *p;                                                   \
    if (n <= 0)                                                                \
      return loc[0] + *p;                                                      \
    return name##_rec(n - 1, p) + loc[n & 3];                                  \
  }                                                                            \
  ATTR __attribute__((noinline)) static void name##_bump(int *p, int by) {     \
    *p += by;                                                                  \
    ((volatile char *)p)[1] ^= 0x5a;                                           \
  }                                                                            \
  ATTR KERNEL void name(int *out, u32 n, u32 k) {                              \
    u32 i = gid();                                                             \
    if (i >= n)                                                                \
      return;                                                                  \
    volatile int arr[48];                                                      \
    volatile signed char bytes[21];                                                   \
    for (int j = 0; j < 48; ++j)                                               \
      arr[j] = (int)(i * 131 + j * 7);                                         \
    for (int j = 0; j < 21; ++j)                                               \
      bytes[j] = (signed char)(i + j * 13);                                           \
    int local = (int)i;                                                        \
    name##_bump(&local, (int)k);                                               \
    int bsum = 0;                                                              \
    for (int j = 0; j < 21; ++j)                                               \
      bsum += bytes[(j * 5 + i) % 21] * (j + 1);                               \
    out[8 * i + 0] = arr[(i + k) % 48];                                        \
    out[8 * i + 1] = arr[(i * 5 + k) % 48];                                    \
    out[8 * i + 2] = local;                                                    \
    out[8 * i + 3] = name##_rec((int)(i % 5) + 1, &local);                     \
    out[8 * i + 4] = bsum;                                                     \
  }
SCRATCH_KERNEL(scratch_mubuf, )
SCRATCH_KERNEL(scratch_flat, FLAT_SCRATCH)

// --- Atomics under contention ------------------------------------------------
KERNEL void atomics_contention(int *c, long *c64, float *f, double *d,
                               u32 *ret, u32 *xchg, u32 n) {
  u32 i = gid();
  if (i >= n)
    return;
  ret[i] = __atomic_fetch_add(&c[0], 1, __ATOMIC_RELAXED);
  __atomic_fetch_sub(&c[1], (int)(i & 7), __ATOMIC_RELAXED);
  __atomic_fetch_max(&c[2], (int)(i * 2654435761u), __ATOMIC_RELAXED);
  __atomic_fetch_min(&c[3], (int)(i * 2654435761u), __ATOMIC_RELAXED);
  __atomic_fetch_max((u32 *)&c[4], i * 2654435761u, __ATOMIC_RELAXED);
  __atomic_fetch_min((u32 *)&c[5], i * 2654435761u, __ATOMIC_RELAXED);
  __atomic_fetch_and(&c[6], ~(1 << (i % 31)), __ATOMIC_RELAXED);
  __atomic_fetch_or(&c[7], 1 << (i % 29), __ATOMIC_RELAXED);
  __atomic_fetch_xor(&c[8], (int)(i * 0x9e3779b9u), __ATOMIC_RELAXED);
  __builtin_amdgcn_atomic_inc32((u32 *)&c[9], 100, __ATOMIC_RELAXED, "agent");
  __builtin_amdgcn_atomic_dec32((u32 *)&c[10], 100, __ATOMIC_RELAXED, "agent");
  xchg[i] = __atomic_exchange_n(&c[11], (int)i, __ATOMIC_RELAXED);
  int old = c[12];
  while (!__atomic_compare_exchange_n(&c[12], &old, old * 3 + 1, 1,
                                      __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  __atomic_fetch_add(&c64[0], (long)i << 20, __ATOMIC_RELAXED);
  __atomic_fetch_max(&c64[1], (long)i * -977, __ATOMIC_RELAXED);
  __builtin_amdgcn_global_atomic_fadd_f32((GLOBAL float *)&f[0], 2.0f);
  __builtin_amdgcn_global_atomic_fadd_f64((GLOBAL double *)&d[0], 0.5);
  __builtin_amdgcn_global_atomic_fmin_f64((GLOBAL double *)&d[1], (double)i);
  __builtin_amdgcn_global_atomic_fmax_f64((GLOBAL double *)&d[2], (double)i);
}

// --- Faults --------------------------------------------------------------
KERNEL void store_wild(u32 *p) { p[gid()] = 1; }

// A private array indexed far beyond the wave's scratch: MUBUF (or
// SCRATCH_*) and, through a flat pointer, FLAT to the private aperture.
__attribute__((noinline)) static void poke(volatile int *p, u32 idx) {
  p[idx] = 7;
}
__attribute__((noinline)) FLAT_SCRATCH static void poke_fs(volatile int *p,
                                                           u32 idx) {
  p[idx] = 7;
}
KERNEL void scratch_wild(u32 *out, u32 idx, u32 via_flat) {
  volatile int arr[8];
  for (int j = 0; j < 8; ++j)
    arr[j] = j;
  if (via_flat)
    poke(arr, idx);
  else
    arr[idx] = 7;
  out[gid()] = arr[gid() & 7];
}
FLAT_SCRATCH KERNEL void scratch_wild_fs(u32 *out, u32 idx, u32 via_flat) {
  volatile int arr[8];
  for (int j = 0; j < 8; ++j)
    arr[j] = j;
  if (via_flat)
    poke_fs(arr, idx);
  else
    arr[idx] = 7;
  out[gid()] = arr[gid() & 7];
}

// Inline asm needs its "s" operands in SGPRs, which clang -O0 does not
// guarantee: the pinned-instruction kernels are built when optimising.
#ifdef __OPTIMIZE__

#define WAIT "\n s_waitcnt vmcnt(0) lgkmcnt(0)"

// --- D16 loads: the other half of the register is kept ----------------------
// out[18i + 3k..] for the six D16 loads k, as GLOBAL (vaddr, offset -3),
// GLOBAL SADDR (offset -5) and FLAT (offset 1); the register starts as
// old[i].
#define D16_LOADS(op)                                                          \
  {                                                                            \
    u32 r0 = old[i], r1 = old[i], r2 = old[i];                                 \
    asm volatile("global_load_" op " %0, %1, off offset:-3" WAIT              \
                 : "+v"(r0) : "v"(in + 16 * i + 3) : "memory");               \
    asm volatile("global_load_" op " %0, %1, %2 offset:-5" WAIT               \
                 : "+v"(r1) : "v"(16 * i + 5), "s"(in) : "memory");           \
    asm volatile("flat_load_" op " %0, %1 offset:1" WAIT                      \
                 : "+v"(r2) : "v"(in + 16 * i - 1) : "memory");               \
    out[3 * k] = r0;                                                           \
    out[3 * k + 1] = r1;                                                       \
    out[3 * k + 2] = r2;                                                       \
    ++k;                                                                       \
  }
KERNEL void d16_loads(u32 *outs, const u8 *in, const u32 *old) {
  u32 i = gid(), k = 0;
  u32 *out = outs + 18 * i;
  // Each item's bytes start at in + 16i; the loads read in[16i..16i+1].
  D16_LOADS("ubyte_d16")
  D16_LOADS("ubyte_d16_hi")
  D16_LOADS("sbyte_d16")
  D16_LOADS("sbyte_d16_hi")
  D16_LOADS("short_d16")
  D16_LOADS("short_d16_hi")
}

// --- Sub-dword stores: byte/short and their D16_HI forms ---------------------
// Item i stores v[i] to out[16i..] at bytes 0 (byte), 2 (short), 5
// (byte_d16_hi), 6 (short_d16_hi) with GLOBAL, and the same at +8 with
// FLAT and GLOBAL SADDR (offset -8).
KERNEL void sub_dword_stores(u8 *out, const u32 *v) {
  u32 i = gid(), x = v[i];
  u8 *o = out + 16 * i;
  asm volatile("global_store_byte %0, %1, off\n"
               " global_store_short %0, %1, off offset:2\n"
               " global_store_byte_d16_hi %0, %1, off offset:5\n"
               " global_store_short_d16_hi %0, %1, off offset:6" WAIT
               :
               : "v"(o), "v"(x)
               : "memory");
  asm volatile("flat_store_byte %0, %1 offset:8\n"
               " flat_store_short %0, %1 offset:10" WAIT
               :
               : "v"(o), "v"(x)
               : "memory");
  asm volatile("global_store_byte_d16_hi %0, %1, %2 offset:-3\n"
               " global_store_short_d16_hi %0, %1, %2 offset:-2" WAIT
               :
               : "v"(16 * i + 16), "v"(x), "s"(out)
               : "memory");
}

// --- Wide SADDR accesses with negative offsets -----------------------------
// Item i (of 4096) copies in[4i..4i+3] to out[4i..] with x4, to
// out[16384 + 4i..] with x3 + x1 and to out[32768 + 4i..] with x2 + x2, all
// SADDR with offsets near -4096.
KERNEL void saddr_wide(u32 *out, const u32 *in) {
  u32 i = gid();
  int4v a;
  int3v b;
  u64 c, d;
  u32 e;
  u32 off = 16 * i + 4096;
  asm volatile("global_load_dwordx4 %0, %1, %2 offset:-4096" WAIT
               : "=v"(a) : "v"(off), "s"(in) : "memory");
  asm volatile("global_load_dwordx3 %0, %1, %2 offset:-4096" WAIT
               : "=v"(b) : "v"(off), "s"(in) : "memory");
  asm volatile("global_load_dword %0, %1, %2 offset:-4084" WAIT
               : "=v"(e) : "v"(off), "s"(in) : "memory");
  asm volatile("global_load_dwordx2 %0, %1, %2 offset:-4096" WAIT
               : "=v"(c) : "v"(off), "s"(in) : "memory");
  asm volatile("global_load_dwordx2 %0, %1, %2 offset:-4088" WAIT
               : "=v"(d) : "v"(off), "s"(in) : "memory");
  asm volatile("global_store_dwordx4 %0, %1, %2 offset:-4096" WAIT
               : : "v"(off), "v"(a), "s"(out) : "memory");
  asm volatile("global_store_dwordx3 %0, %1, %2 offset:-4096\n"
               " global_store_dword %0, %3, %2 offset:-4084" WAIT
               : : "v"(off + 16 * 64 * 64), "v"(b), "s"(out), "v"(e)
               : "memory");
  asm volatile("global_store_dwordx2 %0, %1, %3 offset:-4096\n"
               " global_store_dwordx2 %0, %2, %3 offset:-4088" WAIT
               : : "v"(off + 2 * 16 * 64 * 64), "v"(c), "v"(d), "s"(out)
               : "memory");
}

// --- Every global/flat atomic ------------------------------------------------
// Lane i works on mem[i] (a dword or a qword) with data[i] (and data2[i]
// for cmpswap); RTN forms return the old value to ret[i]. Three kernels per
// operation: GLOBAL vaddr RTN, GLOBAL SADDR no-RTN, FLAT RTN.
#define ATOMIC_GLOBAL(name, op, T, DATA)                                       \
  KERNEL void atomic_##name(T *mem, const T *data, const T *data2, T *ret) {   \
    u32 i = gid();                                                             \
    T r;                                                                       \
    asm volatile("global_atomic_" op " %0, %1, %2, off glc" WAIT               \
                 : "=v"(r) : "v"(mem + i), "v"(DATA) : "memory");             \
    ret[i] = r;                                                                \
  }                                                                            \
  KERNEL void atomic_##name##_saddr(T *mem, const T *data, const T *data2,     \
                                    T *ret) {                                  \
    u32 i = gid();                                                             \
    asm volatile("global_atomic_" op " %0, %1, %2 offset:-16" WAIT             \
                 : : "v"((u32)sizeof(T) * i + 16), "v"(DATA), "s"(mem)        \
                 : "memory");                                                  \
  }
#define ATOMIC(name, op, T, DATA)                                              \
  ATOMIC_GLOBAL(name, op, T, DATA)                                             \
  KERNEL void atomic_##name##_flat(T *mem, const T *data, const T *data2,      \
                                   T *ret) {                                   \
    u32 i = gid();                                                             \
    T r;                                                                       \
    asm volatile("flat_atomic_" op " %0, %1, %2 glc" WAIT                      \
                 : "=v"(r) : "v"(mem + i), "v"(DATA) : "memory");             \
    ret[i] = r;                                                                \
  }
#define ATOMIC32(name, op, DATA) ATOMIC(name, op, u32, DATA)
#define ATOMIC64(name, op, DATA) ATOMIC(name, op, u64, DATA)
#define D1 data[i]
#define D2 ((u64)data2[i] << 32 | data[i])
ATOMIC32(swap, "swap", D1)
ATOMIC32(cmpswap, "cmpswap", D2)
ATOMIC32(add, "add", D1)
ATOMIC32(sub, "sub", D1)
ATOMIC32(smin, "smin", D1)
ATOMIC32(umin, "umin", D1)
ATOMIC32(smax, "smax", D1)
ATOMIC32(umax, "umax", D1)
ATOMIC32(and, "and", D1)
ATOMIC32(or, "or", D1)
ATOMIC32(xor, "xor", D1)
ATOMIC32(inc, "inc", D1)
ATOMIC32(dec, "dec", D1)
#undef D2
typedef u64 u64x2 __attribute__((ext_vector_type(2)));
#define D2 ((u64x2){data[i], data2[i]})
ATOMIC64(swap_x2, "swap_x2", D1)
ATOMIC64(cmpswap_x2, "cmpswap_x2", D2)
ATOMIC64(add_x2, "add_x2", D1)
ATOMIC64(sub_x2, "sub_x2", D1)
ATOMIC64(smin_x2, "smin_x2", D1)
ATOMIC64(umin_x2, "umin_x2", D1)
ATOMIC64(smax_x2, "smax_x2", D1)
ATOMIC64(umax_x2, "umax_x2", D1)
ATOMIC64(and_x2, "and_x2", D1)
ATOMIC64(or_x2, "or_x2", D1)
ATOMIC64(xor_x2, "xor_x2", D1)
ATOMIC64(inc_x2, "inc_x2", D1)
ATOMIC64(dec_x2, "dec_x2", D1)
ATOMIC64(add_f64, "add_f64", D1)
ATOMIC64(min_f64, "min_f64", D1)
ATOMIC64(max_f64, "max_f64", D1)

// --- Lanes of a wave on shared addresses --------------------------------------
// Lane l of a wave (l = i % 64) works on the wave's mem[64w + slot]: slot 0
// for lanes l % 3 == 0, slot 1 for l % 3 == 1, its own slot l otherwise;
// the old value goes to ret[i].
#define ATOMIC_SHARED(name, op, T)                                             \
  KERNEL void atomic_##name##_shared(T *mem, const T *data, const T *data2,    \
                                     T *ret) {                                 \
    u32 i = gid(), l = i % 64;                                                 \
    u32 slot = l % 3 == 2 ? l : l % 3;                                         \
    T r;                                                                       \
    asm volatile("global_atomic_" op " %0, %1, %2, off glc" WAIT               \
                 : "=v"(r) : "v"(mem + (i - l) + slot), "v"(data[i])          \
                 : "memory");                                                  \
    ret[i] = r;                                                                \
  }
ATOMIC_SHARED(add, "add", u32)
ATOMIC_SHARED(sub, "sub", u32)
ATOMIC_SHARED(smin, "smin", u32)
ATOMIC_SHARED(umax, "umax", u32)
ATOMIC_SHARED(and, "and", u32)
ATOMIC_SHARED(or, "or", u32)
ATOMIC_SHARED(xor, "xor", u32)
ATOMIC_SHARED(inc, "inc", u32)
ATOMIC_SHARED(add_x2, "add_x2", u64)
ATOMIC_SHARED(smax_x2, "smax_x2", u64)
ATOMIC_SHARED(umin_x2, "umin_x2", u64)

// GLOBAL-only float atomics (no FLAT form on gfx90a).
ATOMIC_GLOBAL(add_f32, "add_f32", u32, D1)
ATOMIC_GLOBAL(pk_add_f16, "pk_add_f16", u32, D1)

// --- FLAT to the LDS aperture ------------------------------------------------
// Lane i stores through a flat pointer into LDS, adds with a flat atomic,
// and reads back with DS and with a flat load: out[3i..3i+2].
KERNEL void flat_lds(u32 *out, const u32 *v) {
  static LOCAL u32 lds[256] __attribute__((loader_uninitialized));
  u32 i = gid(), t = __builtin_amdgcn_workitem_id_x();
  u64 p = (u64)(u32 *)&lds[t];
  u32 x = v[i], old, ds, fl;
  asm volatile("flat_store_dword %0, %1" WAIT : : "v"(p), "v"(x) : "memory");
  asm volatile("flat_atomic_add %0, %1, %2 glc" WAIT
               : "=v"(old) : "v"(p), "v"(t) : "memory");
  asm volatile("ds_read_b32 %0, %1" WAIT
               : "=v"(ds) : "v"((u32)(LOCAL u32 *)&lds[t]) : "memory");
  asm volatile("flat_load_ubyte %0, %1 offset:1" WAIT
               : "=v"(fl) : "v"(p) : "memory");
  out[3 * i] = old;
  out[3 * i + 1] = ds;
  out[3 * i + 2] = fl;
}

// --- GLOBAL_LOAD_LDS_DWORD ---------------------------------------------------
// The wave's 64 dwords from in[64w..] land in LDS at M0 + offset + lane * 4
// and are read back: out[i].
KERNEL void load_to_lds(u32 *out, const u32 *in) {
  static LOCAL u32 lds[64 + 8] __attribute__((loader_uninitialized));
  u32 i = gid(), t = __builtin_amdgcn_workitem_id_x();
  u32 base = (u32)(LOCAL u32 *)lds;
  asm volatile("s_mov_b32 m0, %1\n global_load_dword %0, off offset:16 lds" WAIT
               : : "v"(in + i - 4), "s"(base) : "memory");
  u32 r;
  asm volatile("ds_read_b32 %0, %1 offset:16" WAIT
               : "=v"(r) : "v"(base + 4 * t) : "memory");
  out[i] = r;
}

// --- The scratch layout, one lane's bytes by every path ----------------------
// arr is written with ordinary (MUBUF) stores; the lane then reads it with
// SCRATCH_* (vaddr and saddr forms, unaligned and wide), with MUBUF through
// s[0:3] (the private segment V# clang keeps there), and with FLAT through
// the private aperture; then writes with scratch_store_dwordx4 at an
// unaligned offset and reads back through a flat pointer. out[16i..].
__attribute__((noinline)) static u32 read_flat(volatile u8 *p, u32 off) {
  return p[off] | p[off + 1] << 8 | p[off + 2] << 16 | (u32)p[off + 3] << 24;
}
KERNEL void scratch_layout(u32 *outs) {
  u32 i = gid();
  u32 *out = outs + 16 * i;
  volatile u32 arr[16];
  for (int j = 0; j < 16; ++j)
    arr[j] = i * 0x01010101u + j * 0x10203;
  u32 priv = (u32)(PRIVATE volatile u32 *)arr;
  u32 a, b, c, d;
  int4v w;
  asm volatile("scratch_load_dword %0, %1, off offset:8" WAIT
               : "=v"(a) : "v"(priv) : "memory");
  asm volatile("scratch_load_dword %0, off, %1 offset:12" WAIT
               : "=v"(b) : "s"(__builtin_amdgcn_readfirstlane(priv)) : "memory");
  asm volatile("scratch_load_dwordx4 %0, %1, off offset:18" WAIT
               : "=v"(w) : "v"(priv) : "memory");
  asm volatile("scratch_load_ushort %0, %1, off offset:-1" WAIT
               : "=v"(c) : "v"(priv + 8) : "memory");
  asm volatile("buffer_load_dword %0, %1, s[0:3], 0 offen offset:20" WAIT
               : "=v"(d) : "v"(priv) : "memory");
  out[0] = a;
  out[1] = b;
  out[2] = w.x;
  out[3] = w.y;
  out[4] = w.z;
  out[5] = w.w;
  out[6] = c;
  out[7] = d;
  out[8] = read_flat((volatile u8 *)arr, 29);
  int4v x = {(int)(i * 3), (int)(i ^ 0x55aa), -(int)i, (int)(i << 20)};
  asm volatile("scratch_store_dwordx4 %0, %1, off offset:37" WAIT
               : : "v"(priv), "v"(x) : "memory");
  for (int j = 0; j < 6; ++j)
    out[9 + j] = read_flat((volatile u8 *)arr, 34 + 4 * j);
  out[15] = arr[15];
}

#endif // __OPTIMIZE__
