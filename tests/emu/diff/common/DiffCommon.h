//===- DiffCommon.h - Shared by device kernels and host references --------===//
//
// Every header in common/ is compiled twice: by clang-22 for gfx90a inside the
// kernels, and for x86-64 inside the test binary, both with -ffp-contract=off.
// The host result of the same source is the reference, so this code must be
// free of undefined behaviour: guarded divisions, masked shift counts,
// range-checked float-to-integer conversions, unsigned wrap-around.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TESTS_EMU_DIFF_COMMON_DIFFCOMMON_H
#define LOOM_TESTS_EMU_DIFF_COMMON_DIFFCOMMON_H

#include <float.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__AMDGPU__) || defined(__AMDGCN__)
#define DIFF_DEVICE 1
#endif

#define DIFF_FN static inline
// Kept out of line on both sides: exercises calls, the scratch stack and
// recursion on the device.
#define DIFF_NOINLINE __attribute__((noinline))

namespace diff {

DIFF_FN uint32_t bitsOf(float X) { return __builtin_bit_cast(uint32_t, X); }
DIFF_FN uint64_t bitsOf(double X) { return __builtin_bit_cast(uint64_t, X); }
DIFF_FN uint16_t bitsOf(_Float16 X) { return __builtin_bit_cast(uint16_t, X); }
DIFF_FN float f32Of(uint32_t B) { return __builtin_bit_cast(float, B); }
DIFF_FN double f64Of(uint64_t B) { return __builtin_bit_cast(double, B); }
DIFF_FN _Float16 f16Of(uint16_t B) { return __builtin_bit_cast(_Float16, B); }

DIFF_FN bool isNan(float X) { return X != X; }
DIFF_FN bool isNan(double X) { return X != X; }
// fmin/fmax of a signalling NaN differ between C (glibc) and LLVM's minnum;
// the shared code keeps them out of min/max.
DIFF_FN bool isSignalingNan(float X) {
  uint32_t B = bitsOf(X);
  return (B & 0x7f800000u) == 0x7f800000u && (B & 0x007fffffu) != 0 &&
         !(B & 0x00400000u);
}
DIFF_FN bool isSignalingNan(double X) {
  uint64_t B = bitsOf(X);
  return (B & 0x7ff0000000000000ull) == 0x7ff0000000000000ull &&
         (B & 0x000fffffffffffffull) != 0 && !(B & 0x0008000000000000ull);
}

} // namespace diff

#endif // LOOM_TESTS_EMU_DIFF_COMMON_DIFFCOMMON_H
