//===- tests/hip/Launch.hip - Kernel launch paths and templated kernels ----===//
//
// <<<>>>, hipLaunchKernelGGL, hipLaunchKernel with the host symbol of a kernel
// defined in another translation unit (LaunchKernels.hip), templated kernels
// instantiated for several types, 3D grids and built-in variables.
//
//===----------------------------------------------------------------------===//
#include "HipTest.h"
#include <cmath>
#include <vector>

// Defined in LaunchKernels.hip.
__global__ void polyOtherUnit(const float *X, float *Y, int N, float A,
                              float B);
__global__ void index2D(int *Out, int Width);

template <typename T, int Factor>
__global__ void scale(const T *In, T *Out, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Out[I] = In[I] * T(Factor);
}

template <typename T> static void checkScale(int N) {
  std::vector<T> In(N), Out(N);
  for (int I = 0; I < N; ++I)
    In[I] = T(I % 100) + T(1);
  T *DIn, *DOut;
  HIP_CHECK(hipMalloc(&DIn, N * sizeof(T)));
  HIP_CHECK(hipMalloc(&DOut, N * sizeof(T)));
  HIP_CHECK(hipMemcpy(DIn, In.data(), N * sizeof(T), hipMemcpyHostToDevice));
  scale<T, 3><<<(N + 127) / 128, 128>>>(DIn, DOut, N);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(Out.data(), DOut, N * sizeof(T), hipMemcpyDeviceToHost));
  for (int I = 0; I < N; ++I)
    EXPECT(Out[I] == In[I] * T(3), "scale<%zu-byte type> [%d]", sizeof(T), I);
  hipLaunchKernelGGL((scale<T, -2>), dim3((N + 63) / 64), dim3(64), 0, 0, DIn,
                     DOut, N);
  HIP_CHECK(hipMemcpy(Out.data(), DOut, N * sizeof(T), hipMemcpyDeviceToHost));
  for (int I = 0; I < N; ++I)
    EXPECT(Out[I] == In[I] * T(-2), "scale<-2> [%d]", I);
  HIP_CHECK(hipFree(DIn));
  HIP_CHECK(hipFree(DOut));
}

// Writes every built-in coordinate so a 3D launch can be checked exactly.
__global__ void coords(int4 *Out) {
  int Block = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  int Thread =
      (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  int Lin = Block * blockDim.x * blockDim.y * blockDim.z + Thread;
  Out[Lin] = make_int4(blockIdx.x * blockDim.x + threadIdx.x,
                       blockIdx.y * blockDim.y + threadIdx.y,
                       blockIdx.z * blockDim.z + threadIdx.z,
                       gridDim.x * gridDim.y * gridDim.z);
}

int main() {
  const int N = 3000;
  std::vector<float> X(N), Y(N);
  for (int I = 0; I < N; ++I)
    X[I] = 0.25f * float(I % 64);
  float *DX, *DY;
  HIP_CHECK(hipMalloc(&DX, N * sizeof(float)));
  HIP_CHECK(hipMalloc(&DY, N * sizeof(float)));
  HIP_CHECK(hipMemcpy(DX, X.data(), N * sizeof(float), hipMemcpyHostToDevice));

  // hipLaunchKernel with the other unit's host symbol and packed arguments.
  float A = 1.5f, B = -2.0f;
  int Count = N;
  void *Args[] = {&DX, &DY, &Count, &A, &B};
  HIP_CHECK(hipLaunchKernel(reinterpret_cast<const void *>(&polyOtherUnit),
                            dim3((N + 255) / 256), dim3(256), Args, 0, 0));
  HIP_CHECK(hipMemcpy(Y.data(), DY, N * sizeof(float), hipMemcpyDeviceToHost));
  for (int I = 0; I < N; ++I)
    EXPECT(Y[I] == A * X[I] * X[I] + B, "hipLaunchKernel [%d] = %f", I, Y[I]);

  // <<<>>> of the same external kernel on a stream.
  hipStream_t S;
  HIP_CHECK(hipStreamCreate(&S));
  polyOtherUnit<<<dim3((N + 127) / 128), dim3(128), 0, S>>>(DX, DY, N, 2.0f,
                                                            1.0f);
  HIP_CHECK(hipStreamSynchronize(S));
  HIP_CHECK(hipMemcpy(Y.data(), DY, N * sizeof(float), hipMemcpyDeviceToHost));
  for (int I = 0; I < N; ++I)
    EXPECT(Y[I] == 2.0f * X[I] * X[I] + 1.0f, "<<<>>> [%d] = %f", I, Y[I]);

  // 2D launch by symbol.
  const int W = 64, H = 24;
  int *D2;
  HIP_CHECK(hipMalloc(&D2, W * H * sizeof(int)));
  int Width = W;
  void *Args2[] = {&D2, &Width};
  HIP_CHECK(hipLaunchKernel(reinterpret_cast<const void *>(&index2D),
                            dim3(W / 16, H / 8), dim3(16, 8), Args2, 0, S));
  std::vector<int> G2(W * H);
  HIP_CHECK(hipMemcpyAsync(G2.data(), D2, W * H * sizeof(int),
                           hipMemcpyDeviceToHost, S));
  HIP_CHECK(hipStreamSynchronize(S));
  for (int Yy = 0; Yy < H; ++Yy)
    for (int Xx = 0; Xx < W; ++Xx)
      EXPECT(G2[Yy * W + Xx] == Yy * 1000 + Xx, "index2D (%d,%d)", Xx, Yy);

  // 3D grid of 3D blocks with hipLaunchKernelGGL.
  const dim3 Grid(3, 2, 4), Block(8, 4, 2);
  const int Total = 3 * 2 * 4 * 8 * 4 * 2;
  int4 *D3;
  HIP_CHECK(hipMalloc(&D3, Total * sizeof(int4)));
  hipLaunchKernelGGL(coords, Grid, Block, 0, 0, D3);
  std::vector<int4> G3(Total);
  HIP_CHECK(hipMemcpy(G3.data(), D3, Total * sizeof(int4),
                      hipMemcpyDeviceToHost));
  std::vector<int> Seen(24 * 8 * 8, 0);
  for (const int4 &C : G3) {
    EXPECT(C.w == 24, "gridDim product %d", C.w);
    EXPECT(C.x < 24 && C.y < 8 && C.z < 8, "coords %d %d %d", C.x, C.y, C.z);
    ++Seen[(C.z * 8 + C.y) * 24 + C.x];
  }
  for (int V : Seen)
    EXPECT(V == 1, "a global id was seen %d times", V);

  checkScale<int>(1000);
  checkScale<float>(777);
  checkScale<double>(513);
  checkScale<short>(300);

  HIP_CHECK(hipStreamDestroy(S));
  HIP_CHECK(hipFree(DX));
  HIP_CHECK(hipFree(DY));
  HIP_CHECK(hipFree(D2));
  HIP_CHECK(hipFree(D3));
  std::printf("launch ok\n");
  return 0;
}
