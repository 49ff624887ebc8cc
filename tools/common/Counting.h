//===- tools/common/Counting.h - Executed instructions and blocks ---------===//
//
// The counting engine of instr_count, opcode_hist and bb_count. Each
// instrumented kernel gets counter slots in the device array LoomCounts
// (CountHooks.hip); the hook loom_count adds, per wave reaching it, 1 and
// EXEC's active lanes to its slot. Two ways to place the hooks:
//
//   Instruction  a slot and a hook before every instruction;
//   Block        a slot and a hook per run of instructions EXEC stays the
//                same over: at every block's entry, and before the
//                instruction after each instruction that writes EXEC
//                (v_cmpx, s_and_saveexec, s_mov_b64 exec, ...) in the
//                same block. Every instruction of a run executes once per
//                wave entering it, under the same EXEC, so the run's
//                (waves, lanes) count each of its instructions exactly as a
//                hook before it would.
//
// After a dispatch, the kernel's slots are read and zeroed, and turned into
// counts per instruction, per opcode (the names `loom exec --counters`
// uses) and per block entry.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TOOLS_COMMON_COUNTING_H
#define LOOM_TOOLS_COMMON_COUNTING_H

#include "CountSlots.h"
#include "ToolOptions.h"

#include "loom/instrument/Tool.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace loom::tools {

enum class CountMode {
  Instruction, ///< a hook before every instruction
  Block,       ///< a hook per block and after each EXEC write in it
  BlockEntry,  ///< a hook per block: block entries only (no lane counts)
};

/// (wave-instructions, lane-instructions).
using WavesLanes = std::pair<uint64_t, uint64_t>;

/// What one dispatch of an instrumented kernel ran.
struct DispatchCounts {
  uint64_t WaveInstructions = 0;
  uint64_t LaneInstructions = 0;
  std::map<std::string, WavesLanes> Opcodes;
  /// Every block of the kernel and its callees ("function+0xoffset"), with
  /// the waves that entered it (0 for blocks never entered).
  std::map<std::string, uint64_t> Blocks;
};

class Counter {
public:
  Counter() : Slots("LoomCounts", LOOM_COUNT_SLOTS, 2) {}

  /// The choice for dispatch \p D: instrumented if \p O wants it and no
  /// other dispatch of its kernel is running (on another queue): the two
  /// would add into the same slots. Then the original code runs, and a
  /// line of \p Tool's says so; the counts stay exact.
  instrument::DispatchChoice choose(const ToolOptions &O,
                                    const instrument::Dispatch &D,
                                    llvm::StringRef Tool) {
    if (!O.wants(D))
      return instrument::DispatchChoice::original();
    std::lock_guard<std::mutex> L(RunningLock);
    auto [It, New] = Running.try_emplace(D.KernelObject, D.Index);
    if (New)
      return instrument::DispatchChoice::instrumented();
    llvm::errs() << Tool << ": dispatch " << D.Index << " " << D.Kernel
                 << " runs while dispatch " << It->second
                 << " of the same kernel does: not counted (running the "
                    "original code)\n";
    return instrument::DispatchChoice::original();
  }
  /// Ends what choose() started for \p D (take() does it too).
  void release(const instrument::Dispatch &D) {
    std::lock_guard<std::mutex> L(RunningLock);
    auto It = Running.find(D.KernelObject);
    if (It != Running.end() && It->second == D.Index)
      Running.erase(It);
  }

