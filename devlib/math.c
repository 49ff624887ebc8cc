//===- devlib/math.c - <math.h>: what the GPU computes exactly ------------===//
//
// Each is one LLVM intrinsic the AMDGPU backend lowers to instructions; with
// loom cc's LTO they inline into the program.
//
//===----------------------------------------------------------------------===//

#include <math.h>

double fabs(double X) { return __builtin_fabs(X); }
float fabsf(float X) { return __builtin_fabsf(X); }
double sqrt(double X) { return __builtin_sqrt(X); }
float sqrtf(float X) { return __builtin_sqrtf(X); }
double floor(double X) { return __builtin_floor(X); }
float floorf(float X) { return __builtin_floorf(X); }
double ceil(double X) { return __builtin_ceil(X); }
float ceilf(float X) { return __builtin_ceilf(X); }
double trunc(double X) { return __builtin_trunc(X); }
float truncf(float X) { return __builtin_truncf(X); }
double round(double X) { return __builtin_round(X); }
float roundf(float X) { return __builtin_roundf(X); }
double fmin(double X, double Y) { return __builtin_fmin(X, Y); }
float fminf(float X, float Y) { return __builtin_fminf(X, Y); }
double fmax(double X, double Y) { return __builtin_fmax(X, Y); }
float fmaxf(float X, float Y) { return __builtin_fmaxf(X, Y); }
double fma(double X, double Y, double Z) { return __builtin_fma(X, Y, Z); }
float fmaf(float X, float Y, float Z) { return __builtin_fmaf(X, Y, Z); }
double copysign(double X, double Y) { return __builtin_copysign(X, Y); }
float copysignf(float X, float Y) { return __builtin_copysignf(X, Y); }
double ldexp(double X, int E) { return __builtin_ldexp(X, E); }
float ldexpf(float X, int E) { return __builtin_ldexpf(X, E); }

// Exact: X - trunc(X / Y) * Y computed without rounding, by subtracting
// Y scaled by powers of two.
double fmod(double X, double Y) {
  if (isnan(X) || isnan(Y) || isinf(X) || Y == 0)
    return NAN;
  double A = fabs(X), B = fabs(Y);
  while (A >= B) {
    double S = B;
    while (S * 2 <= A && isfinite(S * 2))
      S *= 2;
    A -= S;
  }
  return copysign(A, X);
}
float fmodf(float X, float Y) { return (float)fmod(X, Y); }
