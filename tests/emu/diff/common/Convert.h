//===- Convert.h - Conversions between integer and floating types ---------===//
//
// Float-to-integer conversions of values outside the target's range are
// undefined in C++, so each one is guarded by an exact range check and
// yields a marker instead. Everything else is exactly specified: integer to
// float rounds to nearest even, narrowing float conversions round to nearest
// even (binary16 and bfloat16 included), widening is exact.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TESTS_EMU_DIFF_COMMON_CONVERT_H
#define LOOM_TESTS_EMU_DIFF_COMMON_CONVERT_H

#include "DiffCommon.h"
#include "OpTable.h"

namespace diff {

inline constexpr uint64_t OutOfRange = 0x0badc0de0badc0deull;

DIFF_FN uint64_t f32ToI32(float X) {
  return X >= -0x1p31f && X < 0x1p31f ? (uint64_t)(int64_t)(int32_t)X : OutOfRange;
}
DIFF_FN uint64_t f32ToU32(float X) {
  return X > -1.0f && X < 0x1p32f ? (uint64_t)(uint32_t)X : OutOfRange;
}
DIFF_FN uint64_t f32ToI64(float X) {
  return X >= -0x1p63f && X < 0x1p63f ? (uint64_t)(int64_t)X : OutOfRange;
}
DIFF_FN uint64_t f32ToU64(float X) {
  return X > -1.0f && X < 0x1p64f ? (uint64_t)X : OutOfRange;
}
DIFF_FN uint64_t f32ToI16(float X) {
  return X > -32769.0f && X < 32768.0f ? (uint64_t)(int64_t)(int16_t)X : OutOfRange;
}
DIFF_FN uint64_t f64ToI32(double X) {
  return X > -0x1p31 - 1.0 && X < 0x1p31 ? (uint64_t)(int64_t)(int32_t)X : OutOfRange;
}
DIFF_FN uint64_t f64ToU32(double X) {
  return X > -1.0 && X < 0x1p32 ? (uint64_t)(uint32_t)X : OutOfRange;
}
DIFF_FN uint64_t f64ToI64(double X) {
  return X >= -0x1p63 && X < 0x1p63 ? (uint64_t)(int64_t)X : OutOfRange;
}
DIFF_FN uint64_t f64ToU64(double X) {
  return X > -1.0 && X < 0x1p64 ? (uint64_t)X : OutOfRange;
}
// Every finite binary16 value fits in int32; the non-negative ones in uint16.
DIFF_FN uint64_t f16ToI32(_Float16 X) {
  return __builtin_isfinite((float)X) ? (uint64_t)(int64_t)(int32_t)X : OutOfRange;
}
DIFF_FN uint64_t f16ToU16(_Float16 X) {
  float F = (float)X;
  return F > -1.0f && F < 65536.0f ? (uint64_t)(uint16_t)X : OutOfRange;
}

// The host's libgcc may lack __truncsfbf2, so the host side rounds by hand:
// round to nearest even on the bits (carries into infinity correctly), NaN
// kept quiet. The device side is what clang makes of the cast.
DIFF_FN uint16_t f32ToBf16(float X) {
#ifdef DIFF_DEVICE
  return __builtin_bit_cast(uint16_t, (__bf16)X);
#else
  uint32_t B = bitsOf(X);
  if (isNan(X))
    return (uint16_t)((B >> 16) | 0x40);
  return (uint16_t)((B + 0x7fffu + ((B >> 16) & 1)) >> 16);
#endif
}

// (name, kind, expression over X (float), D (double), I (uint64_t), H
// (_Float16)). Results are widened to uint64_t.
#define DIFF_CONVERT_OPS(X)                                                    \
  X(f32_to_f64, KF64, bitsOf((double)Xf))                                      \
  X(f64_to_f32, KF32, bitsOf((float)D))                                        \
  X(f32_to_f16, KF16, bitsOf((_Float16)Xf))                                    \
  X(f16_to_f32, KF32, bitsOf((float)H))                                        \
  X(f64_to_f16, KF16, bitsOf((_Float16)D))                                     \
  X(f16_to_f64, KF64, bitsOf((double)H))                                       \
  X(f32_to_bf16, KBF16, f32ToBf16(Xf))              \
  X(bf16_to_f32, KF32, bitsOf((float)__builtin_bit_cast(__bf16, (uint16_t)I))) \
  X(f64_to_f32_to_f64, KF64, bitsOf((double)(float)D))                         \
  X(i32_to_f32, KF32, bitsOf((float)(int32_t)I))                               \
  X(u32_to_f32, KF32, bitsOf((float)(uint32_t)I))                              \
  X(i64_to_f32, KF32, bitsOf((float)(int64_t)I))                               \
  X(u64_to_f32, KF32, bitsOf((float)I))                                        \
  X(i32_to_f64, KF64, bitsOf((double)(int32_t)I))                              \
  X(u32_to_f64, KF64, bitsOf((double)(uint32_t)I))                             \
  X(i64_to_f64, KF64, bitsOf((double)(int64_t)I))                              \
  X(u64_to_f64, KF64, bitsOf((double)I))                                       \
  X(i32_to_f16, KF16, bitsOf((_Float16)(int32_t)I))                            \
  X(u16_to_f16, KF16, bitsOf((_Float16)(uint16_t)I))                           \
  X(i8_to_f32, KF32, bitsOf((float)(int8_t)I))                                 \
  X(f32_to_i32, KInt, f32ToI32(Xf))                                            \
  X(f32_to_u32, KInt, f32ToU32(Xf))                                            \
  X(f32_to_i64, KInt, f32ToI64(Xf))                                            \
  X(f32_to_u64, KInt, f32ToU64(Xf))                                            \
  X(f32_to_i16, KInt, f32ToI16(Xf))                                            \
  X(f64_to_i32, KInt, f64ToI32(D))                                             \
  X(f64_to_u32, KInt, f64ToU32(D))                                             \
  X(f64_to_i64, KInt, f64ToI64(D))                                             \
  X(f64_to_u64, KInt, f64ToU64(D))                                             \
  X(f16_to_i32, KInt, f16ToI32(H))                                             \
  X(f16_to_u16, KInt, f16ToU16(H))                                             \
  X(f32_nonzero, KInt, (uint64_t)(Xf != 0.0f))                                 \
  X(i64_to_i8, KInt, (uint64_t)(int64_t)(int8_t)I)                             \
  X(i64_to_u8, KInt, (uint64_t)(uint8_t)I)                                     \
  X(i64_to_i16, KInt, (uint64_t)(int64_t)(int16_t)I)                           \
  X(i64_to_u16, KInt, (uint64_t)(uint16_t)I)                                   \
  X(i64_to_i32, KInt, (uint64_t)(int64_t)(int32_t)I)                           \
  X(i32_to_u64, KInt, (uint64_t)(int64_t)(int32_t)I)                           \
  X(u32_to_u64, KInt, (uint64_t)(uint32_t)I)                                   \
  X(bool_to_i64, KInt, (uint64_t)(int64_t)(I != 0))

inline constexpr unsigned ConvertOpCount = 0 DIFF_CONVERT_OPS(DIFF_OP_COUNT);

DIFF_FN void convertOps(float Xf, double D, uint64_t I, uint16_t HBits,
                        uint64_t *R) {
  _Float16 H = f16Of(HBits);
  unsigned K = 0;
#define DIFF_X(Name, Kind, Expr) R[K++] = (uint64_t)(Expr);
  DIFF_CONVERT_OPS(DIFF_X)
#undef DIFF_X
}

} // namespace diff

#endif // LOOM_TESTS_EMU_DIFF_COMMON_CONVERT_H
