//===- emu/ops/PackedOps.cpp - VOP3P packed math, mix and dot products ----===//
//
// v_pk_* on two 16-bit halves or two f32 halves, v_fma_mix*, the dot
// products, and the VOP2 packed accumulators (v_pk_fmac_f16, v_dot*c).
//
// VOP3P operands. The decoder leaves each source's modifiers in
// Operand::Mods as LLVM encodes them: bit 0 NEG (neg_lo), bit 1 NEG_HI
// (neg_hi), bit 2 OP_SEL_0 (op_sel: the low result's operand comes from the
// high half), bit 3 OP_SEL_1 (op_sel_hi: the high result's operand comes
// from the high half). The trailing immediates are clamp, op_sel,
// op_sel_hi[, neg_lo, neg_hi]; only clamp is read from them. Inline
// constants reach the lanes as the decoder expands them (a 16-bit float
// constant in the low half only, which is why LLVM splats with
// op_sel_hi:0). neg_lo/neg_hi negate float halves only. For v_fma_mix*,
// op_sel_hi picks f16 (1) or f32 (0) per source and NEG_HI is abs.
//
//===----------------------------------------------------------------------===//

#include "FloatMath.h"
#include "HostLanes.h"
#include "Vop.h"

// Vop.h asks to vectorise every lane loop; most float lanes here (branchy
// NaN/denormal rules, libm calls) cannot be, which is expected, not news.
#pragma clang diagnostic ignored "-Wpass-failed"

