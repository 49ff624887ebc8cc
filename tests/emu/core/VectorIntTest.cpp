//===- tests/emu/core/VectorIntTest.cpp - Integer VALU operations ---------===//
//
// One kernel per instruction form (kernels/vector_int.c), run over edge-case
// operands with EXEC fully and partially set; every lane is compared with a
// host reference written from the ISA's description.
//
//===----------------------------------------------------------------------===//

#include "VectorTestUtil.h"

#include "emu/core/kernels/vector_int_mix.h"

#include <algorithm>
#include <bit>
#include <limits>

using namespace loom::emu;
using namespace loom::emu::test;

namespace {

using u16 = uint16_t;
using i16 = int16_t;
using u32 = uint32_t;
using i32 = int32_t;
using u64 = uint64_t;
using i64 = int64_t;

constexpr u32 SgprValue = 0x9e3779b9;
constexpr u64 CarryIn = 0x0123456789abcdefull;

template <class T> u32 sat(i64 V) {
  return u32(T(std::clamp<i64>(V, std::numeric_limits<T>::min(),
                               std::numeric_limits<T>::max()))) &
         u32((u64(1) << (8 * sizeof(T))) - 1);
}
u32 lo16(u32 V) { return V & 0xffff; }
u32 hi16(u32 V) { return V >> 16; }
i64 sext24(u32 V) { return i32(V << 8) >> 8; }
u32 absDiff(u32 A, u32 B) { return A > B ? A - B : B - A; }

class VectorIntTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() { File = new KernelFile("vector_int.O2.elf"); }
  static void TearDownTestSuite() {
    delete File;
    File = nullptr;
  }

  using RefLane = std::function<u32(const Buffers32 &B, unsigned I, u64 M)>;
  /// OP32 kernels: out[I] must equal Ref(inputs, I, EXEC) on every lane.
  static void checkLanes(const char *Kernel, const RefLane &Ref,
                         u32 S = SgprValue) {
    for (u64 M : TestMasks) {
      Buffers32 Buf(File->device());
      if (!File->run(Kernel, KernelArgs()
                                 .add(Buf.Out.address())
                                 .add(Buf.A.address())
                                 .add(Buf.B.address())
                                 .add(Buf.C.address())
                                 .add(S)
                                 .add(M)))
        return;
      for (unsigned I = 0; I < NumItems; ++I)
        ASSERT_EQ(Buf.out(I), Ref(Buf, I, M))
            << Kernel << " lane " << I << " mask " << std::hex << M
            << " a=" << Buf.a(I) << " b=" << Buf.b(I) << " c=" << Buf.c(I)
            << " old=" << operand(3, I);
    }
  }

  using Ref32 = std::function<u32(u32 A, u32 B, u32 C, u32 Old, unsigned L)>;
  /// out = op(a, b, c) on active lanes, the old value elsewhere.
  static void check32(const char *Kernel, const Ref32 &Ref, u32 S = SgprValue) {
    checkLanes(
        Kernel,
        [&](const Buffers32 &B, unsigned I, u64 M) {
          u32 Old = operand(3, I);
          return active(M, I) ? Ref(B.a(I), B.b(I), B.c(I), Old, I % 64) : Old;
        },
        S);
  }

  struct WithCarry {
    u32 V;
    bool C;
  };
  using RefCarry = std::function<WithCarry(u32 A, u32 B, bool Cin, u32 Old)>;
  /// CARRY32 kernels: out and a per-wave carry mask (0 on inactive lanes).
  static void checkCarry(const char *Kernel, const RefCarry &Ref) {
    for (u64 M : TestMasks) {
      Buffers32 Buf(File->device());
      DeviceBuffer Cout(File->device(), NumWaves * 8);
      if (!File->run(Kernel, KernelArgs()
                                 .add(Buf.Out.address())
                                 .add(Buf.A.address())
                                 .add(Buf.B.address())
                                 .add(Cout.address())
                                 .add(CarryIn)
                                 .add(M)))
        return;
      for (unsigned W = 0; W < NumWaves; ++W) {
        u64 WantMask = 0;
        for (unsigned L = 0; L < 64; ++L) {
          unsigned I = W * 64 + L;
          u32 Old = operand(3, I);
          WithCarry R{Old, false};
          if (active(M, I))
            R = Ref(Buf.a(I), Buf.b(I), (CarryIn >> L) & 1, Old);
          WantMask |= u64(R.C) << L;
          ASSERT_EQ(Buf.out(I), R.V) << Kernel << " lane " << I << std::hex
                                     << " a=" << Buf.a(I) << " b=" << Buf.b(I);
        }
        ASSERT_EQ(Cout.data<u64>()[W], WantMask) << Kernel << " wave " << W;
      }
    }
  }

