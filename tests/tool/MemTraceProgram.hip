// The program mem_trace's tests trace (MemTraceTest.cpp): flat accesses
// that reach LDS and global memory through one generic pointer, an LDS
// store with a stride of 32 dwords (every lane of a half-wave on one
// bank: 32-way conflicts) and strided global accesses (a 64-byte line per
// lane), on work-groups of 96 (a wave and a half). It checks its results
// on the host and prints them. A second kernel keeps an array on the
// stack (buffer instructions); a third reads and writes global memory
// through buffer resources of its own (raw and structured buffer_* and
// s_buffer_load, in inline assembly: clang emits them only from builtins
// hipcc's clang lacks). A fourth runs 1,280 waves through four barriers,
// with nothing to record between two of them: about 3,200 chunks, more
// than a new ring readies at its opening (2,048; the rest as the host
// drains), and MemTraceTest traces it through a ring of 64 chunks too,
// which wraps many times.
#include <hip/hip_runtime.h>
#include <cstdio>
#include <vector>

constexpr int Group = 96, Groups = 3, Stride = 16; // 16 ints: 64 bytes

// Not inlined, so its pointer stays generic: flat_load/flat_store, which
// the hardware routes to LDS or global memory by the address.
__device__ __attribute__((noinline)) void bump(int *P, int V) { *P += V; }

__global__ void mixed(int *Out) {
  __shared__ int Tile[Group * 32];
  int T = threadIdx.x;
  for (int I = T; I < Group * 32; I += Group)
    Tile[I] = 0;
  __syncthreads();
  Tile[T * 32] = T; // 32 dwords apart: one bank
  __syncthreads();
  bump(&Tile[T * 32], 1);                          // flat -> LDS
  bump(&Out[(blockIdx.x * Group + T) * Stride], Tile[T * 32]); // flat -> global
}

// A private array indexed at run time lives in scratch: on gfx90a,
// buffer_store/buffer_load through the private segment buffer (s[0:3]).
__global__ void stack(int *Out, int K) {
  int A[40];
  int T = threadIdx.x;
  for (int I = 0; I < 40; ++I)
    A[I] = T * I + K;
  Out[T] = A[(T + K) % 40] + A[(T * 7) % 40];
}

// A buffer resource (V#) for gfx90a: base, stride, size in bytes (the
// range: num_records of a raw buffer), a 32-bit data format.
typedef unsigned Rsrc __attribute__((ext_vector_type(4)));
typedef unsigned IndexOffset __attribute__((ext_vector_type(2)));
__device__ Rsrc rsrc(const void *P, unsigned Stride, unsigned Bytes) {
  unsigned long long A = (unsigned long long)P;
  return Rsrc{unsigned(A), (unsigned(A >> 32) & 0xffff) | Stride << 16,
              Bytes, 0x00027000};
}

// Out[T + 2] = In[T + 1] + In[2] + In[N] + In[2 * T + 1] + In[2 * T + 3] +
// In[T / 8 * 32 + 8 + T % 8]: buffer_load offen, s_buffer_load with an
// immediate and an SGPR offset, buffer_load idxen and bothen (stride 8),
// buffer_load idxen through a swizzled V# (stride 16, element size 4,
// index stride 8: index I's byte O at (I / 8 * 16 + O / 4 * 4) * 8 +
// I % 8 * 4 + O % 4), buffer_store offen with an soffset.
__global__ void buffers(int *Out, const int *In, int N) {
  Rsrc R = rsrc(In, 0, 4 * (N + 1)), S = rsrc(In, 8, 4 * (N + 1)),
       W = rsrc(Out, 0, 4 * N), Z = rsrc(In, 16, 4 * (N + 1));
  Z.y |= 1u << 31; // swizzle_enable
  Z.w |= 1u << 19; // element size 4 (index stride 8: 0)
  int T = threadIdx.x, Next, Two, Last, Odd, Odd3;
  asm volatile("buffer_load_dword %0, %1, %2, 0 offen offset:4\n"
               "s_waitcnt vmcnt(0)" : "=v"(Next) : "v"(T * 4), "s"(R));
  asm volatile("s_buffer_load_dword %0, %1, 0x8\n"
               "s_waitcnt lgkmcnt(0)" : "=s"(Two) : "s"(R));
  asm volatile("s_buffer_load_dword %0, %1, %2\n"
               "s_waitcnt lgkmcnt(0)" : "=s"(Last) : "s"(R), "s"(N * 4));
  asm volatile("buffer_load_dword %0, %1, %2, 0 idxen offset:4\n"
               "s_waitcnt vmcnt(0)" : "=v"(Odd) : "v"(T), "s"(S));
  IndexOffset IO = {unsigned(T + 1), 4};
  asm volatile("buffer_load_dword %0, %1, %2, 0 idxen offen\n"
               "s_waitcnt vmcnt(0)" : "=v"(Odd3) : "v"(IO), "s"(S));
  int Swizzled;
  asm volatile("buffer_load_dword %0, %1, %2, 0 idxen offset:4\n"
               "s_waitcnt vmcnt(0)" : "=v"(Swizzled) : "v"(T), "s"(Z));
  asm volatile("buffer_store_dword %0, %1, %2, %3 offen\n"
               "s_waitcnt vmcnt(0)"
               :: "v"(Next + Two + Last + Odd + Odd3 + Swizzled), "v"(T * 4),
                  "s"(W), "s"(8) : "memory");
}

