//===- tests/emu/core/DsTest.cpp - LDS and lane permutes ------------------===//
//
// LDS shared by the four waves of a 256-item work-group across barriers,
// every width, read2/write2 and their st64 forms, atomics between waves,
// append/consume, ds_permute/ds_bpermute with ragged EXEC (clang's -O0 and
// -O2 code); and, with instructions pinned by inline asm (kernels/ds.c,
// -O2): every DS atomic with per-lane operands, D16 reads and writes,
// chosen read2/write2/wrxchg2 offsets, addtid, every ds_swizzle mode, and
// accesses beyond the group's LDS (dropped, read as zero, or a fault with
// StrictLds). Results are compared with the host.
//
//===----------------------------------------------------------------------===//

#include "LdsBarrierReference.h"
#include "loom/emu/Module.h"

#include "llvm/Support/FormatVariadic.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <random>

using namespace loom::emu;

namespace {

using u16 = uint16_t;
using u32 = uint32_t;
using u64 = uint64_t;

/// ds.c at one optimisation level.
class DsTest : public ::testing::TestWithParam<int> {
protected:
  void SetUp() override {
    auto D = Device::create();
    ASSERT_TRUE(bool(D)) << llvm::toString(D.takeError());
    Dev = std::move(*D);
    auto M = Module::loadFile(*Dev, std::string(LOOM_EMU_CORE_DIR) + "/ds.O" +
                                        std::to_string(GetParam()) + ".elf");
    ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
    Mod = std::move(*M);
  }
  DispatchResult launch(llvm::StringRef Kernel, u32 Items, u16 Group,
                        const KernelArgs &A) {
    auto R = Mod->launch(Kernel, LaunchConfig::linear(Items, Group), A);
    EXPECT_TRUE(bool(R)) << llvm::toString(R.takeError());
    return R ? *R : DispatchResult();
  }
  bool runOk(llvm::StringRef Kernel, u32 Items, u16 Group,
             const KernelArgs &A) {
    DispatchResult R = launch(Kernel, Items, Group, A);
    EXPECT_TRUE(R.ok()) << Kernel.str() << ": " << R.FirstFault.Message;
    return R.ok();
  }
  /// A buffer of \p N words: random (Seed != 0) or all \p Fill.
  template <typename T = u32>
  DeviceBuffer words(size_t N, unsigned Seed, T Fill = 0) {
    DeviceBuffer B(*Dev, N * sizeof(T));
    std::mt19937_64 G(Seed);
    for (size_t I = 0; I < N; ++I)
      B.data<T>()[I] = Seed ? T(G()) : Fill;
    return B;
  }
  std::unique_ptr<Device> Dev;
  std::unique_ptr<Module> Mod;
};

TEST_P(DsTest, WorkGroupSharesLdsAcrossBarriers) {
  const u32 N = 1024;
  DeviceBuffer In = words(N, 1), Out = words(3 * N, 0);
  for (u32 I = 0; I < N; ++I)
    In.data<u32>()[I] &= 0xffff; // keep sums readable
  ASSERT_TRUE(runOk("lds_barrier", N, 256,
                    KernelArgs().add(Out.address()).add(In.address())));
  ASSERT_TRUE(loom::emu::test::ldsBarrierOutputIsRight(
      In.data<u32>(), Out.data<u32>(), N / 256));
}

TEST_P(DsTest, EveryWidth) {
  const u32 N = 128;
  DeviceBuffer In(*Dev, 32 * N), Out(*Dev, 96 * N);
  std::mt19937 G(2);
  for (u32 I = 0; I < 32 * N; ++I)
    In.data<uint8_t>()[I] = uint8_t(G());
  std::memset(Out.data(), 0xee, 96 * N);
  ASSERT_TRUE(runOk("lds_widths", N, 64,
                    KernelArgs().add(Out.address()).add(In.address())));
  for (u32 I = 0; I < N; ++I) {
    const uint8_t *P = In.data<uint8_t>() + 32 * I;
    const uint8_t *O = Out.data<uint8_t>() + 96 * I;
    auto Get = [](const uint8_t *Q, auto V) {
      std::memcpy(&V, Q, sizeof(V));
      return V;
    };
    EXPECT_EQ(Get(O, int32_t()), int8_t(P[3])) << I;
    EXPECT_EQ(Get(O + 4, u32()), P[5]) << I;
    EXPECT_EQ(Get(O + 8, int32_t()), Get(P + 6, int16_t())) << I;
    EXPECT_EQ(Get(O + 12, u32()), Get(P + 10, uint16_t())) << I;
    EXPECT_EQ(Get(O + 16, u32()), Get(P + 12, u32())) << I;
    EXPECT_EQ(Get(O + 24, u64()), Get(P + 16, u64())) << I;
    EXPECT_EQ(std::memcmp(O + 32, P + 16, 12), 0) << I;
    EXPECT_EQ(std::memcmp(O + 48, P + 16, 16), 0) << I;
    EXPECT_EQ(O[64], uint8_t(P[1] + 1)) << I;
    EXPECT_EQ(O[65], uint8_t(P[2] - 1)) << I;
    EXPECT_EQ(Get(O + 66, int16_t()), int16_t(Get(P + 8, int16_t()) ^ 0x5a5a))
        << I;
    for (unsigned K = 0; K < 3; ++K)
      EXPECT_EQ(Get(O + 80 + 4 * K, u32()), Get(P + 4 * K, u32()) + 1) << I;
  }
}

TEST_P(DsTest, PairsAsClangFormsThem) {
  const u32 N = 512;
  DeviceBuffer In = words(N, 3), Out = words(4 * N, 0);
  ASSERT_TRUE(runOk("lds_pairs", N, 256,
                    KernelArgs().add(Out.address()).add(In.address())));
  for (u32 I = 0; I < N; ++I) {
    u32 G = I / 256 * 256, T = I % 256;
    auto X = [&](u32 Tt) { return In.data<u32>()[G + Tt]; };
    auto Q = [&](u32 K) -> u64 {
      return K < 256 ? u64(X(K)) << 32 | K : u64(K - 256) << 32 | X(K - 256);
    };
    u32 U = (T + 8) & 255, V = (T + 64) & 255, W5 = (T * 5) & 255;
    u64 A = Q(U) + Q(U + 256);
    EXPECT_EQ(Out.data<u32>()[4 * I], X(U) + ~X(U)) << I;
    EXPECT_EQ(Out.data<u32>()[4 * I + 1], (X(V) * 3) ^ X(V)) << I;
    EXPECT_EQ(Out.data<u32>()[4 * I + 2], u32(A) ^ u32(A >> 32)) << I;
    EXPECT_EQ(Out.data<u32>()[4 * I + 3], X(W5) - X(W5) * 3) << I;
  }
}

TEST_P(DsTest, AtomicsBetweenTheWavesOfAGroup) {
  const u32 N = 1024;
  DeviceBuffer In = words(N, 4), Out = words(16 * 4, 0), Ret = words(N, 0);
  ASSERT_TRUE(runOk("lds_atomics", N, 256,
                    KernelArgs()
                        .add(Out.address())
                        .add(Ret.address())
                        .add(In.address())));
  for (u32 G = 0; G < N / 256; ++G) {
    int32_t C[13] = {0, 0, 0, -1, 0, -1, -1, 0, 0, 0, 0, 0, 0};
    u32 Inc = 0, Dec = 0, Chain = 0;
    u64 Sum64 = 0;
    for (u32 T = 0; T < 256; ++T) {
      u32 X = In.data<u32>()[256 * G + T];
      C[0] += 1;
      C[1] -= int32_t(X & 15);
      C[2] = std::max(C[2], int32_t(X));
      C[3] = std::min(C[3], int32_t(X));
      C[4] = int32_t(std::max(u32(C[4]), X));
      C[5] = int32_t(std::min(u32(C[5]), X));
      C[6] &= ~(1 << (X % 31));
      C[7] |= 1 << (X % 29);
      C[8] ^= int32_t(X);
      Inc = Inc >= 77 ? 0 : Inc + 1;
      Dec = Dec == 0 || Dec > 77 ? 77 : Dec - 1;
      Chain = Chain * 3 + 1;
      Sum64 += u64(X) << 16;
    }
    C[9] = int32_t(Inc);
    C[10] = int32_t(Dec);
    C[12] = int32_t(Chain);
    const int32_t *O = Out.data<int32_t>() + 16 * G;
    for (unsigned K = 0; K < 13; ++K)
      if (K != 11)
        EXPECT_EQ(O[K], C[K]) << "group " << G << " counter " << K;
    EXPECT_LT(u32(O[11]), 256u) << "group " << G;
    EXPECT_EQ(u32(O[13]), u32(Sum64)) << G;
    EXPECT_EQ(u32(O[14]), u32(Sum64 >> 32)) << G;
    EXPECT_EQ(u32(O[15]), u32(64.0f) ^ u32(384.0 * 4)) << G;
    std::vector<u32> R(Ret.data<u32>() + 256 * G, Ret.data<u32>() + 256 * G + 256);
    std::sort(R.begin(), R.end());
    for (u32 T = 0; T < 256; ++T)
      ASSERT_EQ(R[T], T) << "group " << G;
  }
}

TEST_P(DsTest, AppendAndConsumeCountActiveLanes) {
  const u32 N = 1024;
  DeviceBuffer In = words(N, 5), Out = words(1024 + 16, 0);
  ASSERT_TRUE(runOk("append_consume", N, 256,
                    KernelArgs().add(Out.address()).add(In.address())));
  for (u32 G = 0; G < N / 256; ++G) {
    // Per wave: lanes that appended (consumed) all got one value; in some
    // wave order, each value is 1000 plus (minus) the lanes before it.
    for (unsigned Kind = 0; Kind < 2; ++Kind) {
      std::vector<std::pair<u32, u32>> Waves; // value, lanes
      for (u32 W = 0; W < 4; ++W) {
        u32 Count = 0, Value = 0;
        for (u32 L = 0; L < 64; ++L) {
          u32 I = 256 * G + 64 * W + L;
          if ((In.data<u32>()[I] & 1) != (Kind == 0))
            continue;
          if (Count)
            EXPECT_EQ(Out.data<u32>()[I], Value) << I;
          Value = Out.data<u32>()[I];
          ++Count;
        }
        if (Count)
          Waves.push_back({Value, Count});
      }
      std::sort(Waves.begin(), Waves.end());
      if (Kind == 1)
        std::reverse(Waves.begin(), Waves.end());
      u32 Expect = 1000;
      for (auto [Value, Count] : Waves) {
        EXPECT_EQ(Value, Expect) << "group " << G << " kind " << Kind;
        Expect = Kind == 0 ? Expect + Count : Expect - Count;
      }
      EXPECT_EQ(Out.data<u32>()[1024 + 4 * G + 1 + Kind], Expect);
    }
    EXPECT_EQ(Out.data<u32>()[1024 + 4 * G], 1000u);
    EXPECT_EQ(Out.data<u32>()[1024 + 4 * G + 3], 1000u);
  }
}

TEST_P(DsTest, PermutesWithRaggedExec) {
  const u32 N = 1024;
  DeviceBuffer In = words(N, 6), Addr = words(N, 7), Out = words(3 * N, 0);
  ASSERT_TRUE(runOk("permutes", N, 64,
                    KernelArgs()
                        .add(Out.address())
                        .add(In.address())
                        .add(Addr.address())));
  for (u32 W = 0; W < N / 64; ++W) {
    const u32 *X = In.data<u32>() + 64 * W, *A = Addr.data<u32>() + 64 * W;
    auto On = [&](u32 L) { return X[L] % 3 != 0; };
    u32 Forward[64] = {};
    for (u32 L = 0; L < 64; ++L)
      if (On(L))
        Forward[(A[L] >> 2) & 63] = X[L];
    for (u32 L = 0; L < 64; ++L) {
      u32 I = 64 * W + L, J = (A[L] >> 2) & 63;
      u32 B = On(L) ? (On(J) ? X[J] : 0) : 0xdead0000 | I;
      u32 P = On(L) ? Forward[L] : 0xbeef0000 | I;
      ASSERT_EQ(Out.data<u32>()[3 * I], B) << "bpermute lane " << I;
      ASSERT_EQ(Out.data<u32>()[3 * I + 1], P) << "permute lane " << I;
    }
  }
}

//===----------------------------------------------------------------------===//
// Pinned instructions (-O2)
//===----------------------------------------------------------------------===//

class DsAsmTest : public DsTest {};

/// The lane ds_swizzle_b32 pattern \p P makes lane \p L read (the ISA's
/// pseudocode, written out independently).
u32 swizzleRef(u32 P, u32 L) {
  u32 Hi = L & 32, I = L & 31;
  if (P >= 0xe000) {
    u32 M = P & 31, Rev = 0;
    for (u32 B = 0; B < 5; ++B)
      Rev |= ((I >> B) & 1) << (4 - B);
    return ((Rev >> std::popcount(M)) | (I & M)) | Hi;
  }
  if (P >= 0xc000) {
    int Rot = (P >> 5) & 31;
    if (P & 0x400)
      Rot = -Rot;
    u32 M = P & 31;
    return ((I & M) | (u32(int(I) + Rot) & ~M & 31)) | Hi;
  }
  if (P & 0x8000)
    return (L & ~3u) + ((P >> (2 * (L % 4))) & 3);
  u32 And = P & 31, Or = (P >> 5) & 31, Xor = (P >> 10) & 31;
  return (((I & And) | Or) ^ Xor) | Hi;
}

TEST_P(DsAsmTest, EverySwizzleMode) {
  const u32 N = 256;
  const u32 Patterns[] = {0x80e4, 0x801b, 0x80aa, 0x041f, 0x401f, 0x7c1f,
                          0x0060, 0x0a18, 0xc060, 0xc420, 0xc021, 0xc7e3,
                          0xe000, 0xe010, 0xe005, 0xe01f};
  DeviceBuffer In = words(N, 8);
  for (u32 P : Patterns) {
    DeviceBuffer Out = words(N, 0);
    char Name[32];
    snprintf(Name, sizeof(Name), "swizzle_0x%04x", P);
    ASSERT_TRUE(runOk(Name, N, 64,
                      KernelArgs().add(Out.address()).add(In.address())));
    for (u32 I = 0; I < N; ++I) {
      const u32 *X = In.data<u32>() + I / 64 * 64;
      u32 L = I % 64, J = swizzleRef(P, L);
      u32 Want = X[L] % 3 ? (X[J] % 3 ? X[J] : 0) : 0x5a5a0000 | I;
      ASSERT_EQ(Out.data<u32>()[I], Want) << Name << " lane " << I;
    }
  }
  // The ISA's worked examples (1-based values of lanes 0..31).
  EXPECT_EQ(swizzleRef(0xe000, 1), 16u);
  EXPECT_EQ(swizzleRef(0xe010, 1), 8u);
  EXPECT_EQ(swizzleRef(0xc021, 1), 3u);
  EXPECT_EQ(swizzleRef(0xc421, 0), 30u);
}

TEST_P(DsAsmTest, D16ReadsAndHighHalfWrites) {
  const u32 N = 128;
  DeviceBuffer In = words(N, 9), Old = words(N, 10), Out = words(8 * N, 0);
  ASSERT_TRUE(runOk("lds_d16", N, 64,
                    KernelArgs()
                        .add(Out.address())
                        .add(In.address())
                        .add(Old.address())));
  for (u32 I = 0; I < N; ++I) {
    u32 X = In.data<u32>()[I], O = Old.data<u32>()[I];
    u32 B = (X >> 8) & 0xff, S = u16(int16_t(int8_t(B))), H = X >> 16;
    u32 Want[7] = {(O & 0xffff0000u) | B, (O & 0xffff) | B << 16,
                   (O & 0xffff0000u) | S, (O & 0xffff) | S << 16,
                   (O & 0xffff0000u) | H, (O & 0xffff) | H << 16,
                   (X & 0xff00) | ((O >> 16) & 0xff) | (O & 0xffff0000u)};
    for (unsigned K = 0; K < 7; ++K)
      ASSERT_EQ(Out.data<u32>()[8 * I + K], Want[K]) << I << " " << K;
  }
}

TEST_P(DsAsmTest, Read2Write2AndWrxchg2Offsets) {
  const u32 N = 128;
  DeviceBuffer In = words(N, 11), Out = words(8 * N, 0);
  ASSERT_TRUE(runOk("lds_pairs_asm", N, 64,
                    KernelArgs().add(Out.address()).add(In.address())));
  for (u32 I = 0; I < N; ++I) {
    u32 X = In.data<u32>()[I];
    // dword k of the item's 8 after all writes; wrxchg2 returns 1 and 7.
    u32 Want[8] = {~X,       X,
                   X + 1,    X ^ 0x1234,
                   X ^ 0x77777777u,
                   0x11111111u ^ X,
                   (X * 5) ^ ~X,
                   X * 7};
    for (unsigned K = 0; K < 8; ++K)
      ASSERT_EQ(Out.data<u32>()[8 * I + K], Want[K]) << I << " " << K;
  }
}

template <typename T> using DsRef = std::function<T(T Old, T D0, T D1)>;

template <typename T> std::vector<T> dsEdges();
template <> std::vector<u32> dsEdges() {
  return {0,          1,          2,          77,         78,
          0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffe, 0x3f800000,
          0xbf800000, 0x00000000, 0x80000000, 0x7f800000, 0x7fc00000,
          0x00000001, 0x12345678};
}
template <> std::vector<u64> dsEdges() {
  return {0,
          1,
          77,
          0x7fffffffffffffffull,
          0x8000000000000000ull,
          ~0ull,
          std::bit_cast<u64>(1.5),
          std::bit_cast<u64>(-0.0),
          std::bit_cast<u64>(std::nan("")),
          std::bit_cast<u64>(INFINITY * 1.0),
          0x00000000ffffffffull,
          0x123456789abcdef0ull};
}

template <typename T>
void checkDsAtomic(Device &Dev, Module &Mod, const char *Name,
                   const DsRef<T> &Ref, bool Rtn = true) {
  const u32 N = 1024;
  std::vector<T> E = dsEdges<T>();
  size_t M = E.size();
  DeviceBuffer Mem(Dev, sizeof(T) * N), D0(Dev, sizeof(T) * N),
      D1(Dev, sizeof(T) * N), Ret(Dev, sizeof(T) * N);
  std::mt19937_64 G(12);
  for (u32 I = 0; I < N; ++I) {
    T Old = I < M * M ? E[I % M] : T(G());
    Mem.data<T>()[I] = Old;
    D0.data<T>()[I] = I < M * M ? E[(I / M) % M] : T(G());
    D1.data<T>()[I] = I % 3 == 0 ? Old : T(G());
  }
  std::vector<T> Old(Mem.data<T>(), Mem.data<T>() + N);
  std::string Kernel = std::string("ds_") + Name;
  auto R = Mod.launch(Kernel, LaunchConfig::linear(N, 64),
                      KernelArgs()
                          .add(Mem.address())
                          .add(D0.address())
                          .add(D1.address())
                          .add(Ret.address()));
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  ASSERT_TRUE(R->ok()) << Kernel << ": " << R->FirstFault.Message;
  for (u32 I = 0; I < N; ++I) {
    T A = D0.data<T>()[I], B = D1.data<T>()[I];
    ASSERT_EQ(Mem.data<T>()[I], Ref(Old[I], A, B))
        << Kernel << " lane " << I << std::hex << " old " << u64(Old[I])
        << " data " << u64(A) << " " << u64(B);
    ASSERT_EQ(Ret.data<T>()[I], Rtn ? Old[I] : T(0)) << Kernel << " lane " << I;
  }
}

TEST_P(DsAsmTest, EveryDsAtomic) {
  using S32 = int32_t;
  using S64 = int64_t;
  auto F32 = [](u32 X) { return std::bit_cast<float>(X); };
  auto F64 = [](u64 X) { return std::bit_cast<double>(X); };
  auto A32 = [&](const char *Name, DsRef<u32> F, bool Rtn = true) {
    checkDsAtomic<u32>(*Dev, *Mod, Name, F, Rtn);
  };
  auto A64 = [&](const char *Name, DsRef<u64> F) {
    checkDsAtomic<u64>(*Dev, *Mod, Name, F);
  };
  A32("add", [](u32 O, u32 D, u32) { return O + D; });
  A32("sub", [](u32 O, u32 D, u32) { return O - D; });
  A32("rsub", [](u32 O, u32 D, u32) { return D - O; });
  A32("inc", [](u32 O, u32 D, u32) { return O >= D ? 0 : O + 1; });
  A32("dec", [](u32 O, u32 D, u32) { return O == 0 || O > D ? D : O - 1; });
  A32("min_i32", [](u32 O, u32 D, u32) { return u32(std::min(S32(O), S32(D))); });
  A32("max_i32", [](u32 O, u32 D, u32) { return u32(std::max(S32(O), S32(D))); });
  A32("min_u32", [](u32 O, u32 D, u32) { return std::min(O, D); });
  A32("max_u32", [](u32 O, u32 D, u32) { return std::max(O, D); });
  A32("and", [](u32 O, u32 D, u32) { return O & D; });
  A32("or", [](u32 O, u32 D, u32) { return O | D; });
  A32("xor", [](u32 O, u32 D, u32) { return O ^ D; });
  A32("mskor", [](u32 O, u32 M, u32 V) { return (O & ~M) | V; });
  A32("wrxchg", [](u32, u32 D, u32) { return D; });
  // gfx9 cmpst: data0 is the comparand, data1 the new value.
  A32("cmpst", [](u32 O, u32 C, u32 S) { return O == C ? S : O; });
  A32("cmpst_f32", [&](u32 O, u32 C, u32 S) { return F32(O) == F32(C) ? S : O; });
  A32("wrap", [](u32 O, u32 D, u32 D2) { return O >= D ? O - D : O + D2; });
  A32("add_f32", [&](u32 O, u32 D, u32) {
    return std::bit_cast<u32>(F32(O) + F32(D));
  });
  A32("min_f32", [&](u32 O, u32 D, u32) { return F32(D) < F32(O) ? D : O; });
  A32("max_f32", [&](u32 O, u32 D, u32) { return F32(D) > F32(O) ? D : O; });
  A32("add_noret", [](u32 O, u32 D, u32) { return O + D; }, false);
  A32("mskor_noret", [](u32 O, u32 M, u32 V) { return (O & ~M) | V; }, false);
  A64("add_u64", [](u64 O, u64 D, u64) { return O + D; });
  A64("sub_u64", [](u64 O, u64 D, u64) { return O - D; });
  A64("rsub_u64", [](u64 O, u64 D, u64) { return D - O; });
  A64("inc_u64", [](u64 O, u64 D, u64) { return O >= D ? 0 : O + 1; });
  A64("dec_u64", [](u64 O, u64 D, u64) { return O == 0 || O > D ? D : O - 1; });
  A64("min_i64", [](u64 O, u64 D, u64) { return u64(std::min(S64(O), S64(D))); });
  A64("max_i64", [](u64 O, u64 D, u64) { return u64(std::max(S64(O), S64(D))); });
  A64("min_u64", [](u64 O, u64 D, u64) { return std::min(O, D); });
  A64("max_u64", [](u64 O, u64 D, u64) { return std::max(O, D); });
  A64("and_b64", [](u64 O, u64 D, u64) { return O & D; });
  A64("or_b64", [](u64 O, u64 D, u64) { return O | D; });
  A64("xor_b64", [](u64 O, u64 D, u64) { return O ^ D; });
  A64("mskor_b64", [](u64 O, u64 M, u64 V) { return (O & ~M) | V; });
  A64("wrxchg_b64", [](u64, u64 D, u64) { return D; });
  A64("cmpst_b64", [](u64 O, u64 C, u64 S) { return O == C ? S : O; });
  A64("cmpst_f64", [&](u64 O, u64 C, u64 S) { return F64(O) == F64(C) ? S : O; });
  A64("add_f64", [&](u64 O, u64 D, u64) {
    return std::bit_cast<u64>(F64(O) + F64(D));
  });
  A64("min_f64", [&](u64 O, u64 D, u64) { return F64(D) < F64(O) ? D : O; });
  A64("max_f64", [&](u64 O, u64 D, u64) { return F64(D) > F64(O) ? D : O; });
}

TEST_P(DsAsmTest, AddTidUsesM0AndTheLaneIndex) {
  const u32 N = 64;
  DeviceBuffer In = words(N, 13), Out = words(N, 0);
  ASSERT_TRUE(runOk("lds_addtid", N, 64,
                    KernelArgs().add(Out.address()).add(In.address())));
  for (u32 L = 0; L < 64; ++L)
    EXPECT_EQ(Out.data<u32>()[L], L < 63 ? In.data<u32>()[L + 1] : 0x66666666u)
        << L;
}

// Beyond the group's LDS, as the hardware does it: a read is zero, a write
// and an atomic are dropped (the atomic returns zero); the dispatch counts
// the lanes and describes the first.
TEST_P(DsAsmTest, AccessBeyondTheGroupsLdsReadsZero) {
  DeviceBuffer Out = words(64, 0);
  // lds_wild reads at its argument + 8; every lane adds its own 1.
  for (u32 Addr : {0x10000u, 256u, 253u}) {
    DispatchResult R = launch("lds_wild", 64, 64,
                              KernelArgs().add(Out.address()).add(Addr - 8));
    ASSERT_TRUE(R.ok()) << Addr << ": " << R.FirstFault.Message;
    EXPECT_EQ(R.LdsOutOfRange, 64u) << Addr;
    for (u32 L = 0; L < 64; ++L)
      ASSERT_EQ(Out.data<u32>()[L], 1u) << Addr << " lane " << L;
    ASSERT_TRUE(R.FirstLdsOutOfRange);
    const Fault &F = *R.FirstLdsOutOfRange;
    EXPECT_EQ(F.Address, Addr);
    EXPECT_FALSE(F.IsWrite);
    EXPECT_EQ(F.Function, "lds_wild");
    EXPECT_NE(F.Pc, 0u);
    EXPECT_NE(F.Message.find(llvm::formatv("LDS read of 4 bytes at LDS "
                                           "offset {0:x} in lane 0, beyond "
                                           "the work-group's 256 bytes of "
                                           "LDS: read as zero in kernel "
                                           "'lds_wild' at lds_wild+",
                                           Addr)
                                 .str()),
              std::string::npos)
        << F.Message;
  }
  // The last dword of the allocation is in range, and so is an address that
  // wraps around to the start (clang folds "base - 4t" that way).
  for (u32 Arg : {252u - 8, 0xfffffff8u}) {
    DispatchResult R = launch("lds_wild", 64, 64,
                              KernelArgs().add(Out.address()).add(Arg));
    EXPECT_TRUE(R.ok()) << R.FirstFault.Message;
    EXPECT_EQ(R.LdsOutOfRange, 0u);
    EXPECT_FALSE(R.FirstLdsOutOfRange);
  }
}

TEST_P(DsAsmTest, WritesBeyondTheGroupsLdsAreDropped) {
  DeviceBuffer Out = words(5 * 64, 0);
  DispatchResult R = launch("lds_wild_write", 64, 64,
                            KernelArgs().add(Out.address()).add(0x10000u));
  ASSERT_TRUE(R.ok()) << R.FirstFault.Message;
  // Odd lanes: write, add and read; every lane: read2's second dword.
  EXPECT_EQ(R.LdsOutOfRange, 3 * 32u + 64u);
  ASSERT_TRUE(R.FirstLdsOutOfRange);
  EXPECT_TRUE(R.FirstLdsOutOfRange->IsWrite);
  EXPECT_EQ(R.FirstLdsOutOfRange->Address, 0x10000u + 4);
  for (u32 T = 0; T < 64; ++T) {
    const u32 *O = Out.data<u32>() + 5 * T;
    u32 Own = T & 1 ? 0x1000 + T : (0xd0000000u | T) + 1;
    EXPECT_EQ(O[0], T & 1 ? 0 : Own) << "read, lane " << T;
    EXPECT_EQ(O[1], T & 1 ? 0 : 0xd0000000u | T) << "add's return, lane " << T;
    EXPECT_EQ(O[2], Own) << "own dword, lane " << T;
    EXPECT_EQ(O[3], Own) << "read2's first, lane " << T;
    EXPECT_EQ(O[4], 0u) << "read2's second, lane " << T;
  }
}

TEST_P(DsAsmTest, LanesOffInExecAreNotOutOfRange) {
  DeviceBuffer Out = words(2 * 64, 0);
  DispatchResult R = launch("lds_masked_wild", 64, 64,
                            KernelArgs().add(Out.address()).add(0x10000u));
  ASSERT_TRUE(R.ok()) << R.FirstFault.Message;
  EXPECT_EQ(R.LdsOutOfRange, 0u);
  EXPECT_FALSE(R.FirstLdsOutOfRange);
  for (u32 T = 0; T < 64; ++T) {
    const u32 *O = Out.data<u32>() + 2 * T;
    EXPECT_EQ(O[0], T & 1 ? 0xe0000000u | T : 7u) << "read, lane " << T;
    EXPECT_EQ(O[1], T & 1 ? 0x2000 + T : 0xe0000000u | (T + 1))
        << "own dword, lane " << T;
  }
}

TEST_P(DsAsmTest, MaskedRead2KeepsInactiveLanes) {
  DeviceBuffer Out = words(6 * 64, 0);
  DispatchResult R = launch("lds_read2_masked", 64, 64,
                            KernelArgs().add(Out.address()).add(0x40000u));
  ASSERT_TRUE(R.ok()) << R.FirstFault.Message;
  EXPECT_EQ(R.LdsOutOfRange, 0u);
  auto Init = [](u32 E) { return 0x5a5a0000u + E % 64; };
  for (u32 T = 0; T < 64; ++T) {
    const u32 *O = Out.data<u32>() + 6 * T;
    bool On = T % 3 == 1;
    u32 E = 63 - T; // the element an active lane reads first
    EXPECT_EQ(O[0], On ? Init(E) : 0xa0000000u | T) << "lane " << T;
    EXPECT_EQ(O[1], On ? E : 0xb0000000u | T) << "lane " << T;
    EXPECT_EQ(O[2], On ? Init(E + 128) : 0xc0000000u | T) << "lane " << T;
    EXPECT_EQ(O[3], On ? E + 128 : 0xd0000000u | T) << "lane " << T;
    // Element T was written by lane 63 - T if that lane is active.
    u32 W = 63 - T;
    bool Written = W % 3 == 1;
    EXPECT_EQ(O[4], Written ? ~W : Init(T)) << "element " << T;
    EXPECT_EQ(O[5], Written ? W * 3 : T) << "element " << T;
  }
}

TEST_P(DsAsmTest, GatherWithContiguousEndsAndAReversedMiddle) {
  DeviceBuffer In = words(128, 101), Out = words(128, 0);
  ASSERT_TRUE(runOk("lds_reversed_middle", 128, 64,
                    KernelArgs().add(Out.address()).add(In.address())));
  for (u32 G = 0; G < 128; ++G) {
    u32 T = G % 64, S = T == 0 || T == 63 ? T : 63 - T;
    EXPECT_EQ(Out.data<u32>()[G], In.data<u32>()[G - T + S]) << G;
  }
}

// LOOM_STRICT_LDS (DeviceOptions::StrictLds): a memory fault instead.
TEST_P(DsAsmTest, StrictLdsFaultsBeyondTheGroupsLds) {
  DeviceOptions Strict;
  Strict.StrictLds = true;
  auto D = Device::create(Strict);
  ASSERT_TRUE(bool(D)) << llvm::toString(D.takeError());
  auto M = Module::loadFile(**D, std::string(LOOM_EMU_CORE_DIR) + "/ds.O" +
                                     std::to_string(GetParam()) + ".elf");
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  DeviceBuffer Out(**D, 64 * 4);
  for (u32 Addr : {0x10000u, 256u, 253u}) {
    auto R = (*M)->launch("lds_wild", LaunchConfig::linear(64, 64),
                          KernelArgs().add(Out.address()).add(Addr - 8));
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    ASSERT_EQ(R->Status, DispatchStatus::MemoryFault) << Addr;
    EXPECT_EQ(R->FirstFault.Address, Addr);
    EXPECT_FALSE(R->FirstFault.IsWrite);
    EXPECT_NE(R->FirstFault.Message.find("memory fault: LDS read"),
              std::string::npos)
        << R->FirstFault.Message;
  }
}

INSTANTIATE_TEST_SUITE_P(OptLevels, DsTest, ::testing::Values(0, 2),
                         [](const auto &Info) {
                           return "O" + std::to_string(Info.param);
                         });
INSTANTIATE_TEST_SUITE_P(OptLevels, DsAsmTest, ::testing::Values(2),
                         [](const auto &Info) {
                           return "O" + std::to_string(Info.param);
                         });

} // namespace
