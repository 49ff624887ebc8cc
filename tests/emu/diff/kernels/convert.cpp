//===- convert.cpp - Conversion kernels -----------------------------------===//
#include "Convert.h"
#include "Kernel.h"

using namespace diff;

DIFF_KERNEL convert_ops(uint64_t *Out, const float *X, const double *D,
                        const uint64_t *I64, const uint16_t *H, uint32_t N) {
  uint32_t I = globalId();
  if (I < N)
    convertOps(X[I], D[I], I64[I], H[I], Out + (uint64_t)I * ConvertOpCount);
}