  struct Wide64 {
    u64 V;
    bool C;
  };
  using Ref64 = std::function<Wide64(u32 A, u64 B, u64 C, u64 Old)>;
  /// OP64 kernels: 64-bit results and an optional mask output.
  static void check64(const char *Kernel, const Ref64 &Ref) {
    for (u64 M : TestMasks) {
      Device &D = File->device();
      DeviceBuffer Out(D, NumItems * 8), A(D, NumItems * 4), B(D, NumItems * 8),
          C(D, NumItems * 8), Cout(D, NumWaves * 8);
      for (unsigned I = 0; I < NumItems; ++I) {
        A.data<u32>()[I] = operand(0, I);
        B.data<u64>()[I] = I % 3 ? operand64(1, I) : operand(1, I);
        C.data<u64>()[I] = operand64(2, I);
        Out.data<u64>()[I] = operand64(3, I);
      }
      if (!File->run(Kernel, KernelArgs()
                                 .add(Out.address())
                                 .add(A.address())
                                 .add(B.address())
                                 .add(C.address())
                                 .add(Cout.address())
                                 .add(M)))
        return;
      for (unsigned W = 0; W < NumWaves; ++W) {
        u64 WantMask = 0;
        for (unsigned L = 0; L < 64; ++L) {
          unsigned I = W * 64 + L;
          u64 Old = operand64(3, I);
          Wide64 R{Old, false};
          if (active(M, I))
            R = Ref(A.data<u32>()[I], B.data<u64>()[I], C.data<u64>()[I], Old);
          WantMask |= u64(R.C) << L;
          ASSERT_EQ(Out.data<u64>()[I], R.V)
              << Kernel << " lane " << I << std::hex
              << " a=" << A.data<u32>()[I] << " b=" << B.data<u64>()[I]
              << " c=" << C.data<u64>()[I];
        }
        ASSERT_EQ(Cout.data<u64>()[W], WantMask) << Kernel << " wave " << W;
      }
    }
  }

  static KernelFile *File;
};
KernelFile *VectorIntTest::File = nullptr;

// --- Add / subtract ---------------------------------------------------------

TEST_F(VectorIntTest, AddSub32) {
  check32("add_u32", [](u32 A, u32 B, u32, u32, unsigned) { return A + B; });
  check32("add_u32_clamp", [](u32 A, u32 B, u32, u32, unsigned) {
    return sat<u32>(i64(A) + B);
  });
  check32("add_u32_sgpr",
          [](u32, u32 B, u32, u32, unsigned) { return SgprValue + B; });
  check32("add_u32_const",
          [](u32, u32 B, u32, u32, unsigned) { return B - 7; });
  check32("add_u32_literal",
          [](u32, u32 B, u32, u32, unsigned) { return B + 0x12345678u; });
  check32("sub_u32", [](u32 A, u32 B, u32, u32, unsigned) { return A - B; });
  check32("sub_u32_clamp", [](u32 A, u32 B, u32, u32, unsigned) {
    return sat<u32>(i64(A) - B);
  });
  check32("subrev_u32", [](u32 A, u32 B, u32, u32, unsigned) { return B - A; });
  check32("subrev_u32_clamp", [](u32 A, u32 B, u32, u32, unsigned) {
    return sat<u32>(i64(B) - A);
  });
  check32("add_i32", [](u32 A, u32 B, u32, u32, unsigned) { return A + B; });
  check32("add_i32_clamp", [](u32 A, u32 B, u32, u32, unsigned) {
    return sat<i32>(i64(i32(A)) + i32(B));
  });
  check32("sub_i32_clamp", [](u32 A, u32 B, u32, u32, unsigned) {
    return sat<i32>(i64(i32(A)) - i32(B));
  });
  check32("add3_u32",
          [](u32 A, u32 B, u32 C, u32, unsigned) { return A + B + C; });
}

// 16-bit results of gfx9's legacy 16-bit operations zero the high half;
// the op_sel forms write one half and keep the other.
TEST_F(VectorIntTest, AddSub16) {
  check32("add_u16",
          [](u32 A, u32 B, u32, u32, unsigned) { return lo16(A + B); });
  check32("add_u16_clamp", [](u32 A, u32 B, u32, u32, unsigned) {
    return sat<u16>(i64(lo16(A)) + lo16(B));
  });
  check32("sub_u16_clamp", [](u32 A, u32 B, u32, u32, unsigned) {
    return sat<u16>(i64(lo16(A)) - lo16(B));
  });
  check32("subrev_u16",
          [](u32 A, u32 B, u32, u32, unsigned) { return lo16(B - A); });
  check32("add_i16_clamp", [](u32 A, u32 B, u32, u32 Old, unsigned) {
    return (Old & 0xffff0000) | sat<i16>(i64(i16(A)) + i16(B));
  });
  check32("sub_i16_opsel", [](u32 A, u32 B, u32, u32 Old, unsigned) {
    return (lo16(u32(i16(hi16(A)) - i16(B))) << 16) | lo16(Old);
  });
}