constexpr int WaveGroup = 256, WaveGroups = 320;

__global__ void waves(int *Out) {
  __shared__ int Tile[WaveGroup];
  int T = threadIdx.x, I = blockIdx.x * WaveGroup + T;
  Tile[T] = I;
  __syncthreads();
  int V = Tile[WaveGroup - 1 - T];
  __syncthreads();
  V = V * 3 + T; // no memory access: the next barrier finds no chunk
  __syncthreads();
  Tile[T] = V;
  __syncthreads();
  if ((T / 64) % 2 == 0) // the odd waves store nothing
    Out[I] = Tile[T ^ 1];
}

/// waves' Out[I] where its wave stores: V of lane T ^ 1.
int wavesWant(int I) {
  int T = (I % WaveGroup) ^ 1, B = I / WaveGroup;
  return (B * WaveGroup + WaveGroup - 1 - T) * 3 + T;
}

int main() {
  const int N = Group * Groups * Stride;
  std::vector<int> Host(N, 7);
  int *Dev;
  if (hipMalloc(&Dev, N * sizeof(int)) != hipSuccess ||
      hipMemcpy(Dev, Host.data(), N * sizeof(int), hipMemcpyHostToDevice) !=
          hipSuccess)
    return 1;
  hipLaunchKernelGGL(mixed, dim3(Groups), dim3(Group), 0, 0, Dev);
  if (hipMemcpy(Host.data(), Dev, N * sizeof(int), hipMemcpyDeviceToHost) !=
      hipSuccess)
    return 1;
  int *Stack;
  std::vector<int> Got(Group);
  if (hipMalloc(&Stack, Group * sizeof(int)) != hipSuccess)
    return 1;
  hipLaunchKernelGGL(stack, dim3(1), dim3(Group), 0, 0, Stack, 3);
  if (hipMemcpy(Got.data(), Stack, Group * sizeof(int),
                hipMemcpyDeviceToHost) != hipSuccess)
    return 1;
  bool StackOk = true;
  for (int T = 0; T < Group; ++T)
    StackOk = StackOk && Got[T] == T * ((T + 3) % 40) + 3 + T * ((T * 7) % 40) + 3;
  std::printf("stack %s\n", StackOk ? "ok" : "WRONG");
  // buffers: In[I] = I * I, Out[T + 2] as the kernel says.
  const int B = 2 * Group + 4, InSize = Group / 8 * 32 + 8;
  std::vector<int> In(InSize), Out(B);
  for (int I = 0; I < InSize; ++I)
    In[I] = I * I;
  int *DevIn, *DevOut;
  if (hipMalloc(&DevIn, InSize * sizeof(int)) != hipSuccess ||
      hipMalloc(&DevOut, B * sizeof(int)) != hipSuccess ||
      hipMemcpy(DevIn, In.data(), InSize * sizeof(int),
                hipMemcpyHostToDevice) != hipSuccess)
    return 1;
  hipLaunchKernelGGL(buffers, dim3(1), dim3(Group), 0, 0, DevOut, DevIn, B);
  if (hipMemcpy(Out.data(), DevOut, B * sizeof(int), hipMemcpyDeviceToHost) !=
      hipSuccess)
    return 1;
  bool BuffersOk = true;
  for (int T = 0; T < Group; ++T)
    BuffersOk = BuffersOk && Out[T + 2] == In[T + 1] + In[2] + In[B] +
                                               In[2 * T + 1] + In[2 * T + 3] +
                                               In[T / 8 * 32 + 8 + T % 8];
  std::printf("buffers %s\n", BuffersOk ? "ok" : "WRONG");
  const int W = WaveGroup * WaveGroups;
  std::vector<int> WavesOut(W, -1);
  int *DevWaves;
  if (hipMalloc(&DevWaves, W * sizeof(int)) != hipSuccess ||
      hipMemcpy(DevWaves, WavesOut.data(), W * sizeof(int),
                hipMemcpyHostToDevice) != hipSuccess)
    return 1;
  hipLaunchKernelGGL(waves, dim3(WaveGroups), dim3(WaveGroup), 0, 0,
                     DevWaves);
  if (hipMemcpy(WavesOut.data(), DevWaves, W * sizeof(int),
                hipMemcpyDeviceToHost) != hipSuccess)
    return 1;
  bool WavesOk = true;
  for (int I = 0; I < W; ++I)
    WavesOk = WavesOk && WavesOut[I] == ((I % WaveGroup) / 64 % 2 == 0
                                             ? wavesWant(I)
                                             : -1);
  std::printf("waves %s\n", WavesOk ? "ok" : "WRONG");
  long Sum = 0;
  bool Ok = true;
  for (int I = 0; I < N; ++I) {
    int T = (I / Stride) % Group;
    int Want = I % Stride ? 7 : 7 + T + 1;
    Ok = Ok && Host[I] == Want;
    Sum += Host[I];
  }
  std::printf("mixed %s, sum %ld\n", Ok ? "ok" : "WRONG", Sum);
  return Ok && StackOk && BuffersOk && WavesOk ? 0 : 1;
}
