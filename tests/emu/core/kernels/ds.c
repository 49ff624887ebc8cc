// LDS and the DS lane permutes: every width, read2/write2 (and st64), a
// work-group of 256 items (4 waves) sharing LDS across barriers, atomics
// between the waves of a group, append/consume; and (when optimising)
// instructions pinned with inline asm: D16 forms, every DS atomic with
// per-lane data, addtid, swizzle patterns, permutes with ragged EXEC, and
// accesses beyond the group's LDS.
#define KERNEL __attribute__((amdgpu_kernel, visibility("default")))
#define LOCAL __attribute__((address_space(3)))
#define SHARED(type, name, n)                                                  \
  static LOCAL type name[n] __attribute__((loader_uninitialized))

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned u32;
typedef unsigned long u64;
typedef int int3v __attribute__((ext_vector_type(3)));
typedef int int4v __attribute__((ext_vector_type(4)));

static inline u32 tid(void) { return __builtin_amdgcn_workitem_id_x(); }
static inline u32 gid(void) {
  return __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() +
         tid();
}
static inline void barrier(void) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

// --- A 256-item work-group sharing LDS across barriers -----------------------
// out[3i] = a neighbour's input, out[3i+1] = the group's sum (a tree
// reduction, one barrier per level), out[3i+2] = an inclusive prefix sum
// (Hillis-Steele, two barriers per step).
KERNEL void lds_barrier(u32 *out, const u32 *in) {
  SHARED(u32, a, 256);
  SHARED(u32, b, 256);
  u32 t = tid(), i = gid();
  a[t] = in[i];
  b[t] = in[i];
  barrier();
  out[3 * i] = a[(t * 37 + 11) & 255];
  barrier();
  for (u32 s = 128; s > 0; s >>= 1) {
    if (t < s)
      a[t] += a[t + s];
    barrier();
  }
  out[3 * i + 1] = a[0];
  for (u32 d = 1; d < 256; d <<= 1) {
    u32 v = t >= d ? b[t - d] : 0;
    barrier();
    b[t] += v;
    barrier();
  }
  out[3 * i + 2] = b[t];
}

// --- Every width -------------------------------------------------------------
// Item t of a 64-item group writes its 32 bytes of in to LDS with stores of
// every width, then reads them back with loads of every width into a
// 96-byte record (the layout of memory.c's widths kernels).
KERNEL void lds_widths(u8 *out, const u8 *in) {
  SHARED(u8, lds, 64 * 32);
  u32 t = tid(), i = gid();
  const u8 *p = in + 32 * i;
  LOCAL volatile u8 *l = lds + 32 * t;
  l[0] = p[0];
  l[1] = p[1];
  *(LOCAL volatile u16 *)(l + 2) = *(const u16 *)(p + 2);
  *(LOCAL volatile u32 *)(l + 4) = *(const u32 *)(p + 4);
  *(LOCAL volatile u64 *)(l + 8) = *(const u64 *)(p + 8);
  *(LOCAL volatile int4v *)(l + 16) = *(const int4v *)(p + 16);
  *(LOCAL volatile int3v *)(l + 4) = *(const int3v *)(p + 4);
  barrier();
  u8 *o = out + 96 * i;
  *(volatile int *)(o + 0) = *(LOCAL volatile signed char *)(l + 3);
  *(volatile u32 *)(o + 4) = l[5];
  *(volatile int *)(o + 8) = *(LOCAL volatile short *)(l + 6);
  *(volatile u32 *)(o + 12) = *(LOCAL volatile u16 *)(l + 10);
  *(volatile int *)(o + 16) = *(LOCAL volatile int *)(l + 12);
  *(volatile u64 *)(o + 24) = *(LOCAL volatile u64 *)(l + 16);
  *(volatile int3v *)(o + 32) = *(LOCAL volatile int3v *)(l + 16);
  *(volatile int4v *)(o + 48) = *(LOCAL volatile int4v *)(l + 16);
  o[64] = l[1] + 1;
  o[65] = l[2] - 1;
  *(volatile short *)(o + 66) = *(LOCAL volatile short *)(l + 8) ^ 0x5a5a;
  *(volatile int3v *)(o + 80) = *(LOCAL volatile int3v *)(l + 0) + 1;
}

