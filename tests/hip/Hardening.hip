//===- tests/hip/Hardening.hip - Races that must not kill or hang ---------===//
//
// Issue 14, run under `loom exec`, one case per argument:
//   streams       a consumer kernel on one stream waits for a flag that a
//                 producer kernel on another stream sets (kernels of
//                 different queues run concurrently);
//   exit-running  main returns while a kernel (running compiled trace code)
//                 still spins: the process exits cleanly;
//   async-alloc   hipMallocAsync / hipFreeAsync on a stream, then
//                 hipStreamDestroy of that stream returns;
//   timeout       (with --kernel-timeout) a kernel that never ends is
//                 stopped: hipDeviceSynchronize returns hipErrorLaunchFailure.
//
//===----------------------------------------------------------------------===//
#include "HipTest.h"

#include <cstring>
#include <unistd.h>

__global__ void consumer(volatile int *Flag, int *Out) {
  if (threadIdx.x == 0) {
    while (!*Flag)
      ;
    *Out = *Flag + 1;
  }
}

__global__ void producer(volatile int *Flag) {
  if (threadIdx.x == 0)
    *Flag = 41;
}

// ALU work between reads of the flag: the trace compiler compiles it.
__global__ void spinCompiled(volatile int *Flag, unsigned *Out) {
  unsigned X = threadIdx.x;
  while (!*Flag)
    for (int I = 0; I < 16; ++I)
      X = X * 2654435761u + (X >> 7) + I;
  Out[threadIdx.x] = X;
}

static int streams() {
  int *Flag, *Out;
  HIP_CHECK(hipMalloc(&Flag, sizeof(int)));
  HIP_CHECK(hipMalloc(&Out, sizeof(int)));
  HIP_CHECK(hipMemset(Flag, 0, sizeof(int)));
  HIP_CHECK(hipDeviceSynchronize());
  hipStream_t A, B;
  HIP_CHECK(hipStreamCreateWithFlags(&A, hipStreamNonBlocking));
  HIP_CHECK(hipStreamCreateWithFlags(&B, hipStreamNonBlocking));
  consumer<<<1, 64, 0, A>>>(Flag, Out);
  producer<<<1, 64, 0, B>>>(Flag);
  HIP_CHECK(hipStreamSynchronize(A));
  HIP_CHECK(hipStreamSynchronize(B));
  int Host = 0;
  HIP_CHECK(hipMemcpy(&Host, Out, sizeof(int), hipMemcpyDeviceToHost));
  EXPECT(Host == 42, "consumer saw %d", Host);
  HIP_CHECK(hipStreamDestroy(A));
  HIP_CHECK(hipStreamDestroy(B));
  std::printf("streams ok\n");
  return 0;
}

static int exitRunning() {
  int *Flag;
  unsigned *Out;
  HIP_CHECK(hipMalloc(&Flag, sizeof(int)));
  HIP_CHECK(hipMalloc(&Out, 64 * sizeof(unsigned)));
  HIP_CHECK(hipMemset(Flag, 0, sizeof(int)));
  HIP_CHECK(hipDeviceSynchronize());
  spinCompiled<<<4, 64>>>(Flag, Out);
  HIP_CHECK(hipGetLastError());
  // Long enough for the loop's trace to be compiled and running.
  usleep(300000);
  std::printf("returning while the kernel runs\n");
  std::fflush(stdout);
  return 0;
}

static int asyncAlloc() {
  hipStream_t S;
  HIP_CHECK(hipStreamCreate(&S));
  void *P = nullptr;
  HIP_CHECK(hipMallocAsync(&P, 4096, S));
  HIP_CHECK(hipMemsetAsync(P, 1, 4096, S));
  HIP_CHECK(hipFreeAsync(P, S));
  HIP_CHECK(hipStreamSynchronize(S));
  HIP_CHECK(hipStreamDestroy(S));
  std::printf("async-alloc ok\n");
  return 0;
}

static int timeout() {
  int *Flag;
  unsigned *Out;
  HIP_CHECK(hipMalloc(&Flag, sizeof(int)));
  HIP_CHECK(hipMalloc(&Out, 64 * sizeof(unsigned)));
  HIP_CHECK(hipMemset(Flag, 0, sizeof(int)));
  spinCompiled<<<1, 64>>>(Flag, Out);
  hipError_t S = hipDeviceSynchronize();
  EXPECT(S == hipErrorLaunchFailure, "hipDeviceSynchronize returned %s",
         hipGetErrorString(S));
  std::printf("timeout reported ok\n");
  return 0;
}

int main(int Argc, char **Argv) {
  const char *Case = Argc > 1 ? Argv[1] : "";
  if (!std::strcmp(Case, "streams"))
    return streams();
  if (!std::strcmp(Case, "exit-running"))
    return exitRunning();
  if (!std::strcmp(Case, "async-alloc"))
    return asyncAlloc();
  if (!std::strcmp(Case, "timeout"))
    return timeout();
  std::fprintf(stderr, "usage: %s streams|exit-running|async-alloc|timeout\n",
               Argv[0]);
  return 2;
}
