//===- tests/hip/FunctionPointers.hip - Calls through function pointers ---===//
//
// Device functions called through a table of pointers in device memory
// (initialised by the loader's relocations, so the pointers are the
// functions' addresses in the loaded code object), picked per lane: the
// compiler calls them in a waterfall loop (v_readfirstlane_b32 of the
// pointer, s_swappc_b64 for the lanes that share it). Also a pointer passed
// as a kernel argument, and the pointers themselves read back by the host,
// which must be the table's whatever runs the kernels (an instrumented copy
// included). Each result is checked against the host's.
//
//===----------------------------------------------------------------------===//
#include "HipTest.h"

#include <cstdint>
#include <vector>

typedef unsigned (*UnaryOp)(unsigned);

__host__ __device__ unsigned opAddH(unsigned X) { return X + 0x1234567u; }
__host__ __device__ unsigned opMulH(unsigned X) { return X * 2654435761u; }
__host__ __device__ unsigned opRotH(unsigned X) {
  return (X << 11) | (X >> 21);
}
// A data-dependent loop: the lanes that share it run it for different trips.
__host__ __device__ unsigned opStepsH(unsigned X) {
  unsigned N = 0;
  for (unsigned V = X & 0xfff; V > 1 && N < 200; ++N)
    V = (V & 1) ? 3 * V + 1 : V >> 1;
  return N ^ X;
}

__device__ __attribute__((noinline)) unsigned opAdd(unsigned X) {
  return opAddH(X);
}
__device__ __attribute__((noinline)) unsigned opMul(unsigned X) {
  return opMulH(X);
}
__device__ __attribute__((noinline)) unsigned opRot(unsigned X) {
  return opRotH(X);
}
__device__ __attribute__((noinline)) unsigned opSteps(unsigned X) {
  return opStepsH(X);
}

__device__ UnaryOp Table[4] = {opAdd, opMul, opRot, opSteps};

// Per lane: a pointer from the table, twice (the second through the first's
// result), so lanes of one wave call different functions.
__global__ void applyTable(const unsigned *In, unsigned *Out, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= N)
    return;
  unsigned X = In[I];
  unsigned Y = Table[X & 3](X);
  Out[I] = Table[(Y >> 7) & 3](Y);
}

// One pointer for every lane, from the host.
__global__ void applyArg(UnaryOp F, const unsigned *In, unsigned *Out, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Out[I] = F(In[I]);
}

// The pointers as the device computes them.
__global__ void pointers(uint64_t *Out) {
  Out[0] = reinterpret_cast<uint64_t>(&opAdd);
  Out[1] = reinterpret_cast<uint64_t>(&opMul);
  Out[2] = reinterpret_cast<uint64_t>(&opRot);
  Out[3] = reinterpret_cast<uint64_t>(&opSteps);
}

unsigned hostOp(unsigned K, unsigned X) {
  switch (K & 3) {
  case 0:
    return opAddH(X);
  case 1:
    return opMulH(X);
  case 2:
    return opRotH(X);
  default:
    return opStepsH(X);
  }
}

int main() {
  constexpr int N = 1000; // a partial last wave
  std::vector<unsigned> In(N);
  for (int I = 0; I < N; ++I)
    In[I] = unsigned(I) * 2246822519u + 0x9e3779b9u;
  unsigned *DIn, *DOut;
  uint64_t *DPtrs;
  HIP_CHECK(hipMalloc(&DIn, N * sizeof(unsigned)));
  HIP_CHECK(hipMalloc(&DOut, N * sizeof(unsigned)));
  HIP_CHECK(hipMalloc(&DPtrs, 4 * sizeof(uint64_t)));
  HIP_CHECK(
      hipMemcpy(DIn, In.data(), N * sizeof(unsigned), hipMemcpyHostToDevice));
  std::vector<unsigned> Out(N);

  hipLaunchKernelGGL(applyTable, dim3((N + 255) / 256), dim3(256), 0, 0, DIn,
                     DOut, N);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(
      hipMemcpy(Out.data(), DOut, N * sizeof(unsigned), hipMemcpyDeviceToHost));
  for (int I = 0; I < N; ++I) {
    unsigned Y = hostOp(In[I], In[I]);
    unsigned Want = hostOp(Y >> 7, Y);
    EXPECT(Out[I] == Want, "applyTable[%d] = %u, want %u", I, Out[I], Want);
  }

  UnaryOp Ptrs[4];
  HIP_CHECK(hipMemcpyFromSymbol(Ptrs, HIP_SYMBOL(Table), sizeof(Ptrs)));
  for (unsigned K = 0; K < 4; ++K) {
    hipLaunchKernelGGL(applyArg, dim3((N + 127) / 128), dim3(128), 0, 0,
                       Ptrs[K], DIn, DOut, N);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipMemcpy(Out.data(), DOut, N * sizeof(unsigned),
                        hipMemcpyDeviceToHost));
    for (int I = 0; I < N; ++I)
      EXPECT(Out[I] == hostOp(K, In[I]), "applyArg %u [%d] = %u, want %u", K, I,
             Out[I], hostOp(K, In[I]));
  }

  uint64_t Got[4];
  hipLaunchKernelGGL(pointers, dim3(1), dim3(1), 0, 0, DPtrs);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(Got, DPtrs, sizeof(Got), hipMemcpyDeviceToHost));
  for (unsigned K = 0; K < 4; ++K)
    EXPECT(Got[K] == reinterpret_cast<uint64_t>(Ptrs[K]),
           "the device's pointer %u is 0x%llx, the table's 0x%llx", K,
           (unsigned long long)Got[K],
           (unsigned long long)reinterpret_cast<uint64_t>(Ptrs[K]));

  HIP_CHECK(hipFree(DIn));
  HIP_CHECK(hipFree(DOut));
  HIP_CHECK(hipFree(DPtrs));
  std::printf("function pointers ok, n=%d\n", N);
  return 0;
}
