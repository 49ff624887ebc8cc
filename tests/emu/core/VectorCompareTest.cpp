//===- tests/emu/core/VectorCompareTest.cpp - Integer VOPC ---------------===//
//
// Integer compares in their e32 (VCC), e64 (SGPR pair), SDWA and v_cmpx
// (EXEC) forms: the written mask must hold the predicate on active lanes
// and 0 on inactive ones; v_cmpx must leave that mask in EXEC.
//
//===----------------------------------------------------------------------===//

#include "VectorTestUtil.h"

#include <functional>

using namespace loom::emu;
using namespace loom::emu::test;

namespace {

using u32 = uint32_t;
using u64 = uint64_t;

constexpr u32 SgprValue = 0x8000;

class VectorCompareTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    File = new KernelFile("vector_compare.O2.elf");
  }
  static void TearDownTestSuite() {
    delete File;
    File = nullptr;
  }

  /// Runs compare kernel \p Kernel on 32- or 64-bit operands (T) and checks
  /// the mask against \p Pred on every lane.
  template <class T>
  static void check(const char *Kernel, const std::function<bool(T, T)> &Pred,
                    bool WritesExec = false) {
    for (u64 M : TestMasks) {
      Device &D = File->device();
      DeviceBuffer Cc(D, NumWaves * 8), Ex(D, NumWaves * 8),
          A(D, NumItems * sizeof(T)), B(D, NumItems * sizeof(T));
      for (unsigned I = 0; I < NumItems; ++I) {
        if constexpr (sizeof(T) == 8) {
          // Mix full 64-bit values with ones equal in a half.
          A.data<T>()[I] = operand64(0, I);
          B.data<T>()[I] =
              I % 3 == 0 ? A.data<T>()[I] ^ (u64(operand(1, I)) << (I % 2 * 32))
                         : operand64(1, I);
        } else {
          A.data<T>()[I] = operand(0, I);
          B.data<T>()[I] = operand(1, I);
        }
      }
      if (!File->run(Kernel, KernelArgs()
                                 .add(Cc.address())
                                 .add(Ex.address())
                                 .add(A.address())
                                 .add(B.address())
                                 .add(SgprValue)
                                 .add(M)))
        return;
      for (unsigned W = 0; W < NumWaves; ++W) {
        u64 Want = 0;
        for (unsigned L = 0; L < 64; ++L) {
          unsigned I = W * 64 + L;
          if (active(M, I) && Pred(A.data<T>()[I], B.data<T>()[I]))
            Want |= 1ull << L;
        }
        ASSERT_EQ(Cc.data<u64>()[W], Want)
            << Kernel << " wave " << W << " mask " << std::hex << M;
        ASSERT_EQ(Ex.data<u64>()[W], WritesExec ? Want : M)
            << Kernel << " EXEC, wave " << W;
      }
    }
  }
  static void check32(const char *K, const std::function<bool(u32, u32)> &P,
                      bool X = false) {
    check<u32>(K, P, X);
  }
  static void check64(const char *K, const std::function<bool(u64, u64)> &P,
                      bool X = false) {
    check<u64>(K, P, X);
  }

  static KernelFile *File;
};
KernelFile *VectorCompareTest::File = nullptr;

int32_t s32(u32 V) { return int32_t(V); }
int16_t s16(u32 V) { return int16_t(V); }
uint16_t z16(u32 V) { return uint16_t(V); }

TEST_F(VectorCompareTest, Int32) {
  check32("cmp_f_i32", [](u32, u32) { return false; });
  check32("cmp_lt_i32", [](u32 A, u32 B) { return s32(A) < s32(B); });
  check32("cmp_eq_i32", [](u32 A, u32 B) { return A == B; });
  check32("cmp_le_i32", [](u32 A, u32 B) { return s32(A) <= s32(B); });
  check32("cmp_gt_i32", [](u32 A, u32 B) { return s32(A) > s32(B); });
  check32("cmp_ne_i32", [](u32 A, u32 B) { return A != B; });
  check32("cmp_ge_i32", [](u32 A, u32 B) { return s32(A) >= s32(B); });
  check32("cmp_t_i32", [](u32, u32) { return true; });
  check32("cmp_lt_u32", [](u32 A, u32 B) { return A < B; });
  check32("cmp_le_u32", [](u32 A, u32 B) { return A <= B; });
  check32("cmp_gt_u32", [](u32 A, u32 B) { return A > B; });
  check32("cmp_ge_u32", [](u32 A, u32 B) { return A >= B; });
  check32("cmp_eq_u32", [](u32 A, u32 B) { return A == B; });
  check32("cmp_ne_u32", [](u32 A, u32 B) { return A != B; });
  check32("cmp_lt_u32_sgpr", [](u32, u32 B) { return SgprValue < B; });
  check32("cmp_gt_i32_const", [](u32, u32 B) { return -5 > s32(B); });
}

