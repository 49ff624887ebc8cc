//===- tests/emu/core/FloatTestHarness.h - One-instruction float tests ----===//
//
// Runs the VTEST kernels of kernels/float.s (one vector instruction each,
// one wave) on chosen lane inputs, EXEC, VCC and MODE, and checks every
// lane's destination and the masks against a reference written in the
// test: VectorFloatTest (f16/f32/f64) and PackedTest (VOP3P) share it.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TESTS_EMU_CORE_FLOATTESTHARNESS_H
#define LOOM_TESTS_EMU_CORE_FLOATTESTHARNESS_H

// The emulator's internal headers are not on the test include path.
#include "../../../emu/ops/FloatMath.h"

#include "loom/emu/Module.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace loom::emu::floattest {

namespace fm = fmath;

/// The frame of every VTEST kernel (see float.s).
struct LaneIn {
  uint64_t A = 0, B = 0, C = 0, D = 0;
};
struct LaneOut {
  uint64_t D = 0, Vcc = 0, Exec = 0, Sdst = 0;
};
using Lanes = std::array<LaneIn, 64>;

/// MODE values: IEEE and DX10 clamp on, round to nearest even, and the
/// f32 and f16/f64 denorm fields.
constexpr uint32_t ModeDefault = 0x3f0; // denormals kept
constexpr uint32_t ModeFlush = 0x300;   // denormals flushed
constexpr uint32_t ModeNoIeee = 0x1f0;  // IEEE mode off

struct Env {
  std::unique_ptr<Device> Dev;
  std::unique_ptr<Module> Mod;
};

inline Env &env() {
  static Env E = [] {
    Env E;
    auto D = Device::create();
    if (!D) {
      ADD_FAILURE() << llvm::toString(D.takeError());
      return E;
    }
    E.Dev = std::move(*D);
    auto M =
        Module::loadFile(*E.Dev, std::string(LOOM_EMU_CORE_DIR) + "/float.elf");
    if (!M) {
      ADD_FAILURE() << llvm::toString(M.takeError());
      return E;
    }
    E.Mod = std::move(*M);
    return E;
  }();
  return E;
}

/// Runs VTEST kernel \p Kernel once; false (with a test failure) if the
/// dispatch did not complete.
inline bool runKernel(const std::string &Kernel, const Lanes &In, uint64_t Exec,
                      uint64_t Vcc, uint32_t Mode,
                      std::array<LaneOut, 64> &Out) {
  Env &E = env();
  if (!E.Mod)
    return false;
  DeviceBuffer Args(*E.Dev, 64, 64), InBuf(*E.Dev, sizeof(In)),
      OutBuf(*E.Dev, sizeof(Out));
  std::memcpy(InBuf.data(), In.data(), sizeof(In));
  uint64_t A[5] = {InBuf.address(), OutBuf.address(), Exec, Vcc, Mode};
  std::memcpy(Args.data(), A, sizeof(A));
  std::optional<uint64_t> KO = E.Mod->kernelObject(Kernel);
  EXPECT_TRUE(KO.has_value()) << "no kernel " << Kernel;
  if (!KO)
    return false;
  DispatchParams P;
  P.KernelObject = *KO;
  P.GridSize[0] = 64;
  P.WorkgroupSize[0] = 64;
  P.Kernarg = Args.address();
  DispatchResult R = E.Dev->dispatch(P);
  EXPECT_TRUE(R.ok()) << Kernel << ": " << R.FirstFault.Message;
  if (!R.ok())
    return false;
  std::memcpy(Out.data(), OutBuf.data(), sizeof(Out));
  return true;
}

//===----------------------------------------------------------------------===//
// Lane values
//===----------------------------------------------------------------------===//

