// Launch by symbol in a HIP program (LLVM review D86376's use case): the
// kernels are compiled by hipcc into the program as usual, HIP's runtime
// loads them, and the host launches them by their mangled names through
// loom::kernel_ref -- no __device_stub_, no <<<>>>, no module handle.
#include "HipTest.h"

#include "loom/jit/KernelRef.h"

#include <vector>

__global__ void scale(float *p, int n, float by) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] *= by;
}

__global__ void iota2d(int *out, int width) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  out[y * width + x] = y * 1000 + x + int(gridDim.x * blockDim.x);
}

int main() {
  // HIP loads its code objects lazily; this makes it load them now.
  hipFuncAttributes Attr;
  HIP_CHECK(hipFuncGetAttributes(&Attr, reinterpret_cast<const void *>(&scale)));

  const int N = 1000;
  std::vector<float> Host(N);
  for (int I = 0; I < N; ++I)
    Host[I] = I;
  float *Dev;
  HIP_CHECK(hipMalloc(&Dev, N * sizeof(float)));
  HIP_CHECK(hipMemcpy(Dev, Host.data(), N * sizeof(float),
                      hipMemcpyHostToDevice));

  loom::kernel_ref<void(float *, int, float)> Scale{"_Z5scalePfif"};
  hsa_status_t S = Scale.launch({(N + 127) / 128}, {128}, Dev, N, 3.0f).wait();
  EXPECT(S == HSA_STATUS_SUCCESS, "launch of _Z5scalePfif: status 0x%x",
         unsigned(S));
  HIP_CHECK(hipMemcpy(Host.data(), Dev, N * sizeof(float),
                      hipMemcpyDeviceToHost));
  for (int I = 0; I < N; ++I)
    EXPECT(Host[I] == 3.0f * I, "p[%d] = %f", I, Host[I]);

  // Two dimensions; blockDim and gridDim come from the dispatch packet and
  // the hidden arguments.
  const int W = 32, H = 8;
  int *Out;
  HIP_CHECK(hipMalloc(&Out, W * H * sizeof(int)));
  loom::kernel_ref<void(int *, int)> Iota{"_Z6iota2dPii"};
  S = Iota.launch({W / 16, H / 4}, {16, 4}, Out, W).wait();
  EXPECT(S == HSA_STATUS_SUCCESS, "launch of _Z6iota2dPii: status 0x%x",
         unsigned(S));
  std::vector<int> O(W * H);
  HIP_CHECK(hipMemcpy(O.data(), Out, W * H * sizeof(int),
                      hipMemcpyDeviceToHost));
  for (int Y = 0; Y < H; ++Y)
    for (int X = 0; X < W; ++X)
      EXPECT(O[Y * W + X] == Y * 1000 + X + W, "out[%d][%d] = %d", Y, X,
             O[Y * W + X]);

  loom::kernel_ref<void(int *, int)> Missing{"_Z7missingPii"};
  EXPECT(Missing.launch({1}, {1}, Out, 0).status() ==
             HSA_STATUS_ERROR_INVALID_SYMBOL_NAME,
         "an unknown symbol is refused");
  HIP_CHECK(hipFree(Dev));
  HIP_CHECK(hipFree(Out));
  std::printf("kernel_ref: 2 kernels launched by symbol, results checked\n");
  return 0;
}
