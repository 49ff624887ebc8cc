//===- bench/programs/Divergence.hip - Heavily divergent control flow -----===//
//
// Collatz step counts: every lane of a wave leaves its loop at a different
// iteration and takes either arm of the branch in each; checked exactly.
//
//===----------------------------------------------------------------------===//
#include "Program.h"
#include <vector>

constexpr int N = 1 << 16, Block = 256, Reps = 3;

__global__ void collatz(unsigned *Steps, int N) {
  int I = blockIdx.x * Block + threadIdx.x;
  if (I >= N)
    return;
  unsigned long long V = I + 1;
  unsigned S = 0;
  while (V != 1) {
    if (V & 1)
      V = 3 * V + 1;
    else
      V >>= 1;
    ++S;
  }
  Steps[I] = S;
}

int main() {
  bench::Phases Ph;
  unsigned *D;
  HIP_CHECK(hipMalloc(&D, N * sizeof(unsigned)));
  Ph.begin();
  for (int R = 0; R < Reps; ++R) // the same result each time
    collatz<<<N / Block, Block>>>(D, N);
  Ph.end();
  std::vector<unsigned> Got(N);
  HIP_CHECK(hipMemcpy(Got.data(), D, N * sizeof(unsigned),
                      hipMemcpyDeviceToHost));
  for (int I = 0; I < N; ++I) {
    unsigned long long V = I + 1;
    unsigned S = 0;
    for (; V != 1; ++S)
      V = V & 1 ? 3 * V + 1 : V >> 1;
    EXPECT(Got[I] == S, "steps(%d) = %u, host %u", I + 1, Got[I], S);
  }
  return 0;
}
