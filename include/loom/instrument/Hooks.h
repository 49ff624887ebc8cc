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
// the kernel's EXEC, with no access to the kernel's own inputs through
// HIP's builtins: what it needs comes in as hook arguments (HookArg), or
// from the functions below (work-group id, wave id, dispatch id, the
// tool's launch data and channel), which the instrumented kernel's
// preamble provides. Read EXEC before any branch: inside an `if`, EXEC is
// the lanes that took it.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_INSTRUMENT_HOOKS_H
#define LOOM_INSTRUMENT_HOOKS_H

#if !defined(__HIP__) || !defined(__HIP_DEVICE_COMPILE__)
#error "Hooks.h is device code: compile it with loom_add_tool's HOOKS"
#endif

#include "loom/instrument/LaunchHeader.h"

#include <stdint.h>

/// A hook: kept (never internalised or dropped), with its C name.
#define LOOM_HOOK extern "C" __attribute__((device, used))
/// A tool global, at global scope (its name is its symbol, which
/// ToolContext::globalAddress/readGlobal/writeGlobal look up). Each agent
/// has its own copy, zero at load.
#define LOOM_DEVICE __attribute__((device, used))

// Filled in by the code generator at each point (never defined: a hook
// that uses them is only usable through Loom's instrumentation).
extern "C" __attribute__((device)) const LoomLaunchHeader *
__loom_launch_header();
extern "C" __attribute__((device)) uint32_t __loom_tool_slot();
extern "C" __attribute__((device)) uint32_t __loom_workgroup_id_x();
extern "C" __attribute__((device)) uint32_t __loom_workgroup_id_y();
extern "C" __attribute__((device)) uint32_t __loom_workgroup_id_z();
extern "C" __attribute__((device)) uint32_t __loom_wave_id();
extern "C" __attribute__((device)) uint32_t __loom_wave_work_item();
extern "C" __attribute__((device)) uint32_t __loom_lane_word();
extern "C" __attribute__((device)) const LoomDispatchPacket *
__loom_dispatch_packet();
extern "C" __attribute__((device)) const void *__loom_kernarg_segment();

