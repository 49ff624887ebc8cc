// The program the tool tests instrument: three dispatches of two kernels,
// one with partial waves and a call, one with a data-dependent loop. It
// checks its results on the host and prints them on stdout, which
// instrumentation must leave unchanged.
#include <hip/hip_runtime.h>
#include <cstdio>
#include <vector>

__global__ void scale(float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= a;
}

__device__ __attribute__((noinline)) int collatzSteps(int v) {
  int Steps = 0;
  while (v > 1) {
    v = (v & 1) ? 3 * v + 1 : v / 2;
    ++Steps;
  }
  return Steps;
}

__global__ void steps(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = collatzSteps(in[i]);
}

static int hostSteps(int v) {
  int Steps = 0;
  while (v > 1) {
    v = (v & 1) ? 3 * v + 1 : v / 2;
    ++Steps;
  }
  return Steps;
}

#define CHECK(X)                                                               \
  if ((X) != hipSuccess) {                                                     \
    std::fprintf(stderr, "%s failed\n", #X);                                   \
    return 1;                                                                  \
  }

int main() {
  const int n = 1000; // not a multiple of 64: the last wave is partial
  std::vector<float> x(n);
  std::vector<int> in(n), out(n);
  for (int i = 0; i < n; ++i) {
    x[i] = float(i);
    in[i] = i + 1;
  }
  float *dx;
  int *din, *dout;
  CHECK(hipMalloc(&dx, n * sizeof(float)));
  CHECK(hipMalloc(&din, n * sizeof(int)));
  CHECK(hipMalloc(&dout, n * sizeof(int)));
  CHECK(hipMemcpy(dx, x.data(), n * sizeof(float), hipMemcpyHostToDevice));
  CHECK(hipMemcpy(din, in.data(), n * sizeof(int), hipMemcpyHostToDevice));
  hipLaunchKernelGGL(scale, dim3((n + 255) / 256), dim3(256), 0, 0, dx, 2.0f, n);
  hipLaunchKernelGGL(steps, dim3((n + 127) / 128), dim3(128), 0, 0, din, dout, n);
  hipLaunchKernelGGL(scale, dim3((n + 255) / 256), dim3(256), 0, 0, dx, 0.5f, n);
  CHECK(hipMemcpy(x.data(), dx, n * sizeof(float), hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(out.data(), dout, n * sizeof(int), hipMemcpyDeviceToHost));
  long Total = 0;
  for (int i = 0; i < n; ++i) {
    if (x[i] != float(i) || out[i] != hostSteps(in[i])) {
      std::printf("mismatch at %d\n", i);
      return 1;
    }
    Total += out[i];
  }
  std::printf("scale ok\nsteps ok, %ld steps in all\n", Total);
  return 0;
}