// --- read2/write2 as clang forms them -----------------------------------------
// Item t of a 256-item group: pairs of dwords and qwords 8 elements and 64
// elements apart (write2/read2 and their st64 forms). out[4i..4i+3].
KERNEL void lds_pairs(u32 *out, const u32 *in) {
  SHARED(u32, w, 1024);
  SHARED(u64, q, 512);
  u32 t = tid(), i = gid();
  u32 x = in[i];
  w[t] = x;
  w[t + 256] = ~x;
  w[t + 512] = x * 3;
  q[t] = (u64)x << 32 | t;
  q[t + 256] = (u64)t << 32 | x;
  barrier();
  u32 u = (t + 8) & 255, v = (t + 64) & 255;
  out[4 * i] = w[u] + w[u + 256];
  out[4 * i + 1] = w[v + 512] ^ w[v];
  u64 a = q[u] + q[u + 256];
  out[4 * i + 2] = (u32)a ^ (u32)(a >> 32);
  out[4 * i + 3] = w[(t * 5) & 255] - w[((t * 5) & 255) + 512];
}

// --- Atomics between the waves of one group ----------------------------------
// All 256 items of a group hammer the group's counters; ret[i] keeps the
// value one add returned; after a barrier, item t < 13 writes counter t to
// out[16g + t] and item 0 the 64-bit and float counters to out[16g + 13..].
KERNEL void lds_atomics(u32 *out, u32 *ret, const u32 *in) {
  SHARED(int, c, 16);
  SHARED(float, f, 2);
  SHARED(double, d, 2);
  SHARED(u64, c64, 2);
  u32 t = tid(), i = gid(), x = in[i];
  if (t < 16)
    c[t] = t == 3 || t == 5 ? -1 : (t == 6 ? -1 : 0);
  if (t < 2) {
    f[t] = 0;
    d[t] = 0;
    c64[t] = 0;
  }
  barrier();
  ret[i] = __atomic_fetch_add(&c[0], 1, __ATOMIC_RELAXED);
  __atomic_fetch_sub(&c[1], (int)(x & 15), __ATOMIC_RELAXED);
  __atomic_fetch_max(&c[2], (int)x, __ATOMIC_RELAXED);
  __atomic_fetch_min(&c[3], (int)x, __ATOMIC_RELAXED);
  __atomic_fetch_max((LOCAL u32 *)&c[4], x, __ATOMIC_RELAXED);
  __atomic_fetch_min((LOCAL u32 *)&c[5], x, __ATOMIC_RELAXED);
  __atomic_fetch_and(&c[6], ~(1 << (x % 31)), __ATOMIC_RELAXED);
  __atomic_fetch_or(&c[7], 1 << (x % 29), __ATOMIC_RELAXED);
  __atomic_fetch_xor(&c[8], (int)x, __ATOMIC_RELAXED);
  __builtin_amdgcn_atomic_inc32((LOCAL u32 *)&c[9], 77, __ATOMIC_RELAXED,
                                "workgroup");
  __builtin_amdgcn_atomic_dec32((LOCAL u32 *)&c[10], 77, __ATOMIC_RELAXED,
                                "workgroup");
  __atomic_exchange_n(&c[11], (int)t, __ATOMIC_RELAXED);
  int old = c[12];
  while (!__atomic_compare_exchange_n(&c[12], &old, old * 3 + 1, 1,
                                      __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  __atomic_fetch_add(&c64[0], (u64)x << 16, __ATOMIC_RELAXED);
  __atomic_fetch_add(&f[0], 0.25f, __ATOMIC_RELAXED);
  __atomic_fetch_add(&d[0], 1.5, __ATOMIC_RELAXED);
  barrier();
  if (t < 13)
    out[16 * (i / 256) + t] = c[t];
  if (t == 0) {
    out[16 * (i / 256) + 13] = (u32)c64[0];
    out[16 * (i / 256) + 14] = (u32)(c64[0] >> 32);
    out[16 * (i / 256) + 15] = (u32)f[0] ^ (u32)(d[0] * 4);
  }
}

// --- Append and consume --------------------------------------------------------
// Items whose input is odd append, the others consume (two counters); each
// gets the counter value before its wave's operation: out[i].
KERNEL void append_consume(u32 *out, const u32 *in) {
  SHARED(u32, c, 4);
  u32 t = tid(), i = gid();
  if (t < 4)
    c[t] = 1000;
  barrier();
  u32 r;
  if (in[i] & 1)
    r = __builtin_amdgcn_ds_append((LOCAL int *)&c[1]);
  else
    r = __builtin_amdgcn_ds_consume((LOCAL int *)&c[2]);
  barrier();
  out[i] = r;
  if (t < 4)
    out[1024 + 4 * (i / 256) + t] = c[t];
}

// --- Permutes: (addr / 4) mod 64, disabled sources read zero -----------------
// out[3i] = bpermute, out[3i+1] = permute, both under EXEC = items whose
// in[i] is not a multiple of 3; out[3i+2] = old value kept otherwise.
KERNEL void permutes(u32 *out, const u32 *in, const u32 *addr) {
  u32 i = gid(), x = in[i], a = addr[i];
  u32 b = 0xdead0000 | i, p = 0xbeef0000 | i;
  if (x % 3) {
    b = __builtin_amdgcn_ds_bpermute(a, x);
    p = __builtin_amdgcn_ds_permute(a, x);
  }
  out[3 * i] = b;
  out[3 * i + 1] = p;
  out[3 * i + 2] = x % 3;
}

// Inline asm needs its "s" operands in SGPRs, which clang -O0 does not
// guarantee: the pinned-instruction kernels are built when optimising.
#ifdef __OPTIMIZE__

#define WAIT "\n s_waitcnt lgkmcnt(0)"

// --- Swizzle patterns (immediates), ragged EXEC -------------------------------
#define SWIZZLE(pat)                                                           \
  KERNEL void swizzle_##pat(u32 *out, const u32 *in) {                         \
    u32 i = gid(), x = in[i], r = 0x5a5a0000 | i;                              \
    if (x % 3)                                                                 \
      asm volatile("ds_swizzle_b32 %0, %1 offset:" #pat WAIT                   \
                   : "+v"(r) : "v"(x));                                        \
    out[i] = r;                                                                \
  }
SWIZZLE(0x80e4) // quad permute, identity
SWIZZLE(0x801b) // quad permute, reversed
SWIZZLE(0x80aa) // quad broadcast of lane 2
SWIZZLE(0x041f) // bitmask: swap pairs
SWIZZLE(0x401f) // bitmask: swap 16
SWIZZLE(0x7c1f) // bitmask: reverse 32
SWIZZLE(0x0060) // bitmask: broadcast lane 3 of 32
SWIZZLE(0x0a18) // bitmask: mixed and/or/xor
SWIZZLE(0xc060) // rotate left by 3
SWIZZLE(0xc420) // rotate right by 1
SWIZZLE(0xc021) // rotate left by 1, mask 1
SWIZZLE(0xc7e3) // rotate right by 31, mask 3
SWIZZLE(0xe000) // FFT, mask 0
SWIZZLE(0xe010) // FFT, mask 0x10
SWIZZLE(0xe005) // FFT, mask 5
SWIZZLE(0xe01f) // FFT, mask 0x1f

// --- D16 reads and the D16_HI writes ------------------------------------------
// The item's bytes are in in[4i..4i+3]; old[i] is the register's previous
// value. out[8i..8i+5]: u8_d16, u8_d16_hi, i8_d16, i8_d16_hi, u16_d16,
// u16_d16_hi (all from byte 1 / bytes 2-3 of the item's dword), out[8i+6]:
// the dword after ds_write_b8_d16_hi and ds_write_b16_d16_hi of old[i].
KERNEL void lds_d16(u32 *out, const u32 *in, const u32 *old) {
  SHARED(u32, lds, 64);
  u32 t = tid(), i = gid();
  u32 a = (u32)(LOCAL u32 *)&lds[t];
  lds[t] = in[i];
  u32 r[6];
  for (int k = 0; k < 6; ++k)
    r[k] = old[i];
  asm volatile("ds_read_u8_d16 %0, %6 offset:1\n"
               " ds_read_u8_d16_hi %1, %6 offset:1\n"
               " ds_read_i8_d16 %2, %6 offset:1\n"
               " ds_read_i8_d16_hi %3, %6 offset:1\n"
               " ds_read_u16_d16 %4, %6 offset:2\n"
               " ds_read_u16_d16_hi %5, %6 offset:2" WAIT
               : "+v"(r[0]), "+v"(r[1]), "+v"(r[2]), "+v"(r[3]), "+v"(r[4]),
                 "+v"(r[5])
               : "v"(a)
               : "memory");
  asm volatile("ds_write_b8_d16_hi %0, %1\n ds_write_b16_d16_hi %0, %1 offset:2" WAIT
               : : "v"(a), "v"(old[i]) : "memory");
  for (int k = 0; k < 6; ++k)
    out[8 * i + k] = r[k];
  out[8 * i + 6] = lds[t];
}

// --- read2/write2/wrxchg2 with chosen offsets --------------------------------
// Item t owns dwords 8t..8t+7 of lds (dwords 0 and 7 preset), and dwords t +
// 128 and t + 192 of st (the st64 pair). out[8i..8i+7].
typedef u32 u32x4 __attribute__((ext_vector_type(4)));
KERNEL void lds_pairs_asm(u32 *out, const u32 *in) {
  SHARED(u32, lds, 64 * 8);
  SHARED(u32, st, 256);
  u32 t = tid(), i = gid(), x = in[i];
  u32 a = (u32)(LOCAL u32 *)lds + 32 * t;
  u32 b = (u32)(LOCAL u32 *)st + 4 * t;
  lds[8 * t] = 0x11111111u ^ x;
  lds[8 * t + 7] = 0x77777777u;
  u64 r, s, w;
  u32x4 q;
  asm volatile("ds_write2_b32 %0, %1, %2 offset0:1 offset1:6" WAIT
               : : "v"(a), "v"(x), "v"(~x) : "memory");
  asm volatile("ds_write2st64_b32 %0, %1, %2 offset0:2 offset1:3" WAIT
               : : "v"(b), "v"(x ^ 0x1234), "v"(x + 1) : "memory");
  asm volatile("ds_read2_b32 %0, %1 offset0:6 offset1:1" WAIT
               : "=v"(r) : "v"(a) : "memory");
  asm volatile("ds_read2st64_b32 %0, %1 offset0:3 offset1:2" WAIT
               : "=v"(s) : "v"(b) : "memory");
  asm volatile("ds_wrxchg2_rtn_b32 %0, %1, %2, %3 offset0:1 offset1:7" WAIT
               : "=v"(w) : "v"(a), "v"(x * 5), "v"(x * 7) : "memory");
  asm volatile("ds_read2_b64 %0, %1 offset0:0 offset1:3" WAIT
               : "=v"(q) : "v"(a) : "memory");
  out[8 * i + 0] = (u32)r;
  out[8 * i + 1] = (u32)(r >> 32);
  out[8 * i + 2] = (u32)s;
  out[8 * i + 3] = (u32)(s >> 32);
  out[8 * i + 4] = (u32)w ^ (u32)(w >> 32);
  out[8 * i + 5] = q.x;
  out[8 * i + 6] = q.y ^ q.z;
  out[8 * i + 7] = q.w;
}

// --- Every DS atomic, lane i on its own dword (qword) ------------------------
#define DS_ATOMIC32(name, text, ...)                                           \
  KERNEL void ds_##name(u32 *mem, const u32 *data, const u32 *data2,           \
                        u32 *ret) {                                            \
    SHARED(u32, lds, 64);                                                      \
    u32 t = tid(), i = gid(), r = 0;                                           \
    u32 a = (u32)(LOCAL u32 *)&lds[t];                                         \
    lds[t] = mem[i];                                                           \
    asm volatile(text WAIT : "=v"(r) : "v"(a), "v"(data[i]), "v"(data2[i])     \
                 : "memory");                                                  \
    ret[i] = r;                                                                \
    mem[i] = lds[t];                                                           \
  }
