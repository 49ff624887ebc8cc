//===- emu/Inst.h - Pre-decoded instructions ------------------------------===//
//
// Each instruction is decoded once, when its code is registered, into a
// DecodedInst: the handler that implements it and its operands resolved into
// register-file indices and constants. The interpreter never looks at bytes
// or MCInsts again.
//
// Operands keep the MC order, sorted into three lists so that every encoding
// of an operation looks the same to its handler:
//   Dst  - the instruction's definitions (vdst, sdst, ...), in MC order;
//   Src  - register-or-constant uses in MC order, each with its input
//          modifiers (neg/abs, or VOP3P op_sel bits);
//   Imm  - the remaining immediates (offsets, cache policy, clamp, omod,
//          DPP/SDWA controls, branch offsets) in MC order.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_EMU_INST_H
#define LOOM_EMU_INST_H

#include <cstdint>

namespace loom::emu {

struct Wave;
struct DecodedInst;

/// Runs one instruction for one wave. Sequential instructions leave the
/// program counter to the interpreter (see Wave::NextIndex).
using Handler = void (*)(Wave &W, const DecodedInst &I);

/// Indices into the scalar operand space (hardware encoding of SSRC/SDST).
enum SpecialSgpr : uint16_t {
  SgprFlatScratchLo = 102,
  SgprFlatScratchHi = 103,
  SgprXnackMaskLo = 104,
  SgprXnackMaskHi = 105,
  SgprVccLo = 106,
  SgprVccHi = 107,
  SgprTtmp0 = 108,
  SgprM0 = 124,
  SgprNull = 125,
  SgprExecLo = 126,
  SgprExecHi = 127,
  NumScalarSlots = 128,
};

/// Read-only values an operand may name that live in no register file.
enum class SpecialValue : uint8_t {
  SharedBase,   // src_shared_base
  SharedLimit,  // src_shared_limit
  PrivateBase,  // src_private_base
  PrivateLimit, // src_private_limit
  PopsExitingWaveId,
  Vccz,
  Execz,
  Scc,
};

struct Operand {
  enum Kind : uint8_t { None, Sgpr, Vgpr, Agpr, Imm, Special };
  Kind K = None;
  /// 32-bit registers covered (1 for s0, 2 for s[0:1] or vcc, 4 for a V#).
  uint8_t Regs = 0;
  /// Input modifiers (VOP3 neg=1/abs=2; VOP3P/SDWA encodings kept raw).
  uint8_t Mods = 0;
  /// Tied to a definition (v_mac's src2, DPP's old value).
  bool Tied = false;
  /// Register index (sgpr/vgpr/agpr number; SpecialSgpr values for vcc,
  /// exec, m0...), or the SpecialValue.
  uint16_t Index = 0;
  /// Constant value, as the MC layer gives it (inline constants already
  /// expanded to the operand's bit pattern; literals as encoded).
  int64_t Value = 0;

  bool isReg() const { return K == Sgpr || K == Vgpr || K == Agpr; }
  bool isVector() const { return K == Vgpr || K == Agpr; }
};

enum InstFlags : uint32_t {
  FlagE64 = 1u << 0,      // VOP3 encoding of a VOP1/VOP2/VOPC operation
  FlagSdwa = 1u << 1,
  FlagDpp = 1u << 2,
  FlagVop3p = 1u << 3,
  FlagBranch = 1u << 4,   // has a resolved branch target
  FlagMemory = 1u << 5,   // counted as a memory instruction
  FlagVector = 1u << 6,   // counts active lanes
  FlagEndsBlock = 1u << 7,
  FlagStartsBlock = 1u << 8,
  FlagSaddr = 1u << 9,    // GLOBAL/SCRATCH with an SGPR base
  FlagHasSrcMods = 1u << 10,
  FlagHasOutMods = 1u << 11, // clamp or omod set
  FlagBackwardBranch = 1u << 12, // direct branch to itself or earlier
  // Basic blocks as `loom disasm` finds them (isa::buildBasicBlocks), from
  // the instruction's isa::classifyFlow, so that a unit's blocks need no
  // second disassembly (CodeRegion::analyse):
  FlagFlowEndsBlock = 1u << 13, // isa::endsBlock
  FlagFlowTarget = 1u << 14,    // a direct branch (its target: FlagBranch's)
  FlagFlowCall = 1u << 15,      // the Disassembler's registers start afresh
  /// A jump to a register pair (s_setpc_b64), whose target the
  /// Disassembler may find inside the function: a block start.
  FlagFlowRegister = 1u << 16,
  /// No instruction, or a direct target not FlagBranch's: blocks need the
  /// Disassembler.
  FlagFlowUnknown = 1u << 17,
};

struct DecodedInst {
  static constexpr unsigned MaxDst = 2, MaxSrc = 5, MaxImm = 8;

  Handler Fn = nullptr;
  uint32_t Flags = 0;
  /// MC opcode, and the index of its base name in the decoder's table
  /// (for counters and messages).
  uint32_t Opcode = 0;
  uint16_t NameId = 0;
  uint8_t Size = 0;
  uint8_t NumDst = 0, NumSrc = 0, NumImm = 0;
  /// Address of the instruction (host address of the loaded code).
  uint64_t Address = 0;
  /// Resolved target of a direct branch: index in the same region.
  uint32_t Target = 0;
  /// Global instruction id (counters).
  uint32_t Id = 0;

  Operand Dst[MaxDst];
  Operand Src[MaxSrc];
  int64_t Imm[MaxImm] = {};

  uint64_t nextAddress() const { return Address + Size; }
  /// A direct branch's (FlagBranch) target: its simm16 in words.
  uint64_t branchTarget() const {
    return Address + 4 + int64_t(int16_t(Imm[0] & 0xffff)) * 4;
  }
};

} // namespace loom::emu

#endif // LOOM_EMU_INST_H
