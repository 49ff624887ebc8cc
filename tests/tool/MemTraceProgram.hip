// The program mem_trace's tests trace (MemTraceTest.cpp): flat accesses
// that reach LDS and global memory through one generic pointer, an LDS
// store with a stride of 32 dwords (every lane of a half-wave on one
// bank: 32-way conflicts) and strided global accesses (a 64-byte line per
// lane), on work-groups of 96 (a wave and a half). It checks its results
// on the host and prints them. A second kernel keeps an array on the
// stack (buffer instructions).
#include <hip/hip_runtime.h>
#include <cstdio>
#include <vector>

constexpr int Group = 96, Groups = 3, Stride = 16; // 16 ints: 64 bytes

// Not inlined, so its pointer stays generic: flat_load/flat_store, which
// the hardware routes to LDS or global memory by the address.
__device__ __attribute__((noinline)) void bump(int *P, int V) { *P += V; }

__global__ void mixed(int *Out) {
  __shared__ int Tile[Group * 32];
  int T = threadIdx.x;
  for (int I = T; I < Group * 32; I += Group)
    Tile[I] = 0;
  __syncthreads();
  Tile[T * 32] = T; // 32 dwords apart: one bank
  __syncthreads();
  bump(&Tile[T * 32], 1);                          // flat -> LDS
  bump(&Out[(blockIdx.x * Group + T) * Stride], Tile[T * 32]); // flat -> global
}

// A private array indexed at run time lives in scratch: on gfx90a,
// buffer_store/buffer_load through the private segment buffer (s[0:3]).
__global__ void stack(int *Out, int K) {
  int A[40];
  int T = threadIdx.x;
  for (int I = 0; I < 40; ++I)
    A[I] = T * I + K;
  Out[T] = A[(T + K) % 40] + A[(T * 7) % 40];
}

int main() {
  const int N = Group * Groups * Stride;
  std::vector<int> Host(N, 7);
  int *Dev;
  if (hipMalloc(&Dev, N * sizeof(int)) != hipSuccess ||
      hipMemcpy(Dev, Host.data(), N * sizeof(int), hipMemcpyHostToDevice) !=
          hipSuccess)
    return 1;
  hipLaunchKernelGGL(mixed, dim3(Groups), dim3(Group), 0, 0, Dev);
  if (hipMemcpy(Host.data(), Dev, N * sizeof(int), hipMemcpyDeviceToHost) !=
      hipSuccess)
    return 1;
  int *Stack;
  std::vector<int> Got(Group);
  if (hipMalloc(&Stack, Group * sizeof(int)) != hipSuccess)
    return 1;
  hipLaunchKernelGGL(stack, dim3(1), dim3(Group), 0, 0, Stack, 3);
  if (hipMemcpy(Got.data(), Stack, Group * sizeof(int),
                hipMemcpyDeviceToHost) != hipSuccess)
    return 1;
  bool StackOk = true;
  for (int T = 0; T < Group; ++T)
    StackOk = StackOk && Got[T] == T * ((T + 3) % 40) + 3 + T * ((T * 7) % 40) + 3;
  std::printf("stack %s\n", StackOk ? "ok" : "WRONG");
  long Sum = 0;
  bool Ok = true;
  for (int I = 0; I < N; ++I) {
    int T = (I / Stride) % Group;
    int Want = I % Stride ? 7 : 7 + T + 1;
    Ok = Ok && Host[I] == Want;
    Sum += Host[I];
  }
  std::printf("mixed %s, sum %ld\n", Ok ? "ok" : "WRONG", Sum);
  return Ok && StackOk ? 0 : 1;
}
