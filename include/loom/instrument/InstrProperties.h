//===- loom/instrument/InstrProperties.h - What one instruction does ------===//
//
// The facts instrumentation needs about one instruction, all derived from
// LLVM's MC tables (MCInstrDesc operands, implicit uses and defs,
// mayLoad/mayStore, register info) and from MC opcode names, never from a
// hand-written table of opcodes:
//
//  - registers read and written, explicit and implicit, as 32-bit units;
//  - memory: kind from the opcode's family prefix (GLOBAL_, FLAT_, SCRATCH_,
//    DS_, BUFFER_/TBUFFER_, S_LOAD/S_STORE/S_BUFFER/S_ATOMIC...), direction
//    from mayLoad/mayStore (both: an atomic read-modify-write), whether an
//    atomic returns a value from its defs, access size per lane from the
//    size tokens of the name (DWORDX4, UBYTE, B64, X2, ...);
//  - scalar or vector, control flow, s_barrier, s_waitcnt.
//
// SIInstrFlags (the TSFlags bit positions) are not in LLVM's public headers,
// so nothing here reads TSFlags.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_INSTRUMENT_INSTRPROPERTIES_H
#define LOOM_INSTRUMENT_INSTRPROPERTIES_H

#include "loom/instrument/RegisterSet.h"
#include "loom/isa/Disassembler.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace llvm {
class MCInst;
} // namespace llvm

namespace loom::isa {
class McContext;
} // namespace loom::isa

namespace loom::instrument {

enum class MemoryKind : uint8_t {
  None,
  Global,  ///< global_* (and flat_* is Flat: the address decides)
  Flat,    ///< flat_*: global, LDS or scratch depending on the address
  Scratch, ///< scratch_*
  Lds,     ///< ds_*
  Scalar,  ///< s_load_*, s_store_*, s_buffer_*, s_atomic_* (constant cache)
  Buffer,  ///< buffer_*, tbuffer_* (through a buffer resource)
};
llvm::StringRef memoryKindName(MemoryKind K);

enum class MemoryDirection : uint8_t { None, Load, Store, Atomic };
llvm::StringRef memoryDirectionName(MemoryDirection D);

struct InstrProperties {
  /// Every register unit read: explicit source operands, implicit uses
  /// (EXEC for vector instructions, SCC for s_cselect, ...).
  RegisterSet Reads;
  /// Every register unit written, explicit and implicit.
  RegisterSet Writes;
  /// Units of Writes that are never replaced whole, so a write does not end
  /// the previous value's life: v_writelane (one lane), SDWA and DPP forms
  /// (may keep bits or lanes), d16 loads (keep the other half).
  RegisterSet PartialWrites;
  /// A vector instruction: its VGPR/AGPR writes touch only the lanes EXEC
  /// enables (see Liveness for what that means for inactive lanes).
  bool IsVector = false;
  /// Reads vector registers in lanes other than its own active ones
  /// (v_readlane, DPP, permutes, swizzles).
  bool ReadsOtherLanes = false;

  MemoryKind Memory = MemoryKind::None;
  MemoryDirection Direction = MemoryDirection::None;
  bool MayLoad = false;
  bool MayStore = false;
  /// An atomic that writes the old value back to a register (the *_RTN
  /// forms, glc atomics).
  bool AtomicReturns = false;
  /// Bytes of one access per lane (per wave for scalar memory); 0 if the
  /// name gives no size (cache invalidations, for instance).
  unsigned AccessBytes = 0;
  /// Accesses per lane: 2 for ds_read2/ds_write2 (two addresses), else 1.
  unsigned AccessesPerLane = 1;
  /// An LDS DMA load (buffer_load_dword ... lds, global_load_lds_dword):
  /// the load above (Memory, Load) writes what it reads to LDS, each
  /// active lane's AccessBytes at M0 + the instruction's offset + 4 x lane
  /// (instructionOffset), not to VGPRs.
  bool LdsDma = false;

  isa::ControlFlow Flow = isa::ControlFlow::None;
  bool isBranch() const {
    return Flow == isa::ControlFlow::Branch ||
           Flow == isa::ControlFlow::CondBranch ||
           Flow == isa::ControlFlow::IndirectBranch;
  }
  bool isCall() const { return Flow == isa::ControlFlow::Call; }
  bool isReturn() const { return Flow == isa::ControlFlow::Return; }
  bool isEndProgram() const { return Flow == isa::ControlFlow::EndProgram; }
  /// s_barrier: the work-group synchronises here.
  bool IsBarrier = false;
  /// s_waitcnt and its variants (s_waitcnt_vscnt, ...).
  bool IsWaitcnt = false;

  bool isMemory() const { return Memory != MemoryKind::None; }
  bool writesExec() const {
    return Writes.has(SpecialReg::ExecLo) || Writes.has(SpecialReg::ExecHi);
  }
};

/// Computes InstrProperties from the MC tables of one McContext. Building it
/// maps every MC register to its 32-bit units once.
class InstrAnalyzer {
public:
  explicit InstrAnalyzer(isa::McContext &MC);

  /// The units an MC register covers: s[4:7] -> s4..s7, vcc -> vcc_lo and
  /// vcc_hi; none for registers outside the set (TTMPs, src_* constants,
  /// null).
  const RegisterSet &unitsOf(unsigned Reg) const;

  /// \p Flow is what the disassembler found (it also knows the code
  /// object: calls, returns, resolved setpc targets).
  InstrProperties analyze(const llvm::MCInst &Inst,
                          isa::ControlFlow Flow = isa::ControlFlow::None) const;

  isa::McContext &mc() const { return MC; }

private:
  isa::McContext &MC;
  /// By MC register number; built once per target (the MC register
  /// tables are static), shared by every analyzer of it.
  std::shared_ptr<const std::vector<RegisterSet>> Units;
};

/// Adjusts \p P for an instruction that runs in GPR index mode
/// (s_set_gpr_idx_on ... s_set_gpr_idx_off): its operands selected by
/// \p Mask (bit 0-2: SRC0-2, bit 3: DST) are offset by the index in M0, so
/// it reads M0, may read any VGPR from an indexed source's number up, and
/// its indexed destination is a register not known: no write ends a life.
void applyGprIndexMode(InstrProperties &P, const llvm::MCInst &Inst,
                       unsigned Mask, const InstrAnalyzer &A);

/// Bytes of one access from the size tokens of an opcode base name
/// ("GLOBAL_LOAD_DWORDX2" -> 8, "DS_WRITE2_B32" -> 4, each of its two
/// accesses, "BUFFER_ATOMIC_ADD_X2" -> 8); 0 if it names no size. Atomics
/// without a size token are 32-bit.
unsigned accessBytesFromName(llvm::StringRef BaseName);

} // namespace loom::instrument

#endif // LOOM_INSTRUMENT_INSTRPROPERTIES_H
