//===- tests/run/DeviceHeapTest.cpp - malloc's chunked device heap --------===//

#include "DeviceHeap.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

using loom::run::DeviceHeap;

TEST(DeviceHeapTest, ClassesChunksReuseAndDirectBlocks) {
  std::set<void *> Runtime;
  unsigned Calls = 0;
  {
    DeviceHeap H(
        [&](uint64_t Size) {
          ++Calls;
          void *P = std::aligned_alloc(16, (Size + 15) / 16 * 16);
          Runtime.insert(P);
          return P;
        },
        [&](void *P) {
          EXPECT_EQ(Runtime.erase(P), 1u);
          std::free(P);
        });
    // Small blocks share one chunk, are 16-byte aligned and do not overlap.
    std::set<uintptr_t> Blocks;
    for (int I = 0; I < 1000; ++I) {
      auto P = reinterpret_cast<uintptr_t>(H.allocate(1 + I % 100));
      ASSERT_NE(P, 0u);
      EXPECT_EQ(P % 16, 0u);
      EXPECT_TRUE(Blocks.insert(P).second);
    }
    EXPECT_EQ(Calls, 1u);
    // A freed block of a class is the next one of that class.
    void *A = H.allocate(48);
    H.free(A);
    EXPECT_EQ(H.allocate(40), A);
    // Over 1 MiB: a runtime allocation of its own, given back on free.
    void *Big = H.allocate(3 << 20);
    EXPECT_EQ(Calls, 2u);
    H.free(Big);
    EXPECT_EQ(Runtime.count(Big), 0u);
    H.free(nullptr); // not a block: ignored
    // A full chunk (8 MiB) makes the heap take another.
    for (int I = 0; I < 10; ++I)
      ASSERT_NE(H.allocate(1 << 20), nullptr);
    EXPECT_EQ(Calls, 3u);
  }
  EXPECT_TRUE(Runtime.empty()) << "the heap gives every chunk back";
}