namespace loom::emu {
namespace {

namespace fm = fmath;

/// Per-instruction facts a packed lane needs.
struct PkCtx {
  uint32_t Mode = 0;
  bool Clamp = false;
};

PkCtx pkCtx(const Wave &W, const DecodedInst &I) {
  return {W.Mode, I.NumImm > 0 && I.Imm[0] != 0};
}

/// One source's VOP3P controls.
struct SrcMods {
  bool SelLo, SelHi, NegLo, NegHi;
};
SrcMods srcMods(unsigned M) {
  return {bool(M & 4), bool(M & 8), bool(M & 1), bool(M & 2)};
}

#ifdef LOOM_HOST_LANES
/// Whether \p I has no modifier the host lane loops leave out: negation,
/// clamp, SDWA or DPP (op_sel and op_sel_hi are followed).
bool plainPacked(const DecodedInst &I, unsigned N, bool VgprOnly) {
  if ((I.Flags & (FlagSdwa | FlagDpp)) || (I.NumImm > 0 && I.Imm[0]))
    return false;
  for (unsigned J = 0; J < N; ++J)
    if ((I.Src[J].Mods & 3) || (VgprOnly && !I.Src[J].isVector()))
      return false;
  return true;
}
#endif

/// The low-result and high-result 16-bit operands of a packed lane value.
struct Pair16 {
  uint16_t Lo, Hi;
};
Pair16 pair16(uint32_t V, const SrcMods &M, bool Float) {
  uint16_t Lo = uint16_t(M.SelLo ? V >> 16 : V);
  uint16_t Hi = uint16_t(M.SelHi ? V >> 16 : V);
  if (Float) {
    Lo ^= M.NegLo ? 0x8000 : 0;
    Hi ^= M.NegHi ? 0x8000 : 0;
  }
  return {Lo, Hi};
}

/// Float clamp to [0, 1]; NaN becomes 0 under DX10_CLAMP.
template <class F> fm::TOf<F> clampUnit(fm::TOf<F> X, uint32_t Mode) {
  if (fm::isNan<F>(X))
    return vop::dx10Clamp(Mode) ? fm::zero<F>(false) : X;
  double D = fm::toDouble<F>(X);
  if (D <= 0) // also turns -0 into +0
    return fm::zero<F>(false);
  return D >= 1 ? fm::fromDouble<F>(1.0) : X;
}

/// Result \p R of format F after MODE output flushing and clamp.
template <class F>
fm::TOf<F> finishFloat(fm::TOf<F> R, unsigned Denorm, const PkCtx &C) {
  R = fm::denormOut<F>(R, Denorm);
  return C.Clamp ? clampUnit<F>(R, C.Mode) : R;
}

//===----------------------------------------------------------------------===//
// Packed 16-bit operations
//===----------------------------------------------------------------------===//

/// A 16-bit float half: MODE flushing of inputs and result, then clamp.
/// K(C, halves...) computes on f16 bits.
template <auto K> struct F16Half {
  static constexpr bool Float = true;
  template <class... H> static uint16_t half(const PkCtx &C, H... X) {
    unsigned D = vop::denormModeF64F16(C.Mode);
    uint16_t R = K(C, fm::denormIn<fm::F16>(X, D)...);
    return finishFloat<fm::F16>(R, D, C);
  }
};

/// A 16-bit integer half: K gives the exact result, clamp saturates it to
/// \p I, otherwise it wraps.
template <auto K, class I> struct IntHalf {
  static constexpr bool Float = false;
  template <class... H> static uint16_t half(const PkCtx &C, H... X) {
    int32_t R = K(X...);
    return C.Clamp ? uint16_t(vop::saturate<I>(R)) : uint16_t(R);
  }
};

/// dst = {Op(lo operands), Op(hi operands)} on the active lanes.
template <class Op, unsigned N> void runPk16(Wave &W, const DecodedInst &I) {
  Lanes32 Tmp[N];
  const uint32_t *S[N];
  SrcMods M[N];
  for (unsigned K = 0; K < N; ++K) {
    S[K] = readVector32(W, I.Src[K], Tmp[K]);
    M[K] = srcMods(I.Src[K].Mods);
  }
  PkCtx C = pkCtx(W, I);
  alignas(64) uint32_t R[WaveSize];
  [&]<size_t... K>(std::index_sequence<K...>) {
    for (unsigned L = 0; L < WaveSize; ++L) {
      Pair16 P[N] = {pair16(S[K][L], M[K], Op::Float)...};
      R[L] = uint32_t(Op::half(C, P[K].Lo...)) |
             uint32_t(Op::half(C, P[K].Hi...)) << 16;
    }
  }
  (std::make_index_sequence<N>());
  vop::blend32(W.vgpr(W.vectorIndex(I.Dst[0])), R, W.exec());
}

// f16 kernels on bits.
uint16_t addH(const PkCtx &, uint16_t A, uint16_t B) {
  return fm::add<fm::F16>(A, B);
}
uint16_t mulH(const PkCtx &, uint16_t A, uint16_t B) {
  return fm::mul<fm::F16>(A, B);
}
uint16_t fmaH(const PkCtx &, uint16_t A, uint16_t B, uint16_t C) {
  return fm::fma<fm::F16>(A, B, C);
}

#ifdef LOOM_HOST_LANES
/// Packed f16 add, mul and fma (\p Op 0, 1, 2) in the default MODE: the
/// halves as op_sel picks them, computed by host::f16Lanes. Lanes with an
/// infinity or NaN operand are computed again by \p Generic, the general
/// handler's lane.
template <unsigned Op, class Generic>
__attribute__((target("avx2,fma,f16c"))) void pk16Host(Wave &W,
                                                       const DecodedInst &I) {
  constexpr unsigned N = Op == 2 ? 3 : 2;
  if ((W.Mode & 0xff) != host::DefaultFloatMode)
    return runPk16<Generic, N>(W, I);
  Lanes32 Tmp[N];
  alignas(32) uint16_t H[N][2][WaveSize];
  for (unsigned J = 0; J < N; ++J) {
    const uint32_t *S = readVector32(W, I.Src[J], Tmp[J]);
    unsigned Lo = I.Src[J].Mods & 4 ? 16 : 0, Hi = I.Src[J].Mods & 8 ? 16 : 0;
    for (unsigned L = 0; L < WaveSize; ++L) {
      H[J][0][L] = uint16_t(S[L] >> Lo);
      H[J][1][L] = uint16_t(S[L] >> Hi);
    }
  }
  alignas(32) uint16_t R[2][WaveSize];
  uint64_t Special = 0;
  for (unsigned Half = 0; Half < 2; ++Half) {
    const uint16_t *In[N];
    for (unsigned J = 0; J < N; ++J)
      In[J] = H[J][Half];
    Special |= host::f16Lanes<Op, N>(In, R[Half]);
  }
  PkCtx Ctx = pkCtx(W, I);
  for (uint64_t M = Special; M; M &= M - 1) {
    unsigned L = unsigned(__builtin_ctzll(M));
    [&]<size_t... J>(std::index_sequence<J...>) {
      R[0][L] = Generic::half(Ctx, H[J][0][L]...);
      R[1][L] = Generic::half(Ctx, H[J][1][L]...);
    }(std::make_index_sequence<N>());
  }
  alignas(64) uint32_t Res[WaveSize];
  for (unsigned L = 0; L < WaveSize; ++L)
    Res[L] = R[0][L] | uint32_t(R[1][L]) << 16;
  vop::blend32(W.vgpr(W.vectorIndex(I.Dst[0])), Res, W.exec());
}

template <unsigned Op, class Generic>
Handler pk16Fast(const DecodedInst &I) {
  return host::HasF16c && plainPacked(I, Op == 2 ? 3 : 2, /*VgprOnly=*/false)
             ? &pk16Host<Op, Generic>
             : nullptr;
}
#endif
uint16_t minH(const PkCtx &C, uint16_t A, uint16_t B) {
  return fm::minF<fm::F16>(A, B, vop::ieeeMode(C.Mode));
}
uint16_t maxH(const PkCtx &C, uint16_t A, uint16_t B) {
  return fm::maxF<fm::F16>(A, B, vop::ieeeMode(C.Mode));
}

// Integer kernels: exact results, reinterpreted per signedness.
template <class T> int32_t addI(uint16_t A, uint16_t B) {
  return int32_t(T(A)) + int32_t(T(B));
}
template <class T> int32_t subI(uint16_t A, uint16_t B) {
  return int32_t(T(A)) - int32_t(T(B));
}
template <class T> int32_t madI(uint16_t A, uint16_t B, uint16_t C) {
  return int32_t(T(A)) * int32_t(T(B)) + int32_t(T(C));
}
int32_t mulLoU16(uint16_t A, uint16_t B) { return int32_t(uint32_t(A) * B); }
template <class T> int32_t maxI(uint16_t A, uint16_t B) {
  return T(A) >= T(B) ? T(A) : T(B);
}
template <class T> int32_t minI(uint16_t A, uint16_t B) {
  return T(A) < T(B) ? T(A) : T(B);
}
// Shifts take the count from the first operand's low 4 bits.
int32_t lshlrevB16(uint16_t S, uint16_t V) { return uint16_t(V << (S & 15)); }
int32_t lshrrevB16(uint16_t S, uint16_t V) { return V >> (S & 15); }
int32_t ashrrevI16(uint16_t S, uint16_t V) { return int16_t(V) >> (S & 15); }

//===----------------------------------------------------------------------===//
// Packed f32
//===----------------------------------------------------------------------===//

/// dst[63:0] = {K(lo operands), K(hi operands)} on f32 halves.
template <auto K, unsigned N> void runPkF32(Wave &W, const DecodedInst &I) {
  Lanes64 S[N];
  SrcMods M[N];
  for (unsigned J = 0; J < N; ++J) {
    readVector64(W, I.Src[J], S[J]);
    M[J] = srcMods(I.Src[J].Mods);
  }
  PkCtx C = pkCtx(W, I);
  unsigned D = vop::denormModeF32(C.Mode);
  auto Operand = [&](unsigned J, unsigned L, bool High) {
    uint64_t V = S[J].V[L];
    bool Sel = High ? M[J].SelHi : M[J].SelLo;
    uint32_t B = uint32_t(Sel ? V >> 32 : V);
    B ^= (High ? M[J].NegHi : M[J].NegLo) ? 0x80000000u : 0;
    return fm::denormIn<fm::F32>(std::bit_cast<float>(B), D);
  };
  alignas(64) uint64_t R[WaveSize];
  [&]<size_t... J>(std::index_sequence<J...>) {
    for (unsigned L = 0; L < WaveSize; ++L) {
      float Lo = finishFloat<fm::F32>(K(Operand(J, L, false)...), D, C);
      float Hi = finishFloat<fm::F32>(K(Operand(J, L, true)...), D, C);
      R[L] = uint64_t(std::bit_cast<uint32_t>(Hi)) << 32 |
             std::bit_cast<uint32_t>(Lo);
    }
  }
  (std::make_index_sequence<N>());
  uint32_t *Dst = W.vgpr(W.vectorIndex(I.Dst[0]));
  vop::blend64(Dst, Dst + WaveSize, R, W.exec());
}

float addF(float A, float B) { return A + B; }
float mulF(float A, float B) { return A * B; }
float fmaF(float A, float B, float C) { return std::fma(A, B, C); }

#ifdef LOOM_HOST_LANES
/// runPkF32 in the default MODE on vector registers: the low and the high
/// results are each one 32-bit lane loop over the rows op_sel and
/// op_sel_hi pick (std::fma inlined instead of a libm call per lane).
template <auto K, class... A>
__attribute__((target("avx2,fma"))) void pkF32Host(Wave &W,
                                                   const DecodedInst &I) {
  constexpr unsigned N = sizeof...(A);
  uint32_t *Dst = W.vgpr(W.vectorIndex(I.Dst[0]));
  const uint32_t *Lo[N], *Hi[N];
  bool Overwritten = false;
  for (unsigned J = 0; J < N; ++J) {
    const uint32_t *Row = W.vgpr(W.vectorIndex(I.Src[J]));
    Lo[J] = Row + (I.Src[J].Mods & 4 ? WaveSize : 0);
    Hi[J] = Row + (I.Src[J].Mods & 8 ? WaveSize : 0);
    Overwritten |= Hi[J] == Dst; // the low results are written first
  }
  if ((W.Mode & 0xff) != host::DefaultFloatMode || Overwritten)
    return runPkF32<K, N>(W, I);
  host::plainLanes32<K, A...>(Dst, Lo, W.exec());
  host::plainLanes32<K, A...>(Dst + WaveSize, Hi, W.exec());
}

template <auto K, class... A> Handler pkF32Fast(const DecodedInst &I) {
  return host::HasAvx2Fma && plainPacked(I, sizeof...(A), /*VgprOnly=*/true)
             ? &pkF32Host<K, A...>
             : nullptr;
}
#endif

/// v_pk_mov_b32: each result dword from either dword of its source, by
/// op_sel[0] (src0) and op_sel[1] (src1).
void pkMovB32(Wave &W, const DecodedInst &I) {
  Lanes64 A, B;
  readVector64(W, I.Src[0], A);
  readVector64(W, I.Src[1], B);
  unsigned Sa = I.Src[0].Mods & 4 ? 32 : 0, Sb = I.Src[1].Mods & 4 ? 32 : 0;
  alignas(64) uint64_t R[WaveSize];
  for (unsigned L = 0; L < WaveSize; ++L)
    R[L] = uint64_t(uint32_t(B.V[L] >> Sb)) << 32 | uint32_t(A.V[L] >> Sa);
  uint32_t *Dst = W.vgpr(W.vectorIndex(I.Dst[0]));
  vop::blend64(Dst, Dst + WaveSize, R, W.exec());
}

//===----------------------------------------------------------------------===//
// Mixed precision: v_fma_mix_f32, v_fma_mixlo_f16, v_fma_mixhi_f16
//===----------------------------------------------------------------------===//

/// Which 16 bits of the destination a mix operation writes.
enum class MixDst { F32, Lo16, Hi16 };

template <MixDst Out> void fmaMix(Wave &W, const DecodedInst &I) {
  Lanes32 Tmp[3];
  const uint32_t *S[3];
  SrcMods M[3];
  for (unsigned J = 0; J < 3; ++J) {
    S[J] = readVector32(W, I.Src[J], Tmp[J]);
    M[J] = srcMods(I.Src[J].Mods);
  }
  PkCtx C = pkCtx(W, I);
  // f16 sources are f32 operands too: the f32 denorm mode governs them
  // (LLVM's fdot2 combine relies on this).
  unsigned D32 = vop::denormModeF32(C.Mode),
           D16 = vop::denormModeF64F16(C.Mode);
  auto In = [&](unsigned J, uint32_t V) {
    float X = M[J].SelHi ? fm::f16ToF32(fm::denormIn<fm::F16>(
                               uint16_t(M[J].SelLo ? V >> 16 : V), D32))
                         : fm::denormIn<fm::F32>(std::bit_cast<float>(V), D32);
    X = M[J].NegHi ? std::fabs(X) : X; // NEG_HI is abs for mix
    return M[J].NegLo ? -X : X;
  };
  uint32_t *Dst = W.vgpr(W.vectorIndex(I.Dst[0]));
  alignas(64) uint32_t R[WaveSize];
  for (unsigned L = 0; L < WaveSize; ++L) {
    float F = std::fma(In(0, S[0][L]), In(1, S[1][L]), In(2, S[2][L]));
    if constexpr (Out == MixDst::F32) {
      R[L] = std::bit_cast<uint32_t>(finishFloat<fm::F32>(F, D32, C));
    } else {
      uint16_t H = fm::f32ToF16(F, vop::roundModeF64F16(C.Mode));
      H = finishFloat<fm::F16>(H, D16, C);
      R[L] = Out == MixDst::Lo16 ? (Dst[L] & 0xffff0000u) | H
                                 : (Dst[L] & 0xffffu) | uint32_t(H) << 16;
    }
  }
  vop::blend32(Dst, R, W.exec());
}

//===----------------------------------------------------------------------===//
// Dot products
//===----------------------------------------------------------------------===//

/// f32 dot2 of f16 pairs; \p Vop3p selects VOP3P source controls (else the
/// VOP3 encoding of v_dot2c: neg is neg_lo, abs is neg_hi, src2 takes no
/// modifier; no op_sel).
template <bool Vop3p> void dot2F32F16(Wave &W, const DecodedInst &I) {
  Lanes32 Tmp[3];
  const uint32_t *S[3];
  SrcMods M[3];
  for (unsigned J = 0; J < 3; ++J) {
    S[J] = readVector32(W, I.Src[J], Tmp[J]);
    unsigned Mods = I.Src[J].Mods;
    M[J] = srcMods(Vop3p ? Mods : (J < 2 ? (Mods & 3) | 8 : 8));
  }
  vop::Ctx VC{W.Mode, I.NumImm > 0 && I.Imm[0] != 0,
              !Vop3p && I.NumImm > 1 ? unsigned(I.Imm[1]) & 3 : 0u, &I};
  unsigned D = vop::denormModeF32(W.Mode);
  alignas(64) uint32_t R[WaveSize];
  for (unsigned L = 0; L < WaveSize; ++L) {
    Pair16 A = pair16(S[0][L], M[0], true), B = pair16(S[1][L], M[1], true);
    float C = fm::denormIn<fm::F32>(std::bit_cast<float>(S[2][L]), D);
    C = M[2].NegHi ? std::fabs(C) : C;
    C = M[2].NegLo ? -C : C;
    float F = fm::dot2F32F16(A.Lo | uint32_t(A.Hi) << 16,
                             B.Lo | uint32_t(B.Hi) << 16, C);
    F = fm::denormOut<fm::F32>(F, D);
    R[L] = std::bit_cast<uint32_t>(vop::floatOutMods<float>(F, VC));
  }
  vop::blend32(W.vgpr(W.vectorIndex(I.Dst[0])), R, W.exec());
}

/// v_dot2c_f32_f16 (VOP2, DPP, VOP3): D = dot2(S0, S1) + D.
float dot2cF32F16(uint32_t A, uint32_t B, float C, vop::Ctx X) {
  unsigned D = vop::denormModeF32(X.Mode);
  float F = fm::dot2F32F16(A, B, fm::denormIn<fm::F32>(C, D));
  return fm::denormOut<fm::F32>(F, D);
}
void dot2c(Wave &W, const DecodedInst &I) {
  if (!(I.Flags & FlagDpp) && (I.Flags & FlagHasSrcMods))
    dot2F32F16<false>(W, I);
  else
    vop::run<vop::Fn<dot2cF32F16>>(W, I);
}

/// Integer dot products: \p N elements of \p Bits bits, signed or not,
/// added to \p C exactly; clamp saturates (IntClamp).
template <unsigned N, unsigned Bits, bool Signed>
int64_t dotInt(uint32_t A, uint32_t B,
               std::conditional_t<Signed, int32_t, uint32_t> C) {
  int64_t Sum = C;
  for (unsigned K = 0; K < N; ++K) {
    unsigned Shift = K * Bits;
    uint32_t Ea = (A >> Shift) & ((1u << Bits) - 1);
    uint32_t Eb = (B >> Shift) & ((1u << Bits) - 1);
    if constexpr (Signed) {
      int32_t Sa = int32_t(Ea << (32 - Bits)) >> (32 - Bits);
      int32_t Sb = int32_t(Eb << (32 - Bits)) >> (32 - Bits);
      Sum += int64_t(Sa) * Sb;
    } else {
      Sum += int64_t(Ea) * Eb;
    }
  }
  return Sum;
}
template <unsigned N, unsigned Bits, bool Signed>
inline constexpr Handler dotIntHandler =
    vop::handler<dotInt<N, Bits, Signed>, vop::IntClamp,
                 std::conditional_t<Signed, int32_t, uint32_t>>;

/// v_pk_fmac_f16 (VOP2): both halves of D = fma(S0, S1, D).
void pkFmacF16(Wave &W, const DecodedInst &I) {
  Lanes32 T0, T1;
  const uint32_t *A = readVector32(W, I.Src[0], T0);
  const uint32_t *B = readVector32(W, I.Src[1], T1);
  uint32_t *Dst = W.vgpr(W.vectorIndex(I.Dst[0]));
  PkCtx C{W.Mode, false};
  alignas(64) uint32_t R[WaveSize];
  for (unsigned L = 0; L < WaveSize; ++L) {
    auto Half = [&](unsigned S) {
      return F16Half<fmaH>::half(C, uint16_t(A[L] >> S), uint16_t(B[L] >> S),
                                 uint16_t(Dst[L] >> S));
    };
    R[L] = Half(0) | uint32_t(Half(16)) << 16;
  }
  vop::blend32(Dst, R, W.exec());
}

} // namespace

void registerPackedOps(HandlerTable &T) {
  auto Add = [&](const char *Name, Handler H) { T.add(Name, H, FlagVector); };
  // With a host loop for plain instructions, picked at decode time.
  auto Fast = [&](const char *Name, Handler H, Specializer S) {
#ifdef LOOM_HOST_LANES
    T.add(Name, H, FlagVector, S);
#else
    T.add(Name, H, FlagVector);
#endif
  };
  Fast("V_PK_ADD_F16", runPk16<F16Half<addH>, 2>,
       pk16Fast<0, F16Half<addH>>);
  Fast("V_PK_MUL_F16", runPk16<F16Half<mulH>, 2>,
       pk16Fast<1, F16Half<mulH>>);
  Fast("V_PK_FMA_F16", runPk16<F16Half<fmaH>, 3>,
       pk16Fast<2, F16Half<fmaH>>);
  Add("V_PK_MIN_F16", runPk16<F16Half<minH>, 2>);
  Add("V_PK_MAX_F16", runPk16<F16Half<maxH>, 2>);
  Add("V_PK_ADD_U16", runPk16<IntHalf<addI<uint16_t>, uint16_t>, 2>);
  Add("V_PK_ADD_I16", runPk16<IntHalf<addI<int16_t>, int16_t>, 2>);
  Add("V_PK_SUB_U16", runPk16<IntHalf<subI<uint16_t>, uint16_t>, 2>);
  Add("V_PK_SUB_I16", runPk16<IntHalf<subI<int16_t>, int16_t>, 2>);
  Add("V_PK_MAD_U16", runPk16<IntHalf<madI<uint16_t>, uint16_t>, 3>);
  Add("V_PK_MAD_I16", runPk16<IntHalf<madI<int16_t>, int16_t>, 3>);
  Add("V_PK_MUL_LO_U16", runPk16<IntHalf<mulLoU16, uint16_t>, 2>);
  Add("V_PK_MAX_U16", runPk16<IntHalf<maxI<uint16_t>, uint16_t>, 2>);
  Add("V_PK_MAX_I16", runPk16<IntHalf<maxI<int16_t>, int16_t>, 2>);
  Add("V_PK_MIN_U16", runPk16<IntHalf<minI<uint16_t>, uint16_t>, 2>);
  Add("V_PK_MIN_I16", runPk16<IntHalf<minI<int16_t>, int16_t>, 2>);
  Add("V_PK_LSHLREV_B16", runPk16<IntHalf<lshlrevB16, uint16_t>, 2>);
  Add("V_PK_LSHRREV_B16", runPk16<IntHalf<lshrrevB16, uint16_t>, 2>);
  Add("V_PK_ASHRREV_I16", runPk16<IntHalf<ashrrevI16, int16_t>, 2>);
  Fast("V_PK_ADD_F32", runPkF32<addF, 2>, pkF32Fast<addF, float, float>);
  Fast("V_PK_MUL_F32", runPkF32<mulF, 2>, pkF32Fast<mulF, float, float>);
  Fast("V_PK_FMA_F32", runPkF32<fmaF, 3>,
       pkF32Fast<fmaF, float, float, float>);
  Add("V_PK_MOV_B32", pkMovB32);
  Add("V_PK_FMAC_F16", pkFmacF16);
  Add("V_FMA_MIX_F32", fmaMix<MixDst::F32>);
  Add("V_FMA_MIXLO_F16", fmaMix<MixDst::Lo16>);
  Add("V_FMA_MIXHI_F16", fmaMix<MixDst::Hi16>);
  Add("V_DOT2_F32_F16", dot2F32F16<true>);
  Add("V_DOT2C_F32_F16", dot2c);
  Add("V_DOT2_I32_I16", dotIntHandler<2, 16, true>);
  Add("V_DOT2_U32_U16", dotIntHandler<2, 16, false>);
  Add("V_DOT4_I32_I8", dotIntHandler<4, 8, true>);
  Add("V_DOT4_U32_U8", dotIntHandler<4, 8, false>);
  Add("V_DOT8_I32_I4", dotIntHandler<8, 4, true>);
  Add("V_DOT8_U32_U4", dotIntHandler<8, 4, false>);
  Add("V_DOT2C_I32_I16", dotIntHandler<2, 16, true>);
  Add("V_DOT4C_I32_I8", dotIntHandler<4, 8, true>);
  Add("V_DOT8C_I32_I4", dotIntHandler<8, 4, true>);
}

} // namespace loom::emu
