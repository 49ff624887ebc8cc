//===- tests/hip/CooperativeGroups.hip - Cooperative-groups synchronisation ===//
//
// thread_block::sync() between the phases of a block-wide computation, tiled
// partitions, and grid_group::sync() in a kernel started with
// hipLaunchCooperativeKernel, where every block must see the others' writes.
//
//===----------------------------------------------------------------------===//
#include "HipTest.h"
#include <hip/hip_cooperative_groups.h>
#include <vector>

namespace cg = cooperative_groups;

// Prefix sums of each block's slice (Hillis-Steele), one block.sync() a step.
__global__ void blockScan(const int *In, int *Out) {
  cg::thread_block Block = cg::this_thread_block();
  __shared__ int Buf[2][256];
  int T = Block.thread_rank();
  int Base = blockIdx.x * Block.size();
  int Cur = 0;
  Buf[Cur][T] = In[Base + T];
  Block.sync();
  for (unsigned Off = 1; Off < Block.size(); Off *= 2) {
    int V = Buf[Cur][T];
    if (T >= int(Off))
      V += Buf[Cur][T - Off];
    Buf[1 - Cur][T] = V;
    Cur = 1 - Cur;
    Block.sync();
  }
  Out[Base + T] = Buf[Cur][T];
}

// Sums of each 16-thread tile of a block, synchronised with the tile only.
__global__ void tileSums(const int *In, int *Out) {
  cg::thread_block Block = cg::this_thread_block();
  cg::thread_group Tile = cg::tiled_partition(Block, 16);
  __shared__ int Buf[256];
  int T = Block.thread_rank();
  Buf[T] = In[blockIdx.x * Block.size() + T];
  Tile.sync();
  int First = T - Tile.thread_rank();
  if (Tile.thread_rank() == 0) {
    int Sum = 0;
    for (unsigned K = 0; K < Tile.size(); ++K)
      Sum += Buf[First + K];
    Out[(blockIdx.x * Block.size() + T) / 16] = Sum;
  }
}

// Each block writes its slice, the grid synchronises, then each block reads
// a slice written by another block.
__global__ void gridRotate(int *Data, int *Out, int *Phases) {
  cg::grid_group Grid = cg::this_grid();
  int Per = blockDim.x;
  int B = blockIdx.x, T = threadIdx.x;
  Data[B * Per + T] = B * 1000 + T;
  if (T == 0)
    atomicAdd(&Phases[0], 1);
  Grid.sync();
  int From = (B + 1) % gridDim.x;
  Out[B * Per + T] = Data[From * Per + T];
  if (T == 0)
    Phases[1 + B] = atomicAdd(&Phases[0], 0);
}

int main() {
  const int Blocks = 8, Threads = 256, N = Blocks * Threads;
  std::vector<int> In(N);
  for (int I = 0; I < N; ++I)
    In[I] = (I * 31) % 17 - 8;
  int *DIn, *DOut;
  HIP_CHECK(hipMalloc(&DIn, N * sizeof(int)));
  HIP_CHECK(hipMalloc(&DOut, N * sizeof(int)));
  HIP_CHECK(hipMemcpy(DIn, In.data(), N * sizeof(int), hipMemcpyHostToDevice));
  blockScan<<<Blocks, Threads>>>(DIn, DOut);
  std::vector<int> Out(N);
  HIP_CHECK(hipMemcpy(Out.data(), DOut, N * sizeof(int),
                      hipMemcpyDeviceToHost));
  for (int B = 0; B < Blocks; ++B) {
    int Sum = 0;
    for (int T = 0; T < Threads; ++T) {
      Sum += In[B * Threads + T];
      EXPECT(Out[B * Threads + T] == Sum, "scan block %d thread %d", B, T);
    }
  }

  tileSums<<<Blocks, Threads>>>(DIn, DOut);
  HIP_CHECK(hipMemcpy(Out.data(), DOut, N / 16 * sizeof(int),
                      hipMemcpyDeviceToHost));
  for (int G = 0; G < N / 16; ++G) {
    int Sum = 0;
    for (int K = 0; K < 16; ++K)
      Sum += In[G * 16 + K];
    EXPECT(Out[G] == Sum, "tile %d: %d, want %d", G, Out[G], Sum);
  }

  int Supported = 0;
  HIP_CHECK(hipDeviceGetAttribute(&Supported, hipDeviceAttributeCooperativeLaunch,
                                  0));
  const int GBlocks = 4, GThreads = 64;
  int *DData, *DPhases;
  HIP_CHECK(hipMalloc(&DData, GBlocks * GThreads * sizeof(int)));
  HIP_CHECK(hipMalloc(&DPhases, (1 + GBlocks) * sizeof(int)));
  HIP_CHECK(hipMemset(DPhases, 0, (1 + GBlocks) * sizeof(int)));
  HIP_CHECK(hipMemset(DOut, 0xff, N * sizeof(int)));
  void *Args[] = {&DData, &DOut, &DPhases};
  if (!Supported) {
    // Grid barriers need GWS (ds_gws_init/ds_gws_barrier), which the virtual
    // GPU does not model: the agent has no cooperative queues, so HIP refuses
    // the launch with an error instead of running it (docs/hip.md).
    hipError_t E = hipLaunchCooperativeKernel(
        reinterpret_cast<void *>(gridRotate), dim3(GBlocks), dim3(GThreads),
        Args, 0, 0);
    EXPECT(E == hipErrorLaunchFailure, "cooperative launch: %s",
           hipGetErrorString(E));
    (void)hipGetLastError();
    std::printf("cooperative launch refused: %s\n", hipGetErrorString(E));
  } else {
    HIP_CHECK(hipLaunchCooperativeKernel(
        reinterpret_cast<void *>(gridRotate), dim3(GBlocks), dim3(GThreads),
        Args, 0, 0));
    HIP_CHECK(hipDeviceSynchronize());
    HIP_CHECK(hipMemcpy(Out.data(), DOut, GBlocks * GThreads * sizeof(int),
                        hipMemcpyDeviceToHost));
    for (int B = 0; B < GBlocks; ++B)
      for (int T = 0; T < GThreads; ++T)
        EXPECT(Out[B * GThreads + T] == ((B + 1) % GBlocks) * 1000 + T,
               "grid sync block %d thread %d: %d", B, T,
               Out[B * GThreads + T]);
    int Phases[1 + GBlocks];
    HIP_CHECK(
        hipMemcpy(Phases, DPhases, sizeof(Phases), hipMemcpyDeviceToHost));
    // Every block passed the grid barrier only after all had arrived.
    for (int B = 0; B < GBlocks; ++B)
      EXPECT(Phases[1 + B] == GBlocks, "block %d saw %d arrivals", B,
             Phases[1 + B]);
  }

  HIP_CHECK(hipFree(DIn));
  HIP_CHECK(hipFree(DOut));
  HIP_CHECK(hipFree(DData));
  HIP_CHECK(hipFree(DPhases));
  std::printf("cooperative groups ok\n");
  return 0;
}
