//===- tests/emu/core/LaneTest.cpp - Moves and cross-lane operations -----===//
//
// v_readlane / v_readfirstlane / v_writelane (EXEC ignored, lane selects
// from SGPR, M0 and constants, wrapped to 0-63), v_swap_b32, AGPR moves,
// v_mov_b32 from scalars and constants, and the lane builtins clang lowers
// to mbcnt, readlane and DPP moves.
//
//===----------------------------------------------------------------------===//

#include "VectorTestUtil.h"

#include <bit>

using namespace loom::emu;
using namespace loom::emu::test;

namespace {

using u32 = uint32_t;
using u64 = uint64_t;

/// Masks for lane operations: the usual two, one whose first active lane
/// is 17, and an empty one.
constexpr u64 LaneMasks[] = {TestMasks[0], TestMasks[1],
                             0xffff'0000'fffe'0000ull, 0};

class LaneTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() { File = new KernelFile("lane.O2.elf"); }
  static void TearDownTestSuite() {
    delete File;
    File = nullptr;
  }

  /// TO_SCALAR kernels: one result per wave, Ref(A of the wave, S, EXEC).
  static void checkScalar(const char *Kernel, u32 S,
                          const std::function<u32(const u32 *A, u64 M)> &Ref) {
    for (u64 M : LaneMasks) {
      Buffers32 Buf(File->device());
      if (!File->run(Kernel, KernelArgs()
                                 .add(Buf.Out.address())
                                 .add(Buf.A.address())
                                 .add(S)
                                 .add(M)))
        return;
      for (unsigned W = 0; W < NumWaves; ++W)
        ASSERT_EQ(Buf.out(W), Ref(Buf.A.data<u32>() + 64 * W, M))
            << Kernel << " wave " << W << " mask " << std::hex << M;
    }
  }

  struct Pair {
    u32 D, E;
  };
  /// TO_VECTOR kernels: Ref(A, D, E, lane, S, EXEC) gives the new (d, e).
  using RefPair = std::function<Pair(u32 A, u32 D, u32 E, unsigned L, u64 M)>;
  static void checkVector(const char *Kernel, u32 S, const RefPair &Ref) {
    for (u64 M : LaneMasks) {
      Device &Dev = File->device();
      Buffers32 Buf(Dev);
      DeviceBuffer Out2(Dev, NumItems * 4);
      for (unsigned I = 0; I < NumItems; ++I)
        Out2.data<u32>()[I] = operand(2, I);
      if (!File->run(Kernel, KernelArgs()
                                 .add(Buf.Out.address())
                                 .add(Out2.address())
                                 .add(Buf.A.address())
                                 .add(S)
                                 .add(M)))
        return;
      for (unsigned I = 0; I < NumItems; ++I) {
        Pair Want = Ref(Buf.a(I), operand(3, I), operand(2, I), I % 64, M);
        ASSERT_EQ(Buf.out(I), Want.D)
            << Kernel << " d, lane " << I << " mask " << std::hex << M;
        ASSERT_EQ(Out2.data<u32>()[I], Want.E)
            << Kernel << " e, lane " << I << " mask " << std::hex << M;
      }
    }
  }

  static KernelFile *File;
};
KernelFile *LaneTest::File = nullptr;

TEST_F(LaneTest, ReadlaneIgnoresExec) {
  checkScalar("readlane_sgpr", 100,
              [](const u32 *A, u64) { return A[100 % 64]; });
  checkScalar("readlane_m0", 45, [](const u32 *A, u64) { return A[45]; });
  checkScalar("readlane_const", 0, [](const u32 *A, u64) { return A[37]; });
}

TEST_F(LaneTest, ReadfirstlaneReadsFirstActiveLane) {
  checkScalar("readfirstlane", 0, [](const u32 *A, u64 M) {
    return A[M ? std::countr_zero(M) : 0];
  });
}

TEST_F(LaneTest, WritelaneIgnoresExec) {
  checkVector("writelane_sgpr", 0x80000043,
              [](u32, u32 D, u32 E, unsigned L, u64) {
                return Pair{L == 3 ? 0x80000043u : D, E};
              });
  checkVector("writelane_const", 0, [](u32, u32 D, u32 E, unsigned L, u64) {
    return Pair{L == 60 ? u32(-3) : D, E};
  });
}

TEST_F(LaneTest, SwapAndMoves) {
  auto On = [](u64 M, unsigned L) { return (M >> L) & 1; };
  checkVector("swap", 0, [&](u32, u32 D, u32 E, unsigned L, u64 M) {
    return On(M, L) ? Pair{E, D} : Pair{D, E};
  });
  checkVector("mov_sgpr", 0xabcdef01,
              [&](u32, u32 D, u32 E, unsigned L, u64 M) {
                return Pair{On(M, L) ? 0xabcdef01u : D, E};
              });
  checkVector("mov_const", 0, [&](u32, u32 D, u32 E, unsigned L, u64 M) {
    return Pair{On(M, L) ? u32(-16) : D, E};
  });
  checkVector("mov_literal", 0, [&](u32, u32 D, u32 E, unsigned L, u64 M) {
    return Pair{On(M, L) ? 0xcafe1234u : D, E};
  });
}

TEST_F(LaneTest, AccvgprMoves) {
  checkVector("accvgpr", 0, [](u32 A, u32 D, u32 E, unsigned L, u64 M) {
    return (M >> L) & 1 ? Pair{A, 64} : Pair{D, E};
  });
}

// s_set_gpr_idx_on: v_mov_b32 reads v[1 + 2] = 33 on active lanes; with
// DST indexing it writes v[1 + 1] (v2) and leaves v1 (the kernel copies
// v2 and v1 out under the same EXEC).
TEST_F(LaneTest, GprIndexing) {
  auto On = [](u64 M, unsigned L) { return (M >> L) & 1; };
  checkVector("gpr_idx_src", 2, [&](u32, u32 D, u32 E, unsigned L, u64 M) {
    return Pair{On(M, L) ? 33u : D, E};
  });
  checkVector("gpr_idx_dst", 1, [&](u32 A, u32 D, u32 E, unsigned L, u64 M) {
    return On(M, L) ? Pair{A, 11u} : Pair{D, E};
  });
}

class LaneMixTest : public ::testing::TestWithParam<int> {};

TEST_P(LaneMixTest, BuiltinsMatchTheirDefinition) {
  KernelFile F("lane.O" + std::to_string(GetParam()) + ".elf");
  Buffers32 Buf(F.device());
  DeviceBuffer Out(F.device(), NumItems * 8 * 4);
  ASSERT_TRUE(F.run("lane_mix", KernelArgs()
                                    .add(Out.address())
                                    .add(Buf.A.address())
                                    .add(Buf.B.address())));
  for (unsigned W = 0; W < NumWaves; ++W) {
    const u32 *A = Buf.A.data<u32>() + 64 * W, *B = Buf.B.data<u32>() + 64 * W;
    u64 Odd = 0;
    for (unsigned L = 0; L < 64; ++L)
      Odd |= u64(A[L] & 1) << L;
    for (unsigned L = 0; L < 64; ++L) {
      const u32 *O = Out.data<u32>() + 8 * (64 * W + L);
      u32 Want[8] = {
          L,
          A[0],
          A[5],
          L % 16 ? A[L - 1] : 7u,       // row_shr:1, old 7 on row starts
          A[(L & ~3u) | ((L & 3) ^ 1)], // quad_perm:[1,0,3,2]
          A[63] + B[63],
          u32(std::popcount(Odd)),
          A[L] & 1 ? B[std::countr_zero(Odd)] + L : 0,
      };
      for (unsigned K = 0; K < 8; ++K)
        ASSERT_EQ(O[K], Want[K])
            << "output " << K << ", wave " << W << " lane " << L;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(OptLevels, LaneMixTest, ::testing::Values(0, 2),
                         [](const auto &Info) {
                           return "O" + std::to_string(Info.param);
                         });

} // namespace
