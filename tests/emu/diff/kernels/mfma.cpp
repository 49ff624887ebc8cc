//===- mfma.cpp - Matrix fused multiply-add through the MFMA builtins -----===//
//
// Each kernel hands one MFMA its operands exactly as the registers hold them:
// lane L of wave W reads its A and B operands at index W*64+L, and
// accumulator register R at index (W*Regs+R)*64+L, and writes D the same way.
// The test builds the matrices from those registers with the documented
// gfx90a layouts (see MfmaTest.cpp) and computes D = A*B + C on the host.
//
//===----------------------------------------------------------------------===//
#include "Kernel.h"

typedef float F32x4 __attribute__((ext_vector_type(4)));
typedef float F32x16 __attribute__((ext_vector_type(16)));
typedef float F32x32 __attribute__((ext_vector_type(32)));
typedef int I32x4 __attribute__((ext_vector_type(4)));
typedef int I32x16 __attribute__((ext_vector_type(16)));
typedef double F64x4 __attribute__((ext_vector_type(4)));
typedef _Float16 F16x4 __attribute__((ext_vector_type(4)));
typedef short I16x4 __attribute__((ext_vector_type(4)));

template <class Vec, unsigned Regs, class Elem>
DIFF_FN Vec loadAcc(const Elem *C) {
  uint32_t Wave = globalId() / 64, Lane = laneId();
  Vec V;
  for (unsigned R = 0; R < Regs; ++R)
    V[R] = C[((uint64_t)Wave * Regs + R) * 64 + Lane];
  return V;
}

template <unsigned Regs, class Vec, class Elem>
DIFF_FN void storeAcc(Elem *D, Vec V) {
  uint32_t Wave = globalId() / 64, Lane = laneId();
  for (unsigned R = 0; R < Regs; ++R)
    D[((uint64_t)Wave * Regs + R) * 64 + Lane] = V[R];
}

#define DIFF_MFMA_KERNEL(Name, AType, CType, Regs, Elem)                       \
  DIFF_KERNEL mfma_##Name(Elem *D, const AType *A, const AType *B,             \
                          const Elem *C) {                                     \
    uint32_t I = globalId();                                                   \
    CType Acc = loadAcc<CType, Regs>(C);                                       \
    Acc = __builtin_amdgcn_mfma_##Name(A[I], B[I], Acc, 0, 0, 0);              \
    storeAcc<Regs>(D, Acc);                                                    \
  }

DIFF_MFMA_KERNEL(f32_32x32x1f32, float, F32x32, 32, float)
DIFF_MFMA_KERNEL(f32_16x16x1f32, float, F32x16, 16, float)
DIFF_MFMA_KERNEL(f32_4x4x1f32, float, F32x4, 4, float)
DIFF_MFMA_KERNEL(f32_32x32x2f32, float, F32x16, 16, float)
DIFF_MFMA_KERNEL(f32_16x16x4f32, float, F32x4, 4, float)
DIFF_MFMA_KERNEL(f32_32x32x8f16, F16x4, F32x16, 16, float)
DIFF_MFMA_KERNEL(f32_16x16x16f16, F16x4, F32x4, 4, float)
DIFF_MFMA_KERNEL(f32_4x4x4f16, F16x4, F32x4, 4, float)
DIFF_MFMA_KERNEL(i32_32x32x8i8, int, I32x16, 16, int)
DIFF_MFMA_KERNEL(i32_16x16x16i8, int, I32x4, 4, int)
DIFF_MFMA_KERNEL(i32_4x4x4i8, int, I32x4, 4, int)
DIFF_MFMA_KERNEL(f32_32x32x8bf16_1k, I16x4, F32x16, 16, float)
DIFF_MFMA_KERNEL(f32_16x16x16bf16_1k, I16x4, F32x4, 4, float)
DIFF_MFMA_KERNEL(f64_16x16x4f64, double, F64x4, 4, double)

// One 64-bit accumulator register: the builtin takes and returns a scalar.
DIFF_KERNEL mfma_f64_4x4x4f64(double *D, const double *A, const double *B,
                              const double *C) {
  uint32_t I = globalId();
  D[I] = __builtin_amdgcn_mfma_f64_4x4x4f64(A[I], B[I], C[I], 0, 0, 0);
}

// Two dependent MFMAs: the second accumulates onto the first's result.
DIFF_KERNEL mfma_f32_16x16x4f32_chain(float *D, const float *A, const float *B,
                                      const float *C) {
  uint32_t I = globalId();
  F32x4 Acc = loadAcc<F32x4, 4>(C);
  Acc = __builtin_amdgcn_mfma_f32_16x16x4f32(A[I], B[I], Acc, 0, 0, 0);
  Acc = __builtin_amdgcn_mfma_f32_16x16x4f32(B[I], A[I], Acc, 0, 0, 0);
  storeAcc<4>(D, Acc);
}
