//===- bench/programs/Histogram.hip - Atomics-heavy histogram -------------===//
//
// 256-bin histogram of bytes: per-block bins in LDS (ds_add), merged with
// global atomics, plus a pass of global atomics straight to 64 hot bins;
// checked against the host's counts.
//
//===----------------------------------------------------------------------===//
#include "Program.h"
#include <vector>

constexpr int N = 1 << 22, Bins = 256, Block = 256, Reps = 6;

__global__ void histLds(const unsigned *In, unsigned *Hist, int Words) {
  __shared__ unsigned Local[Bins];
  Local[threadIdx.x] = 0;
  __syncthreads();
  for (int I = blockIdx.x * Block + threadIdx.x; I < Words;
       I += gridDim.x * Block) {
    unsigned W = In[I];
    for (int B = 0; B < 4; ++B)
      atomicAdd(&Local[(W >> (8 * B)) & 0xff], 1u);
  }
  __syncthreads();
  atomicAdd(&Hist[threadIdx.x], Local[threadIdx.x]);
}

__global__ void histGlobal(const unsigned *In, unsigned *Hist, int Words) {
  int I = blockIdx.x * Block + threadIdx.x;
  if (I < Words)
    atomicAdd(&Hist[In[I] & 63], 1u);
}

int main() {
  bench::Phases Ph;
  constexpr int Words = N / 4;
  std::vector<unsigned> H(Words);
  for (int I = 0; I < Words; ++I)
    H[I] = bench::hash(I) & 0x3f7f1fff; // uneven bins
  unsigned *In, *Hist, *Hot;
  HIP_CHECK(hipMalloc(&In, Words * sizeof(unsigned)));
  HIP_CHECK(hipMalloc(&Hist, Bins * sizeof(unsigned)));
  HIP_CHECK(hipMalloc(&Hot, 64 * sizeof(unsigned)));
  HIP_CHECK(hipMemcpy(In, H.data(), Words * sizeof(unsigned),
                      hipMemcpyHostToDevice));
  HIP_CHECK(hipMemset(Hist, 0, Bins * sizeof(unsigned)));
  HIP_CHECK(hipMemset(Hot, 0, 64 * sizeof(unsigned)));
  Ph.begin();
  for (int R = 0; R < Reps; ++R) {
    histLds<<<256, Block>>>(In, Hist, Words);
    histGlobal<<<Words / Block, Block>>>(In, Hot, Words);
  }
  Ph.end();
  std::vector<unsigned> Got(Bins), GotHot(64), Want(Bins, 0), WantHot(64, 0);
  HIP_CHECK(hipMemcpy(Got.data(), Hist, Bins * sizeof(unsigned),
                      hipMemcpyDeviceToHost));
  HIP_CHECK(hipMemcpy(GotHot.data(), Hot, 64 * sizeof(unsigned),
                      hipMemcpyDeviceToHost));
  for (unsigned W : H) {
    for (int B = 0; B < 4; ++B)
      Want[(W >> (8 * B)) & 0xff] += Reps;
    WantHot[W & 63] += Reps;
  }
  for (int B = 0; B < Bins; ++B)
    EXPECT(Got[B] == Want[B], "bin %d = %u, host %u", B, Got[B], Want[B]);
  for (int B = 0; B < 64; ++B)
    EXPECT(GotHot[B] == WantHot[B], "hot bin %d = %u, host %u", B, GotHot[B],
           WantHot[B]);
  return 0;
}
