//===- bench/programs/Reduce.hip - Reduction and scan ---------------------===//
//
// A two-pass sum (LDS tree, then wave shuffles) and an inclusive scan (LDS
// Hillis-Steele per block, block sums scanned, then added back), of 32-bit
// integers so the host's results are exact.
//
//===----------------------------------------------------------------------===//
#include "Program.h"
#include <vector>

constexpr int N = 1 << 21, Block = 256, Rounds = 8;

__global__ void blockSum(const int *In, int *Out, int N) {
  __shared__ int Part[Block];
  int Sum = 0;
  for (int I = blockIdx.x * Block + threadIdx.x; I < N; I += gridDim.x * Block)
    Sum += In[I];
  Part[threadIdx.x] = Sum;
  __syncthreads();
  for (int S = Block / 2; S >= 64; S /= 2) {
    if (threadIdx.x < S)
      Part[threadIdx.x] += Part[threadIdx.x + S];
    __syncthreads();
  }
  if (threadIdx.x < 64) {
    Sum = Part[threadIdx.x];
    for (int O = 32; O > 0; O /= 2)
      Sum += __shfl_down(Sum, O);
    if (threadIdx.x == 0)
      Out[blockIdx.x] = Sum;
  }
}

// Inclusive scan of each block's slice; the block's total goes to Sums.
__global__ void blockScan(const int *In, int *Out, int *Sums) {
  __shared__ int T[2][Block];
  int I = blockIdx.x * Block + threadIdx.x, Cur = 0;
  T[0][threadIdx.x] = In[I];
  __syncthreads();
  for (int O = 1; O < Block; O *= 2) {
    int V = T[Cur][threadIdx.x];
    if (threadIdx.x >= O)
      V += T[Cur][threadIdx.x - O];
    T[1 - Cur][threadIdx.x] = V;
    Cur = 1 - Cur;
    __syncthreads();
  }
  Out[I] = T[Cur][threadIdx.x];
  if (threadIdx.x == Block - 1)
    Sums[blockIdx.x] = T[Cur][threadIdx.x];
}

__global__ void addOffsets(int *Out, const int *ScannedSums) {
  if (blockIdx.x > 0)
    Out[blockIdx.x * Block + threadIdx.x] += ScannedSums[blockIdx.x - 1];
}

int main() {
  bench::Phases Ph;
  std::vector<int> H(N);
  for (int I = 0; I < N; ++I)
    H[I] = int(bench::hash(I) % 201) - 100;
  int *In, *Out, *Part, *Sums, *Sums2, *Tops;
  constexpr int Blocks = N / Block, Blocks2 = Blocks / Block;
  HIP_CHECK(hipMalloc(&In, N * sizeof(int)));
  HIP_CHECK(hipMalloc(&Out, N * sizeof(int)));
  HIP_CHECK(hipMalloc(&Part, 1024 * sizeof(int)));
  HIP_CHECK(hipMalloc(&Sums, Blocks * sizeof(int)));
  HIP_CHECK(hipMalloc(&Sums2, Blocks * sizeof(int)));
  // Room for a whole block (zeros past the 32 totals) and its own total.
  HIP_CHECK(hipMalloc(&Tops, 2 * Block * sizeof(int)));
  HIP_CHECK(hipMemset(Tops, 0, 2 * Block * sizeof(int)));
  HIP_CHECK(hipMemcpy(In, H.data(), N * sizeof(int), hipMemcpyHostToDevice));
  int Total = 0;
  Ph.begin();
  for (int R = 0; R < Rounds; ++R) {
    blockSum<<<1024, Block>>>(In, Part, N);
    blockSum<<<1, Block>>>(Part, Part, 1024);
    blockScan<<<Blocks, Block>>>(In, Out, Sums);
    blockScan<<<Blocks2, Block>>>(Sums, Sums2, Tops);
    // Blocks2 (32) block totals: scanned in one block of the same kernel.
    blockScan<<<1, Block>>>(Tops, Tops, Tops + Block);
    addOffsets<<<Blocks2, Block>>>(Sums2, Tops);
    addOffsets<<<Blocks, Block>>>(Out, Sums2);
  }
  Ph.end();
  HIP_CHECK(hipMemcpy(&Total, Part, sizeof(int), hipMemcpyDeviceToHost));
  std::vector<int> Scan(N);
  HIP_CHECK(hipMemcpy(Scan.data(), Out, N * sizeof(int),
                      hipMemcpyDeviceToHost));
  int Want = 0;
  for (int I = 0; I < N; ++I) {
    Want += H[I];
    EXPECT(Scan[I] == Want, "scan[%d] = %d, host %d", I, Scan[I], Want);
  }
  EXPECT(Total == Want, "sum %d, host %d", Total, Want);
  return 0;
}
