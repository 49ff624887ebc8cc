//===- tools/mem_trace/MemTraceRecord.h - What mem_trace's hooks send -----===//
//
// One channel record per wave-access (loom::channelPushWave): the header,
// from the wave's first active lane, then each active lane's address at
// its lane index. Shared by the hooks (device) and the tool (host).
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TOOLS_MEMTRACE_MEMTRACERECORD_H
#define LOOM_TOOLS_MEMTRACE_MEMTRACERECORD_H

#include <stdint.h>

struct MemTraceHeader {
  uint32_t Site;     ///< the instruction, in the tool's site table
  uint32_t WorkItem; ///< lane 0's work-item id (loom::waveWorkItem)
  uint32_t Group[3]; ///< the work-group's id
  uint32_t Reserved;
  uint64_t Exec;     ///< EXEC before the instruction
  /// The first active lane's address (a scalar access's, which the record
  /// carries even when EXEC is empty and no lane stores).
  uint64_t First;
  uint64_t Reserved2;
};

struct MemTraceRecord {
  MemTraceHeader Header;
  uint64_t Address[64]; ///< by lane; only EXEC's lanes are written
};

static_assert(sizeof(MemTraceHeader) == 48, "shared with device code");
static_assert(sizeof(MemTraceRecord) == 48 + 64 * 8, "shared with device code");

#endif // LOOM_TOOLS_MEMTRACE_MEMTRACERECORD_H
