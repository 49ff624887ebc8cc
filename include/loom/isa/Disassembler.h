//===- loom/isa/Disassembler.h - Functions of a code object, decoded ------===//
//
// Disassembles a kernel or device function of a code object into
// instructions (bytes, MC opcode, the text llvm-objdump prints), control-flow
// facts and basic blocks. Branch and call targets are resolved where the code
// says where it goes: PC-relative branch immediates, s_getpc_b64 +
// s_add_u32/s_addc_u32 address arithmetic, and loads from GOT entries whose
// dynamic relocation names the callee.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_ISA_DISASSEMBLER_H
#define LOOM_ISA_DISASSEMBLER_H

#include "loom/codeobj/CodeObject.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace llvm {
class MCInst;
class MCOperand;
} // namespace llvm

namespace loom::isa {

class McContext;

/// How an instruction passes control on.
enum class ControlFlow : uint8_t {
  None,           ///< Falls through to the next instruction.
  Branch,         ///< Always jumps (s_branch; s_setpc_b64 to a known address
                  ///< in the same function).
  CondBranch,     ///< Jumps or falls through (s_cbranch_*).
  IndirectBranch, ///< Jumps to an address not known statically (in a
                  ///< kernel; a device function's is a TailCall).
  Call,           ///< Calls and comes back to the next instruction
                  ///< (s_swappc_b64, s_call_b64).
  TailCall,       ///< Jumps to another function's entry (s_setpc_b64),
                  ///< or, in a device function, through a pointer.
  Return,         ///< Returns to the caller (s_setpc_b64 s[30:31] in a
                  ///< device function).
  EndProgram,     ///< Ends the wave (s_endpgm).
};

llvm::StringRef controlFlowName(ControlFlow F);

/// True if nothing falls through to the next instruction.
bool isBarrier(ControlFlow F);
/// True if an instruction of flow \p F ends a basic block.
bool endsBlock(ControlFlow F);

/// How a branch or call target was found.
enum class TargetSource : uint8_t {
  None,       ///< Not known.
  Immediate,  ///< The instruction's PC-relative immediate.
  PcRelative, ///< s_getpc_b64 plus s_add_u32/s_addc_u32 of constants.
  Constant,   ///< A register pair holding constants not derived from the PC.
  Got,        ///< A 64-bit load from a GOT entry (its dynamic relocation, or
              ///< else its link-time contents, gives the target).
};

llvm::StringRef targetSourceName(TargetSource S);

/// The register operand an s_setpc_b64 / s_swappc_b64 jumps through (its
/// last register operand); null if none.
const llvm::MCOperand *targetRegOperand(const llvm::MCInst &Inst);

/// How an instruction passes control on, from MC's instruction flags
/// alone, and its PC-relative target if it has one: what the Disassembler
/// starts from. A register target (s_setpc_b64, s_swappc_b64) is left
/// unresolved (IndirectBranch, Call); the Disassembler resolves it from
/// what the function computed before.
struct FlowInfo {
  ControlFlow Flow = ControlFlow::None;
  std::optional<uint64_t> Target;
};
FlowInfo classifyFlow(McContext &MC, const llvm::MCInst &Inst,
                      uint64_t Address, uint64_t Size);

struct Instruction {
  uint64_t Address = 0;
  /// The encoding; its size is the instruction's size.
  llvm::SmallVector<uint8_t, 8> Bytes;
  /// False for bytes that decode to no instruction. Text is then a data
  /// directive (".long 0x..." or ".byte 0x.., ..."), as llvm-objdump prints.
  bool Valid = false;
  unsigned Opcode = 0;
  /// MC opcode name ("S_CBRANCH_SCC1_vi"); empty if !Valid.
  std::string OpcodeName;
  /// Instruction text exactly as llvm-objdump-22 prints it by default,
  /// without leading tab, padding or trailing comment.
  std::string Text;

  ControlFlow Flow = ControlFlow::None;
  TargetSource Source = TargetSource::None;
  /// Address of the branch or call target, when known. A call through the
  /// GOT to a symbol defined elsewhere has TargetName but no Target.
  std::optional<uint64_t> Target;
  /// The target symbolized: "helper", "loop_kernel+0x54", or the symbol a
  /// GOT entry's relocation names. Empty if nothing is known.
  std::string TargetName;

  /// On the s_addc_u32 that completes an s_getpc_b64-relative address (of a
  /// global variable, say): the address. Also set on s_load_dwordx2 from a
  /// GOT entry, to the entry's address.
  std::optional<uint64_t> ComputedAddress;

