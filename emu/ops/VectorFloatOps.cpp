//===- emu/ops/VectorFloatOps.cpp - f16/f32/f64 VOP1, VOP2, VOP3, VOPC ----===//
//
// Floating-point vector operations: arithmetic, min/max, rounding,
// transcendental functions, the division helpers, conversions, compares
// and classes. The lanes' semantics live in FloatMath.h; this file picks
// operand types and MODE handling and registers them with the vop
// framework, which does operand fetch, neg/abs, op_sel, SDWA, DPP, omod and
// clamp, and the masked writes.
//
// Lane types: float and double for f32 and f64; _Float16 for an f16
// operand or result (its bits only: the framework reads the low or op_sel
// half of the dword; FloatMath computes on the bits), uint16_t/int16_t and
// 32-bit integers for integer operands.
//
// MODE: an operation written as a "kernel" (IEEE semantics, denormals
// kept) is registered with modeOp<>, which runs it as is in the default
// MODE (denormals kept, round to nearest even: the lane loop vectorises)
// and otherwise flushes its float inputs and result as the MODE denorm
// field of each operand's format says. Operations whose denormal handling
// is fixed by the hardware (v_mad/v_mac, f32 rcp/rsq/sqrt/exp/log, classes)
// are registered directly.
//
//===----------------------------------------------------------------------===//

#include "FloatMath.h"
#include "HostLanes.h"
#include "Vop.h"

// Vop.h asks to vectorise every lane loop; most float lanes here (branchy
// NaN/denormal rules, libm calls) cannot be, which is expected, not news.
#pragma clang diagnostic ignored "-Wpass-failed"

#include <cfenv>
#include <string>

