//===- tools/mem_trace/MemTraceRecord.h - What mem_trace's hooks send -----===//
//
// One channel record per wave and point (loom::channelPushWave): a header
// from the scalar unit, then, for each of the point's memory instructions
// (up to four, in program order), each active lane's address at its lane
// index. Shared by the hooks (device) and the tool (host).
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TOOLS_MEMTRACE_MEMTRACERECORD_H
#define LOOM_TOOLS_MEMTRACE_MEMTRACERECORD_H

#include <stdint.h>

/// Memory instructions one point reports, at most.
#define MEM_TRACE_GROUP 4

struct MemTraceHeader {
  uint32_t Site;     ///< the first instruction's, in the tool's site table;
                     ///< the others' follow
  uint32_t Count;    ///< instructions in this record
  uint32_t WorkItem; ///< lane 0's work-item id (loom::waveWorkItem)
  uint32_t Group[3]; ///< the work-group's id
  uint64_t Exec;     ///< EXEC at the point
  /// Each instruction's first active lane's address: a scalar access's,
  /// whose lanes are not stored (and which the record carries even when
  /// EXEC is empty).
  uint64_t First[MEM_TRACE_GROUP];
};

struct MemTraceRecord {
  MemTraceHeader Header;
  /// By instruction and lane; only EXEC's lanes of vector accesses are
  /// written.
  uint64_t Address[MEM_TRACE_GROUP][64];
};

static_assert(sizeof(MemTraceHeader) == 64, "shared with device code");
static_assert(sizeof(MemTraceRecord) == 64 + MEM_TRACE_GROUP * 64 * 8,
              "shared with device code");

#endif // LOOM_TOOLS_MEMTRACE_MEMTRACERECORD_H
