// The program the channel tests instrument: two dispatches of axpy over n
// elements (4000 unless argv[1] says), in work-groups of 256 (four full
// waves) and of 96 (a wave and a half), so the grids end past n. It checks
// its result on the host and prints it on stdout.
#include <hip/hip_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void axpy(const float *x, float *y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

#define CHECK(X)                                                               \
  if ((X) != hipSuccess) {                                                     \
    std::fprintf(stderr, "%s failed\n", #X);                                   \
    return 1;                                                                  \
  }

int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 4000;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = float(i % 1000);
    y[i] = float(i % 7);
  }
  float *dx, *dy;
  CHECK(hipMalloc(&dx, n * sizeof(float)));
  CHECK(hipMalloc(&dy, n * sizeof(float)));
  CHECK(hipMemcpy(dx, x.data(), n * sizeof(float), hipMemcpyHostToDevice));
  CHECK(hipMemcpy(dy, y.data(), n * sizeof(float), hipMemcpyHostToDevice));
  hipLaunchKernelGGL(axpy, dim3((n + 255) / 256), dim3(256), 0, 0, dx, dy,
                     2.0f, n);
  hipLaunchKernelGGL(axpy, dim3((n + 95) / 96), dim3(96), 0, 0, dx, dy, 3.0f,
                     n);
  CHECK(hipMemcpy(y.data(), dy, n * sizeof(float), hipMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    if (y[i] != float(i % 7) + 5.0f * float(i % 1000)) {
      std::printf("mismatch at %d: %f\n", i, y[i]);
      return 1;
    }
  std::printf("axpy ok, n=%d\n", n);
  return 0;
}
