//===- tests/hip/Fault.hip - An out-of-bounds kernel is an error -----------===//
//
// A kernel that reads far outside any allocation faults on the virtual GPU.
// The process must not crash: the next synchronising call returns
// hipErrorIllegalAddress, and later synchronising calls keep reporting it, as
// CUDA's sticky errors do. HIP 5.2 itself would abort in its queue callback;
// Loom's `loom exec` shim (hsa/HipFaultShim.c) makes this work (docs/hip.md).
//
//===----------------------------------------------------------------------===//
#include "HipTest.h"

__global__ void outOfBounds(const int *In, int *Out, long Stride) {
  int I = threadIdx.x;
  Out[I] = In[I * Stride];
}

int main() {
  int *In, *Out;
  HIP_CHECK(hipMalloc(&In, 64 * sizeof(int)));
  HIP_CHECK(hipMalloc(&Out, 64 * sizeof(int)));
  HIP_CHECK(hipMemset(In, 0, 64 * sizeof(int)));
  // Lane 1 reads 1 TiB past the buffer: no allocation is there.
  outOfBounds<<<1, 64>>>(In, Out, 1l << 38);
  // The launch succeeds; if the kernel has already faulted, the error may be
  // reported here already (as CUDA's asynchronous errors may).
  hipError_t Launch = hipGetLastError();
  EXPECT(Launch == hipSuccess || Launch == hipErrorIllegalAddress,
         "the launch itself failed: %s", hipGetErrorString(Launch));
  hipError_t Sync = hipDeviceSynchronize();
  std::printf("hipDeviceSynchronize after the fault: %s (%d)\n",
              hipGetErrorString(Sync), int(Sync));
  EXPECT(Sync == hipErrorIllegalAddress, "hipDeviceSynchronize returned %s",
         hipGetErrorString(Sync));
  // Sticky: later synchronising calls report it too.
  int Host[64];
  hipError_t Copy = hipMemcpy(Host, Out, sizeof(Host), hipMemcpyDeviceToHost);
  EXPECT(Copy == hipErrorIllegalAddress, "hipMemcpy returned %s",
         hipGetErrorString(Copy));
  EXPECT(hipStreamSynchronize(0) == hipErrorIllegalAddress,
         "hipStreamSynchronize after the fault");
  EXPECT(hipGetLastError() == hipErrorIllegalAddress,
         "hipGetLastError after the fault");
  std::printf("fault reported ok\n");
  return 0;
}
