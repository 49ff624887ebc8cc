//===- tools/kernel_args/KernelArgsHooks.hip - kernel_args's hooks --------===//
//
// At kernel entry, the dispatch's first wave (work-group 0, wave 0) sends
// its dispatch packet and its kernarg segment, as the hardware handed them
// to the kernel, through the channel: its active lanes share the parts
// (KernelArgsRecord.h), one record a lane at a time.
//
//===----------------------------------------------------------------------===//

#include "KernelArgsRecord.h"

#include "loom/instrument/Hooks.h"

LOOM_HOOK void kernel_args_entry() {
  if ((loom::workgroupId(0) | loom::workgroupId(1) | loom::workgroupId(2)) !=
          0 ||
      loom::waveId() != 0)
    return;
  const KernelArgsLaunch *L = loom::launchData<KernelArgsLaunch>();
  if (!L)
    return;
  uint64_t Exec = loom::activeMask();
  uint32_t Active = __builtin_popcountll(Exec);
  uint32_t Rank = __builtin_amdgcn_mbcnt_hi(
      uint32_t(Exec >> 32), __builtin_amdgcn_mbcnt_lo(uint32_t(Exec), 0u));
  const uint32_t *Packet =
      reinterpret_cast<const uint32_t *>(loom::dispatchPacket());
  const uint32_t *Segment =
      static_cast<const uint32_t *>(loom::kernargSegment());
  uint32_t Parts = L->Parts, Words = L->KernargWords;
  for (uint32_t Part = Rank; Part < Parts; Part += Active) {
    KernelArgsRecord R;
    R.Part = Part;
    R.Reserved[0] = R.Reserved[1] = R.Reserved[2] = 0;
    for (uint32_t I = 0; I < 16; ++I) {
      uint32_t Word = 16 * (Part - 1) + I;
      R.Words[I] = Part == 0 ? Packet[I] : Word < Words ? Segment[Word] : 0;
    }
    loom::channelPush(R);
  }
}
