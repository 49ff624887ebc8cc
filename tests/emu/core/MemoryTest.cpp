//===- tests/emu/core/MemoryTest.cpp - FLAT, GLOBAL and SCRATCH -----------===//
//
// Loads and stores of every width through flat and global pointers, the
// three private-memory paths (MUBUF, SCRATCH_*, FLAT to the private
// aperture) with clang's -O0 and -O2 code, atomics under contention across
// many work-groups, memory faults, counters and access records; and, with
// instructions pinned by inline asm (kernels/memory.c, -O2): D16 forms,
// SADDR forms with negative offsets, every global and flat atomic, FLAT
// routed to LDS, LDS DMA, and one lane's scratch bytes seen by every path.
// Every result is compared with a host computation.
//
//===----------------------------------------------------------------------===//

#include "loom/emu/Module.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>

using namespace loom::emu;

namespace {

using u8 = uint8_t;
using u16 = uint16_t;
using u32 = uint32_t;
using u64 = uint64_t;

template <typename T> T get(const u8 *P) {
  T V;
  std::memcpy(&V, P, sizeof(T));
  return V;
}
template <typename T> void put(u8 *P, T V) { std::memcpy(P, &V, sizeof(T)); }

/// memory.c at one optimisation level on a fresh device.
class MemoryTest : public ::testing::TestWithParam<int> {
protected:
  void SetUp() override { load(DeviceOptions()); }
  void load(const DeviceOptions &Options) {
    Mod.reset();
    auto D = Device::create(Options);
    ASSERT_TRUE(bool(D)) << llvm::toString(D.takeError());
    Dev = std::move(*D);
    std::string Path = std::string(LOOM_EMU_CORE_DIR) + "/memory.O" +
                       std::to_string(GetParam()) + ".elf";
    auto M = Module::loadFile(*Dev, Path);
    ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
    Mod = std::move(*M);
  }
  bool optimised() const { return GetParam() > 0; }
  DispatchResult run(llvm::StringRef Kernel, const LaunchConfig &C,
                     const KernelArgs &A) {
    auto R = Mod->launch(Kernel, C, A);
    EXPECT_TRUE(bool(R)) << llvm::toString(R.takeError());
    return R ? *R : DispatchResult();
  }
  /// Runs and expects completion.
  bool runOk(llvm::StringRef Kernel, const LaunchConfig &C,
             const KernelArgs &A) {
    DispatchResult R = run(Kernel, C, A);
    EXPECT_TRUE(R.ok()) << Kernel.str() << ": " << R.FirstFault.Message;
    return R.ok();
  }
  DeviceBuffer buffer(size_t Bytes, u8 Fill) {
    DeviceBuffer B(*Dev, Bytes);
    std::memset(B.data(), Fill, Bytes);
    return B;
  }
  std::unique_ptr<Device> Dev;
  std::unique_ptr<Module> Mod;
};

void fillRandom(u8 *P, size_t N, unsigned Seed) {
  std::mt19937 G(Seed);
  for (size_t I = 0; I < N; ++I)
    P[I] = u8(G());
}

//===----------------------------------------------------------------------===//
// Every width, flat and global
//===----------------------------------------------------------------------===//

/// The 96-byte record widths_* writes for the 32 input bytes \p P (bytes
/// it does not write keep \p Fill).
void widthsRecord(const u8 *P, u8 *O, u8 Fill) {
  std::memset(O, Fill, 96);
  put<int32_t>(O + 0, int8_t(P[3]));
  put<u32>(O + 4, P[5]);
  put<int32_t>(O + 8, get<int16_t>(P + 6));
  put<u32>(O + 12, get<u16>(P + 10));
  put<u32>(O + 16, get<u32>(P + 12));
  put<u64>(O + 24, get<u64>(P + 16));
  std::memcpy(O + 32, P + 16, 12);
  std::memcpy(O + 48, P + 16, 16);
  O[64] = u8(P[1] + 1);
  O[65] = u8(P[2] - 1);
  put<int16_t>(O + 66, int16_t(get<int16_t>(P + 8) ^ 0x5a5a));
  for (unsigned K = 0; K < 3; ++K)
    put<u32>(O + 80 + 4 * K, get<u32>(P + 4 * K) + 1);
}

TEST_P(MemoryTest, EveryWidthThroughFlatAndGlobalPointers) {
  const u32 N = 1000; // a partial last wave
  for (const char *Kernel : {"widths_flat", "widths_global"}) {
    DeviceBuffer In = buffer(32 * N, 0), Out = buffer(96 * (N + 64), 0xee);
    fillRandom(In.data<u8>(), 32 * N, 1);
    ASSERT_TRUE(runOk(Kernel, LaunchConfig::linear(N, 64),
                      KernelArgs().add(Out.address()).add(In.address()).add(N)));
    u8 Want[96];
    for (u32 I = 0; I < N + 64; ++I) {
      if (I < N)
        widthsRecord(In.data<u8>() + 32 * I, Want, 0xee);
      else
        std::memset(Want, 0xee, 96);
      const u8 *Got = Out.data<u8>() + 96 * I;
      for (unsigned B = 0; B < 96; ++B)
        ASSERT_EQ(Got[B], Want[B]) << Kernel << " item " << I << " byte " << B;
    }
  }
}

//===----------------------------------------------------------------------===//
// Private memory: MUBUF, SCRATCH_* and FLAT
//===----------------------------------------------------------------------===//

int32_t recRef(int N, int32_t P) {
  if (N <= 0)
    return 2 * P;
  return recRef(N - 1, P) + 3 * N + P;
}

// A wave addresses at most (2^13 - 1) KiB of scratch (the 13-bit
// COMPUTE_TMPRING_SIZE.WAVESIZE): more is an invalid dispatch, not a
// reservation of tens of GiB (found by fuzz_loader); the limit itself runs.
TEST_P(MemoryTest, ScratchBeyondWhatAWaveAddressesIsInvalid) {
  const u32 N = 64, K = 7;
  DeviceBuffer Out = buffer(32 * N, 0xcd);
  LaunchConfig C = LaunchConfig::linear(N, 64);
  C.ExtraPrivateBytes = 1u << 30;
  DispatchResult R = run("scratch_mubuf", C,
                         KernelArgs().add(Out.address()).add(N).add(K));
  EXPECT_EQ(R.Status, DispatchStatus::InvalidDispatch);
  EXPECT_NE(R.FirstFault.Message.find(
                "bytes of scratch per work-item exceed the 131056 a wave "
                "can address"),
            std::string::npos)
      << R.FirstFault.Message;
  C.ExtraPrivateBytes = 131056 - 8192;
  EXPECT_TRUE(
      runOk("scratch_mubuf", C, KernelArgs().add(Out.address()).add(N).add(K)));
}

TEST_P(MemoryTest, PrivateArraysRecursionAndStackPointers) {
  const u32 N = 300, K = 7;
  for (const char *Kernel : {"scratch_mubuf", "scratch_flat"}) {
    DeviceBuffer Out = buffer(32 * N, 0xcd);
    LaunchConfig C = LaunchConfig::linear(N, 64);
    C.ExtraPrivateBytes = 4096; // the recursion's stack
    ASSERT_TRUE(
        runOk(Kernel, C, KernelArgs().add(Out.address()).add(N).add(K)));
    const int32_t *O = Out.data<int32_t>();
    for (u32 I = 0; I < N; ++I) {
      int32_t Local = int32_t(I + K) ^ 0x5a00;
      int32_t BSum = 0;
      for (u32 J = 0; J < 21; ++J)
        BSum += int8_t(I + ((J * 5 + I) % 21) * 13) * int32_t(J + 1);
      int32_t Want[8] = {int32_t(I * 131 + ((I + K) % 48) * 7),
                         int32_t(I * 131 + ((I * 5 + K) % 48) * 7),
                         Local,
                         recRef(int(I % 5) + 1, Local),
                         BSum,
                         int32_t(0xcdcdcdcd),
                         int32_t(0xcdcdcdcd),
                         int32_t(0xcdcdcdcd)};
      for (unsigned J = 0; J < 8; ++J)
        ASSERT_EQ(O[8 * I + J], Want[J]) << Kernel << " item " << I << " " << J;
    }
  }
}

TEST_P(MemoryTest, WildPrivateAccessesFault) {
  // Far beyond the lane's scratch, and just far enough to reach another
  // wave's: both fault, through MUBUF/SCRATCH_* and through a flat pointer.
  for (const char *Kernel : {"scratch_wild", "scratch_wild_fs"})
    for (u32 Idx : {1u << 20, 1024u})
      for (u32 ViaFlat : {0u, 1u}) {
        DeviceBuffer Out = buffer(4 * 128, 0);
        DispatchResult R =
            run(Kernel, LaunchConfig::linear(128, 64),
                KernelArgs().add(Out.address()).add(Idx).add(ViaFlat));
        ASSERT_EQ(R.Status, DispatchStatus::MemoryFault)
            << Kernel << " idx " << Idx << " flat " << ViaFlat;
        EXPECT_GE(R.FirstFault.Address, PrivateApertureBase);
        EXPECT_LT(R.FirstFault.Address, PrivateApertureBase + ApertureSize);
        EXPECT_TRUE(R.FirstFault.IsWrite);
        EXPECT_NE(R.FirstFault.Message.find("scratch"), std::string::npos)
            << R.FirstFault.Message;
      }
}

//===----------------------------------------------------------------------===//
// Atomics under contention
//===----------------------------------------------------------------------===//

TEST_P(MemoryTest, AtomicsUnderContentionAcrossWorkGroups) {
  const u32 N = 64 * 200;
  DeviceBuffer C = buffer(16 * 4, 0), C64 = buffer(2 * 8, 0), F = buffer(4, 0),
               D = buffer(3 * 8, 0), Ret = buffer(4 * N, 0),
               Xchg = buffer(4 * N, 0);
  int32_t Init[13] = {0,  1000, INT_MIN,        INT_MAX, 0, -1, -1,
                      0,  0x12345678, 0,        0,       -5, 1};
  std::memcpy(C.data(), Init, sizeof(Init));
  C64.data<int64_t>()[1] = INT64_MIN;
  D.data<double>()[1] = INFINITY;
  D.data<double>()[2] = -INFINITY;
  ASSERT_TRUE(runOk("atomics_contention", LaunchConfig::linear(N, 64),
                    KernelArgs()
                        .add(C.address())
                        .add(C64.address())
                        .add(F.address())
                        .add(D.address())
                        .add(Ret.address())
                        .add(Xchg.address())
                        .add(N)));
  int32_t Want[13];
  std::memcpy(Want, Init, sizeof(Init));
  u32 Inc = 0, Dec = 0, Chain = 1;
  u64 Sum64 = 0;
  for (u32 I = 0; I < N; ++I) {
    Want[0] += 1;
    Want[1] -= int32_t(I & 7);
    Want[2] = std::max(Want[2], int32_t(I * 2654435761u));
    Want[3] = std::min(Want[3], int32_t(I * 2654435761u));
    Want[4] = int32_t(std::max(u32(Want[4]), I * 2654435761u));
    Want[5] = int32_t(std::min(u32(Want[5]), I * 2654435761u));
    Want[6] &= ~(1 << (I % 31));
    Want[7] |= 1 << (I % 29);
    Want[8] ^= int32_t(I * 0x9e3779b9u);
    Inc = Inc >= 100 ? 0 : Inc + 1;
    Dec = Dec == 0 || Dec > 100 ? 100 : Dec - 1;
    Chain = Chain * 3 + 1;
    Sum64 += u64(I) << 20;
  }
  Want[9] = int32_t(Inc);
  Want[10] = int32_t(Dec);
  Want[12] = int32_t(Chain);
  const int32_t *Got = C.data<int32_t>();
  for (unsigned K = 0; K < 13; ++K)
    if (K != 11)
      EXPECT_EQ(Got[K], Want[K]) << "counter " << K;
  // The add returned every value once; the exchanges handed each value on.
  std::vector<u32> R(Ret.data<u32>(), Ret.data<u32>() + N);
  std::sort(R.begin(), R.end());
  for (u32 I = 0; I < N; ++I)
    ASSERT_EQ(R[I], I);
  std::vector<int64_t> X(Xchg.data<u32>(), Xchg.data<u32>() + N);
  for (auto &V : X)
    V = int32_t(V);
  X.push_back(Got[11]);
  std::sort(X.begin(), X.end());
  EXPECT_EQ(X[0], -5);
  for (u32 I = 0; I < N; ++I)
    ASSERT_EQ(X[I + 1], int64_t(I));
  EXPECT_EQ(C64.data<u64>()[0], Sum64);
  EXPECT_EQ(C64.data<int64_t>()[1], 0);
  EXPECT_EQ(F.data<float>()[0], 2.0f * N);
  EXPECT_EQ(D.data<double>()[0], 0.5 * N);
  EXPECT_EQ(D.data<double>()[1], 0.0);
  EXPECT_EQ(D.data<double>()[2], double(N - 1));
}

//===----------------------------------------------------------------------===//
// Faults, counters, records
//===----------------------------------------------------------------------===//

TEST_P(MemoryTest, WildGlobalStoreFaultsAtTheFirstLanesAddress) {
  u64 Wild = 0x7f0000001000ull;
  DispatchResult R = run("store_wild", LaunchConfig::linear(64, 64),
                         KernelArgs().add(Wild));
  ASSERT_EQ(R.Status, DispatchStatus::MemoryFault);
  EXPECT_EQ(R.FirstFault.Address, Wild);
  EXPECT_TRUE(R.FirstFault.IsWrite);
  EXPECT_EQ(R.FirstFault.Function, "store_wild");
}

TEST_P(MemoryTest, CountsBytesAndRecordsAccesses) {
  DeviceOptions O;
  O.RecordMemoryAccesses = true;
  load(O);
  const u32 N = 100;
  DeviceBuffer In = buffer(32 * N, 1), Out = buffer(96 * N, 0);
  DispatchResult R = run("widths_global", LaunchConfig::linear(N, 64),
                         KernelArgs().add(Out.address()).add(In.address()).add(N));
  ASSERT_TRUE(R.ok()) << R.FirstFault.Message;
  // The 16-byte load: N lanes of 16 bytes, one record per wave with the
  // lanes' addresses in lane order.
  const char *Load = "GLOBAL_LOAD_DWORDX4";
  const InstructionCount *X4 = nullptr;
  for (const InstructionCount &I : R.Counters.Instructions)
    if (I.Opcode == Load)
      X4 = &I;
  ASSERT_NE(X4, nullptr);
  EXPECT_EQ(X4->MemoryBytes, 16u * N);
  EXPECT_TRUE(X4->IsMemory);
  unsigned Records = 0;
  for (const MemoryAccessRecord &A : R.Counters.Accesses) {
    if (A.Pc != X4->Pc)
      continue;
    ++Records;
    EXPECT_EQ(A.BytesPerLane, 16u);
    EXPECT_FALSE(A.IsWrite);
    EXPECT_EQ(A.Space, 0);
    ASSERT_EQ(A.Addresses.size(), size_t(std::popcount(A.ExecMask)));
    u32 First = A.WaveId * 64;
    for (size_t L = 0; L < A.Addresses.size(); ++L)
      EXPECT_EQ(A.Addresses[L], In.address() + 32 * (First + L) + 16);
  }
  EXPECT_EQ(Records, 2u);
}

//===----------------------------------------------------------------------===//
// Pinned instructions (-O2)
//===----------------------------------------------------------------------===//

/// Instantiated at -O2 only: the pinned kernels are built when optimising.
class MemoryAsmTest : public MemoryTest {};

/// Register value after a D16 load of \p Raw (1 or 2 bytes) into \p Old.
u32 d16Ref(unsigned Kind, u32 Old, const u8 *Raw) {
  u32 V;
  switch (Kind / 2) {
  case 0:
    V = Raw[0];
    break;
  case 1:
    V = u16(int16_t(int8_t(Raw[0])));
    break;
  default:
    V = get<u16>(Raw);
  }
  return Kind % 2 ? (Old & 0xffff) | V << 16 : (Old & 0xffff0000u) | V;
}

TEST_P(MemoryAsmTest, D16LoadsKeepTheOtherHalf) {
  const u32 N = 256;
  DeviceBuffer In = buffer(16 * N + 16, 0), Old = buffer(4 * N, 0),
               Out = buffer(18 * 4 * N, 0);
  fillRandom(In.data<u8>(), 16 * N + 16, 2);
  fillRandom(Old.data<u8>(), 4 * N, 3);
  ASSERT_TRUE(runOk("d16_loads", LaunchConfig::linear(N, 64),
                    KernelArgs()
                        .add(Out.address())
                        .add(In.address())
                        .add(Old.address())));
  for (u32 I = 0; I < N; ++I)
    for (unsigned K = 0; K < 6; ++K)
      for (unsigned S = 0; S < 3; ++S)
        ASSERT_EQ(Out.data<u32>()[18 * I + 3 * K + S],
                  d16Ref(K, Old.data<u32>()[I], In.data<u8>() + 16 * I))
            << "item " << I << " load " << K << " form " << S;
}

TEST_P(MemoryAsmTest, SubDwordStoresAndD16HiStores) {
  const u32 N = 256;
  DeviceBuffer Out = buffer(16 * N, 0xee), V = buffer(4 * N, 0);
  fillRandom(V.data<u8>(), 4 * N, 4);
  ASSERT_TRUE(runOk("sub_dword_stores", LaunchConfig::linear(N, 64),
                    KernelArgs().add(Out.address()).add(V.address())));
  for (u32 I = 0; I < N; ++I) {
    u32 X = V.data<u32>()[I];
    u8 Want[16];
    std::memset(Want, 0xee, 16);
    Want[0] = u8(X);
    put<u16>(Want + 2, u16(X));
    Want[5] = u8(X >> 16);
    put<u16>(Want + 6, u16(X >> 16));
    Want[8] = u8(X);
    put<u16>(Want + 10, u16(X));
    Want[13] = u8(X >> 16);
    put<u16>(Want + 14, u16(X >> 16));
    ASSERT_EQ(std::memcmp(Out.data<u8>() + 16 * I, Want, 16), 0) << "item " << I;
  }
}

TEST_P(MemoryAsmTest, WideSaddrAccessesWithNegativeOffsets) {
  const u32 N = 4096;
  DeviceBuffer In = buffer(16 * N, 0), Out = buffer(3 * 16 * N, 0);
  fillRandom(In.data<u8>(), 16 * N, 5);
  ASSERT_TRUE(runOk("saddr_wide", LaunchConfig::linear(N, 256),
                    KernelArgs().add(Out.address()).add(In.address())));
  for (unsigned Part = 0; Part < 3; ++Part)
    EXPECT_EQ(std::memcmp(Out.data<u8>() + Part * 16 * N, In.data(), 16 * N), 0)
        << "part " << Part;
}

//===----------------------------------------------------------------------===//
// Every global and flat atomic
//===----------------------------------------------------------------------===//

template <typename T> using AtomicRef = std::function<T(T Old, T D0, T D1)>;

float ftz(float X) {
  return std::fpclassify(X) == FP_SUBNORMAL ? std::copysign(0.0f, X) : X;
}

std::vector<u32> edge32() {
  return {0,          1,          2,          0x7f,       0x80,
          0xff,       0x7fff,     0x8000,     0xffff,     0x7fffffff,
          0x80000000, 0x80000001, 0xfffffffe, 0xffffffff, 100,
          99,         0x3f800000, 0xbf800000, 0x7f800000, 0xff800000,
          0x7fc00000, 0x00000001, 0x80000001, 0x007fffff, 0x3c003c00,
          0x7bff7bff, 0xfc00fc00, 0x7e007e00, 0x80008000, 0x00010001};
}

std::vector<u64> edge64() {
  std::vector<u64> E = {0,
                        1,
                        2,
                        0x7fffffffffffffffull,
                        0x8000000000000000ull,
                        0xffffffffffffffffull,
                        0xfffffffffffffffeull,
                        0x00000000ffffffffull,
                        0x0000000100000000ull,
                        100,
                        99,
                        std::bit_cast<u64>(1.0),
                        std::bit_cast<u64>(-1.0),
                        std::bit_cast<u64>(INFINITY * 1.0),
                        std::bit_cast<u64>(-INFINITY * 1.0),
                        std::bit_cast<u64>(std::nan("")),
                        std::bit_cast<u64>(-0.0),
                        1, // smallest denormal
                        std::bit_cast<u64>(1e300),
                        std::bit_cast<u64>(0.1)};
  return E;
}

/// mem, data, data2 for lane i: edge values crossed, cmpswap's comparand
/// matching the old value on every other lane.
template <typename T>
void atomicInputs(u32 N, T *Mem, T *D0, T *D1, const std::vector<T> &E) {
  std::mt19937_64 G(6);
  size_t M = E.size();
  for (u32 I = 0; I < N; ++I) {
    Mem[I] = I < M * M ? E[I % M] : T(G());
    D0[I] = I < M * M ? E[(I / M) % M] : T(G());
    D1[I] = I % 2 ? Mem[I] : T(G());
  }
}

/// Equal bits, or NaN in the same float lanes (which NaN an addition of two
/// NaNs returns is not specified).
template <typename T> bool sameResult(T A, T B, unsigned FloatBits) {
  if (A == B || !FloatBits)
    return A == B;
  for (unsigned Lo = 0; Lo < 8 * sizeof(T); Lo += FloatBits) {
    u64 M = FloatBits == 64 ? ~0ull : ((1ull << FloatBits) - 1);
    u64 X = (u64(A) >> Lo) & M, Y = (u64(B) >> Lo) & M;
    unsigned Mant = FloatBits == 16 ? 10 : FloatBits == 32 ? 23 : 52;
    auto IsNan = [&](u64 V) {
      return ((V >> Mant) & (M >> (Mant + 1))) == (M >> (Mant + 1)) &&
             (V & ((1ull << Mant) - 1));
    };
    if (X != Y && !(IsNan(X) && IsNan(Y)))
      return false;
  }
  return true;
}

/// Runs atomic kernel \p Kernel (mem, data, data2, ret) on \p N lanes.
void runAtomicKernel(Module &Mod, const std::string &Kernel, u32 N,
                     DeviceBuffer &Mem, DeviceBuffer &D0, DeviceBuffer &D1,
                     DeviceBuffer &Ret) {
  auto R = Mod.launch(Kernel, LaunchConfig::linear(N, 64),
                      KernelArgs()
                          .add(Mem.address())
                          .add(D0.address())
                          .add(D1.address())
                          .add(Ret.address()));
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  ASSERT_TRUE(R->ok()) << Kernel << ": " << R->FirstFault.Message;
}

template <typename T>
void checkAtomic(Device &Dev, Module &Mod,
                 const std::string &Name, const AtomicRef<T> &Ref,
                 const std::vector<T> &Edges, bool HasFlat,
                 unsigned FloatBits) {
  const u32 N = 1024;
  std::vector<std::string> Forms = {"", "_saddr"};
  if (HasFlat)
    Forms.push_back("_flat");
  for (const std::string &Form : Forms) {
    DeviceBuffer Mem(Dev, sizeof(T) * N), D0(Dev, sizeof(T) * N),
        D1(Dev, sizeof(T) * N), Ret(Dev, sizeof(T) * N);
    atomicInputs<T>(N, Mem.data<T>(), D0.data<T>(), D1.data<T>(), Edges);
    std::vector<T> Old(Mem.data<T>(), Mem.data<T>() + N);
    std::memset(Ret.data(), 0xab, sizeof(T) * N);
    std::string Kernel = "atomic_" + Name + Form;
    ASSERT_NO_FATAL_FAILURE(runAtomicKernel(Mod, Kernel, N, Mem, D0, D1, Ret));
    for (u32 I = 0; I < N; ++I) {
      T D0v = D0.data<T>()[I], D1v = D1.data<T>()[I];
      ASSERT_PRED3(sameResult<T>, Mem.data<T>()[I], Ref(Old[I], D0v, D1v),
                   FloatBits)
          << Kernel << " lane " << I << std::hex << " old " << u64(Old[I])
          << " data " << u64(D0v) << " " << u64(D1v);
      if (Form != "_saddr")
        ASSERT_EQ(Ret.data<T>()[I], Old[I]) << Kernel << " lane " << I;
    }
  }
}

TEST_P(MemoryAsmTest, EveryGlobalAndFlatAtomic) {
  using S32 = int32_t;
  using S64 = int64_t;
  const std::vector<u32> E32 = edge32();
  const std::vector<u64> E64 = edge64();
  auto A32 = [&](const char *Name, AtomicRef<u32> F, bool Flat = true,
                 unsigned FloatBits = 0) {
    SCOPED_TRACE(Name);
    checkAtomic<u32>(*Dev, *Mod, Name, F, E32, Flat, FloatBits);
  };
  auto A64 = [&](const char *Name, AtomicRef<u64> F, unsigned FloatBits = 0) {
    SCOPED_TRACE(Name);
    checkAtomic<u64>(*Dev, *Mod, Name, F, E64, true, FloatBits);
  };
  A32("swap", [](u32, u32 D, u32) { return D; });
  A32("cmpswap", [](u32 O, u32 S, u32 C) { return O == C ? S : O; });
  A32("add", [](u32 O, u32 D, u32) { return O + D; });
  A32("sub", [](u32 O, u32 D, u32) { return O - D; });
  A32("smin", [](u32 O, u32 D, u32) { return u32(std::min(S32(O), S32(D))); });
  A32("umin", [](u32 O, u32 D, u32) { return std::min(O, D); });
  A32("smax", [](u32 O, u32 D, u32) { return u32(std::max(S32(O), S32(D))); });
  A32("umax", [](u32 O, u32 D, u32) { return std::max(O, D); });
  A32("and", [](u32 O, u32 D, u32) { return O & D; });
  A32("or", [](u32 O, u32 D, u32) { return O | D; });
  A32("xor", [](u32 O, u32 D, u32) { return O ^ D; });
  A32("inc", [](u32 O, u32 D, u32) { return O >= D ? 0 : O + 1; });
  A32("dec", [](u32 O, u32 D, u32) { return O == 0 || O > D ? D : O - 1; });
  A32(
      "add_f32",
      [](u32 O, u32 D, u32) {
        return std::bit_cast<u32>(ftz(ftz(std::bit_cast<float>(O)) +
                                      ftz(std::bit_cast<float>(D))));
      },
      false, 32);
  A32(
      "pk_add_f16",
      [](u32 O, u32 D, u32) {
        u32 R = 0;
        for (unsigned H = 0; H < 32; H += 16) {
          _Float16 A = std::bit_cast<_Float16>(u16(O >> H));
          _Float16 B = std::bit_cast<_Float16>(u16(D >> H));
          R |= u32(std::bit_cast<u16>(_Float16(A + B))) << H;
        }
        return R;
      },
      false, 16);
  A64("swap_x2", [](u64, u64 D, u64) { return D; });
  A64("cmpswap_x2", [](u64 O, u64 S, u64 C) { return O == C ? S : O; });
  A64("add_x2", [](u64 O, u64 D, u64) { return O + D; });
  A64("sub_x2", [](u64 O, u64 D, u64) { return O - D; });
  A64("smin_x2", [](u64 O, u64 D, u64) { return u64(std::min(S64(O), S64(D))); });
  A64("umin_x2", [](u64 O, u64 D, u64) { return std::min(O, D); });
  A64("smax_x2", [](u64 O, u64 D, u64) { return u64(std::max(S64(O), S64(D))); });
  A64("umax_x2", [](u64 O, u64 D, u64) { return std::max(O, D); });
  A64("and_x2", [](u64 O, u64 D, u64) { return O & D; });
  A64("or_x2", [](u64 O, u64 D, u64) { return O | D; });
  A64("xor_x2", [](u64 O, u64 D, u64) { return O ^ D; });
  A64("inc_x2", [](u64 O, u64 D, u64) { return O >= D ? 0 : O + 1; });
  A64("dec_x2", [](u64 O, u64 D, u64) { return O == 0 || O > D ? D : O - 1; });
  auto F64 = [](u64 X) { return std::bit_cast<double>(X); };
  A64(
      "add_f64",
      [&](u64 O, u64 D, u64) { return std::bit_cast<u64>(F64(O) + F64(D)); },
      64);
  // The ISA's pseudocode: MEM = DATA < MEM ? DATA : MEM (and >).
  A64("min_f64", [&](u64 O, u64 D, u64) { return F64(D) < F64(O) ? D : O; });
  A64("max_f64", [&](u64 O, u64 D, u64) { return F64(D) > F64(O) ? D : O; });
}

/// Lanes of a wave on shared addresses (atomic_*_shared): memory and every
/// lane's old value as if the lanes went one after the other in lane order.
template <typename T>
void checkSharedAtomic(Device &Dev, Module &Mod, const std::string &Name,
                       const AtomicRef<T> &Ref, const std::vector<T> &Edges) {
  const u32 N = 1024;
  DeviceBuffer Mem(Dev, sizeof(T) * N), D0(Dev, sizeof(T) * N),
      D1(Dev, sizeof(T) * N), Ret(Dev, sizeof(T) * N);
  atomicInputs<T>(N, Mem.data<T>(), D0.data<T>(), D1.data<T>(), Edges);
  std::vector<T> Want(Mem.data<T>(), Mem.data<T>() + N), WantRet(N);
  for (u32 I = 0; I < N; ++I) {
    u32 L = I % 64, Slot = L % 3 == 2 ? L : L % 3;
    T &M = Want[I - L + Slot];
    WantRet[I] = M;
    M = Ref(M, D0.data<T>()[I], 0);
  }
  std::string Kernel = "atomic_" + Name + "_shared";
  ASSERT_NO_FATAL_FAILURE(runAtomicKernel(Mod, Kernel, N, Mem, D0, D1, Ret));
  for (u32 I = 0; I < N; ++I) {
    ASSERT_EQ(Mem.data<T>()[I], Want[I]) << Kernel << " slot " << I;
    ASSERT_EQ(Ret.data<T>()[I], WantRet[I]) << Kernel << " lane " << I;
  }
}

// Lanes on one address take one host atomic with their data combined
// (vmem::atomicLanes); each lane still sees the value its predecessors left.
TEST_P(MemoryAsmTest, AtomicsOfLanesSharingAnAddress) {
  using S64 = int64_t;
  const std::vector<u32> E32 = edge32();
  const std::vector<u64> E64 = edge64();
  auto A32 = [&](const char *Name, AtomicRef<u32> F) {
    SCOPED_TRACE(Name);
    checkSharedAtomic<u32>(*Dev, *Mod, Name, F, E32);
  };
  auto A64 = [&](const char *Name, AtomicRef<u64> F) {
    SCOPED_TRACE(Name);
    checkSharedAtomic<u64>(*Dev, *Mod, Name, F, E64);
  };
  A32("add", [](u32 O, u32 D, u32) { return O + D; });
  A32("sub", [](u32 O, u32 D, u32) { return O - D; });
  A32("smin", [](u32 O, u32 D, u32) {
    return u32(std::min(int32_t(O), int32_t(D)));
  });
  A32("umax", [](u32 O, u32 D, u32) { return std::max(O, D); });
  A32("and", [](u32 O, u32 D, u32) { return O & D; });
  A32("or", [](u32 O, u32 D, u32) { return O | D; });
  A32("xor", [](u32 O, u32 D, u32) { return O ^ D; });
  A32("inc", [](u32 O, u32 D, u32) { return O >= D ? 0 : O + 1; });
  A64("add_x2", [](u64 O, u64 D, u64) { return O + D; });
  A64("smax_x2", [](u64 O, u64 D, u64) { return u64(std::max(S64(O), S64(D))); });
  A64("umin_x2", [](u64 O, u64 D, u64) { return std::min(O, D); });
}

TEST_P(MemoryAsmTest, FlatAccessesRouteToLds) {
  const u32 N = 512;
  DeviceBuffer V = buffer(4 * N, 0), Out = buffer(12 * N, 0);
  fillRandom(V.data<u8>(), 4 * N, 7);
  ASSERT_TRUE(runOk("flat_lds", LaunchConfig::linear(N, 256),
                    KernelArgs().add(Out.address()).add(V.address())));
  for (u32 I = 0; I < N; ++I) {
    u32 X = V.data<u32>()[I], T = I % 256;
    EXPECT_EQ(Out.data<u32>()[3 * I], X) << I;
    EXPECT_EQ(Out.data<u32>()[3 * I + 1], X + T) << I;
    EXPECT_EQ(Out.data<u32>()[3 * I + 2], ((X + T) >> 8) & 0xff) << I;
  }
}

TEST_P(MemoryAsmTest, GlobalLoadToLds) {
  const u32 N = 256;
  DeviceBuffer In = buffer(4 * N, 0), Out = buffer(4 * N, 0);
  fillRandom(In.data<u8>(), 4 * N, 8);
  ASSERT_TRUE(runOk("load_to_lds", LaunchConfig::linear(N, 64),
                    KernelArgs().add(Out.address()).add(In.address())));
  EXPECT_EQ(std::memcmp(Out.data(), In.data(), 4 * N), 0);
}

TEST_P(MemoryAsmTest, OneLanesScratchBytesByEveryPath) {
  const u32 N = 200;
  DeviceBuffer Out = buffer(64 * N, 0);
  ASSERT_TRUE(runOk("scratch_layout", LaunchConfig::linear(N, 64),
                    KernelArgs().add(Out.address())));
  for (u32 I = 0; I < N; ++I) {
    u8 Arr[64];
    for (u32 J = 0; J < 16; ++J)
      put<u32>(Arr + 4 * J, I * 0x01010101u + J * 0x10203);
    u32 Want[16];
    Want[0] = get<u32>(Arr + 8);
    Want[1] = get<u32>(Arr + 12);
    for (u32 K = 0; K < 4; ++K)
      Want[2 + K] = get<u32>(Arr + 18 + 4 * K);
    Want[6] = get<u16>(Arr + 7);
    Want[7] = get<u32>(Arr + 20);
    Want[8] = get<u32>(Arr + 29);
    int32_t X[4] = {int32_t(I * 3), int32_t(I ^ 0x55aa), -int32_t(I),
                    int32_t(I << 20)};
    std::memcpy(Arr + 37, X, 16);
    for (u32 J = 0; J < 6; ++J)
      Want[9 + J] = get<u32>(Arr + 34 + 4 * J);
    Want[15] = get<u32>(Arr + 60);
    for (u32 K = 0; K < 16; ++K)
      ASSERT_EQ(Out.data<u32>()[16 * I + K], Want[K]) << "item " << I << " " << K;
  }
}

INSTANTIATE_TEST_SUITE_P(OptLevels, MemoryTest, ::testing::Values(0, 2),
                         [](const auto &Info) {
                           return "O" + std::to_string(Info.param);
                         });
INSTANTIATE_TEST_SUITE_P(OptLevels, MemoryAsmTest, ::testing::Values(2),
                         [](const auto &Info) {
                           return "O" + std::to_string(Info.param);
                         });

} // namespace