inline float f32(uint64_t B) { return std::bit_cast<float>(uint32_t(B)); }
inline double f64(uint64_t B) { return std::bit_cast<double>(B); }
inline uint64_t bits(float X) { return std::bit_cast<uint32_t>(X); }
inline uint64_t bits(double X) { return std::bit_cast<uint64_t>(X); }
inline uint16_t h16(uint64_t B, bool High = false) {
  return uint16_t(B >> (High ? 16 : 0));
}

/// Edge values of each format (both signs), and random bit patterns.
inline std::vector<uint64_t> edgeValues(unsigned Bytes) {
  std::vector<uint64_t> V;
  if (Bytes == 4) {
    V = {0x0,        0x1,        0x7fffff,   0x800000,   0x3f800000,
         0x3fc00000, 0x3effffff, 0x3f000000, 0x40490fdb, 0x4b000001,
         0x4f000000, 0x4f800000, 0x7f7fffff, 0x7f800000, 0x7fc00000,
         0x7f800001, 0x1f800000, 0x5f800000, 0x00800001, 0x3e800000};
  } else if (Bytes == 8) {
    V = {0x0,
         0x1,
         0xfffffffffffff,
         0x10000000000000,
         0x3ff0000000000000,
         0x3ff8000000000000,
         0x3fe0000000000000,
         0x4330000000000001,
         0x41e0000000000000,
         0x41f0000000000000,
         0x7fefffffffffffff,
         0x7ff0000000000000,
         0x7ff8000000000000,
         0x7ff0000000000001,
         0x1ff0000000000000,
         0x5ff0000000000000,
         0x3fd0000000000000,
         0x400921fb54442d18,
         0x4430000000000000,
         0x7fe0000000000000};
  } else {
    V = {0x0,    0x1,    0x3ff,  0x400,  0x3c00, 0x3e00, 0x3bff,
         0x3800, 0x4248, 0x6400, 0x7bff, 0x7c00, 0x7e00, 0x7c01,
         0x3400, 0x5800, 0x0200, 0x4400, 0x4900, 0x7800};
  }
  size_t N = V.size();
  uint64_t Sign = Bytes == 2   ? 0x8000
                  : Bytes == 4 ? 0x80000000u
                               : 0x8000000000000000ull;
  for (size_t I = 0; I < N; ++I)
    V.push_back(V[I] | Sign);
  return V;
}

/// Operands of one run: the edges for A, B and C in three different
/// orders (round 0), random bits in later rounds. \p Bytes per operand:
/// 2 fills the low half with an f16 and the high half with another one.
inline Lanes makeLanes(unsigned Bytes, unsigned Round, std::mt19937_64 &Rng) {
  std::vector<uint64_t> E = edgeValues(Bytes == 2 ? 2 : Bytes);
  Lanes In;
  auto Pick = [&](unsigned L, unsigned K) -> uint64_t {
    if (Round == 0 || (Round == 1 && K == 1))
      return E[(L * (2 * K + 1) + K * 5) % E.size()];
    return Rng();
  };
  for (unsigned L = 0; L < 64; ++L) {
    uint64_t V[3];
    for (unsigned K = 0; K < 3; ++K) {
      V[K] = Pick(L, K);
      // Two values per operand: f16 halves of a dword, f32 halves of a
      // qword (v_pk_* take both; other operations ignore the second).
      uint64_t Second = E[(L + 3 * K + Round) % E.size()];
      if (Bytes == 2 && Round == 0)
        V[K] = (V[K] & 0xffff) | (Second << 16);
      else if (Bytes == 4 && Round == 0)
        V[K] = (V[K] & 0xffffffffull) | (Second << 32);
    }
    In[L] = {V[0], V[1], V[2], Rng()};
  }
  return In;
}

/// EXEC of run \p Round: all lanes, alternating lanes, random lanes.
inline uint64_t makeExec(unsigned Round, std::mt19937_64 &Rng) {
  if (Round % 3 == 0)
    return ~0ull;
  if (Round % 3 == 1)
    return 0x5555aaaa5555aaaaull;
  return Rng() | 1;
}

