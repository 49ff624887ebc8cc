//===- loom/instrument/BinaryFunction.h - A lifted kernel or function -----===//
//
// BOLT's shape: a function moves through explicit states, and each pass says
// which state it needs.
//
//   Disassembled  its instructions, in address order (MCInst plus what the
//                 disassembler found: flow, resolved targets)
//   CFGBuilt      the instructions moved into basic blocks with
//                 predecessors and successors; calls entered in the
//                 BinaryContext's call graph
//   Instrumented  code has been inserted (later work)
//   Emitted       re-encoded into a new code object (later work)
//
// A function Loom cannot lift soundly (bytes that decode to nothing, an
// indirect branch whose target is unknown, control that leaves the function
// other than by a call, return or tail call) still gets blocks, but is marked
// not instrumentable with the reason, and must run uninstrumented.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_INSTRUMENT_BINARYFUNCTION_H
#define LOOM_INSTRUMENT_BINARYFUNCTION_H

#include "loom/instrument/InstrProperties.h"
#include "loom/isa/Disassembler.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/MC/MCInst.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace loom::instrument {

class BinaryContext;

enum class FunctionState : uint8_t { Disassembled, CFGBuilt, Instrumented, Emitted };
llvm::StringRef functionStateName(FunctionState S);

struct BinaryInstruction {
  llvm::MCInst Inst;
  /// Address, bytes, text, flow and resolved target, as the disassembler
  /// found them.
  isa::Instruction Info;
  InstrProperties Props;

  uint64_t address() const { return Info.Address; }
  uint64_t size() const { return Info.size(); }
};

struct BinaryBasicBlock {
  uint64_t Address = 0;
  uint64_t EndAddress = 0;
  std::vector<BinaryInstruction> Instructions;
  /// Block indices within the function.
  llvm::SmallVector<unsigned, 2> Successors;
  llvm::SmallVector<unsigned, 2> Predecessors;

  const BinaryInstruction &last() const { return Instructions.back(); }
};

class BinaryFunction {
public:
  BinaryFunction(BinaryContext &BC, std::string Name, isa::FunctionKind Kind,
                 uint64_t Address, uint64_t Size);

  llvm::StringRef name() const { return Name; }
  isa::FunctionKind kind() const { return Kind; }
  bool isKernel() const { return Kind == isa::FunctionKind::Kernel; }
  uint64_t address() const { return Address; }
  uint64_t size() const { return Size; }
  BinaryContext &context() const { return BC; }
  /// True if other code objects may call it: a global or weak symbol of
  /// default or protected visibility.
  bool isExported() const { return Exported; }

  FunctionState state() const { return State; }
  /// Fails, naming the function and both states, unless the function is in
  /// state \p S: how a pass checks what it needs.
  llvm::Error requireState(FunctionState S) const;

  bool isInstrumentable() const { return Reason.empty(); }
  /// Why the function cannot be instrumented; empty if it can.
  llvm::StringRef notInstrumentableReason() const { return Reason; }

  /// Disassembled: the instructions in address order. Empty once the CFG is
  /// built (they then live in the blocks).
  llvm::ArrayRef<BinaryInstruction> instructions() const { return Insts; }
  /// CFGBuilt or later: the blocks, in address order; block 0 is the entry.
  llvm::ArrayRef<BinaryBasicBlock> blocks() const { return Blocks; }
  size_t numInstructions() const;

  /// Index of the block starting at \p Addr / containing \p Addr.
  std::optional<unsigned> blockStartingAt(uint64_t Addr) const;
  std::optional<unsigned> blockContaining(uint64_t Addr) const;
  /// The instruction starting at \p Addr, in whichever state.
  const BinaryInstruction *instructionAt(uint64_t Addr) const;

  /// Disassembled -> CFGBuilt: splits the instructions into basic blocks
  /// (isa::buildBasicBlocks, the same leaders `loom disasm` and the
  /// emulator's block counters use) and finds what makes the function not
  /// instrumentable.
  llvm::Error buildCFG();

  /// CFGBuilt -> Instrumented and Instrumented -> Emitted, for the passes
  /// that insert and emit code. Fail on a function that is not
  /// instrumentable or not in the state before.
  llvm::Error markInstrumented();
  llvm::Error markEmitted();

private:
  friend class BinaryContext;
  void markNotInstrumentable(std::string Why);
  /// Fixes the properties of instructions between s_set_gpr_idx_on and
  /// s_set_gpr_idx_off, which index their registers by M0.
  void applyGprIndexModes();

  BinaryContext &BC;
  std::string Name;
  isa::FunctionKind Kind;
  uint64_t Address;
  uint64_t Size;
  FunctionState State = FunctionState::Disassembled;
  std::string Reason;
  bool Exported = false;
  std::vector<BinaryInstruction> Insts;
  std::vector<BinaryBasicBlock> Blocks;
};

} // namespace loom::instrument

#endif // LOOM_INSTRUMENT_BINARYFUNCTION_H
