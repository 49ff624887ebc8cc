// mem_trace's hook, before every traced memory instruction: one channel
// record per wave (MemTraceRecord.h), each active lane storing its own
// address into it, so a wave-access costs one claim and one store per
// lane rather than a record per lane. What the instruction is (pc, kind,
// size) the host knows from Site.
#include "loom/instrument/Hooks.h"

#include "MemTraceRecord.h"

LOOM_HOOK void mem_trace(uint32_t Site, uint64_t Address) {
  MemTraceHeader H;
  H.Site = Site;
  H.WorkItem = loom::waveWorkItem();
  H.Group[0] = loom::workgroupId(0);
  H.Group[1] = loom::workgroupId(1);
  H.Group[2] = loom::workgroupId(2);
  H.Reserved = 0;
  H.Exec = loom::activeMask();
  H.First = uint64_t(uint32_t(__builtin_amdgcn_readfirstlane(
                uint32_t(Address)))) |
            uint64_t(uint32_t(__builtin_amdgcn_readfirstlane(
                uint32_t(Address >> 32))))
                << 32;
  H.Reserved2 = 0;
  loom::channelPushWave(H, Address);
}