TEST_F(VectorIntTest, CarryOps) {
  auto Add = [](u64 X) { return WithCarry{u32(X), bool(X >> 32)}; };
  auto Sub = [](i64 X) { return WithCarry{u32(X), X < 0}; };
  checkCarry("add_co_u32",
             [&](u32 A, u32 B, bool, u32) { return Add(u64(A) + B); });
  checkCarry("add_co_u32_e64",
             [&](u32 A, u32 B, bool, u32) { return Add(u64(A) + B); });
  checkCarry("add_co_u32_clamp", [](u32 A, u32 B, bool, u32) {
    u64 X = u64(A) + B;
    return WithCarry{sat<u32>(i64(X)), bool(X >> 32)};
  });
  checkCarry("sub_co_u32",
             [&](u32 A, u32 B, bool, u32) { return Sub(i64(A) - B); });
  checkCarry("subrev_co_u32_e64",
             [&](u32 A, u32 B, bool, u32) { return Sub(i64(B) - A); });
  checkCarry("addc_co_u32",
             [&](u32 A, u32 B, bool C, u32) { return Add(u64(A) + B + C); });
  checkCarry("addc_co_u32_e64",
             [&](u32 A, u32 B, bool C, u32) { return Add(u64(A) + B + C); });
  checkCarry("subb_co_u32",
             [&](u32 A, u32 B, bool C, u32) { return Sub(i64(A) - B - C); });
  checkCarry("subbrev_co_u32_e64",
             [&](u32 A, u32 B, bool C, u32) { return Sub(i64(B) - A - C); });
}

TEST_F(VectorIntTest, Cndmask) {
  auto Sel = [](u32 A, u32 B, bool C, u32) {
    return WithCarry{C ? B : A, false};
  };
  checkCarry("cndmask_vcc", Sel);
  checkCarry("cndmask_e64", Sel);
  // VOP3 neg/abs act on the sign bit, like float operands.
  checkCarry("cndmask_mods", [](u32 A, u32 B, bool C, u32) {
    return WithCarry{C ? B & 0x7fffffff : A ^ 0x80000000, false};
  });
}

// --- Multiply
// -----------------------------------------------------------------

TEST_F(VectorIntTest, Multiply) {
  check32("mul_lo_u32", [](u32 A, u32 B, u32, u32, unsigned) { return A * B; });
  check32("mul_hi_u32", [](u32 A, u32 B, u32, u32, unsigned) {
    return u32((u64(A) * B) >> 32);
  });
  check32("mul_hi_i32", [](u32 A, u32 B, u32, u32, unsigned) {
    return u32(u64(i64(i32(A)) * i32(B)) >> 32);
  });
  check32("mul_u32_u24", [](u32 A, u32 B, u32, u32, unsigned) {
    return (A & 0xffffff) * (B & 0xffffff);
  });
  check32("mul_hi_u32_u24", [](u32 A, u32 B, u32, u32, unsigned) {
    return u32((u64(A & 0xffffff) * (B & 0xffffff)) >> 32);
  });
  check32("mul_i32_i24", [](u32 A, u32 B, u32, u32, unsigned) {
    return u32(sext24(A) * sext24(B));
  });
  check32("mul_i32_i24_clamp", [](u32 A, u32 B, u32, u32, unsigned) {
    return sat<i32>(sext24(A) * sext24(B));
  });
  check32("mul_hi_i32_i24", [](u32 A, u32 B, u32, u32, unsigned) {
    return u32(u64(sext24(A) * sext24(B)) >> 32);
  });
  check32("mad_u32_u24", [](u32 A, u32 B, u32 C, u32, unsigned) {
    return (A & 0xffffff) * (B & 0xffffff) + C;
  });
  check32("mad_i32_i24", [](u32 A, u32 B, u32 C, u32, unsigned) {
    return u32(sext24(A) * sext24(B)) + C;
  });
  check32("mad_u32_u24_clamp", [](u32 A, u32 B, u32 C, u32, unsigned) {
    return sat<u32>(i64(u64(A & 0xffffff) * (B & 0xffffff) + C));
  });
  check32("mul_lo_u16",
          [](u32 A, u32 B, u32, u32, unsigned) { return lo16(A * B); });
  check32("mad_u16", [](u32 A, u32 B, u32 C, u32 Old, unsigned) {
    return (Old & 0xffff0000) | lo16(lo16(A) * lo16(B) + C);
  });
  check32("mad_u16_clamp", [](u32 A, u32 B, u32 C, u32 Old, unsigned) {
    return (Old & 0xffff0000) | sat<u16>(i64(u64(lo16(A)) * lo16(B) + lo16(C)));
  });
  // op_sel:[1,0,1,1]: src0 and src2 high halves, result to the high half.
  check32("mad_i16_opsel", [](u32 A, u32 B, u32 C, u32 Old, unsigned) {
    return (lo16(u32(i16(hi16(A)) * i16(B) + i16(hi16(C)))) << 16) | lo16(Old);
  });
  check32("mad_legacy_u16", [](u32 A, u32 B, u32 C, u32, unsigned) {
    return lo16(lo16(A) * lo16(B) + C);
  });
  check32("mad_u32_u16", [](u32 A, u32 B, u32 C, u32, unsigned) {
    return hi16(A) * lo16(B) + C;
  });
  check32("mad_i32_i16", [](u32 A, u32 B, u32 C, u32, unsigned) {
    return u32(i32(i16(A)) * i16(B)) + C;
  });
}

