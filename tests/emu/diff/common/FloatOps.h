//===- FloatOps.h - binary16/32/64 arithmetic, rounding, classification ---===//
//
// Only operations IEEE 754 defines exactly (correctly rounded, or exact) are
// listed here, so device and host results must match bit for bit (any NaN
// matches any NaN). What clang-22 makes of them on gfx90a: f32/f64 division
// is the v_div_scale / v_rcp / v_fma / v_div_fmas / v_div_fixup sequence,
// sqrt a v_sqrt (f32) or v_rsq_f64 (f64) seed refined with FMAs, both correctly
// rounded only if every step is emulated exactly.
//
// _Float16 arithmetic is native on gfx90a; on x86-64 it is done in float and
// rounded on assignment or cast, so each binary16 operation below is cast back
// to _Float16 before it feeds another one.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TESTS_EMU_DIFF_COMMON_FLOATOPS_H
#define LOOM_TESTS_EMU_DIFF_COMMON_FLOATOPS_H

#include "DiffCommon.h"
#include "OpTable.h"

namespace diff {

DIFF_FN float fminQuiet(float A, float B) {
  return isSignalingNan(A) || isSignalingNan(B) ? 0.0f : __builtin_fminf(A, B);
}
DIFF_FN float fmaxQuiet(float A, float B) {
  return isSignalingNan(A) || isSignalingNan(B) ? 0.0f : __builtin_fmaxf(A, B);
}
DIFF_FN double fminQuiet(double A, double B) {
  return isSignalingNan(A) || isSignalingNan(B) ? 0.0 : __builtin_fmin(A, B);
}
DIFF_FN double fmaxQuiet(double A, double B) {
  return isSignalingNan(A) || isSignalingNan(B) ? 0.0 : __builtin_fmax(A, B);
}
// frexp's exponent is unspecified for infinities and NaN.
DIFF_FN float frexpMant(float A) {
  int E;
  return __builtin_isfinite(A) ? __builtin_frexpf(A, &E) : A;
}
DIFF_FN uint32_t frexpExp(float A) {
  int E = 0;
  if (__builtin_isfinite(A))
    __builtin_frexpf(A, &E);
  return (uint32_t)E;
}
DIFF_FN double frexpMant(double A) {
  int E;
  return __builtin_isfinite(A) ? __builtin_frexp(A, &E) : A;
}
DIFF_FN uint64_t frexpExp(double A) {
  int E = 0;
  if (__builtin_isfinite(A))
    __builtin_frexp(A, &E);
  return (uint64_t)(int64_t)E;
}
// An exponent in [-160, 95]: overflow, denormal results and exact scaling.
DIFF_FN int ldexpCount(float B) { return (int)(bitsOf(B) & 0xff) - 160; }
DIFF_FN int ldexpCount(double B) { return (int)(bitsOf(B) & 0x7ff) - 1100; }
DIFF_FN uint32_t orderOf(float A, float B) {
  return A < B ? 1u : (A == B ? 2u : (A > B ? 3u : 4u));
}

// Results are stored as raw bits; integer results as they are.
DIFF_FN uint32_t resultBits(uint32_t V) { return V; }
DIFF_FN uint32_t resultBits(float V) { return bitsOf(V); }
DIFF_FN uint64_t resultBits(uint64_t V) { return V; }
DIFF_FN uint64_t resultBits(double V) { return bitsOf(V); }
DIFF_FN uint32_t resultBits(_Float16 V) { return bitsOf(V); }

// (name, kind, expression over A, B, C (float)).
#define DIFF_F32_OPS(X)                                                        \
  X(add, KF32, A + B)                                                          \
  X(sub, KF32, A - B)                                                          \
  X(mul, KF32, A * B)                                                          \
  X(div, KF32, A / B)                                                          \
  X(recip, KF32, 1.0f / A)                                                     \
  X(div_const3, KF32, A / 3.0f)                                                \
  X(sqrt, KF32, __builtin_sqrtf(A))                                            \
  X(fma, KF32, __builtin_fmaf(A, B, C))                                        \
  X(mul_then_add, KF32, A * B + C)                                             \
  X(diff_squares, KF32, (A + B) * (A - B))                                     \
  X(poly, KF32, ((A * 0.5f + 1.0f) * A - 2.0f) * A)                            \
  X(fabs, KF32, __builtin_fabsf(A))                                            \
  X(neg, KF32, -A)                                                             \
  X(copysign, KF32, __builtin_copysignf(A, B))                                 \
  X(floor, KF32, __builtin_floorf(A))                                          \
  X(ceil, KF32, __builtin_ceilf(A))                                            \
  X(trunc, KF32, __builtin_truncf(A))                                          \
  X(rint, KF32, __builtin_rintf(A))                                            \
  X(nearbyint, KF32, __builtin_nearbyintf(A))                                  \
  X(round, KF32, __builtin_roundf(A))                                          \
  X(fmin, KF32Z, fminQuiet(A, B))                                              \
  X(fmax, KF32Z, fmaxQuiet(A, B))                                              \
  X(select_gt, KF32, A > B ? A : B)                                            \
  X(ldexp, KF32, __builtin_ldexpf(A, ldexpCount(B)))                           \
  X(frexp_mant, KF32, frexpMant(A))                                            \
  X(frexp_exp, KInt, frexpExp(A))                                              \
  X(scale_down, KF32, A * 0x1p-100f)                                           \
  X(scale_up, KF32, A * 0x1p+100f)                                             \
  X(lt, KInt, (uint32_t)(A < B))                                               \
  X(le, KInt, (uint32_t)(A <= B))                                              \
  X(eq, KInt, (uint32_t)(A == B))                                              \
  X(ne, KInt, (uint32_t)(A != B))                                              \
  X(unordered, KInt, (uint32_t)__builtin_isunordered(A, B))                    \
  X(order, KInt, orderOf(A, B))                                                \
  X(isnan, KInt, (uint32_t)__builtin_isnan(A))                                 \
  X(isinf, KInt, (uint32_t)__builtin_isinf(A))                                 \
  X(isfinite, KInt, (uint32_t)__builtin_isfinite(A))                           \
  X(isnormal, KInt, (uint32_t)__builtin_isnormal(A))                           \
  X(signbit, KInt, (uint32_t)__builtin_signbit(A))

inline constexpr unsigned F32OpCount = 0 DIFF_F32_OPS(DIFF_OP_COUNT);

DIFF_FN void f32Ops(float A, float B, float C, uint32_t *R) {
  unsigned K = 0;
#define DIFF_X(Name, Kind, Expr) R[K++] = resultBits(Expr);
  DIFF_F32_OPS(DIFF_X)
#undef DIFF_X
}

DIFF_FN uint64_t orderOf(double A, double B) {
  return A < B ? 1u : (A == B ? 2u : (A > B ? 3u : 4u));
}

// (name, kind, expression over A, B, C (double)).
#define DIFF_F64_OPS(X)                                                        \
  X(add, KF64, A + B)                                                          \
  X(sub, KF64, A - B)                                                          \
  X(mul, KF64, A * B)                                                          \
  X(div, KF64, A / B)                                                          \
  X(recip, KF64, 1.0 / A)                                                      \
  X(div_const3, KF64, A / 3.0)                                                 \
  X(sqrt, KF64, __builtin_sqrt(A))                                             \
  X(fma, KF64, __builtin_fma(A, B, C))                                         \
  X(mul_then_add, KF64, A * B + C)                                             \
  X(poly, KF64, ((A * 0.5 + 1.0) * A - 2.0) * A)                               \
  X(fabs, KF64, __builtin_fabs(A))                                             \
  X(neg, KF64, -A)                                                             \
  X(copysign, KF64, __builtin_copysign(A, B))                                  \
  X(floor, KF64, __builtin_floor(A))                                           \
  X(ceil, KF64, __builtin_ceil(A))                                             \
  X(trunc, KF64, __builtin_trunc(A))                                           \
  X(rint, KF64, __builtin_rint(A))                                             \
  X(round, KF64, __builtin_round(A))                                           \
  X(fmin, KF64Z, fminQuiet(A, B))                                              \
  X(fmax, KF64Z, fmaxQuiet(A, B))                                              \
  X(ldexp, KF64, __builtin_ldexp(A, ldexpCount(B)))                            \
  X(frexp_mant, KF64, frexpMant(A))                                            \
  X(frexp_exp, KInt, frexpExp(A))                                              \
  X(scale_down, KF64, A * 0x1p-1000)                                           \
  X(lt, KInt, (uint64_t)(A < B))                                               \
  X(eq, KInt, (uint64_t)(A == B))                                              \
  X(order, KInt, orderOf(A, B))                                                \
  X(isnan, KInt, (uint64_t)__builtin_isnan(A))                                 \
  X(isinf, KInt, (uint64_t)__builtin_isinf(A))                                 \
  X(isnormal, KInt, (uint64_t)__builtin_isnormal(A))

inline constexpr unsigned F64OpCount = 0 DIFF_F64_OPS(DIFF_OP_COUNT);

DIFF_FN void f64Ops(double A, double B, double C, uint64_t *R) {
  unsigned K = 0;
#define DIFF_X(Name, Kind, Expr) R[K++] = resultBits(Expr);
  DIFF_F64_OPS(DIFF_X)
#undef DIFF_X
}

typedef _Float16 half;

DIFF_FN half fminQuiet(half A, half B) {
  // Through float: exact both ways, and the same on both sides.
  float R = fminQuiet((float)A, (float)B);
  return (half)R;
}
DIFF_FN half fmaxQuiet(half A, half B) {
  float R = fmaxQuiet((float)A, (float)B);
  return (half)R;
}

// (name, kind, expression over A, B, C (_Float16)); binary16 results are
// cast to half after every operation (see the file comment). mul_in_f32
// ignores the sign of zero results: at -O0 clang-22 selects it as
// v_fma_mixlo_f16 a, b, +0.0, which turns a -0 product into +0.
#define DIFF_F16_OPS(X)                                                        \
  X(add, KF16, (half)(A + B))                                                  \
  X(sub, KF16, (half)(A - B))                                                  \
  X(mul, KF16, (half)(A * B))                                                  \
  X(div, KF16, (half)(A / B))                                                  \
  X(mul_then_add, KF16, (half)((half)(A * B) + C))                             \
  X(neg, KF16, (half)-A)                                                       \
  X(fmin, KF16Z, fminQuiet(A, B))                                              \
  X(fmax, KF16Z, fmaxQuiet(A, B))                                              \
  X(lt, KInt, (uint32_t)(A < B))                                               \
  X(eq, KInt, (uint32_t)(A == B))                                              \
  X(to_f32, KF32, (float)A)                                                    \
  X(mul_in_f32, KF16Z, (half)((float)A * (float)B))                            \
  X(sqrt_via_f32, KF16, (half)__builtin_sqrtf((float)A))

inline constexpr unsigned F16OpCount = 0 DIFF_F16_OPS(DIFF_OP_COUNT);

DIFF_FN void f16Ops(half A, half B, half C, uint32_t *R) {
  unsigned K = 0;
#define DIFF_X(Name, Kind, Expr) R[K++] = resultBits(Expr);
  DIFF_F16_OPS(DIFF_X)
#undef DIFF_X
}

} // namespace diff

#endif // LOOM_TESTS_EMU_DIFF_COMMON_FLOATOPS_H