namespace loom::emu {
namespace {

namespace fm = fmath;

//===----------------------------------------------------------------------===//
// Lane types and MODE
//===----------------------------------------------------------------------===//

template <class T> struct FormatOf { using Type = void; };
template <> struct FormatOf<float> { using Type = fm::F32; };
template <> struct FormatOf<double> { using Type = fm::F64; };
template <> struct FormatOf<_Float16> { using Type = fm::F16; };
template <class T> using Fmt = typename FormatOf<T>::Type;
template <class T> constexpr bool IsFloat = !std::is_void_v<Fmt<T>>;

/// A lane value as FloatMath stores it (f16: its bits), and back.
template <class T> fm::TOf<Fmt<T>> raw(T X) {
  return std::bit_cast<fm::TOf<Fmt<T>>>(X);
}
template <class T> T lane(fm::TOf<Fmt<T>> X) { return std::bit_cast<T>(X); }
template <class T> double toDouble(T X) { return fm::toDouble<Fmt<T>>(raw(X)); }

/// The MODE denorm field that governs operands of type \p T.
template <class T> unsigned denormField(uint32_t Mode) {
  return std::is_same_v<T, float> ? vop::denormModeF32(Mode)
                                  : vop::denormModeF64F16(Mode);
}
template <class T> T flushIn(T X, uint32_t Mode) {
  if constexpr (IsFloat<T>)
    return lane<T>(fm::denormIn<Fmt<T>>(raw(X), denormField<T>(Mode)));
  else
    return X;
}
template <class T> T flushOut(T X, uint32_t Mode) {
  if constexpr (IsFloat<T>)
    return lane<T>(fm::denormOut<Fmt<T>>(raw(X), denormField<T>(Mode)));
  else
    return X;
}
template <class T> vop::Carry<T> flushOut(vop::Carry<T> X, uint32_t Mode) {
  return {flushOut(X.V, Mode), X.C};
}

using host::DefaultFloatMode;

/// Which of a kernel's operands MODE flushing applies to.
enum Flush : unsigned { FlushIn = 1, FlushOut = 2, FlushBoth = 3 };

/// Operation \p K with MODE denormal flushing around it; Op<true> is the
/// default-MODE instantiation.
template <auto K, unsigned Fl, unsigned Fz, class Sig = decltype(K)>
struct ModeOp;
template <auto K, unsigned Fl, unsigned Fz, class R, class... A>
struct ModeOp<K, Fl, Fz, R (*)(A...)> {
  using Result = R;
  template <bool Default> struct Op {
    static constexpr unsigned Flags = Fl;
    static R op(A... X, vop::Ctx C) {
      if constexpr (Default)
        return K(X...);
      else if constexpr (Fz & FlushIn)
        return Fz & FlushOut ? flushOut(K(flushIn(X, C.Mode)...), C.Mode)
                             : K(flushIn(X, C.Mode)...);
      else
        return flushOut(K(X...), C.Mode);
    }
  };
};

/// The MODE round field that governs results of type \p T: FP_ROUND[1:0]
/// for f32, FP_ROUND[3:2] for f64. f16 results are rounded in software
/// (f64ToF16, to nearest even) whatever MODE says, and integers not at all.
template <class T> unsigned roundField(uint32_t Mode) {
  if constexpr (std::is_same_v<T, float>)
    return vop::roundModeF32(Mode);
  else if constexpr (std::is_same_v<T, double>)
    return vop::roundModeF64F16(Mode);
  else
    return 0;
}

/// The host's rounding set to a MODE round field (0 nearest even, 1 +inf,
/// 2 -inf, 3 toward zero) for one instruction: f32/f64 arithmetic and
/// conversions are the host's own SSE operations, which round as MXCSR
/// says. The lane loop reads its operands from and writes its results to
/// the register file, which the calls that switch the rounding may touch,
/// so the compiler keeps the arithmetic between them.
class HostRounding {
public:
  explicit HostRounding(unsigned Field) {
    static constexpr int Modes[] = {FE_TONEAREST, FE_UPWARD, FE_DOWNWARD,
                                    FE_TOWARDZERO};
    if (Field) {
      Saved = std::fegetround();
      std::fesetround(Modes[Field & 3]);
    }
  }
  ~HostRounding() {
    if (Saved >= 0)
      std::fesetround(Saved);
  }
  HostRounding(const HostRounding &) = delete;
  HostRounding &operator=(const HostRounding &) = delete;

private:
  int Saved = -1;
};

/// Runs ModeOp \p M in the wave's MODE; with \p Rounded (add, sub, mul,
/// fma, conversions to f32/f64) in the rounding it asks for, too.
template <class M, bool Rounded = false>
void byMode(Wave &W, const DecodedInst &I) {
  if ((W.Mode & 0xff) == DefaultFloatMode)
    return vop::run<typename M::template Op<true>>(W, I);
  HostRounding G(Rounded ? roundField<typename M::Result>(W.Mode) : 0);
  vop::run<typename M::template Op<false>>(W, I);
}

/// Whether \p I runs as a plain lane loop: no modifier of any kind.
bool isPlain(const DecodedInst &I) {
  if (I.Flags & (FlagSdwa | FlagDpp | FlagHasSrcMods))
    return false;
  for (unsigned K = 0; K < I.NumImm; ++K)
    if (I.Imm[K])
      return false;
  return true;
}

#ifdef LOOM_HOST_LANES
using host::plainLanes32;

/// The 32-bit plain handler. With \p AllVgpr every source is a vector
/// register and no broadcast buffers are needed (the common case, and
/// measurably faster); otherwise scalars and constants are broadcast first.
template <bool AllVgpr, class M, auto K, class R, class... A>
__attribute__((target("avx2,fma"))) void plainAvx2(Wave &W,
                                                   const DecodedInst &I) {
  if ((W.Mode & 0xff) != DefaultFloatMode)
    return byMode<M, true>(W, I);
  constexpr unsigned N = sizeof...(A);
  const uint32_t *S[N];
  if constexpr (AllVgpr) {
    for (unsigned J = 0; J < N; ++J)
      S[J] = W.vgpr(W.vectorIndex(I.Src[J]));
    plainLanes32<K, A...>(W.vgpr(W.vectorIndex(I.Dst[0])), S, W.exec());
  } else {
    alignas(32) uint32_t Buf[N][WaveSize];
    for (unsigned J = 0; J < N; ++J)
      S[J] = readVector32(W, I.Src[J], *reinterpret_cast<Lanes32 *>(Buf[J]));
    plainLanes32<K, A...>(W.vgpr(W.vectorIndex(I.Dst[0])), S, W.exec());
  }
}

/// 64-bit lanes: gathered from their register pairs, computed, blended.
template <class M, auto K, class R, class... A>
__attribute__((target("avx2,fma"))) void plainAvx2Wide(Wave &W,
                                                       const DecodedInst &I) {
  if ((W.Mode & 0xff) != DefaultFloatMode)
    return byMode<M, true>(W, I);
  constexpr unsigned N = sizeof...(A);
  alignas(64) uint64_t S[N][WaveSize];
  for (unsigned J = 0; J < N; ++J)
    readVector64(W, I.Src[J], *reinterpret_cast<Lanes64 *>(S[J]));
  alignas(64) uint64_t Res[WaveSize];
  [&]<size_t... J>(std::index_sequence<J...>) {
    for (unsigned L = 0; L < WaveSize; ++L)
      Res[L] = std::bit_cast<uint64_t>(K(std::bit_cast<A>(S[J][L])...));
  }(std::index_sequence_for<A...>());
  uint32_t *Lo = W.vgpr(W.vectorIndex(I.Dst[0]));
  vop::blend64(Lo, Lo + WaveSize, Res, W.exec());
}

template <class M, auto K, class R, class... A>
Handler plainIfPossible(const DecodedInst &I) {
  if (!host::HasAvx2Fma || !isPlain(I))
    return nullptr;
  if constexpr (sizeof(R) == 8) {
    return &plainAvx2Wide<M, K, R, A...>;
  } else {
    bool AllVgpr = true;
    for (unsigned J = 0; J < sizeof...(A); ++J)
      AllVgpr &= I.Src[J].isVector();
    return AllVgpr ? &plainAvx2<true, M, K, R, A...>
                   : &plainAvx2<false, M, K, R, A...>;
  }
}
#endif

/// A hot operation: the general handler, and the specializer that picks
/// the AVX2/FMA loop for plain instructions.
struct HotHandler {
  Handler General;
  Specializer Fast;
};
template <class M, auto K, class Sig = decltype(K)> struct Hot;
template <class M, auto K, class R, class... A> struct Hot<M, K, R (*)(A...)> {
#ifdef LOOM_HOST_LANES
  static constexpr HotHandler H = {&byMode<M, true>,
                                   &plainIfPossible<M, K, R, A...>};
#else
  static constexpr HotHandler H = {&byMode<M, true>, nullptr};
#endif
};

/// The handler of kernel \p K under MODE flushing \p Fz.
template <auto K, unsigned Fl = 0, unsigned Fz = FlushBoth>
inline constexpr Handler modeOp = &byMode<ModeOp<K, Fl, Fz>>;
/// The same for an operation that rounds as MODE.FP_ROUND says.
template <auto K, unsigned Fl = 0>
inline constexpr Handler roundedOp = &byMode<ModeOp<K, Fl, FlushBoth>, true>;
/// The arithmetic float-heavy kernels spend their time in (f32 and f64):
/// rounded as MODE says, with a fast path in the default MODE.
template <auto K>
inline constexpr HotHandler hotOp = Hot<ModeOp<K, 0, FlushBoth>, K>::H;
#ifdef LOOM_HOST_LANES
/// The specializer of f16 kernel \p K (add, mul or fma), defined below them.
template <class M, auto K, class Sig = decltype(K)> struct PlainF16;
#endif

/// add, mul and fma: f32 and f64 as hotOp, f16 with an F16C loop for plain
/// instructions.
template <class T, auto K, unsigned Fl = 0> constexpr HotHandler hotIfWide() {
  if constexpr (std::is_same_v<T, _Float16>)
#ifdef LOOM_HOST_LANES
    return {modeOp<K, Fl>,
            &PlainF16<ModeOp<K, Fl, FlushBoth>, K>::pick};
#else
    return {modeOp<K, Fl>, nullptr};
#endif
  else
    return hotOp<K>;
}

bool ieee(const vop::Ctx &C) { return vop::ieeeMode(C.Mode); }

//===----------------------------------------------------------------------===//
// Kernels, written once for the lane types they take
//===----------------------------------------------------------------------===//

template <class T> T add(T A, T B) {
  return lane<T>(fm::add<Fmt<T>>(raw(A), raw(B)));
}
// A NaN operand keeps its sign: subtraction is not addition of -B here.
template <class T> T sub(T A, T B) {
  return lane<T>(fm::sub<Fmt<T>>(raw(A), raw(B)));
}
template <class T> T subrev(T A, T B) { return sub(B, A); }
template <class T> T mul(T A, T B) {
  return lane<T>(fm::mul<Fmt<T>>(raw(A), raw(B)));
}
template <class T> T fma(T A, T B, T C) {
  return lane<T>(fm::fma<Fmt<T>>(raw(A), raw(B), raw(C)));
}
template <class T> T mad(T A, T B, T C) {
  return lane<T>(fm::mad<Fmt<T>>(raw(A), raw(B), raw(C)));
}

#ifdef LOOM_HOST_LANES
/// f16 add, mul and fma (\p Op 0, 1, 2; host::f16Lanes) of a plain VOP
/// instruction in the default MODE: the sources' low halves in, the result
/// to the low half, the high half zeroed or kept as the operation's flags
/// say (no op_sel: plain). Lanes with an infinity or NaN operand run \p K.
template <class M, auto K, unsigned Op, class... A>
__attribute__((target("avx2,fma,f16c"))) void plainF16(Wave &W,
                                                       const DecodedInst &I) {
  if ((W.Mode & 0xff) != DefaultFloatMode)
    return byMode<M>(W, I);
  constexpr unsigned N = sizeof...(A);
  Lanes32 Tmp[N];
  alignas(32) uint16_t H[N][WaveSize];
  const uint16_t *In[N];
  for (unsigned J = 0; J < N; ++J) {
    const uint32_t *S = readVector32(W, I.Src[J], Tmp[J]);
    for (unsigned L = 0; L < WaveSize; ++L)
      H[J][L] = uint16_t(S[L]);
    In[J] = H[J];
  }
  alignas(32) uint16_t R[WaveSize];
  for (uint64_t S = host::f16Lanes<Op, N>(In, R); S; S &= S - 1) {
    unsigned L = unsigned(std::countr_zero(S));
    [&]<size_t... J>(std::index_sequence<J...>) {
      R[L] = std::bit_cast<uint16_t>(K(std::bit_cast<A>(H[J][L])...));
    }(std::index_sequence_for<A...>());
  }
  constexpr unsigned Fl = M::template Op<true>::Flags;
  constexpr uint32_t Keep = Fl & (vop::OpSel | vop::KeepHi16) ? 0xffff0000u : 0;
  uint32_t *D = W.vgpr(W.vectorIndex(I.Dst[0]));
  alignas(64) uint32_t Res[WaveSize];
  for (unsigned L = 0; L < WaveSize; ++L)
    Res[L] = R[L] | (D[L] & Keep);
  vop::blend32(D, Res, W.exec());
}

template <class M, auto K, class... A>
struct PlainF16<M, K, _Float16 (*)(A...)> {
  /// add 0, mul 1, fma (the three-operand one) 2.
  static constexpr unsigned op() {
    if constexpr (sizeof...(A) == 3)
      return 2;
    else
      return K == &add<_Float16> ? 0 : 1;
  }
  static Handler pick(const DecodedInst &I) {
    return host::HasF16c && isPlain(I) ? &plainF16<M, K, op(), A...>
                                       : nullptr;
  }
};
#endif

template <class T> T minOp(T A, T B, vop::Ctx C) {
  return lane<T>(fm::minF<Fmt<T>>(raw(A), raw(B), ieee(C)));
}
template <class T> T maxOp(T A, T B, vop::Ctx C) {
  return lane<T>(fm::maxF<Fmt<T>>(raw(A), raw(B), ieee(C)));
}
template <class T> T min3(T A, T B, T D, vop::Ctx C) {
  return lane<T>(fm::min3F<Fmt<T>>(raw(A), raw(B), raw(D), ieee(C)));
}
template <class T> T max3(T A, T B, T D, vop::Ctx C) {
  return lane<T>(fm::max3F<Fmt<T>>(raw(A), raw(B), raw(D), ieee(C)));
}
template <class T> T med3(T A, T B, T D, vop::Ctx C) {
  return lane<T>(fm::med3F<Fmt<T>>(raw(A), raw(B), raw(D), ieee(C)));
}

/// A unary FloatMath function of T's format as a kernel.
template <class T, fm::TOf<Fmt<T>> (*F)(fm::TOf<Fmt<T>>)> T unary(T X) {
  return lane<T>(F(raw(X)));
}

template <class T, class I> T ldexpOp(T X, I N) {
  return lane<T>(fm::ldexp<Fmt<T>>(raw(X), int32_t(N)));
}
template <class T, class I> I frexpExp(T X) {
  return I(fm::frexpExp<Fmt<T>>(raw(X)));
}

template <class T> vop::Carry<T> divScale(T A, T B, T C) {
  auto R = fm::divScale<Fmt<T>>(A, B, C);
  return {R.V, R.Vcc};
}
template <class T> T divFmas(T A, T B, T C, vop::MaskBit Vcc) {
  return fm::divFmas<Fmt<T>>(A, B, C, Vcc.V);
}
template <class T> T divFixup(T A, T B, T C) {
  return lane<T>(fm::divFixup<Fmt<T>>(raw(A), raw(B), raw(C)));
}

template <class T, fm::Cmp P> bool compare(T A, T B) {
  return fm::compare<P>(toDouble(A), toDouble(B));
}
template <class T> bool cmpClass(T X, uint32_t Mask) {
  return fm::cmpClass<Fmt<T>>(raw(X), Mask);
}

// Conversions.
template <class To, class From> To convert(From X) {
  if constexpr (IsFloat<To>)
    return lane<To>(fm::fromDouble<Fmt<To>>(double(X)));
  else
    return To(X);
}
template <class I, class T> I toInt(T X) {
  return fm::toIntSat<I>(toDouble(X));
}
_Float16 cvtF16F32(float X, vop::Ctx C) {
  return lane<_Float16>(fm::f32ToF16(X, vop::roundModeF64F16(C.Mode)));
}
float cvtF32F16(_Float16 X) { return fm::f16ToF32(raw(X)); }
float cvtF32F64(double X) { return float(X); }
template <unsigned Byte> float cvtF32Ubyte(uint32_t X) {
  return float((X >> (8 * Byte)) & 0xff);
}
int32_t cvtRpi(float X) { return fm::cvtRpiI32(X); }
int32_t cvtFlr(float X) { return fm::cvtFlrI32(X); }
float cvtOff(uint32_t X) { return fm::cvtOffF32I4(X); }
template <class T> int16_t cvtSnorm(T X) { return fm::toSnorm16(toDouble(X)); }
template <class T> uint16_t cvtUnorm(T X) { return fm::toUnorm16(toDouble(X)); }
/// Two 16-bit results in one dword.
uint32_t pack16(uint32_t Lo, uint32_t Hi) { return (Lo & 0xffff) | (Hi << 16); }
uint32_t cvtPkrtz(float A, float B) {
  return pack16(fm::f32ToF16(A, fm::RoundZero), fm::f32ToF16(B, fm::RoundZero));
}
template <class T, auto Norm> uint32_t cvtPkNorm(T A, T B) {
  return pack16(uint16_t(Norm(A)), uint16_t(Norm(B)));
}
uint32_t packF16(_Float16 A, _Float16 B) { return pack16(raw(A), raw(B)); }
uint32_t cvtPkU8(float X, uint32_t Byte, uint32_t Old) {
  unsigned Shift = 8 * (Byte & 3);
  return (Old & ~(0xffu << Shift)) | fm::toU8Sat(X) << Shift;
}
template <class I> uint32_t cvtPkInt(uint32_t A, uint32_t B) {
  using Wide = std::conditional_t<std::is_signed_v<I>, int64_t, uint64_t>;
  using Src = std::conditional_t<std::is_signed_v<I>, int32_t, uint32_t>;
  return pack16(uint16_t(vop::saturate<I>(Wide(Src(A)))),
                uint16_t(vop::saturate<I>(Wide(Src(B)))));
}

// Cube map operations (the ISA pseudocode).
float cubeMajor(float X, float Y, float Z, int &Axis) {
  float Ax = std::fabs(X), Ay = std::fabs(Y), Az = std::fabs(Z);
  Axis = (Az >= Ax && Az >= Ay) ? 2 : (Ay >= Ax ? 1 : 0);
  return Axis == 2 ? Z : Axis == 1 ? Y : X;
}
float cubeId(float X, float Y, float Z) {
  int A;
  float M = cubeMajor(X, Y, Z, A);
  return float(2 * A + (M < 0.0f ? 1 : 0));
}
float cubeSc(float X, float Y, float Z) {
  int A;
  cubeMajor(X, Y, Z, A);
  if (A == 2)
    return Z < 0.0f ? -X : X;
  if (A == 1)
    return X;
  return X < 0.0f ? Z : -Z;
}
float cubeTc(float X, float Y, float Z) {
  int A;
  cubeMajor(X, Y, Z, A);
  if (A == 1)
    return Y < 0.0f ? -Z : Z;
  return -Y;
}
float cubeMa(float X, float Y, float Z) {
  int A;
  return cubeMajor(X, Y, Z, A) * 2.0f;
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

/// One registration line per name.
struct Registrar {
  HandlerTable &T;
  void operator()(const std::string &Name, Handler H) const {
    T.add(Name, H, FlagVector);
  }
  void operator()(const std::string &Name, HotHandler H) const {
    T.add(Name, H.General, FlagVector, H.Fast);
  }
};

/// The operations every float format has: "V_<OP>_<Suffix>".
template <class T> void addCommon(Registrar Add, const std::string &S) {
  Add("V_ADD_" + S, hotIfWide<T, add<T>>());
  Add("V_MUL_" + S, hotIfWide<T, mul<T>>());
  Add("V_MIN_" + S, modeOp<minOp<T>>);
  Add("V_MAX_" + S, modeOp<maxOp<T>>);
  Add("V_FMA_" + S, hotIfWide<T, fma<T>, vop::OpSel>());
  Add("V_FRACT_" + S, modeOp<unary<T, fm::fract<Fmt<T>>>>);
  Add("V_TRUNC_" + S, modeOp<unary<T, fm::truncF<Fmt<T>>>>);
  Add("V_CEIL_" + S, modeOp<unary<T, fm::ceilF<Fmt<T>>>>);
  Add("V_FLOOR_" + S, modeOp<unary<T, fm::floorF<Fmt<T>>>>);
  Add("V_RNDNE_" + S, modeOp<unary<T, fm::rndneF<Fmt<T>>>>);
  Add("V_FREXP_MANT_" + S, modeOp<unary<T, fm::frexpMant<Fmt<T>>>>);
  Add("V_CMP_CLASS_" + S, vop::handler<cmpClass<T>, vop::Compare>);
  Add("V_CMPX_CLASS_" + S,
      vop::handler<cmpClass<T>, vop::Compare | vop::CompareX>);
}

/// v_cmp_<pred>_<S> and v_cmpx_<pred>_<S> for every predicate.
template <class T, fm::Cmp... Ps>
void addCompares(Registrar Add, const std::string &S,
                 std::integer_sequence<fm::Cmp, Ps...>) {
  static const char *const Names[] = {"F",   "LT",  "EQ",  "LE",  "GT",  "LG",
                                      "GE",  "O",   "U",   "NGE", "NLG", "NGT",
                                      "NLE", "NEQ", "NLT", "TRU"};
  (Add(std::string("V_CMP_") + Names[unsigned(Ps)] + "_" + S,
       modeOp<compare<T, Ps>, vop::Compare, FlushIn>),
   ...);
  (Add(std::string("V_CMPX_") + Names[unsigned(Ps)] + "_" + S,
       modeOp<compare<T, Ps>, vop::Compare | vop::CompareX, FlushIn>),
   ...);
}
template <class T> void addCompares(Registrar Add, const std::string &S) {
  using fm::Cmp;
  addCompares<T>(
      Add, S,
      std::integer_sequence<Cmp, Cmp::F, Cmp::LT, Cmp::EQ, Cmp::LE, Cmp::GT,
                            Cmp::LG, Cmp::GE, Cmp::O, Cmp::U, Cmp::NGE,
                            Cmp::NLG, Cmp::NGT, Cmp::NLE, Cmp::NEQ, Cmp::NLT,
                            Cmp::TRU>());
}

void addF32(Registrar Add) {
  using T = float;
  addCommon<T>(Add, "F32");
  addCompares<T>(Add, "F32");
  Add("V_SUB_F32", hotOp<sub<T>>);
  Add("V_SUBREV_F32", hotOp<subrev<T>>);
  Add("V_FMAC_F32", hotOp<fma<T>>);
  // mad/mac never keep denormals (FloatMath::mad).
  Add("V_MAD_F32", vop::handler<mad<T>>);
  Add("V_MAC_F32", vop::handler<mad<T>>);
  Add("V_MADAK_F32", vop::handler<mad<T>>);
  Add("V_MADMK_F32", vop::handler<mad<T>>);
  // gfx940+: the literal K is an operand in MC order, as for madmk/madak.
  Add("V_FMAMK_F32", roundedOp<fma<T>>);
  Add("V_FMAAK_F32", roundedOp<fma<T>>);
  Add("V_MUL_LEGACY_F32", modeOp<fm::mulLegacy>);
  Add("V_MAD_LEGACY_F32", vop::handler<fm::madLegacy>);
  Add("V_MIN3_F32", modeOp<min3<T>>);
  Add("V_MAX3_F32", modeOp<max3<T>>);
  Add("V_MED3_F32", modeOp<med3<T>>);
  Add("V_LDEXP_F32", modeOp<ldexpOp<T, int32_t>>);
  Add("V_FREXP_EXP_I32_F32", modeOp<frexpExp<T, int32_t>>);
  Add("V_DIV_SCALE_F32", modeOp<divScale<T>, vop::CarryOut>);
  Add("V_DIV_FMAS_F32", modeOp<divFmas<T>, vop::MaskIn, FlushOut>);
  Add("V_DIV_FIXUP_F32", modeOp<divFixup<T>>);
  // Denormal handling fixed by the hardware (see FloatMath.h).
  Add("V_RCP_F32", vop::handler<fm::rcpF32>);
  Add("V_RCP_IFLAG_F32", vop::handler<fm::rcpF32>);
  Add("V_RSQ_F32", vop::handler<fm::rsqF32>);
  Add("V_SQRT_F32", vop::handler<fm::sqrtF32>);
  Add("V_EXP_F32", vop::handler<fm::exp2F32>);
  Add("V_LOG_F32", vop::handler<fm::log2F32>);
  Add("V_SIN_F32", modeOp<unary<T, fm::sinRev<fm::F32>>>);
  Add("V_COS_F32", modeOp<unary<T, fm::cosRev<fm::F32>>>);
  Add("V_CUBEID_F32", modeOp<cubeId>);
  Add("V_CUBESC_F32", modeOp<cubeSc>);
  Add("V_CUBETC_F32", modeOp<cubeTc>);
  Add("V_CUBEMA_F32", modeOp<cubeMa>);
}

void addF64(Registrar Add) {
  using T = double;
  addCommon<T>(Add, "F64");
  addCompares<T>(Add, "F64");
  Add("V_FMAC_F64", hotOp<fma<T>>);
  Add("V_LDEXP_F64", modeOp<ldexpOp<T, int32_t>>);
  Add("V_FREXP_EXP_I32_F64", modeOp<frexpExp<T, int32_t>>);
  Add("V_RCP_F64", modeOp<fm::rcpF64>);
  Add("V_RSQ_F64", modeOp<fm::rsqF64>);
  Add("V_SQRT_F64", modeOp<fm::sqrtF64>);
  Add("V_DIV_SCALE_F64", modeOp<divScale<T>, vop::CarryOut>);
  Add("V_DIV_FMAS_F64", modeOp<divFmas<T>, vop::MaskIn, FlushOut>);
  Add("V_DIV_FIXUP_F64", modeOp<divFixup<T>>);
  Add("V_TRIG_PREOP_F64", modeOp<fm::trigPreop>);
}

void addF16(Registrar Add) {
  using T = _Float16;
  constexpr unsigned OpSel = vop::OpSel;
  addCommon<T>(Add, "F16");
  addCompares<T>(Add, "F16");
  Add("V_SUB_F16", modeOp<sub<T>>);
  Add("V_SUBREV_F16", modeOp<subrev<T>>);
  // gfx9's v_mad/v_fma/v_div_fixup_f16 (op_sel, keep the other half) and
  // the legacy encodings (zero the high half).
  Add("V_MAD_F16", vop::handler<mad<T>, OpSel>);
  Add("V_MAD_LEGACY_F16", vop::handler<mad<T>>);
  Add("V_FMA_LEGACY_F16", modeOp<fma<T>>);
  Add("V_MAC_F16", vop::handler<mad<T>>);
  Add("V_MADAK_F16", vop::handler<mad<T>>);
  Add("V_MADMK_F16", vop::handler<mad<T>>);
  Add("V_DIV_FIXUP_F16", modeOp<divFixup<T>, OpSel>);
  Add("V_DIV_FIXUP_LEGACY_F16", modeOp<divFixup<T>>);
  Add("V_MIN3_F16", modeOp<min3<T>, OpSel>);
  Add("V_MAX3_F16", modeOp<max3<T>, OpSel>);
  Add("V_MED3_F16", modeOp<med3<T>, OpSel>);
  Add("V_LDEXP_F16", modeOp<ldexpOp<T, int16_t>>);
  Add("V_FREXP_EXP_I16_F16", modeOp<frexpExp<T, int16_t>>);
  Add("V_RCP_F16", modeOp<unary<T, fm::rcpF16>>);
  Add("V_SQRT_F16", modeOp<unary<T, fm::sqrtF16>>);
  Add("V_RSQ_F16", modeOp<unary<T, fm::rsqF16>>);
  Add("V_EXP_F16", modeOp<unary<T, fm::exp2F16>>);
  Add("V_LOG_F16", modeOp<unary<T, fm::log2F16>>);
  Add("V_SIN_F16", modeOp<unary<T, fm::sinRev<fm::F16>>>);
  Add("V_COS_F16", modeOp<unary<T, fm::cosRev<fm::F16>>>);
  Add("V_PACK_B32_F16", modeOp<packF16, OpSel>);
  Add("V_CVT_PKNORM_I16_F16", modeOp<cvtPkNorm<T, cvtSnorm<T>>, OpSel>);
  Add("V_CVT_PKNORM_U16_F16", modeOp<cvtPkNorm<T, cvtUnorm<T>>, OpSel>);
}

void addConversions(Registrar Add) {
  Add("V_CVT_F16_F32", modeOp<cvtF16F32>);
  Add("V_CVT_F32_F16", modeOp<cvtF32F16>);
  Add("V_CVT_F32_F64", roundedOp<cvtF32F64>);
  Add("V_CVT_F64_F32", modeOp<convert<double, float>>);
  Add("V_CVT_I32_F32", modeOp<toInt<int32_t, float>>);
  Add("V_CVT_U32_F32", modeOp<toInt<uint32_t, float>>);
  Add("V_CVT_I32_F64", modeOp<toInt<int32_t, double>>);
  Add("V_CVT_U32_F64", modeOp<toInt<uint32_t, double>>);
  Add("V_CVT_I16_F16", modeOp<toInt<int16_t, _Float16>>);
  Add("V_CVT_U16_F16", modeOp<toInt<uint16_t, _Float16>>);
  Add("V_CVT_F32_I32", roundedOp<convert<float, int32_t>>);
  Add("V_CVT_F32_U32", roundedOp<convert<float, uint32_t>>);
  Add("V_CVT_F64_I32", modeOp<convert<double, int32_t>>);
  Add("V_CVT_F64_U32", modeOp<convert<double, uint32_t>>);
  Add("V_CVT_F16_I16", modeOp<convert<_Float16, int16_t>>);
  Add("V_CVT_F16_U16", modeOp<convert<_Float16, uint16_t>>);
  Add("V_CVT_F32_UBYTE0", modeOp<cvtF32Ubyte<0>>);
  Add("V_CVT_F32_UBYTE1", modeOp<cvtF32Ubyte<1>>);
  Add("V_CVT_F32_UBYTE2", modeOp<cvtF32Ubyte<2>>);
  Add("V_CVT_F32_UBYTE3", modeOp<cvtF32Ubyte<3>>);
  Add("V_CVT_RPI_I32_F32", modeOp<cvtRpi>);
  Add("V_CVT_FLR_I32_F32", modeOp<cvtFlr>);
  Add("V_CVT_OFF_F32_I4", modeOp<cvtOff>);
  Add("V_CVT_NORM_I16_F16", modeOp<cvtSnorm<_Float16>>);
  Add("V_CVT_NORM_U16_F16", modeOp<cvtUnorm<_Float16>>);
  Add("V_CVT_PKRTZ_F16_F32", modeOp<cvtPkrtz>);
  Add("V_CVT_PKNORM_I16_F32", modeOp<cvtPkNorm<float, cvtSnorm<float>>>);
  Add("V_CVT_PKNORM_U16_F32", modeOp<cvtPkNorm<float, cvtUnorm<float>>>);
  Add("V_CVT_PK_U8_F32", modeOp<cvtPkU8>);
  Add("V_CVT_PK_U16_U32", vop::handler<cvtPkInt<uint16_t>>);
  Add("V_CVT_PK_I16_I32", vop::handler<cvtPkInt<int16_t>>);
}

} // namespace

void registerVectorFloatOps(HandlerTable &T) {
  Registrar Add{T};
  addF32(Add);
  addF64(Add);
  addF16(Add);
  addConversions(Add);
}

} // namespace loom::emu
