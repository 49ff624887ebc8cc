// mem_trace's hooks: before a memory instruction, one channel record per
// wave for it and for the memory instructions just before it whose
// address registers still hold their addresses there (mem_trace_N: N
// instructions, sites Site to Site + N - 1, in program order), with one
// claim (MemTraceRecord.h). Each active lane stores its own address into
// the record; what each instruction is (pc, kind, size) the host knows
// from its site.
#include "loom/instrument/Hooks.h"

#include "MemTraceRecord.h"

namespace {

__attribute__((device, always_inline)) inline uint64_t
firstLane(uint64_t V) {
  return uint64_t(uint32_t(__builtin_amdgcn_readfirstlane(uint32_t(V)))) |
         uint64_t(uint32_t(__builtin_amdgcn_readfirstlane(uint32_t(V >> 32))))
             << 32;
}

template <unsigned N>
__attribute__((device, always_inline)) inline void
push(uint32_t Site, const uint64_t (&Address)[N]) {
  MemTraceHeader H[N];
  uint64_t Exec = loom::activeMask();
  for (unsigned I = 0; I < N; ++I) {
    H[I].Site = Site + I;
    H[I].WorkItem = loom::waveWorkItem();
    H[I].Group[0] = loom::workgroupId(0);
    H[I].Group[1] = loom::workgroupId(1);
    H[I].Group[2] = loom::workgroupId(2);
    H[I].Reserved = 0;
    H[I].Exec = Exec;
    H[I].First = firstLane(Address[I]);
    H[I].Reserved2 = 0;
  }
  loom::channelPushWaves(H, Address);
}

} // namespace

LOOM_HOOK void mem_trace_1(uint32_t Site, uint64_t A0) {
  uint64_t A[1] = {A0};
  push(Site, A);
}
LOOM_HOOK void mem_trace_2(uint32_t Site, uint64_t A0, uint64_t A1) {
  uint64_t A[2] = {A0, A1};
  push(Site, A);
}
LOOM_HOOK void mem_trace_3(uint32_t Site, uint64_t A0, uint64_t A1,
                           uint64_t A2) {
  uint64_t A[3] = {A0, A1, A2};
  push(Site, A);
}
LOOM_HOOK void mem_trace_4(uint32_t Site, uint64_t A0, uint64_t A1,
                           uint64_t A2, uint64_t A3) {
  uint64_t A[4] = {A0, A1, A2, A3};
  push(Site, A);
}
