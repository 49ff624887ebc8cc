//===- MemoryOps.h - 64-bit pointer arithmetic and struct copies ---------===//
//
// Device addresses are host addresses, so the host reference runs these on
// the very bytes the kernel reads: absolute pointer values agree too.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TESTS_EMU_DIFF_COMMON_MEMORYOPS_H
#define LOOM_TESTS_EMU_DIFF_COMMON_MEMORYOPS_H

#include "DiffCommon.h"

namespace diff {

inline constexpr unsigned PointerOpCount = 10;

/// Reads \p Base's \p Size bytes (a multiple of 8, at least 4 KiB) through
/// pointers computed with 64-bit arithmetic: offsets from the end, pointer
/// differences, alignment of absolute addresses, mixed access widths.
DIFF_FN void pointerOps(const uint8_t *Base, uint64_t Size, uint32_t Idx,
                        uint64_t *R) {
  const uint32_t *Words = (const uint32_t *)Base;
  uint64_t NWords = Size / 4;
  const uint32_t *End = Words + NWords;
  const uint32_t *P = End - 1 - (uint64_t)(Idx * 2654435761u) % NWords;
  R[0] = *P;
  R[1] = (uint64_t)(End - P);
  R[2] = ((uintptr_t)P + 63) & ~(uintptr_t)63;
  uint64_t QOff = ((uint64_t)Idx * 40503u * 8) % (Size - 8) & ~7ull;
  R[3] = *(const uint64_t *)(Base + QOff);
  uint64_t Back = Idx % 257;
  const uint32_t *PB = (uint64_t)(P - Words) >= Back ? P - (int64_t)Back : P;
  R[4] = *PB + (uint64_t)(P - PB);
  R[5] = (uint64_t)(P > Words + NWords / 2);
  R[6] = Base[(uint64_t)Idx * 977 % Size];
  R[7] = (uint64_t)(int64_t)(int8_t)Base[(uint64_t)Idx * 31 % Size];
  R[8] = *(const uint16_t *)(Base + ((uint64_t)Idx * 6 % Size & ~1ull));
  R[9] = (uint64_t)(int64_t)*(const int16_t *)(Base + ((uint64_t)Idx * 10 % Size & ~1ull));
}

/// Writes one word per index at a position that is a permutation of the
/// indices when Size / 4 is a power of two no smaller than the index count.
DIFF_FN void pointerStore(uint8_t *Base, uint64_t Size, uint32_t Idx,
                          uint32_t Value) {
  uint64_t NWords = Size / 4;
  uint32_t *Slot = (uint32_t *)(Base + Size) - 1 - (uint64_t)(Idx * 2654435761u) % NWords;
  *Slot = Value ^ (uint32_t)((uintptr_t)Slot >> 2);
}

struct Node {
  Node *Next;
  uint32_t Value;
  uint32_t Pad;
};

DIFF_FN uint32_t walkList(const Node *N, uint32_t Steps) {
  uint32_t S = 0;
  for (uint32_t I = 0; I < Steps && N; ++I) {
    S = S * 17 + N->Value;
    N = N->Next;
  }
  return S;
}

struct Record {
  double D;
  int64_t Q;
  float F;
  int32_t I;
  int16_t S[4];
  uint8_t B[8];
};
static_assert(sizeof(Record) == 40, "Record must have no padding");

// Passed by value and returned by value.
DIFF_NOINLINE Record mixRecord(Record R, uint32_t K) {
  R.D = R.D * 2.0 + (double)K;
  R.Q ^= (int64_t)((uint64_t)K << 20);
  R.F = R.F - 1.5f;
  R.I = (int32_t)((uint32_t)R.I + K);
  for (int I = 0; I < 4; ++I)
    R.S[I] = (int16_t)(uint16_t)((uint32_t)(uint16_t)R.S[I] + (uint32_t)I * K);
  for (int I = 0; I < 8; ++I)
    R.B[I] ^= (uint8_t)(K + (uint32_t)I);
  return R;
}

struct Big {
  uint32_t W[48];
};

DIFF_FN void bigCopy(Big *Out, const Big *In, uint32_t K) {
  Big T = *In;
  T.W[K % 48] ^= K;
  T.W[(K * 7) % 48] += 1;
  *Out = T;
}

} // namespace diff

#endif // LOOM_TESTS_EMU_DIFF_COMMON_MEMORYOPS_H
