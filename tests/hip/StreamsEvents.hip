//===- tests/hip/StreamsEvents.hip - Streams, dependencies and events ------===//
//
// Several streams ordered by events (hipStreamWaitEvent), events recorded,
// queried, synchronised and timed, stream callbacks and non-blocking streams.
// A slow producer on one stream and a consumer on another make a missing
// dependency visible in the results.
//
//===----------------------------------------------------------------------===//
#include "HipTest.h"
#include <atomic>
#include <vector>

// Spins long enough for a racing consumer to overtake it if unordered.
// Never is -1 at run time, so the loop cannot be folded away.
__global__ void slowFill(int *Data, int N, int Value, int Rounds,
                         int Never = -1) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= N)
    return;
  int V = 0;
  for (int R = 0; R < Rounds; ++R)
    V = (V * 3 + R) & 0xffff;
  Data[I] = Value + (V == Never);
}

__global__ void scaleAdd(const int *A, const int *B, int *Out, int N, int K) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Out[I] = A[I] * K + B[I];
}

static std::atomic<int> CallbackRuns{0};

static void onStreamDone(hipStream_t, hipError_t Status, void *UserData) {
  if (Status == hipSuccess)
    CallbackRuns += *static_cast<int *>(UserData);
}

int main() {
  const int N = 4096, Blocks = N / 256;
  int *A, *B, *Out;
  HIP_CHECK(hipMalloc(&A, N * sizeof(int)));
  HIP_CHECK(hipMalloc(&B, N * sizeof(int)));
  HIP_CHECK(hipMalloc(&Out, N * sizeof(int)));

  hipStream_t S1, S2, S3;
  HIP_CHECK(hipStreamCreate(&S1));
  HIP_CHECK(hipStreamCreateWithFlags(&S2, hipStreamNonBlocking));
  HIP_CHECK(hipStreamCreateWithPriority(&S3, hipStreamDefault, 0));
  hipEvent_t AReady, BReady, Start, Stop, Sync;
  HIP_CHECK(hipEventCreate(&AReady));
  HIP_CHECK(hipEventCreateWithFlags(&BReady, hipEventDisableTiming));
  HIP_CHECK(hipEventCreate(&Start));
  HIP_CHECK(hipEventCreate(&Stop));
  HIP_CHECK(hipEventCreateWithFlags(&Sync, hipEventBlockingSync));

  for (int Round = 1; Round <= 3; ++Round) {
    // S1 and S2 produce A and B; S3 waits for both, then combines them.
    HIP_CHECK(hipEventRecord(Start, S3));
    slowFill<<<Blocks, 256, 0, S1>>>(A, N, Round * 10, 2000);
    HIP_CHECK(hipEventRecord(AReady, S1));
    slowFill<<<Blocks, 256, 0, S2>>>(B, N, Round, 500);
    HIP_CHECK(hipEventRecord(BReady, S2));
    HIP_CHECK(hipStreamWaitEvent(S3, AReady, 0));
    HIP_CHECK(hipStreamWaitEvent(S3, BReady, 0));
    scaleAdd<<<Blocks, 256, 0, S3>>>(A, B, Out, N, Round);
    HIP_CHECK(hipEventRecord(Stop, S3));
    HIP_CHECK(hipEventSynchronize(Stop));
    EXPECT(hipEventQuery(Stop) == hipSuccess, "Stop not complete");
    EXPECT(hipEventQuery(AReady) == hipSuccess, "AReady not complete");

    std::vector<int> Got(N);
    HIP_CHECK(hipMemcpy(Got.data(), Out, N * sizeof(int),
                        hipMemcpyDeviceToHost));
    for (int I = 0; I < N; ++I)
      EXPECT(Got[I] == Round * 10 * Round + Round, "round %d [%d] = %d", Round,
             I, Got[I]);

    float Ms = -1;
    HIP_CHECK(hipEventElapsedTime(&Ms, Start, Stop));
    EXPECT(Ms > 0 && Ms < 600000, "elapsed %f ms", Ms);
    std::printf("round %d: %.3f ms\n", Round, Ms);
    // An event without timing cannot be timed.
    EXPECT(hipEventElapsedTime(&Ms, Start, BReady) != hipSuccess,
           "timed an event created with hipEventDisableTiming");
  }

  // Elapsed time grows with the work between two events.
  float Short = 0, Long = 0;
  HIP_CHECK(hipEventRecord(Start, S1));
  slowFill<<<1, 64, 0, S1>>>(A, 64, 0, 1);
  HIP_CHECK(hipEventRecord(Stop, S1));
  HIP_CHECK(hipEventSynchronize(Stop));
  HIP_CHECK(hipEventElapsedTime(&Short, Start, Stop));
  HIP_CHECK(hipEventRecord(Start, S1));
  slowFill<<<Blocks, 256, 0, S1>>>(A, N, 0, 3000);
  HIP_CHECK(hipEventRecord(Stop, S1));
  HIP_CHECK(hipEventSynchronize(Stop));
  HIP_CHECK(hipEventElapsedTime(&Long, Start, Stop));
  EXPECT(Long > Short, "long %f ms <= short %f ms", Long, Short);

  // Stream callbacks run after the work before them, in stream order.
  int One = 1, Ten = 10;
  slowFill<<<Blocks, 256, 0, S2>>>(B, N, 7, 100);
  HIP_CHECK(hipStreamAddCallback(S2, onStreamDone, &One, 0));
  HIP_CHECK(hipStreamAddCallback(S2, onStreamDone, &Ten, 0));
  HIP_CHECK(hipStreamSynchronize(S2));
  EXPECT(CallbackRuns == 11, "callbacks %d", CallbackRuns.load());
  EXPECT(hipStreamQuery(S2) == hipSuccess, "S2 not idle");

  // The null stream waits for the blocking streams; a device sync for all.
  slowFill<<<Blocks, 256, 0, S1>>>(A, N, 99, 1000);
  scaleAdd<<<Blocks, 256>>>(A, A, Out, N, 1);
  HIP_CHECK(hipDeviceSynchronize());
  std::vector<int> Got(N);
  HIP_CHECK(hipMemcpy(Got.data(), Out, N * sizeof(int), hipMemcpyDeviceToHost));
  for (int I = 0; I < N; ++I)
    EXPECT(Got[I] == 198, "null stream [%d] = %d", I, Got[I]);

  for (hipEvent_t E : {AReady, BReady, Start, Stop, Sync})
    HIP_CHECK(hipEventDestroy(E));
  for (hipStream_t S : {S1, S2, S3})
    HIP_CHECK(hipStreamDestroy(S));
  HIP_CHECK(hipFree(A));
  HIP_CHECK(hipFree(B));
  HIP_CHECK(hipFree(Out));
  std::printf("streams and events ok\n");
  return 0;
}
