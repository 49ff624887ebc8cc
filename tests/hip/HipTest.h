//===- tests/hip/HipTest.h - Checks shared by the HIP test programs -------===//
//
// Each HIP test program checks its own results against a host computation and
// exits non-zero on the first failure, naming the failing call or value.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TESTS_HIP_HIPTEST_H
#define LOOM_TESTS_HIP_HIPTEST_H

#include <hip/hip_runtime.h>
#include <cstdio>
#include <cstdlib>

// Fails the program when a HIP call does not return hipSuccess.
#define HIP_CHECK(Call)                                                        \
  do {                                                                         \
    hipError_t HipStatus = (Call);                                             \
    if (HipStatus != hipSuccess) {                                             \
      std::fprintf(stderr, "%s:%d: %s failed: %s (%d)\n", __FILE__, __LINE__,  \
                   #Call, hipGetErrorString(HipStatus), int(HipStatus));       \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

// Fails the program when a condition about the results does not hold.
#define EXPECT(Cond, ...)                                                      \
  do {                                                                         \
    if (!(Cond)) {                                                             \
      std::fprintf(stderr, "%s:%d: expected %s: ", __FILE__, __LINE__, #Cond); \
      std::fprintf(stderr, __VA_ARGS__);                                       \
      std::fprintf(stderr, "\n");                                              \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

#endif // LOOM_TESTS_HIP_HIPTEST_H
