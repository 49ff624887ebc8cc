//===- tests/hip/LaunchKernels.hip - Kernels launched from another file ----===//
//
// Defined here, launched from Launch.hip through their host symbols with
// hipLaunchKernel, so the runtime must map a host symbol of one translation
// unit to the device kernel (the launch-by-symbol path of LLVM review D86376).
//
//===----------------------------------------------------------------------===//
#include <hip/hip_runtime.h>

__global__ void polyOtherUnit(const float *X, float *Y, int N, float A,
                              float B) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Y[I] = A * X[I] * X[I] + B;
}

// A 2D kernel, to check the grid shape of launches by symbol.
__global__ void index2D(int *Out, int Width) {
  int X = blockIdx.x * blockDim.x + threadIdx.x;
  int Y = blockIdx.y * blockDim.y + threadIdx.y;
  Out[Y * Width + X] = Y * 1000 + X;
}