TEST_F(VectorIntTest, Multiply64) {
  using U128 = unsigned __int128;
  using I128 = __int128;
  check64("mad_u64_u32", [](u32 A, u64 B, u64 C, u64) {
    U128 X = U128(u64(A) * u32(B)) + C;
    return Wide64{u64(X), bool(X >> 64)};
  });
  check64("mad_u64_u32_clamp", [](u32 A, u64 B, u64 C, u64) {
    U128 X = U128(u64(A) * u32(B)) + C;
    return Wide64{X >> 64 ? ~0ull : u64(X), bool(X >> 64)};
  });
  check64("mad_i64_i32", [](u32 A, u64 B, u64 C, u64) {
    I128 X = I128(i64(i32(A)) * i32(u32(B))) + i64(C);
    return Wide64{u64(X), bool((X >> 64) & 1)};
  });
}

// --- Shifts -----------------------------------------------------------------

TEST_F(VectorIntTest, Shifts) {
  check32("lshlrev_b32",
          [](u32 A, u32 B, u32, u32, unsigned) { return B << (A & 31); });
  check32("lshrrev_b32",
          [](u32 A, u32 B, u32, u32, unsigned) { return B >> (A & 31); });
  check32("ashrrev_i32", [](u32 A, u32 B, u32, u32, unsigned) {
    return u32(i32(B) >> (A & 31));
  });
  check32("lshlrev_b16",
          [](u32 A, u32 B, u32, u32, unsigned) { return lo16(B << (A & 15)); });
  check32("lshrrev_b16",
          [](u32 A, u32 B, u32, u32, unsigned) { return lo16(B) >> (A & 15); });
  check32("ashrrev_i16", [](u32 A, u32 B, u32, u32, unsigned) {
    return lo16(u32(i16(B) >> (A & 15)));
  });
  check32("lshl_add_u32", [](u32 A, u32 B, u32 C, u32, unsigned) {
    return (A << (B & 31)) + C;
  });
  check32("add_lshl_u32", [](u32 A, u32 B, u32 C, u32, unsigned) {
    return (A + B) << (C & 31);
  });
  check32("lshl_or_b32", [](u32 A, u32 B, u32 C, u32, unsigned) {
    return (A << (B & 31)) | C;
  });
  check32("alignbit_b32", [](u32 A, u32 B, u32 C, u32, unsigned) {
    return u32((u64(A) << 32 | B) >> (C & 31));
  });
  check32("alignbyte_b32", [](u32 A, u32 B, u32 C, u32, unsigned) {
    return u32((u64(A) << 32 | B) >> (8 * (C & 3)));
  });
  check64("lshlrev_b64", [](u32 A, u64 B, u64, u64) {
    return Wide64{B << (A & 63), false};
  });
  check64("lshrrev_b64", [](u32 A, u64 B, u64, u64) {
    return Wide64{B >> (A & 63), false};
  });
  check64("ashrrev_i64", [](u32 A, u64 B, u64, u64) {
    return Wide64{u64(i64(B) >> (A & 63)), false};
  });
}

// --- Logic, min/max ---------------------------------------------------------

