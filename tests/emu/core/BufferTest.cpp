//===- tests/emu/core/BufferTest.cpp - MUBUF -------------------------------===//
//
// Buffer loads, stores, format conversions and atomics through V#s the test
// builds: raw buffers with range checking (per dword for dwordxN, soffset
// excluded), structured buffers (index against num_records), swizzled
// buffers, every addressing mode; out-of-range loads return zero (format
// loads: one for dst_sel 1), stores and atomics are dropped. Plus the clang
// buffer builtins at -O0 and -O2. Pinned kernels: kernels/buffer.c (-O2).
//
//===----------------------------------------------------------------------===//

#include "loom/emu/Module.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <random>

using namespace loom::emu;

namespace {

using u8 = uint8_t;
using u16 = uint16_t;
using u32 = uint32_t;
using u64 = uint64_t;
using Words = std::array<u32, 4>;

/// A gfx9 V# as the test means it.
struct VSharp {
  u64 Base = 0;
  u32 Stride = 0;
  bool Swizzle = false;
  u32 NumRecords = 0;
  u32 DstSel[4] = {4, 5, 6, 7}; // x, y, z, w
  u32 NumFormat = 4;            // UINT
  u32 DataFormat = 4;           // 32
  u32 ElementSizeField = 1;     // 4 bytes
  u32 IndexStrideField = 0;     // 8
  Words words() const {
    Words W;
    W[0] = u32(Base);
    W[1] = u32(Base >> 32 & 0xffff) | Stride << 16 | u32(Swizzle) << 31;
    W[2] = NumRecords;
    W[3] = DstSel[0] | DstSel[1] << 3 | DstSel[2] << 6 | DstSel[3] << 9 |
           NumFormat << 12 | DataFormat << 15 | ElementSizeField << 19 |
           IndexStrideField << 21;
    return W;
  }
};

class BufferTest : public ::testing::TestWithParam<int> {
protected:
  static constexpr u32 N = 256;
  static constexpr u32 InstOffset = 12; // every pinned kernel's offset:12

  void SetUp() override {
    auto D = Device::create();
    ASSERT_TRUE(bool(D)) << llvm::toString(D.takeError());
    Dev = std::move(*D);
    auto M = Module::loadFile(*Dev, std::string(LOOM_EMU_CORE_DIR) +
                                        "/buffer.O" +
                                        std::to_string(GetParam()) + ".elf");
    ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
    Mod = std::move(*M);
    Idx = std::make_unique<DeviceBuffer>(*Dev, 4 * N);
    Off = std::make_unique<DeviceBuffer>(*Dev, 4 * N);
  }
  DeviceBuffer bytes(size_t Size, unsigned Seed) {
    DeviceBuffer B(*Dev, Size);
    std::mt19937 G(Seed);
    for (size_t I = 0; I < Size; ++I)
      B.data<u8>()[I] = Seed ? u8(G()) : 0;
    return B;
  }
  /// Runs pinned kernel \p Kernel over N items with V# \p V, soffset \p S,
  /// the current index/offset inputs, \p Out and an optional data buffer.
  bool run(const char *Kernel, const VSharp &V, u32 S, DeviceBuffer &Out,
           const DeviceBuffer *Data = nullptr) {
    KernelArgs A;
    A.add(Out.address()).add(V.words()).add(S).add(Idx->address()).add(
        Off->address());
    if (Data)
      A.add(Data->address());
    auto R = Mod->launch(Kernel, LaunchConfig::linear(N, 64), A);
    EXPECT_TRUE(bool(R)) << llvm::toString(R.takeError());
    if (!R)
      return false;
    EXPECT_TRUE(R->ok()) << Kernel << ": " << R->FirstFault.Message;
    return R->ok();
  }
  u32 idx(u32 I) const { return Idx->data<u32>()[I]; }
  u32 off(u32 I) const { return Off->data<u32>()[I]; }