  uint64_t size() const { return Bytes.size(); }
  uint64_t endAddress() const { return Address + Bytes.size(); }
  /// True if nothing falls through to the next instruction.
  bool isBarrier() const;
  /// True if the instruction ends a basic block.
  bool endsBlock() const;
};

struct BasicBlock {
  uint64_t Address = 0;
  uint64_t EndAddress = 0;
  /// Instructions [FirstInstruction, FirstInstruction + NumInstructions) of
  /// the function.
  size_t FirstInstruction = 0;
  size_t NumInstructions = 0;
  /// Block indices within the function. Branch targets outside the function
  /// and unknown targets are not successors.
  llvm::SmallVector<size_t, 2> Successors;
  llvm::SmallVector<size_t, 2> Predecessors;
};

enum class FunctionKind : uint8_t { Kernel, Function };

llvm::StringRef functionKindName(FunctionKind K);

struct DisassembledFunction {
  std::string Name;
  FunctionKind Kind = FunctionKind::Function;
  uint64_t Address = 0;
  uint64_t Size = 0;
  std::vector<Instruction> Instructions;
  std::vector<BasicBlock> Blocks;

  /// Index of the block that starts at \p Address.
  std::optional<size_t> blockStartingAt(uint64_t Address) const;
  /// Index of the instruction that starts at \p Address.
  std::optional<size_t> instructionAt(uint64_t Address) const;
};

/// Decodes \p Bytes, located at \p Address, into instructions. Undecodable
/// bytes become data entries; decoding goes on after them. Fills Flow and
/// Target for PC-relative branches and calls only.
std::vector<Instruction> decodeInstructions(McContext &MC,
                                            llvm::ArrayRef<uint8_t> Bytes,
                                            uint64_t Address);

/// Splits \p Instructions (one function, in address order) into basic
/// blocks. Leaders: the first instruction, direct branch targets inside the
/// range, and the instruction after one that ends a block.
std::vector<BasicBlock>
buildBasicBlocks(llvm::ArrayRef<Instruction> Instructions);

class Disassembler {
public:
  /// \p MC must be set up for the code object's target. Both must outlive
  /// the Disassembler.
  Disassembler(McContext &MC, const codeobj::CodeObject &CO);

  llvm::Expected<DisassembledFunction> disassemble(const codeobj::Kernel &K);
  llvm::Expected<DisassembledFunction> disassemble(const codeobj::Function &F);
  /// The kernel or device function named \p Name.
  llvm::Expected<DisassembledFunction> disassemble(llvm::StringRef Name);
  /// Disassembles the code at \p Sym's address and size.
  llvm::Expected<DisassembledFunction>
  disassemble(const codeobj::SymbolInfo &Sym, FunctionKind Kind);
  /// Same, also handing back the decoded MCInst of each instruction, in the
  /// order of DisassembledFunction::Instructions (an empty MCInst for bytes
  /// that decode to nothing): what instrument/ lifts from.
  llvm::Expected<DisassembledFunction>
  disassemble(const codeobj::SymbolInfo &Sym, FunctionKind Kind,
              std::vector<llvm::MCInst> &Insts);
  /// Every kernel and device function, in address order.
  llvm::Expected<std::vector<DisassembledFunction>> disassembleAll();
  /// The address inside \p Sym (a function of \p Kind) that the register
  /// jump (s_setpc_b64) ending at \p To goes to, where disassemble finds
  /// one (ControlFlow::Branch), tracking the registers from \p From: Sym's
  /// entry, a direct branch target or the instruction after a call, where
  /// disassemble tracks them afresh, with none of those in between. Decodes
  /// [From, To) only.
  std::optional<uint64_t> registerJumpTarget(const codeobj::SymbolInfo &Sym,
                                             FunctionKind Kind, uint64_t From,
                                             uint64_t To);

  /// From now on, leave Instruction::Text empty (bytes are an instruction
  /// when the decoder says so): for callers that need the control flow
  /// alone, such as the virtual GPU's block analysis of a whole library,
  /// since printing costs about what decoding does.
  void omitText() { WithText = false; }

  /// The symbols of every kernel and device function, in address order
  /// (then by name): what disassembleAll disassembles.
  std::vector<std::pair<const codeobj::SymbolInfo *, FunctionKind>>
  functionSymbols() const;

  /// "name" or "name+0x1c" for an address inside a kernel, device function
  /// or variable of the code object; empty if none holds it.
  std::string symbolize(uint64_t Address) const;

private:
  struct Symbol {
    llvm::StringRef Name;
    uint64_t Address;
    uint64_t Size;
    bool IsCode;
  };

  const Symbol *findSymbol(uint64_t Address, bool CodeOnly) const;

  McContext &MC;
  const codeobj::CodeObject &CO;
  std::vector<Symbol> Symbols; // by address
  uint64_t MaxSymbolSize = 0;
  bool WithText = true;
  unsigned SccReg = 0;
};

} // namespace loom::isa

#endif // LOOM_ISA_DISASSEMBLER_H