TEST_F(VectorIntTest, Logic) {
  check32("and_b32", [](u32 A, u32 B, u32, u32, unsigned) { return A & B; });
  check32("or_b32", [](u32 A, u32 B, u32, u32, unsigned) { return A | B; });
  check32("xor_b32", [](u32 A, u32 B, u32, u32, unsigned) { return A ^ B; });
  check32("xnor_b32",
          [](u32 A, u32 B, u32, u32, unsigned) { return ~(A ^ B); });
  check32("not_b32", [](u32 A, u32, u32, u32, unsigned) { return ~A; });
  check32("and_or_b32",
          [](u32 A, u32 B, u32 C, u32, unsigned) { return (A & B) | C; });
  check32("or3_b32",
          [](u32 A, u32 B, u32 C, u32, unsigned) { return A | B | C; });
  check32("xad_u32",
          [](u32 A, u32 B, u32 C, u32, unsigned) { return (A ^ B) + C; });
}

TEST_F(VectorIntTest, MinMaxMed) {
  auto Med = [](auto A, auto B, auto C) {
    decltype(A) V[] = {A, B, C};
    std::sort(V, V + 3);
    return V[1];
  };
  check32("min_u32",
          [](u32 A, u32 B, u32, u32, unsigned) { return std::min(A, B); });
  check32("max_i32", [](u32 A, u32 B, u32, u32, unsigned) {
    return u32(std::max(i32(A), i32(B)));
  });
  check32("min_i16", [](u32 A, u32 B, u32, u32, unsigned) {
    return lo16(u32(std::min(i16(A), i16(B))));
  });
  check32("max_u16", [](u32 A, u32 B, u32, u32, unsigned) {
    return std::max(lo16(A), lo16(B));
  });
  check32("min3_i32", [](u32 A, u32 B, u32 C, u32, unsigned) {
    return u32(std::min({i32(A), i32(B), i32(C)}));
  });
  check32("max3_u32", [](u32 A, u32 B, u32 C, u32, unsigned) {
    return std::max({A, B, C});
  });
  check32("med3_i32", [&](u32 A, u32 B, u32 C, u32, unsigned) {
    return u32(Med(i32(A), i32(B), i32(C)));
  });
  check32("med3_u32",
          [&](u32 A, u32 B, u32 C, u32, unsigned) { return Med(A, B, C); });
  check32("med3_i16", [&](u32 A, u32 B, u32 C, u32 Old, unsigned) {
    return (Old & 0xffff0000) | lo16(u32(Med(i16(A), i16(B), i16(C))));
  });
  // op_sel:[0,1,0,1]: src1's high half, result to the high half.
  check32("max3_u16_opsel", [](u32 A, u32 B, u32 C, u32 Old, unsigned) {
    return (std::max({lo16(A), hi16(B), lo16(C)}) << 16) | lo16(Old);
  });
}

// --- Bit operations
// -----------------------------------------------------------

TEST_F(VectorIntTest, BitFields) {
  check32("bfe_u32", [](u32 A, u32 B, u32 C, u32, unsigned) -> u32 {
    unsigned Off = B & 31, W = C & 31;
    return W ? u32((u64(A) >> Off) & ((1ull << W) - 1)) : 0;
  });
  // The field comes from the sign-extended source: past bit 31 it repeats
  // the sign.
  check32("bfe_i32", [](u32 A, u32 B, u32 C, u32, unsigned) -> u32 {
    unsigned Off = B & 31, W = C & 31;
    if (!W)
      return 0;
    u64 F = u64(i64(i32(A)) >> Off) & ((1ull << W) - 1);
    return u32(i64(F << (64 - W)) >> (64 - W));
  });
  check32("bfi_b32", [](u32 A, u32 B, u32 C, u32, unsigned) {
    return (A & B) | (~A & C);
  });
  check32("bfm_b32", [](u32 A, u32 B, u32, u32, unsigned) {
    return u32(((1ull << (A & 31)) - 1) << (B & 31));
  });
  check32("bfrev_b32", [](u32 A, u32, u32, u32, unsigned) {
    u32 R = 0;
    for (unsigned I = 0; I < 32; ++I)
      R |= ((A >> I) & 1) << (31 - I);
    return R;
  });
  check32("bcnt_u32_b32", [](u32 A, u32 B, u32, u32, unsigned) {
    return u32(std::popcount(A)) + B;
  });
  check32("ffbh_u32", [](u32 A, u32, u32, u32, unsigned) {
    return A ? u32(std::countl_zero(A)) : ~0u;
  });
  check32("ffbl_b32", [](u32 A, u32, u32, u32, unsigned) {
    return A ? u32(std::countr_zero(A)) : ~0u;
  });
  check32("ffbh_i32", [](u32 A, u32, u32, u32, unsigned) -> u32 {
    for (unsigned I = 1; I < 32; ++I)
      if (((A >> (31 - I)) & 1) != (A >> 31))
        return I;
    return ~0u;
  });
  check32("mbcnt_lo", [](u32, u32 B, u32, u32, unsigned L) {
    u64 Below = (L >= 64 ? ~0ull : (1ull << L) - 1) & 0xffffffffull;
    return u32(std::popcount(SgprValue & Below)) + B;
  });
  check32("mbcnt_hi", [](u32, u32 B, u32, u32, unsigned L) {
    u64 Below = ((1ull << L) - 1) >> 32;
    return u32(std::popcount(SgprValue & Below)) + B;
  });
  check32("perm_b32", [](u32 A, u32 B, u32 C, u32, unsigned) {
    uint8_t Bytes[8];
    for (unsigned I = 0; I < 4; ++I) {
      Bytes[I] = uint8_t(B >> (8 * I));
      Bytes[4 + I] = uint8_t(A >> (8 * I));
    }
    u32 R = 0;
    for (unsigned I = 0; I < 4; ++I) {
      unsigned S = (C >> (8 * I)) & 0xff;
      u32 V = S < 8     ? Bytes[S]
              : S < 12  ? ((Bytes[2 * (S - 8) + 1] & 0x80) ? 0xff : 0)
              : S == 12 ? 0
                        : 0xff;
      R |= V << (8 * I);
    }
    return R;
  });
}

