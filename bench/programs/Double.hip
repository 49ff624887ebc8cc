//===- bench/programs/Double.hip - Double-precision kernel ----------------===//
//
// A degree-16 polynomial per element by Horner's rule (v_fma_f64), a DAXPY
// and a division; the host computes the same fused operations bit for bit.
//
//===----------------------------------------------------------------------===//
#include "Program.h"
#include <cmath>
#include <vector>

constexpr int N = 1 << 18, Degree = 16, Reps = 12, Block = 256;

__constant__ double Coef[Degree + 1];

__global__ void horner(const double *X, double *Y, int N) {
  int I = blockIdx.x * Block + threadIdx.x;
  if (I >= N)
    return;
  double V = X[I], P = Coef[Degree];
  for (int K = Degree - 1; K >= 0; --K)
    P = fma(P, V, Coef[K]);
  Y[I] = fma(2.5, P, Y[I]) / fma(V, V, 1.0);
}

int main() {
  bench::Phases Ph;
  double C[Degree + 1];
  for (int K = 0; K <= Degree; ++K)
    C[K] = 1.0 / (K + 1);
  HIP_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(Coef), C, sizeof(C)));
  std::vector<double> X(N), Y(N, 0.0);
  for (int I = 0; I < N; ++I)
    X[I] = double(bench::hash(I) % 2000) / 1000 - 1;
  double *DX, *DY;
  HIP_CHECK(hipMalloc(&DX, N * sizeof(double)));
  HIP_CHECK(hipMalloc(&DY, N * sizeof(double)));
  HIP_CHECK(hipMemcpy(DX, X.data(), N * sizeof(double),
                      hipMemcpyHostToDevice));
  HIP_CHECK(hipMemset(DY, 0, N * sizeof(double)));
  Ph.begin();
  for (int R = 0; R < Reps; ++R)
    horner<<<N / Block, Block>>>(DX, DY, N);
  Ph.end();
  std::vector<double> Got(N);
  HIP_CHECK(hipMemcpy(Got.data(), DY, N * sizeof(double),
                      hipMemcpyDeviceToHost));
  for (int R = 0; R < Reps; ++R)
    for (int I = 0; I < N; ++I) {
      double P = C[Degree];
      for (int K = Degree - 1; K >= 0; --K)
        P = std::fma(P, X[I], C[K]);
      Y[I] = std::fma(2.5, P, Y[I]) / std::fma(X[I], X[I], 1.0);
    }
  // The device divides with a refined reciprocal (correctly rounded).
  for (int I = 0; I < N; ++I)
    EXPECT(Got[I] == Y[I], "y[%d] = %.17g, host %.17g", I, Got[I], Y[I]);
  return 0;
}
