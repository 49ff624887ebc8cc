// Uniform arithmetic on kernel arguments, which clang computes with scalar
// instructions. ScalarTest includes this file with KERNEL defined to build
// the same function for the host, as the reference.
#ifndef KERNEL
#define KERNEL __attribute__((amdgpu_kernel, visibility("default")))
#endif

typedef unsigned long long u64;
typedef long long i64;
typedef unsigned u32;
typedef int i32;

#define UNIFORM_OPS(X)                                                         \
  X(a + b)                                                                     \
  X(a - b)                                                                     \
  X(a * b)                                                                     \
  X((u64)((i64)a >> (c & 63)))                                                 \
  X(a << (d & 63))                                                             \
  X(a >> (c & 63))                                                             \
  X((u64)(u32)a * c)                                                           \
  X((u64)(((u64)c * d) >> 32))                                                 \
  X((u64)(i64)(((i64)(i32)c * (i32)d) >> 32))                                  \
  X((u64)__builtin_popcountll(a))                                              \
  X((u64)__builtin_popcount(c))                                                \
  X((u64)__builtin_clzll(a | 1))                                               \
  X((u64)__builtin_ctzll(b | (1ull << 63)))                                    \
  X((u64)__builtin_clz(c | 1))                                                 \
  X((u64)__builtin_ctz(d | 0x80000000u))                                       \
  X(__builtin_bitreverse64(a))                                                 \
  X((u64)__builtin_bitreverse32(c))                                            \
  X(a < b ? a : b)                                                             \
  X((i64)a > (i64)b ? a : b)                                                   \
  X((u64)(c < d ? c : d))                                                      \
  X((u64)(i64)((i32)c > (i32)d ? (i32)c : (i32)d))                             \
  X(a & b)                                                                     \
  X(a | ~b)                                                                    \
  X(a ^ b)                                                                     \
  X((u64)((c >> 3) & 0x7f))                                                    \
  X((u64)(i64)((i32)(c << 5) >> 9))                                            \
  X((u64)(i64)(short)c)                                                        \
  X((u64)(i64)(signed char)d)                                                  \
  X((u64)(c * 5 + d))                                                          \
  X((u64)((c & 0xffff) | (d << 16)))                                           \
  X(a == b ? 11 : (a > b ? 22 : 33))                                           \
  X((u64)((i32)c < 0 ? 0u - c : c))                                            \
  X(((u64)c << 32) | d)                                                        \
  X(a + (u64)c)

#define STORE(E) out[i++] = (E);

KERNEL void uniform_ops(u64 *out, u64 a, u64 b, u32 c, u32 d) {
  int i = 0;
  UNIFORM_OPS(STORE)
  // A uniform loop: SCC-driven branches.
  u64 s = 0;
  for (u32 k = 0; k < (c & 15); ++k)
    s += a >> k;
  out[i++] = s;
}
