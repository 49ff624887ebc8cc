//===- tools/kernel_args/KernelArgsRecord.h - What the entry hook sends ---===//
//
// Shared by kernel_args's hooks and its host code (plain C layout). At
// kernel entry, the dispatch's first wave reads its dispatch packet and
// its kernarg segment as the kernel receives them, and sends them through
// the channel in parts of 64 bytes: part 0 is the packet, part N >= 1 the
// segment's bytes [64 (N - 1), 64 N).
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TOOLS_KERNELARGSRECORD_H
#define LOOM_TOOLS_KERNELARGSRECORD_H

#include <stdint.h>

struct KernelArgsRecord {
  uint32_t Part;
  uint32_t Reserved[3];
  uint32_t Words[16];
};

/// The launch data: how much of the segment to send.
struct KernelArgsLaunch {
  uint32_t Parts;        ///< 1 + the segment's 64-byte parts
  uint32_t KernargWords; ///< the segment's size in 4-byte words
};

#endif // LOOM_TOOLS_KERNELARGSRECORD_H
