// Kernels for RoundModeTest.cpp: f32 and f64 arithmetic and conversions
// after s_setreg has set MODE.FP_ROUND (both round fields to MODE), one
// kernel per mode: a constant (s_setreg_imm32), since at -O0 clang-22
// cannot select s_setreg_b32 with a value that lives in a VGPR.
#define KERNEL __attribute__((amdgpu_kernel, visibility("default")))

static inline unsigned gid(void) {
  return __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() +
         __builtin_amdgcn_workitem_id_x();
}

// hwreg(HW_REG_MODE, 0, 4): FP_ROUND, f32 in [1:0], f64/f16 in [3:2].
#define SET_ROUND(mode) \
  __builtin_amdgcn_s_setreg(1 | (0 << 6) | ((4 - 1) << 11), (mode) * 5u)

#define ARITH_F32(MODE)                                                    \
  KERNEL void arith_f32_##MODE(float *out, const float *a, const float *b, \
                               const int *n) {                            \
    SET_ROUND(MODE);                                                       \
    arith_f32(out, a, b, n);                                               \
  }
#define ARITH_F64(MODE)                                                    \
  KERNEL void arith_f64_##MODE(double *out, const double *a,              \
                               const double *b) {                         \
    SET_ROUND(MODE);                                                       \
    arith_f64(out, a, b);                                                  \
  }

static inline __attribute__((always_inline)) void
arith_f32(float *out, const float *a, const float *b, const int *n) {
  unsigned g = gid();
  float x = a[g], y = b[g];
  int k = n[g];
  out[6 * g + 0] = x + y;
  out[6 * g + 1] = x - y;
  out[6 * g + 2] = x * y;
  out[6 * g + 3] = __builtin_fmaf(x, y, y);
  out[6 * g + 4] = (float)k;
  out[6 * g + 5] = (float)(unsigned)k;
}

static inline __attribute__((always_inline)) void
arith_f64(double *out, const double *a, const double *b) {
  unsigned g = gid();
  double x = a[g], y = b[g];
  out[5 * g + 0] = x + y;
  out[5 * g + 1] = x - y;
  out[5 * g + 2] = x * y;
  out[5 * g + 3] = __builtin_fma(x, y, y);
  ((float *)(out + 5 * g + 4))[0] = (float)x;
  ((float *)(out + 5 * g + 4))[1] = 0.0f;
}

ARITH_F32(0)
ARITH_F32(1)
ARITH_F32(2)
ARITH_F32(3)
ARITH_F64(0)
ARITH_F64(1)
ARITH_F64(2)
ARITH_F64(3)
