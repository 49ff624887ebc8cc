//===- bench/programs/Program.h - Phases of a benchmark program -----------===//
//
// Every program of the realistic set (bench/programs.py) starts HIP the same
// way and times its kernel section, so the runner can split its wall time
// into HIP start-up, the virtual GPU's work and the host's. The program
// checks its own result (tests/hip/HipTest.h) and exits non-zero if wrong.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_BENCH_PROGRAMS_PROGRAM_H
#define LOOM_BENCH_PROGRAMS_PROGRAM_H

#include "HipTest.h"
#include <chrono>
#include <cstdint>

namespace bench {

inline double msNow() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// Start-up, as every HIP program pays it: HIP initialisation and the first
/// memory operation (ROCclr builds and runs its blit kernels). The kernel
/// section is what the program times with begin()/end().
class Phases {
public:
  Phases() {
    double T0 = msNow();
    HIP_CHECK(hipInit(0));
    void *P = nullptr;
    HIP_CHECK(hipMalloc(&P, 256));
    HIP_CHECK(hipMemset(P, 0, 256));
    HIP_CHECK(hipDeviceSynchronize());
    HIP_CHECK(hipFree(P));
    Startup = msNow() - T0;
  }
  void begin() { T = msNow(); }
  void end() {
    HIP_CHECK(hipDeviceSynchronize());
    Kernels += msNow() - T;
  }
  /// The line bench/programs.py reads.
  ~Phases() {
    std::printf("loom-bench startup_ms %.1f kernels_ms %.1f\n", Startup,
                Kernels);
  }

private:
  double Startup = 0, Kernels = 0, T = 0;
};

/// A deterministic pseudo-random sequence (the host and checks reproduce it).
inline uint32_t hash(uint32_t X) {
  X ^= X >> 16;
  X *= 0x7feb352dU;
  X ^= X >> 15;
  X *= 0x846ca68bU;
  X ^= X >> 16;
  return X;
}

} // namespace bench

#endif // LOOM_BENCH_PROGRAMS_PROGRAM_H
