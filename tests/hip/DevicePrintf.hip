//===- tests/hip/DevicePrintf.hip - printf from device code ----------------===//
//
// Device printf goes through HIP's hostcall buffer, which ROCclr's listener
// thread services. The program captures its own stdout in a file and compares
// the lines (in any order across threads) with the host's formatting of the
// same values.
//
//===----------------------------------------------------------------------===//
#include "HipTest.h"
#include <algorithm>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

__global__ void greet(const float *Values, int Skip) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I % Skip != 0)
    return;
  printf("thread %d of block %d: value %.3f, hex %x, str %s, long %ld\n", I,
         int(blockIdx.x), Values[I], I * 4097, I % 2 ? "odd" : "even",
         (long)I * 100000000000L);
}

__global__ void plain() { printf("no arguments\n"); }

int main() {
  const int Blocks = 3, Threads = 64, N = Blocks * Threads, Skip = 5;
  std::vector<float> Values(N);
  for (int I = 0; I < N; ++I)
    Values[I] = I * 0.125f - 3.0f;
  float *DValues;
  HIP_CHECK(hipMalloc(&DValues, N * sizeof(float)));
  HIP_CHECK(hipMemcpy(DValues, Values.data(), N * sizeof(float),
                      hipMemcpyHostToDevice));

  char Path[] = "/tmp/loom-hip-printf-XXXXXX";
  int Fd = mkstemp(Path);
  EXPECT(Fd >= 0, "mkstemp");
  std::fflush(stdout);
  int Saved = dup(STDOUT_FILENO);
  dup2(Fd, STDOUT_FILENO);
  greet<<<Blocks, Threads>>>(DValues, Skip);
  plain<<<1, 1>>>();
  hipError_t Err = hipDeviceSynchronize();
  std::fflush(stdout);
  dup2(Saved, STDOUT_FILENO);
  close(Saved);
  close(Fd);
  HIP_CHECK(Err);

  std::vector<std::string> Got, Want;
  std::ifstream File(Path);
  for (std::string Line; std::getline(File, Line);)
    Got.push_back(Line);
  unlink(Path);
  char Buf[256];
  for (int I = 0; I < N; I += Skip) {
    std::snprintf(Buf, sizeof(Buf),
                  "thread %d of block %d: value %.3f, hex %x, str %s, long %ld",
                  I, I / Threads, Values[I], I * 4097, I % 2 ? "odd" : "even",
                  (long)I * 100000000000L);
    Want.push_back(Buf);
  }
  Want.push_back("no arguments");
  std::sort(Got.begin(), Got.end());
  std::sort(Want.begin(), Want.end());
  EXPECT(Got.size() == Want.size(), "%zu lines printed, want %zu", Got.size(),
         Want.size());
  for (size_t I = 0; I < Want.size(); ++I)
    EXPECT(Got[I] == Want[I], "line '%s', want '%s'", Got[I].c_str(),
           Want[I].c_str());
  HIP_CHECK(hipFree(DValues));
  std::printf("device printf ok (%zu lines)\n", Got.size());
  return 0;
}
