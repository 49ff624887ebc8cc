//===- bench/programs/Sort.hip - Radix sort (rocPRIM) ---------------------===//
//
// rocprim::radix_sort_pairs of 32-bit keys with their indices as values,
// from Debian's rocPRIM headers; checked against std::stable_sort.
//
//===----------------------------------------------------------------------===//
#include "Program.h"
#include <rocprim/rocprim.hpp>
#include <algorithm>
#include <numeric>
#include <vector>

constexpr int N = 1 << 18, Reps = 3;

int main() {
  bench::Phases Ph;
  std::vector<unsigned> Keys(N), Vals(N);
  for (int I = 0; I < N; ++I)
    Keys[I] = bench::hash(I) % 100000; // repeated keys: stability matters
  std::iota(Vals.begin(), Vals.end(), 0u);
  unsigned *KIn, *KOut, *VIn, *VOut;
  HIP_CHECK(hipMalloc(&KIn, N * sizeof(unsigned)));
  HIP_CHECK(hipMalloc(&KOut, N * sizeof(unsigned)));
  HIP_CHECK(hipMalloc(&VIn, N * sizeof(unsigned)));
  HIP_CHECK(hipMalloc(&VOut, N * sizeof(unsigned)));
  HIP_CHECK(hipMemcpy(KIn, Keys.data(), N * sizeof(unsigned),
                      hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(VIn, Vals.data(), N * sizeof(unsigned),
                      hipMemcpyHostToDevice));
  size_t TempBytes = 0;
  HIP_CHECK(rocprim::radix_sort_pairs(nullptr, TempBytes, KIn, KOut, VIn,
                                      VOut, N));
  void *Temp;
  HIP_CHECK(hipMalloc(&Temp, TempBytes));
  Ph.begin();
  for (int R = 0; R < Reps; ++R) // the same sort of the same input
    HIP_CHECK(rocprim::radix_sort_pairs(Temp, TempBytes, KIn, KOut, VIn,
                                        VOut, N, 0, 17)); // keys < 2^17
  Ph.end();
  std::vector<unsigned> GotK(N), GotV(N);
  HIP_CHECK(hipMemcpy(GotK.data(), KOut, N * sizeof(unsigned),
                      hipMemcpyDeviceToHost));
  HIP_CHECK(hipMemcpy(GotV.data(), VOut, N * sizeof(unsigned),
                      hipMemcpyDeviceToHost));
  std::stable_sort(Vals.begin(), Vals.end(),
                   [&](unsigned A, unsigned B) { return Keys[A] < Keys[B]; });
  for (int I = 0; I < N; ++I) {
    EXPECT(GotV[I] == Vals[I], "value %d = %u, host %u", I, GotV[I], Vals[I]);
    EXPECT(GotK[I] == Keys[Vals[I]], "key %d = %u, host %u", I, GotK[I],
           Keys[Vals[I]]);
  }
  return 0;
}
