//===- IntOps.h - Integer arithmetic and bit manipulation -----------------===//
//
// 8/16/32/64-bit integer operations on pairs of operands. Signed overflow is
// avoided by computing in unsigned types; division by zero and INT_MIN / -1
// return a fixed marker; shift counts are masked to the width, as C++
// requires (the hardware masks too, but the language does not promise it).
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TESTS_EMU_DIFF_COMMON_INTOPS_H
#define LOOM_TESTS_EMU_DIFF_COMMON_INTOPS_H

#include "DiffCommon.h"
#include "OpTable.h"

namespace diff {

DIFF_FN uint32_t udiv32(uint32_t A, uint32_t B) { return B ? A / B : 0xdead0001u; }
DIFF_FN uint32_t urem32(uint32_t A, uint32_t B) { return B ? A % B : 0xdead0002u; }
DIFF_FN uint32_t sdiv32(int32_t A, int32_t B) {
  if (B == 0 || (A == INT32_MIN && B == -1))
    return 0xdead0003u;
  return (uint32_t)(A / B);
}
DIFF_FN uint32_t srem32(int32_t A, int32_t B) {
  if (B == 0 || (A == INT32_MIN && B == -1))
    return 0xdead0004u;
  return (uint32_t)(A % B);
}
DIFF_FN uint32_t rotl32(uint32_t A, uint32_t N) {
  N &= 31;
  return (A << N) | (A >> ((32 - N) & 31));
}
DIFF_FN uint32_t rotr32(uint32_t A, uint32_t N) {
  N &= 31;
  return (A >> N) | (A << ((32 - N) & 31));
}
DIFF_FN uint32_t sext24(uint32_t A) { return (uint32_t)((int32_t)(A << 8) >> 8); }
DIFF_FN uint32_t addOv32(int32_t A, int32_t B) {
  int32_t R;
  bool O = __builtin_add_overflow(A, B, &R);
  return (uint32_t)R ^ (O ? 0x80000001u : 0u);
}
DIFF_FN uint32_t subOv32(int32_t A, int32_t B) {
  int32_t R;
  bool O = __builtin_sub_overflow(A, B, &R);
  return (uint32_t)R ^ (O ? 0x80000001u : 0u);
}
DIFF_FN uint32_t mulOv32(int32_t A, int32_t B) {
  int32_t R;
  bool O = __builtin_mul_overflow(A, B, &R);
  return (uint32_t)R ^ (O ? 0x80000001u : 0u);
}
DIFF_FN uint32_t uaddOv32(uint32_t A, uint32_t B) {
  uint32_t R;
  bool O = __builtin_add_overflow(A, B, &R);
  return R ^ (O ? 0x80000001u : 0u);
}
DIFF_FN uint32_t umulOv32(uint32_t A, uint32_t B) {
  uint32_t R;
  bool O = __builtin_mul_overflow(A, B, &R);
  return R ^ (O ? 0x80000001u : 0u);
}

// (name, kind, expression over A, B (uint32_t) and SA, SB (int32_t)).
#define DIFF_INT32_OPS(X)                                                      \
  X(add, KInt, A + B)                                                                \
  X(sub, KInt, A - B)                                                                \
  X(mul, KInt, A * B)                                                                \
  X(mulhi_u, KInt, (uint32_t)(((uint64_t)A * B) >> 32))                              \
  X(mulhi_s, KInt, (uint32_t)((uint64_t)((int64_t)SA * SB) >> 32))                   \
  X(udiv, KInt, udiv32(A, B))                                                        \
  X(urem, KInt, urem32(A, B))                                                        \
  X(sdiv, KInt, sdiv32(SA, SB))                                                      \
  X(srem, KInt, srem32(SA, SB))                                                      \
  X(udiv_const7, KInt, A / 7u)                                                       \
  X(sdiv_const_m3, KInt, (uint32_t)(SA / -3))                                        \
  X(srem_const16, KInt, (uint32_t)(SA % 16))                                         \
  X(shl, KInt, A << (B & 31))                                                        \
  X(lshr, KInt, A >> (B & 31))                                                       \
  X(ashr, KInt, (uint32_t)(SA >> (B & 31)))                                          \
  X(and, KInt, A & B)                                                                \
  X(or, KInt, A | B)                                                                 \
  X(xor, KInt, A ^ B)                                                                \
  X(not, KInt, ~A)                                                                   \
  X(neg, KInt, 0u - A)                                                               \
  X(andn, KInt, A & ~B)                                                              \
  X(slt, KInt, (uint32_t)(SA < SB))                                                  \
  X(ult, KInt, (uint32_t)(A < B))                                                    \
  X(sle, KInt, (uint32_t)(SA <= SB))                                                 \
  X(uge, KInt, (uint32_t)(A >= B))                                                   \
  X(eq, KInt, (uint32_t)(A == B))                                                    \
  X(ne, KInt, (uint32_t)(A != B))                                                    \
  X(smin, KInt, (uint32_t)(SA < SB ? SA : SB))                                       \
  X(smax, KInt, (uint32_t)(SA > SB ? SA : SB))                                       \
  X(umin, KInt, A < B ? A : B)                                                       \
  X(umax, KInt, A > B ? A : B)                                                       \
  X(abs, KInt, SA < 0 ? 0u - A : A)                                                  \
  X(select, KInt, SA > SB ? A ^ B : A + 7u)                                          \
  X(mul_u24, KInt, (A & 0xffffffu) * (B & 0xffffffu))                                \
  X(mulhi_u24, KInt, (uint32_t)(((uint64_t)(A & 0xffffffu) * (B & 0xffffffu)) >> 32))\
  X(mul_i24, KInt, (uint32_t)(int64_t)((int32_t)sext24(A) * (int64_t)(int32_t)sext24(B))) \
  X(mad, KInt, A * B + A)                                                            \
  X(add_ov, KInt, addOv32(SA, SB))                                                   \
  X(sub_ov, KInt, subOv32(SA, SB))                                                   \
  X(mul_ov, KInt, mulOv32(SA, SB))                                                   \
  X(uadd_ov, KInt, uaddOv32(A, B))                                                   \
  X(umul_ov, KInt, umulOv32(A, B))                                                   \
  X(rotl, KInt, rotl32(A, B))                                                        \
  X(rotr, KInt, rotr32(A, B))                                                        \
  X(ubfe, KInt, (A >> (B & 15)) & 0x3ffu)                                            \
  X(sbfe, KInt, (uint32_t)((int32_t)(A << 5) >> 19))                                 \
  X(bfi, KInt, (A & 0x00ff0f0fu) | (B & ~0x00ff0f0fu))                               \
  X(avg_u, KInt, (A >> 1) + (B >> 1) + (A & B & 1))                                  \
  X(absdiff_u, KInt, A > B ? A - B : B - A)                                          \
  X(cond_chain, KInt, A == 0 ? 1u : (SB < 0 ? A >> 3 : (A & 1 ? A * 3 : B)))

inline constexpr unsigned Int32OpCount = 0 DIFF_INT32_OPS(DIFF_OP_COUNT);

DIFF_FN void int32Ops(uint32_t A, uint32_t B, uint32_t *R) {
  int32_t SA = (int32_t)A, SB = (int32_t)B;
  (void)SA;
  (void)SB;
  unsigned K = 0;
#define DIFF_X(Name, Kind, Expr) R[K++] = (uint32_t)(Expr);
  DIFF_INT32_OPS(DIFF_X)
#undef DIFF_X
}

DIFF_FN uint64_t udiv64(uint64_t A, uint64_t B) { return B ? A / B : 0xdead000000000001ull; }
DIFF_FN uint64_t urem64(uint64_t A, uint64_t B) { return B ? A % B : 0xdead000000000002ull; }
DIFF_FN uint64_t sdiv64(int64_t A, int64_t B) {
  if (B == 0 || (A == INT64_MIN && B == -1))
    return 0xdead000000000003ull;
  return (uint64_t)(A / B);
}
DIFF_FN uint64_t srem64(int64_t A, int64_t B) {
  if (B == 0 || (A == INT64_MIN && B == -1))
    return 0xdead000000000004ull;
  return (uint64_t)(A % B);
}
DIFF_FN uint64_t mulhiU64(uint64_t A, uint64_t B) {
  return (uint64_t)(((unsigned __int128)A * B) >> 64);
}
DIFF_FN uint64_t mulhiS64(int64_t A, int64_t B) {
  return (uint64_t)((unsigned __int128)((__int128)A * B) >> 64);
}
DIFF_FN uint64_t mulOv64(int64_t A, int64_t B) {
  int64_t R;
  bool O = __builtin_mul_overflow(A, B, &R);
  return (uint64_t)R ^ (O ? 0x8000000000000001ull : 0ull);
}
DIFF_FN uint64_t umulOv64(uint64_t A, uint64_t B) {
  uint64_t R;
  bool O = __builtin_mul_overflow(A, B, &R);
  return R ^ (O ? 0x8000000000000001ull : 0ull);
}
DIFF_FN uint64_t addOv64(int64_t A, int64_t B) {
  int64_t R;
  bool O = __builtin_add_overflow(A, B, &R);
  return (uint64_t)R ^ (O ? 0x8000000000000001ull : 0ull);
}
DIFF_FN uint64_t rotl64(uint64_t A, uint64_t N) {
  N &= 63;
  return (A << N) | (A >> ((64 - N) & 63));
}

#define DIFF_INT64_OPS(X)                                                      \
  X(add, KInt, A + B)                                                                \
  X(sub, KInt, A - B)                                                                \
  X(mul, KInt, A * B)                                                                \
  X(mulhi_u, KInt, mulhiU64(A, B))                                                   \
  X(mulhi_s, KInt, mulhiS64(SA, SB))                                                 \
  X(mul_32x32, KInt, (uint64_t)(uint32_t)A * (uint32_t)B)                            \
  X(mul_s32x32, KInt, (uint64_t)((int64_t)(int32_t)A * (int32_t)B))                  \
  X(udiv, KInt, udiv64(A, B))                                                        \
  X(urem, KInt, urem64(A, B))                                                        \
  X(sdiv, KInt, sdiv64(SA, SB))                                                      \
  X(srem, KInt, srem64(SA, SB))                                                      \
  X(udiv_small, KInt, udiv64(A, B & 0xffffu))                                        \
  X(sdiv_const10, KInt, (uint64_t)(SA / 10))                                         \
  X(shl, KInt, A << (B & 63))                                                        \
  X(lshr, KInt, A >> (B & 63))                                                       \
  X(ashr, KInt, (uint64_t)(SA >> (B & 63)))                                          \
  X(shl_32, KInt, A << 32)                                                           \
  X(ashr_40, KInt, (uint64_t)(SA >> 40))                                             \
  X(and, KInt, A & B)                                                                \
  X(or, KInt, A | B)                                                                 \
  X(xor, KInt, A ^ B)                                                                \
  X(not, KInt, ~A)                                                                   \
  X(neg, KInt, 0ull - A)                                                             \
  X(slt, KInt, (uint64_t)(SA < SB))                                                  \
  X(ult, KInt, (uint64_t)(A < B))                                                    \
  X(eq, KInt, (uint64_t)(A == B))                                                    \
  X(smin, KInt, (uint64_t)(SA < SB ? SA : SB))                                       \
  X(umax, KInt, A > B ? A : B)                                                       \
  X(abs, KInt, SA < 0 ? 0ull - A : A)                                                \
  X(mul_ov, KInt, mulOv64(SA, SB))                                                   \
  X(umul_ov, KInt, umulOv64(A, B))                                                   \
  X(add_ov, KInt, addOv64(SA, SB))                                                   \
  X(rotl, KInt, rotl64(A, B))                                                        \
  X(sext32, KInt, (uint64_t)(int64_t)(int32_t)A)                                     \
  X(zext32, KInt, (uint64_t)(uint32_t)A)                                             \
  X(hi_lo_swap, KInt, (A << 32) | (A >> 32))

inline constexpr unsigned Int64OpCount = 0 DIFF_INT64_OPS(DIFF_OP_COUNT);

DIFF_FN void int64Ops(uint64_t A, uint64_t B, uint64_t *R) {
  int64_t SA = (int64_t)A, SB = (int64_t)B;
  (void)SA;
  (void)SB;
  unsigned K = 0;
#define DIFF_X(Name, Kind, Expr) R[K++] = (uint64_t)(Expr);
  DIFF_INT64_OPS(DIFF_X)
#undef DIFF_X
}

// 8- and 16-bit values: C++ promotes them to int, so what is checked is the
// truncation and extension around the arithmetic.
// INT16_MIN / -1 (32768 once promoted) is left out: clang-22 miscompiles it
// for AMDGPU at every level (the 24-bit division expansion sign-extends the
// quotient from 16 bits, giving -32768).
DIFF_FN uint32_t sdiv16(int16_t A, int16_t B) {
  if (B == 0 || (A == INT16_MIN && B == -1))
    return 0xdead0005u;
  return (uint32_t)(A / B);
}
DIFF_FN uint32_t udiv8(uint8_t A, uint8_t B) { return B ? (uint32_t)(A / B) : 0xdead0006u; }

#define DIFF_SMALL_OPS(X)                                                      \
  X(add_i8, KInt, (uint32_t)(int32_t)(int8_t)(uint8_t)(A8 + B8))                     \
  X(add_i8_promoted, KInt, (uint32_t)((int8_t)A8 + (int8_t)B8))                      \
  X(mul_u8, KInt, (uint32_t)(uint8_t)(A8 * B8))                                      \
  X(mul_u8_promoted, KInt, (uint32_t)(A8 * B8))                                      \
  X(udiv_u8, KInt, udiv8(A8, B8))                                                    \
  X(sext_i8, KInt, (uint32_t)(int32_t)(int8_t)A8)                                    \
  X(add_i16, KInt, (uint32_t)(int32_t)(int16_t)(uint16_t)(A16 + B16))                \
  X(sub_u16, KInt, (uint32_t)(uint16_t)(A16 - B16))                                  \
  X(mul_i16, KInt, (uint32_t)(int32_t)(int16_t)(uint16_t)((uint32_t)A16 * B16))                \
  X(sdiv_i16, KInt, sdiv16((int16_t)A16, (int16_t)B16))                              \
  X(ashr_i16, KInt, (uint32_t)(int32_t)(int16_t)((int16_t)A16 >> (B16 & 15)))        \
  X(lshr_u16, KInt, (uint32_t)(uint16_t)(A16 >> (B16 & 15)))                         \
  X(shl_u16, KInt, (uint32_t)(uint16_t)(A16 << (B16 & 15)))                          \
  X(min_i16, KInt, (uint32_t)(int32_t)((int16_t)A16 < (int16_t)B16 ? (int16_t)A16 : (int16_t)B16)) \
  X(max_u16, KInt, (uint32_t)(A16 > B16 ? A16 : B16))                                \
  X(lt_i8, KInt, (uint32_t)((int8_t)A8 < (int8_t)B8))                                \
  X(sat_u8, KInt, (uint32_t)(A8 + B8 > 255 ? 255 : A8 + B8))                         \
  X(pack_u16, KInt, (uint32_t)A16 | ((uint32_t)B16 << 16))

inline constexpr unsigned SmallIntOpCount = 0 DIFF_SMALL_OPS(DIFF_OP_COUNT);

DIFF_FN void smallIntOps(uint32_t A, uint32_t B, uint32_t *R) {
  uint8_t A8 = (uint8_t)A, B8 = (uint8_t)B;
  uint16_t A16 = (uint16_t)(A >> 8), B16 = (uint16_t)(B >> 8);
  unsigned K = 0;
#define DIFF_X(Name, Kind, Expr) R[K++] = (uint32_t)(Expr);
  DIFF_SMALL_OPS(DIFF_X)
#undef DIFF_X
}

DIFF_FN uint32_t bitreverse32(uint32_t A) {
#if __has_builtin(__builtin_bitreverse32)
  return __builtin_bitreverse32(A);
#else
  uint32_t R = 0;
  for (int I = 0; I < 32; ++I)
    R |= ((A >> I) & 1u) << (31 - I);
  return R;
#endif
}
DIFF_FN uint64_t bitreverse64(uint64_t A) {
#if __has_builtin(__builtin_bitreverse64)
  return __builtin_bitreverse64(A);
#else
  return ((uint64_t)bitreverse32((uint32_t)A) << 32) | bitreverse32((uint32_t)(A >> 32));
#endif
}

#define DIFF_BIT_OPS(X)                                                        \
  X(popcount32, KInt, (uint64_t)__builtin_popcount(A32))                             \
  X(popcount64, KInt, (uint64_t)__builtin_popcountll(A))                             \
  X(clz32, KInt, (uint64_t)(A32 ? __builtin_clz(A32) : 32))                          \
  X(clz64, KInt, (uint64_t)(A ? __builtin_clzll(A) : 64))                            \
  X(ctz32, KInt, (uint64_t)(A32 ? __builtin_ctz(A32) : 32))                          \
  X(ctz64, KInt, (uint64_t)(A ? __builtin_ctzll(A) : 64))                            \
  X(ffs32, KInt, (uint64_t)__builtin_ffs((int)A32))                                  \
  X(ffs64, KInt, (uint64_t)__builtin_ffsll((long long)A))                            \
  X(clrsb32, KInt, (uint64_t)__builtin_clrsb((int)A32))                              \
  X(clrsb64, KInt, (uint64_t)__builtin_clrsbll((long long)A))                        \
  X(parity32, KInt, (uint64_t)__builtin_parity(A32))                                 \
  X(bswap32, KInt, (uint64_t)__builtin_bswap32(A32))                                 \
  X(bswap64, KInt, __builtin_bswap64(A))                                             \
  X(bswap16, KInt, (uint64_t)__builtin_bswap16((uint16_t)A))                         \
  X(bitrev32, KInt, (uint64_t)bitreverse32(A32))                                     \
  X(bitrev64, KInt, bitreverse64(A))                                                 \
  X(lowest_set, KInt, A & (0ull - A))                                                \
  X(clear_lowest, KInt, A & (A - 1))                                                 \
  X(log2_floor32, KInt, (uint64_t)(A32 ? 31 - __builtin_clz(A32) : 0xffffffffu))     \
  X(pow2_ceil32, KInt, (uint64_t)(A32 <= 1 ? 1u : (A32 > 0x80000000u ? 0u : 1u << (32 - __builtin_clz(A32 - 1))))) \
  X(bits_between, KInt, (A >> 7) & ((1ull << 33) - 1))                               \
  X(sign_mask, KInt, (uint64_t)((int64_t)A >> 63))

inline constexpr unsigned BitOpCount = 0 DIFF_BIT_OPS(DIFF_OP_COUNT);

DIFF_FN void bitOps(uint64_t A, uint64_t *R) {
  uint32_t A32 = (uint32_t)A;
  (void)A32;
  unsigned K = 0;
#define DIFF_X(Name, Kind, Expr) R[K++] = (uint64_t)(Expr);
  DIFF_BIT_OPS(DIFF_X)
#undef DIFF_X
}

} // namespace diff

#endif // LOOM_TESTS_EMU_DIFF_COMMON_INTOPS_H
