// mem_trace's hooks: before a memory instruction, one record per wave for
// it and for the memory instructions just before it whose address
// registers still hold their addresses there, appended to the wave's chunk
// (MemTraceRecord.h) at the cursor the wave keeps in a wave counter, which
// each hook takes and returns. A hook reports up to four instructions
// (sites Site to Site + N - 1), named by their kinds (below): a scalar
// one's one address travels in the header and no lane stores it; LDS and
// scratch addresses are 32 bits a lane. What each instruction is (pc,
// kind, size) the host knows from its site. mem_trace_flush publishes the wave's chunk (at kernel
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

/// The header and the scalar instructions' addresses (K of them, each as
/// two words: no padding after the 12-byte header).
template <unsigned K> struct Header {
  MemTraceHeader H;
  uint32_t First[2 * K];
};
template <> struct Header<0> {
  MemTraceHeader H;
};

template <unsigned Scalar, unsigned Narrow, unsigned N>
__attribute__((device, always_inline)) inline uint64_t
push(uint64_t Cursor, uint32_t Site, const uint64_t (&Address)[N]) {
  MemTraceWave W;
  W.WorkItem = loom::waveWorkItem();
  W.Group[0] = loom::workgroupId(0);
  W.Group[1] = loom::workgroupId(1);
  W.Group[2] = loom::workgroupId(2);
  constexpr unsigned Scalars = __builtin_popcount(Scalar);
  Header<Scalars> R;
  R.H.Site = Site;
  uint64_t Exec = loom::activeMaskCopy();
  R.H.Exec[0] = uint32_t(Exec);
  R.H.Exec[1] = uint32_t(Exec >> 32);
  if constexpr (Scalars != 0) {
    unsigned K = 0;
    for (unsigned I = 0; I < N; ++I)
      if ((Scalar >> I) & 1) {
        uint64_t A = firstLane(Address[I]);
        R.First[K++] = uint32_t(A);
        R.First[K++] = uint32_t(A >> 32);
      }
  }
  return loom::channelAppendWave<MEM_TRACE_CHUNK, Scalar, Narrow>(
      Cursor, W, R, Address);
}

} // namespace

LOOM_HOOK uint64_t mem_trace_flush(uint64_t Cursor) {
  return loom::channelFlushWave<MEM_TRACE_CHUNK>(Cursor);
}

// A hook per mix of instruction kinds, named by them in a fixed order: a
// vector access of 64-bit addresses (v), one of 32-bit addresses (l: LDS,
// scratch), a scalar one (s). mem_trace_vls takes one of each, in that
// order (the host knows the instructions' program order from the sites).
#define MT_S_v 0
#define MT_S_l 0
#define MT_S_s 1
#define MT_L_v 0
#define MT_L_l 1
#define MT_L_s 0
#define MT_DEF1(a)                                                             \
  LOOM_HOOK uint64_t mem_trace_##a(uint64_t Cursor, uint32_t Site,            \
                                   uint64_t A0) {                              \
    uint64_t A[1] = {A0};                                                      \
    return push<MT_S_##a, MT_L_##a>(Cursor, Site, A);                          \
  }
#define MT_DEF2(a, b)                                                          \
  LOOM_HOOK uint64_t mem_trace_##a##b(uint64_t Cursor, uint32_t Site,         \
                                      uint64_t A0, uint64_t A1) {              \
    uint64_t A[2] = {A0, A1};                                                  \
    return push<MT_S_##a | MT_S_##b << 1, MT_L_##a | MT_L_##b << 1>(Cursor,    \
                                                                    Site, A);  \
  }
#define MT_DEF3(a, b, c)                                                       \
  LOOM_HOOK uint64_t mem_trace_##a##b##c(uint64_t Cursor, uint32_t Site,      \
                                         uint64_t A0, uint64_t A1,             \
                                         uint64_t A2) {                        \
    uint64_t A[3] = {A0, A1, A2};                                              \
    return push<MT_S_##a | MT_S_##b << 1 | MT_S_##c << 2,                      \
                MT_L_##a | MT_L_##b << 1 | MT_L_##c << 2>(Cursor, Site, A);    \
  }
