//===- tests/emu/core/VectorFloatTest.cpp - f16/f32/f64 vector ops --------===//
//
// Two levels:
//  - one instruction per kernel (kernels/float.s, FloatTestHarness.h): each
//    case runs its instruction on edge and random operands under several
//    EXEC masks and MODEs and checks every lane (inactive lanes keep their
//    value) and the masks against a reference computed here with host
//    arithmetic (FloatMath, itself tested against the host in
//    FloatMathTest, for the operations the host has no instruction for);
//  - the code clang emits for C (kernels/float.c at -O0 and -O2):
//    division, sqrt, conversions and compares, bit for bit against the
//    host.
//
//===----------------------------------------------------------------------===//

#include "FloatTestHarness.h"

#include <cmath>

using namespace loom::emu;
using namespace loom::emu::floattest;

namespace {

//===----------------------------------------------------------------------===//
// Reference helpers
//===----------------------------------------------------------------------===//

/// mad's rounding with flushing (the hardware's rule, not MODE's).
template <class T> T madRef(T A, T B, T C) {
  auto Fz = [](T X) {
    return std::fabs(double(X)) < double(std::numeric_limits<T>::min())
               ? std::copysign(T(0), X)
               : X;
  };
  T P = Fz(Fz(A) * Fz(B));
  T S = P + Fz(C);
  return Fz(S);
}
float legacyMul(float A, float B) { return A == 0 || B == 0 ? 0.0f : A * B; }

/// Host float -> integer conversion with saturation and NaN -> 0.
template <class I> I sat(double X) {
  if (X != X)
    return 0;
  X = std::trunc(X);
  if (X <= double(std::numeric_limits<I>::min()))
    return std::numeric_limits<I>::min();
  if (X >= double(std::numeric_limits<I>::max()))
    return std::numeric_limits<I>::max();
  return I(X);
}

/// fract as the ISA describes it: x - floor(x), below 1, NaN for inf.
template <class T> T fractRef(T X) {
  if (X != X)
    return X + X;
  if (std::isinf(X))
    return -std::numeric_limits<T>::quiet_NaN();
  double R = double(X) - std::floor(double(X));
  T Below1 = std::nextafter(T(1), T(0));
  return T(R) > Below1 ? Below1 : T(R);
}

/// frexp with the hardware's special cases (exponent 0 for inf and NaN).
template <class T> std::pair<T, int> frexpRef(T X) {
  if (X != X || std::isinf(X))
    return {X, 0};
  int E;
  T M = std::frexp(X, &E);
  return {M, E};
}

/// The result bits of a binary float operation \p Op on f32 or f64 lanes,
/// honouring MODE flushing.
template <class T, class Op> uint64_t binary(const Ref &R, Op F) {
  if constexpr (sizeof(T) == 4)
    return R.r32(bits(out32(F(in32(R.a(), R), in32(R.b(), R)), R)));
  else
    return bits(out64(F(in64(R.a(), R), in64(R.b(), R)), R));
}
template <class Op> uint64_t binary16(const Ref &R, Op F) {
  return R.r16(out16(F(in16(h16(R.a()), R), in16(h16(R.b()), R)), R));
}

//===----------------------------------------------------------------------===//
// One-instruction cases
//===----------------------------------------------------------------------===//

const std::vector<uint32_t> AllModes = {ModeDefault, ModeFlush, ModeNoIeee};
const std::vector<uint32_t> DenormModes = {ModeDefault, ModeFlush};

std::vector<Case> f32Cases() {
  auto Max = [](const Ref &R) {
    return R.r32(bits(fm::maxF<F32>(in32(R.a(), R), in32(R.b(), R), R.ieee())));
  };
  return {
      {"add_f32", 4, [](auto &R) { return d(binary<float>(R, std::plus<>())); },
       MaskTo::None, DenormModes},
      {"add_f32_mods", 4,
       [](auto &R) {
         return d(R.r32(bits(outMods(
             out32(-in32(R.a(), R) + std::fabs(in32(R.b(), R)), R), 0, true))));
       },
       MaskTo::None, DenormModes},
      {"sub_f32_mul2", 4,
       [](auto &R) {
         return d(R.r32(bits(outMods(f32(R.a()) - f32(R.b()), 1, false))));
       }},
      {"subrev_f32", 4,
       [](auto &R) {
         return d(binary<float>(R, [](float A, float B) { return B - A; }));
       },
       MaskTo::None, DenormModes},
      {"mul_f32_div2", 4,
       [](auto &R) {
         return d(R.r32(bits(outMods(f32(R.a()) * -f32(R.b()), 3, false))));
       }},
      {"mul_legacy_f32", 4,
       [](auto &R) { return d(binary<float>(R, legacyMul)); }, MaskTo::None,
       DenormModes},
      {"fma_f32", 4,
       [](auto &R) {
         return d(R.r32(bits(out32(
             std::fma(in32(R.a(), R), in32(R.b(), R), in32(R.c(), R)), R))));
       },
       MaskTo::None, DenormModes},
      {"fma_f32_mods", 4,
       [](auto &R) {
         return d(R.r32(
             bits(std::fma(-f32(R.a()), f32(R.b()), std::fabs(f32(R.c()))))));
       }},
      {"mad_f32", 4,
       [](auto &R) {
         return d(R.r32(bits(madRef(f32(R.a()), f32(R.b()), f32(R.c())))));
       },
       MaskTo::None, DenormModes},
      {"mad_legacy_f32", 4,
       [](auto &R) {
         auto Fz = [](float X) { return fm::flushDenormal<F32>(X); };
         float P = Fz(legacyMul(Fz(f32(R.a())), Fz(f32(R.b()))));
         float S = P + Fz(f32(R.c()));
         return d(R.r32(bits(Fz(S))));
       }},
      {"mac_f32", 4,
       [](auto &R) {
         return d(R.r32(bits(madRef(f32(R.a()), f32(R.b()), f32(R.d())))));
       }},
      {"fmac_f32", 4,
       [](auto &R) {
         return d(R.r32(bits(std::fma(f32(R.a()), f32(R.b()), f32(R.d())))));
       }},
      {"fmac_f32_e64", 4,
       [](auto &R) {
         return d(R.r32(bits(outMods(
             std::fma(-f32(R.a()), f32(R.b()), f32(R.d())), 2, false))));
       }},
      {"madak_f32", 4,
       [](auto &R) {
         return d(R.r32(bits(madRef(f32(R.a()), f32(R.b()), f32(0x40490fdb)))));
       }},
      {"madmk_f32", 4,
       [](auto &R) {
         return d(R.r32(bits(madRef(f32(R.a()), 1.5f, f32(R.b())))));
       }},
      {"min_f32", 4,
       [](auto &R) {
         return d(R.r32(
             bits(fm::minF<F32>(in32(R.a(), R), in32(R.b(), R), R.ieee()))));
       },
       MaskTo::None, AllModes},
      {"max_f32", 4, [=](auto &R) { return d(Max(R)); }, MaskTo::None,
       AllModes},
      {"min3_f32", 4,
       [](auto &R) {
         return d(R.r32(bits(fm::min3F<F32>(in32(R.a(), R), in32(R.b(), R),
                                            in32(R.c(), R), R.ieee()))));
       },
       MaskTo::None, AllModes},
      {"max3_f32", 4,
       [](auto &R) {
         return d(R.r32(bits(
             fm::max3F<F32>(f32(R.a()), f32(R.b()), f32(R.c()), R.ieee()))));
       }},
      {"med3_f32", 4,
       [](auto &R) {
         return d(R.r32(bits(fm::med3F<F32>(in32(R.a(), R), in32(R.b(), R),
                                            in32(R.c(), R), R.ieee()))));
       },
       MaskTo::None, AllModes},
      {"ldexp_f32", 4,
       [](auto &R) {
         return d(
             R.r32(bits(out32(std::ldexp(in32(R.a(), R), int32_t(R.b())), R))));
       },
       MaskTo::None, DenormModes},
      {"add_f32_sgpr", 4,
       [](auto &R) { return d(R.r32(bits(f32(R.Vcc) + f32(R.b())))); }},
      {"add_f32_inline", 4,
       [](auto &R) { return d(R.r32(bits(0.5f + f32(R.b())))); }},
      {"add_f32_dpp", 4,
       [](auto &R) {
         unsigned S = R.L ^ 1; // quad_perm:[1,0,3,2]
         if (!((R.Exec >> S) & 1))
           return d(R.d()); // no valid source: not written
         return d(R.r32(bits(f32(R.In[S].A) + f32(R.b()))));
       }},
      {"mul_f32_dpp_shr", 4,
       [](auto &R) {
         // row_shr:1 with bound_ctrl: an invalid source lane reads 0.
         bool Valid = (R.L & 15) && ((R.Exec >> (R.L - 1)) & 1);
         float A = Valid ? f32(R.In[R.L - 1].A) : 0.0f;
         return d(R.r32(bits(A * f32(R.b()))));
       }},
      {"max_f32_sdwa", 4,
       [](auto &R) {
         return d(R.r32(
             bits(fm::maxF<F32>(-f32(R.a()), std::fabs(f32(R.b())), true))));
       }},
  };
}

/// A unary f32 case computed by \p F on the flushed input.
template <class F>
Case unary32(const char *Kernel, F Fn,
             std::vector<uint32_t> Modes = DenormModes) {
  return {Kernel, 4,
          [=](const Ref &R) {
            return d(R.r32(bits(out32(Fn(in32(R.a(), R)), R))));
          },
          MaskTo::None, Modes};
}
/// A unary f32 case with a fixed, MODE-independent flushing rule.
template <class F> Case fixed32(const char *Kernel, F Fn) {
  return {Kernel, 4,
          [=](const Ref &R) { return d(R.r32(bits(Fn(f32(R.a()))))); },
          MaskTo::None, DenormModes};
}

std::vector<Case> f32UnaryCases() {
  auto Fz = [](float X) { return fm::flushDenormal<F32>(X); };
  return {
      unary32("fract_f32", fractRef<float>),
      unary32("trunc_f32", [](float X) { return std::trunc(X); }),
      unary32("ceil_f32", [](float X) { return std::ceil(X); }),
      unary32("floor_f32", [](float X) { return std::floor(X); }),
      unary32("rndne_f32", [](float X) { return std::nearbyint(X); }),
      fixed32("exp_f32",
              [=](float X) { return Fz(float(std::exp2(double(Fz(X))))); }),
      fixed32("log_f32",
              [=](float X) {
                float Y = Fz(X);
                return Y < 0 ? -NAN : float(std::log2(double(Y)));
              }),
      fixed32("rcp_f32", [=](float X) { return Fz(1.0f / Fz(X)); }),
      fixed32("rcp_iflag_f32", [=](float X) { return Fz(1.0f / Fz(X)); }),
      fixed32("rsq_f32",
              [=](float X) { return float(1.0 / std::sqrt(double(Fz(X)))); }),
      fixed32("sqrt_f32", [=](float X) { return std::sqrt(Fz(X)); }),
      unary32("sin_f32", fm::sinRev<F32>),
      unary32("cos_f32", fm::cosRev<F32>),
      unary32("frexp_mant_f32", [](float X) { return frexpRef(X).first; }),
      {"frexp_exp_f32", 4,
       [](auto &R) {
         return d(R.r32(uint32_t(frexpRef(in32(R.a(), R)).second)));
       },
       MaskTo::None, DenormModes},
      {"floor_f32_e64", 4,
       [](auto &R) {
         return d(
             R.r32(bits(outMods(std::floor(-std::fabs(f32(R.a()))), 0, true))));
       }},
  };
}

std::vector<Case> divisionCases() {
  auto Scale32 = [](const Ref &R) {
    auto S = fm::divScale<F32>(in32(R.a(), R), in32(R.b(), R), in32(R.c(), R));
    return Effect{R.r32(bits(out32(S.V, R))), S.Vcc};
  };
  return {
      {"div_scale_f32", 4, Scale32, MaskTo::Vcc, DenormModes},
      {"div_scale_f32_sgpr", 4, Scale32, MaskTo::Sdst},
      {"div_fmas_f32", 4,
       [](auto &R) {
         return d(R.r32(bits(out32(
             fm::divFmas<F32>(f32(R.a()), f32(R.b()), f32(R.c()), R.vcc()),
             R))));
       },
       MaskTo::None, DenormModes},
      {"div_fixup_f32", 4,
       [](auto &R) {
         return d(R.r32(bits(out32(
             fm::divFixup<F32>(in32(R.a(), R), in32(R.b(), R), in32(R.c(), R)),
             R))));
       },
       MaskTo::None, DenormModes},
      {"div_scale_f64", 8,
       [](auto &R) {
         auto S = fm::divScale<F64>(f64(R.a()), f64(R.b()), f64(R.c()));
         return Effect{bits(S.V), S.Vcc};
       },
       MaskTo::Vcc},
      {"div_fmas_f64", 8,
       [](auto &R) {
         return d(bits(
             fm::divFmas<F64>(f64(R.a()), f64(R.b()), f64(R.c()), R.vcc())));
       }},
      {"div_fixup_f64", 8,
       [](auto &R) {
         return d(bits(fm::divFixup<F64>(f64(R.a()), f64(R.b()), f64(R.c()))));
       }},
      {"cubeid_f32", 4,
       [](auto &R) {
         float X = f32(R.a()), Y = f32(R.b()), Z = f32(R.c());
         float Ax = std::fabs(X), Ay = std::fabs(Y), Az = std::fabs(Z);
         float Id = Az >= Ax && Az >= Ay ? (Z < 0 ? 5.0f : 4.0f)
                    : Ay >= Ax           ? (Y < 0 ? 3.0f : 2.0f)
                                         : (X < 0 ? 1.0f : 0.0f);
         return d(R.r32(bits(Id)));
       }},
      {"cubema_f32", 4,
       [](auto &R) {
         float X = f32(R.a()), Y = f32(R.b()), Z = f32(R.c());
         float Ax = std::fabs(X), Ay = std::fabs(Y), Az = std::fabs(Z);
         float M = Az >= Ax && Az >= Ay ? Z : Ay >= Ax ? Y : X;
         return d(R.r32(bits(M * 2.0f)));
       }},
  };
}

std::vector<Case> conversionCases() {
  auto U8 = [](float X) { return fm::toU8Sat(X); };
  return {
      {"cvt_i32_f32", 4,
       [](auto &R) {
         return d(R.r32(uint32_t(sat<int32_t>(in32(R.a(), R)))));
       }},
      {"cvt_u32_f32", 4,
       [](auto &R) { return d(R.r32(sat<uint32_t>(in32(R.a(), R)))); }},
      {"cvt_f32_i32", 4,
       [](auto &R) { return d(R.r32(bits(float(int32_t(R.a()))))); }},
      {"cvt_f32_u32", 4,
       [](auto &R) { return d(R.r32(bits(float(uint32_t(R.a()))))); }},
      {"cvt_rpi_i32_f32", 4,
       [](auto &R) {
         float S = f32(R.a()) + 0.5f;
         return d(R.r32(uint32_t(sat<int32_t>(std::floor(double(S))))));
       }},
      {"cvt_flr_i32_f32", 4,
       [](auto &R) {
         return d(
             R.r32(uint32_t(sat<int32_t>(std::floor(double(in32(R.a(), R)))))));
       },
       MaskTo::None, DenormModes},
      {"cvt_f16_f32", 4,
       [](auto &R) { return d(R.r16(out16(_Float16(in32(R.a(), R)), R))); },
       MaskTo::None, DenormModes},
      {"cvt_f32_f16", 2,
       [](auto &R) { return d(R.r32(bits(float(in16(h16(R.a()), R))))); },
       MaskTo::None, DenormModes},
      {"cvt_f32_f64", 8,
       [](auto &R) { return d(R.r32(bits(out32(float(in64(R.a(), R)), R)))); },
       MaskTo::None, DenormModes},
      {"cvt_f64_f32", 4,
       [](auto &R) { return d(bits(double(in32(R.a(), R)))); }, MaskTo::None,
       DenormModes},
      {"cvt_f64_i32", 4,
       [](auto &R) { return d(bits(double(int32_t(R.a())))); }},
      {"cvt_i32_f64", 8,
       [](auto &R) { return d(R.r32(uint32_t(sat<int32_t>(f64(R.a()))))); }},
      {"cvt_u32_f64", 8,
       [](auto &R) { return d(R.r32(sat<uint32_t>(f64(R.a())))); }},
      {"cvt_f32_ubyte2", 4,
       [](auto &R) { return d(R.r32(bits(float((R.a() >> 16) & 0xff)))); }},
      {"cvt_off_f32_i4", 4,
       [](auto &R) {
         int V = int(R.a() & 15) - (R.a() & 8 ? 16 : 0);
         return d(R.r32(bits(float(V) / 16)));
       }},
      {"cvt_pkrtz_f16_f32", 4,
       [](auto &R) {
         auto Rtz = [](float X) {
           return uint32_t(fm::f32ToF16(X, fm::RoundZero));
         };
         return d(R.r32(Rtz(f32(R.a())) | Rtz(f32(R.b())) << 16));
       }},
      {"cvt_pknorm_i16_f32", 4,
       [](auto &R) {
         auto N = [](float X) {
           return uint32_t(uint16_t(fm::toSnorm16(double(X))));
         };
         return d(R.r32(N(f32(R.a())) | N(f32(R.b())) << 16));
       }},
      {"cvt_pknorm_u16_f32", 4,
       [](auto &R) {
         auto N = [](float X) { return uint32_t(fm::toUnorm16(double(X))); };
         return d(R.r32(N(f32(R.a())) | N(f32(R.b())) << 16));
       }},
      {"cvt_pk_u8_f32", 4,
       [=](auto &R) {
         unsigned Shift = 8 * (R.b() & 3);
         uint32_t Old = uint32_t(R.c()) & ~(0xffu << Shift);
         return d(R.r32(Old | U8(f32(R.a())) << Shift));
       }},
  };
}

/// A compare case: \p P on the (flushed) operands; the mask goes to \p To.
template <class P>
Case cmp32(const char *Kernel, MaskTo To, P Pred, bool NegA = false,
           bool AbsB = false) {
  return {Kernel, 4,
          [=](const Ref &R) {
            float A = in32(R.a(), R), B = in32(R.b(), R);
            return mask(R, Pred(NegA ? -A : A, AbsB ? std::fabs(B) : B));
          },
          To, DenormModes};
}

std::vector<Case> compareCases() {
  auto Unord = [](double A, double B) { return A != A || B != B; };
  return {
      cmp32("cmp_lt_f32", MaskTo::Vcc, std::less<>()),
      cmp32("cmp_lg_f32", MaskTo::Vcc,
            [](float A, float B) { return A < B || A > B; }),
      cmp32("cmp_o_f32", MaskTo::Vcc,
            [=](float A, float B) { return !Unord(A, B); }),
      cmp32("cmp_u_f32", MaskTo::Vcc, Unord),
      cmp32("cmp_nge_f32_e64", MaskTo::Sdst,
            [](float A, float B) { return !(A >= B); }),
      cmp32(
          "cmp_nlg_f32_e64", MaskTo::Sdst,
          [](float A, float B) { return !(A < B || A > B); }, true),
      cmp32("cmp_tru_f32", MaskTo::Vcc, [](float, float) { return true; }),
      cmp32("cmpx_neq_f32", MaskTo::VccExec,
            [](float A, float B) { return !(A == B); }),
      cmp32("cmpx_ge_f32_e64", MaskTo::SdstExec, std::greater_equal<>(), false,
            true),
      {"cmp_class_f32", 4,
       [](auto &R) {
         return mask(R, fm::cmpClass<F32>(f32(R.a()), uint32_t(R.b())));
       },
       MaskTo::Vcc},
      {"cmp_class_f32_e64", 4,
       [](auto &R) {
         return mask(R, fm::cmpClass<F32>(f32(R.a()), uint32_t(R.b())));
       },
       MaskTo::Sdst},
      {"cmpx_class_f32", 4,
       [](auto &R) {
         return mask(R, fm::cmpClass<F32>(f32(R.a()), uint32_t(R.b())));
       },
       MaskTo::VccExec},
      {"cmp_gt_f32_sdwa", 4,
       [](auto &R) { return mask(R, f32(R.a() >> 16 & 0xffff) > f32(R.b())); },
       MaskTo::Sdst},
  };
}

/// A unary f64 case computed by \p F on the flushed input.
template <class F> Case unary64(const char *Kernel, F Fn) {
  return {Kernel, 8,
          [=](const Ref &R) { return d(bits(out64(Fn(in64(R.a(), R)), R))); },
          MaskTo::None, DenormModes};
}

std::vector<Case> f64Cases() {
  return {
      {"add_f64", 8,
       [](auto &R) {
         return d(binary<double>(R, [](double A, double B) { return A + -B; }));
       },
       MaskTo::None, DenormModes},
      {"mul_f64", 8,
       [](auto &R) {
         return d(bits(outMods(std::fabs(f64(R.a())) * f64(R.b()), 0, true)));
       }},
      {"fma_f64", 8,
       [](auto &R) {
         return d(bits(out64(
             std::fma(in64(R.a(), R), in64(R.b(), R), in64(R.c(), R)), R)));
       },
       MaskTo::None, DenormModes},
      {"fmac_f64", 8,
       [](auto &R) {
         return d(bits(std::fma(f64(R.a()), f64(R.b()), f64(R.d()))));
       }},
      {"min_f64", 8,
       [](auto &R) {
         return d(
             bits(fm::minF<F64>(in64(R.a(), R), in64(R.b(), R), R.ieee())));
       },
       MaskTo::None, AllModes},
      {"max_f64", 8,
       [](auto &R) {
         return d(
             bits(fm::maxF<F64>(in64(R.a(), R), in64(R.b(), R), R.ieee())));
       },
       MaskTo::None, AllModes},
      {"ldexp_f64", 8,
       [](auto &R) {
         return d(bits(out64(std::ldexp(in64(R.a(), R), int32_t(R.b())), R)));
       },
       MaskTo::None, DenormModes},
      unary64("fract_f64", fractRef<double>),
      unary64("trunc_f64", [](double X) { return std::trunc(X); }),
      unary64("ceil_f64", [](double X) { return std::ceil(X); }),
      unary64("floor_f64", [](double X) { return std::floor(X); }),
      unary64("rndne_f64", [](double X) { return std::nearbyint(X); }),
      unary64("rcp_f64", [](double X) { return 1.0 / X; }),
      unary64("rsq_f64", fm::rsqF64),
      unary64("sqrt_f64", [](double X) { return std::sqrt(X); }),
      unary64("frexp_mant_f64", [](double X) { return frexpRef(X).first; }),
      {"frexp_exp_f64", 8,
       [](auto &R) { return d(R.r32(uint32_t(frexpRef(f64(R.a())).second))); }},
      {"trig_preop_f64", 8,
       [](auto &R) {
         return d(bits(fm::trigPreop(f64(R.a()), uint32_t(R.b()))));
       }},
      {"cmp_lt_f64", 8,
       [](auto &R) { return mask(R, in64(R.a(), R) < in64(R.b(), R)); },
       MaskTo::Vcc, DenormModes},
      {"cmpx_nle_f64_e64", 8,
       [](auto &R) { return mask(R, !(f64(R.a()) <= f64(R.b()))); },
       MaskTo::SdstExec},
      {"cmp_class_f64", 8,
       [](auto &R) {
         return mask(R, fm::cmpClass<F64>(f64(R.a()), uint32_t(R.b())));
       },
       MaskTo::Vcc},
  };
}

/// A unary f16 case (result in the low half, high half zeroed).
template <class F> Case unary16(const char *Kernel, F Fn) {
  return {Kernel, 2,
          [=](const Ref &R) {
            uint16_t X = fm::denormIn<F16>(h16(R.a()), R.dn16());
            return d(R.r16(fm::denormOut<F16>(Fn(X), R.dn16())));
          },
          MaskTo::None, DenormModes};
}

std::vector<Case> f16Cases() {
  auto Fz16 = [](_Float16 X) { return hv(fm::flushDenormal<F16>(hb(X))); };
  // mad_f16: f16 product rounded and flushed, then the sum.
  auto MadF16 = [=](uint16_t A, uint16_t B, uint16_t C) {
    _Float16 P = Fz16(_Float16(Fz16(hv(A)) * Fz16(hv(B))));
    return hb(Fz16(_Float16(P + Fz16(hv(C)))));
  };
  auto Fma16 = [](uint16_t A, uint16_t B, uint16_t C) {
    return fm::fma<F16>(A, B, C);
  };
  return {
      {"add_f16", 2,
       [](auto &R) {
         return d(binary16(
             R, [](_Float16 A, _Float16 B) { return _Float16(A + B); }));
       },
       MaskTo::None, DenormModes},
      {"sub_f16_mods", 2,
       [](auto &R) {
         _Float16 V = _Float16(-hv(h16(R.a())) - hv(h16(R.b()) & 0x7fff));
         return d(R.r16(hb(outMods(V, 0, true))));
       }},
      {"subrev_f16", 2,
       [](auto &R) {
         return d(binary16(
             R, [](_Float16 A, _Float16 B) { return _Float16(B - A); }));
       },
       MaskTo::None, DenormModes},
      {"mul_f16", 2,
       [](auto &R) {
         return d(binary16(
             R, [](_Float16 A, _Float16 B) { return _Float16(A * B); }));
       },
       MaskTo::None, DenormModes},
      {"mul_f16_mul2", 2,
       [](auto &R) {
         _Float16 V = _Float16(hv(h16(R.a())) * hv(h16(R.b())));
         return d(R.r16(hb(outMods(V, 1, false))));
       }},
      {"mac_f16", 2,
       [=](auto &R) {
         return d(R.r16(MadF16(h16(R.a()), h16(R.b()), h16(R.d()))));
       }},
      {"madak_f16", 2,
       [=](auto &R) {
         return d(R.r16(MadF16(h16(R.a()), h16(R.b()), 0x4248)));
       }},
      {"max_f16",
       2,
       [](auto &R) {
         return d(R.r16(fm::maxF<F16>(h16(R.a()), h16(R.b()), R.ieee())));
       },
       MaskTo::None,
       {ModeDefault, ModeNoIeee}},
      {"min_f16", 2,
       [](auto &R) {
         return d(R.r16(fm::minF<F16>(h16(R.a()), h16(R.b()), R.ieee())));
       }},
      {"ldexp_f16", 2,
       [](auto &R) {
         double V = std::ldexp(double(float(hv(h16(R.a())))), int16_t(R.b()));
         return d(R.r16(fm::f64ToF16(V)));
       }},
      {"fma_f16", 2,
       [=](auto &R) {
         return d(R.r16Keep(Fma16(h16(R.a()), h16(R.b()), h16(R.c())), false));
       }},
      {"fma_f16_opsel", 2,
       [=](auto &R) {
         return d(R.r16Keep(
             Fma16(h16(R.a(), true), h16(R.b()), h16(R.c(), true)), true));
       }},
      {"fma_legacy_f16", 2,
       [=](auto &R) {
         return d(R.r16(Fma16(h16(R.a()), h16(R.b()), h16(R.c()))));
       }},
      {"mad_f16", 2,
       [=](auto &R) {
         return d(R.r16Keep(MadF16(h16(R.a()), h16(R.b(), true), h16(R.c())),
                            false));
       }},
      {"mad_legacy_f16", 2,
       [=](auto &R) {
         return d(R.r16(MadF16(h16(R.a()), h16(R.b()), h16(R.c()))));
       }},
      {"div_fixup_f16", 2,
       [](auto &R) {
         return d(R.r16Keep(
             fm::divFixup<F16>(h16(R.a()), h16(R.b()), h16(R.c())), false));
       }},
      {"med3_f16_opsel", 2,
       [](auto &R) {
         return d(R.r16Keep(fm::med3F<F16>(h16(R.a(), true), h16(R.b(), true),
                                           h16(R.c(), true), true),
                            true));
       }},
      {"max3_f16", 2,
       [](auto &R) {
         return d(R.r16Keep(
             fm::max3F<F16>(h16(R.a()), h16(R.b()), h16(R.c()), true), false));
       }},
      {"pack_b32_f16", 2,
       [](auto &R) {
         uint32_t Lo = h16(R.a(), true) ^ 0x8000u, Hi = h16(R.b());
         return d(R.r32(Lo | Hi << 16));
       }},
      {"cvt_pknorm_i16_f16", 2,
       [](auto &R) {
         auto N = [](uint16_t H) {
           return uint32_t(uint16_t(fm::toSnorm16(fm::f16ToF64(H))));
         };
         return d(R.r32(N(h16(R.a())) | N(h16(R.b())) << 16));
       }},
      unary16("rcp_f16",
              [](uint16_t X) { return fm::f64ToF16(1.0 / fm::f16ToF64(X)); }),
      unary16(
          "sqrt_f16",
          [](uint16_t X) { return fm::f64ToF16(std::sqrt(fm::f16ToF64(X))); }),
      unary16("rsq_f16", fm::rsqF16),
      unary16("exp_f16", fm::exp2F16),
      unary16("log_f16", fm::log2F16),
      unary16("sin_f16", fm::sinRev<F16>),
      unary16("cos_f16", fm::cosRev<F16>),
      unary16("fract_f16",
              [](uint16_t X) {
                return fm::f32ToF16(fractRef(float(hv(X))) > float(hv(0x3bff))
                                        ? float(hv(0x3bff))
                                        : fractRef(float(hv(X))));
              }),
      unary16(
          "floor_f16",
          [](uint16_t X) { return hb(_Float16(std::floor(float(hv(X))))); }),
      unary16("rndne_f16",
              [](uint16_t X) {
                return hb(_Float16(std::nearbyint(float(hv(X)))));
              }),
      unary16("frexp_mant_f16",
              [](uint16_t X) {
                // inf and NaN (signaling too) pass unchanged
                return fm::isNan<F16>(X) || fm::isInf<F16>(X)
                           ? X
                           : fm::f32ToF16(frexpRef(float(hv(X))).first);
              }),
      {"frexp_exp_f16", 2,
       [](auto &R) {
         _Float16 X = in16(h16(R.a()), R);
         return d(R.r16(uint16_t(frexpRef(float(X)).second)));
       },
       MaskTo::None, DenormModes},
      {"cvt_f16_u16", 2,
       [](auto &R) { return d(R.r16(hb(_Float16(float(h16(R.a())))))); }},
      {"cvt_f16_i16", 2,
       [](auto &R) {
         return d(R.r16(hb(_Float16(float(int16_t(h16(R.a())))))));
       }},
      {"cvt_u16_f16", 2,
       [](auto &R) { return d(R.r16(sat<uint16_t>(float(hv(h16(R.a())))))); }},
      {"cvt_i16_f16", 2,
       [](auto &R) {
         return d(R.r16(uint16_t(sat<int16_t>(float(hv(h16(R.a())))))));
       }},
      {"cvt_norm_u16_f16", 2,
       [](auto &R) {
         return d(R.r16(fm::toUnorm16(fm::f16ToF64(h16(R.a())))));
       }},
      {"add_f16_sdwa", 2,
       [](auto &R) {
         _Float16 V = _Float16(hv(h16(R.a(), true)) + hv(h16(R.b())));
         return d(R.r16Keep(hb(V), true));
       }},
      {"mul_f16_sdwa_pad", 2,
       [](auto &R) {
         _Float16 V = _Float16(-hv(h16(R.a())) * hv(h16(R.b(), true)));
         return d(R.r16(hb(V)));
       }},
      {"cmp_le_f16", 2,
       [](auto &R) {
         return mask(R, float(hv(h16(R.a()))) <= float(hv(h16(R.b()))));
       },
       MaskTo::Vcc},
      {"cmp_ngt_f16_e64", 2,
       [](auto &R) {
         return mask(R, !(float(hv(h16(R.a()))) > float(hv(h16(R.b())))));
       },
       MaskTo::Sdst},
      {"cmp_class_f16", 2,
       [](auto &R) {
         return mask(R, fm::cmpClass<F16>(h16(R.a()), uint32_t(R.b())));
       },
       MaskTo::Vcc},
  };
}

void checkAll(const std::vector<Case> &Cases) {
  for (const Case &C : Cases)
    check(C);
}

TEST(VectorFloat, F32Arithmetic) { checkAll(f32Cases()); }
TEST(VectorFloat, F32Unary) { checkAll(f32UnaryCases()); }
TEST(VectorFloat, Division) { checkAll(divisionCases()); }
TEST(VectorFloat, Conversions) { checkAll(conversionCases()); }
TEST(VectorFloat, Compares) { checkAll(compareCases()); }
TEST(VectorFloat, F64) { checkAll(f64Cases()); }
TEST(VectorFloat, F16) { checkAll(f16Cases()); }

} // namespace