TEST_F(VectorCompareTest, Int16) {
  check32("cmp_lt_i16", [](u32 A, u32 B) { return s16(A) < s16(B); });
  check32("cmp_ge_i16", [](u32 A, u32 B) { return s16(A) >= s16(B); });
  check32("cmp_gt_u16", [](u32 A, u32 B) { return z16(A) > z16(B); });
  check32("cmp_le_u16", [](u32 A, u32 B) { return z16(A) <= z16(B); });
  check32("cmp_eq_u16", [](u32 A, u32 B) { return z16(A) == z16(B); });
}

TEST_F(VectorCompareTest, Int64) {
  check64("cmp_lt_i64", [](u64 A, u64 B) { return int64_t(A) < int64_t(B); });
  check64("cmp_gt_i64", [](u64 A, u64 B) { return int64_t(A) > int64_t(B); });
  check64("cmp_le_u64", [](u64 A, u64 B) { return A <= B; });
  check64("cmp_ne_u64", [](u64 A, u64 B) { return A != B; });
  check64("cmp_eq_u64", [](u64 A, u64 B) { return A == B; });
  check64("cmp_ge_u64", [](u64 A, u64 B) { return A >= B; });
}

TEST_F(VectorCompareTest, CmpxWritesExec) {
  check32(
      "cmpx_lt_u32", [](u32 A, u32 B) { return A < B; }, true);
  check32(
      "cmpx_ge_i32", [](u32 A, u32 B) { return s32(A) >= s32(B); }, true);
  check32(
      "cmpx_ne_u16", [](u32 A, u32 B) { return z16(A) != z16(B); }, true);
  check64(
      "cmpx_gt_i64", [](u64 A, u64 B) { return int64_t(A) > int64_t(B); },
      true);
  check32(
      "cmpx_t_u32", [](u32, u32) { return true; }, true);
  check64(
      "cmpx_f_u64", [](u64, u64) { return false; }, true);
}

TEST_F(VectorCompareTest, Sdwa) {
  check32("cmp_sdwa_lt_u32",
          [](u32 A, u32 B) { return (A >> 16) < (B & 0xff); });
  check32("cmp_sdwa_gt_i32_sext",
          [](u32 A, u32 B) { return int8_t(A >> 8) > int16_t(B); });
  check32(
      "cmpx_sdwa_eq_u16",
      [](u32 A, u32 B) { return (A & 0xff) == ((B >> 16) & 0xff); }, true);
}

class SelectMixTest : public ::testing::TestWithParam<int> {};

// The compares, selects and min/max clang writes for C.
TEST_P(SelectMixTest, MatchesHostEvaluation) {
  KernelFile F("vector_compare.O" + std::to_string(GetParam()) + ".elf");
  Buffers32 Buf(F.device());
  ASSERT_TRUE(F.run("select_mix", KernelArgs()
                                      .add(Buf.Out.address())
                                      .add(Buf.A.address())
                                      .add(Buf.B.address())));
  for (unsigned I = 0; I < NumItems; ++I) {
    u32 X = Buf.a(I), Y = Buf.b(I);
    long long P = (long long)X << 20, Q = (long long)(int)Y;
    u32 R = 0;
    R |= u32(s32(X) < s32(Y)) << 0;
    R |= u32(X <= Y) << 1;
    R |= u32(int16_t(X) > int16_t(Y)) << 2;
    R |= u32(P != Q) << 3;
    R |= u32(u64(P) >= u64(Q)) << 4;
    R |= u32(X == 0x12345678u) << 5;
    if ((X & 7) == (Y & 7))
      R += X > Y ? X - Y : Y - X;
    ASSERT_EQ(Buf.out(I), R) << "work-item " << I;
  }
}

INSTANTIATE_TEST_SUITE_P(OptLevels, SelectMixTest, ::testing::Values(0, 2),
                         [](const auto &Info) {
                           return "O" + std::to_string(Info.param);
                         });

} // namespace
