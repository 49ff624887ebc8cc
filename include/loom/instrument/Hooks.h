//===- loom/instrument/Hooks.h - Writing a tool's hooks (device code) -----===//
//
// Included by a tool's hooks file, compiled by loom_add_tool with clang
// (-x hip --cuda-device-only -fgpu-rdc -nogpuinc -nogpulib): it needs no HIP
// header, only clang's builtins.
//
//   #include "loom/instrument/Hooks.h"
//
//   LOOM_DEVICE unsigned long long Waves;      // the tool reads it by name
//
//   LOOM_HOOK void count(uint64_t Exec) {       // a HookCall names "count"
//     if (loom::isFirstActiveLane())
//       loom::atomicAdd(&Waves, 1ull);
//   }
//
// A hook is a device function with C linkage; the code generator inlines it
// at each point it is asked for. It runs in the middle of the kernel, under
// the kernel's EXEC, with no access to the kernel's own inputs (no
// workgroup or work-item id builtins): what it needs comes in as hook
// arguments (HookArg). Read EXEC before any branch: inside an `if`, EXEC is
// the lanes that took it.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_INSTRUMENT_HOOKS_H
#define LOOM_INSTRUMENT_HOOKS_H

#if !defined(__HIP__) || !defined(__HIP_DEVICE_COMPILE__)
#error "Hooks.h is device code: compile it with loom_add_tool's HOOKS"
#endif

#include <stdint.h>

/// A hook: kept (never internalised or dropped), with its C name.
#define LOOM_HOOK extern "C" __attribute__((device, used))
/// A tool global, at global scope (its name is its symbol, which
/// ToolContext::globalAddress/readGlobal/writeGlobal look up). Each agent
/// has its own copy, zero at load.
#define LOOM_DEVICE __attribute__((device, used))

namespace loom {

#define LOOM_DEVICE_FN static inline __attribute__((device, always_inline))

/// The calling lane's index in its wave, 0 to 63.
LOOM_DEVICE_FN uint32_t laneId() {
  return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
}
/// EXEC: the lanes running this code.
LOOM_DEVICE_FN uint64_t activeMask() { return __builtin_amdgcn_read_exec(); }
LOOM_DEVICE_FN uint32_t activeLanes() {
  return __builtin_popcountll(activeMask());
}
/// True in one lane of the active ones: do wave-level work there.
LOOM_DEVICE_FN bool isFirstActiveLane() {
  return laneId() == __builtin_amdgcn_readfirstlane(laneId());
}

// Atomics on device memory (a LOOM_DEVICE global, or a buffer the tool
// allocated), relaxed, agent scope: the dispatch's release fence publishes
// them to the host before dispatchComplete.
template <typename T> LOOM_DEVICE_FN T atomicAdd(T *P, T V) {
  return __hip_atomic_fetch_add(P, V, __ATOMIC_RELAXED,
                                __HIP_MEMORY_SCOPE_AGENT);
}
template <typename T> LOOM_DEVICE_FN T atomicMax(T *P, T V) {
  return __hip_atomic_fetch_max(P, V, __ATOMIC_RELAXED,
                                __HIP_MEMORY_SCOPE_AGENT);
}
template <typename T> LOOM_DEVICE_FN T atomicMin(T *P, T V) {
  return __hip_atomic_fetch_min(P, V, __ATOMIC_RELAXED,
                                __HIP_MEMORY_SCOPE_AGENT);
}
template <typename T> LOOM_DEVICE_FN T atomicOr(T *P, T V) {
  return __hip_atomic_fetch_or(P, V, __ATOMIC_RELAXED,
                               __HIP_MEMORY_SCOPE_AGENT);
}
template <typename T> LOOM_DEVICE_FN T atomicExchange(T *P, T V) {
  return __hip_atomic_exchange(P, V, __ATOMIC_RELAXED,
                               __HIP_MEMORY_SCOPE_AGENT);
}

#undef LOOM_DEVICE_FN

} // namespace loom

#endif // LOOM_INSTRUMENT_HOOKS_H
