// Hooks of the instrumenter tests, written without the HIP headers (clang
// builtins only), as tools' hooks are. Built to bitcode by clang-22.
#define HOOK extern "C" __attribute__((device, used))
#define DEVICE_GLOBAL __attribute__((device))

typedef unsigned long long u64;
typedef unsigned int u32;

extern "C" {
DEVICE_GLOBAL u64 loom_test_waves[65536]; // wave executions per index
DEVICE_GLOBAL u64 loom_test_lanes[65536]; // active lanes per index
DEVICE_GLOBAL u64 loom_test_args[16];    // last arguments seen
DEVICE_GLOBAL u64 loom_test_events[4];   // kernel entries, exits
}

static __attribute__((device)) u32 laneId() {
  return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0));
}
static __attribute__((device)) bool firstActive(u64 Exec) {
  return laneId() == (u32)__builtin_ctzll(Exec);
}

// One wave execution of instruction Index, with popcount(exec) lanes.
HOOK void count(u32 Index, u64 Exec) {
  if (firstActive(Exec)) {
    __hip_atomic_fetch_add(&loom_test_waves[Index], 1ull, __ATOMIC_RELAXED,
                           __HIP_MEMORY_SCOPE_AGENT);
    __hip_atomic_fetch_add(&loom_test_lanes[Index],
                           (u64)__builtin_popcountll(Exec), __ATOMIC_RELAXED,
                           __HIP_MEMORY_SCOPE_AGENT);
  }
}

// Counts as `count` does, through a stack: a local array indexed by lane,
// which LLVM keeps in private memory off the stack pointer.
HOOK void count_via_stack(u32 Index, u64 Exec) {
  u32 Slots[64];
  for (u32 I = 0; I < 64; ++I)
    Slots[I] = Index * (I + 1);
  u32 Lane = laneId();
  count(((volatile u32 *)Slots)[Lane] / (Lane + 1), Exec);
}

// Writes a stack frame of its own (volatile: it stays) at block entries of
// the oracle's kernels: the frame, in a slot above their own stack, must
// leave it as it was.
HOOK void stack_clobber() {
  volatile u32 Slots[64];
  for (u32 I = 0; I < 64; ++I)
    Slots[I] = laneId() + I;
}

// A stack of no fixed size (a dynamic alloca): refused.
HOOK void alloca_hook(u32 N) {
  volatile u32 *P = (volatile u32 *)__builtin_alloca(N * 4);
  P[N - 1] = N;
}

// Per-wave state (a wave counter the hook returns into): its value plus N.
HOOK u64 bump(u64 Value, u32 N) { return Value + N; }

HOOK void event(u32 Which) {
  if (laneId() == (u32)__builtin_ctzll(__builtin_amdgcn_read_exec()))
    __hip_atomic_fetch_add(&loom_test_events[Which], 1ull, __ATOMIC_RELAXED,
                           __HIP_MEMORY_SCOPE_AGENT);
}

// Clobbers every register a hook may (the scratch registers of the calling
// convention, VCC, EXEC's lanes in a loop, M0, SCC) and does work.
// count, where the lane's word (loom::laneWord(): its index times 4, from
// the VGPR the preamble sets or computed at the point) is right;
// loom_test_events[2] counts the waves where a lane's is wrong.
extern "C" __attribute__((device)) u32 __loom_lane_word();
HOOK void count_lane_word(u32 Index, u64 Exec) {
  if (__loom_lane_word() == laneId() * 4) {
    count(Index, Exec);
    return;
  }
  if (firstActive(Exec))
    __hip_atomic_fetch_add(&loom_test_events[2], 1ull, __ATOMIC_RELAXED,
                           __HIP_MEMORY_SCOPE_AGENT);
}

HOOK void clobber(u32 Index, u64 Exec) {
  asm volatile(
      "v_mov_b32 v0, -1\n v_mov_b32 v1, -2\n v_mov_b32 v2, -3\n"
      "v_mov_b32 v3, -4\n v_mov_b32 v4, -5\n v_mov_b32 v5, -6\n"
      "v_mov_b32 v6, -7\n v_mov_b32 v7, -8\n v_mov_b32 v31, -9\n"
      "s_mov_b32 s4, -1\n s_mov_b32 s5, -2\n s_mov_b32 s6, -3\n"
      "s_mov_b32 s7, -4\n s_mov_b32 s8, -5\n s_mov_b32 s9, -6\n"
      "s_mov_b32 s10, -7\n s_mov_b32 s11, -8\n s_mov_b32 s29, -9\n"
      "s_mov_b64 vcc, -1\n s_mov_b32 m0, -1\n s_cmp_eq_u32 0, 1\n" ::
          : "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v31", "s4", "s5",
            "s6", "s7", "s8", "s9", "s10", "s11", "s29", "vcc", "m0", "scc");
  count(Index, Exec);
}

