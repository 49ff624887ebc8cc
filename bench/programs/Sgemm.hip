//===- bench/programs/Sgemm.hip - LDS-tiled single-precision GEMM ---------===//
//
// C = A * B with 16x16 tiles of A and B staged in LDS, each work-item
// computing a 1x4 strip of C; checked against the host's product.
//
//===----------------------------------------------------------------------===//
#include "Program.h"
#include <cmath>
#include <vector>

constexpr int N = 256, Tile = 16, Reps = 12;

__global__ void sgemm(const float *A, const float *B, float *C, int N) {
  __shared__ float As[Tile][Tile + 1];
  __shared__ float Bs[Tile][Tile * 4];
  int Tx = threadIdx.x, Ty = threadIdx.y;
  int Row = blockIdx.y * Tile + Ty, Col = blockIdx.x * Tile * 4 + Tx;
  float Acc[4] = {0, 0, 0, 0};
  for (int K0 = 0; K0 < N; K0 += Tile) {
    As[Ty][Tx] = A[Row * N + K0 + Tx];
    for (int J = 0; J < 4; ++J)
      Bs[Ty][Tx + J * Tile] = B[(K0 + Ty) * N + Col + J * Tile];
    __syncthreads();
    for (int K = 0; K < Tile; ++K) {
      float Av = As[Ty][K];
      for (int J = 0; J < 4; ++J)
        Acc[J] += Av * Bs[K][Tx + J * Tile];
    }
    __syncthreads();
  }
  for (int J = 0; J < 4; ++J)
    C[Row * N + Col + J * Tile] = Acc[J];
}

int main() {
  bench::Phases Ph;
  std::vector<float> A(N * N), B(N * N), C(N * N);
  for (int I = 0; I < N * N; ++I) {
    A[I] = float(int(bench::hash(I) % 17) - 8) / 8;
    B[I] = float(int(bench::hash(I + N * N) % 13) - 6) / 4;
  }
  float *DA, *DB, *DC;
  size_t Bytes = N * N * sizeof(float);
  HIP_CHECK(hipMalloc(&DA, Bytes));
  HIP_CHECK(hipMalloc(&DB, Bytes));
  HIP_CHECK(hipMalloc(&DC, Bytes));
  HIP_CHECK(hipMemcpy(DA, A.data(), Bytes, hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(DB, B.data(), Bytes, hipMemcpyHostToDevice));
  Ph.begin();
  for (int R = 0; R < Reps; ++R)
    sgemm<<<dim3(N / (Tile * 4), N / Tile), dim3(Tile, Tile)>>>(DA, DB, DC,
                                                                  N);
  Ph.end();
  HIP_CHECK(hipMemcpy(C.data(), DC, Bytes, hipMemcpyDeviceToHost));
  // Products of these eighths and quarters sum exactly in float.
  for (int I = 0; I < N; ++I)
    for (int J = 0; J < N; ++J) {
      float Want = 0;
      for (int K = 0; K < N; ++K)
        Want += A[I * N + K] * B[K * N + J];
      EXPECT(C[I * N + J] == Want, "C[%d][%d] = %g, host %g", I, J,
             C[I * N + J], Want);
    }
  return 0;
}
