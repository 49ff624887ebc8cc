//===- loom/instrument/LaunchHeader.h - What a launch hands the hooks -----===//
//
// Shared by host and device code (plain C layout, no includes beyond
// stdint.h). An instrumented kernel whose hooks use per-launch values (the
// dispatch id, the wave id, a tool's launch data or channel) is dispatched
// with a kernarg segment that holds, after the original arguments, at
// InstrumentedKernel::LaunchHeaderOffset, a LoomLaunchHeader; the kernel's
// preamble keeps its address in registers for the hooks.
//
// A tool's channel is a LoomChannelRing in memory both sides see
// (fine-grained on ROCm): producers (hooks, many waves at once) claim
// slots by an atomic add on Claimed, write the record, then publish it by
// storing claim + 1 into its slot of Sequence; the host consumes records
// in claim order while Sequence says they are published, and releases
// them by advancing Consumed. A lossless ring makes a producer wait while
// the ring is full; a lossy one counts the records it drops instead. The
// host also releases each record's slot on its own, in Free (a record
// published after one still being written is read, and its slot reused,
// without waiting for the other): the slot of claim C may take claim C
// once Free's word for it holds C (a slot's word starts as its index).
// Producers of whole-wave records wait on their slot's Free word; Consumed
// (every claim before it released) is what per-lane producers wait on. A
// ring of wave chunks (LoomWaveChunk) publishes by each record's End word
// instead of Sequence.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_INSTRUMENT_LAUNCHHEADER_H
#define LOOM_INSTRUMENT_LAUNCHHEADER_H

#include <stdint.h>

/// Tools whose hooks one instrumented copy may carry.
#define LOOM_LAUNCH_MAX_TOOLS 8

/// One tool's per-launch values, as device addresses (0: none).
struct LoomToolLaunch {
  uint64_t Channel; ///< a LoomChannelRing
  uint64_t Data;    ///< the bytes the tool set for this dispatch
};

struct LoomLaunchHeader {
  uint64_t DispatchId; ///< Dispatch::Index on the host
  uint32_t GridSize[3];
  uint16_t WorkgroupSize[3];
  uint16_t ToolCount;
  uint32_t Reserved;
  /// By tool slot: the order of the tools' hook libraries in the copy.
  struct LoomToolLaunch Tools[LOOM_LAUNCH_MAX_TOOLS];
};

struct LoomChannelRing {
  uint64_t Claimed;  ///< records claimed by producers, ever
  uint64_t Consumed; ///< records released by the host, ever
  uint64_t Dropped;  ///< records a lossy ring dropped
  uint32_t Capacity; ///< records, a power of two
  uint32_t RecordBytes;
  uint32_t Lossy;
  /// A ring of wave chunks: claims below it find their slot ready (the
  /// host zeroed its End word, Free[I] is I) with no look at Free; a
  /// slot's first claim past it readies the slot itself (End 0, then
  /// Free[I] = I), so that a new ring's memory is touched as it is used.
  uint32_t Ready;
  uint64_t Sequence; ///< Capacity uint64_t: claim + 1 once published
  uint64_t Records;  ///< Capacity * RecordBytes bytes
  uint64_t Free;     ///< Capacity uint64_t: the claim each slot may take
};

/// The start of a wave's chunk of a channel (loom::channelAppendWave) of
/// ChannelOptions::WaveChunks: a ring record the wave fills with records
/// of its own. Such a ring has no use for its Sequence words: a chunk is
/// published by its End word, which is 0 from its claim (the host zeroes
/// it as it releases the slot) until the wave's last store to it.
struct LoomWaveChunk {
  /// The low 32 bits of the cursor after the last record, written at the
  /// publication: End & (RecordBytes - 1) is the bytes of the chunk in use
  /// (a cursor never reaches its chunk's end, nor has a low word of 0).
  uint32_t End;
  uint32_t Reserved[7];
};

/// The AQL kernel dispatch packet as the HSA runtime lays it out
/// (hsa_kernel_dispatch_packet_t in hsa.h), for hooks, which include no
/// HSA header: what loom::dispatchPacket() points at.
struct LoomDispatchPacket {
  uint16_t Header;
  uint16_t Setup; ///< bits 0-1: the grid's dimensions
  uint16_t WorkgroupSize[3];
  uint16_t Reserved0;
  uint32_t GridSize[3];
  uint32_t PrivateSegmentSize;
  uint32_t GroupSegmentSize;
  uint64_t KernelObject;
  uint64_t KernargAddress;
  uint64_t Reserved2;
  uint64_t CompletionSignal;
};

#ifdef __cplusplus
static_assert(sizeof(LoomDispatchPacket) == 64, "an AQL packet is 64 bytes");
static_assert(sizeof(LoomWaveChunk) == 32, "shared with device code");
static_assert(sizeof(LoomLaunchHeader) == 32 + 16 * LOOM_LAUNCH_MAX_TOOLS,
              "the launch header's layout is shared with device code");
static_assert(sizeof(LoomChannelRing) == 64,
              "the ring's layout is shared with device code");
#endif

#endif // LOOM_INSTRUMENT_LAUNCHHEADER_H
