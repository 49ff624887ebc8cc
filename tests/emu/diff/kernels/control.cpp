//===- control.cpp - Divergent control flow, loops, calls, recursion ------===//
#include "ControlFlow.h"
#include "Kernel.h"

using namespace diff;

DIFF_KERNEL control_ops(uint64_t *Out, const uint32_t *A, const uint32_t *B,
                        uint32_t N) {
  uint32_t I = globalId();
  if (I < N)
    controlOps(A[I], B[I], Out + (uint64_t)I * ControlOpCount);
}

// Loads inside a data-dependent loop.
DIFF_KERNEL binary_search(uint32_t *Out, const uint32_t *Sorted,
                          uint32_t NSorted, const uint32_t *Keys, uint32_t N) {
  uint32_t I = globalId();
  if (I < N)
    Out[I] = binarySearch(Sorted, NSorted, Keys[I]);
}
