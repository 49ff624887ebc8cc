//===- tests/emu/core/PackedTest.cpp - VOP3P packed math, mix, dot --------===//
//
// One instruction per kernel (kernels/float.s through FloatTestHarness.h):
// op_sel / op_sel_hi / neg_lo / neg_hi on each source, clamp, inline
// constants, packed f32, v_fma_mix*, the dot products and the VOP2 packed
// accumulators, against references computed here per 16- or 32-bit half.
//
//===----------------------------------------------------------------------===//

#include "FloatTestHarness.h"

#include <cmath>

using namespace loom::emu;
using namespace loom::emu::floattest;

namespace {

/// A VOP3P source as the instruction sees it: which half feeds the low and
/// the high result, and whether each is negated.
struct Sel {
  bool Lo = false, Hi = true, NegLo = false, NegHi = false;
};

/// The 16-bit operand of the low (\p High false) or high result.
uint16_t half(uint64_t V, const Sel &S, bool High, bool Float = true) {
  uint16_t H = h16(V, High ? S.Hi : S.Lo);
  return Float && (High ? S.NegHi : S.NegLo) ? H ^ 0x8000 : H;
}
/// The f32 operand of the low or high result of a 64-bit source.
float word(uint64_t V, const Sel &S, bool High) {
  float X = f32(V >> ((High ? S.Hi : S.Lo) ? 32 : 0));
  return (High ? S.NegHi : S.NegLo) ? -X : X;
}

/// A packed 16-bit case: \p F(lo or hi operands...) per half.
template <class F>
Case pk16(const char *Kernel, F Fn, std::array<Sel, 3> S = {},
          std::vector<uint32_t> Modes = {ModeDefault}, bool Float = true) {
  return {Kernel, 2,
          [=](const Ref &R) {
            uint64_t V[3] = {R.a(), R.b(), R.c()};
            auto Half = [&](bool High) {
              uint16_t Op[3];
              for (unsigned K = 0; K < 3; ++K)
                Op[K] = half(V[K], S[K], High, Float);
              return uint32_t(Fn(R, Op[0], Op[1], Op[2]));
            };
            return d(R.r32(Half(false) | Half(true) << 16));
          },
          MaskTo::None, Modes};
}
/// An integer packed case (no negation).
template <class F>
Case pkInt(const char *Kernel, F Fn, std::array<Sel, 3> S = {}) {
  return pk16(Kernel, Fn, S, {ModeDefault}, false);
}

/// f16 arithmetic on flushed operands, flushed and optionally clamped.
template <class F> auto f16Op(F Fn, bool Clamp = false) {
  return [=](const Ref &R, uint16_t A, uint16_t B, uint16_t C) {
    _Float16 V = Fn(in16(A, R), in16(B, R), in16(C, R));
    uint16_t Out = out16(V, R);
    return Clamp ? hb(outMods(hv(Out), 0, true)) : Out;
  };
}
template <class T> uint16_t satOrWrap(int32_t V, bool Clamp) {
  if (!Clamp)
    return uint16_t(V);
  int32_t Lo = std::numeric_limits<T>::min(),
          Hi = std::numeric_limits<T>::max();
  return uint16_t(V < Lo ? Lo : V > Hi ? Hi : V);
}

const std::vector<uint32_t> DenormModes = {ModeDefault, ModeFlush};

std::vector<Case> packed16Cases() {
  auto Add = [](_Float16 A, _Float16 B, _Float16) { return _Float16(A + B); };
  auto Mul = [](_Float16 A, _Float16 B, _Float16) { return _Float16(A * B); };
  auto I16 = [](uint16_t V) { return int32_t(int16_t(V)); };
  return {
      pk16("pk_add_f16", f16Op(Add), {}, DenormModes),
      pk16("pk_add_f16_mods", f16Op(Add, true),
           {Sel{true, false, false, true}, Sel{false, true, true, false}}),
      pk16("pk_mul_f16", f16Op(Mul), {Sel{}, Sel{false, false}}),
      pk16("pk_fma_f16",
           [](const Ref &R, uint16_t A, uint16_t B, uint16_t C) {
             return fm::fma<fm::F16>(A, B, C);
           },
           {Sel{}, Sel{}, Sel{false, true, false, true}}),
      // Plain and op_sel-only forms run the host's F16C loop (default MODE).
      pk16("pk_fma_f16_plain",
           [](const Ref &R, uint16_t A, uint16_t B, uint16_t C) {
             return out16(hv(fm::fma<fm::F16>(hb(in16(A, R)), hb(in16(B, R)),
                                              hb(in16(C, R)))),
                          R);
           },
           {}, DenormModes),
      pk16("pk_fma_f16_opsel",
           [](const Ref &R, uint16_t A, uint16_t B, uint16_t C) {
             return fm::fma<fm::F16>(A, B, C);
           },
           {Sel{false, true}, Sel{true, false}, Sel{}}),
      pk16("pk_min_f16",
           [](const Ref &R, uint16_t A, uint16_t B, uint16_t) {
             return fm::minF<fm::F16>(A, B, true);
           }),
      pk16("pk_max_f16",
           [](const Ref &R, uint16_t A, uint16_t B, uint16_t) {
             return fm::maxF<fm::F16>(A, B, true);
           },
           {Sel{}, Sel{true, true}}),
      {"pk_add_f16_inline", 2,
       [](const Ref &R) {
         auto H = [&](bool High) {
           return uint32_t(hb(_Float16(_Float16(1.0f) + hv(h16(R.b(), High)))));
         };
         return d(R.r32(H(false) | H(true) << 16));
       }},
      pkInt("pk_add_u16_clamp",
            [](const Ref &, uint16_t A, uint16_t B, uint16_t) {
              return satOrWrap<uint16_t>(int32_t(A) + B, true);
            }),
      pkInt("pk_sub_i16_clamp",
            [=](const Ref &, uint16_t A, uint16_t B, uint16_t) {
              return satOrWrap<int16_t>(I16(A) - I16(B), true);
            }),
      pkInt("pk_sub_u16", [](const Ref &, uint16_t A, uint16_t B,
                             uint16_t) { return uint16_t(A - B); }),
      pkInt("pk_mad_i16",
            [=](const Ref &, uint16_t A, uint16_t B, uint16_t C) {
              return uint16_t(I16(A) * I16(B) + I16(C));
            }),
      pkInt("pk_mad_u16_clamp",
            [](const Ref &, uint16_t A, uint16_t B, uint16_t C) {
              return satOrWrap<uint16_t>(int32_t(A) * B + C, true);
            }),
      pkInt("pk_mul_lo_u16",
            [](const Ref &, uint16_t A, uint16_t B, uint16_t) {
              return uint16_t(uint32_t(A) * B);
            }),
      pkInt("pk_max_i16", [=](const Ref &, uint16_t A, uint16_t B,
                              uint16_t) { return I16(A) >= I16(B) ? A : B; }),
      pkInt("pk_min_u16",
            [](const Ref &, uint16_t A, uint16_t B, uint16_t) {
              return A < B ? A : B;
            },
            {Sel{true, false}, Sel{true, false}}),
      pkInt("pk_lshlrev_b16", [](const Ref &, uint16_t S, uint16_t V,
                                 uint16_t) { return uint16_t(V << (S & 15)); }),
      pkInt("pk_ashrrev_i16",
            [](const Ref &, uint16_t S, uint16_t V, uint16_t) {
              return uint16_t(int16_t(V) >> (S & 15));
            }),
      pkInt("pk_lshrrev_b16", [](const Ref &, uint16_t S, uint16_t V,
                                 uint16_t) { return uint16_t(V >> (S & 15)); }),
      {"pk_fmac_f16", 2,
       [](const Ref &R) {
         auto H = [&](bool High) {
           return uint32_t(fm::fma<fm::F16>(h16(R.a(), High), h16(R.b(), High),
                                            h16(R.d(), High)));
         };
         return d(R.r32(H(false) | H(true) << 16));
       }},
  };
}

/// A packed f32 case: \p F per 32-bit half of 64-bit operands.
template <class F>
Case pkF32(const char *Kernel, F Fn, std::array<Sel, 3> S = {},
           bool Clamp = false) {
  return {Kernel, 4,
          [=](const Ref &R) {
            uint64_t V[3] = {R.a(), R.b(), R.c()};
            auto Half = [&](bool High) {
              float X = Fn(in32(bits(word(V[0], S[0], High)), R),
                           in32(bits(word(V[1], S[1], High)), R),
                           in32(bits(word(V[2], S[2], High)), R));
              X = out32(X, R);
              return bits(Clamp ? outMods(X, 0, true) : X);
            };
            return d(Half(false) | Half(true) << 32);
          },
          MaskTo::None, DenormModes};
}

/// The f32 operand of a mix source: f16 (op_sel_hi) from the op_sel half,
/// or f32; abs then neg.
float mixIn(uint64_t V, bool F16, bool High, bool Neg, bool Abs, const Ref &R) {
  float X = F16 ? float(hv(fm::denormIn<fm::F16>(h16(V, High), R.dn32())))
                : in32(V, R);
  X = Abs ? std::fabs(X) : X;
  return Neg ? -X : X;
}

/// v_dot2_f32_f16 on f16 pairs (gfx90a flushes f16 denormals here
/// whatever MODE says), summed in order in f32.
float dot2(uint16_t A0, uint16_t B0, uint16_t A1, uint16_t B1, float C) {
  auto F = [](uint16_t H) { return float(hv(fm::flushDenormal<fm::F16>(H))); };
  float P0 = F(A0) * F(B0), P1 = F(A1) * F(B1);
  float T = C + P0;
  return T + P1;
}

/// Integer dot product of \p N elements of \p Bits bits.
template <unsigned N, unsigned Bits, bool Signed>
int64_t dotInt(uint32_t A, uint32_t B) {
  int64_t S = 0;
  for (unsigned K = 0; K < N; ++K) {
    int64_t X = (A >> (K * Bits)) & ((1u << Bits) - 1);
    int64_t Y = (B >> (K * Bits)) & ((1u << Bits) - 1);
    if (Signed) {
      X -= X >> (Bits - 1) << Bits;
      Y -= Y >> (Bits - 1) << Bits;
    }
    S += X * Y;
  }
  return S;
}
/// A dot case: \p Acc picks the accumulator (C, or the old D for the VOP2
/// forms); clamp saturates to 32 bits, else the sum wraps.
template <unsigned N, unsigned Bits, bool Signed>
Case dotCase(const char *Kernel, bool Clamp, bool AccD = false) {
  return {Kernel, 4, [=](const Ref &R) {
            uint64_t Acc = AccD ? R.d() : R.c();
            int64_t Sum =
                dotInt<N, Bits, Signed>(uint32_t(R.a()), uint32_t(R.b())) +
                (Signed ? int64_t(int32_t(Acc)) : int64_t(uint32_t(Acc)));
            if (Clamp) {
              int64_t Lo = Signed ? INT32_MIN : 0;
              int64_t Hi = Signed ? INT32_MAX : UINT32_MAX;
              Sum = Sum < Lo ? Lo : Sum > Hi ? Hi : Sum;
            }
            return d(R.r32(uint32_t(Sum)));
          }};
}

std::vector<Case> otherCases() {
  return {
      pkF32("pk_add_f32", [](float A, float B, float) { return A + B; }),
      pkF32("pk_mul_f32_opsel", [](float A, float B, float) { return A * B; },
            {Sel{true, false}, Sel{false, true, true, false}}),
      pkF32(
          "pk_fma_f32",
          [](float A, float B, float C) { return std::fma(A, B, C); },
          {Sel{false, true, false, true}}, true),
      // Without negation or clamp: the host's AVX2 lane loops.
      pkF32("pk_fma_f32_plain",
            [](float A, float B, float C) { return std::fma(A, B, C); }),
      pkF32("pk_fma_f32_opsel",
            [](float A, float B, float C) { return std::fma(A, B, C); },
            {Sel{true, false}, Sel{}, Sel{}}),
      // Both results read the destination's low dword, which the low
      // result overwrites.
      {"pk_fma_f32_dst_src", 4,
       [](const Ref &R) {
         auto Half = [&](bool High) {
           float X = std::fma(in32(R.d(), R),
                              in32(R.b() >> (High ? 32 : 0), R),
                              in32(R.c() >> (High ? 32 : 0), R));
           return bits(out32(X, R));
         };
         return d(Half(false) | Half(true) << 32);
       },
       MaskTo::None, DenormModes},
      {"pk_mov_b32", 4,
       [](const Ref &R) { return d((R.a() >> 32) | R.b() << 32); }},
      {"fma_mix_f32", 2,
       [](const Ref &R) {
         float F = std::fma(mixIn(R.a(), true, true, false, false, R),
                            mixIn(R.b(), false, false, true, false, R),
                            mixIn(R.c(), true, false, false, true, R));
         return d(R.r32(bits(out32(F, R))));
       }},
      {"fma_mixlo_f16", 2,
       [](const Ref &R) {
         float F = std::fma(mixIn(R.a(), true, false, false, false, R),
                            mixIn(R.b(), true, false, false, false, R),
                            mixIn(R.c(), false, false, false, false, R));
         return d(R.r16Keep(hb(outMods(_Float16(F), 0, true)), false));
       }},
      {"fma_mixhi_f16", 2,
       [](const Ref &R) {
         float F = std::fma(mixIn(R.a(), false, false, false, false, R),
                            mixIn(R.b(), true, true, false, false, R),
                            mixIn(R.c(), true, false, false, false, R));
         return d(R.r16Keep(hb(_Float16(F)), true));
       }},
      {"dot2_f32_f16", 2,
       [](const Ref &R) {
         float F = dot2(h16(R.a()), h16(R.b()), h16(R.a(), true),
                        h16(R.b(), true), f32(R.c()));
         return d(R.r32(bits(F)));
       }},
      {"dot2_f32_f16_mods", 2,
       [](const Ref &R) {
         float F = dot2(h16(R.a()) ^ 0x8000, h16(R.b()), h16(R.a(), true),
                        h16(R.b(), true) ^ 0x8000, f32(R.c()));
         return d(R.r32(bits(outMods(F, 0, true))));
       }},
      {"dot2c_f32_f16", 2,
       [](const Ref &R) {
         float F = dot2(h16(R.a()), h16(R.b()), h16(R.a(), true),
                        h16(R.b(), true), f32(R.d()));
         return d(R.r32(bits(F)));
       }},
      dotCase<2, 16, true>("dot2_i32_i16_clamp", true),
      dotCase<2, 16, false>("dot2_u32_u16", false),
      dotCase<4, 8, true>("dot4_i32_i8", false),
      dotCase<4, 8, false>("dot4_u32_u8_clamp", true),
      dotCase<8, 4, true>("dot8_i32_i4", false),
      dotCase<8, 4, false>("dot8_u32_u4", false),
      dotCase<4, 8, true>("dot4c_i32_i8", false, true),
      {"dot8c_i32_i4_dpp", 4,
       [](const Ref &R) {
         unsigned S = (R.L & ~3u) | (3 - (R.L & 3)); // quad_perm:[3,2,1,0]
         if (!((R.Exec >> S) & 1))
           return d(R.d());
         int64_t Sum = dotInt<8, 4, true>(uint32_t(R.In[S].A), uint32_t(R.b()));
         return d(R.r32(uint32_t(Sum + int32_t(R.d()))));
       }},
  };
}

TEST(Packed, SixteenBitHalves) {
  for (const Case &C : packed16Cases())
    check(C);
}

TEST(Packed, F32MixAndDot) {
  for (const Case &C : otherCases())
    check(C);
}

} // namespace