#define DS_ATOMIC64(name, text)                                                \
  KERNEL void ds_##name(u64 *mem, const u64 *data, const u64 *data2,           \
                        u64 *ret) {                                            \
    SHARED(u64, lds, 64);                                                      \
    u32 t = tid(), i = gid();                                                  \
    u64 r = 0;                                                                 \
    u32 a = (u32)(LOCAL u64 *)&lds[t];                                         \
    lds[t] = mem[i];                                                           \
    asm volatile(text WAIT : "=v"(r) : "v"(a), "v"(data[i]), "v"(data2[i])     \
                 : "memory");                                                  \
    ret[i] = r;                                                                \
    mem[i] = lds[t];                                                           \
  }
DS_ATOMIC32(add, "ds_add_rtn_u32 %0, %1, %2")
DS_ATOMIC32(sub, "ds_sub_rtn_u32 %0, %1, %2")
DS_ATOMIC32(rsub, "ds_rsub_rtn_u32 %0, %1, %2")
DS_ATOMIC32(inc, "ds_inc_rtn_u32 %0, %1, %2")
DS_ATOMIC32(dec, "ds_dec_rtn_u32 %0, %1, %2")
DS_ATOMIC32(min_i32, "ds_min_rtn_i32 %0, %1, %2")
DS_ATOMIC32(max_i32, "ds_max_rtn_i32 %0, %1, %2")
DS_ATOMIC32(min_u32, "ds_min_rtn_u32 %0, %1, %2")
DS_ATOMIC32(max_u32, "ds_max_rtn_u32 %0, %1, %2")
DS_ATOMIC32(and, "ds_and_rtn_b32 %0, %1, %2")
DS_ATOMIC32(or, "ds_or_rtn_b32 %0, %1, %2")
DS_ATOMIC32(xor, "ds_xor_rtn_b32 %0, %1, %2")
DS_ATOMIC32(mskor, "ds_mskor_rtn_b32 %0, %1, %2, %3")
DS_ATOMIC32(wrxchg, "ds_wrxchg_rtn_b32 %0, %1, %2")
DS_ATOMIC32(cmpst, "ds_cmpst_rtn_b32 %0, %1, %2, %3")
DS_ATOMIC32(cmpst_f32, "ds_cmpst_rtn_f32 %0, %1, %2, %3")
DS_ATOMIC32(wrap, "ds_wrap_rtn_b32 %0, %1, %2, %3")
DS_ATOMIC32(add_f32, "ds_add_rtn_f32 %0, %1, %2")
DS_ATOMIC32(min_f32, "ds_min_rtn_f32 %0, %1, %2")
DS_ATOMIC32(max_f32, "ds_max_rtn_f32 %0, %1, %2")
DS_ATOMIC32(add_noret, "ds_add_u32 %1, %2\n v_mov_b32 %0, 0")
DS_ATOMIC32(mskor_noret, "ds_mskor_b32 %1, %2, %3\n v_mov_b32 %0, 0")
DS_ATOMIC64(add_u64, "ds_add_rtn_u64 %0, %1, %2")
DS_ATOMIC64(sub_u64, "ds_sub_rtn_u64 %0, %1, %2")
DS_ATOMIC64(rsub_u64, "ds_rsub_rtn_u64 %0, %1, %2")
DS_ATOMIC64(inc_u64, "ds_inc_rtn_u64 %0, %1, %2")
DS_ATOMIC64(dec_u64, "ds_dec_rtn_u64 %0, %1, %2")
DS_ATOMIC64(min_i64, "ds_min_rtn_i64 %0, %1, %2")
DS_ATOMIC64(max_i64, "ds_max_rtn_i64 %0, %1, %2")
DS_ATOMIC64(min_u64, "ds_min_rtn_u64 %0, %1, %2")
DS_ATOMIC64(max_u64, "ds_max_rtn_u64 %0, %1, %2")
DS_ATOMIC64(and_b64, "ds_and_rtn_b64 %0, %1, %2")
DS_ATOMIC64(or_b64, "ds_or_rtn_b64 %0, %1, %2")
DS_ATOMIC64(xor_b64, "ds_xor_rtn_b64 %0, %1, %2")
DS_ATOMIC64(mskor_b64, "ds_mskor_rtn_b64 %0, %1, %2, %3")
DS_ATOMIC64(wrxchg_b64, "ds_wrxchg_rtn_b64 %0, %1, %2")
DS_ATOMIC64(cmpst_b64, "ds_cmpst_rtn_b64 %0, %1, %2, %3")
DS_ATOMIC64(cmpst_f64, "ds_cmpst_rtn_f64 %0, %1, %2, %3")
DS_ATOMIC64(add_f64, "ds_add_rtn_f64 %0, %1, %2")
DS_ATOMIC64(min_f64, "ds_min_rtn_f64 %0, %1, %2")
DS_ATOMIC64(max_f64, "ds_max_rtn_f64 %0, %1, %2")