//===----------------------------------------------------------------------===//
// Code clang emits (kernels/float.c at -O0 and -O2)
//===----------------------------------------------------------------------===//

namespace {

struct CKernels : ::testing::TestWithParam<int> {
  void SetUp() override {
    Dev = env().Dev.get();
    ASSERT_NE(Dev, nullptr);
    auto M =
        Module::loadFile(*Dev, std::string(LOOM_EMU_CORE_DIR) + "/float.O" +
                                   std::to_string(GetParam()) + ".elf");
    ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
    Mod = std::move(*M);
  }
  /// Launches \p Kernel over \p N items (a partial last wave) with buffers
  /// \p Out, \p A, \p B.
  void run(const char *Kernel, const DeviceBuffer &Out, const DeviceBuffer &A,
           const DeviceBuffer &B, unsigned N) {
    auto R = Mod->launch(Kernel, LaunchConfig::linear(N, 64),
                         KernelArgs()
                             .add(Out.address())
                             .add(A.address())
                             .add(B.address())
                             .add(N));
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    ASSERT_TRUE(R->ok()) << R->FirstFault.Message;
  }
  Device *Dev = nullptr;
  std::unique_ptr<Module> Mod;
};

/// Operand pairs: every edge value against every other one, then random
/// bit patterns and quotients near the ends of the exponent range. Signaling
/// NaNs are quieted (C's fmin/fmax leave them unspecified).
template <class T> std::pair<std::vector<T>, std::vector<T>> operands() {
  using U = std::conditional_t<
      sizeof(T) == 8, uint64_t,
      std::conditional_t<sizeof(T) == 4, uint32_t, uint16_t>>;
  std::vector<uint64_t> E = edgeValues(sizeof(T));
  std::vector<T> A, B;
  constexpr U Quiet = sizeof(T) == 8   ? U(1ull << 51)
                      : sizeof(T) == 4 ? U(1u << 22)
                                       : U(1u << 9);
  auto Quieted = [&](uint64_t X) {
    T V = std::bit_cast<T>(U(X));
    return V != V ? std::bit_cast<T>(U(U(X) | Quiet)) : V;
  };
  auto Push = [&](uint64_t X, uint64_t Y) {
    A.push_back(Quieted(X));
    B.push_back(Quieted(Y));
  };
  for (uint64_t X : E)
    for (uint64_t Y : E)
      Push(X, Y);
  std::mt19937_64 Rng(17);
  int Range = sizeof(T) == 8 ? 1100 : sizeof(T) == 4 ? 160 : 30;
  std::uniform_real_distribution<double> M(1, 2);
  while (A.size() < 64 * 40 + 37) {
    Push(Rng(), Rng());
    double X = std::ldexp(M(Rng), int(Rng() % (2 * Range)) - Range);
    double Y = std::ldexp(M(Rng), int(Rng() % (2 * Range)) - Range);
    if constexpr (sizeof(T) == 2)
      Push(fm::f64ToF16(X), fm::f64ToF16(Y));
    else
      Push(std::bit_cast<U>(T(X)), std::bit_cast<U>(T(Y)));
  }
  return {A, B};
}

template <class T>
std::vector<T> launchOps(CKernels &K, const char *Kernel, unsigned Results,
                         const std::vector<T> &A, const std::vector<T> &B) {
  unsigned N = unsigned(A.size());
  DeviceBuffer Out(*K.Dev, N * Results * sizeof(T)), Ba(*K.Dev, N * sizeof(T)),
      Bb(*K.Dev, N * sizeof(T));
  std::memcpy(Ba.data(), A.data(), N * sizeof(T));
  std::memcpy(Bb.data(), B.data(), N * sizeof(T));
  K.run(Kernel, Out, Ba, Bb, N);
  std::vector<T> R(N * Results);
  std::memcpy(R.data(), Out.data(), R.size() * sizeof(T));
  return R;
}

/// Compares device results with host ones bit for bit (NaNs as NaNs).
template <class T>
void expectSame(const std::vector<T> &Got, const std::vector<T> &Want,
                unsigned Results, const std::vector<T> &A,
                const std::vector<T> &B) {
  using U = std::conditional_t<
      sizeof(T) == 8, uint64_t,
      std::conditional_t<sizeof(T) == 4, uint32_t, uint16_t>>;
  unsigned Bad = 0;
  for (size_t I = 0; I < Want.size() && Bad < 10; ++I) {
    U G = std::bit_cast<U>(Got[I]), W = std::bit_cast<U>(Want[I]);
    if (G == W || (Got[I] != Got[I] && Want[I] != Want[I]))
      continue;
    ++Bad;
    ADD_FAILURE() << "item " << I / Results << " result " << I % Results
                  << ": A " << hex(std::bit_cast<U>(A[I / Results])) << " B "
                  << hex(std::bit_cast<U>(B[I / Results])) << " got " << hex(G)
                  << " want " << hex(W);
  }
}

/// fmin/fmax as v_min/v_max in IEEE mode (C leaves -0 vs +0 open).
template <class T> T minRef(T X, T Y) {
  if constexpr (sizeof(T) == 8)
    return fm::minF<F64>(X, Y, true);
  else
    return fm::minF<F32>(X, Y, true);
}

TEST_P(CKernels, F32) {
  auto [A, B] = operands<float>();
  std::vector<float> Got = launchOps(*this, "f32_ops", 8, A, B);
  std::vector<float> Want;
  for (size_t I = 0; I < A.size(); ++I) {
    float X = A[I], Y = B[I];
    float P = X * Y;
    Want.insert(Want.end(),
                {X / Y, 1.0f / X, std::sqrt(X), P - Y, std::fma(X, Y, Y),
                 minRef(X, Y), fm::maxF<F32>(X, Y, true), -2.0f / Y});
  }
  expectSame(Got, Want, 8, A, B);
}

TEST_P(CKernels, F64) {
  auto [A, B] = operands<double>();
  std::vector<double> Got = launchOps(*this, "f64_ops", 6, A, B);
  std::vector<double> Want;
  for (size_t I = 0; I < A.size(); ++I) {
    double X = A[I], Y = B[I];
    double P = X * Y;
    Want.insert(Want.end(), {X / Y, 1.0 / X, std::sqrt(X), std::fma(X, Y, Y),
                             minRef(X, Y), P + X});
  }
  expectSame(Got, Want, 6, A, B);
}

TEST_P(CKernels, F16) {
  auto [A, B] = operands<_Float16>();
  std::vector<_Float16> Got = launchOps(*this, "f16_ops", 6, A, B);
  std::vector<_Float16> Want;
  for (size_t I = 0; I < A.size(); ++I) {
    _Float16 X = A[I], Y = B[I];
    // Float operations rounded once to f16 are correctly rounded f16 ones
    // (24 >= 2 * 11 + 2).
    Want.insert(Want.end(),
                {_Float16(float(X) / float(Y)), _Float16(float(X) + float(Y)),
                 _Float16(float(X) * float(Y)),
                 hv(fm::fma<F16>(hb(X), hb(Y), hb(Y))),
                 _Float16(std::sqrt(float(X))), _Float16(1.0f / float(X))});
  }
  expectSame(Got, Want, 6, A, B);
}

template <class I> uint32_t satBits(double X) { return uint32_t(sat<I>(X)); }

TEST_P(CKernels, Conversions) {
  std::vector<float> A = operands<float>().first;
  std::vector<double> B = operands<double>().first;
  unsigned N = unsigned(std::min(A.size(), B.size()));
  DeviceBuffer Out(*Dev, N * 32), Ba(*Dev, N * 4), Bb(*Dev, N * 8);
  std::memcpy(Ba.data(), A.data(), N * 4);
  std::memcpy(Bb.data(), B.data(), N * 8);
  run("convert_ops", Out, Ba, Bb, N);
  std::vector<uint32_t> Got(N * 8), Want;
  std::memcpy(Got.data(), Out.data(), N * 32);
  for (unsigned I = 0; I < N; ++I) {
    float X = A[I];
    uint32_t I32 = satBits<int32_t>(X), U32 = satBits<uint32_t>(X);
    _Float16 H = _Float16(X);
    uint32_t Bits = uint32_t(bits(X));
    Want.insert(Want.end(),
                {I32, U32, uint32_t(bits(float(int32_t(Bits)))),
                 uint32_t(bits(float(B[I]))), hb(H), uint32_t(bits(float(H))),
                 uint32_t(bits(float(Bits))), satBits<int32_t>(B[I])});
  }
  for (unsigned I = 0; I < N * 8 && !HasFailure(); ++I)
    EXPECT_EQ(hex(Got[I]), hex(Want[I]))
        << "item " << I / 8 << " result " << I % 8 << " A "
        << hex(bits(A[I / 8])) << " B " << hex(bits(B[I / 8]));
}

TEST_P(CKernels, Compares) {
  auto [A, B] = operands<float>();
  unsigned N = unsigned(A.size());
  DeviceBuffer Out(*Dev, N * 4), Ba(*Dev, N * 4), Bb(*Dev, N * 4);
  std::memcpy(Ba.data(), A.data(), N * 4);
  std::memcpy(Bb.data(), B.data(), N * 4);
  run("compare_ops", Out, Ba, Bb, N);
  for (unsigned I = 0; I < N && !HasFailure(); ++I) {
    float X = A[I], Y = B[I];
    uint32_t Want = (X < Y) | (X <= Y) << 1 | (X == Y) << 2 | (X != Y) << 3 |
                    (X > Y) << 4 | (X >= Y) << 5 | std::isunordered(X, Y) << 6 |
                    std::isless(X, Y) << 7 | std::islessgreater(X, Y) << 8 |
                    std::isnan(X) << 9 | std::isinf(Y) << 10 |
                    std::isnormal(X) << 11;
    EXPECT_EQ(hex(Out.data<uint32_t>()[I]), hex(Want))
        << "A " << hex(bits(X)) << " B " << hex(bits(Y));
  }
}

INSTANTIATE_TEST_SUITE_P(OptLevels, CKernels, ::testing::Values(0, 2),
                         [](const auto &Info) {
                           return "O" + std::to_string(Info.param);
                         });

} // namespace
