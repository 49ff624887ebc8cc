//===- tests/hip/Symbols.hip - __device__ and __constant__ globals ---------===//
//
// hipMemcpyToSymbol / hipMemcpyFromSymbol (sync, async, with offsets),
// hipGetSymbolAddress and hipGetSymbolSize on __device__ and __constant__
// variables, read and written by kernels.
//
//===----------------------------------------------------------------------===//
#include "HipTest.h"
#include <vector>

constexpr int N = 256;
__constant__ float Coeffs[4];
__constant__ int Table[N];
__device__ int Counter;
__device__ int Results[N];

__global__ void evaluate(float *Out) {
  int I = threadIdx.x;
  float X = float(Table[I]);
  Out[I] = ((Coeffs[3] * X + Coeffs[2]) * X + Coeffs[1]) * X + Coeffs[0];
  Results[I] = Table[I] * 2;
  atomicAdd(&Counter, 1);
}

int main() {
  const float HostCoeffs[4] = {1.0f, -0.5f, 0.25f, 2.0f};
  std::vector<int> HostTable(N);
  for (int I = 0; I < N; ++I)
    HostTable[I] = (I * 37) % 11 - 5;

  HIP_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(Coeffs), HostCoeffs,
                              sizeof(HostCoeffs)));
  // The table in two halves: one at an offset, one async.
  HIP_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(Table), HostTable.data(),
                              N / 2 * sizeof(int), 0, hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpyToSymbolAsync(HIP_SYMBOL(Table), HostTable.data() + N / 2,
                                   N / 2 * sizeof(int), N / 2 * sizeof(int),
                                   hipMemcpyHostToDevice, 0));
  int Zero = 5;
  HIP_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(Counter), &Zero, sizeof(int)));

  size_t Size = 0;
  HIP_CHECK(hipGetSymbolSize(&Size, HIP_SYMBOL(Table)));
  EXPECT(Size == N * sizeof(int), "Table size %zu", Size);
  HIP_CHECK(hipGetSymbolSize(&Size, HIP_SYMBOL(Counter)));
  EXPECT(Size == sizeof(int), "Counter size %zu", Size);

  float *Out;
  HIP_CHECK(hipMalloc(&Out, N * sizeof(float)));
  evaluate<<<1, N>>>(Out);
  HIP_CHECK(hipDeviceSynchronize());

  std::vector<float> Got(N);
  HIP_CHECK(hipMemcpy(Got.data(), Out, N * sizeof(float),
                      hipMemcpyDeviceToHost));
  for (int I = 0; I < N; ++I) {
    float X = float(HostTable[I]);
    float Want = ((HostCoeffs[3] * X + HostCoeffs[2]) * X + HostCoeffs[1]) * X +
                 HostCoeffs[0];
    EXPECT(Got[I] == Want, "evaluate [%d] = %f, want %f", I, Got[I], Want);
  }
  int Count = 0;
  HIP_CHECK(hipMemcpyFromSymbol(&Count, HIP_SYMBOL(Counter), sizeof(int)));
  EXPECT(Count == 5 + N, "Counter %d", Count);

  // Read __device__ results back: directly, at an offset, and async.
  std::vector<int> Res(N, 0);
  HIP_CHECK(hipMemcpyFromSymbol(Res.data(), HIP_SYMBOL(Results),
                                N * sizeof(int)));
  for (int I = 0; I < N; ++I)
    EXPECT(Res[I] == HostTable[I] * 2, "Results [%d] = %d", I, Res[I]);
  int Tail[8] = {};
  HIP_CHECK(hipMemcpyFromSymbolAsync(Tail, HIP_SYMBOL(Results), sizeof(Tail),
                                     (N - 8) * sizeof(int),
                                     hipMemcpyDeviceToHost, 0));
  HIP_CHECK(hipStreamSynchronize(0));
  for (int I = 0; I < 8; ++I)
    EXPECT(Tail[I] == HostTable[N - 8 + I] * 2, "tail [%d] = %d", I, Tail[I]);

  // The symbol's address is ordinary device memory.
  int *ResultsPtr = nullptr, *CounterPtr = nullptr;
  HIP_CHECK(hipGetSymbolAddress((void **)&ResultsPtr, HIP_SYMBOL(Results)));
  HIP_CHECK(hipGetSymbolAddress((void **)&CounterPtr, HIP_SYMBOL(Counter)));
  EXPECT(ResultsPtr && CounterPtr && ResultsPtr != CounterPtr, "addresses");
  HIP_CHECK(hipMemset(ResultsPtr, 0, N * sizeof(int)));
  HIP_CHECK(hipMemcpyFromSymbol(Res.data(), HIP_SYMBOL(Results),
                                N * sizeof(int)));
  for (int I = 0; I < N; ++I)
    EXPECT(Res[I] == 0, "Results [%d] after memset = %d", I, Res[I]);
  HIP_CHECK(hipMemcpy(&Count, CounterPtr, sizeof(int), hipMemcpyDeviceToHost));
  EXPECT(Count == 5 + N, "Counter through its address %d", Count);

  HIP_CHECK(hipFree(Out));
  std::printf("symbols ok\n");
  return 0;
}