// --- addtid: lane L at M0[15:0] + offset + 4L ---------------------------------
// out[i] = the dword lane t wrote at (t + 1) mod 64 via ds_write_addtid, read
// back with ds_read_addtid from a base one dword further.
KERNEL void lds_addtid(u32 *out, const u32 *in) {
  SHARED(u32, lds, 160);
  u32 i = gid(), r;
  u32 base = (u32)(LOCAL u32 *)lds;
  if (tid() == 0)
    lds[66] = 0x66666666u;
  asm volatile("s_mov_b32 m0, %1\n ds_write_addtid_b32 %0 offset:8" WAIT
               : : "v"(in[i]), "s"(base) : "memory");
  asm volatile("s_mov_b32 m0, %1\n ds_read_addtid_b32 %0 offset:12" WAIT
               : "=v"(r) : "s"(base) : "memory");
  out[i] = r;
}

// --- Beyond the group's LDS (vaddr + offset wraps at 32 bits) -----------------
KERNEL void lds_wild(u32 *out, u32 addr) {
  SHARED(u32, lds, 64);
  u32 r;
  lds[tid()] = 1;
  asm volatile("ds_read_b32 %0, %1 offset:8" WAIT : "=v"(r) : "v"(addr)
               : "memory");
  out[gid()] = r + lds[tid()];
}