  /// Adds the hooks to \p K.
  llvm::Error instrument(instrument::KernelInstrumentation &K, CountMode M) {
    using namespace instrument;
    Kernel Plan;
    std::vector<std::pair<const BinaryFunction *, const BinaryInstruction *>>
        Points;
    const isa::McContext &MC = K.context().mc();
    // Block mode asks only for what it needs: every run of a block runs as
    // many times as the block's entry, so only the first run counts waves,
    // and only runs with vector instructions count lanes (a run of scalar
    // instructions after an EXEC write, such as s_cbranch_execz, needs no
    // hook at all).
    std::vector<bool> CountsVector; // per slot: has vector instructions
    for (BinaryFunction *F : K.functions())
      for (const BinaryBasicBlock &B : F->blocks()) {
        size_t BlockSlot = Plan.Slots.size();
        Plan.Blocks.push_back({blockName(*F, B), BlockSlot});
        for (size_t I = 0; I < B.Instructions.size(); ++I) {
          const BinaryInstruction &Inst = B.Instructions[I];
          bool Starts = M == CountMode::Instruction || I == 0 ||
                        (M == CountMode::Block &&
                         B.Instructions[I - 1].Props.writesExec());
          if (Starts) {
            Plan.WavesOf.push_back(
                M == CountMode::Instruction ? Plan.Slots.size() : BlockSlot);
            Plan.Slots.emplace_back();
            Points.push_back({F, &Inst});
            CountsVector.push_back(false);
          }
          Plan.Slots.back().push_back(Plan.Instructions.size());
          Plan.Instructions.push_back(
              {operationName(MC, Inst.Inst.getOpcode()), Inst.Props.IsVector});
          if (Inst.Props.IsVector)
            CountsVector.back() = true;
        }
      }
    llvm::Expected<uint64_t> Base =
        Slots.allocate(K.kernel().name(), Plan.Slots.size());
    if (!Base)
      return Base.takeError();
    Plan.Base = *Base;
    for (size_t S = 0; S < Points.size(); ++S) {
      bool Waves = Plan.WavesOf[S] == S;
      bool Lanes = M != CountMode::BlockEntry && CountsVector[S];
      const char *Hook = M == CountMode::Instruction || (Waves && Lanes)
                             ? "loom_count"
                         : Waves ? "loom_count_waves"
                         : Lanes ? "loom_count_lanes"
                                 : nullptr;
      if (!Hook)
        continue;
      auto [F, Inst] = Points[S];
      std::vector<HookArg> Args{
          HookArg::constant(uint32_t((Plan.Base + S) * 16))};
      const BinaryBasicBlock &B = F->blocks()[*F->blockContaining(
          Inst->address())];
      llvm::Error E = Inst->address() == B.Address && M != CountMode::Instruction
                          ? K.plan().atBlockEntry(*F, B, Hook, Args)
                          : K.plan().before(*F, *Inst, Hook, Args);
      if (E)
        return E;
    }
    // By kernel object: the corpus has a kernel of one name in a code
    // object per optimisation level, each with its own slots.
    Kernels[K.kernelObject()] = std::move(Plan);
    return llvm::Error::success();
  }

  /// The counts of dispatch \p D (an instrumented one), read from the
  /// device and zeroed there.
  llvm::Expected<DispatchCounts> take(instrument::ToolContext &Ctx,
                                      const instrument::Dispatch &D) {
    auto It = Kernels.find(D.KernelObject);
    if (It == Kernels.end()) {
      release(D);
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "%s was not instrumented by this tool",
                                     D.Kernel.c_str());
    }
    const Kernel &Plan = It->second;
    std::vector<uint64_t> Raw;
    llvm::Error E = Slots.take(Ctx, D.Agent, Plan.Base, Plan.Slots.size(), Raw);
    release(D);
    if (E)
      return std::move(E);
    DispatchCounts C;
    for (size_t S = 0; S < Plan.Slots.size(); ++S) {
      uint64_t Waves = Raw[2 * Plan.WavesOf[S]], Lanes = Raw[2 * S + 1];
      if (!Waves) // as the counters, only what ran
        continue;
      for (uint32_t I : Plan.Slots[S]) {
        const auto &[Name, Vector] = Plan.Instructions[I];
        WavesLanes &O = C.Opcodes[Name];
        O.first += Waves;
        C.WaveInstructions += Waves;
        if (Vector) {
          O.second += Lanes;
          C.LaneInstructions += Lanes;
        }
      }
    }
    for (const auto &[Name, Slot] : Plan.Blocks)
      C.Blocks[Name] += Raw[2 * Slot];
    return C;
  }

