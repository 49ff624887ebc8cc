//===- tests/hip/Memory.hip - Allocation, copies and memsets ---------------===//
//
// hipMalloc/hipFree/hipHostMalloc/hipMallocManaged; hipMemcpy in every
// direction, async and 2D; hipMemset 8/16/32-bit and async. Every result is
// read back and compared with the same operation done on the host.
//
//===----------------------------------------------------------------------===//
#include "HipTest.h"
#include <cstdint>
#include <cstring>
#include <vector>

__global__ void addOne(int *Data, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Data[I] += 1;
}

static void checkInts(const int *Got, const std::vector<int> &Want,
                      const char *What) {
  for (size_t I = 0; I < Want.size(); ++I)
    EXPECT(Got[I] == Want[I], "%s[%zu] = %d, want %d", What, I, Got[I],
           Want[I]);
}

int main() {
  const int N = 10000;
  const size_t Bytes = N * sizeof(int);
  std::vector<int> Host(N), Back(N), Want(N);
  for (int I = 0; I < N; ++I)
    Host[I] = I * 7 - 3;

  // Host -> device -> device -> host, with a kernel in between.
  int *DevA = nullptr, *DevB = nullptr;
  HIP_CHECK(hipMalloc(&DevA, Bytes));
  HIP_CHECK(hipMalloc(&DevB, Bytes));
  EXPECT(DevA && DevB && DevA != DevB, "allocations");
  HIP_CHECK(hipMemcpy(DevA, Host.data(), Bytes, hipMemcpyHostToDevice));
  addOne<<<(N + 255) / 256, 256>>>(DevA, N);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(DevB, DevA, Bytes, hipMemcpyDeviceToDevice));
  HIP_CHECK(hipMemcpy(Back.data(), DevB, Bytes, hipMemcpyDeviceToHost));
  for (int I = 0; I < N; ++I)
    Want[I] = Host[I] + 1;
  checkInts(Back.data(), Want, "H2D/D2D/D2H");

  // Pinned host memory, host -> host and hipMemcpyDefault (unified addressing).
  int *Pinned = nullptr, *Pinned2 = nullptr;
  HIP_CHECK(hipHostMalloc(&Pinned, Bytes));
  HIP_CHECK(hipHostMalloc(&Pinned2, Bytes, hipHostMallocDefault));
  HIP_CHECK(hipMemcpy(Pinned, Host.data(), Bytes, hipMemcpyHostToHost));
  HIP_CHECK(hipMemcpy(DevA, Pinned, Bytes, hipMemcpyDefault));
  addOne<<<(N + 255) / 256, 256>>>(DevA, N);
  HIP_CHECK(hipMemcpy(Pinned2, DevA, Bytes, hipMemcpyDefault));
  checkInts(Pinned2, Want, "pinned");
  // A kernel may use pinned host memory directly.
  addOne<<<(N + 255) / 256, 256>>>(Pinned2, N);
  HIP_CHECK(hipDeviceSynchronize());
  for (int I = 0; I < N; ++I)
    Want[I] = Host[I] + 2;
  checkInts(Pinned2, Want, "kernel on pinned");
  void *DevPtr = nullptr;
  HIP_CHECK(hipHostGetDevicePointer(&DevPtr, Pinned2, 0));
  EXPECT(DevPtr != nullptr, "device pointer of pinned memory");

  // Managed memory: written by the host, updated by a kernel, read back.
  int *Managed = nullptr;
  HIP_CHECK(hipMallocManaged(&Managed, Bytes));
  for (int I = 0; I < N; ++I)
    Managed[I] = Host[I];
  addOne<<<(N + 255) / 256, 256>>>(Managed, N);
  HIP_CHECK(hipDeviceSynchronize());
  for (int I = 0; I < N; ++I)
    Want[I] = Host[I] + 1;
  checkInts(Managed, Want, "managed");

  // Async copies on a stream, both directions, through pinned memory.
  hipStream_t S;
  HIP_CHECK(hipStreamCreate(&S));
  for (int I = 0; I < N; ++I)
    Pinned[I] = -I;
  HIP_CHECK(hipMemcpyAsync(DevB, Pinned, Bytes, hipMemcpyHostToDevice, S));
  addOne<<<(N + 255) / 256, 256, 0, S>>>(DevB, N);
  HIP_CHECK(hipMemcpyAsync(DevA, DevB, Bytes, hipMemcpyDeviceToDevice, S));
  HIP_CHECK(hipMemcpyAsync(Pinned2, DevA, Bytes, hipMemcpyDeviceToHost, S));
  HIP_CHECK(hipStreamSynchronize(S));
  for (int I = 0; I < N; ++I)
    Want[I] = -I + 1;
  checkInts(Pinned2, Want, "async");

  // 2D copies: a W x H sub-rectangle of a pitched device allocation.
  // hipMallocPitch needs image support in HIP 5.2, which Loom's agent does
  // not report: it fails with hipErrorInvalidValue (see docs/hip.md).
  const size_t W = 37, H = 19;
  size_t Pitch = 0;
  char *Dev2D = nullptr;
  EXPECT(hipMallocPitch((void **)&Dev2D, &Pitch, W, H) == hipErrorInvalidValue,
         "hipMallocPitch without image support");
  (void)hipGetLastError();
  Pitch = 64;
  HIP_CHECK(hipMalloc(&Dev2D, Pitch * H));
  std::vector<char> Src(W * H), Dst(W * H, 0);
  for (size_t I = 0; I < Src.size(); ++I)
    Src[I] = char(I * 13 + 5);
  HIP_CHECK(hipMemcpy2D(Dev2D, Pitch, Src.data(), W, W, H,
                        hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy2DAsync(Dst.data(), W, Dev2D, Pitch, W, H,
                             hipMemcpyDeviceToHost, S));
  HIP_CHECK(hipStreamSynchronize(S));
  EXPECT(std::memcmp(Src.data(), Dst.data(), Src.size()) == 0, "2D copy");
  // Device to device 2D, then back through a narrower host pitch.
  char *Dev2DB = nullptr;
  size_t PitchB = 48;
  HIP_CHECK(hipMalloc(&Dev2DB, PitchB * H));
  HIP_CHECK(hipMemcpy2D(Dev2DB, PitchB, Dev2D, Pitch, W, H,
                        hipMemcpyDeviceToDevice));
  std::vector<char> Half(W / 2 * H, 0);
  HIP_CHECK(hipMemcpy2D(Half.data(), W / 2, Dev2DB, PitchB, W / 2, H,
                        hipMemcpyDeviceToHost));
  for (size_t Y = 0; Y < H; ++Y)
    for (size_t X = 0; X < W / 2; ++X)
      EXPECT(Half[Y * (W / 2) + X] == Src[Y * W + X], "2D D2D at %zu,%zu", X,
             Y);

  // Memsets of 8, 16 and 32 bits, at unaligned offsets and odd lengths.
  const size_t MB = 4099;
  uint8_t *Dev8 = nullptr;
  HIP_CHECK(hipMalloc(&Dev8, MB * 4 + 64));
  HIP_CHECK(hipMemset(Dev8, 0x11, MB * 4 + 64));
  HIP_CHECK(hipMemset(Dev8 + 3, 0xA5, MB));
  std::vector<uint8_t> Bytes8(MB * 4 + 64);
  HIP_CHECK(hipMemcpy(Bytes8.data(), Dev8, Bytes8.size(),
                      hipMemcpyDeviceToHost));
  for (size_t I = 0; I < Bytes8.size(); ++I) {
    uint8_t W8 = (I >= 3 && I < 3 + MB) ? 0xA5 : 0x11;
    EXPECT(Bytes8[I] == W8, "memset8 byte %zu = %#x", I, Bytes8[I]);
  }
  uint16_t *Dev16 = reinterpret_cast<uint16_t *>(Dev8 + 2);
  HIP_CHECK(hipMemsetD16(Dev16, 0xBEEF, MB));
  std::vector<uint16_t> Got16(MB);
  HIP_CHECK(hipMemcpy(Got16.data(), Dev16, MB * 2, hipMemcpyDeviceToHost));
  for (size_t I = 0; I < MB; ++I)
    EXPECT(Got16[I] == 0xBEEF, "memset16 [%zu] = %#x", I, Got16[I]);
  uint32_t *Dev32 = reinterpret_cast<uint32_t *>(Dev8 + 4);
  HIP_CHECK(hipMemsetD32(Dev32, 0xCAFEF00D, MB));
  std::vector<uint32_t> Got32(MB + 1);
  HIP_CHECK(hipMemcpy(Got32.data(), Dev32, (MB + 1) * 4,
                      hipMemcpyDeviceToHost));
  for (size_t I = 0; I < MB; ++I)
    EXPECT(Got32[I] == 0xCAFEF00D, "memset32 [%zu] = %#x", I, Got32[I]);
  EXPECT(Got32[MB] != 0xCAFEF00D, "memset32 wrote past the end");
  HIP_CHECK(hipMemsetD8(Dev8, 0x5A, 17));
  HIP_CHECK(hipMemsetAsync(DevA, 0x7F, Bytes, S));
  HIP_CHECK(hipMemsetD32Async(reinterpret_cast<hipDeviceptr_t>(DevB), 12345,
                              N, S));
  HIP_CHECK(hipMemcpyAsync(Pinned, DevA, Bytes, hipMemcpyDeviceToHost, S));
  HIP_CHECK(hipMemcpyAsync(Pinned2, DevB, Bytes, hipMemcpyDeviceToHost, S));
  HIP_CHECK(hipStreamSynchronize(S));
  for (int I = 0; I < N; ++I) {
    EXPECT(Pinned[I] == 0x7F7F7F7F, "async memset [%d] = %#x", I, Pinned[I]);
    EXPECT(Pinned2[I] == 12345, "async memset32 [%d] = %d", I, Pinned2[I]);
  }
  HIP_CHECK(hipMemcpy(Bytes8.data(), Dev8, 32, hipMemcpyDeviceToHost));
  for (int I = 0; I < 17; ++I)
    EXPECT(Bytes8[I] == 0x5A, "memsetD8 [%d] = %#x", I, Bytes8[I]);

  HIP_CHECK(hipStreamDestroy(S));
  HIP_CHECK(hipFree(Dev2D));
  HIP_CHECK(hipFree(Dev2DB));
  HIP_CHECK(hipFree(Dev8));
  HIP_CHECK(hipFree(Managed));
  HIP_CHECK(hipHostFree(Pinned));
  HIP_CHECK(hipHostFree(Pinned2));
  HIP_CHECK(hipFree(DevA));
  HIP_CHECK(hipFree(DevB));
  HIP_CHECK(hipFree(nullptr));
  std::printf("memory ok\n");
  return 0;
}
