//===- float_ops.cpp - binary16/32/64 arithmetic kernels ------------------===//
#include "FloatOps.h"
#include "Kernel.h"

using namespace diff;

DIFF_KERNEL f32_ops(uint32_t *Out, const float *A, const float *B,
                    const float *C, uint32_t N) {
  uint32_t I = globalId();
  if (I < N)
    f32Ops(A[I], B[I], C[I], Out + (uint64_t)I * F32OpCount);
}

DIFF_KERNEL f64_ops(uint64_t *Out, const double *A, const double *B,
                    const double *C, uint32_t N) {
  uint32_t I = globalId();
  if (I < N)
    f64Ops(A[I], B[I], C[I], Out + (uint64_t)I * F64OpCount);
}

DIFF_KERNEL f16_ops(uint32_t *Out, const uint16_t *A, const uint16_t *B,
                    const uint16_t *C, uint32_t N) {
  uint32_t I = globalId();
  if (I < N)
    f16Ops(f16Of(A[I]), f16Of(B[I]), f16Of(C[I]), Out + (uint64_t)I * F16OpCount);
}
