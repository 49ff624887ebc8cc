//===- bench/hip/Startup.hip - Phases of a HIP program's start-up ---------===//
//
// Prints, in milliseconds since main: HIP initialisation (hipInit: HSA init,
// agents, comgr), the first memory operation (ROCclr compiles its blit
// kernels from OpenCL C with comgr, then runs one on the virtual GPU), the
// first user kernel (loads the program's code object), and the same kernel
// again (a warm dispatch). Run by bench/hip_bench.py.
//
//===----------------------------------------------------------------------===//
#include <hip/hip_runtime.h>
#include <chrono>
#include <cstdio>

__global__ void touch(int *P) { P[threadIdx.x] = threadIdx.x; }

static double msSince(std::chrono::steady_clock::time_point T0) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - T0)
      .count();
}

int main() {
  auto T0 = std::chrono::steady_clock::now();
  if (hipInit(0) != hipSuccess)
    return 1;
  int Count = 0;
  (void)hipGetDeviceCount(&Count);
  double Init = msSince(T0);
  int *P = nullptr;
  if (hipMalloc(&P, 256) != hipSuccess ||
      hipMemset(P, 0, 256) != hipSuccess ||
      hipDeviceSynchronize() != hipSuccess)
    return 1;
  double Blit = msSince(T0);
  touch<<<1, 64>>>(P);
  if (hipDeviceSynchronize() != hipSuccess)
    return 1;
  double First = msSince(T0);
  touch<<<1, 64>>>(P);
  if (hipDeviceSynchronize() != hipSuccess)
    return 1;
  double Second = msSince(T0);
  std::printf("init %.1f blit %.1f first_kernel %.1f warm_kernel %.1f\n", Init,
              Blit - Init, First - Blit, Second - First);
  return 0;
}
