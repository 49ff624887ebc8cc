// The loops block counting treats apart (tools/common/Counting.h, docs/
// tools.md "instr_count"), each in a kernel of its own, each result checked
// on the host: LoopsTest.cpp compares the counting tools' counts with the
// virtual GPU's.
//
//  - invariant: a uniform trip count under `if (i < n)`, EXEC the same in
//    every iteration, entered once per wave (lanes taken at the entry);
//  - divergent: a per-lane trip count, EXEC shrinking inside (counted an
//    iteration at a time);
//  - nested: an invariant inner loop inside a divergent outer one (its
//    lanes folded where it is left, once per outer iteration);
//  - someWaves: a loop only odd work-groups' waves enter, two loops in one
//    kernel (the flush skips the loop a wave did not enter);
//  - exits: a loop left by three ways (a break, a return, the bound);
//  - crowded: a loop whose kernel leaves no SGPR for wave counters;
//  - fixed: a loop of six trips the code fixes (counted not at all: the
//    host multiplies the block before's count);
//  - innerIf: a uniform loop with an `if` inside (EXEC written in the body
//    and given back at the join: the loop's own lanes still taken once);
//  - calls: a device function called from three places (once a wave, in a
//    loop, under a divergent `if`), whose entries the host adds up from
//    its calls.
#include <hip/hip_runtime.h>
#include <cstdio>
#include <functional>
#include <vector>

__global__ void invariant(const int *in, int *out, int n, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int Acc = in[i];
    for (int K = 0; K < iters; ++K)
      Acc = Acc * 3 + K;
    out[i] = Acc;
  }
}

__global__ void divergent(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int V = in[i], Steps = 0;
    while (V > 1) {
      V = (V & 1) ? 3 * V + 1 : V / 2;
      ++Steps;
    }
    out[i] = Steps;
  }
}

__global__ void nested(const int *in, const int *table, int *out, int n,
                       int inner) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int Acc = in[i];
  for (int J = 0; J < (in[i] & 7); ++J) // per lane: EXEC shrinks
    for (int K = 0; K < inner; ++K)     // uniform: EXEC stays
      Acc = Acc * 3 + table[K] + J;
  out[i] = Acc;
}

__global__ void someWaves(const int *in, int *out, int n, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int Acc = in[i];
  if (blockIdx.x & 1) {
    for (int K = 0; K < iters; ++K)
      Acc = Acc * 5 + K;
  } else {
    for (int K = 0; K < iters + 2; ++K)
      Acc = Acc * 7 - K;
  }
  out[i] = Acc;
}

// Scalar loads of a table every lane reads alike: a uniform loop left by a
// break, a return (a store on the way out) or its bound.
__global__ void exits(const int *in, const int *table, int *out, int n,
                      int len) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int Acc = in[i];
  for (int K = 0; K < len; ++K) {
    int T = table[K];
    if (T == 0)
      break;
    if (T < 0) {
      out[i] = -Acc;
      return;
    }
    Acc = Acc * 3 + T;
  }
  out[i] = Acc;
}

// The asm statement claims s10..s100 inside the loop: the kernel keeps
// them, and no SGPR is left above for wave counters.
__global__ void crowded(const int *in, int *out, int n, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int Acc = in[i];
  for (int K = 0; K < iters; ++K) {
    __asm__ volatile(
        "" ::
            : "s10", "s11", "s12", "s13", "s14", "s15", "s16", "s17", "s18",
              "s19", "s20", "s21", "s22", "s23", "s24", "s25", "s26", "s27",
              "s28", "s29", "s30", "s31", "s32", "s33", "s34", "s35", "s36",
              "s37", "s38", "s39", "s40", "s41", "s42", "s43", "s44", "s45",
              "s46", "s47", "s48", "s49", "s50", "s51", "s52", "s53", "s54",
              "s55", "s56", "s57", "s58", "s59", "s60", "s61", "s62", "s63",
              "s64", "s65", "s66", "s67", "s68", "s69", "s70", "s71", "s72",
              "s73", "s74", "s75", "s76", "s77", "s78", "s79", "s80", "s81",
              "s82", "s83", "s84", "s85", "s86", "s87", "s88", "s89", "s90",
              "s91", "s92", "s93", "s94", "s95", "s96", "s97", "s98", "s99",
              "s100");
    Acc = Acc * 3 + K;
  }
  out[i] = Acc;
}

__global__ void fixed(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int Acc = in[i];
#pragma clang loop unroll(disable)
  for (int K = 0; K < 6; ++K)
    Acc = Acc * 3 + K;
  out[i] = Acc;
}

__global__ void innerIf(const int *in, int *out, int n, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int Acc = in[i];
  for (int K = 0; K < iters; ++K) {
    if ((Acc & 3) == 0)
      out[i] = K; // a store: the branch stays a branch
    Acc = Acc * 3 + K;
  }
  out[i] = Acc;
}

// Not inlined, so that it stays a function with calls.
__device__ __attribute__((noinline)) int mixed(int X, int K) {
  return X * 3 + K;
}

__global__ void calls(const int *in, int *out, int n, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int Acc = mixed(in[i], 1);
  for (int K = 0; K < iters; ++K)
    Acc = mixed(Acc, K);
  if (in[i] & 1)
    Acc = mixed(Acc, 7);
  out[i] = Acc;
}

