//===- emu/TraceCompiler.h - Straight-line ALU code compiled to host code -===//
//
// The emulator's second tier. A *trace* is a run of consecutive
// instructions inside one basic block that only compute: scalar and vector
// integer, f32 and f64 ALU operations, conversions and lane reads/writes,
// all without modifiers, no-ops, and a forward branch that may end the run
// (the list is the Op enum below; docs/emu.md, "Trace compiler"). Traces that run often are compiled through
// LLVM's ORC JIT into one host function each: every register is read from
// and written back to the wave's register files, and LLVM's optimiser keeps
// values in host registers between the instructions of the trace (a
// v_fmac's sources are loaded once for eight FMAs, say).
//
// The compiled code has the interpreter's semantics exactly, under the
// conditions the caller checks before running it (default float MODE, no
// GPR indexing; see TraceCache.cpp). The differential tests run once more
// with every trace compiled on first use (LOOM_TRACE_THRESHOLD=1) to hold it
// to that.
//
// This header names no LLVM type: only TraceCompiler.cpp includes LLVM.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_EMU_TRACECOMPILER_H
#define LOOM_EMU_TRACECOMPILER_H

#include "Inst.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace loom::emu::trace {

/// The operations the trace compiler implements.
enum class Op : uint8_t {
  None, // not compiled: ends a trace
  Nop,  // s_nop, s_waitcnt
  // Vector, 32-bit lanes.
  VMov, VAddF32, VSubF32, VSubrevF32, VMulF32, VFmaF32,
  VAddU32, VSubU32, VSubrevU32, VAnd, VOr, VXor, VNot,
  VLshlrev, VLshrrev, VAshrrev, VMulLo, VMulU24, VCndmask,
  VAddCo, VAddcCo, VSubCo, VSubbCo, VSubrevCo, VSubbrevCo,
  VCmpEqU32, VCmpNeU32, VCmpLtU32, VCmpLeU32, VCmpGtU32, VCmpGeU32,
  VCmpEqI32, VCmpNeI32, VCmpLtI32, VCmpLeI32, VCmpGtI32, VCmpGeI32,
  // Float compares, in FloatMath's Cmp order (F, LT, EQ, ... TRU).
  VCmpF32First, VCmpF32Last = VCmpF32First + 15,
  VCmpF64First, VCmpF64Last = VCmpF64First + 15,
  // Three-operand integer operations.
  VAdd3, VLshlAdd, VAddLshl, VLshlOr, VAndOr, VOr3, VXad, VAlignbit, VBfeU,
  VBfi, VMulHiU32, VMulHiI32, VMinU32, VMinI32, VMaxU32, VMaxI32,
  // 64-bit lanes (register pairs).
  VLshlrev64, VLshrrev64, VAshrrev64, VMadU64U32, VPkMovB32, VAddF64, VMulF64,
  VFmaF64,
  // Conversions.
  VCvtF32I32, VCvtF32U32, VCvtI32F32, VCvtU32F32, VCvtF64I32, VCvtF64U32,
  VCvtI32F64, VCvtU32F64,
  // Lane access (EXEC ignored or read, not applied).
  VReadlane, VReadfirstlane, VWritelane,
  // Scalar.
  SMov32, SMov64, SMovk, SAddU32, SSubU32, SAddI32, SSubI32, SAddcU32,
  SSubbU32, SAddk, SMulI32, SCselect32, SCselect64,
  SAnd32, SOr32, SXor32, SAndn2_32, SOrn2_32, SNot32,
  SAnd64, SOr64, SXor64, SAndn2_64, SOrn2_64, SNot64,
  SLshl32, SLshr32, SAshr32,
  SCmpEqI32, SCmpLgI32, SCmpGtI32, SCmpGeI32, SCmpLtI32, SCmpLeI32,
  SCmpEqU32, SCmpLgU32, SCmpGtU32, SCmpGeU32, SCmpLtU32, SCmpLeU32,
  SCmpEqU64, SCmpLgU64,
  SAndSaveexec, SOrSaveexec, SXorSaveexec, SAndn2Saveexec,
  // Branches (the last instruction of a trace).
  SBranch, SCbranchScc0, SCbranchScc1, SCbranchVccz, SCbranchVccnz,
  SCbranchExecz, SCbranchExecnz,
};

/// The operation \p I (named \p OpName by the decoder) compiles to, or
/// Op::None when this instruction, with its operands and modifiers, must
/// stay with the interpreter.
Op classify(llvm::StringRef OpName, const DecodedInst &I);

/// Whether \p O ends a trace (a branch).
inline bool isBranch(Op O) { return O >= Op::SBranch; }

/// A compiled trace: runs its instructions on the wave whose scalar
/// operand space is \p S (Wave::S), unified vector file \p V (Wave::V) and
/// SCC \p Scc, and returns the index of the next instruction to run,
/// relative to the trace's first one.
using TraceFn = uint32_t (*)(uint32_t *S, uint32_t *V, bool *Scc);
/// The same, also counting what ran as the interpreter does: each
/// instruction's executions, and its active lanes if it is a vector one,
/// in \p Executions and \p Lanes, which point at the counters of the
/// trace's first instruction. That one is left out: the interpreter counts
/// it before it calls the trace.
using CountedTraceFn = uint32_t (*)(uint32_t *S, uint32_t *V, bool *Scc,
                                    uint64_t *Executions, uint64_t *Lanes);

/// Compiles the trace of \p Ops whose first instruction is \p Head (the
/// others follow it in memory), at index \p HeadIndex of its region, into
/// host code. The code depends only on the instructions, not on where they
/// are: the same trace in another region, or on another device, reuses
/// it. \p Name names the trace in errors. The code lives as long as the
/// process.
llvm::Expected<TraceFn> compileTrace(const DecodedInst *Head,
                                     uint32_t HeadIndex,
                                     llvm::ArrayRef<Op> Ops,
                                     llvm::StringRef Name);
llvm::Expected<CountedTraceFn> compileCountedTrace(const DecodedInst *Head,
                                                   uint32_t HeadIndex,
                                                   llvm::ArrayRef<Op> Ops,
                                                   llvm::StringRef Name);

} // namespace loom::emu::trace

#endif // LOOM_EMU_TRACECOMPILER_H
