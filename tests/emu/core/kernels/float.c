// Kernels for VectorFloatTest: the code clang emits for ordinary C float
// arithmetic (built at -O0 and -O2, -ffp-contract=off). Each work-item
// computes several results from its operands; the test compares them bit
// for bit with the same C evaluated on the host. Division and sqrt are
// clang's correctly rounded macros (v_div_scale / v_div_fmas /
// v_div_fixup, v_sqrt + correction, v_rsq + Newton steps).
#define KERNEL __attribute__((amdgpu_kernel, visibility("default")))

static unsigned gid(void) {
  return __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
}

#define F32_RESULTS 8
KERNEL void f32_ops(float *out, const float *a, const float *b, unsigned n) {
  unsigned i = gid();
  if (i >= n)
    return;
  float x = a[i], y = b[i];
  float *o = out + i * F32_RESULTS;
  o[0] = x / y;
  o[1] = 1.0f / x;
  o[2] = __builtin_sqrtf(x);
  o[3] = x * y - y;
  o[4] = __builtin_fmaf(x, y, y);
  o[5] = __builtin_fminf(x, y);
  o[6] = __builtin_fmaxf(x, y);
  o[7] = -2.0f / y;
}

#define F64_RESULTS 6
KERNEL void f64_ops(double *out, const double *a, const double *b,
                    unsigned n) {
  unsigned i = gid();
  if (i >= n)
    return;
  double x = a[i], y = b[i];
  double *o = out + i * F64_RESULTS;
  o[0] = x / y;
  o[1] = 1.0 / x;
  o[2] = __builtin_sqrt(x);
  o[3] = __builtin_fma(x, y, y);
  o[4] = __builtin_fmin(x, y);
  o[5] = x * y + x;
}

#define F16_RESULTS 6
KERNEL void f16_ops(_Float16 *out, const _Float16 *a, const _Float16 *b,
                    unsigned n) {
  unsigned i = gid();
  if (i >= n)
    return;
  _Float16 x = a[i], y = b[i];
  _Float16 *o = out + i * F16_RESULTS;
  o[0] = x / y;
  o[1] = x + y;
  o[2] = x * y;
  o[3] = __builtin_fmaf16(x, y, y);
  o[4] = __builtin_sqrtf16(x);
  o[5] = (_Float16)1.0 / x;
}

// Conversions: integer results of out-of-range values are the hardware's
// saturation (the test's reference saturates too); integer -> float ones
// convert bit patterns, so that clang cannot fold (float)(int)x into a
// trunc.
KERNEL void convert_ops(unsigned *out, const float *a, const double *b,
                        unsigned n) {
  unsigned i = gid();
  if (i >= n)
    return;
  float x = a[i];
  double y = b[i];
  unsigned *o = out + i * 8;
  o[0] = (unsigned)(int)x;
  o[1] = (unsigned)x;
  unsigned bits = __builtin_bit_cast(unsigned, x);
  o[2] = __builtin_bit_cast(unsigned, (float)(int)bits);
  o[3] = __builtin_bit_cast(unsigned, (float)y);
  _Float16 h = (_Float16)x;
  o[4] = __builtin_bit_cast(unsigned short, h);
  o[5] = __builtin_bit_cast(unsigned, (float)h);
  o[6] = __builtin_bit_cast(unsigned, (float)bits);
  o[7] = (unsigned)(int)y;
}

// All ordered and unordered compares of a[i] and b[i] as a bit set.
KERNEL void compare_ops(unsigned *out, const float *a, const float *b,
                        unsigned n) {
  unsigned i = gid();
  if (i >= n)
    return;
  float x = a[i], y = b[i];
  out[i] = (x < y) | (x <= y) << 1 | (x == y) << 2 | (x != y) << 3 |
           (x > y) << 4 | (x >= y) << 5 | __builtin_isunordered(x, y) << 6 |
           __builtin_isless(x, y) << 7 | __builtin_islessgreater(x, y) << 8 |
           __builtin_isnan(x) << 9 | __builtin_isinf(y) << 10 |
           __builtin_isnormal(x) << 11;
}
