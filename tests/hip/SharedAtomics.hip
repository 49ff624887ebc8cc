//===- tests/hip/SharedAtomics.hip - Shared memory and atomics -------------===//
//
// Static and dynamic (extern __shared__) LDS, a block reduction through LDS,
// and global/shared atomics of several widths and operations, each checked
// against the host's sequential result.
//
//===----------------------------------------------------------------------===//
#include "HipTest.h"
#include <algorithm>
#include <cstdint>
#include <vector>

constexpr int Block = 256;

// Reverses each block's slice through static shared memory.
__global__ void reverseStatic(const int *In, int *Out) {
  __shared__ int Tile[Block];
  int Base = blockIdx.x * Block;
  Tile[threadIdx.x] = In[Base + threadIdx.x];
  __syncthreads();
  Out[Base + threadIdx.x] = Tile[Block - 1 - threadIdx.x];
}

// Sums each block's slice through dynamic shared memory sized at launch.
__global__ void blockSum(const int *In, long long *Sums) {
  extern __shared__ long long Partial[];
  Partial[threadIdx.x] = In[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (unsigned Stride = blockDim.x / 2; Stride > 0; Stride /= 2) {
    if (threadIdx.x < Stride)
      Partial[threadIdx.x] += Partial[threadIdx.x + Stride];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    Sums[blockIdx.x] = Partial[0];
}

struct AtomicResults {
  int Add;
  int Sub;
  unsigned Inc;
  int Max;
  int Min;
  unsigned And;
  unsigned Or;
  unsigned Xor;
  unsigned long long Add64;
  float AddF;
  double AddD;
  int CasCount;
  int Exch;
  int SharedHist[16];
};

__global__ void atomics(const int *In, int N, AtomicResults *R) {
  __shared__ int Hist[16];
  if (threadIdx.x < 16)
    Hist[threadIdx.x] = 0;
  __syncthreads();
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N) {
    int V = In[I];
    atomicAdd(&R->Add, V);
    atomicSub(&R->Sub, V);
    atomicInc(&R->Inc, 1000u);
    atomicMax(&R->Max, V);
    atomicMin(&R->Min, V);
    atomicAnd(&R->And, ~(1u << (I % 32)));
    atomicOr(&R->Or, 1u << (V & 31));
    atomicXor(&R->Xor, unsigned(V));
    atomicAdd(&R->Add64, (unsigned long long)V << 20);
    atomicAdd(&R->AddF, 0.5f);
    atomicAdd(&R->AddD, 0.25);
    // A CAS loop incrementing a counter: every thread must succeed once.
    int Old = R->CasCount, Assumed;
    do {
      Assumed = Old;
      Old = atomicCAS(&R->CasCount, Assumed, Assumed + 1);
    } while (Old != Assumed);
    atomicExch(&R->Exch, 42);
    atomicAdd(&Hist[V & 15], 1);
  }
  __syncthreads();
  if (threadIdx.x < 16)
    atomicAdd(&R->SharedHist[threadIdx.x], Hist[threadIdx.x]);
}

int main() {
  const int Blocks = 40, N = Blocks * Block;
  std::vector<int> In(N);
  for (int I = 0; I < N; ++I)
    In[I] = (I * 7919) % 2003 - 1000;
  int *DIn, *DOut;
  HIP_CHECK(hipMalloc(&DIn, N * sizeof(int)));
  HIP_CHECK(hipMalloc(&DOut, N * sizeof(int)));
  HIP_CHECK(hipMemcpy(DIn, In.data(), N * sizeof(int), hipMemcpyHostToDevice));

  reverseStatic<<<Blocks, Block>>>(DIn, DOut);
  std::vector<int> Out(N);
  HIP_CHECK(hipMemcpy(Out.data(), DOut, N * sizeof(int),
                      hipMemcpyDeviceToHost));
  for (int B = 0; B < Blocks; ++B)
    for (int T = 0; T < Block; ++T)
      EXPECT(Out[B * Block + T] == In[B * Block + Block - 1 - T],
             "reverse block %d thread %d", B, T);

  // Dynamic shared memory of several sizes (block sizes 64..1024).
  long long *DSums;
  HIP_CHECK(hipMalloc(&DSums, N * sizeof(long long)));
  for (int Threads : {64, 128, 512, 1024}) {
    int Groups = N / Threads;
    hipLaunchKernelGGL(blockSum, dim3(Groups), dim3(Threads),
                       Threads * sizeof(long long), 0, DIn, DSums);
    HIP_CHECK(hipGetLastError());
    std::vector<long long> Sums(Groups);
    HIP_CHECK(hipMemcpy(Sums.data(), DSums, Groups * sizeof(long long),
                        hipMemcpyDeviceToHost));
    for (int G = 0; G < Groups; ++G) {
      long long Want = 0;
      for (int T = 0; T < Threads; ++T)
        Want += In[G * Threads + T];
      EXPECT(Sums[G] == Want, "blockSum(%d) group %d: %lld, want %lld",
             Threads, G, Sums[G], Want);
    }
  }

  AtomicResults Init = {};
  Init.Max = -100000;
  Init.Min = 100000;
  Init.And = ~0u;
  Init.Exch = 7;
  AtomicResults *DR;
  HIP_CHECK(hipMalloc(&DR, sizeof(AtomicResults)));
  HIP_CHECK(hipMemcpy(DR, &Init, sizeof(Init), hipMemcpyHostToDevice));
  atomics<<<Blocks, Block>>>(DIn, N, DR);
  AtomicResults R;
  HIP_CHECK(hipMemcpy(&R, DR, sizeof(R), hipMemcpyDeviceToHost));

  AtomicResults W = Init;
  unsigned IncWant = 0;
  for (int I = 0; I < N; ++I) {
    int V = In[I];
    W.Add += V;
    W.Sub -= V;
    IncWant = IncWant >= 1000u ? 0 : IncWant + 1;
    W.Max = std::max(W.Max, V);
    W.Min = std::min(W.Min, V);
    W.And &= ~(1u << (I % 32));
    W.Or |= 1u << (V & 31);
    W.Xor ^= unsigned(V);
    W.Add64 += (unsigned long long)V << 20;
    W.AddF += 0.5f;
    W.AddD += 0.25;
    W.SharedHist[V & 15] += 1;
  }
  EXPECT(R.Add == W.Add, "add %d vs %d", R.Add, W.Add);
  EXPECT(R.Sub == W.Sub, "sub %d vs %d", R.Sub, W.Sub);
  EXPECT(R.Inc == IncWant, "inc %u vs %u", R.Inc, IncWant);
  EXPECT(R.Max == W.Max && R.Min == W.Min, "max/min %d %d", R.Max, R.Min);
  EXPECT(R.And == W.And && R.Or == W.Or && R.Xor == W.Xor, "bit ops");
  EXPECT(R.Add64 == W.Add64, "add64 %llu vs %llu", R.Add64, W.Add64);
  EXPECT(R.AddF == W.AddF, "addf %f vs %f", R.AddF, W.AddF);
  EXPECT(R.AddD == W.AddD, "addd %f vs %f", R.AddD, W.AddD);
  EXPECT(R.CasCount == N, "cas count %d", R.CasCount);
  EXPECT(R.Exch == 42, "exch %d", R.Exch);
  for (int B = 0; B < 16; ++B)
    EXPECT(R.SharedHist[B] == W.SharedHist[B], "hist %d: %d vs %d", B,
           R.SharedHist[B], W.SharedHist[B]);

  HIP_CHECK(hipFree(DIn));
  HIP_CHECK(hipFree(DOut));
  HIP_CHECK(hipFree(DSums));
  HIP_CHECK(hipFree(DR));
  std::printf("shared memory and atomics ok\n");
  return 0;
}