#define CHECK(X)                                                               \
  if ((X) != hipSuccess) {                                                     \
    std::fprintf(stderr, "%s failed\n", #X);                                   \
    return 1;                                                                  \
  }

static int steps(int V) {
  int Steps = 0;
  while (V > 1) {
    V = (V & 1) ? 3 * V + 1 : V / 2;
    ++Steps;
  }
  return Steps;
}

int main() {
  const int n = 1000; // the last wave partial
  const int Blocks = (n + 127) / 128;
  std::vector<int> in(n), out(n);
  for (int i = 0; i < n; ++i)
    in[i] = i + 1;
  std::vector<int> table{4, 3, 0, 9};
  int *din, *dout, *dtable;
  CHECK(hipMalloc(&din, n * sizeof(int)));
  CHECK(hipMalloc(&dout, n * sizeof(int)));
  CHECK(hipMalloc(&dtable, table.size() * sizeof(int)));
  CHECK(hipMemcpy(din, in.data(), n * sizeof(int), hipMemcpyHostToDevice));
  CHECK(hipMemcpy(dtable, table.data(), table.size() * sizeof(int),
                  hipMemcpyHostToDevice));
  int Failures = 0;
  auto Check = [&](const char *Kernel, std::function<int(int)> Expected) {
    if (hipMemcpy(out.data(), dout, n * sizeof(int), hipMemcpyDeviceToHost) !=
        hipSuccess) {
      ++Failures;
      return;
    }
    for (int i = 0; i < n; ++i)
      if (out[i] != Expected(i)) {
        std::printf("%s: mismatch at %d: %d\n", Kernel, i, out[i]);
        ++Failures;
        return;
      }
    std::printf("%s ok\n", Kernel);
  };

  hipLaunchKernelGGL(invariant, dim3(Blocks), dim3(128), 0, 0, din, dout, n, 9);
  Check("invariant", [&](int i) {
    int Acc = in[i];
    for (int K = 0; K < 9; ++K)
      Acc = Acc * 3 + K;
    return Acc;
  });
  hipLaunchKernelGGL(divergent, dim3(Blocks), dim3(128), 0, 0, din, dout, n);
  Check("divergent", [&](int i) { return steps(in[i]); });
  hipLaunchKernelGGL(nested, dim3(Blocks), dim3(128), 0, 0, din, dtable, dout,
                     n, 4);
  Check("nested", [&](int i) {
    int Acc = in[i];
    for (int J = 0; J < (in[i] & 7); ++J)
      for (int K = 0; K < 4; ++K)
        Acc = Acc * 3 + table[K] + J;
    return Acc;
  });
  hipLaunchKernelGGL(someWaves, dim3(Blocks), dim3(128), 0, 0, din, dout, n, 6);
  Check("someWaves", [&](int i) {
    int Acc = in[i];
    if ((i / 128) & 1) {
      for (int K = 0; K < 6; ++K)
        Acc = Acc * 5 + K;
    } else {
      for (int K = 0; K < 8; ++K)
        Acc = Acc * 7 - K;
    }
    return Acc;
  });
  hipLaunchKernelGGL(exits, dim3(Blocks), dim3(128), 0, 0, din, dtable, dout,
                     n, 4);
  Check("exits (break)", [&](int i) { return 9 * in[i] + 15; });
  table[1] = -3;
  CHECK(hipMemcpy(dtable, table.data(), table.size() * sizeof(int),
                  hipMemcpyHostToDevice));
  hipLaunchKernelGGL(exits, dim3(Blocks), dim3(128), 0, 0, din, dtable, dout,
                     n, 4);
  Check("exits (return)", [&](int i) { return -(3 * in[i] + 4); });
  table = {1, 2, 3, 4};
  CHECK(hipMemcpy(dtable, table.data(), table.size() * sizeof(int),
                  hipMemcpyHostToDevice));
  hipLaunchKernelGGL(exits, dim3(Blocks), dim3(128), 0, 0, din, dtable, dout,
                     n, 4);
  Check("exits (bound)",
        [&](int i) { return (((in[i] * 3 + 1) * 3 + 2) * 3 + 3) * 3 + 4; });
  hipLaunchKernelGGL(crowded, dim3(Blocks), dim3(128), 0, 0, din, dout, n, 5);
  Check("crowded", [&](int i) {
    int Acc = in[i];
    for (int K = 0; K < 5; ++K)
      Acc = Acc * 3 + K;
    return Acc;
  });
  hipLaunchKernelGGL(fixed, dim3(Blocks), dim3(128), 0, 0, din, dout, n);
  Check("fixed", [&](int i) {
    int Acc = in[i];
    for (int K = 0; K < 6; ++K)
      Acc = Acc * 3 + K;
    return Acc;
  });
  hipLaunchKernelGGL(innerIf, dim3(Blocks), dim3(128), 0, 0, din, dout, n, 7);
  Check("innerIf", [&](int i) {
    int Acc = in[i];
    for (int K = 0; K < 7; ++K)
      Acc = Acc * 3 + K;
    return Acc;
  });
  hipLaunchKernelGGL(calls, dim3(Blocks), dim3(128), 0, 0, din, dout, n, 5);
  Check("calls", [&](int i) {
    int Acc = in[i] * 3 + 1;
    for (int K = 0; K < 5; ++K)
      Acc = Acc * 3 + K;
    if (in[i] & 1)
      Acc = Acc * 3 + 7;
    return Acc;
  });
  return Failures ? 1 : 0;
}