// Odd lanes address addr + 4t (beyond the group's 256 bytes for the test's
// addr), even lanes their own dword: a write, an atomic add returning the
// old value and a read, then each lane's own dword, and a read2 whose second
// dword is beyond the LDS for every lane. out[5i..5i+4].
KERNEL void lds_wild_write(u32 *out, u32 addr) {
  SHARED(u32, lds, 64);
  u32 t = tid(), r, old;
  u64 pair;
  lds[t] = 0x1000 + t;
  barrier();
  u32 a = (t & 1) ? addr + 4 * t : (u32)(LOCAL u32 *)&lds[t];
  asm volatile("ds_write_b32 %0, %1" WAIT : : "v"(a), "v"(0xd0000000u | t)
               : "memory");
  asm volatile("ds_add_rtn_u32 %0, %1, %2" WAIT : "=v"(old) : "v"(a), "v"(1u)
               : "memory");
  asm volatile("ds_read_b32 %0, %1" WAIT : "=v"(r) : "v"(a) : "memory");
  asm volatile("ds_read2_b32 %0, %1 offset0:0 offset1:255" WAIT : "=v"(pair)
               : "v"((u32)(LOCAL u32 *)&lds[t]) : "memory");
  barrier();
  out[5 * gid()] = r;
  out[5 * gid() + 1] = old;
  out[5 * gid() + 2] = lds[t];
  out[5 * gid() + 3] = (u32)pair;
  out[5 * gid() + 4] = (u32)(pair >> 32);
}

