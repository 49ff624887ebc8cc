//===- tools/mem_trace/MemTraceRecord.h - What mem_trace's hooks send -----===//
//
// Each wave appends its records to a chunk of its own (loom::
// channelAppendWave, a channel record of MEM_TRACE_CHUNK bytes), which
// starts with the wave's identity (MemTraceWave). A record per point: a
// header from the scalar unit, then, for each of the point's vector memory
// instructions (up to four, in program order), each active lane's address
// at its lane index; a scalar instruction's one address after the header.
// Shared by the hooks (device) and the tool (host).
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TOOLS_MEMTRACE_MEMTRACERECORD_H
#define LOOM_TOOLS_MEMTRACE_MEMTRACERECORD_H

#include <stdint.h>

/// Memory instructions one point reports, at most: of mixed kinds, and
/// of one kind (vector accesses of one address width).
#define MEM_TRACE_GROUP 4
#define MEM_TRACE_GROUP_SAME 8
/// Bytes of a wave's chunk (the channel's records): room for 31 records of
/// four vector instructions, hundreds of smaller ones.
#define MEM_TRACE_CHUNK 16384u

/// After each chunk's LoomWaveChunk: whose records follow.
struct MemTraceWave {
  uint32_t Group[3]; ///< the work-group's id
  uint32_t WorkItem; ///< lane 0's work-item id (loom::waveWorkItem)
};

/// A record's header; then, if the record has scalar instructions, their
/// one address each, in order, padded to an even count (16-byte stores);
/// then 64 lanes' addresses per vector instruction.
struct MemTraceHeader {
  uint32_t Site;    ///< the first instruction's, in the tool's site table;
                    ///< the others' follow (the site says how many)
  uint32_t Exec[2]; ///< EXEC at the point (low, high)
};

static_assert(sizeof(MemTraceWave) == 16, "shared with device code");
static_assert(sizeof(MemTraceHeader) == 12, "shared with device code");

#endif // LOOM_TOOLS_MEMTRACE_MEMTRACERECORD_H
