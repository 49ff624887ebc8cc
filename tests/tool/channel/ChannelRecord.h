// What the channel test tool's hooks send to its host side (shared by both:
// plain C layout, whole 4-byte words).
#ifndef LOOM_TESTS_TOOL_CHANNEL_RECORD_H
#define LOOM_TESTS_TOOL_CHANNEL_RECORD_H

#include <stdint.h>

enum ChannelRecordKind : uint32_t {
  ChannelEntry = 1,  ///< a lane at kernel entry
  ChannelMemory = 2, ///< a lane's address at a global memory instruction
};

struct ChannelRecord {
  uint32_t Kind;
  uint32_t WorkGroup; ///< entry: work-group id x
  uint32_t Wave;      ///< entry: wave id in the work-group
  uint32_t Lane;      ///< entry: lane id
  uint64_t X;         ///< entry: dispatch id; memory: the instruction's pc
  uint64_t Y;         ///< entry: the launch data (~0: none); memory: address
};

#endif