namespace loom {

#define LOOM_DEVICE_FN static inline __attribute__((device, always_inline))

/// The calling lane's index in its wave, 0 to 63.
LOOM_DEVICE_FN uint32_t laneId() {
  return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
}
/// laneId() * 4: the lane's word in an array of 64 words. Free where the
/// kernel leaves a VGPR spare (the preamble sets one for the wave's life),
/// else the three instructions laneId() << 2 takes, at the point.
LOOM_DEVICE_FN uint32_t laneWord() {
  uint32_t W = __loom_lane_word();
  __builtin_assume(W < 256 && (W & 3) == 0);
  return W;
}
/// EXEC: the lanes running this code.
LOOM_DEVICE_FN uint64_t activeMask() { return __builtin_amdgcn_read_exec(); }
/// EXEC in an SGPR pair of its own, in one s_mov_b64 (LLVM copies
/// activeMask() a half at a time where a register tuple takes it): for a
/// record header.
LOOM_DEVICE_FN uint64_t activeMaskCopy() {
  uint64_t E;
  __asm__ volatile("s_mov_b64 %0, exec" : "=s"(E));
  return E;
}
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

//===-- The dispatch ------------------------------------------------------===//

/// The work-group's id in dimension \p Dim (0, 1 or 2).
LOOM_DEVICE_FN uint32_t workgroupId(int Dim) {
  return Dim == 0   ? __loom_workgroup_id_x()
         : Dim == 1 ? __loom_workgroup_id_y()
                    : __loom_workgroup_id_z();
}
/// The wave's index in its work-group (work-items in flat order, 64 a wave).
LOOM_DEVICE_FN uint32_t waveId() { return __loom_wave_id(); }
/// The work-item id of the wave's lane 0 in its work-group, packed as
/// gfx90a packs it into v0: x | y << 10 | z << 20. Free (waveId() computes
/// from it, with the work-group's size): a tool that knows the size on the
/// host can send this and find the wave there.
LOOM_DEVICE_FN uint32_t waveWorkItem() { return __loom_wave_work_item(); }
/// The dispatch packet the kernel was launched with, as the hardware hands
/// it to the kernel (its dispatch_ptr): grid and work-group sizes,
/// dimensions, segment sizes. Under a tool, the packet of the instrumented
/// copy: its KernelObject and KernargAddress are the copy's.
LOOM_DEVICE_FN const LoomDispatchPacket *dispatchPacket() {
  return __loom_dispatch_packet();
}
/// The kernel's kernarg segment (its kernarg_segment_ptr): the explicit
/// arguments and the hidden ones (hidden_block_count_x, ...) at the offsets
/// of the kernel's metadata, as the kernel itself reads them.
LOOM_DEVICE_FN const void *kernargSegment() { return __loom_kernarg_segment(); }
/// The dispatch, numbered as the host's Dispatch::Index.
LOOM_DEVICE_FN uint64_t dispatchId() {
  return __loom_launch_header()->DispatchId;
}
/// The bytes this tool set for this dispatch (DispatchChoice::LaunchData),
/// or null if it set none.
template <typename T> LOOM_DEVICE_FN const T *launchData() {
  return reinterpret_cast<const T *>(
      __loom_launch_header()->Tools[__loom_tool_slot()].Data);
}

//===-- The channel -------------------------------------------------------===//

namespace detail {
/// The tool's ring in this dispatch, or null if it opened no channel.
LOOM_DEVICE_FN LoomChannelRing *channelRing() {
  const __attribute__((address_space(4))) LoomLaunchHeader *H =
      (const __attribute__((address_space(4))) LoomLaunchHeader *)
          __loom_launch_header();
  return reinterpret_cast<LoomChannelRing *>(
      H->Tools[__loom_tool_slot()].Channel);
}

/// The ring's fields that stay the same through the dispatch, read once
/// through the constant address space (scalar loads, not flat ones).
struct RingConstants {
  uint32_t Capacity, RecordBytes, Lossy;
  uint64_t Sequence, Records, Free;
};
LOOM_DEVICE_FN RingConstants ringConstants(const LoomChannelRing *R) {
  const __attribute__((address_space(4))) LoomChannelRing *C =
      (const __attribute__((address_space(4))) LoomChannelRing *)R;
  return {C->Capacity, C->RecordBytes, C->Lossy, C->Sequence, C->Records,
          C->Free};
}

/// Claims \p Count slots for the wave: the lane of rank 0 (the first active
/// one) makes the claim, every lane gets its base; ~0 if a lossy ring had
/// no room (the records are counted as dropped).
LOOM_DEVICE_FN uint64_t channelClaim(LoomChannelRing *R,
                                     const RingConstants &K, uint32_t Count,
                                     uint32_t Rank) {
  uint64_t Base = 0;
  if (Rank == 0) {
    if (K.Lossy) {
      uint32_t Capacity = K.Capacity;
      uint64_t Claimed = __hip_atomic_load(&R->Claimed, __ATOMIC_RELAXED,
                                           __HIP_MEMORY_SCOPE_SYSTEM);
      for (;;) {
        uint64_t Consumed = __hip_atomic_load(
            &R->Consumed, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_SYSTEM);
        if (Claimed + Count - Consumed > Capacity) {
          __hip_atomic_fetch_add(&R->Dropped, uint64_t(Count),
                                 __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
          Base = ~0ull;
          break;
        }
        if (__hip_atomic_compare_exchange_strong(
                &R->Claimed, &Claimed, Claimed + Count, __ATOMIC_RELAXED,
                __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM)) {
          Base = Claimed;
          break;
        }
      }
    } else {
      Base = __hip_atomic_fetch_add(&R->Claimed, uint64_t(Count),
                                    __ATOMIC_RELAXED,
                                    __HIP_MEMORY_SCOPE_SYSTEM);
    }
  }
  return uint64_t(__builtin_amdgcn_readfirstlane(uint32_t(Base))) |
         uint64_t(__builtin_amdgcn_readfirstlane(uint32_t(Base >> 32))) << 32;
}

/// The slot of claim \p Index, once the host has released what it held
/// before (Capacity >= 64, the host sees to it, so a lane never waits for a
/// record of its own wave).
LOOM_DEVICE_FN uint8_t *channelSlot(LoomChannelRing *R,
                                    const RingConstants &K, uint64_t Index) {
  uint32_t Capacity = K.Capacity;
  while (Index - __hip_atomic_load(&R->Consumed, __ATOMIC_ACQUIRE,
                                   __HIP_MEMORY_SCOPE_SYSTEM) >=
         Capacity)
    __builtin_amdgcn_s_sleep(1);
  return reinterpret_cast<uint8_t *>(K.Records) +
         (Index & (Capacity - 1)) * K.RecordBytes;
}

/// Makes claim \p Index's record visible to the host.
LOOM_DEVICE_FN void channelPublish(const RingConstants &K, uint64_t Index) {
  __hip_atomic_store(reinterpret_cast<uint64_t *>(K.Sequence) +
                         (Index & (K.Capacity - 1)),
                     Index + 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM);
}

// The scalar unit's memory operations (gfx9), each with its own wait; they
// run whatever EXEC is, and their operands and results are SGPRs.
LOOM_DEVICE_FN uint64_t scalarFetchAdd(uint64_t *P, uint64_t V) {
  __asm__ volatile("s_atomic_add_x2 %0, %1, 0x0 glc\n\t"
                   "s_waitcnt lgkmcnt(0)"
                   : "+s"(V)
                   : "s"(P)
                   : "memory");
  return V;
}
/// A load that bypasses the scalar cache (the host writes the word).
LOOM_DEVICE_FN uint64_t scalarLoadFresh(const uint64_t *P) {
  uint64_t V;
  __asm__ volatile("s_load_dwordx2 %0, %1, 0x0 glc\n\t"
                   "s_waitcnt lgkmcnt(0)"
                   : "=s"(V)
                   : "s"(P)
                   : "memory");
  return V;
}
/// Waits until the slot whose Free word is \p Free may take claim \p Index
/// (its low 32 bits: claims run less than 2^32 ahead of the host), the
/// host having handed over the record it held. In scalar code of its own:
/// LLVM builds a loop's exit from EXEC (the lanes still in it), so a wave
/// running the hook with EXEC empty would leave its loop at once, room or
/// not, and overwrite a record the host has not read.
///
/// This and scalarTakeSlot keep SCC in an SGPR of their own and give it
/// back at the end rather than naming it clobbered: LLVM finds a "scc"
/// clobber's register by comparing the name of every AMDGPU register with
/// it, twice per statement, a third of the time compiling a small point
/// takes. Two scalar instructions more per claim.
LOOM_DEVICE_FN void scalarWaitForSlot(const uint64_t *Free, uint32_t Index) {
  uint32_t Seen, Scc; // Free's low word; SCC as it was
  __asm__ volatile("s_cselect_b32 %1, -1, 0\n"
                   "1:\n\t"
                   "s_load_dword %0, %2, 0x0 glc\n\t"
                   "s_waitcnt lgkmcnt(0)\n\t"
                   "s_cmp_eq_u32 %0, %3\n\t"
                   "s_cbranch_scc1 2f\n\t"
                   "s_sleep 1\n\t"
                   "s_branch 1b\n"
                   "2:\n\t"
                   "s_cmp_lg_u32 %1, 0"
                   : "=&s"(Seen), "=&s"(Scc)
                   : "s"(Free), "s"(Index)
                   : "memory");
}
/// \p V, known to be the same in every lane, as an SGPR value.
LOOM_DEVICE_FN uint32_t uniform(uint32_t V) {
  return uint32_t(__builtin_amdgcn_readfirstlane(int(V)));
}
LOOM_DEVICE_FN void scalarStore8(void *P, uint64_t V) {
  __asm__ volatile("s_store_dwordx2 %0, %1, 0x0 glc" ::"s"(V), "s"(P)
                   : "memory");
}
/// Writes the scalar cache's dirty lines back and waits for it.
LOOM_DEVICE_FN void scalarWriteBack() {
  __asm__ volatile("s_dcache_wb\n\ts_waitcnt lgkmcnt(0)" ::: "memory");
}

/// Copies the words of \p In to \p Out, at most \p Limit bytes.
template <typename T>
LOOM_DEVICE_FN void channelCopy(uint8_t *Out, const T &In, uint32_t Limit) {
  static_assert(sizeof(T) % 4 == 0, "channel records are whole words");
  const uint32_t *From = reinterpret_cast<const uint32_t *>(&In);
  uint32_t *To = reinterpret_cast<uint32_t *>(Out);
#pragma unroll
  for (uint32_t W = 0; W < sizeof(T) / 4; ++W)
    if (4 * W < Limit)
      To[W] = From[W];
}

typedef uint64_t Doubles2 __attribute__((ext_vector_type(2)));
/// \p V, known to be the same in every lane, as an SGPR pair.
LOOM_DEVICE_FN uint64_t uniform64(uint64_t V) {
  return uint64_t(uniform(uint32_t(V))) | uint64_t(uniform(uint32_t(V >> 32)))
                                              << 32;
}

/// Stores \p Header, the same in every lane, at \p Base + \p Offset with
/// the scalar unit, 16 bytes at a time (the offsets in the instructions).
template <uint32_t Offset = 0, typename H>
LOOM_DEVICE_FN void scalarStoreHeader(void *Base, const H &Header) {
  static_assert(sizeof(H) % 16 == 0, "headers are stored 16 bytes at a time");
  uint64_t Words[sizeof(H) / 8];
  __builtin_memcpy(Words, &Header, sizeof(H));
#pragma unroll
  for (uint32_t W = 0; W < sizeof(H) / 8; W += 2) {
    Doubles2 V = {uniform64(Words[W]), uniform64(Words[W + 1])};
    __asm__ volatile("s_store_dwordx4 %0, %1, %2 glc" ::"s"(V), "s"(Base),
                     "i"(Offset + 8 * W)
                     : "memory");
  }
}

/// Stores \p Header, the same in every lane, at \p At with the scalar unit:
/// a leading word alone if its size is not a multiple of 8, then 8 bytes
/// at a time (a 64-bit value, EXEC say, from the SGPR pair it is in).
template <uint32_t Offset = 0, typename H>
LOOM_DEVICE_FN void scalarStoreRecordHeader(void *At, const H &Header) {
  static_assert(sizeof(H) % 4 == 0, "headers are whole words");
  constexpr uint32_t Lead = sizeof(H) % 8;
  uint32_t Words[sizeof(H) / 4];
  __builtin_memcpy(Words, &Header, sizeof(H));
  if constexpr (Lead != 0)
    __asm__ volatile("s_store_dword %0, %1, %2 glc" ::"s"(uniform(Words[0])),
                     "s"(At), "i"(Offset)
                     : "memory");
#pragma unroll
  for (uint32_t B = Lead; B < sizeof(H); B += 8) {
    uint64_t V = uint64_t(uniform(Words[B / 4])) |
                 uint64_t(uniform(Words[B / 4 + 1])) << 32;
    __asm__ volatile("s_store_dwordx2 %0, %1, %2 glc" ::"s"(V), "s"(At),
                     "i"(Offset + B)
                     : "memory");
  }
}

/// A whole wave's claim of one ring record, by the scalar unit, once the
/// host has released its slot (whatever records before it still hold
/// theirs): its index.
LOOM_DEVICE_FN uint64_t scalarClaim(LoomChannelRing *R,
                                    const RingConstants &K) {
  uint64_t Index = scalarFetchAdd(&R->Claimed, 1);
  scalarWaitForSlot(reinterpret_cast<const uint64_t *>(K.Free) +
                        (Index & (K.Capacity - 1)),
                    uint32_t(Index));
  return Index;
}

/// Publishes the wave's ring record \p Index: every lane's stores and the
/// headers first, then its sequence word.
LOOM_DEVICE_FN void scalarPublish(const RingConstants &K, uint64_t Index) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "");
  scalarWriteBack();
  scalarStore8(reinterpret_cast<uint64_t *>(K.Sequence) +
                   (Index & (K.Capacity - 1)),
               Index + 1);
  scalarWriteBack();
}
} // namespace detail

