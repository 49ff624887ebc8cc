//===- loom/emu/Counters.h - Ground truth of what a dispatch ran ----------===//
//
// Counted per executed wave-instruction, exactly: instrumentation tools are
// checked against these numbers.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_EMU_COUNTERS_H
#define LOOM_EMU_COUNTERS_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace loom::emu {

/// One executed instruction address, with everything counted there.
struct InstructionCount {
  std::string Code;     ///< code object name
  std::string Function; ///< kernel or device function
  uint64_t Offset = 0;  ///< from the function's start
  uint64_t Pc = 0;
  std::string Opcode;   ///< operation: MC name without encoding suffix ("V_ADD_F32")
  uint64_t WaveExecutions = 0;
  uint64_t ActiveLanes = 0; ///< popcount(EXEC) summed, vector instructions only
  uint64_t MemoryBytes = 0; ///< bytes read or written by active lanes
  bool IsMemory = false;
  bool StartsBlock = false; ///< first instruction of a basic block
};

/// One memory access of one wave-instruction (RecordMemoryAccesses).
struct MemoryAccessRecord {
  uint64_t Pc = 0;
  uint64_t WaveId = 0;
  uint64_t ExecMask = 0;
  uint32_t BytesPerLane = 0;
  bool IsWrite = false;
  bool IsAtomic = false;
  uint8_t Space = 0; ///< 0 global/flat-global, 1 LDS, 2 scratch, 3 scalar
  std::vector<uint64_t> Addresses; ///< per active lane, in lane order
};

struct DispatchCounters {
  uint64_t WaveInstructions = 0;
  uint64_t ActiveLaneInstructions = 0; ///< popcount(EXEC) summed over vector instructions
  uint64_t MemoryInstructions = 0;
  uint64_t MemoryBytes = 0;
  uint64_t Waves = 0;
  uint64_t Workgroups = 0;
  /// Per executed instruction address (only those executed at least once).
  std::vector<InstructionCount> Instructions;
  std::vector<MemoryAccessRecord> Accesses;

  /// Wave-instructions per opcode base name.
  std::map<std::string, uint64_t> byOpcode() const;
  /// Entries per basic block, keyed "function+0xoffset".
  std::map<std::string, uint64_t> blockEntries() const;
};

} // namespace loom::emu

#endif // LOOM_EMU_COUNTERS_H
