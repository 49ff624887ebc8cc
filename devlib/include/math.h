/*===- math.h - loom run's math subset ---------------------------*- C -*-===*
 *
 * The functions the GPU computes exactly in hardware (or by the backend's
 * refined sequences): no transcendental functions yet.
 *
 *===----------------------------------------------------------------------===*/
#ifndef LOOM_MATH_H
#define LOOM_MATH_H

#ifdef __cplusplus
extern "C" {
#endif

#define INFINITY (__builtin_inff())
#define NAN (__builtin_nanf(""))
#define HUGE_VAL (__builtin_huge_val())
#define HUGE_VALF (__builtin_huge_valf())
#define M_PI 3.14159265358979323846
#define M_E 2.7182818284590452354

#define isnan(x) __builtin_isnan(x)
#define isinf(x) __builtin_isinf(x)
#define isfinite(x) __builtin_isfinite(x)
#define signbit(x) __builtin_signbit(x)

double fabs(double);
float fabsf(float);
double sqrt(double);
float sqrtf(float);
double floor(double);
float floorf(float);
double ceil(double);
float ceilf(float);
double trunc(double);
float truncf(float);
double round(double);
float roundf(float);
double fmin(double, double);
float fminf(float, float);
double fmax(double, double);
float fmaxf(float, float);
double fma(double, double, double);
float fmaf(float, float, float);
double copysign(double, double);
float copysignf(float, float);
double fmod(double, double);
float fmodf(float, float);
double ldexp(double, int);
float ldexpf(float, int);

#ifdef __cplusplus
}
#endif

#endif /* LOOM_MATH_H */
