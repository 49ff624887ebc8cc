//===- tests/hip/WaveIntrinsics.hip - Wave-level intrinsics ----------------===//
//
// __shfl, __shfl_up, __shfl_down, __shfl_xor (with widths), __ballot, __any,
// __all, __popcll and the EXEC mask on 64-lane waves, checked against a host
// model of a wave.
//
//===----------------------------------------------------------------------===//
#include "HipTest.h"
#include <cstdint>
#include <vector>

constexpr int Wave = 64;

struct LaneOut {
  int Shfl;
  int ShflWidth;
  int Up;
  int Down;
  int Xor;
  float ShflF;
  int Any;
  int All;
  int AllTrue;
  unsigned long long Ballot;
  int PopBallot;
  long long Shfl64;
  int WarpSize;
};

__global__ void waveOps(const int *In, LaneOut *Out) {
  int Tid = blockIdx.x * blockDim.x + threadIdx.x;
  int Lane = threadIdx.x % warpSize;
  int V = In[Tid];
  LaneOut R;
  R.Shfl = __shfl(V, (Lane * 5 + 3) % 64);
  R.ShflWidth = __shfl(V, 2, 16);
  R.Up = __shfl_up(V, 3);
  R.Down = __shfl_down(V, 5);
  R.Xor = __shfl_xor(V, 0x13);
  R.ShflF = __shfl(float(V) * 0.5f, 63 - Lane);
  R.Any = __any(V % 97 == 0);
  R.All = __all(V > 0);
  R.AllTrue = __all(V > -1000000);
  R.Ballot = __ballot(V & 1);
  R.PopBallot = __popcll(__ballot(V % 3 == 0));
  R.Shfl64 = __shfl((long long)V << 33, Lane ^ 1);
  R.WarpSize = warpSize;
  Out[Tid] = R;
}

// Only odd lanes are active: ballot and EXEC see exactly them (HIP 5.2 has
// no __activemask).
__global__ void divergent(unsigned long long *Masks) {
  int Lane = threadIdx.x % 64;
  if (Lane & 1) {
    unsigned long long B = __ballot(1);
    unsigned long long A = __builtin_amdgcn_read_exec();
    if (Lane == 1) {
      Masks[2 * blockIdx.x] = B;
      Masks[2 * blockIdx.x + 1] = A;
    }
  }
}

int main() {
  const int Waves = 6, N = Waves * Wave;
  std::vector<int> In(N);
  for (int I = 0; I < N; ++I)
    In[I] = (I * 131) % 1999 - 300;
  // Wave 2 all positive, wave 3 with no multiple of 97, to vary __any/__all.
  for (int L = 0; L < Wave; ++L) {
    In[2 * Wave + L] = L + 1;
    In[3 * Wave + L] = 97 * L + 1;
  }
  int *DIn;
  LaneOut *DOut;
  HIP_CHECK(hipMalloc(&DIn, N * sizeof(int)));
  HIP_CHECK(hipMalloc(&DOut, N * sizeof(LaneOut)));
  HIP_CHECK(hipMemcpy(DIn, In.data(), N * sizeof(int), hipMemcpyHostToDevice));
  // Blocks of two waves each.
  waveOps<<<N / 128, 128>>>(DIn, DOut);
  std::vector<LaneOut> Out(N);
  HIP_CHECK(hipMemcpy(Out.data(), DOut, N * sizeof(LaneOut),
                      hipMemcpyDeviceToHost));

  for (int W = 0; W < Waves; ++W) {
    const int *V = &In[W * Wave];
    bool Any = false, All = true;
    unsigned long long Ballot = 0, Ballot3 = 0;
    for (int L = 0; L < Wave; ++L) {
      Any |= V[L] % 97 == 0;
      All &= V[L] > 0;
      if (V[L] & 1)
        Ballot |= 1ull << L;
      if (V[L] % 3 == 0)
        Ballot3 |= 1ull << L;
    }
    for (int L = 0; L < Wave; ++L) {
      const LaneOut &R = Out[W * Wave + L];
      EXPECT(R.WarpSize == 64, "warpSize %d", R.WarpSize);
      EXPECT(R.Shfl == V[(L * 5 + 3) % 64], "shfl wave %d lane %d", W, L);
      EXPECT(R.ShflWidth == V[(L / 16) * 16 + 2], "shfl width lane %d", L);
      EXPECT(R.Up == (L >= 3 ? V[L - 3] : V[L]), "shfl_up lane %d", L);
      EXPECT(R.Down == (L + 5 < 64 ? V[L + 5] : V[L]), "shfl_down lane %d", L);
      EXPECT(R.Xor == V[L ^ 0x13], "shfl_xor lane %d", L);
      EXPECT(R.ShflF == float(V[63 - L]) * 0.5f, "shfl float lane %d", L);
      EXPECT(R.Any == int(Any), "any wave %d", W);
      EXPECT(R.All == int(All), "all wave %d", W);
      EXPECT(R.AllTrue == 1, "all(true) wave %d", W);
      EXPECT(R.Ballot == Ballot, "ballot wave %d: %llx vs %llx", W, R.Ballot,
             Ballot);
      EXPECT(R.PopBallot == __builtin_popcountll(Ballot3), "popc(ballot)");
      EXPECT(R.Shfl64 == (long long)V[L ^ 1] << 33, "shfl 64-bit lane %d", L);
    }
  }

  unsigned long long *DMasks;
  HIP_CHECK(hipMalloc(&DMasks, 4 * sizeof(unsigned long long)));
  divergent<<<2, 64>>>(DMasks);
  unsigned long long Masks[4];
  HIP_CHECK(hipMemcpy(Masks, DMasks, sizeof(Masks), hipMemcpyDeviceToHost));
  for (unsigned long long M : Masks)
    EXPECT(M == 0xAAAAAAAAAAAAAAAAull, "divergent mask %llx", M);

  HIP_CHECK(hipFree(DIn));
  HIP_CHECK(hipFree(DOut));
  HIP_CHECK(hipFree(DMasks));
  std::printf("wave intrinsics ok\n");
  return 0;
}
