//===- AtomicsTest.cpp - Atomics under contention -------------------------===//
//
// What the order of the atomic operations cannot change is checked: final
// values of commutative operations, and the multisets of returned values
// (add 1 and compare-and-swap give every work-item a distinct value,
// exchange returns a permutation of the written values and the initial
// one, wrapping inc/dec return a fixed sequence in some order).
//
//===----------------------------------------------------------------------===//
#include "DiffHarness.h"
#include "KernelAbi.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace loom::emu;
using namespace loom::emu::difftest;
using namespace diff;

namespace {

constexpr uint32_t N = 64 * 64; // 64 work-groups of one wave

class Atomics : public LevelTest {};

template <typename T> std::vector<T> sorted(std::vector<T> V) {
  std::sort(V.begin(), V.end());
  return V;
}

TEST_P(Atomics, GlobalU32) {
  Module *M = loadModule("atomics", level());
  ASSERT_TRUE(M);
  Device &Dev = *sharedDevice();
  Rng R(0x9001);
  std::vector<uint32_t> Values(N);
  for (uint32_t &V : Values)
    V = R.next32();
  std::vector<uint32_t> Init(U32Slots, 0);
  Init[SlotAdd] = 12345;
  Init[SlotSMax] = 0x80000000u;
  Init[SlotSMin] = 0x7fffffffu;
  Init[SlotUMin] = ~0u;
  Init[SlotAnd] = ~0u;
  Init[SlotXor] = 0x5a5a5a5au;
  Init[SlotXchg] = 0xdeadbeefu;
  Init[SlotWrapDec] = 5;
  Init[SlotCas] = 1000;
  auto C = upload(Dev, Init), DV = upload(Dev, Values);
  auto Olds = filled<uint32_t>(Dev, 4 * N, 0xcccccccc);
  ASSERT_TRUE(launchOk(*M, "atomics_u32", LaunchConfig::linear(N, 64),
                       KernelArgs().add(C->address()).add(Olds->address()).add(DV->address()).add(N)));
  std::vector<uint32_t> Got = download<uint32_t>(*C, U32Slots);
  std::vector<uint32_t> Old = download<uint32_t>(*Olds, 4 * N);

  uint32_t Add = Init[SlotAdd], Sub = 0, And = ~0u, Or = 0, Xor = Init[SlotXor];
  int32_t SMax = INT32_MIN, SMin = INT32_MAX;
  uint32_t UMax = 0, UMin = ~0u;
  std::vector<uint32_t> Bins(16, 0);
  for (uint32_t I = 0; I < N; ++I) {
    uint32_t V = Values[I];
    Add += V;
    Sub -= V;
    SMax = std::max(SMax, static_cast<int32_t>(V));
    SMin = std::min(SMin, static_cast<int32_t>(V));
    UMax = std::max(UMax, V);
    UMin = std::min(UMin, V);
    And &= V | (1u << (I % 32));
    Or |= V & 0x0f0f0f0fu;
    Xor ^= V;
    ++Bins[V & 15];
  }
  EXPECT_EQ(Got[SlotInc], N);
  EXPECT_EQ(Got[SlotAdd], Add);
  EXPECT_EQ(Got[SlotSub], Sub);
  EXPECT_EQ(static_cast<int32_t>(Got[SlotSMax]), SMax);
  EXPECT_EQ(static_cast<int32_t>(Got[SlotSMin]), SMin);
  EXPECT_EQ(Got[SlotUMax], UMax);
  EXPECT_EQ(Got[SlotUMin], UMin);
  EXPECT_EQ(Got[SlotAnd], And);
  EXPECT_EQ(Got[SlotOr], Or);
  EXPECT_EQ(Got[SlotXor], Xor);
  for (uint32_t B = 0; B < 16; ++B)
    EXPECT_EQ(Got[SlotBins + B], Bins[B]) << "bin " << B;

  // fetch_add(1): every value 0..N-1 exactly once.
  std::vector<uint32_t> Seq(N);
  for (uint32_t I = 0; I < N; ++I)
    Seq[I] = I;
  EXPECT_EQ(sorted(std::vector<uint32_t>(Old.begin(), Old.begin() + N)), Seq)
      << "fetch_add(1) returned values";

  // Exchange: returned values plus the final one are the written values
  // plus the initial one.
  std::vector<uint32_t> Xchg(Old.begin() + N, Old.begin() + 2 * N);
  Xchg.push_back(Got[SlotXchg]);
  std::vector<uint32_t> Written = Values;
  Written.push_back(Init[SlotXchg]);
  EXPECT_EQ(sorted(Xchg), sorted(Written)) << "exchange returned values";

  // Wrapping increment: old >= limit ? 0 : old + 1, from 0.
  std::vector<uint32_t> Inc(N);
  for (uint32_t I = 0; I < N; ++I)
    Inc[I] = I % (WrapLimit + 1);
  EXPECT_EQ(sorted(std::vector<uint32_t>(Old.begin() + 2 * N, Old.begin() + 3 * N)),
            sorted(Inc))
      << "atomic_inc32 returned values";
  EXPECT_EQ(Got[SlotWrapInc], N % (WrapLimit + 1));

  // Wrapping decrement: (old == 0 || old > limit) ? limit : old - 1.
  uint32_t Dec = Init[SlotWrapDec];
  for (uint32_t I = 0; I < N; ++I)
    Dec = (Dec == 0 || Dec > WrapLimit) ? WrapLimit : Dec - 1;
  EXPECT_EQ(Got[SlotWrapDec], Dec);

  // CAS loop: distinct values from the initial one on.
  std::vector<uint32_t> Cas(N);
  for (uint32_t I = 0; I < N; ++I)
    Cas[I] = Init[SlotCas] + I;
  EXPECT_EQ(sorted(std::vector<uint32_t>(Old.begin() + 3 * N, Old.end())), Cas)
      << "compare-and-swap loop returned values";
  EXPECT_EQ(Got[SlotCas], Init[SlotCas] + N);
}

TEST_P(Atomics, GlobalU64) {
  Module *M = loadModule("atomics", level());
  ASSERT_TRUE(M);
  Device &Dev = *sharedDevice();
  Rng R(0x9002);
  std::vector<uint64_t> Values(N);
  for (uint64_t &V : Values)
    V = R.next();
  std::vector<uint64_t> Init(U64Slots, 0);
  Init[Slot64Add] = 0x100;
  Init[Slot64SMin] = INT64_MAX;
  Init[Slot64And] = ~0ull;
  Init[Slot64Xchg] = 42;
  Init[Slot64Cas] = 7;
  auto C = upload(Dev, Init), DV = upload(Dev, Values);
  auto Olds = filled<uint64_t>(Dev, 2 * N, 0);
  ASSERT_TRUE(launchOk(*M, "atomics_u64", LaunchConfig::linear(N, 64),
                       KernelArgs().add(C->address()).add(Olds->address()).add(DV->address()).add(N)));
  std::vector<uint64_t> Got = download<uint64_t>(*C, U64Slots);
  std::vector<uint64_t> Old = download<uint64_t>(*Olds, 2 * N);
  uint64_t Add = Init[Slot64Add], UMax = 0, And = ~0ull, Or = 0, Xor = 0;
  int64_t SMin = INT64_MAX;
  for (uint32_t I = 0; I < N; ++I) {
    uint64_t V = Values[I];
    Add += V;
    UMax = std::max(UMax, V);
    SMin = std::min(SMin, static_cast<int64_t>(V));
    And &= V | (1ull << (I % 64));
    Or |= V & 0x0000ffff0000ff00ull;
    Xor ^= V;
  }
  EXPECT_EQ(Got[Slot64Add], Add);
  EXPECT_EQ(Got[Slot64UMax], UMax);
  EXPECT_EQ(static_cast<int64_t>(Got[Slot64SMin]), SMin);
  EXPECT_EQ(Got[Slot64And], And);
  EXPECT_EQ(Got[Slot64Or], Or);
  EXPECT_EQ(Got[Slot64Xor], Xor);
  std::vector<uint64_t> Xchg(Old.begin(), Old.begin() + N);
  Xchg.push_back(Got[Slot64Xchg]);
  std::vector<uint64_t> Written = Values;
  Written.push_back(Init[Slot64Xchg]);
  EXPECT_EQ(sorted(Xchg), sorted(Written)) << "exchange returned values";
  std::vector<uint64_t> Cas(N);
  for (uint32_t I = 0; I < N; ++I)
    Cas[I] = Init[Slot64Cas] + I * 0x100000001ull;
  EXPECT_EQ(sorted(std::vector<uint64_t>(Old.begin() + N, Old.end())), Cas)
      << "64-bit compare-and-swap loop returned values";
  EXPECT_EQ(Got[Slot64Cas], Init[Slot64Cas] + N * 0x100000001ull);
}

TEST_P(Atomics, GlobalFloat) {
  Module *M = loadModule("atomics", level());
  ASSERT_TRUE(M);
  Device &Dev = *sharedDevice();
  Rng R(0x9003);
  // Multiples of 1/4 in [-16, 16]: every partial sum is exact.
  std::vector<float> Values(N);
  for (float &V : Values)
    V = static_cast<float>(R.range(-64, 64)) * 0.25f;
  std::vector<float> F = {0.5f, -INFINITY, INFINITY};
  std::vector<double> D = {0.0, -INFINITY};
  auto DF = upload(Dev, F), DD = upload(Dev, D), DV = upload(Dev, Values);
  ASSERT_TRUE(launchOk(*M, "atomics_float", LaunchConfig::linear(N, 64),
                       KernelArgs().add(DF->address()).add(DD->address()).add(DV->address()).add(N)));
  std::vector<float> GotF = download<float>(*DF, 3);
  std::vector<double> GotD = download<double>(*DD, 2);
  float Sum = 0.5f, Max = -INFINITY, Min = INFINITY;
  double DSum = 0, DMax = -INFINITY;
  for (float V : Values) {
    Sum += V;
    Max = std::max(Max, V);
    Min = std::min(Min, V);
    DSum += static_cast<double>(V) * 0.5;
    DMax = std::max(DMax, static_cast<double>(V));
  }
  EXPECT_EQ(GotF[0], Sum) << "f32 atomic add";
  EXPECT_EQ(GotF[1], Max) << "f32 atomic max";
  EXPECT_EQ(GotF[2], Min) << "f32 atomic min";
  EXPECT_EQ(GotD[0], DSum) << "f64 atomic add";
  EXPECT_EQ(GotD[1], DMax) << "f64 atomic max";
}

TEST_P(Atomics, Lds) {
  Module *M = loadModule("atomics", level());
  ASSERT_TRUE(M);
  Device &Dev = *sharedDevice();
  constexpr uint32_t Group = 256, Groups = 16, Items = Group * Groups;
  Rng R(0x9004);
  std::vector<uint32_t> Values(Items);
  for (uint32_t &V : Values)
    V = R.next32();
  auto DV = upload(Dev, Values);
  auto Out = filled<uint32_t>(Dev, Groups * LdsSlots, 0xcccccccc);
  auto Olds = filled<uint32_t>(Dev, 2 * Items, 0xcccccccc);
  ASSERT_TRUE(launchOk(*M, "atomics_lds", LaunchConfig::linear(Items, Group),
                       KernelArgs().add(Out->address()).add(Olds->address()).add(DV->address()).add(Items)));
  std::vector<uint32_t> Got = download<uint32_t>(*Out, Groups * LdsSlots);
  std::vector<uint32_t> Old = download<uint32_t>(*Olds, 2 * Items);
  std::vector<uint32_t> Seq(Group);
  for (uint32_t I = 0; I < Group; ++I)
    Seq[I] = I;
  for (uint32_t G = 0; G < Groups; ++G) {
    SCOPED_TRACE("work-group " + std::to_string(G));
    const uint32_t *V = &Values[G * Group];
    const uint32_t *C = &Got[G * LdsSlots];
    uint32_t Add = 0, UMax = 0, And = ~0u, Or = 0, Xor = 0;
    int32_t SMin = INT32_MAX;
    float FAdd = 0;
    std::vector<uint32_t> Bins(16, 0);
    for (uint32_t T = 0; T < Group; ++T) {
      Add += V[T];
      UMax = std::max(UMax, V[T]);
      SMin = std::min(SMin, static_cast<int32_t>(V[T]));
      And &= V[T] | (1u << (T % 32));
      Or |= V[T] & 0x00ff00ffu;
      Xor ^= V[T];
      FAdd += static_cast<float>(V[T] & 7) * 0.5f;
      ++Bins[V[T] >> 28];
    }
    EXPECT_EQ(C[LdsInc], Group);
    EXPECT_EQ(C[LdsAdd], Add);
    EXPECT_EQ(C[LdsUMax], UMax);
    EXPECT_EQ(static_cast<int32_t>(C[LdsSMin]), SMin);
    EXPECT_EQ(C[LdsAnd], And);
    EXPECT_EQ(C[LdsOr], Or);
    EXPECT_EQ(C[LdsXor], Xor);
    EXPECT_EQ(diff::f32Of(C[LdsFAdd]), FAdd) << "LDS f32 add";
    for (uint32_t B = 0; B < 16; ++B)
      EXPECT_EQ(C[LdsBins + B], Bins[B]) << "bin " << B;
    EXPECT_EQ(sorted(std::vector<uint32_t>(Old.begin() + G * Group,
                                           Old.begin() + (G + 1) * Group)),
              Seq)
        << "LDS fetch_add(1) returned values";
    std::vector<uint32_t> Xchg(Old.begin() + Items + G * Group,
                               Old.begin() + Items + (G + 1) * Group);
    Xchg.push_back(C[LdsXchg]);
    std::vector<uint32_t> Written(V, V + Group);
    Written.push_back(0);
    EXPECT_EQ(sorted(Xchg), sorted(Written)) << "LDS exchange returned values";
  }
}

LOOM_DIFF_LEVELS(Atomics);

} // namespace