/// Sends \p Record, from every active lane, to the tool's host side
/// (Tool::channelRecords), in the ring of this dispatch. Lossless rings
/// make the lanes wait while the ring is full; lossy ones drop the records
/// (counted, Dispatch::ChannelDropped). False if the record was dropped or
/// the tool opened no channel. Records of one lane arrive in the order it
/// sent them; of one call, in lane order.
template <typename T> LOOM_DEVICE_FN bool channelPush(const T &Record) {
  LoomChannelRing *R = detail::channelRing();
  if (!R)
    return false;
  // One claim per wave: the first active lane claims a slot for each.
  uint64_t Exec = activeMask();
  uint32_t Rank = __builtin_amdgcn_mbcnt_hi(
      uint32_t(Exec >> 32), __builtin_amdgcn_mbcnt_lo(uint32_t(Exec), 0u));
  detail::RingConstants K = detail::ringConstants(R);
  uint64_t Base =
      detail::channelClaim(R, K, __builtin_popcountll(Exec), Rank);
  if (Base == ~0ull)
    return false;
  uint8_t *Slot = detail::channelSlot(R, K, Base + Rank);
  detail::channelCopy(Slot, Record, K.RecordBytes);
  detail::channelPublish(K, Base + Rank);
  return true;
}

/// Sends one record for the whole wave: \p Header, then \p N arrays of
/// 64 values of type L, where each active lane puts its \p Lanes[K] at its
/// own index of array K (inactive lanes' entries are left as they were).
/// Arrays whose bit is set in \p Skip are not stored (the header says what
/// they would). The channel's RecordBytes must be at least sizeof(H) + N *
/// 64 * sizeof(L). Where channelPush makes a record per lane, this makes
/// one per wave: what a tool sending per-lane values of wave-level events
/// (the addresses of a few memory instructions, say) wants.
///
/// It needs a lossless channel (on a lossy one the wave waits for room as
/// on a lossless one; nothing is dropped). \p Header must be the same in
/// every lane: it is stored by the scalar unit, which runs whatever EXEC
/// is, so a wave that reaches the call with no active lane still sends its
/// record (the header; no lane values). False if the tool opened no
/// channel.
template <unsigned Skip = 0, typename H, typename L, unsigned N>
LOOM_DEVICE_FN bool channelPushWave(const H &Header, const L (&Lanes)[N]) {
  static_assert(sizeof(L) % 4 == 0, "channel records are whole words");
  LoomChannelRing *R = detail::channelRing();
  if (!R)
    return false;
  detail::RingConstants K = detail::ringConstants(R);
  // The scalar unit claims, waits and publishes: no lane election, no
  // broadcast, nothing to branch around.
  uint64_t Index = detail::scalarClaim(R, K);
  uint8_t *Slot = reinterpret_cast<uint8_t *>(K.Records) +
                  (Index & (K.Capacity - 1)) * K.RecordBytes;
  uint8_t *Mine = Slot + sizeof(H) + laneId() * sizeof(L);
#pragma unroll
  for (unsigned A = 0; A < N; ++A)
    if (!((Skip >> A) & 1))
      detail::channelCopy(Mine + A * 64 * sizeof(L), Lanes[A], sizeof(L));
  detail::scalarStoreHeader(Slot, Header);
  detail::scalarPublish(K, Index);
  return true;
}