// Even lanes hold an address beyond the group's LDS in their VGPR but are
// off in EXEC when the odd lanes write and read through it: nothing is out
// of range. out[2i..2i+1] = what lane i read (7 if off), its own dword.
KERNEL void lds_masked_wild(u32 *out, u32 addr) {
  SHARED(u32, lds, 64);
  u32 t = tid(), r = 7;
  lds[t] = 0x2000 + t;
  barrier();
  u32 a = (t & 1) ? (u32)(LOCAL u32 *)&lds[t ^ 1] : addr + 4 * t;
  asm volatile("" : "+v"(a)); // computed for every lane, before the branch
  if (t & 1) {
    asm volatile("ds_write_b32 %0, %1" WAIT : : "v"(a), "v"(0xe0000000u | t)
                 : "memory");
    asm volatile("ds_read_b32 %0, %1" WAIT : "=v"(r) : "v"(a) : "memory");
  }
  barrier();
  out[2 * gid()] = r;
  out[2 * gid() + 1] = lds[t];
}

// ds_read2_b64 and ds_write2_b32 on every third lane, whose inactive
// lanes hold addresses far beyond the LDS: the read's destination is read
// and written by the asm, so its inactive lanes must keep their values.
typedef u32 u32x4 __attribute__((ext_vector_type(4)));
KERNEL void lds_read2_masked(u32 *out, u32 wild) {
  SHARED(u64, lds, 256);
  u32 t = tid();
  for (u32 k = 0; k < 4; ++k)
    lds[t + 64 * k] = 0x100000000ul * (t + 64 * k) + 0x5a5a0000u + t;
  barrier();
  u32 a = (t % 3 == 1) ? (u32)(LOCAL u64 *)&lds[63 - t] : wild + 8 * t;
  u32x4 q = {0xa0000000u | t, 0xb0000000u | t, 0xc0000000u | t,
             0xd0000000u | t};
  asm volatile("" : "+v"(a), "+v"(q));
  if (t % 3 == 1) {
    asm volatile("ds_read2_b64 %0, %1 offset0:0 offset1:128" WAIT
                 : "+v"(q) : "v"(a) : "memory");
    asm volatile("ds_write2_b32 %0, %1, %2 offset0:0 offset1:1" WAIT
                 : : "v"(a), "v"(~t), "v"(t * 3) : "memory");
  }
  barrier();
  out[6 * gid() + 0] = q.x;
  out[6 * gid() + 1] = q.y;
  out[6 * gid() + 2] = q.z;
  out[6 * gid() + 3] = q.w;
  out[6 * gid() + 4] = (u32)lds[t];
  out[6 * gid() + 5] = (u32)(lds[t] >> 32);
}

// A whole-wave gather whose first and last lanes are a contiguous block's
// (lanes 0 and 63 read their own dword) but whose middle is reversed.
KERNEL void lds_reversed_middle(u32 *out, const u32 *in) {
  SHARED(u32, lds, 64);
  u32 t = tid();
  lds[t] = in[gid()];
  barrier();
  u32 s = (t == 0 || t == 63) ? t : 63 - t;
  asm volatile("" : "+v"(s));
  out[gid()] = lds[s];
}

#endif // __OPTIMIZE__
