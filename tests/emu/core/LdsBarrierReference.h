//===- tests/emu/core/LdsBarrierReference.h - ds.c's lds_barrier, on the host -===//
//
// What ds.c's lds_barrier must write (DsTest, TakeoverTest): per work-item
// of a 256-wide group, a word another work-item stored to LDS, the group's
// sum and the work-item's inclusive prefix sum, each read after a barrier.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TESTS_EMU_CORE_LDSBARRIERREFERENCE_H
#define LOOM_TESTS_EMU_CORE_LDSBARRIERREFERENCE_H

#include <gtest/gtest.h>

#include <cstdint>

namespace loom::emu::test {

/// Whether \p Out (three words a work-item) is what lds_barrier computes
/// from \p In for \p Groups groups of 256; the first wrong word if not.
inline ::testing::AssertionResult ldsBarrierOutputIsRight(const uint32_t *In,
                                                          const uint32_t *Out,
                                                          uint32_t Groups) {
  for (uint32_t G = 0; G < Groups; ++G) {
    uint32_t Sum = 0, Prefix = 0;
    for (uint32_t T = 0; T < 256; ++T)
      Sum += In[256 * G + T];
    for (uint32_t T = 0; T < 256; ++T) {
      uint32_t I = 256 * G + T;
      Prefix += In[I];
      uint32_t Want[3] = {In[256 * G + ((T * 37 + 11) & 255)], Sum, Prefix};
      for (uint32_t K = 0; K < 3; ++K)
        if (Out[3 * I + K] != Want[K])
          return ::testing::AssertionFailure()
                 << "work-item " << I << " word " << K << ": "
                 << Out[3 * I + K] << ", expected " << Want[K];
    }
  }
  return ::testing::AssertionSuccess();
}

} // namespace loom::emu::test

#endif // LOOM_TESTS_EMU_CORE_LDSBARRIERREFERENCE_H
