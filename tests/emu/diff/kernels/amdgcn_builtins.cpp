//===- amdgcn_builtins.cpp - Device-only math builtins --------------------===//
//
// Builtins with no host counterpart. The approximate ones (v_rcp, v_rsq,
// v_sqrt, v_exp, v_log, v_sin, v_cos and the f64 v_rcp/v_rsq/v_sqrt) are
// checked within the ULP bounds docs/emu-testing.md gives; the exact ones
// (v_fract, v_frexp_*, v_cmp_class, v_med3, v_cvt_pkrtz, v_alignbit,
// v_alignbyte, v_bfe) bit for bit against hand-written
// references. One operation per launch, chosen by a uniform argument, so the
// test can give each its own input domain.
//
//===----------------------------------------------------------------------===//
#include "Kernel.h"
#include "KernelAbi.h"

using namespace diff;

DIFF_KERNEL approx_f32(float *Out, const float *X, uint32_t N, uint32_t Op) {
  uint32_t I = globalId();
  if (I >= N)
    return;
  float V = X[I], R;
  switch (Op) {
  case OpRcp:
    R = __builtin_amdgcn_rcpf(V);
    break;
  case OpRsq:
    R = __builtin_amdgcn_rsqf(V);
    break;
  case OpSqrt:
    R = __builtin_amdgcn_sqrtf(V);
    break;
  case OpExp2:
    R = __builtin_amdgcn_exp2f(V);
    break;
  case OpLog2:
    R = __builtin_amdgcn_logf(V);
    break;
  case OpSin:
    R = __builtin_amdgcn_sinf(V);
    break;
  case OpCos:
    R = __builtin_amdgcn_cosf(V);
    break;
  case OpLibExp2:
    R = __builtin_exp2f(V);
    break;
  case OpLibLog2:
    R = __builtin_log2f(V);
    break;
  default:
    R = 0.0f;
    break;
  }
  Out[I] = R;
}

DIFF_KERNEL approx_f64(double *Out, const double *X, uint32_t N, uint32_t Op) {
  uint32_t I = globalId();
  if (I >= N)
    return;
  double V = X[I];
  Out[I] = Op == OpRcp64   ? __builtin_amdgcn_rcp(V)
           : Op == OpRsq64 ? __builtin_amdgcn_rsq(V)
                           : __builtin_amdgcn_sqrt(V);
}

// X, Y, Z: operands (floats, or raw words for the integer operations).
DIFF_KERNEL exact_builtins(uint32_t *Out, const uint32_t *X, const uint32_t *Y,
                           const uint32_t *Z, uint32_t N, uint32_t Op) {
  uint32_t I = globalId();
  if (I >= N)
    return;
  uint32_t A = X[I], B = Y[I], C = Z[I], R;
  float FA = f32Of(A), FB = f32Of(B), FC = f32Of(C);
  switch (Op) {
  case OpFract:
    R = bitsOf(__builtin_amdgcn_fractf(FA));
    break;
  case OpFrexpMant:
    R = bitsOf(__builtin_amdgcn_frexp_mantf(FA));
    break;
  case OpFrexpExp:
    R = (uint32_t)__builtin_amdgcn_frexp_expf(FA);
    break;
  case OpClass:
    R = (uint32_t)__builtin_amdgcn_classf(FA, (int)(B & 0x3ff));
    break;
  case OpMed3:
    R = bitsOf(__builtin_amdgcn_fmed3f(FA, FB, FC));
    break;
  case OpPkRtz: {
    R = __builtin_bit_cast(uint32_t, __builtin_amdgcn_cvt_pkrtz(FA, FB));
    break;
  }
  case OpAlignBit:
    R = __builtin_amdgcn_alignbit(A, B, C);
    break;
  case OpAlignByte:
    R = __builtin_amdgcn_alignbyte(A, B, C);
    break;
  case OpUbfe:
    R = __builtin_amdgcn_ubfe(A, B, C);
    break;
  case OpSbfe:
    R = (uint32_t)__builtin_amdgcn_sbfe((int)A, B, C);
    break;
  default:
    R = 0;
    break;
  }
  Out[I] = R;
}