/// channelPushWave of one array.
template <typename H, typename L>
LOOM_DEVICE_FN bool channelPushWave(const H &Header, const L &Lane) {
  const L Lanes[1] = {Lane};
  return channelPushWave(Header, Lanes);
}

//===-- Per-wave chunks of the channel ------------------------------------===//
//
// channelPushWave claims, waits for room and publishes a record at every
// call. channelAppendWave amortises that: the wave claims a whole ring
// record (a chunk of ChunkBytes) once, appends its records to it at a
// cursor it keeps in a wave counter (a hook argument and result: per-wave
// state in SGPRs, docs/instrument.md), and publishes the chunk when the
// next record would not fit, or at channelFlushWave (every kernel exit,
// and before every s_barrier: a wave holding an unpublished chunk while
// it waits for another wave could otherwise hold the host, and so every
// other wave waiting for room, forever). The host gets whole chunks, each
// a LoomWaveChunk (LaunchHeader.h), the tool's chunk header, then the
// records, in the wave's order.

namespace detail {
/// The start of the chunk \p Cursor (nonzero) points into: a cursor lies
/// past its chunk's headers and short of its end.
template <uint32_t ChunkBytes>
LOOM_DEVICE_FN uint64_t chunkBase(uint64_t Cursor) {
  return Cursor & ~uint64_t(ChunkBytes - 1);
}

/// Publishes the chunk \p Cursor (nonzero) points into: every lane's
/// stores and the headers, then its End word (the cursor's low word,
/// never 0), by an atomic, which the L2 takes (no scalar cache to write
/// back after it).
template <uint32_t ChunkBytes>
LOOM_DEVICE_FN void publishChunk(uint64_t Cursor) {
  uint64_t Base = chunkBase<ChunkBytes>(Cursor);
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "");
  scalarWriteBack();
  __asm__ volatile("s_atomic_swap %0, %1, %2" ::"s"(uint32_t(Cursor)),
                   "s"(Base), "i"(__builtin_offsetof(LoomWaveChunk, End))
                   : "memory");
}

