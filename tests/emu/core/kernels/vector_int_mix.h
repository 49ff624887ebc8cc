// Integer expressions compiled both for the device (vector_int.c, at -O0
// and -O2) and for the host (VectorIntTest.cpp, the reference): the
// instructions clang picks for them are the ones that matter in practice.
#ifndef LOOM_TESTS_VECTOR_INT_MIX_H
#define LOOM_TESTS_VECTOR_INT_MIX_H

static inline void int_mix_lane(unsigned *o, unsigned a, unsigned b,
                                unsigned c) {
  typedef unsigned long long u64;
  typedef long long i64;
  o[0] = a + b * c;
  o[1] = (a << (b & 31)) | (c >> (a & 31));
  o[2] = (unsigned)((int)a >> (b & 31));
  o[3] = (a < b ? a : b) + ((int)a > (int)c ? a : c);
  o[4] = (unsigned)((u64)a * b);
  o[5] = (unsigned)(((u64)a * b) >> 32);
  u64 x = ((u64)a << 32 | b) + ((u64)c << 32 | a);
  o[6] = (unsigned)x ^ (unsigned)(x >> 32);
  o[7] = (unsigned)__builtin_popcount(a) + (unsigned)__builtin_clz(b | 1) +
         (unsigned)__builtin_ctz(c | 0x80000000u);
  o[8] = ((a >> 5) & 0x3ff) | ((b & 0xff) << 16);
  o[9] = (unsigned)((short)a * (short)b);
  o[10] = (unsigned char)a + (unsigned char)(b >> 8) + (unsigned short)(c >> 16);
  o[11] = a == b ? c : a ^ c;
  o[12] = (int)a < (int)b ? c - a : c + b;
  o[13] = (unsigned)(((u64)a << 32 | b) >> (c & 63));
  o[14] = (unsigned)((i64)(int)a * (int)b >> 32);
  o[15] = (unsigned)(((i64)(int)a << (b & 31)) >> 40) - (a > c);
}

#endif
