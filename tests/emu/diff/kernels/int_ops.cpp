//===- int_ops.cpp - Integer arithmetic and bit manipulation kernels ------===//
#include "IntOps.h"
#include "Kernel.h"

using namespace diff;

DIFF_KERNEL int32_ops(uint32_t *Out, const uint32_t *A, const uint32_t *B,
                      uint32_t N) {
  uint32_t I = globalId();
  if (I < N)
    int32Ops(A[I], B[I], Out + (uint64_t)I * Int32OpCount);
}

DIFF_KERNEL int64_ops(uint64_t *Out, const uint64_t *A, const uint64_t *B,
                      uint32_t N) {
  uint32_t I = globalId();
  if (I < N)
    int64Ops(A[I], B[I], Out + (uint64_t)I * Int64OpCount);
}

DIFF_KERNEL small_int_ops(uint32_t *Out, const uint32_t *A, const uint32_t *B,
                          uint32_t N) {
  uint32_t I = globalId();
  if (I < N)
    smallIntOps(A[I], B[I], Out + (uint64_t)I * SmallIntOpCount);
}

DIFF_KERNEL bit_ops(uint64_t *Out, const uint64_t *A, uint32_t N) {
  uint32_t I = globalId();
  if (I < N)
    bitOps(A[I], Out + (uint64_t)I * BitOpCount);
}