/// Makes slot \p Slot, whose chunk is at \p Base, claim \p Claim's: below
/// \p Ready as it is (the host readied it); else, if the slot's first
/// claim (below \p Capacity), readies it (End 0, then the low word of its
/// Free word, whose high word the host left 0, Claim; each written back:
/// the host reads a chunk once its Free word says it is the claim's); else
/// waits until the host released it to the claim (as scalarWaitForSlot).
/// One block of scalar code, the Free word reached by an SGPR offset:
/// LLVM made an if-else of its own a lane mask (wrong with EXEC empty),
/// and computed the Free word's address on every claim.
LOOM_DEVICE_FN void scalarTakeSlot(void *Base, const uint64_t *Free,
                                   uint32_t Slot, uint32_t Claim,
                                   uint32_t Ready, uint32_t Capacity) {
  uint32_t Offset, Word, Scc; // Scc: as it was (scalarWaitForSlot says why)
  __asm__ volatile("s_cselect_b32 %2, -1, 0\n\t"
                   "s_cmp_lt_u32 %3, %4\n\t"
                   "s_cbranch_scc1 3f\n\t"
                   "s_lshl_b32 %0, %6, 3\n\t"
                   "s_cmp_lt_u32 %3, %5\n\t"
                   "s_cbranch_scc0 1f\n\t"
                   "s_mov_b32 %1, 0\n\t"
                   "s_store_dword %1, %7, 0x0 glc\n\t"
                   "s_dcache_wb\n\t"
                   "s_waitcnt lgkmcnt(0)\n\t"
                   "s_store_dword %3, %8, %0 glc\n\t"
                   "s_dcache_wb\n\t"
                   "s_waitcnt lgkmcnt(0)\n\t"
                   "s_branch 3f\n"
                   "1:\n\t"
                   "s_load_dword %1, %8, %0 glc\n\t"
                   "s_waitcnt lgkmcnt(0)\n\t"
                   "s_cmp_eq_u32 %1, %3\n\t"
                   "s_cbranch_scc1 3f\n\t"
                   "s_sleep 1\n\t"
                   "s_branch 1b\n"
                   "3:\n\t"
                   "s_cmp_lg_u32 %2, 0"
                   : "=&s"(Offset), "=&s"(Word), "=&s"(Scc)
                   : "s"(Claim), "s"(Ready), "s"(Capacity), "s"(Slot),
                     "s"(Base), "s"(Free)
                   : "memory");
}

