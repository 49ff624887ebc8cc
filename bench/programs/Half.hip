//===- bench/programs/Half.hip - Half-precision arithmetic ----------------===//
//
// __half2 fused multiply-adds over an array (v_pk_fma_f16), a __half
// polynomial per element (v_fma_f16) and conversions to and from float;
// checked against the host doing the same steps with float rounding to half.
//
//===----------------------------------------------------------------------===//
#include "Program.h"
#include <hip/hip_fp16.h>
#include <cmath>
#include <vector>

constexpr int N = 1 << 19, Iters = 16, Block = 256, Reps = 4;

__global__ void half2Fma(const __half2 *X, __half2 *Y, int N, int Iters) {
  int I = blockIdx.x * Block + threadIdx.x;
  if (I >= N)
    return;
  __half2 A = __floats2half2_rn(0.5f, -0.25f), V = X[I], Acc = Y[I];
  for (int K = 0; K < Iters; ++K)
    Acc = __hfma2(A, V, Acc);
  Y[I] = Acc;
}

__global__ void halfToFloat(const __half *X, float *Out, int N) {
  int I = blockIdx.x * Block + threadIdx.x;
  if (I >= N)
    return;
  __half V = X[I], P = __float2half(0.125f);
  for (int K = 0; K < 4; ++K)
    P = __hfma(P, V, __float2half(0.5f));
  Out[I] = __half2float(P) + __half2float(V);
}

// Host model: each half operation is a float operation rounded to half.
float toHalf(float F) { return __half2float(__float2half(F)); }

int main() {
  bench::Phases Ph;
  std::vector<__half2> X(N), Y(N);
  std::vector<float> Xf(2 * N), Yf(2 * N);
  for (int I = 0; I < 2 * N; ++I) {
    Xf[I] = toHalf(float(int(bench::hash(I) % 64) - 32) / 64);
    Yf[I] = toHalf(float(int(bench::hash(I + 5) % 64) - 32) / 16);
  }
  for (int I = 0; I < N; ++I) {
    X[I] = __floats2half2_rn(Xf[2 * I], Xf[2 * I + 1]);
    Y[I] = __floats2half2_rn(Yf[2 * I], Yf[2 * I + 1]);
  }
  __half2 *DX, *DY;
  float *DOut;
  HIP_CHECK(hipMalloc(&DX, N * sizeof(__half2)));
  HIP_CHECK(hipMalloc(&DY, N * sizeof(__half2)));
  HIP_CHECK(hipMalloc(&DOut, 2 * N * sizeof(float)));
  HIP_CHECK(hipMemcpy(DX, X.data(), N * sizeof(__half2),
                      hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(DY, Y.data(), N * sizeof(__half2),
                      hipMemcpyHostToDevice));
  __half2 *DY0;
  HIP_CHECK(hipMalloc(&DY0, N * sizeof(__half2)));
  HIP_CHECK(hipMemcpy(DY0, DY, N * sizeof(__half2), hipMemcpyDeviceToDevice));
  // Every repetition starts from the same Y: the host checks one.
  Ph.begin();
  for (int R = 0; R < Reps; ++R) {
    HIP_CHECK(hipMemcpyAsync(DY, DY0, N * sizeof(__half2),
                             hipMemcpyDeviceToDevice));
    half2Fma<<<N / Block, Block>>>(DX, DY, N, Iters);
    halfToFloat<<<2 * N / Block, Block>>>(reinterpret_cast<__half *>(DX),
                                          DOut, 2 * N);
  }
  Ph.end();
  HIP_CHECK(hipMemcpy(Y.data(), DY, N * sizeof(__half2),
                      hipMemcpyDeviceToHost));
  std::vector<float> Out(2 * N);
  HIP_CHECK(hipMemcpy(Out.data(), DOut, 2 * N * sizeof(float),
                      hipMemcpyDeviceToHost));
  for (int I = 0; I < 2 * N; ++I) {
    // The products and sums are exact in float here (few mantissa bits), so
    // fused and unfused rounding agree.
    float A = I % 2 ? -0.25f : 0.5f, Acc = Yf[I];
    for (int K = 0; K < Iters; ++K)
      Acc = toHalf(A * Xf[I] + Acc);
    float Got = I % 2 ? __high2float(Y[I / 2]) : __low2float(Y[I / 2]);
    EXPECT(Got == Acc, "y[%d] = %g, host %g", I, Got, Acc);
    float P = 0.125f;
    for (int K = 0; K < 4; ++K)
      P = toHalf(std::fma(P, Xf[I], 0.5f));
    EXPECT(Out[I] == P + Xf[I], "out[%d] = %g, host %g", I, Out[I],
           P + Xf[I]);
  }
  return 0;
}