// --- SAD and byte operations
// --------------------------------------------------

TEST_F(VectorIntTest, SadAndBytes) {
  auto Sad8 = [](u32 A, u32 B, bool Masked) {
    u32 S = 0;
    for (unsigned I = 0; I < 4; ++I) {
      u32 X = (A >> (8 * I)) & 0xff, Y = (B >> (8 * I)) & 0xff;
      if (!Masked || Y)
        S += absDiff(X, Y);
    }
    return S;
  };
  check32("sad_u8", [&](u32 A, u32 B, u32 C, u32, unsigned) {
    return Sad8(A, B, false) + C;
  });
  check32("sad_hi_u8", [&](u32 A, u32 B, u32 C, u32, unsigned) {
    return (Sad8(A, B, false) << 16) + C;
  });
  check32("sad_u16", [](u32 A, u32 B, u32 C, u32, unsigned) {
    return absDiff(lo16(A), lo16(B)) + absDiff(hi16(A), hi16(B)) + C;
  });
  check32("sad_u32_clamp", [](u32 A, u32 B, u32 C, u32, unsigned) {
    return sat<u32>(i64(absDiff(A, B)) + C);
  });
  check32("msad_u8", [&](u32 A, u32 B, u32 C, u32, unsigned) {
    return Sad8(A, B, true) + C;
  });
  check32("lerp_u8", [](u32 A, u32 B, u32 C, u32, unsigned) {
    u32 R = 0;
    for (unsigned I = 0; I < 4; ++I)
      R |= ((((A >> (8 * I)) & 0xff) + ((B >> (8 * I)) & 0xff) +
             ((C >> (8 * I)) & 1)) >>
            1)
           << (8 * I);
    return R;
  });
  auto Qsad = [&](bool Masked) {
    return [=](u32 A, u64 B, u64 C, u64) {
      u64 R = 0;
      for (unsigned I = 0; I < 4; ++I)
        R |=
            u64((Sad8(u32(B >> (8 * I)), A, Masked) + (C >> (16 * I))) & 0xffff)
            << (16 * I);
      return Wide64{R, false};
    };
  };
  check64("qsad_pk_u16_u8", Qsad(false));
  check64("mqsad_pk_u16_u8", Qsad(true));
  // 128-bit result: four masked SADs accumulated into four dwords.
  for (u64 M : TestMasks) {
    Device &D = File->device();
    DeviceBuffer Out(D, NumItems * 16), A(D, NumItems * 8), B(D, NumItems * 4),
        C(D, NumItems * 16);
    for (unsigned I = 0; I < NumItems; ++I) {
      A.data<u64>()[I] = operand64(1, I);
      B.data<u32>()[I] = operand(0, I);
      for (unsigned K = 0; K < 4; ++K) {
        C.data<u32>()[4 * I + K] = operand(2 + 4 * K, I);
        Out.data<u32>()[4 * I + K] = operand(3 + 4 * K, I);
      }
    }
    ASSERT_TRUE(File->run("mqsad_u32_u8", KernelArgs()
                                              .add(Out.address())
                                              .add(A.address())
                                              .add(B.address())
                                              .add(C.address())
                                              .add(M)));
    for (unsigned I = 0; I < NumItems; ++I)
      for (unsigned K = 0; K < 4; ++K) {
        u32 Want = active(M, I) ? Sad8(u32(A.data<u64>()[I] >> (8 * K)),
                                       B.data<u32>()[I], true) +
                                      C.data<u32>()[4 * I + K]
                                : operand(3 + 4 * K, I);
        ASSERT_EQ(Out.data<u32>()[4 * I + K], Want)
            << "mqsad_u32_u8 lane " << I << " dword " << K;
      }
  }
  check32("cvt_pk_u16_u32", [](u32 A, u32 B, u32, u32, unsigned) {
    return sat<u16>(A) | sat<u16>(B) << 16;
  });
  check32("cvt_pk_i16_i32", [](u32 A, u32 B, u32, u32, unsigned) {
    return sat<i16>(i32(A)) | sat<i16>(i32(B)) << 16;
  });
  check32("sat_pk_u8_i16", [](u32 A, u32, u32, u32, unsigned) {
    return sat<uint8_t>(i16(A)) | sat<uint8_t>(i16(hi16(A))) << 8;
  });
}

