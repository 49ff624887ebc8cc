//===- tests/hip/Module.hip - hipModule* on code objects from clang-22 -----===//
//
// Loads bare code objects built by clang-22 from ModuleKernels.c (paths on
// the command line) with hipModuleLoadData, sets a global through
// hipModuleGetGlobal, and launches with hipModuleLaunchKernel, with
// kernelParams and with the "extra" buffer. An argument "unsupported:PATH"
// names a code object HIP 5.2 cannot load (code object v5 and later: its comgr
// does not know them): loading must fail with hipErrorSharedObjectInitFailed.
//
//===----------------------------------------------------------------------===//
#include "HipTest.h"
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

static std::vector<char> readFile(const char *Path) {
  std::ifstream F(Path, std::ios::binary);
  EXPECT(F.good(), "cannot open %s", Path);
  return std::vector<char>(std::istreambuf_iterator<char>(F), {});
}

static void runModule(const char *Path) {
  std::vector<char> Image = readFile(Path);
  hipModule_t Mod;
  HIP_CHECK(hipModuleLoadData(&Mod, Image.data()));
  hipFunction_t Axpb, GroupSums;
  HIP_CHECK(hipModuleGetFunction(&Axpb, Mod, "axpb"));
  HIP_CHECK(hipModuleGetFunction(&GroupSums, Mod, "groupSums"));
  hipFunction_t Missing;
  EXPECT(hipModuleGetFunction(&Missing, Mod, "noSuchKernel") ==
             hipErrorNotFound,
         "a missing kernel was found");

  hipDeviceptr_t Bias;
  size_t BiasSize = 0;
  HIP_CHECK(hipModuleGetGlobal(&Bias, &BiasSize, Mod, "module_bias"));
  EXPECT(BiasSize == sizeof(int), "module_bias size %zu", BiasSize);
  const int HostBias = 1000;
  HIP_CHECK(hipMemcpyHtoD(Bias, const_cast<int *>(&HostBias), sizeof(int)));

  const int N = 1000;
  std::vector<int> In(N), Out(N);
  for (int I = 0; I < N; ++I)
    In[I] = I * 3 - 500;
  int *DIn, *DOut;
  HIP_CHECK(hipMalloc(&DIn, N * sizeof(int)));
  HIP_CHECK(hipMalloc(&DOut, N * sizeof(int)));
  HIP_CHECK(hipMemcpy(DIn, In.data(), N * sizeof(int), hipMemcpyHostToDevice));

  // kernelParams: one pointer per argument.
  int A = -3, B = 7, Count = N;
  void *Params[] = {&DOut, &DIn, &A, &B, &Count};
  HIP_CHECK(hipModuleLaunchKernel(Axpb, (N + 127) / 128, 1, 1, 128, 1, 1, 0,
                                  nullptr, Params, nullptr));
  HIP_CHECK(hipMemcpy(Out.data(), DOut, N * sizeof(int),
                      hipMemcpyDeviceToHost));
  for (int I = 0; I < N; ++I)
    EXPECT(Out[I] == A * In[I] + B + HostBias, "%s: axpb [%d] = %d", Path, I,
           Out[I]);

  // "extra": the packed argument buffer, laid out as the kernel expects.
  struct {
    int *Out;
    const int *In;
    int A, B, N;
  } Packed = {DOut, DIn, 5, -1, N};
  size_t PackedSize = sizeof(Packed);
  void *Extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &Packed,
                   HIP_LAUNCH_PARAM_BUFFER_SIZE, &PackedSize,
                   HIP_LAUNCH_PARAM_END};
  hipStream_t S;
  HIP_CHECK(hipStreamCreate(&S));
  HIP_CHECK(hipModuleLaunchKernel(Axpb, (N + 63) / 64, 1, 1, 64, 1, 1, 0, S,
                                  nullptr, Extra));
  HIP_CHECK(hipStreamSynchronize(S));
  HIP_CHECK(hipMemcpy(Out.data(), DOut, N * sizeof(int),
                      hipMemcpyDeviceToHost));
  for (int I = 0; I < N; ++I)
    EXPECT(Out[I] == 5 * In[I] - 1 + HostBias, "%s: extra [%d] = %d", Path, I,
           Out[I]);

  // Dynamic LDS given as sharedMemBytes.
  const int Threads = 200, Groups = N / Threads;
  long *DSums;
  HIP_CHECK(hipMalloc(&DSums, Groups * sizeof(long)));
  void *Params2[] = {&DSums, &DIn};
  HIP_CHECK(hipModuleLaunchKernel(GroupSums, Groups, 1, 1, Threads, 1, 1,
                                  Threads * sizeof(int), S, Params2, nullptr));
  std::vector<long> Sums(Groups);
  HIP_CHECK(hipMemcpyAsync(Sums.data(), DSums, Groups * sizeof(long),
                           hipMemcpyDeviceToHost, S));
  HIP_CHECK(hipStreamSynchronize(S));
  for (int G = 0; G < Groups; ++G) {
    long Want = 0;
    for (int T = 0; T < Threads; ++T)
      Want += In[G * Threads + T];
    EXPECT(Sums[G] == Want, "%s: group %d sum %ld, want %ld", Path, G,
           Sums[G], Want);
  }

  HIP_CHECK(hipStreamDestroy(S));
  HIP_CHECK(hipFree(DIn));
  HIP_CHECK(hipFree(DOut));
  HIP_CHECK(hipFree(DSums));
  HIP_CHECK(hipModuleUnload(Mod));
}

int main(int Argc, char **Argv) {
  EXPECT(Argc >= 2, "usage: %s CODE_OBJECT...", Argv[0]);
  for (int I = 1; I < Argc; ++I) {
    std::string Arg = Argv[I];
    if (Arg.rfind("unsupported:", 0) == 0) {
      std::vector<char> Image = readFile(Arg.c_str() + 12);
      hipModule_t Mod;
      hipError_t E = hipModuleLoadData(&Mod, Image.data());
      EXPECT(E == hipErrorSharedObjectInitFailed, "%s: %s", Arg.c_str(),
             hipGetErrorString(E));
      (void)hipGetLastError();
      std::printf("%s refused: %s\n", Arg.c_str() + 12, hipGetErrorString(E));
      continue;
    }
    runModule(Argv[I]);
    std::printf("%s ok\n", Argv[I]);
  }
  std::printf("modules ok\n");
  return 0;
}
