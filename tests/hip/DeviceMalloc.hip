//===- tests/hip/DeviceMalloc.hip - malloc and free in device code ---------===//
//
// Device malloc/free (HIP's device heap, refilled by the host through the
// hostcall buffer). Each thread allocates a buffer whose size depends on its
// index, fills it, and a second kernel reads the buffers through pointers
// left in global memory and frees them.
//
//===----------------------------------------------------------------------===//
#include "HipTest.h"
#include <cstdint>
#include <vector>

__global__ void allocate(int **Ptrs, int *Sums) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  int Len = 1 + I % 13;
  int *P = static_cast<int *>(malloc(Len * sizeof(int)));
  Ptrs[I] = P;
  if (!P)
    return;
  int Sum = 0;
  for (int K = 0; K < Len; ++K) {
    P[K] = I * 3 + K;
    Sum += P[K];
  }
  Sums[I] = Sum;
}

__global__ void readAndFree(int **Ptrs, int *Sums) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  int *P = Ptrs[I];
  if (!P) {
    Sums[I] = -1;
    return;
  }
  int Sum = 0;
  for (int K = 0; K < 1 + I % 13; ++K)
    Sum += P[K];
  Sums[I] = Sums[I] == Sum ? Sum : -2;
  free(P);
}

// Large blocks force the heap to grow.
__global__ void big(long long *Out) {
  size_t Size = size_t(1) << 20;
  char *P = static_cast<char *>(malloc(Size));
  if (!P) {
    Out[threadIdx.x] = -1;
    return;
  }
  for (size_t K = 0; K < Size; K += 4096)
    P[K] = char(K / 4096 + threadIdx.x);
  long long Sum = 0;
  for (size_t K = 0; K < Size; K += 4096)
    Sum += P[K];
  Out[threadIdx.x] = Sum;
  free(P);
}

int main() {
  const int Blocks = 4, Threads = 128, N = Blocks * Threads;
  int **DPtrs;
  int *DSums;
  HIP_CHECK(hipMalloc(&DPtrs, N * sizeof(int *)));
  HIP_CHECK(hipMalloc(&DSums, N * sizeof(int)));
  for (int Round = 0; Round < 2; ++Round) {
    allocate<<<Blocks, Threads>>>(DPtrs, DSums);
    readAndFree<<<Blocks, Threads>>>(DPtrs, DSums);
    std::vector<int> Sums(N);
    HIP_CHECK(hipMemcpy(Sums.data(), DSums, N * sizeof(int),
                        hipMemcpyDeviceToHost));
    for (int I = 0; I < N; ++I) {
      int Want = 0;
      for (int K = 0; K < 1 + I % 13; ++K)
        Want += I * 3 + K;
      EXPECT(Sums[I] == Want, "round %d thread %d: %d, want %d", Round, I,
             Sums[I], Want);
    }
  }
  long long *DOut;
  const int Bigs = 8;
  HIP_CHECK(hipMalloc(&DOut, Bigs * sizeof(long long)));
  big<<<1, Bigs>>>(DOut);
  long long Out[Bigs];
  HIP_CHECK(hipMemcpy(Out, DOut, sizeof(Out), hipMemcpyDeviceToHost));
  for (int T = 0; T < Bigs; ++T) {
    long long Want = 0;
    for (int K = 0; K < 256; ++K)
      Want += (signed char)(K + T);
    EXPECT(Out[T] == Want, "big %d: %lld, want %lld", T, Out[T], Want);
  }
  HIP_CHECK(hipFree(DPtrs));
  HIP_CHECK(hipFree(DSums));
  HIP_CHECK(hipFree(DOut));
  std::printf("device malloc ok\n");
  return 0;
}