//===----------------------------------------------------------------------===//
// Cases
//===----------------------------------------------------------------------===//

/// What a reference sees of one lane.
struct Ref {
  const Lanes &In;
  unsigned L;
  uint64_t Exec, Vcc;
  uint32_t Mode;
  const LaneIn &I() const { return In[L]; }
  uint64_t a() const { return In[L].A; }
  uint64_t b() const { return In[L].B; }
  uint64_t c() const { return In[L].C; }
  uint64_t d() const { return In[L].D; }
  bool vcc() const { return (Vcc >> L) & 1; }
  bool ieee() const { return (Mode >> 9) & 1; }
  unsigned dn32() const { return (Mode >> 4) & 3; }
  unsigned dn16() const { return (Mode >> 6) & 3; }
  /// v8 written with a 32-bit result (v9 keeps its value).
  uint64_t r32(uint64_t V) const {
    return (In[L].D & 0xffffffff00000000ull) | uint32_t(V);
  }
  /// v8 written with a 16-bit result, high half zeroed.
  uint64_t r16(uint16_t V) const { return r32(V); }
  /// v8's half \p High written, the other half kept.
  uint64_t r16Keep(uint16_t V, bool High) const {
    uint64_t Mask = High ? 0xffff0000ull : 0xffffull;
    return (In[L].D & ~Mask) | (uint64_t(V) << (High ? 16 : 0));
  }
};

//===----------------------------------------------------------------------===//
// Reference helpers
//===----------------------------------------------------------------------===//

using F16 = fm::F16;
using F32 = fm::F32;
using F64 = fm::F64;

// Operands after MODE input flushing, results after output flushing.
inline float in32(uint64_t V, const Ref &R) {
  return fm::denormIn<F32>(f32(V), R.dn32());
}
inline float out32(float V, const Ref &R) {
  return fm::denormOut<F32>(V, R.dn32());
}
inline double in64(uint64_t V, const Ref &R) {
  return fm::denormIn<F64>(f64(V), R.dn16());
}
inline double out64(double V, const Ref &R) {
  return fm::denormOut<F64>(V, R.dn16());
}
inline _Float16 in16(uint16_t V, const Ref &R) {
  return std::bit_cast<_Float16>(fm::denormIn<F16>(V, R.dn16()));
}
inline uint16_t out16(_Float16 V, const Ref &R) {
  return fm::denormOut<F16>(std::bit_cast<uint16_t>(V), R.dn16());
}
inline uint16_t hb(_Float16 V) { return std::bit_cast<uint16_t>(V); }
inline _Float16 hv(uint16_t B) { return std::bit_cast<_Float16>(B); }

/// VOP3 output modifiers on a float result: omod, then clamp to [0, 1]
/// (DX10_CLAMP is on in every MODE used here: NaN becomes 0).
template <class T> T outMods(T V, unsigned Omod, bool Clamp) {
  V = Omod == 1 ? V * T(2) : Omod == 2 ? V * T(4) : Omod == 3 ? V / T(2) : V;
  if (Clamp)
    V = V != V ? T(0) : V < T(0) ? T(0) : V > T(1) ? T(1) : V + T(0);
  return V;
}

/// The expected effect of the instruction on one active lane.
struct Effect {
  uint64_t D;
  int Mask = -1; ///< 0/1: the lane's bit of a written mask (-1: none)
};
using RefFn = std::function<Effect(const Ref &)>;

inline Effect d(uint64_t V) { return {V}; }
inline Effect mask(const Ref &R, bool Bit) { return {R.d(), Bit}; }

/// Where an instruction's lane mask goes.
enum class MaskTo { None, Vcc, Sdst, VccExec, SdstExec };

struct Case {
  std::string Kernel;
  unsigned Bytes; ///< operand width for the generated values: 2, 4 or 8
  RefFn Fn;
  MaskTo Mask = MaskTo::None;
  std::vector<uint32_t> Modes = {ModeDefault};
};