// --- SDWA -------------------------------------------------------------------

TEST_F(VectorIntTest, Sdwa) {
  auto Byte = [](u32 V, unsigned N) { return (V >> (8 * N)) & 0xff; };
  // dst_sel:WORD_1 preserve; src0 BYTE_2, src1 WORD_0.
  check32("sdwa_add_u32", [&](u32 A, u32 B, u32, u32 Old, unsigned) {
    return ((Byte(A, 2) + lo16(B)) << 16) | lo16(Old);
  });
  // sext(src0 BYTE_3) + src1 BYTE_0 into BYTE_1, upper bits sign-extended.
  check32("sdwa_add_u32_sext", [&](u32 A, u32 B, u32, u32, unsigned) {
    u32 R = u32(int8_t(Byte(A, 3))) + Byte(B, 0);
    u32 F = (R & 0xff) << 8;
    return R & 0x80 ? F | 0xffff0000 : F;
  });
  check32("sdwa_add_u32_sgpr", [&](u32, u32 B, u32, u32, unsigned) {
    return Byte(SgprValue, 1) + hi16(B);
  });
  check32("sdwa_sub_u16_pad", [&](u32 A, u32 B, u32, u32, unsigned) {
    return lo16(hi16(A) - Byte(B, 1));
  });
  check32("sdwa_mov_b32", [&](u32 A, u32, u32, u32 Old, unsigned) {
    return (Old & 0xff00ffff) | (Byte(hi16(A), 0) << 16);
  });
  // src0 = b's BYTE_0 (shift), src1 = sext(a's WORD_1).
  check32("sdwa_ashrrev_i32_sext", [](u32 A, u32 B, u32, u32, unsigned) {
    return u32(i32(i16(hi16(A))) >> (B & 31));
  });
  check32("sdwa_mul_u32_u24_clamp", [](u32 A, u32 B, u32, u32, unsigned) {
    return sat<u32>(i64(u64(A & 0xffffff) * lo16(B)));
  });
  checkCarry("sdwa_addc_co_u32", [](u32 A, u32 B, bool C, u32) {
    u64 X = u64(hi16(A)) + (B & 0xff) + C;
    return WithCarry{(u32(X) & 0xffff) << 16, bool(X >> 32)};
  });
}

// --- DPP --------------------------------------------------------------------

/// A DPP case: the source lane of lane L (or -1), row and bank masks,
/// bound_ctrl, and the operation applied to (permuted src0, src1).
struct DppCase {
  const char *Kernel;
  std::function<int(unsigned L)> Source;
  unsigned RowMask = 0xf, BankMask = 0xf;
  bool BoundCtrl = false;
  std::function<u32(u32 Src0, u32 Src1)> Op = [](u32 X, u32) { return X; };
};

/// Lanes disabled by EXEC, row_mask or bank_mask keep their value; a source
/// lane out of range or inactive reads 0 with bound_ctrl, and otherwise
/// leaves the lane unwritten.
u32 dppReference(const DppCase &C, const Buffers32 &B, unsigned I, u64 M) {
  unsigned L = I % 64;
  u32 Old = operand(3, I);
  if (!active(M, I) || !((C.RowMask >> (L / 16)) & 1) ||
      !((C.BankMask >> (L / 4 % 4)) & 1))
    return Old;
  int S = C.Source(L);
  bool Valid = S >= 0 && S < 64 && active(M, unsigned(S));
  if (!Valid && !C.BoundCtrl)
    return Old;
  u32 Src0 = Valid ? B.a(I - L + unsigned(S)) : 0;
  return C.Op(Src0, B.b(I));
}