/// Claims a chunk of ring \p R (the tool's channel, of wave chunks of
/// ChunkBytes) and writes \p ChunkHeader after its LoomWaveChunk; the
/// cursor after them. A claim below the ring's Ready takes its slot as it
/// is (the host readied it); one past Ready readies its slot itself if it
/// is the slot's first (no wait for the host), else waits on its Free
/// word.
template <uint32_t ChunkBytes, typename C>
LOOM_DEVICE_FN uint64_t claimChunk(LoomChannelRing *R, const C &ChunkHeader) {
  // The ring's constants and the claim, one wait for them all.
  Doubles2 Sizes; // Capacity, RecordBytes, Lossy, Ready
  Doubles2 Where; // Records, Free
  uint64_t Index = 1;
  __asm__ volatile("s_load_dwordx4 %0, %3, %4\n\t"
                   "s_load_dwordx4 %1, %3, %5\n\t"
                   "s_atomic_add_x2 %2, %3, %6 glc\n\t"
                   "s_waitcnt lgkmcnt(0)"
                   : "=&s"(Sizes), "=&s"(Where), "+&s"(Index)
                   : "s"(R), "i"(__builtin_offsetof(LoomChannelRing, Capacity)),
                     "i"(__builtin_offsetof(LoomChannelRing, Records)),
                     "i"(__builtin_offsetof(LoomChannelRing, Claimed))
                   : "memory");
  static_assert(__builtin_offsetof(LoomChannelRing, Free) ==
                    __builtin_offsetof(LoomChannelRing, Records) + 8,
                "Records and Free in one load");
  static_assert(__builtin_offsetof(LoomChannelRing, Ready) ==
                    __builtin_offsetof(LoomChannelRing, Capacity) + 12,
                "Capacity and Ready in one load");
  uint32_t Capacity = uint32_t(Sizes.x), Ready = uint32_t(Sizes.y >> 32);
  // Claims run less than 2^32 ahead of the host, and a ring holds less
  // than 4 GiB (ToolHost refuses larger): 32-bit slot arithmetic.
  uint32_t Claim = uint32_t(Index), Slot = Claim & (Capacity - 1);
  uint64_t Base = Where.x + Slot * ChunkBytes;
  scalarTakeSlot(reinterpret_cast<void *>(Base),
                 reinterpret_cast<const uint64_t *>(Where.y), Slot, Claim,
                 Ready, Capacity);
  scalarStoreRecordHeader<sizeof(LoomWaveChunk)>(
      reinterpret_cast<void *>(Base), ChunkHeader);
  return Base + sizeof(LoomWaveChunk) + sizeof(C);
}
} // namespace detail

