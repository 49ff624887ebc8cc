//===- emu/ops/HostLanes.h - Lane loops compiled for the host's AVX2 ------===//
//
// The build targets baseline x86-64, where std::fma is a library call per
// lane and f16 arithmetic is software. Hot float operations get a second
// copy of their plain lane loop (no modifiers, SDWA or DPP), compiled for
// hosts with AVX2 and FMA (and F16C): the same IEEE results, vectorised.
// The decoder picks it per instruction (a Specializer), so the only check
// left when it runs is MODE (s_setreg may change it).
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_EMU_OPS_HOSTLANES_H
#define LOOM_EMU_OPS_HOSTLANES_H

#include "../Wave.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <utility>

#if defined(__x86_64__) && defined(__clang__)
#include <immintrin.h>
#endif

namespace loom::emu::host {

/// Round to nearest even and every denormal kept: float operations need no
/// per-lane MODE handling.
constexpr uint32_t DefaultFloatMode = 0xf0;

#if defined(__x86_64__) && defined(__clang__)
#define LOOM_HOST_LANES 1
inline const bool HasAvx2Fma = [] {
  __builtin_cpu_init(); // needed before static initialisation is over
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}();
inline const bool HasF16c = [] {
  __builtin_cpu_init();
  return HasAvx2Fma && __builtin_cpu_supports("f16c");
}();

/// 32-bit lanes: eight lanes at a time, read, computed and written back in
/// place. A destination row may be one of the sources (v_fmac), but only
/// lane for lane, so each chunk reads all its inputs before writing.
template <auto K, class... A>
[[gnu::always_inline]] __attribute__((target("avx2,fma"))) inline void
plainLanes32(uint32_t *D, const uint32_t *const *S, uint64_t Exec) {
  constexpr unsigned Chunk = 8;
  auto Compute = [&](unsigned C, uint32_t *Res) {
    [&]<size_t... J>(std::index_sequence<J...>) {
      for (unsigned L = 0; L < Chunk; ++L)
        Res[L] = std::bit_cast<uint32_t>(K(std::bit_cast<A>(S[J][C + L])...));
    }(std::index_sequence_for<A...>());
  };
  if (Exec == ~uint64_t(0)) {
    for (unsigned C = 0; C < WaveSize; C += Chunk) {
      uint32_t Res[Chunk];
      Compute(C, Res);
      std::memcpy(D + C, Res, sizeof(Res));
    }
    return;
  }
  for (unsigned C = 0; C < WaveSize; C += Chunk) {
    uint32_t Res[Chunk];
    Compute(C, Res);
    uint32_t Bits = uint32_t(Exec >> C) & 0xff;
    for (unsigned L = 0; L < Chunk; ++L)
      D[C + L] = (Bits >> L) & 1 ? Res[L] : D[C + L];
  }
}

/// 4 x 64-bit lane masks -> 4 x 32-bit.
__attribute__((target("avx2"))) inline __m128i narrowMask(__m256d M) {
  const __m256i Evens = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
  return _mm256_castsi256_si128(
      _mm256_permutevar8x32_epi32(_mm256_castpd_si256(M), Evens));
}

/// Four doubles to float rounding to odd: truncated, then the last bit set
/// if inexact.
__attribute__((target("avx2"))) inline __m128 toFloatOdd(__m256d D) {
  const __m256d Abs = _mm256_castsi256_pd(_mm256_set1_epi64x(INT64_MAX));
  __m128 F = _mm256_cvtpd_ps(D);
  __m256d Back = _mm256_cvtps_pd(F);
  __m256d Inexact = _mm256_cmp_pd(Back, D, _CMP_NEQ_UQ);
  __m256d Above = _mm256_cmp_pd(_mm256_and_pd(Back, Abs),
                                _mm256_and_pd(D, Abs), _CMP_GT_OQ);
  __m128i Bits = _mm_add_epi32(_mm_castps_si128(F), narrowMask(Above));
  Bits = _mm_or_si128(Bits,
                      _mm_and_si128(narrowMask(Inexact), _mm_set1_epi32(1)));
  return _mm_castsi128_ps(Bits);
}

/// Eight doubles rounded once to f16 (F16C): to float rounding to odd,
/// which then rounds to nearest f16 as the double itself would (24 >= 11 + 2
/// bits).
__attribute__((target("avx2,f16c"))) inline __m128i toF16(__m256d A,
                                                          __m256d B) {
  __m256 F = _mm256_set_m128(toFloatOdd(B), toFloatOdd(A));
  return _mm256_cvtps_ph(F, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

/// f16 add, mul and fma (\p Op 0, 1, 2) of 64 lanes: Out[L] from the
/// halves In[0..N)[L], widened (F16C), computed in double (exact for add
/// and mul; for fma a*b is exact and the sum inexact only where a half
/// rounding cannot tell), rounded once to nearest even, denormals kept.
/// Returns the lanes with an infinity or NaN operand, whose Out the caller
/// computes again (NaN payloads, invalid operations).
template <unsigned Op, unsigned N>
__attribute__((target("avx2,fma,f16c"))) inline uint64_t
f16Lanes(const uint16_t *const *In, uint16_t *Out) {
  uint64_t Special = 0;
  for (unsigned J = 0; J < N; ++J)
    for (unsigned L = 0; L < WaveSize; ++L)
      Special |= uint64_t((In[J][L] & 0x7c00) == 0x7c00) << L;
  for (unsigned C = 0; C < WaveSize; C += 8) {
    __m256d X[N][2];
    for (unsigned J = 0; J < N; ++J) {
      __m256 F = _mm256_cvtph_ps(
          _mm_loadu_si128(reinterpret_cast<const __m128i *>(In[J] + C)));
      X[J][0] = _mm256_cvtps_pd(_mm256_castps256_ps128(F));
      X[J][1] = _mm256_cvtps_pd(_mm256_extractf128_ps(F, 1));
    }
    __m256d D[2];
    for (unsigned K = 0; K < 2; ++K) {
      if constexpr (Op == 0)
        D[K] = _mm256_add_pd(X[0][K], X[1][K]);
      else if constexpr (Op == 1)
        D[K] = _mm256_mul_pd(X[0][K], X[1][K]);
      else
        D[K] = _mm256_fmadd_pd(X[0][K], X[1][K], X[2][K]);
    }
    _mm_storeu_si128(reinterpret_cast<__m128i *>(Out + C), toF16(D[0], D[1]));
  }
  return Special;
}
#endif

} // namespace loom::emu::host

#endif // LOOM_EMU_OPS_HOSTLANES_H
