//===- emu/ops/HostLanes.h - Lane loops compiled for the host's AVX2 ------===//
//
// The build targets baseline x86-64, where std::fma is a library call per
// lane and f16 conversions are libgcc calls. Hot float operations get a
// second copy of their plain lane loop (no modifiers, SDWA or DPP),
// compiled for hosts with AVX2 and FMA (and F16C): the same IEEE results,
// vectorised. The decoder picks it per instruction (a Specializer), so the
// only check left when it runs is MODE (s_setreg may change it).
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_EMU_OPS_HOSTLANES_H
#define LOOM_EMU_OPS_HOSTLANES_H

#include "../Wave.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <utility>

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
#endif

} // namespace loom::emu::host

#endif // LOOM_EMU_OPS_HOSTLANES_H
