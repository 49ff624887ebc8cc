//===- instrument/PointCompiler.h - Hook calls to machine code -*- C++ -*-===//
//
// Internal to instrument/. Every instrumentation point (all hook calls at one
// place, in order) becomes one LLVM function, __loom_point_N, whose
// parameters are the raw 32-bit values the hooks' arguments are built from:
// uniform values as `inreg` parameters (s4, s5, ... by the AMDGPU calling
// convention) and per-lane values as VGPR parameters (v0, v1, ...). The
// hooks are inlined into it, the module is compiled to assembly, and the
// assembly is assembled, linked and lifted again, so what each point reads
// and clobbers is known from the machine code itself.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_INSTRUMENT_POINTCOMPILER_H
#define LOOM_INSTRUMENT_POINTCOMPILER_H

#include "BodyPlacement.h"

#include "loom/instrument/DispatchAbi.h"
#include "loom/instrument/Instrumenter.h"
#include "loom/instrument/RegisterSet.h"
#include "loom/jit/Pipeline.h"
#include "llvm/MC/MCInst.h"

#include <memory>
#include <string>
#include <vector>

namespace loom::instrument::detail {

/// What an instrumented kernel's preamble keeps, for the whole kernel, in
/// SGPRs of its own: the values hooks cannot otherwise reach once the
/// original code has reused the registers they came in.
enum class LaunchState : uint8_t {
  HeaderLo,    ///< the LoomLaunchHeader's address (kernarg + offset)
  HeaderHi,
  WorkgroupIdX,
  WorkgroupIdY,
  WorkgroupIdZ,
  WaveTid,     ///< v0 of the wave's first lane: its packed work-item id
  /// The private segment's V# with the wave's offset added to its base,
  /// as the hooks' stack is reached through it (gfx90a; not gfx94x,
  /// whose architected flat scratch needs none).
  ScratchRsrc0,
  ScratchRsrc1,
  ScratchRsrc2,
  ScratchRsrc3,
  /// The hooks' stack pointer where the kernel's own stack is dynamic:
  /// from the private segment's size, the slot being at its top.
  StackPointer,
  /// The dispatch packet's address (the dispatch_ptr SGPRs) and the
  /// kernarg segment's (kernarg_segment_ptr): the kernel's own inputs, as
  /// the hardware hands them to it.
  DispatchPtrLo,
  DispatchPtrHi,
  KernargLo,
  KernargHi,
};
inline constexpr unsigned NumLaunchStates = 15;
/// RawInput::State numbers past the launch state: wave counter N's low and
/// high halves.
inline unsigned waveCounterState(unsigned N, bool High) {
  return NumLaunchStates + 2 * N + High;
}

/// One 32-bit value the glue before a point moves into a parameter register.
struct RawInput {
  enum class Kind : uint8_t { Sgpr, Vgpr, Agpr, ExecLo, ExecHi, VccLo, VccHi,
                              Scc, M0, State, Immediate, LaneWord };
  Kind K = Kind::Sgpr;
  /// Register number for Sgpr/Vgpr/Agpr, LaunchState, or for an
  /// Immediate its ordinal among the point's immediates.
  unsigned N = 0;
  uint32_t Imm = 0; ///< an Immediate's value, set by the glue
  /// LaneWord: the lane's index times 4 (loom::laneWord()), from the VGPR
  /// the preamble sets where one is free, else computed by the glue.
  bool isUniform() const {
    return K != Kind::Vgpr && K != Kind::Agpr && K != Kind::LaneWord;
  }
  friend bool operator==(const RawInput &A, const RawInput &B) {
    return A.K == B.K && A.N == B.N;
  }
};

/// A point to compile: the calls, and the instruction they are about (null
/// at block entry and kernel entry).
struct PointSpec {
  std::vector<HookCall> Calls;
  const BinaryInstruction *Instr = nullptr;
  uint64_t Pc = 0;          ///< loaded address of Instr
  uint32_t InstrOffset = 0; ///< in its function
  uint32_t InstrIndex = 0;  ///< in its function
  std::string Where;        ///< "kernel k, before +0x1c", for messages
};

struct CompiledPoint {
  /// Parameter registers, in order: SgprInputs[i] goes to s(FirstSgpr + i),
  /// VgprInputs[i] to v(i).
  std::vector<RawInput> SgprInputs;
  std::vector<RawInput> VgprInputs;
  unsigned FirstSgpr = 4;
  /// The point function's body as assembly lines, its returns rewritten to
  /// branch to ReturnLabel. Points of one shape (the same hooks, arguments
  /// of the same kinds) share a body: its labels hold InstanceMarker, which
  /// each copy spliced in replaces with a name of its own.
  std::string Body;
  std::string ReturnLabel;
  static constexpr const char *InstanceMarker = "%%";
  /// (parameter, state): what the hooks returned into wave counters is in
  /// SGPR parameter register `parameter` where the body ends, for
  /// RawInput::State `state`.
  std::vector<std::pair<unsigned, unsigned>> Results;
  /// Every register unit the body writes, its parameter registers included.
  RegisterSet Clobbers;
  /// Bytes per lane of the body's stack frame, at the stack pointer (s32)
  /// the glue sets (StackPointerSgpr); 0 if the hooks need no stack.
  unsigned StackBytes = 0;
  /// Whether the body may end with memory operations of its own in flight
  /// (vector memory; LDS or scalar memory).
  bool LeavesVm = true, LeavesLgkm = true;
  /// The body's instructions where Body is their machine words: it may be
  /// moved to other registers (BodyPlacement.h). Shared by the points of a
  /// shape.
  std::shared_ptr<const std::vector<llvm::MCInst>> Insts;
  /// With Insts: which of their operands read the parameters as passed.
  std::shared_ptr<const ParamReads> Reads;
};

/// The first SGPR of `inreg` parameters: s4, after the private segment
/// buffer of the callee ABI, except with architected flat scratch (gfx94x),
/// which has none.
inline unsigned firstSgprParam(llvm::StringRef Processor) {
  return hasArchitectedFlatScratch(Processor) ? 0 : 4;
}
/// The stack pointer of the callee ABI, and (gfx90a) the private
/// segment's V#, s[0:3], which the hooks' stack accesses read.
inline constexpr unsigned StackPointerSgpr = 32;
inline bool hasScratchRsrc(llvm::StringRef Processor) {
  return firstSgprParam(Processor) == 4;
}
inline constexpr unsigned MaxSgprParams = 26;
inline constexpr unsigned MaxVgprParams = 32; // v0..v31

/// HookArg::memoryBaseOf's left-out offset (loom::instrument::
/// memoryBaseOffset).
int64_t memoryBaseOffsetOf(const BinaryInstruction &I, const InstrAnalyzer &A);
int64_t instructionOffsetOf(const BinaryInstruction &I, const InstrAnalyzer &A);

/// Compiles every point of \p Points with the hooks of \p Hooks, for
/// \p Target; CompiledPoint i belongs to Points[i]. The shapes not compiled
/// yet in the process are compiled on up to \p Threads threads at once
/// (0: jit::defaultCompileParts()).
llvm::Expected<std::vector<CompiledPoint>>
compilePoints(llvm::ArrayRef<PointSpec> Points,
              llvm::ArrayRef<HookLibrary> Hooks, const jit::TargetSpec &Target,
              unsigned OptLevel, unsigned Threads, isa::McContext &MC);

} // namespace loom::instrument::detail

#endif // LOOM_INSTRUMENT_POINTCOMPILER_H