private:
  struct Kernel {
    uint64_t Base = 0;
    /// Per slot: the instructions it counts (indices into Instructions).
    std::vector<std::vector<uint32_t>> Slots;
    /// Per slot: the slot that counts its waves (its block's first).
    std::vector<size_t> WavesOf;
    /// (opcode, whether it counts lanes).
    std::vector<std::pair<std::string, bool>> Instructions;
    /// Every block, with the slot counting its entries.
    std::vector<std::pair<std::string, size_t>> Blocks;
  };
  SlotAllocator Slots;
  /// Kernel object -> the dispatch of it being counted.
  std::mutex RunningLock;
  std::map<uint64_t, uint64_t> Running;
  std::map<uint64_t, Kernel> Kernels;
};

/// mode=instruction|block, \p Default if not given.
inline llvm::Expected<CountMode> parseMode(instrument::ToolContext &Ctx,
                                           CountMode Default) {
  auto M = Ctx.option("mode");
  if (!M)
    return Default;
  if (*M == "instruction")
    return CountMode::Instruction;
  if (*M == "block")
    return CountMode::Block;
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "mode=%s: expected instruction or block",
                                 M->c_str());
}
inline const char *modeName(CountMode M) {
  return M == CountMode::Instruction ? "instruction"
         : M == CountMode::Block     ? "block"
                                     : "block-entry";
}

/// Writes \p C's opcodes as a JSON object {"OP": [waves, lanes], ...}.
inline void writeOpcodesJson(llvm::raw_ostream &OS,
                             const std::map<std::string, WavesLanes> &Ops) {
  OS << "{";
  bool First = true;
  for (const auto &[Name, N] : Ops) {
    OS << (First ? "" : ",") << "\"" << Name << "\":[" << N.first << ","
       << N.second << "]";
    First = false;
  }
  OS << "}";
}

/// What instr_count, opcode_hist and bb_count share: their options, the
/// counting mode, the dispatch choice (Counter::choose), the hooks, and
/// each counted dispatch's counts taken once it completes. A tool says
/// what it does with a dispatch's counts (counted) and at the end (fini).
class CountingTool : public instrument::Tool {
public:
  llvm::Error init(instrument::ToolContext &Ctx) override {
    llvm::Expected<ToolOptions> O = ToolOptions::parse(Ctx, Name);
    if (!O)
      return O.takeError();
    Options = std::move(*O);
    if (ModeOption) {
      llvm::Expected<CountMode> M = parseMode(Ctx, Mode);
      if (!M)
        return M.takeError();
      Mode = *M;
    }
    return llvm::Error::success();
  }

  instrument::DispatchChoice dispatch(instrument::ToolContext &,
                                      const instrument::Dispatch &D) override {
    return Counts.choose(Options, D, Name);
  }

  llvm::Error instrument(instrument::ToolContext &,
                         instrument::KernelInstrumentation &K) override {
    return Counts.instrument(K, Mode);
  }

  void dispatchComplete(instrument::ToolContext &Ctx,
                        const instrument::Dispatch &D) override {
    if (!D.Instrumented) {
      Counts.release(D);
      return;
    }
    llvm::Expected<DispatchCounts> C = Counts.take(Ctx, D);
    if (!C) {
      llvm::errs() << Name << ": " << llvm::toString(C.takeError()) << "\n";
      return;
    }
    counted(D, *C);
  }

protected:
  /// \p Name begins the tool's lines; mode=instruction|block picks the
  /// mode if \p ModeOption, \p Mode otherwise (and by default).
  CountingTool(const char *Name, CountMode Mode, bool ModeOption)
      : Name(Name), Mode(Mode), ModeOption(ModeOption) {}

  /// The counts of dispatch \p D, one the tool chose to count.
  virtual void counted(const instrument::Dispatch &D,
                       const DispatchCounts &C) = 0;

  const char *const Name;
  ToolOptions Options;
  CountMode Mode;

private:
  const bool ModeOption;
  Counter Counts;
};

} // namespace loom::tools

#endif // LOOM_TOOLS_COMMON_COUNTING_H
