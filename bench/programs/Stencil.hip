//===- bench/programs/Stencil.hip - 2D and 3D Jacobi stencils -------------===//
//
// Five-point 2D and seven-point 3D Jacobi sweeps (neighbour loads at row and
// plane strides), checked against the same sweeps on the host.
//
//===----------------------------------------------------------------------===//
#include "Program.h"
#include <cmath>
#include <utility>
#include <vector>

constexpr int N2 = 512, Sweeps2 = 32;
constexpr int N3 = 64, Sweeps3 = 16;

__global__ void jacobi2d(const float *In, float *Out, int N) {
  int X = blockIdx.x * blockDim.x + threadIdx.x;
  int Y = blockIdx.y * blockDim.y + threadIdx.y;
  if (X < 1 || Y < 1 || X >= N - 1 || Y >= N - 1)
    return;
  int I = Y * N + X;
  Out[I] = 0.2f * (In[I] + In[I - 1] + In[I + 1] + In[I - N] + In[I + N]);
}

__global__ void jacobi3d(const float *In, float *Out, int N) {
  int X = blockIdx.x * blockDim.x + threadIdx.x;
  int Y = blockIdx.y * blockDim.y + threadIdx.y;
  int Z = blockIdx.z;
  if (X < 1 || Y < 1 || Z < 1 || X >= N - 1 || Y >= N - 1 || Z >= N - 1)
    return;
  int P = N * N, I = Z * P + Y * N + X;
  Out[I] = (In[I] + In[I - 1] + In[I + 1] + In[I - N] + In[I + N] +
            In[I - P] + In[I + P]) *
           (1.0f / 7.0f);
}

template <typename Step>
std::vector<float> onDevice(const std::vector<float> &Init, int Sweeps,
                            bench::Phases &Ph, Step Launch) {
  size_t Bytes = Init.size() * sizeof(float);
  float *A, *B;
  HIP_CHECK(hipMalloc(&A, Bytes));
  HIP_CHECK(hipMalloc(&B, Bytes));
  HIP_CHECK(hipMemcpy(A, Init.data(), Bytes, hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(B, Init.data(), Bytes, hipMemcpyHostToDevice));
  Ph.begin();
  for (int S = 0; S < Sweeps; ++S) {
    Launch(A, B);
    std::swap(A, B);
  }
  Ph.end();
  std::vector<float> R(Init.size());
  HIP_CHECK(hipMemcpy(R.data(), A, Bytes, hipMemcpyDeviceToHost));
  HIP_CHECK(hipFree(A));
  HIP_CHECK(hipFree(B));
  return R;
}

void check(const std::vector<float> &Got, const std::vector<float> &Want,
           const char *What) {
  for (size_t I = 0; I < Want.size(); ++I)
    EXPECT(std::fabs(Got[I] - Want[I]) <= 1e-5f * (1 + std::fabs(Want[I])),
           "%s[%zu] = %g, host %g", What, I, Got[I], Want[I]);
}

int main() {
  bench::Phases Ph;
  std::vector<float> G2(N2 * N2), G3(N3 * N3 * N3);
  for (size_t I = 0; I < G2.size(); ++I)
    G2[I] = float(bench::hash(I) % 1000) / 1000;
  for (size_t I = 0; I < G3.size(); ++I)
    G3[I] = float(bench::hash(I + 7) % 1000) / 1000;

  auto D2 = onDevice(G2, Sweeps2, Ph, [](float *In, float *Out) {
    jacobi2d<<<dim3(N2 / 64, N2 / 4), dim3(64, 4)>>>(In, Out, N2);
  });
  auto D3 = onDevice(G3, Sweeps3, Ph, [](float *In, float *Out) {
    jacobi3d<<<dim3(N3 / 64, N3 / 4, N3), dim3(64, 4)>>>(In, Out, N3);
  });

  std::vector<float> A = G2, B = G2;
  for (int S = 0; S < Sweeps2; ++S) {
    for (int Y = 1; Y < N2 - 1; ++Y)
      for (int X = 1; X < N2 - 1; ++X) {
        int I = Y * N2 + X;
        B[I] = 0.2f * (A[I] + A[I - 1] + A[I + 1] + A[I - N2] + A[I + N2]);
      }
    std::swap(A, B);
  }
  check(D2, A, "2d");
  A = G3, B = G3;
  int P = N3 * N3;
  for (int S = 0; S < Sweeps3; ++S) {
    for (int Z = 1; Z < N3 - 1; ++Z)
      for (int Y = 1; Y < N3 - 1; ++Y)
        for (int X = 1; X < N3 - 1; ++X) {
          int I = Z * P + Y * N3 + X;
          B[I] = (A[I] + A[I - 1] + A[I + 1] + A[I - N3] + A[I + N3] +
                  A[I - P] + A[I + P]) *
                 (1.0f / 7.0f);
        }
    std::swap(A, B);
  }
  check(D3, A, "3d");
  return 0;
}
