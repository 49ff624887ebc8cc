// The channel test tool's hooks: a record per lane at kernel entry (where
// it runs: work-group, wave, lane, dispatch id, launch data) and before each
// global memory instruction (pc, the lane's address), through the channel.
#include "loom/instrument/Hooks.h"

#include "ChannelRecord.h"

/// The launch data, added once per wave (the host checks it without the
/// channel).
LOOM_DEVICE unsigned long long LaunchDataSum;

LOOM_HOOK void channel_entry() {
  const uint64_t *Data = loom::launchData<uint64_t>();
  ChannelRecord R;
  R.Kind = ChannelEntry;
  R.WorkGroup = loom::workgroupId(0);
  R.Wave = loom::waveId();
  R.Lane = loom::laneId();
  R.X = loom::dispatchId();
  R.Y = Data ? *Data : ~0ull;
  if (Data && loom::isFirstActiveLane())
    loom::atomicAdd(&LaunchDataSum, (unsigned long long)*Data);
  loom::channelPush(R);
}

LOOM_HOOK void channel_memory(uint64_t Pc, uint64_t Address) {
  ChannelRecord R;
  R.Kind = ChannelMemory;
  R.WorkGroup = R.Wave = R.Lane = 0;
  R.X = Pc;
  R.Y = Address;
  loom::channelPush(R);
}