#define MT_DEF4(a, b, c, d)                                                    \
  LOOM_HOOK uint64_t mem_trace_##a##b##c##d(uint64_t Cursor, uint32_t Site,   \
                                            uint64_t A0, uint64_t A1,          \
                                            uint64_t A2, uint64_t A3) {        \
    uint64_t A[4] = {A0, A1, A2, A3};                                          \
    return push<MT_S_##a | MT_S_##b << 1 | MT_S_##c << 2 | MT_S_##d << 3,      \
                MT_L_##a | MT_L_##b << 1 | MT_L_##c << 2 | MT_L_##d << 3>(     \
        Cursor, Site, A);                                                      \
  }
MT_DEF1(v) MT_DEF1(l) MT_DEF1(s)
MT_DEF2(v, v) MT_DEF2(v, l) MT_DEF2(v, s) MT_DEF2(l, l) MT_DEF2(l, s)
MT_DEF2(s, s)
MT_DEF3(v, v, v) MT_DEF3(v, v, l) MT_DEF3(v, v, s) MT_DEF3(v, l, l)
MT_DEF3(v, l, s) MT_DEF3(v, s, s) MT_DEF3(l, l, l) MT_DEF3(l, l, s)
MT_DEF3(l, s, s) MT_DEF3(s, s, s)
MT_DEF4(v, v, v, v) MT_DEF4(v, v, v, l) MT_DEF4(v, v, v, s)
MT_DEF4(v, v, l, l) MT_DEF4(v, v, l, s) MT_DEF4(v, v, s, s)
MT_DEF4(v, l, l, l) MT_DEF4(v, l, l, s) MT_DEF4(v, l, s, s)
MT_DEF4(v, s, s, s) MT_DEF4(l, l, l, l) MT_DEF4(l, l, l, s)
MT_DEF4(l, l, s, s) MT_DEF4(l, s, s, s) MT_DEF4(s, s, s, s)

// Five to eight vector accesses of one kind (MEM_TRACE_GROUP_SAME).
#define MT_SAME(Name, Narrow, N, ...)                                          \
  LOOM_HOOK uint64_t Name(uint64_t Cursor, uint32_t Site, __VA_ARGS__) {       \
    uint64_t A[N] = {MT_ARGS##N};                                              \
    return push<0, Narrow>(Cursor, Site, A);                                   \
  }
#define MT_ARGS5 A0, A1, A2, A3, A4
#define MT_ARGS6 MT_ARGS5, A5
#define MT_ARGS7 MT_ARGS6, A6
#define MT_ARGS8 MT_ARGS7, A7
#define MT_PARAMS5                                                             \
  uint64_t A0, uint64_t A1, uint64_t A2, uint64_t A3, uint64_t A4
#define MT_PARAMS6 MT_PARAMS5, uint64_t A5
#define MT_PARAMS7 MT_PARAMS6, uint64_t A6
#define MT_PARAMS8 MT_PARAMS7, uint64_t A7
MT_SAME(mem_trace_vvvvv, 0, 5, MT_PARAMS5)
MT_SAME(mem_trace_vvvvvv, 0, 6, MT_PARAMS6)
MT_SAME(mem_trace_vvvvvvv, 0, 7, MT_PARAMS7)
MT_SAME(mem_trace_vvvvvvvv, 0, 8, MT_PARAMS8)
MT_SAME(mem_trace_lllll, 0x1f, 5, MT_PARAMS5)
MT_SAME(mem_trace_llllll, 0x3f, 6, MT_PARAMS6)
MT_SAME(mem_trace_lllllll, 0x7f, 7, MT_PARAMS7)
MT_SAME(mem_trace_llllllll, 0xff, 8, MT_PARAMS8)
