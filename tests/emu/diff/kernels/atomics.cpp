//===- atomics.cpp - Atomics on global memory and LDS under contention ----===//
//
// Every work-item of the grid hits the same few addresses, in the same
// instruction (64 lanes of a wave) and from many waves and work-groups at
// once. The host checks what is order-independent: final values, and the
// multiset of returned old values.
//
//===----------------------------------------------------------------------===//
#include "Kernel.h"
#include "KernelAbi.h"

using namespace diff;

#define RELAXED __ATOMIC_RELAXED
#define AGENT __MEMORY_SCOPE_DEVICE
#define GROUP __MEMORY_SCOPE_WRKGRP

// Olds: four arrays of N returned values (add 1, exchange, wrap inc, CAS).
DIFF_KERNEL atomics_u32(uint32_t *C, uint32_t *Olds, const uint32_t *Values,
                        uint32_t N) {
  uint32_t I = globalId();
  if (I >= N)
    return;
  uint32_t V = Values[I];
  Olds[I] = __scoped_atomic_fetch_add(&C[SlotInc], 1u, RELAXED, AGENT);
  __scoped_atomic_fetch_add(&C[SlotAdd], V, RELAXED, AGENT);
  __scoped_atomic_fetch_sub(&C[SlotSub], V, RELAXED, AGENT);
  __scoped_atomic_fetch_max((int32_t *)&C[SlotSMax], (int32_t)V, RELAXED, AGENT);
  __scoped_atomic_fetch_min((int32_t *)&C[SlotSMin], (int32_t)V, RELAXED, AGENT);
  __scoped_atomic_fetch_max(&C[SlotUMax], V, RELAXED, AGENT);
  __scoped_atomic_fetch_min(&C[SlotUMin], V, RELAXED, AGENT);
  __scoped_atomic_fetch_and(&C[SlotAnd], V | (1u << (I % 32)), RELAXED, AGENT);
  __scoped_atomic_fetch_or(&C[SlotOr], V & 0x0f0f0f0fu, RELAXED, AGENT);
  __scoped_atomic_fetch_xor(&C[SlotXor], V, RELAXED, AGENT);
  Olds[N + I] = __scoped_atomic_exchange_n(&C[SlotXchg], V, RELAXED, AGENT);
  Olds[2 * N + I] =
      __builtin_amdgcn_atomic_inc32(&C[SlotWrapInc], WrapLimit, RELAXED, "agent");
  __builtin_amdgcn_atomic_dec32(&C[SlotWrapDec], WrapLimit, RELAXED, "agent");
  // A compare-and-swap loop: every work-item gets a distinct old value.
  uint32_t Seen = __scoped_atomic_load_n(&C[SlotCas], RELAXED, AGENT);
  while (!__scoped_atomic_compare_exchange_n(&C[SlotCas], &Seen, Seen + 1, false,
                                             RELAXED, RELAXED, AGENT))
    ;
  Olds[3 * N + I] = Seen;
  // Per-lane addresses: a 16-bin histogram.
  __scoped_atomic_fetch_add(&C[SlotBins + (V & 15)], 1u, RELAXED, AGENT);
}

// Olds: two arrays of N (exchange, CAS).
DIFF_KERNEL atomics_u64(uint64_t *C, uint64_t *Olds, const uint64_t *Values,
                        uint32_t N) {
  uint32_t I = globalId();
  if (I >= N)
    return;
  uint64_t V = Values[I];
  __scoped_atomic_fetch_add(&C[Slot64Add], V, RELAXED, AGENT);
  __scoped_atomic_fetch_max(&C[Slot64UMax], V, RELAXED, AGENT);
  __scoped_atomic_fetch_min((int64_t *)&C[Slot64SMin], (int64_t)V, RELAXED, AGENT);
  __scoped_atomic_fetch_and(&C[Slot64And], V | (1ull << (I % 64)), RELAXED, AGENT);
  __scoped_atomic_fetch_or(&C[Slot64Or], V & 0x0000ffff0000ff00ull, RELAXED, AGENT);
  __scoped_atomic_fetch_xor(&C[Slot64Xor], V, RELAXED, AGENT);
  Olds[I] = __scoped_atomic_exchange_n(&C[Slot64Xchg], V, RELAXED, AGENT);
  uint64_t Seen = __scoped_atomic_load_n(&C[Slot64Cas], RELAXED, AGENT);
  while (!__scoped_atomic_compare_exchange_n(&C[Slot64Cas], &Seen,
                                             Seen + 0x100000001ull, false,
                                             RELAXED, RELAXED, AGENT))
    ;
  Olds[N + I] = Seen;
}

// Values are small multiples of 1/4, so every order of additions is exact.
DIFF_KERNEL atomics_float(float *F, double *D, const float *Values, uint32_t N) {
  uint32_t I = globalId();
  if (I >= N)
    return;
  float V = Values[I];
  __scoped_atomic_fetch_add(&F[0], V, RELAXED, AGENT);
  __scoped_atomic_fetch_max(&F[1], V, RELAXED, AGENT);
  __scoped_atomic_fetch_min(&F[2], V, RELAXED, AGENT);
  __scoped_atomic_fetch_add(&D[0], (double)V * 0.5, RELAXED, AGENT);
  __scoped_atomic_fetch_max(&D[1], (double)V, RELAXED, AGENT);
}

inline constexpr uint32_t Group = 256;
DIFF_LDS static uint32_t LdsC[LdsSlots];

// Per work-group: the LDS counters (LdsSlots each) and, per work-item, the
// returned values of the add-1 and exchange.
DIFF_KERNEL atomics_lds(uint32_t *Out, uint32_t *Olds, const uint32_t *Values,
                        uint32_t N) {
  uint32_t T = laneId();
  uint32_t G = __builtin_amdgcn_workgroup_id_x();
  uint32_t I = G * Group + T;
  uint32_t V = Values[I];
  if (T < LdsSlots)
    LdsC[T] = T == LdsSMin ? 0x7fffffffu : (T == LdsAnd ? ~0u : 0u);
  syncGroup();
  Olds[I] = __scoped_atomic_fetch_add(&LdsC[LdsInc], 1u, RELAXED, GROUP);
  __scoped_atomic_fetch_add(&LdsC[LdsAdd], V, RELAXED, GROUP);
  __scoped_atomic_fetch_max(&LdsC[LdsUMax], V, RELAXED, GROUP);
  __scoped_atomic_fetch_min((int32_t *)&LdsC[LdsSMin], (int32_t)V, RELAXED, GROUP);
  __scoped_atomic_fetch_and(&LdsC[LdsAnd], V | (1u << (T % 32)), RELAXED, GROUP);
  __scoped_atomic_fetch_or(&LdsC[LdsOr], V & 0x00ff00ffu, RELAXED, GROUP);
  __scoped_atomic_fetch_xor(&LdsC[LdsXor], V, RELAXED, GROUP);
  Olds[N + I] = __scoped_atomic_exchange_n(&LdsC[LdsXchg], V, RELAXED, GROUP);
  __scoped_atomic_fetch_add((float *)&LdsC[LdsFAdd], (float)(V & 7) * 0.5f,
                            RELAXED, GROUP);
  __scoped_atomic_fetch_add(&LdsC[LdsBins + (V >> 28)], 1u, RELAXED, GROUP);
  syncGroup();
  if (T < LdsSlots)
    Out[G * LdsSlots + T] = LdsC[T];
}
