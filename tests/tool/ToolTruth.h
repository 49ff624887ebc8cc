//===- tests/tool/ToolTruth.h - Shipped tools against the ground truth ----===//
//
// What ToolsTest.cpp (HIP programs) and ToolCorpusTest.cpp (the emulator's
// differential corpus) share: a program's dispatches as the virtual GPU
// counted them uninstrumented (`loom exec --counters`), the program run
// under `loom instrument` with a shipped tool, and the comparisons of each
// tool's output with that truth.
//
// A program is a command line (program and arguments) plus environment
// entries ("NAME=VALUE") for it.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TESTS_TOOL_TOOLTRUTH_H
#define LOOM_TESTS_TOOL_TOOLTRUTH_H

#include "../support/JsonLines.h"
#include "../support/RunCommand.h"
#include "MemoryTraceCompare.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace loom::test {

using WavesLanes = std::pair<uint64_t, uint64_t>;

struct Program {
  std::vector<std::string> Command;
  std::vector<std::string> Env;
  Program(std::string Path) : Command{std::move(Path)} {}
  Program(const char *Path) : Command{Path} {}
  Program(std::vector<std::string> Command, std::vector<std::string> Env = {})
      : Command(std::move(Command)), Env(std::move(Env)) {}
};

/// One dispatch as the virtual GPU counted it.
struct DispatchTruth {
  std::string Kernel;
  std::vector<int64_t> Grid, Workgroup;
  uint64_t Waves = 0, Lanes = 0;
  std::map<std::string, WavesLanes> Opcodes;
  std::map<std::string, uint64_t> Blocks;
};

/// The "opcodes" object of a counters or instr_count line.
std::map<std::string, WavesLanes> opcodes(const llvm::json::Object &O);
/// An [x, y, z] array.
std::vector<int64_t> triple(const llvm::json::Object &O, llvm::StringRef Key);
/// kernel_args on \p P: every dispatch read on the device, its kernel,
/// grid, work-group and grid in work-groups those of \p Truth.
void expectKernelArgsEqualTruth(const Program &P,
                                const std::vector<DispatchTruth> &Truth);
/// bb_count's listing (disasm=\p Path): every label has a count or "never
/// entered", and summed per kernel (over the code objects listed) the
/// counts are \p Want's (kernel -> block -> entries).
void expectListingEqualsTruth(
    llvm::StringRef Path,
    const std::map<std::string, std::map<std::string, uint64_t>> &Want);
/// The grid in work-groups of \p D: its sizes rounded up.
std::vector<int64_t> blocksOf(const DispatchTruth &D);
/// A fresh temporary file's path.
std::string tempPath(llvm::StringRef Name);
/// Lines of \p Text that start with \p Prefix.
std::vector<std::string> linesStarting(llvm::StringRef Text,
                                       llvm::StringRef Prefix);

/// \p P's dispatches, as the virtual GPU counted them with no tool.
std::vector<DispatchTruth> groundTruth(const Program &P);

/// \p P under `loom instrument` with \p Options (--tool, --tool-arg, ...).
CommandResult instrument(const Program &P, std::vector<std::string> Options);

/// instr_count's JSON lines for \p P in \p Mode; the run must succeed with
/// no tool runtime message.
std::vector<llvm::json::Value> instrCount(const Program &P,
                                          llvm::StringRef Mode,
                                          std::vector<std::string> More = {});

/// instr_count's lines against \p Truth, dispatch by dispatch (\p Every:
/// one line per dispatch of the truth).
void expectInstrCountsEqualTruth(const std::vector<llvm::json::Value> &Counts,
                                 const std::vector<DispatchTruth> &Truth,
                                 bool Every = true);

/// opcode_hist's CSV (in \p Path) against the truth's opcodes summed per
/// kernel.
void expectOpcodeHistEqualsTruth(llvm::StringRef Path,
                                 const std::vector<DispatchTruth> &Truth);

/// bb_count run on \p P: its JSON's blocks against the truth's block
/// entries summed per kernel.
void expectBlocksEqualTruth(const Program &P,
                            const std::vector<DispatchTruth> &Truth);

/// \p P run uninstrumented, with the virtual GPU's record of its memory
/// accesses (`loom exec --memory-trace`, named through its --counters).
struct MemoryTruth {
  CommandResult Run;
  std::vector<MemoryAccess> Accesses;
};
MemoryTruth memoryTruth(const Program &P);

/// \p P under mem_trace with \p More options, its trace read back through
/// `loom trace show --json`; with \p Keep the trace file stays, for the
/// caller to read and remove.
struct Traced {
  CommandResult Run;
  std::string File;
  std::vector<MemoryAccess> Accesses;
};
Traced memTrace(const Program &P, std::vector<std::string> More = {},
                bool Keep = false);

/// mem_trace's trace of \p P equals the truth: the program succeeds with
/// the same output (if \p SameOutput: the corpus prints its times), no
/// tool runtime message, every wave's accesses the truth's
/// (compareMemoryTraces). \p LaunchLog, if given, is the environment
/// variable through which \p P logs its launches (emu_diff_hsa's
/// LOOM_DIFF_LAUNCH_LOG): global addresses are then compared by their
/// offset in the buffers the arguments give. \p More: further
/// `loom instrument` arguments (mem_trace's options).
void expectMemTraceIsTheTruth(const Program &P, bool SameOutput = true,
                              llvm::StringRef LaunchLog = "",
                              std::vector<std::string> More = {});

} // namespace loom::test

#endif // LOOM_TESTS_TOOL_TOOLTRUTH_H