  std::unique_ptr<Device> Dev;
  std::unique_ptr<Module> Mod;
  std::unique_ptr<DeviceBuffer> Idx, Off;
};

template <typename T> T get(const u8 *P) {
  T V;
  std::memcpy(&V, P, sizeof(T));
  return V;
}

TEST_P(BufferTest, BuiltinsReadZeroAndDropStoresOutOfRange) {
  const u32 Items = 300, Bytes = 4 * 200 + 2;
  DeviceBuffer In = bytes(4 * Items + 16, 1), Out = bytes(4 * Items, 0),
               Out2 = bytes(4 * Items + 16, 0);
  auto R = Mod->launch("buf_builtin", LaunchConfig::linear(Items, 64),
                       KernelArgs()
                           .add(Out.address())
                           .add(In.address())
                           .add(Out2.address())
                           .add(Bytes));
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  ASSERT_TRUE(R->ok()) << R->FirstFault.Message;
  const u8 *P = In.data<u8>();
  for (u32 I = 0; I < Items; ++I) {
    u32 V = 4 * I + 4 < Bytes ? get<u32>(P + 4 * I + 4) : 0;
    u32 B = 4 * I + 3 < Bytes ? P[4 * I + 3] : 0;
    ASSERT_EQ(Out.data<u32>()[I], V ^ B << 24) << I;
    // The store's offset 4i (soffset 8 is not range-checked).
    u32 W = 4 * I < Bytes ? V + 1 : 0;
    ASSERT_EQ(get<u32>(Out2.data<u8>() + 4 * I + 8), W) << I;
  }
}

//===----------------------------------------------------------------------===//
// Pinned instructions (-O2)
//===----------------------------------------------------------------------===//

class BufferAsmTest : public BufferTest {
protected:
  void SetUp() override {
    BufferTest::SetUp();
    std::mt19937 G(7);
    for (u32 I = 0; I < N; ++I) {
      Idx->data<u32>()[I] = G() % 96;
      Off->data<u32>()[I] = 4 * (G() % 300) + (I % 7 == 0 ? 2 : 0);
    }
  }
};

TEST_P(BufferAsmTest, RawLoadsCheckEachDwordAndIgnoreSoffset) {
  const u32 Size = 2048, NumRecords = 700, SOff = 40;
  DeviceBuffer In = bytes(Size, 2);
  VSharp V;
  V.Base = In.address();
  V.NumRecords = NumRecords;
  const u8 *P = In.data<u8>() + SOff;
  // Dword k of lane i: in range when offset + 4k < num_records.
  auto Dword = [&](u32 O, unsigned K) {
    return O + 4 * K < NumRecords ? get<u32>(P + O + 4 * K) : 0u;
  };
  struct Case {
    const char *Kernel;
    unsigned Dwords;
  };
  for (Case C : {Case{"load_dword_offen", 1}, Case{"load_dwordx2_offen", 2},
                 Case{"load_dwordx3_offen", 3}, Case{"load_dwordx4_offen", 4}}) {
    DeviceBuffer Out = bytes(16 * N, 3);
    std::vector<u32> Before(Out.data<u32>(), Out.data<u32>() + 4 * N);
    ASSERT_TRUE(run(C.Kernel, V, SOff, Out));
    unsigned Stride = C.Dwords == 3 ? 4 : C.Dwords; // u32x3 is 16 bytes
    for (u32 I = 0; I < N; ++I)
      for (unsigned K = 0; K < C.Dwords; ++K)
        ASSERT_EQ(Out.data<u32>()[Stride * I + K],
                  Dword(off(I) + InstOffset, K))
            << C.Kernel << " lane " << I << " dword " << K;
  }
  // Sub-dword loads, and the D16 forms keeping the other half.
  DeviceBuffer Out = bytes(4 * N, 4);
  for (const char *Kernel :
       {"load_ubyte_offen", "load_sbyte_offen", "load_ushort_offen",
        "load_sshort_offen", "load_ubyte_d16_offen",
        "load_sbyte_d16_hi_offen"}) {
    std::vector<u32> Old(Out.data<u32>(), Out.data<u32>() + N);
    ASSERT_TRUE(run(Kernel, V, SOff, Out));
    for (u32 I = 0; I < N; ++I) {
      u32 O = off(I) + InstOffset;
      bool In = O < NumRecords;
      u8 B = In ? P[O] : 0;
      u16 H = In ? get<u16>(P + O) : 0;
      std::string K = Kernel;
      u32 Want = K == "load_ubyte_offen"    ? B
                 : K == "load_sbyte_offen"  ? u32(int32_t(int8_t(B)))
                 : K == "load_ushort_offen" ? H
                 : K == "load_sshort_offen" ? u32(int32_t(int16_t(H)))
                 : K == "load_ubyte_d16_offen"
                     ? (Old[I] & 0xffff0000u) | B
                     : (Old[I] & 0xffff) | u32(u16(int16_t(int8_t(B)))) << 16;
      ASSERT_EQ(Out.data<u32>()[I], Want) << Kernel << " lane " << I;
    }
  }
  // OFFSET: every lane at soffset + 12; IDXEN with stride 0: the index
  // moves nothing and the offset alone is checked.
  for (u32 NR : {NumRecords, 12u}) {
    V.NumRecords = NR;
    for (const char *Kernel : {"load_dword_offset", "load_dword_idxen"}) {
      ASSERT_TRUE(run(Kernel, V, SOff, Out));
      for (u32 I = 0; I < N; ++I)
        ASSERT_EQ(Out.data<u32>()[I], 12 < NR ? get<u32>(P + 12) : 0u)
            << Kernel << " lane " << I;
    }
  }
}

TEST_P(BufferAsmTest, StructuredBuffersCheckTheIndex) {
  const u32 Stride = 20, NumRecords = 70, SOff = 8;
  DeviceBuffer In = bytes(96 * Stride + 4096, 5);
  VSharp V;
  V.Base = In.address();
  V.Stride = Stride;
  V.NumRecords = NumRecords;
  const u8 *P = In.data<u8>() + SOff;
  DeviceBuffer Out = bytes(16 * N, 0);
  ASSERT_TRUE(run("load_dword_idxen", V, SOff, Out));
  for (u32 I = 0; I < N; ++I)
    ASSERT_EQ(Out.data<u32>()[I],
              idx(I) < NumRecords ? get<u32>(P + Stride * idx(I) + 12) : 0u)
        << I;
  ASSERT_TRUE(run("load_dwordx4_bothen", V, SOff, Out));
  for (u32 I = 0; I < N; ++I)
    for (unsigned K = 0; K < 4; ++K)
      ASSERT_EQ(Out.data<u32>()[4 * I + K],
                idx(I) < NumRecords
                    ? get<u32>(P + Stride * idx(I) + off(I) + 12 + 4 * K)
                    : 0u)
          << I << " " << K;
  // Stores through the same V# (one element per lane): out-of-range
  // indices write nothing.
  for (u32 I = 0; I < N; ++I)
    Idx->data<u32>()[I] = I;
  DeviceBuffer Dst = bytes(N * Stride + 64, 0), Data = bytes(16 * N, 6);
  V.Base = Dst.address();
  ASSERT_TRUE(run("store_dword_idxen", V, SOff, Out, &Data));
  std::vector<u8> Want(N * Stride + 64, 0);
  for (u32 I = 0; I < N; ++I)
    if (idx(I) < NumRecords)
      std::memcpy(Want.data() + SOff + Stride * idx(I) + 12,
                  Data.data<u8>() + 4 * I, 4);
  EXPECT_EQ(std::memcmp(Dst.data(), Want.data(), Want.size()), 0);
}

TEST_P(BufferAsmTest, SwizzledBuffersPlaceEachDword) {
  // Element size 4, index stride 16, stride 32: dword k of lane i lands at
  // (idx / 16 * 32 + o / 4 * 4) * 16 + idx % 16 * 4 + o % 4, o = offset + 4k.
  const u32 SOff = 4;
  DeviceBuffer In = bytes(64 * 1024, 8);
  VSharp V;
  V.Base = In.address();
  V.Stride = 32;
  V.Swizzle = true;
  V.NumRecords = 80;
  V.IndexStrideField = 1;
  auto Place = [&](u32 Index, u32 O) -> u64 {
    return SOff + (u64(Index / 16) * 32 + O / 4 * 4) * 16 + Index % 16 * 4 +
           O % 4;
  };
  for (u32 I = 0; I < N; ++I)
    Off->data<u32>()[I] &= ~3u; // swizzled accesses are dword aligned
  DeviceBuffer Out = bytes(16 * N, 0);
  ASSERT_TRUE(run("load_dwordx4_bothen", V, SOff, Out));
  for (u32 I = 0; I < N; ++I)
    for (unsigned K = 0; K < 4; ++K)
      ASSERT_EQ(Out.data<u32>()[4 * I + K],
                idx(I) < 80 ? get<u32>(In.data<u8>() +
                                       Place(idx(I), off(I) + 12 + 4 * K))
                            : 0u)
          << I << " " << K;
}

TEST_P(BufferAsmTest, StoresDropWhatIsOutOfRange) {
  const u32 NumRecords = 900, SOff = 16, Size = 8192;
  DeviceBuffer Data = bytes(16 * N, 9), Out = bytes(4 * N, 0);
  for (u32 I = 0; I < N; ++I) // disjoint, some unaligned
    Off->data<u32>()[I] = 20 * I + (I % 7 == 0 ? 2 : 0);
  VSharp V;
  V.NumRecords = NumRecords;
  struct Case {
    const char *Kernel;
    unsigned Bytes;     // per lane
    unsigned DataBytes; // stride of the data array
    unsigned Shift;     // D16_HI: bits 31:16 of the data
  };
  for (Case C : {Case{"store_dword_offen", 4, 4, 0},
                 Case{"store_dwordx4_offen", 16, 16, 0},
                 Case{"store_byte_offen", 1, 4, 0},
                 Case{"store_short_offen", 2, 4, 0},
                 Case{"store_byte_d16_hi_offen", 1, 4, 16},
                 Case{"store_short_d16_hi_offen", 2, 4, 16}}) {
    DeviceBuffer Dst = bytes(Size, 0);
    V.Base = Dst.address();
    ASSERT_TRUE(run(C.Kernel, V, SOff, Out, &Data));
    std::vector<u8> Want(Size, 0);
    for (u32 I = 0; I < N; ++I) {
      u32 O = off(I) + InstOffset;
      for (unsigned B = 0; B < C.Bytes; ++B) {
        unsigned Dw = B / 4;
        if (O + 4 * Dw >= NumRecords) // per dword for dwordxN
          continue;
        const u8 *Src = Data.data<u8>() + C.DataBytes * I;
        Want[SOff + O + B] = C.Shift ? Src[2 + B] : Src[B];
      }
    }
    ASSERT_EQ(std::memcmp(Dst.data(), Want.data(), Size), 0) << C.Kernel;
  }
}

float unorm8(u8 B) { return float(B / 255.0); }

TEST_P(BufferAsmTest, FormatLoadsConvertAndSwizzleComponents) {
  const u32 Stride = 16, NumRecords = 64;
  DeviceBuffer In = bytes(96 * Stride + 64, 10);
  const u8 *P = In.data<u8>();
  VSharp V;
  V.Base = In.address();
  V.Stride = Stride;
  V.NumRecords = NumRecords;
  DeviceBuffer Out = bytes(16 * N, 11);
  auto Elem = [&](u32 I) { return P + Stride * idx(I) + InstOffset; };
  auto In_ = [&](u32 I) { return idx(I) < NumRecords; };
  // 32_32_32_32 UINT, dst_sel w z 1 0: x = w, y = z, z = 1, w = 0.
  V.DataFormat = 14;
  V.DstSel[0] = 7;
  V.DstSel[1] = 6;
  V.DstSel[2] = 1;
  V.DstSel[3] = 0;
  ASSERT_TRUE(run("load_format_xyzw_idxen", V, 0, Out));
  for (u32 I = 0; I < N; ++I) {
    u32 Want[4] = {In_(I) ? get<u32>(Elem(I) + 12) : 0,
                   In_(I) ? get<u32>(Elem(I) + 8) : 0, 1, 0};
    for (unsigned K = 0; K < 4; ++K)
      ASSERT_EQ(Out.data<u32>()[4 * I + K], Want[K]) << I << " " << K;
  }
  // 8_8_8_8 UNORM, identity selects: four floats.
  V.DataFormat = 10;
  V.NumFormat = 0;
  V.DstSel[0] = 4, V.DstSel[1] = 5, V.DstSel[2] = 6, V.DstSel[3] = 7;
  ASSERT_TRUE(run("load_format_xyzw_idxen", V, 0, Out));
  for (u32 I = 0; I < N; ++I)
    for (unsigned K = 0; K < 4; ++K)
      ASSERT_EQ(Out.data<float>()[4 * I + K],
                In_(I) ? unorm8(Elem(I)[K]) : 0.0f)
          << I << " " << K;
  // 16_16 FLOAT: xy as floats; xyz adds z = 0 (missing component).
  V.DataFormat = 5;
  V.NumFormat = 7;
  ASSERT_TRUE(run("load_format_xyz_idxen", V, 0, Out));
  for (u32 I = 0; I < N; ++I)
    for (unsigned K = 0; K < 3; ++K) {
      float Want = 0;
      if (In_(I) && K < 2)
        Want = float(std::bit_cast<_Float16>(get<u16>(Elem(I) + 2 * K)));
      u32 Got = Out.data<u32>()[4 * I + K];
      if (std::isnan(Want))
        ASSERT_TRUE(std::isnan(std::bit_cast<float>(Got))) << I;
      else
        ASSERT_EQ(Got, std::bit_cast<u32>(Want)) << I << " " << K;
    }
  // 16_16_16_16 FLOAT as D16: the halves as they are, two per register.
  V.DataFormat = 12;
  ASSERT_TRUE(run("load_format_d16_xyzw_idxen", V, 0, Out));
  for (u32 I = 0; I < N; ++I)
    for (unsigned K = 0; K < 2; ++K)
      ASSERT_EQ(Out.data<u32>()[2 * I + K],
                In_(I) ? get<u32>(Elem(I) + 4 * K) : 0u)
          << I << " " << K;
  // 32 UINT as D16 x (low half, high half kept) and D16 hi x.
  V.DataFormat = 4;
  V.NumFormat = 4;
  for (bool Hi : {false, true}) {
    std::vector<u32> Old(Out.data<u32>(), Out.data<u32>() + N);
    ASSERT_TRUE(run(Hi ? "load_format_d16_hi_x_idxen" : "load_format_d16_x_idxen",
                    V, 0, Out));
    for (u32 I = 0; I < N; ++I) {
      u32 H = In_(I) ? get<u16>(Elem(I)) : 0;
      u32 Want = Hi ? (Old[I] & 0xffff) | H << 16 : (Old[I] & 0xffff0000u) | H;
      ASSERT_EQ(Out.data<u32>()[I], Want) << I << (Hi ? " hi" : " lo");
    }
  }
  // A packed format the emulator does not convert is reported, not guessed.
  V.DataFormat = 8; // 10_10_10_2
  KernelArgs A;
  A.add(Out.address()).add(V.words()).add(0u).add(Idx->address()).add(
      Off->address());
  auto R = Mod->launch("load_format_x_idxen", LaunchConfig::linear(N, 64), A);
  ASSERT_TRUE(bool(R));
  EXPECT_EQ(R->Status, DispatchStatus::IllegalInstruction);
}

TEST_P(BufferAsmTest, FormatStoresConvertComponents) {
  const u32 Stride = 8, NumRecords = 96 + 1;
  DeviceBuffer Data = bytes(16 * N, 12), Out = bytes(4 * N, 0);
  std::mt19937 G(13);
  // Floats in and around [-1, 1] (and a NaN) for the normalised formats.
  for (u32 I = 0; I < 4 * N; ++I)
    Data.data<float>()[I] = I % 17 == 0 ? NAN : float(int(G() % 601) - 300) / 250;
  for (u32 I = 0; I < N; ++I)
    Idx->data<u32>()[I] = I; // distinct elements
  VSharp V;
  V.Stride = Stride;
  V.NumRecords = NumRecords;
  // 8_8_8_8 UNORM from four floats: clamp to [0, 1], round to nearest.
  DeviceBuffer Dst = bytes(Stride * N + 64, 0);
  V.Base = Dst.address();
  V.DataFormat = 10;
  V.NumFormat = 0;
  ASSERT_TRUE(run("store_format_xyzw_idxen", V, 0, Out, &Data));
  for (u32 I = 0; I < N; ++I)
    for (unsigned K = 0; K < 4; ++K) {
      float F = Data.data<float>()[4 * I + K];
      u8 Want = std::isnan(F) ? 0
                              : u8(std::nearbyint(
                                    std::clamp(double(F), 0.0, 1.0) * 255));
      ASSERT_EQ(Dst.data<u8>()[Stride * I + InstOffset + K], I < NumRecords ? Want : 0)
          << I << " " << K;
    }
  // 16_16 SINT from two integers: truncated to 16 bits.
  DeviceBuffer Dst2 = bytes(Stride * N + 64, 0);
  V.Base = Dst2.address();
  V.DataFormat = 5;
  V.NumFormat = 5;
  ASSERT_TRUE(run("store_format_xy_idxen", V, 0, Out, &Data));
  for (u32 I = 0; I < N; ++I)
    for (unsigned K = 0; K < 2; ++K)
      ASSERT_EQ(get<u16>(Dst2.data<u8>() + Stride * I + InstOffset + 2 * K),
                I < NumRecords ? u16(Data.data<u32>()[2 * I + K]) : 0)
          << I << " " << K;
  // 16_16 FLOAT from D16 halves: stored as they are; D16 hi x into a 16
  // UINT element.
  DeviceBuffer Dst3 = bytes(Stride * N + 64, 0);
  V.Base = Dst3.address();
  V.NumFormat = 7;
  ASSERT_TRUE(run("store_format_d16_xy_idxen", V, 0, Out, &Data));
  for (u32 I = 0; I < N; ++I)
    ASSERT_EQ(get<u32>(Dst3.data<u8>() + Stride * I + InstOffset),
              I < NumRecords ? Data.data<u32>()[I] : 0)
        << I;
  DeviceBuffer Dst4 = bytes(Stride * N + 64, 0);
  V.Base = Dst4.address();
  V.DataFormat = 2;
  V.NumFormat = 4;
  ASSERT_TRUE(run("store_format_d16_hi_x_idxen", V, 0, Out, &Data));
  for (u32 I = 0; I < N; ++I)
    ASSERT_EQ(get<u32>(Dst4.data<u8>() + Stride * I + InstOffset),
              I < NumRecords ? Data.data<u32>()[I] >> 16 : 0)
        << I;
}

TEST_P(BufferAsmTest, AtomicsOutOfRangeAreDroppedAndReturnZero) {
  const u32 NumRecords = 1000;
  for (u32 I = 0; I < N; ++I)
    Off->data<u32>()[I] = 8 * I; // distinct, 8-byte aligned once +12+4
  DeviceBuffer Data = bytes(16 * N, 14), Out = bytes(8 * N, 15);
  VSharp V;
  V.NumRecords = NumRecords;
  const u32 SOff = 4; // + offset 12: dword-aligned, qword-aligned (16)
  // add (RTN): lanes whose offset is in range add and return the old value.
  {
    DeviceBuffer Mem = bytes(8 * N + 64, 16);
    std::vector<u8> Before(Mem.data<u8>(), Mem.data<u8>() + 8 * N + 64);
    V.Base = Mem.address();
    ASSERT_TRUE(run("atomic_add_offen", V, SOff, Out, &Data));
    for (u32 I = 0; I < N; ++I) {
      u32 O = off(I) + InstOffset;
      u32 Old = get<u32>(Before.data() + SOff + O);
      bool In = O < NumRecords;
      ASSERT_EQ(Out.data<u32>()[I], In ? Old : 0u) << I;
      ASSERT_EQ(get<u32>(Mem.data<u8>() + SOff + O),
                In ? Old + Data.data<u32>()[I] : Old)
          << I;
    }
  }
  // cmpswap (RTN): {src, cmp}; half the lanes compare equal.
  {
    DeviceBuffer Mem = bytes(8 * N + 64, 17);
    V.Base = Mem.address();
    for (u32 I = 0; I < N; I += 2)
      Data.data<u32>()[2 * I + 1] =
          get<u32>(Mem.data<u8>() + SOff + off(I) + InstOffset);
    std::vector<u8> Before(Mem.data<u8>(), Mem.data<u8>() + 8 * N + 64);
    ASSERT_TRUE(run("atomic_cmpswap_offen", V, SOff, Out, &Data));
    for (u32 I = 0; I < N; ++I) {
      u32 O = off(I) + InstOffset;
      u32 Old = get<u32>(Before.data() + SOff + O);
      u32 Src = Data.data<u32>()[2 * I], Cmp = Data.data<u32>()[2 * I + 1];
      bool In = O < NumRecords;
      ASSERT_EQ(Out.data<u32>()[I], In ? Old : 0u) << I;
      ASSERT_EQ(get<u32>(Mem.data<u8>() + SOff + O),
                In && Old == Cmp ? Src : Old)
          << I;
    }
  }
  // add_x2 (RTN) on qwords.
  {
    DeviceBuffer Mem = bytes(8 * N + 64, 18);
    std::vector<u8> Before(Mem.data<u8>(), Mem.data<u8>() + 8 * N + 64);
    V.Base = Mem.address();
    ASSERT_TRUE(run("atomic_add_x2_offen", V, SOff, Out, &Data));
    for (u32 I = 0; I < N; ++I) {
      u32 O = off(I) + InstOffset;
      u64 Old = get<u64>(Before.data() + SOff + O);
      bool In = O < NumRecords;
      ASSERT_EQ(Out.data<u64>()[I], In ? Old : 0u) << I;
      ASSERT_EQ(get<u64>(Mem.data<u8>() + SOff + O),
                In ? Old + Data.data<u64>()[I] : Old)
          << I;
    }
  }
}

TEST_P(BufferAsmTest, LoadToLdsWritesZeroOutOfRange) {
  const u32 NumRecords = 600, SOff = 20;
  DeviceBuffer In = bytes(4096, 19), Out = bytes(4 * N, 0);
  VSharp V;
  V.Base = In.address();
  V.NumRecords = NumRecords;
  ASSERT_TRUE(run("load_dword_lds_offen", V, SOff, Out));
  for (u32 I = 0; I < N; ++I) {
    u32 O = off(I) + InstOffset;
    ASSERT_EQ(Out.data<u32>()[I],
              O < NumRecords ? get<u32>(In.data<u8>() + SOff + O) : 0u)
        << I;
  }
}

INSTANTIATE_TEST_SUITE_P(OptLevels, BufferTest, ::testing::Values(0, 2),
                         [](const auto &Info) {
                           return "O" + std::to_string(Info.param);
                         });
INSTANTIATE_TEST_SUITE_P(OptLevels, BufferAsmTest, ::testing::Values(2),
                         [](const auto &Info) {
                           return "O" + std::to_string(Info.param);
                         });

} // namespace
