//===- bench/programs/NBody.hip - All-pairs n-body step -------------------===//
//
// Accelerations of every body from all others, positions tiled through LDS,
// with rsqrtf; checked against the host in double within a tolerance.
//
//===----------------------------------------------------------------------===//
#include "Program.h"
#include <cmath>
#include <vector>

constexpr int N = 2048, Block = 256, Steps = 6;
constexpr float Soft = 0.01f;

__global__ void accel(const float4 *Pos, float4 *Acc, int N) {
  __shared__ float4 Tile[Block];
  int I = blockIdx.x * Block + threadIdx.x;
  float4 P = Pos[I];
  float Ax = 0, Ay = 0, Az = 0;
  for (int T = 0; T < N; T += Block) {
    Tile[threadIdx.x] = Pos[T + threadIdx.x];
    __syncthreads();
    for (int J = 0; J < Block; ++J) {
      float4 Q = Tile[J];
      float Dx = Q.x - P.x, Dy = Q.y - P.y, Dz = Q.z - P.z;
      float R2 = Dx * Dx + Dy * Dy + Dz * Dz + Soft;
      float Inv = rsqrtf(R2);
      float S = Q.w * Inv * Inv * Inv;
      Ax += Dx * S;
      Ay += Dy * S;
      Az += Dz * S;
    }
    __syncthreads();
  }
  Acc[I] = make_float4(Ax, Ay, Az, 0);
}

int main() {
  bench::Phases Ph;
  std::vector<float4> Pos(N);
  for (int I = 0; I < N; ++I)
    Pos[I] = make_float4(float(bench::hash(4 * I) % 1000) / 100,
                         float(bench::hash(4 * I + 1) % 1000) / 100,
                         float(bench::hash(4 * I + 2) % 1000) / 100,
                         1 + float(bench::hash(4 * I + 3) % 100) / 100);
  float4 *DP, *DA;
  HIP_CHECK(hipMalloc(&DP, N * sizeof(float4)));
  HIP_CHECK(hipMalloc(&DA, N * sizeof(float4)));
  HIP_CHECK(hipMemcpy(DP, Pos.data(), N * sizeof(float4),
                      hipMemcpyHostToDevice));
  Ph.begin();
  for (int S = 0; S < Steps; ++S)
    accel<<<N / Block, Block>>>(DP, DA, N);
  Ph.end();
  std::vector<float4> Acc(N);
  HIP_CHECK(hipMemcpy(Acc.data(), DA, N * sizeof(float4),
                      hipMemcpyDeviceToHost));
  for (int I = 0; I < N; I += 7) {
    double A[3] = {0, 0, 0};
    for (int J = 0; J < N; ++J) {
      double D[3] = {Pos[J].x - Pos[I].x, Pos[J].y - Pos[I].y,
                     Pos[J].z - Pos[I].z};
      double R2 = D[0] * D[0] + D[1] * D[1] + D[2] * D[2] + Soft;
      double S = Pos[J].w / (R2 * std::sqrt(R2));
      for (int K = 0; K < 3; ++K)
        A[K] += D[K] * S;
    }
    float Got[3] = {Acc[I].x, Acc[I].y, Acc[I].z};
    for (int K = 0; K < 3; ++K)
      EXPECT(std::fabs(Got[K] - A[K]) <= 1e-3 * (1 + std::fabs(A[K])),
             "acc[%d][%d] = %g, host %g", I, K, Got[K], A[K]);
  }
  return 0;
}