// Clobbers as `clobber` does, and counts nothing (after instructions and
// at block entries, where the oracle checks transparency only).
HOOK void clobber_only() {
  asm volatile(
      "v_mov_b32 v0, -1\n v_mov_b32 v1, -2\n v_mov_b32 v7, -8\n"
      "v_mov_b32 v31, -9\n s_mov_b32 s4, -1\n s_mov_b32 s5, -2\n"
      "s_mov_b32 s11, -8\n s_mov_b32 s29, -9\n"
      "s_mov_b64 vcc, -1\n s_mov_b32 m0, -1\n s_cmp_eq_u32 0, 1\n" ::
          : "v0", "v1", "v7", "v31", "s4", "s5", "s11", "s29", "vcc", "m0",
            "scc");
}

// Records its arguments (last writer wins; tests run one wave).
HOOK void record(u32 A, u64 B, u32 V, u64 Addr) {
  if (laneId() == 0) {
    loom_test_args[0] = A;
    loom_test_args[1] = B;
    loom_test_args[2] = V;
    loom_test_args[3] = Addr;
  }
  if (laneId() == 1) {
    loom_test_args[4] = V;
    loom_test_args[5] = Addr;
  }
}

// The launch state: one record per wave at kernel entry (its work-group,
// wave id, active lanes, dispatch id, launch data, and which lanes saw
// which lane id), through the HookArgs and through Hooks.h's functions.
#include "loom/instrument/Hooks.h"

extern "C" {
DEVICE_GLOBAL u64 loom_test_waveinfo[16384 * 8]; // beyond: counted only
DEVICE_GLOBAL u64 loom_test_wavecount;
DEVICE_GLOBAL u64 loom_test_mismatch; // HookArg and Hooks.h disagree
}

HOOK void wave_info(u64 Exec, u32 Lane, u32 Wave, u32 GroupX, u64 Dispatch) {
  u64 Slot = 0;
  if (loom::isFirstActiveLane())
    Slot = loom::atomicAdd(&loom_test_wavecount, 1ull);
  Slot = __builtin_amdgcn_readfirstlane((u32)Slot);
  if (Slot >= 16384)
    return;
  u64 *R = &loom_test_waveinfo[Slot * 8];
  if (loom::isFirstActiveLane()) {
    R[0] = GroupX;
    R[1] = loom::workgroupId(1);
    R[2] = loom::workgroupId(2);
    R[3] = Wave;
    R[4] = __builtin_popcountll(Exec);
    R[5] = Dispatch;
    const u64 *Data = loom::launchData<u64>();
    R[6] = Data ? *Data : ~0ull;
    if (loom::waveId() != Wave || loom::workgroupId(0) != GroupX ||
        loom::dispatchId() != Dispatch)
      loom::atomicAdd(&loom_test_mismatch, 1ull);
  }
  loom::atomicOr(&R[7], 1ull << Lane);
}

// A hook that faults: a store to an address nothing maps.
HOOK void fault_hook(u64 Address) {
  *reinterpret_cast<volatile u32 *>(Address) = 1;
}

// The kernel's own inputs, as the hardware hands them to it: its dispatch
// packet and its kernarg segment (loom::dispatchPacket, kernargSegment).
// Every wave's first lane writes them to loom_test_inputs; a wave that
// sees another packet or segment than the first one counts a mismatch.
extern "C" {
DEVICE_GLOBAL u64 loom_test_inputs[12];
}

HOOK void kernel_inputs() {
  if (!loom::isFirstActiveLane())
    return;
  const LoomDispatchPacket *P = loom::dispatchPacket();
  const u64 *Args = static_cast<const u64 *>(loom::kernargSegment());
  u64 *R = loom_test_inputs;
  u64 Seen = __hip_atomic_exchange(&R[0], (u64)P, __ATOMIC_RELAXED,
                                   __HIP_MEMORY_SCOPE_AGENT);
  u64 Segment = __hip_atomic_exchange(&R[1], (u64)Args, __ATOMIC_RELAXED,
                                      __HIP_MEMORY_SCOPE_AGENT);
  if ((Seen && Seen != (u64)P) || (Segment && Segment != (u64)Args))
    loom::atomicAdd(&loom_test_mismatch, 1ull);
  R[2] = P->Setup & 3;
  R[3] = P->GridSize[0] | (u64)P->GridSize[1] << 32;
  R[4] = P->GridSize[2];
  R[5] = P->WorkgroupSize[0] | (u64)P->WorkgroupSize[1] << 16 |
         (u64)P->WorkgroupSize[2] << 32;
  R[6] = P->KernargAddress;
  R[7] = Args[0];
  R[8] = Args[1];
  R[9] = Args[2];
}
