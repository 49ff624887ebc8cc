// mem_trace's hooks: before a memory instruction, one record per wave for
// it and for the memory instructions just before it whose address
// registers still hold their addresses there, appended to the wave's chunk
// (MemTraceRecord.h) at the cursor the wave keeps in a wave counter, which
// each hook takes and returns. mem_trace_N_M reports N instructions (sites
// Site to Site + N - 1, in program order); bit K of M set means
// instruction K is scalar: its one address travels in the header and no
// lane stores it. What each instruction is (pc, kind, size) the host knows
// from its site. mem_trace_flush publishes the wave's chunk (at kernel
// exits and before barriers).
#include "loom/instrument/Hooks.h"

#include "MemTraceRecord.h"

namespace {

__attribute__((device, always_inline)) inline uint64_t
firstLane(uint64_t V) {
  return uint64_t(uint32_t(__builtin_amdgcn_readfirstlane(uint32_t(V)))) |
         uint64_t(uint32_t(__builtin_amdgcn_readfirstlane(uint32_t(V >> 32))))
             << 32;
}

/// The header and the scalar instructions' addresses (K of them, even).
template <unsigned K> struct Header {
  MemTraceHeader H;
  uint64_t First[K];
};
template <> struct Header<0> {
  MemTraceHeader H;
};

template <unsigned Scalar, unsigned N>
__attribute__((device, always_inline)) inline uint64_t
push(uint64_t Cursor, uint32_t Site, const uint64_t (&Address)[N]) {
  MemTraceWave W;
  W.WorkItem = loom::waveWorkItem();
  W.Group[0] = loom::workgroupId(0);
  W.Group[1] = loom::workgroupId(1);
  W.Group[2] = loom::workgroupId(2);
  constexpr unsigned Scalars = __builtin_popcount(Scalar);
  Header<(Scalars + 1) / 2 * 2> R;
  R.H.Site = Site;
  R.H.Count = N;
  R.H.Exec = loom::activeMask();
  if constexpr (Scalars != 0) {
    unsigned K = 0;
    for (unsigned I = 0; I < N; ++I)
      if ((Scalar >> I) & 1)
        R.First[K++] = firstLane(Address[I]);
    for (; K < (Scalars + 1) / 2 * 2; ++K)
      R.First[K] = 0;
  }
  return loom::channelAppendWave<MEM_TRACE_CHUNK, Scalar>(Cursor, W, R,
                                                          Address);
}

} // namespace

LOOM_HOOK uint64_t mem_trace_flush(uint64_t Cursor) {
  return loom::channelFlushWave<MEM_TRACE_CHUNK, MemTraceWave>(Cursor);
}

#define MEM_TRACE_1(M)                                                         \
  LOOM_HOOK uint64_t mem_trace_1_##M(uint64_t Cursor, uint32_t Site,          \
                                     uint64_t A0) {                            \
    uint64_t A[1] = {A0};                                                      \
    return push<M>(Cursor, Site, A);                                           \
  }
#define MEM_TRACE_2(M)                                                         \
  LOOM_HOOK uint64_t mem_trace_2_##M(uint64_t Cursor, uint32_t Site,          \
                                     uint64_t A0, uint64_t A1) {               \
    uint64_t A[2] = {A0, A1};                                                  \
    return push<M>(Cursor, Site, A);                                           \
  }
#define MEM_TRACE_3(M)                                                         \
  LOOM_HOOK uint64_t mem_trace_3_##M(uint64_t Cursor, uint32_t Site,          \
                                     uint64_t A0, uint64_t A1, uint64_t A2) {  \
    uint64_t A[3] = {A0, A1, A2};                                              \
    return push<M>(Cursor, Site, A);                                           \
  }
#define MEM_TRACE_4(M)                                                         \
  LOOM_HOOK uint64_t mem_trace_4_##M(uint64_t Cursor, uint32_t Site,          \
                                     uint64_t A0, uint64_t A1, uint64_t A2,    \
                                     uint64_t A3) {                            \
    uint64_t A[4] = {A0, A1, A2, A3};                                          \
    return push<M>(Cursor, Site, A);                                           \
  }

MEM_TRACE_1(0) MEM_TRACE_1(1)
MEM_TRACE_2(0) MEM_TRACE_2(1) MEM_TRACE_2(2) MEM_TRACE_2(3)
MEM_TRACE_3(0) MEM_TRACE_3(1) MEM_TRACE_3(2) MEM_TRACE_3(3)
MEM_TRACE_3(4) MEM_TRACE_3(5) MEM_TRACE_3(6) MEM_TRACE_3(7)
MEM_TRACE_4(0) MEM_TRACE_4(1) MEM_TRACE_4(2) MEM_TRACE_4(3)
MEM_TRACE_4(4) MEM_TRACE_4(5) MEM_TRACE_4(6) MEM_TRACE_4(7)
MEM_TRACE_4(8) MEM_TRACE_4(9) MEM_TRACE_4(10) MEM_TRACE_4(11)
MEM_TRACE_4(12) MEM_TRACE_4(13) MEM_TRACE_4(14) MEM_TRACE_4(15)