/// Appends a record for the whole wave to its chunk: \p Header (stored by
/// the scalar unit), then each of the \p N arrays of 64 values whose bit
/// in \p Skip is clear (each active lane's at its lane index; skipped
/// arrays take no room; arrays whose bit is set in \p Narrow hold each
/// value's low 32 bits only, 64 words). \p Cursor is the wave counter's
/// value (0 before the wave's first record); the result goes back into
/// it. \p ChunkHeader
/// is written at the start of each new chunk (the wave's identity, say).
/// ChunkBytes, a power of two, must be the channel's RecordBytes (the tool
/// runtime then aligns the ring's records to it), and the tool must open
/// its channel (ToolContext::openChannel): nothing on the device checks
/// either (session 11 sent records to a sink chunk without them, at a
/// test in every claim and publication). The ring waits for room
/// (lossless) whatever ChannelOptions::Lossy says.
template <uint32_t ChunkBytes, unsigned Skip = 0, unsigned Narrow = 0,
          typename C, typename H, typename L, unsigned N>
LOOM_DEVICE_FN uint64_t channelAppendWave(uint64_t Cursor,
                                          const C &ChunkHeader,
                                          const H &Header,
                                          const L (&Lanes)[N]) {
  static_assert((ChunkBytes & (ChunkBytes - 1)) == 0, "a power of two");
  static_assert(sizeof(L) % 4 == 0, "channel records are whole words");
  static_assert(sizeof(H) % 4 == 0 && sizeof(C) % 4 == 0,
                "headers are whole words");
  constexpr unsigned All = (1u << N) - 1;
  constexpr uint32_t Wide = __builtin_popcount(~Skip & ~Narrow & All);
  constexpr uint32_t Thin = __builtin_popcount(~Skip & Narrow & All);
  constexpr uint32_t Bytes = sizeof(H) + Wide * 64 * sizeof(L) + Thin * 64 * 4;
  static_assert(sizeof(LoomWaveChunk) + sizeof(C) + Bytes < ChunkBytes,
                "a record fits in a chunk");
  // The bytes used in the chunk, less one: 0 (no chunk yet) reads as
  // full. A record must leave the cursor short of the chunk's end: the
  // chunk is aligned to its size, so the cursor's low word then never
  // carries into its high one, and moves with a 32-bit add. No boolean may
  // live from one block to another here: LLVM keeps such a value as a lane
  // mask and branches on it ANDed with EXEC (in VCC), which a wave running
  // the hook with EXEC empty would see as false; a cursor tested where it
  // is compared branches on SCC.
  if (((uint32_t(Cursor) - 1) & (ChunkBytes - 1)) + Bytes >= ChunkBytes - 1) {
    if (Cursor)
      detail::publishChunk<ChunkBytes>(Cursor);
    Cursor = detail::claimChunk<ChunkBytes>(detail::channelRing(),
                                            ChunkHeader);
  }
  // Through a global pointer: a global store from the cursor's SGPRs plus
  // the lane's offset (constant offsets in the instruction), where a flat
  // one would add them in VGPRs first.
  typedef __attribute__((address_space(1))) uint32_t GlobalWord;
  // laneId(), not laneWord(): the preamble's three instructions a wave
  // for a VGPR of laneWord() cost more than they save where a wave makes
  // one or two records (the -O2 corpus median 3.70x -> 4.15x).
  GlobalWord *Record = reinterpret_cast<GlobalWord *>(Cursor);
  uint32_t Lane = laneId();
  uint32_t Offset = sizeof(H); // of the next array
#pragma unroll
  for (unsigned A = 0; A < N; ++A) {
    if ((Skip >> A) & 1)
      continue;
    const uint32_t *From = reinterpret_cast<const uint32_t *>(&Lanes[A]);
    if ((Narrow >> A) & 1) {
      (Record + Offset / 4)[Lane] = From[0];
      Offset += 64 * 4;
      continue;
    }
#pragma unroll
    for (uint32_t W = 0; W < sizeof(L) / 4; ++W)
      (Record + Offset / 4 + W)[Lane * (sizeof(L) / 4)] = From[W];
    Offset += 64 * sizeof(L);
  }
  detail::scalarStoreRecordHeader(reinterpret_cast<void *>(Cursor), Header);
  return (Cursor & ~uint64_t(0xffffffff)) | uint32_t(uint32_t(Cursor) + Bytes);
}

/// Publishes the wave's chunk, if it has one; the cursor to keep (0).
template <uint32_t ChunkBytes>
LOOM_DEVICE_FN uint64_t channelFlushWave(uint64_t Cursor) {
  if (Cursor)
    detail::publishChunk<ChunkBytes>(Cursor);
  uint64_t None; // in one instruction (LLVM sets the halves apart)
  __asm__("s_mov_b64 %0, 0" : "=s"(None));
  return None;
}

#undef LOOM_DEVICE_FN

} // namespace loom

#endif // LOOM_INSTRUMENT_HOOKS_H