TEST_F(VectorIntTest, Dpp) {
  auto InRow = [](unsigned L, int P) {
    return P >= 0 && P < 16 ? int(L / 16 * 16 + unsigned(P)) : -1;
  };
  const DppCase Cases[] = {
      {"dpp_quad_perm",
       [](unsigned L) {
         static const int Sel[] = {2, 0, 3, 1};
         return int(L / 4 * 4) + Sel[L % 4];
       }},
      {"dpp_row_shl1", [&](unsigned L) { return InRow(L, int(L % 16) + 1); }},
      {"dpp_row_shr3_bc", [&](unsigned L) { return InRow(L, int(L % 16) - 3); },
       0xf, 0xf, true},
      {"dpp_row_ror5",
       [&](unsigned L) { return InRow(L, int((L % 16 + 11) % 16)); }},
      {"dpp_row_shr15_masks",
       [&](unsigned L) { return InRow(L, int(L % 16) - 15); }, 0xb, 0x6},
      {"dpp_wave_shl1", [](unsigned L) { return L < 63 ? int(L + 1) : -1; }},
      {"dpp_wave_rol1", [](unsigned L) { return int((L + 1) % 64); }},
      {"dpp_wave_shr1_bc", [](unsigned L) { return int(L) - 1; }, 0xf, 0xf,
       true},
      {"dpp_wave_ror1", [](unsigned L) { return int((L + 63) % 64); }},
      {"dpp_row_mirror",
       [&](unsigned L) { return InRow(L, 15 - int(L % 16)); }},
      {"dpp_row_half_mirror",
       [&](unsigned L) { return InRow(L, int(L % 16 / 8 * 8 + 7 - L % 8)); }},
      {"dpp_row_bcast15",
       [](unsigned L) { return L >= 16 ? int(L / 16 * 16 - 1) : -1; }, 0xa},
      {"dpp_row_bcast31", [](unsigned L) { return L >= 32 ? 31 : -1; }, 0xc},
      {"dpp_row_newbcast", [](unsigned L) { return int(L / 16 * 16 + 6); }},
      {"dpp_add_u32_bc", [&](unsigned L) { return InRow(L, int(L % 16) - 1); },
       0xf, 0xf, true, [](u32 X, u32 Y) { return X + Y; }},
      {"dpp_max_i32_masks",
       [&](unsigned L) { return InRow(L, int(L % 16) + 2); }, 0x7, 0xd, false,
       [](u32 X, u32 Y) { return u32(std::max(i32(X), i32(Y))); }},
      {"dpp_subrev_u16",
       [](unsigned L) {
         static const int Sel[] = {3, 3, 0, 1};
         return int(L / 4 * 4) + Sel[L % 4];
       },
       0xf, 0xf, false, [](u32 X, u32 Y) { return lo16(Y - X); }},
  };
  for (const DppCase &C : Cases)
    checkLanes(C.Kernel, [&](const Buffers32 &B, unsigned I, u64 M) {
      return dppReference(C, B, I, M);
    });
}

// --- Integer code as clang writes it ----------------------------------------

class IntMixTest : public ::testing::TestWithParam<int> {};

TEST_P(IntMixTest, MatchesHostEvaluation) {
  KernelFile F("vector_int.O" + std::to_string(GetParam()) + ".elf");
  Buffers32 Buf(F.device());
  DeviceBuffer Out(F.device(), NumItems * 16 * 4);
  ASSERT_TRUE(F.run("int_mix", KernelArgs()
                                   .add(Out.address())
                                   .add(Buf.A.address())
                                   .add(Buf.B.address())
                                   .add(Buf.C.address())));
  for (unsigned I = 0; I < NumItems; ++I) {
    unsigned Want[16];
    int_mix_lane(Want, Buf.a(I), Buf.b(I), Buf.c(I));
    for (unsigned K = 0; K < 16; ++K)
      ASSERT_EQ(Out.data<u32>()[16 * I + K], Want[K])
          << "output " << K << " of work-item " << I << std::hex
          << " a=" << Buf.a(I) << " b=" << Buf.b(I) << " c=" << Buf.c(I);
  }
}

INSTANTIATE_TEST_SUITE_P(OptLevels, IntMixTest, ::testing::Values(0, 2),
                         [](const auto &Info) {
                           return "O" + std::to_string(Info.param);
                         });

} // namespace