inline std::string hex(uint64_t V) {
  std::string S;
  llvm::raw_string_ostream(S) << llvm::format_hex(V, 18);
  return S;
}

/// Whether \p Got and \p Want differ only in the sign or payload of a NaN
/// result (the NaN the host propagates depends on operand order; the ISA
/// leaves it open), \p Got being a quiet NaN as the hardware's always are.
inline bool differOnlyInNan(uint64_t Got, uint64_t Want) {
  struct Field {
    unsigned Shift, Bits;
  } Fields[] = {{0, 16}, {16, 16}, {0, 32}, {0, 64}};
  for (const Field &F : Fields) {
    uint64_t Ones = F.Bits == 64 ? ~0ull : (1ull << F.Bits) - 1;
    if ((Got ^ Want) & ~(Ones << F.Shift))
      continue;
    unsigned Mant = F.Bits == 16 ? 10 : F.Bits == 32 ? 23 : 52;
    uint64_t Abs = Ones >> 1, Inf = Abs >> Mant << Mant;
    uint64_t G = (Got >> F.Shift) & Abs, W = (Want >> F.Shift) & Abs;
    if (G > Inf && W > Inf && (G >> (Mant - 1)) & 1)
      return true;
  }
  return false;
}

/// Runs \p C over \p Rounds input sets per MODE and checks every lane.
inline void check(const Case &C, unsigned Rounds = 6) {
  std::mt19937_64 Rng(std::hash<std::string>()(C.Kernel));
  for (uint32_t Mode : C.Modes)
    for (unsigned Round = 0; Round < Rounds; ++Round) {
      Lanes In = makeLanes(C.Bytes, Round, Rng);
      uint64_t Exec = makeExec(Round, Rng), Vcc = Rng();
      std::array<LaneOut, 64> Out;
      if (!runKernel(C.Kernel, In, Exec, Vcc, Mode, Out))
        return;
      uint64_t MaskBits = 0;
      unsigned Bad = 0;
      for (unsigned L = 0; L < 64 && Bad < 4; ++L) {
        bool Active = (Exec >> L) & 1;
        Effect E =
            Active ? C.Fn(Ref{In, L, Exec, Vcc, Mode}) : Effect{In[L].D, 0};
        if (E.Mask > 0)
          MaskBits |= 1ull << L;
        if (Out[L].D != E.D && !differOnlyInNan(Out[L].D, E.D)) {
          ++Bad;
          ADD_FAILURE() << C.Kernel << " mode " << hex(Mode) << " round "
                        << Round << " lane " << L << (Active ? "" : " (off)")
                        << ": A " << hex(In[L].A) << " B " << hex(In[L].B)
                        << " C " << hex(In[L].C) << " D " << hex(In[L].D)
                        << "\n  got " << hex(Out[L].D) << " want " << hex(E.D);
        }
      }
      const LaneOut &O = Out[0];
      bool ToVcc = C.Mask == MaskTo::Vcc || C.Mask == MaskTo::VccExec;
      bool ToSdst = C.Mask == MaskTo::Sdst || C.Mask == MaskTo::SdstExec;
      bool ToExec = C.Mask == MaskTo::VccExec || C.Mask == MaskTo::SdstExec;
      EXPECT_EQ(hex(O.Vcc), hex(ToVcc ? MaskBits : Vcc))
          << C.Kernel << " VCC, round " << Round;
      EXPECT_EQ(hex(O.Sdst), hex(ToSdst ? MaskBits : 0))
          << C.Kernel << " SGPR destination, round " << Round;
      EXPECT_EQ(hex(O.Exec), hex(ToExec ? MaskBits : Exec))
          << C.Kernel << " EXEC, round " << Round;
    }
}

} // namespace loom::emu::floattest

#endif // LOOM_TESTS_EMU_CORE_FLOATTESTHARNESS_H
