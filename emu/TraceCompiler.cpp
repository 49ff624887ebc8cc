//===- emu/TraceCompiler.cpp - Straight-line ALU code as host code ------===//
//
// Each instruction becomes the IR of its interpreter handler, written as
// plainly as possible: sources loaded from the register files, the result
// stored back (vector results blended into the old value on the EXEC lanes).
// A vector register is a <64 x i32> value. The optimiser then forwards
// stored values to later loads and drops stores that are overwritten, so
// what reaches the machine code is one load per register read in the trace
// and one store per register written.
//
// The semantics mirror the handlers they replace (VectorIntOps.cpp,
// VectorFloatOps.cpp, LaneOps.cpp, VectorCompareOps.cpp, ScalarOps.cpp,
// ScalarControlOps.cpp); keep the two in step.
//
//===----------------------------------------------------------------------===//

#include "TraceCompiler.h"

#include "Wave.h"

#include "loom/emu/Device.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Scalar/DeadStoreElimination.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"

#include <chrono>
#include <mutex>

using namespace llvm;

namespace loom::emu::trace {

//===----------------------------------------------------------------------===//
// Which instructions compile
//===----------------------------------------------------------------------===//

namespace {

enum Kind : uint8_t { Vector, Scalar, Branch, NoOp };

Kind kindOf(Op O) {
  if (O == Op::Nop)
    return NoOp;
  if (isBranch(O))
    return Branch;
  return O < Op::SMov32 ? Vector : Scalar;
}

bool isIntCompare(Op O) { return O >= Op::VCmpEqU32 && O <= Op::VCmpGeI32; }
bool isFloatCompare(Op O) {
  return O >= Op::VCmpF32First && O <= Op::VCmpF64Last;
}
bool isCompare(Op O) { return isIntCompare(O) || isFloatCompare(O); }
/// Operations whose destination is an SGPR (or none).
bool writesScalar(Op O) {
  return isCompare(O) || O == Op::VReadlane || O == Op::VReadfirstlane;
}
bool isThreeSource(Op O) { return O >= Op::VAdd3 && O <= Op::VBfi; }
bool writesCarry(Op O) {
  return (O >= Op::VAddCo && O <= Op::VSubbrevCo) || O == Op::VMadU64U32;
}
bool readsMask(Op O) {
  return O == Op::VCndmask || O == Op::VAddcCo || O == Op::VSubbCo ||
         O == Op::VSubbrevCo;
}
/// Scalar operations on 64-bit operands.
bool isScalar64(Op O) {
  switch (O) {
  case Op::SMov64: case Op::SCselect64: case Op::SAnd64: case Op::SOr64:
  case Op::SXor64: case Op::SAndn2_64: case Op::SOrn2_64: case Op::SNot64:
  case Op::SCmpEqU64: case Op::SCmpLgU64: case Op::SAndSaveexec:
  case Op::SOrSaveexec: case Op::SXorSaveexec: case Op::SAndn2Saveexec:
    return true;
  default:
    return false;
  }
}

const StringMap<Op> &opTable() {
  static const StringMap<Op> T = [] {
    StringMap<Op> M = {
      {"S_NOP", Op::Nop},
      {"S_WAITCNT", Op::Nop},
      {"V_MOV_B32", Op::VMov},
      {"V_ADD_F32", Op::VAddF32},
      {"V_SUB_F32", Op::VSubF32},
      {"V_SUBREV_F32", Op::VSubrevF32},
      {"V_MUL_F32", Op::VMulF32},
      {"V_FMA_F32", Op::VFmaF32},
      {"V_FMAC_F32", Op::VFmaF32},
      {"V_ADD_U32", Op::VAddU32},
      {"V_SUB_U32", Op::VSubU32},
      {"V_SUBREV_U32", Op::VSubrevU32},
      {"V_AND_B32", Op::VAnd},
      {"V_OR_B32", Op::VOr},
      {"V_XOR_B32", Op::VXor},
      {"V_NOT_B32", Op::VNot},
      {"V_LSHLREV_B32", Op::VLshlrev},
      {"V_LSHRREV_B32", Op::VLshrrev},
      {"V_ASHRREV_I32", Op::VAshrrev},
      {"V_MUL_LO_U32", Op::VMulLo},
      {"V_MUL_LO_I32", Op::VMulLo},
      {"V_MUL_U32_U24", Op::VMulU24},
      {"V_CNDMASK_B32", Op::VCndmask},
      {"V_ADD_CO_U32", Op::VAddCo},
      {"V_ADDC_CO_U32", Op::VAddcCo},
      {"V_SUB_CO_U32", Op::VSubCo},
      {"V_SUBB_CO_U32", Op::VSubbCo},
      {"V_SUBREV_CO_U32", Op::VSubrevCo},
      {"V_SUBBREV_CO_U32", Op::VSubbrevCo},
      {"V_CMP_EQ_U32", Op::VCmpEqU32},
      {"V_CMP_NE_U32", Op::VCmpNeU32},
      {"V_CMP_LT_U32", Op::VCmpLtU32},
      {"V_CMP_LE_U32", Op::VCmpLeU32},
      {"V_CMP_GT_U32", Op::VCmpGtU32},
      {"V_CMP_GE_U32", Op::VCmpGeU32},
      {"V_CMP_EQ_I32", Op::VCmpEqI32},
      {"V_CMP_NE_I32", Op::VCmpNeI32},
      {"V_CMP_LT_I32", Op::VCmpLtI32},
      {"V_CMP_LE_I32", Op::VCmpLeI32},
      {"V_CMP_GT_I32", Op::VCmpGtI32},
      {"V_CMP_GE_I32", Op::VCmpGeI32},
      {"S_MOV_B32", Op::SMov32},
      {"S_MOV_B64", Op::SMov64},
      {"S_MOVK_I32", Op::SMovk},
      {"S_ADD_U32", Op::SAddU32},
      {"S_SUB_U32", Op::SSubU32},
      {"S_ADD_I32", Op::SAddI32},
      {"S_SUB_I32", Op::SSubI32},
      {"S_ADDC_U32", Op::SAddcU32},
      {"S_SUBB_U32", Op::SSubbU32},
      {"S_ADDK_I32", Op::SAddk},
      {"S_MUL_I32", Op::SMulI32},
      {"S_CSELECT_B32", Op::SCselect32},
      {"S_CSELECT_B64", Op::SCselect64},
      {"S_AND_B32", Op::SAnd32},
      {"S_OR_B32", Op::SOr32},
      {"S_XOR_B32", Op::SXor32},
      {"S_ANDN2_B32", Op::SAndn2_32},
      {"S_ORN2_B32", Op::SOrn2_32},
      {"S_NOT_B32", Op::SNot32},
      {"S_AND_B64", Op::SAnd64},
      {"S_OR_B64", Op::SOr64},
      {"S_XOR_B64", Op::SXor64},
      {"S_ANDN2_B64", Op::SAndn2_64},
      {"S_ORN2_B64", Op::SOrn2_64},
      {"S_NOT_B64", Op::SNot64},
      {"S_LSHL_B32", Op::SLshl32},
      {"S_LSHR_B32", Op::SLshr32},
      {"S_ASHR_I32", Op::SAshr32},
      {"S_CMP_EQ_I32", Op::SCmpEqI32},
      {"S_CMP_LG_I32", Op::SCmpLgI32},
      {"S_CMP_GT_I32", Op::SCmpGtI32},
      {"S_CMP_GE_I32", Op::SCmpGeI32},
      {"S_CMP_LT_I32", Op::SCmpLtI32},
      {"S_CMP_LE_I32", Op::SCmpLeI32},
      {"S_CMP_EQ_U32", Op::SCmpEqU32},
      {"S_CMP_LG_U32", Op::SCmpLgU32},
      {"S_CMP_GT_U32", Op::SCmpGtU32},
      {"S_CMP_GE_U32", Op::SCmpGeU32},
      {"S_CMP_LT_U32", Op::SCmpLtU32},
      {"S_CMP_LE_U32", Op::SCmpLeU32},
      {"S_CMP_EQ_U64", Op::SCmpEqU64},
      {"S_CMP_LG_U64", Op::SCmpLgU64},
      {"S_AND_SAVEEXEC_B64", Op::SAndSaveexec},
      {"S_OR_SAVEEXEC_B64", Op::SOrSaveexec},
      {"S_XOR_SAVEEXEC_B64", Op::SXorSaveexec},
      {"S_ANDN2_SAVEEXEC_B64", Op::SAndn2Saveexec},
      {"S_BRANCH", Op::SBranch},
      {"S_CBRANCH_SCC0", Op::SCbranchScc0},
      {"S_CBRANCH_SCC1", Op::SCbranchScc1},
      {"S_CBRANCH_VCCZ", Op::SCbranchVccz},
      {"S_CBRANCH_VCCNZ", Op::SCbranchVccnz},
      {"S_CBRANCH_EXECZ", Op::SCbranchExecz},
      {"S_CBRANCH_EXECNZ", Op::SCbranchExecnz},
      {"V_ADD3_U32", Op::VAdd3},
      {"V_LSHL_ADD_U32", Op::VLshlAdd},
      {"V_ADD_LSHL_U32", Op::VAddLshl},
      {"V_LSHL_OR_B32", Op::VLshlOr},
      {"V_AND_OR_B32", Op::VAndOr},
      {"V_OR3_B32", Op::VOr3},
      {"V_XAD_U32", Op::VXad},
      {"V_ALIGNBIT_B32", Op::VAlignbit},
      {"V_BFE_U32", Op::VBfeU},
      {"V_BFI_B32", Op::VBfi},
      {"V_MUL_HI_U32", Op::VMulHiU32},
      {"V_MUL_HI_I32", Op::VMulHiI32},
      {"V_MIN_U32", Op::VMinU32},
      {"V_MIN_I32", Op::VMinI32},
      {"V_MAX_U32", Op::VMaxU32},
      {"V_MAX_I32", Op::VMaxI32},
      {"V_LSHLREV_B64", Op::VLshlrev64},
      {"V_LSHRREV_B64", Op::VLshrrev64},
      {"V_ASHRREV_I64", Op::VAshrrev64},
      {"V_MAD_U64_U32", Op::VMadU64U32},
      {"V_PK_MOV_B32", Op::VPkMovB32},
      {"V_ADD_F64", Op::VAddF64},
      {"V_MUL_F64", Op::VMulF64},
      {"V_FMA_F64", Op::VFmaF64},
      {"V_FMAC_F64", Op::VFmaF64},
      {"V_CVT_F32_I32", Op::VCvtF32I32},
      {"V_CVT_F32_U32", Op::VCvtF32U32},
      {"V_CVT_I32_F32", Op::VCvtI32F32},
      {"V_CVT_U32_F32", Op::VCvtU32F32},
      {"V_CVT_F64_I32", Op::VCvtF64I32},
      {"V_CVT_F64_U32", Op::VCvtF64U32},
      {"V_CVT_I32_F64", Op::VCvtI32F64},
      {"V_CVT_U32_F64", Op::VCvtU32F64},
      {"V_READLANE_B32", Op::VReadlane},
      {"V_READFIRSTLANE_B32", Op::VReadfirstlane},
      {"V_WRITELANE_B32", Op::VWritelane},
    };
    static const char *const Preds[] = {"F",  "LT",  "EQ",  "LE",
                                        "GT", "LG",  "GE",  "O",
                                        "U",  "NGE", "NLG", "NGT",
                                        "NLE", "NEQ", "NLT", "TRU"};
    for (unsigned K = 0; K < 16; ++K) {
      M[std::string("V_CMP_") + Preds[K] + "_F32"] =
          Op(unsigned(Op::VCmpF32First) + K);
      M[std::string("V_CMP_") + Preds[K] + "_F64"] =
          Op(unsigned(Op::VCmpF64First) + K);
    }
    return M;
  }();
  return T;
}

/// Registers (SGPRs, VGPRs) and constants only: no AGPRs (their index
/// depends on the wave's accum_offset) and no special values.
bool plainOperand(const Operand &Op, bool AllowVector) {
  switch (Op.K) {
  case Operand::Sgpr:
  case Operand::Imm:
    return true;
  case Operand::Vgpr:
    return AllowVector;
  default:
    return false;
  }
}

/// The sources the emitter reads (more may follow: tied operands, the
/// mask input of the VOP3 forms).
unsigned minSources(Op O) {
  switch (O) {
  case Op::VMov: case Op::VNot: case Op::VReadfirstlane:
  case Op::VCvtF32I32: case Op::VCvtF32U32: case Op::VCvtI32F32:
  case Op::VCvtU32F32: case Op::VCvtF64I32: case Op::VCvtF64U32:
  case Op::VCvtI32F64: case Op::VCvtU32F64:
    return 1;
  case Op::VFmaF32: case Op::VFmaF64: case Op::VMadU64U32:
    return 3;
  default:
    return isThreeSource(O) ? 3 : 2;
  }
}

} // namespace

Op classify(StringRef OpName, const DecodedInst &I) {
  OpName.consume_back("_pad_s_nop");
  auto It = opTable().find(OpName);
  if (It == opTable().end())
    return Op::None;
  Op O = It->second;
  switch (kindOf(O)) {
  case NoOp:
    return O;
  case Branch:
    // A backward branch stays with the interpreter, which watches the
    // loops it closes for spin-waits.
    return (I.Flags & FlagBranch) && !(I.Flags & FlagBackwardBranch) ? O
                                                                      : Op::None;
  case Vector:
    // Plain forms only: no SDWA, DPP, neg/abs, clamp or omod; v_pk_mov_b32
    // has its op_sel in the source modifiers (op_sel_hi, bit 3, unused).
    if (I.Flags & (FlagSdwa | FlagDpp | FlagHasOutMods))
      return Op::None;
    if (I.Flags & FlagHasSrcMods) {
      if (O != Op::VPkMovB32)
        return Op::None;
      for (unsigned K = 0; K < I.NumSrc; ++K)
        if (I.Src[K].Mods & ~(4 | 8))
          return Op::None;
    }
    for (unsigned K = 0; K < I.NumImm; ++K)
      if (I.Imm[K])
        return Op::None;
    if (writesScalar(O)) {
      if (I.NumDst > 1 || (I.NumDst == 1 && I.Dst[0].K != Operand::Sgpr))
        return Op::None;
      if (!isCompare(O) && I.NumDst != 1)
        return Op::None;
    } else if (I.NumDst < 1 || I.Dst[0].K != Operand::Vgpr) {
      return Op::None;
    }
    if (writesCarry(O) && I.NumDst == 2 && I.Dst[1].K != Operand::Sgpr)
      return Op::None;
    for (unsigned K = 0; K < I.NumSrc; ++K)
      if (!plainOperand(I.Src[K], true))
        return Op::None;
    // The mask input of the VOP3 forms is an SGPR pair.
    if (readsMask(O) && I.NumSrc > 2 && I.Src[2].K != Operand::Sgpr)
      return Op::None;
    if (I.NumSrc < minSources(O))
      return Op::None;
    return O;
  case Scalar:
    for (unsigned K = 0; K < I.NumSrc; ++K)
      if (!plainOperand(I.Src[K], false))
        return Op::None;
    for (unsigned K = 0; K < I.NumDst; ++K)
      if (I.Dst[K].K != Operand::Sgpr)
        return Op::None;
    return O;
  }
  return Op::None;
}

//===----------------------------------------------------------------------===//
// IR for one trace
//===----------------------------------------------------------------------===//

namespace {

/// Where a trace starts: its first instruction and that one's index in
/// its region (branch targets are region indices).
struct TraceStart {
  const DecodedInst *Head;
  uint32_t Index;
  /// The target of the branch Head[K], relative to the head.
  uint32_t relativeTarget(size_t K) const { return Head[K].Target - Index; }
};

class TraceEmitter {
public:
  /// Emits into \p F: (S, V, Scc) or, counting, (S, V, Scc, Executions,
  /// Lanes).
  TraceEmitter(LLVMContext &Ctx, Function &F)
      : B(BasicBlock::Create(Ctx, "entry", &F)),
        I32(Type::getInt32Ty(Ctx)), I64(Type::getInt64Ty(Ctx)),
        Lanes(FixedVectorType::get(I32, WaveSize)),
        Floats(FixedVectorType::get(Type::getFloatTy(Ctx), WaveSize)),
        Bits(FixedVectorType::get(Type::getInt1Ty(Ctx), WaveSize)),
        S(F.getArg(0)), V(F.getArg(1)), SccPtr(F.getArg(2)),
        Executions(F.arg_size() > 3 ? F.getArg(3) : nullptr),
        LaneCounts(F.arg_size() > 4 ? F.getArg(4) : nullptr) {}

  /// Emits \p Ops, the instructions from \p At.Head on; returns the next
  /// instruction's index relative to the head's.
  ///
  /// Traces that write vector registers get two copies: one for a full
  /// EXEC, where results are stored whole, and one that blends them into
  /// the old values. (The blend becomes a masked store, which AVX2 hosts
  /// run slowly: vmaskmovps is microcoded on AMD cores.)
  void emit(TraceStart At, ArrayRef<Op> Ops) {
    bool HasVector = llvm::any_of(Ops, [](Op O) { return kindOf(O) == Vector; });
    if (!HasVector)
      return emitBody(At, Ops);
    Function *F = B.GetInsertBlock()->getParent();
    BasicBlock *Full = BasicBlock::Create(F->getContext(), "full_exec", F);
    BasicBlock *Partial = BasicBlock::Create(F->getContext(), "partial_exec", F);
    B.CreateCondBr(B.CreateICmpEQ(exec(), B.getInt64(~uint64_t(0))), Full,
                   Partial);
    B.SetInsertPoint(Full);
    ExecFull = true;
    emitBody(At, Ops);
    B.SetInsertPoint(Partial);
    ExecFull = false;
    emitBody(At, Ops);
  }

private:
  void emitBody(TraceStart At, ArrayRef<Op> Ops) {
    Value *Next = B.getInt32(Ops.size());
    for (size_t K = 0; K < Ops.size(); ++K) {
      const DecodedInst &I = At.Head[K];
      // The interpreter has counted the first one (it runs the trace).
      if (Executions && K > 0)
        count(I, K);
      switch (kindOf(Ops[K])) {
      case NoOp:
        break;
      case Vector:
        emitVector(Ops[K], I);
        break;
      case Scalar:
        emitScalar(Ops[K], I);
        break;
      case Branch:
        // Forward branches only: the target follows the head.
        Next = B.CreateSelect(branchTaken(Ops[K]),
                              B.getInt32(At.relativeTarget(K)),
                              B.getInt32(K + 1));
        break;
      }
    }
    B.CreateRet(Next);
  }

  /// The interpreter's counters for \p I, the trace's \p K th
  /// instruction, before it runs.
  void count(const DecodedInst &I, size_t K) {
    auto Bump = [&](Value *Base, Value *By) {
      Value *P = B.CreateConstInBoundsGEP1_64(I64, Base, K);
      B.CreateAlignedStore(B.CreateAdd(B.CreateAlignedLoad(I64, P, Align(8)), By),
                           P, Align(8));
    };
    Bump(Executions, B.getInt64(1));
    if (I.Flags & FlagVector)
      Bump(LaneCounts, B.CreateUnaryIntrinsic(Intrinsic::ctpop, exec()));
  }

  // --- Scalar operand space ----------------------------------------------
  Value *sgprPtr(unsigned Idx) {
    return B.CreateConstInBoundsGEP1_32(I32, S, Idx);
  }
  Value *readS32(const Operand &Op) {
    if (Op.K == Operand::Sgpr)
      return B.CreateAlignedLoad(I32, sgprPtr(Op.Index), Align(4));
    return B.getInt32(uint32_t(Op.Value));
  }
  Value *readS64(const Operand &Op) {
    if (Op.K != Operand::Sgpr)
      return B.getInt64(uint64_t(Op.Value));
    return readPair(Op.Index);
  }
  Value *readPair(unsigned Idx) {
    Value *Lo = B.CreateZExt(B.CreateAlignedLoad(I32, sgprPtr(Idx), Align(4)), I64);
    Value *Hi = B.CreateZExt(B.CreateAlignedLoad(I32, sgprPtr(Idx + 1), Align(4)), I64);
    return B.CreateOr(Lo, B.CreateShl(Hi, 32));
  }
  void writeS32(const Operand &Op, Value *Val) {
    if (Op.K == Operand::Sgpr && Op.Index != SgprNull) {
      B.CreateAlignedStore(Val, sgprPtr(Op.Index), Align(4));
      if (Op.Index == SgprExecLo || Op.Index == SgprExecHi)
        ExecFull = false;
    }
  }
  void writeS64(const Operand &Op, Value *Val) {
    if (Op.K == Operand::Sgpr && Op.Index != SgprNull)
      writePair(Op.Index, Val);
  }
  void writePair(unsigned Idx, Value *Val) {
    if (Idx <= SgprExecHi && Idx + 1 >= SgprExecLo)
      ExecFull = false;
    B.CreateAlignedStore(B.CreateTrunc(Val, I32), sgprPtr(Idx), Align(4));
    B.CreateAlignedStore(B.CreateTrunc(B.CreateLShr(Val, 32), I32),
                         sgprPtr(Idx + 1), Align(4));
  }
  Value *exec() {
    return ExecFull ? B.getInt64(~uint64_t(0)) : readPair(SgprExecLo);
  }
  Value *vcc() { return readPair(SgprVccLo); }
  Value *scc() {
    return B.CreateTrunc(B.CreateLoad(B.getInt8Ty(), SccPtr), B.getInt1Ty());
  }
  void setScc(Value *Bit) {
    B.CreateStore(B.CreateZExt(Bit, B.getInt8Ty()), SccPtr);
  }

  // --- Vector registers ----------------------------------------------------
  Value *vgprPtr(unsigned Idx) {
    return B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), V,
                                        uint64_t(Idx) * WaveSize * 4);
  }
  /// A 32-bit source as 64 lanes (scalars and constants broadcast).
  Value *readV(const Operand &Op) {
    if (Op.K == Operand::Vgpr)
      return readVIndex(Op.Index);
    return B.CreateVectorSplat(WaveSize, readS32(Op));
  }
  Value *readVIndex(unsigned Idx) {
    return B.CreateAlignedLoad(Lanes, vgprPtr(Idx), Align(4));
  }
  void storeVIndex(unsigned Idx, Value *Val) {
    B.CreateAlignedStore(Val, vgprPtr(Idx), Align(4));
  }
  /// Writes \p Val to the EXEC lanes of \p Dst.
  void writeV(const Operand &Dst, Value *Val) { writeVIndex(Dst.Index, Val); }
  void writeVIndex(unsigned Idx, Value *Val) {
    if (ExecFull)
      return storeVIndex(Idx, Val);
    storeVIndex(Idx, B.CreateSelect(lanes(exec()), Val, readVIndex(Idx)));
  }
  /// A lane mask as one bit per lane, and back.
  Value *lanes(Value *Mask) { return B.CreateBitCast(Mask, Bits); }
  Value *mask(Value *LaneBits) { return B.CreateBitCast(LaneBits, I64); }
  Value *asFloat(Value *X) { return B.CreateBitCast(X, Floats); }
  Value *asInt(Value *X) { return B.CreateBitCast(X, Lanes); }

  /// The mask input of v_cndmask / v_addc: VCC for e32, an SGPR pair for
  /// e64 (the source after the two lane sources).
  Value *maskIn(const DecodedInst &I) {
    return I.NumSrc > 2 ? readS64(I.Src[2]) : vcc();
  }
  /// Writes a compare or carry mask: VCC unless the instruction names an
  /// SGPR pair.
  void writeMask(const Operand *Dst, Value *M) {
    if (Dst)
      writeS64(*Dst, M);
    else
      writePair(SgprVccLo, M);
  }

  void emitVector(Op O, const DecodedInst &I) {
    if (isFloatCompare(O))
      return emitFloatCompare(O, I);
    if (isThreeSource(O) || (O >= Op::VMulHiU32 && O <= Op::VMaxI32))
      return emitIntOp(O, I);
    if (O >= Op::VLshlrev64 && O <= Op::VFmaF64)
      return emitWide(O, I);
    if (O >= Op::VCvtF32I32 && O <= Op::VCvtU32F64)
      return emitConvert(O, I);
    if (O >= Op::VReadlane && O <= Op::VWritelane)
      return emitLane(O, I);
    Value *A = readV(I.Src[0]);
    Value *Bv = I.NumSrc > 1 && O != Op::VMov && O != Op::VNot ? readV(I.Src[1])
                                                               : nullptr;
    Value *R = nullptr;
    auto Float = [&](auto F) { R = asInt(F(asFloat(A), asFloat(Bv))); };
    switch (O) {
    case Op::VMov:
      R = A;
      break;
    case Op::VAddF32:
      Float([&](Value *X, Value *Y) { return B.CreateFAdd(X, Y); });
      break;
    case Op::VSubF32:
      Float([&](Value *X, Value *Y) { return B.CreateFSub(X, Y); });
      break;
    case Op::VSubrevF32:
      Float([&](Value *X, Value *Y) { return B.CreateFSub(Y, X); });
      break;
    case Op::VMulF32:
      Float([&](Value *X, Value *Y) { return B.CreateFMul(X, Y); });
      break;
    case Op::VFmaF32:
      R = asInt(B.CreateIntrinsic(Intrinsic::fma, {Floats},
                                  {asFloat(A), asFloat(Bv),
                                   asFloat(readV(I.Src[2]))}));
      break;
    case Op::VAddU32:
      R = B.CreateAdd(A, Bv);
      break;
    case Op::VSubU32:
      R = B.CreateSub(A, Bv);
      break;
    case Op::VSubrevU32:
      R = B.CreateSub(Bv, A);
      break;
    case Op::VAnd:
      R = B.CreateAnd(A, Bv);
      break;
    case Op::VOr:
      R = B.CreateOr(A, Bv);
      break;
    case Op::VXor:
      R = B.CreateXor(A, Bv);
      break;
    case Op::VNot:
      R = B.CreateNot(A);
      break;
    case Op::VLshlrev:
      R = B.CreateShl(Bv, shiftAmount(A));
      break;
    case Op::VLshrrev:
      R = B.CreateLShr(Bv, shiftAmount(A));
      break;
    case Op::VAshrrev:
      R = B.CreateAShr(Bv, shiftAmount(A));
      break;
    case Op::VMulLo:
      R = B.CreateMul(A, Bv);
      break;
    case Op::VMulU24: {
      Value *Low24 = B.CreateVectorSplat(WaveSize, B.getInt32(0xffffff));
      R = B.CreateMul(B.CreateAnd(A, Low24), B.CreateAnd(Bv, Low24));
      break;
    }
    case Op::VCndmask:
      R = B.CreateSelect(lanes(maskIn(I)), Bv, A);
      break;
    case Op::VAddCo:
    case Op::VAddcCo:
    case Op::VSubCo:
    case Op::VSubbCo:
    case Op::VSubrevCo:
    case Op::VSubbrevCo:
      return emitCarry(O, I, A, Bv);
    default:
      return emitCompare(O, I, A, Bv);
    }
    writeV(I.Dst[0], R);
  }

  /// The carry forms (addCarry / subBorrow in VectorIntOps.cpp): the
  /// 32-bit result and a carry (borrow) mask of the EXEC lanes.
  void emitCarry(Op O, const DecodedInst &I, Value *A, Value *Bv) {
    bool Add = O == Op::VAddCo || O == Op::VAddcCo;
    bool Rev = O == Op::VSubrevCo || O == Op::VSubbrevCo;
    if (Rev)
      std::swap(A, Bv);
    Value *Cin = O == Op::VAddcCo || O == Op::VSubbCo || O == Op::VSubbrevCo
                     ? B.CreateZExt(lanes(maskIn(I)), Lanes)
                     : Constant::getNullValue(Lanes);
    Value *R, *C;
    if (Add) {
      Value *T = B.CreateAdd(A, Bv);
      R = B.CreateAdd(T, Cin);
      C = B.CreateOr(B.CreateICmpULT(T, A), B.CreateICmpULT(R, T));
    } else {
      Value *T = B.CreateSub(A, Bv);
      R = B.CreateSub(T, Cin);
      C = B.CreateOr(B.CreateICmpULT(A, Bv), B.CreateICmpULT(T, Cin));
    }
    Value *Exec = exec();
    writeMask(I.NumDst >= 2 ? &I.Dst[1] : nullptr, B.CreateAnd(mask(C), Exec));
    writeV(I.Dst[0], R);
  }

  void emitCompare(Op O, const DecodedInst &I, Value *A, Value *Bv) {
    static constexpr CmpInst::Predicate Preds[] = {
        CmpInst::ICMP_EQ,  CmpInst::ICMP_NE,  CmpInst::ICMP_ULT,
        CmpInst::ICMP_ULE, CmpInst::ICMP_UGT, CmpInst::ICMP_UGE,
        CmpInst::ICMP_EQ,  CmpInst::ICMP_NE,  CmpInst::ICMP_SLT,
        CmpInst::ICMP_SLE, CmpInst::ICMP_SGT, CmpInst::ICMP_SGE};
    unsigned K = unsigned(O) - unsigned(Op::VCmpEqU32);
    Value *M = mask(B.CreateICmp(Preds[K], A, Bv));
    writeMask(I.NumDst ? &I.Dst[0] : nullptr, B.CreateAnd(M, exec()));
  }

  // --- 64-bit lanes --------------------------------------------------------
  FixedVectorType *wideTy() { return FixedVectorType::get(I64, WaveSize); }
  FixedVectorType *doublesTy() {
    return FixedVectorType::get(B.getDoubleTy(), WaveSize);
  }
  /// A 64-bit source: a VGPR pair, or a scalar pair or constant broadcast.
  Value *readV64(const Operand &Op) {
    if (Op.K != Operand::Vgpr)
      return B.CreateVectorSplat(WaveSize, readS64(Op));
    Value *Lo = B.CreateZExt(readVIndex(Op.Index), wideTy());
    Value *Hi = B.CreateZExt(readVIndex(Op.Index + 1), wideTy());
    return B.CreateOr(Lo, B.CreateShl(Hi, splat64(32)));
  }
  void writeV64(const Operand &Dst, Value *Val) {
    writeVIndex(Dst.Index, B.CreateTrunc(Val, Lanes));
    writeVIndex(Dst.Index + 1, B.CreateTrunc(B.CreateLShr(Val, splat64(32)), Lanes));
  }
  Value *splat32(uint32_t X) { return B.CreateVectorSplat(WaveSize, B.getInt32(X)); }
  /// A 32-bit shift count as the hardware takes it: its low five bits.
  Value *shiftAmount(Value *X) { return B.CreateAnd(X, splat32(31)); }
  Value *splat64(uint64_t X) { return B.CreateVectorSplat(WaveSize, B.getInt64(X)); }

  /// Three-source integer operations and the 32-bit min/max/mul_hi
  /// (VectorIntOps.cpp).
  void emitIntOp(Op O, const DecodedInst &I) {
    Value *A = readV(I.Src[0]), *Bv = readV(I.Src[1]);
    Value *C = isThreeSource(O) ? readV(I.Src[2]) : nullptr;
    auto MulHi = [&](bool Signed) {
      auto Ext = [&](Value *X) {
        return Signed ? B.CreateSExt(X, wideTy()) : B.CreateZExt(X, wideTy());
      };
      return B.CreateTrunc(B.CreateLShr(B.CreateMul(Ext(A), Ext(Bv)), splat64(32)),
                           Lanes);
    };
    Value *R;
    switch (O) {
    case Op::VAdd3:
      R = B.CreateAdd(B.CreateAdd(A, Bv), C);
      break;
    case Op::VLshlAdd:
      R = B.CreateAdd(B.CreateShl(A, shiftAmount(Bv)), C);
      break;
    case Op::VAddLshl:
      R = B.CreateShl(B.CreateAdd(A, Bv), shiftAmount(C));
      break;
    case Op::VLshlOr:
      R = B.CreateOr(B.CreateShl(A, shiftAmount(Bv)), C);
      break;
    case Op::VAndOr:
      R = B.CreateOr(B.CreateAnd(A, Bv), C);
      break;
    case Op::VOr3:
      R = B.CreateOr(B.CreateOr(A, Bv), C);
      break;
    case Op::VXad:
      R = B.CreateAdd(B.CreateXor(A, Bv), C);
      break;
    case Op::VAlignbit: {
      // ({A, B} >> (C & 31)) truncated: a funnel shift right.
      R = B.CreateIntrinsic(Intrinsic::fshr, {Lanes}, {A, Bv, shiftAmount(C)});
      break;
    }
    case Op::VBfeU: {
      // Width C & 31 (0: no field) at offset B & 31.
      Value *W = shiftAmount(C);
      Value *Field = B.CreateLShr(A, shiftAmount(Bv));
      Value *Mask = B.CreateSub(B.CreateShl(splat32(1), W), splat32(1));
      R = B.CreateAnd(Field, Mask); // W == 0 gives mask 0
      break;
    }
    case Op::VBfi:
      R = B.CreateOr(B.CreateAnd(A, Bv), B.CreateAnd(B.CreateNot(A), C));
      break;
    case Op::VMulHiU32:
      R = MulHi(false);
      break;
    case Op::VMulHiI32:
      R = MulHi(true);
      break;
    case Op::VMinU32:
      R = B.CreateBinaryIntrinsic(Intrinsic::umin, A, Bv);
      break;
    case Op::VMinI32:
      R = B.CreateBinaryIntrinsic(Intrinsic::smin, A, Bv);
      break;
    case Op::VMaxU32:
      R = B.CreateBinaryIntrinsic(Intrinsic::umax, A, Bv);
      break;
    case Op::VMaxI32:
      R = B.CreateBinaryIntrinsic(Intrinsic::smax, A, Bv);
      break;
    default:
      llvm_unreachable("not an integer operation");
    }
    writeV(I.Dst[0], R);
  }

  /// Operations on 64-bit lanes.
  void emitWide(Op O, const DecodedInst &I) {
    if (O == Op::VMadU64U32) {
      // {vdst, carry} = A * B + C (u32 x u32 + u64), carry = the add's.
      Value *A = B.CreateZExt(readV(I.Src[0]), wideTy());
      Value *Bv = B.CreateZExt(readV(I.Src[1]), wideTy());
      Value *C = readV64(I.Src[2]);
      Value *S = B.CreateAdd(B.CreateMul(A, Bv), C);
      Value *Carry = mask(B.CreateICmpULT(S, C));
      writeMask(I.NumDst >= 2 ? &I.Dst[1] : nullptr, B.CreateAnd(Carry, exec()));
      return writeV64(I.Dst[0], S);
    }
    if (O == Op::VPkMovB32) {
      // Each result dword from either dword of its source, by op_sel.
      auto Dword = [&](const Operand &Src) {
        Value *X = readV64(Src);
        if (Src.Mods & 4)
          X = B.CreateLShr(X, splat64(32));
        return B.CreateTrunc(X, Lanes);
      };
      Value *Lo = Dword(I.Src[0]), *Hi = Dword(I.Src[1]);
      writeVIndex(I.Dst[0].Index, Lo);
      return writeVIndex(I.Dst[0].Index + 1, Hi);
    }
    if (O == Op::VLshlrev64 || O == Op::VLshrrev64 || O == Op::VAshrrev64) {
      Value *Amount =
          B.CreateZExt(B.CreateAnd(readV(I.Src[0]), splat32(63)), wideTy());
      Value *X = readV64(I.Src[1]);
      Value *R = O == Op::VLshlrev64   ? B.CreateShl(X, Amount)
                 : O == Op::VLshrrev64 ? B.CreateLShr(X, Amount)
                                       : B.CreateAShr(X, Amount);
      return writeV64(I.Dst[0], R);
    }
    auto F = [&](unsigned K) {
      return B.CreateBitCast(readV64(I.Src[K]), doublesTy());
    };
    Value *R;
    if (O == Op::VAddF64)
      R = B.CreateFAdd(F(0), F(1));
    else if (O == Op::VMulF64)
      R = B.CreateFMul(F(0), F(1));
    else
      R = B.CreateIntrinsic(Intrinsic::fma, {doublesTy()}, {F(0), F(1), F(2)});
    writeV64(I.Dst[0], B.CreateBitCast(R, wideTy()));
  }

  /// Conversions between 32-bit integers and f32/f64: rounding to nearest
  /// even, and float -> integer truncating with saturation, NaN -> 0
  /// (FloatMath's toIntSat), which is what fpto[su]i.sat do.
  void emitConvert(Op O, const DecodedInst &I) {
    switch (O) {
    case Op::VCvtF32I32:
      return writeV(I.Dst[0], asInt(B.CreateSIToFP(readV(I.Src[0]), Floats)));
    case Op::VCvtF32U32:
      return writeV(I.Dst[0], asInt(B.CreateUIToFP(readV(I.Src[0]), Floats)));
    case Op::VCvtF64I32:
      return writeV64(I.Dst[0], B.CreateBitCast(B.CreateSIToFP(readV(I.Src[0]),
                                                               doublesTy()),
                                                wideTy()));
    case Op::VCvtF64U32:
      return writeV64(I.Dst[0], B.CreateBitCast(B.CreateUIToFP(readV(I.Src[0]),
                                                               doublesTy()),
                                                wideTy()));
    default:
      break;
    }
    bool Signed = O == Op::VCvtI32F32 || O == Op::VCvtI32F64;
    bool Wide = O == Op::VCvtI32F64 || O == Op::VCvtU32F64;
    Value *X = Wide ? B.CreateBitCast(readV64(I.Src[0]), doublesTy())
                    : asFloat(readV(I.Src[0]));
    Value *R = B.CreateIntrinsic(
        Signed ? Intrinsic::fptosi_sat : Intrinsic::fptoui_sat,
        {Lanes, X->getType()}, {X});
    writeV(I.Dst[0], R);
  }

  /// Float compares (FloatMath's compare<P>, predicate by predicate).
  void emitFloatCompare(Op O, const DecodedInst &I) {
    static constexpr CmpInst::Predicate Preds[] = {
        CmpInst::FCMP_FALSE, CmpInst::FCMP_OLT, CmpInst::FCMP_OEQ,
        CmpInst::FCMP_OLE,   CmpInst::FCMP_OGT, CmpInst::FCMP_ONE,
        CmpInst::FCMP_OGE,   CmpInst::FCMP_ORD, CmpInst::FCMP_UNO,
        CmpInst::FCMP_ULT,   CmpInst::FCMP_UEQ, CmpInst::FCMP_ULE,
        CmpInst::FCMP_UGT,   CmpInst::FCMP_UNE, CmpInst::FCMP_UGE,
        CmpInst::FCMP_TRUE};
    bool Wide = O >= Op::VCmpF64First;
    unsigned K = unsigned(O) -
                 unsigned(Wide ? Op::VCmpF64First : Op::VCmpF32First);
    auto Src = [&](unsigned J) {
      return Wide ? B.CreateBitCast(readV64(I.Src[J]), doublesTy())
                  : asFloat(readV(I.Src[J]));
    };
    Value *M = mask(B.CreateFCmp(Preds[K], Src(0), Src(1)));
    writeMask(I.NumDst ? &I.Dst[0] : nullptr, B.CreateAnd(M, exec()));
  }

  /// v_readlane / v_readfirstlane / v_writelane (LaneOps.cpp): one lane,
  /// whatever EXEC says.
  void emitLane(Op O, const DecodedInst &I) {
    auto LaneOf = [&](const Operand &Op) {
      return B.CreateAnd(readS32(Op), B.getInt32(WaveSize - 1));
    };
    if (O == Op::VReadlane)
      return writeS32(I.Dst[0],
                      B.CreateExtractElement(readV(I.Src[0]), LaneOf(I.Src[1])));
    if (O == Op::VReadfirstlane) {
      // The first active lane; lane 0 when EXEC is empty.
      Value *First = B.CreateTrunc(
          B.CreateBinaryIntrinsic(Intrinsic::cttz, exec(), B.getTrue()), I32);
      Value *Lane = B.CreateSelect(B.CreateICmpEQ(exec(), B.getInt64(0)),
                                   B.getInt32(0), First);
      return writeS32(I.Dst[0], B.CreateExtractElement(readV(I.Src[0]), Lane));
    }
    Value *Old = readVIndex(I.Dst[0].Index);
    storeVIndex(I.Dst[0].Index,
                B.CreateInsertElement(Old, readS32(I.Src[0]), LaneOf(I.Src[1])));
  }

  /// s_and, s_or, s_xor, s_andn2, s_orn2 and s_not in either width: the
  /// result, with SCC = (result != 0).
  bool emitLogic(Op O, const DecodedInst &I, bool Wide) {
    auto Src = [&](unsigned K) {
      return Wide ? readS64(I.Src[K]) : readS32(I.Src[K]);
    };
    Value *R;
    switch (O) {
    case Op::SAnd32: case Op::SAnd64:
      R = B.CreateAnd(Src(0), Src(1));
      break;
    case Op::SOr32: case Op::SOr64:
      R = B.CreateOr(Src(0), Src(1));
      break;
    case Op::SXor32: case Op::SXor64:
      R = B.CreateXor(Src(0), Src(1));
      break;
    case Op::SAndn2_32: case Op::SAndn2_64:
      R = B.CreateAnd(Src(0), B.CreateNot(Src(1)));
      break;
    case Op::SOrn2_32: case Op::SOrn2_64:
      R = B.CreateOr(Src(0), B.CreateNot(Src(1)));
      break;
    case Op::SNot32: case Op::SNot64:
      R = B.CreateNot(Src(0));
      break;
    default:
      return false;
    }
    setScc(B.CreateICmpNE(R, Constant::getNullValue(R->getType())));
    if (Wide)
      writeS64(I.Dst[0], R);
    else
      writeS32(I.Dst[0], R);
    return true;
  }

  void emitScalar(Op O, const DecodedInst &I) {
    if (emitLogic(O, I, isScalar64(O)))
      return;
    if (isScalar64(O))
      return emitScalar64(O, I);
    auto Src = [&](unsigned K) { return readS32(I.Src[K]); };
    auto Nz = [&](Value *R) { setScc(B.CreateICmpNE(R, B.getInt32(0))); };
    auto Cmp = [&](CmpInst::Predicate P) {
      setScc(B.CreateICmp(P, Src(0), Src(1)));
    };
    auto Overflow = [&](Intrinsic::ID Id, Value *X, Value *Y) {
      Value *Pair = B.CreateBinaryIntrinsic(Id, X, Y);
      setScc(B.CreateExtractValue(Pair, 1));
      return B.CreateExtractValue(Pair, 0);
    };
    Value *R = nullptr;
    switch (O) {
    case Op::SMov32:
      R = Src(0);
      break;
    case Op::SMovk:
      R = B.getInt32(uint32_t(int32_t(int16_t(I.Imm[0]))));
      break;
    case Op::SAddU32:
      R = Overflow(Intrinsic::uadd_with_overflow, Src(0), Src(1));
      break;
    case Op::SSubU32:
      R = Overflow(Intrinsic::usub_with_overflow, Src(0), Src(1));
      break;
    case Op::SAddI32:
      R = Overflow(Intrinsic::sadd_with_overflow, Src(0), Src(1));
      break;
    case Op::SSubI32:
      R = Overflow(Intrinsic::ssub_with_overflow, Src(0), Src(1));
      break;
    case Op::SAddk:
      R = Overflow(Intrinsic::sadd_with_overflow, Src(0),
                   B.getInt32(uint32_t(int32_t(int16_t(I.Imm[0])))));
      break;
    case Op::SAddcU32:
    case Op::SSubbU32: {
      Value *X = B.CreateZExt(Src(0), I64), *Y = B.CreateZExt(Src(1), I64);
      Value *C = B.CreateZExt(scc(), I64);
      Value *W = O == Op::SAddcU32 ? B.CreateAdd(B.CreateAdd(X, Y), C)
                                   : B.CreateSub(B.CreateSub(X, Y), C);
      setScc(B.CreateTrunc(B.CreateLShr(W, 32), B.getInt1Ty()));
      R = B.CreateTrunc(W, I32);
      break;
    }
    case Op::SMulI32:
      R = B.CreateMul(Src(0), Src(1));
      break;
    case Op::SCselect32:
      R = B.CreateSelect(scc(), Src(0), Src(1));
      break;
    case Op::SLshl32:
      Nz(R = B.CreateShl(Src(0), B.CreateAnd(Src(1), 31)));
      break;
    case Op::SLshr32:
      Nz(R = B.CreateLShr(Src(0), B.CreateAnd(Src(1), 31)));
      break;
    case Op::SAshr32:
      Nz(R = B.CreateAShr(Src(0), B.CreateAnd(Src(1), 31)));
      break;
    case Op::SCmpEqI32: return Cmp(CmpInst::ICMP_EQ);
    case Op::SCmpLgI32: return Cmp(CmpInst::ICMP_NE);
    case Op::SCmpGtI32: return Cmp(CmpInst::ICMP_SGT);
    case Op::SCmpGeI32: return Cmp(CmpInst::ICMP_SGE);
    case Op::SCmpLtI32: return Cmp(CmpInst::ICMP_SLT);
    case Op::SCmpLeI32: return Cmp(CmpInst::ICMP_SLE);
    case Op::SCmpEqU32: return Cmp(CmpInst::ICMP_EQ);
    case Op::SCmpLgU32: return Cmp(CmpInst::ICMP_NE);
    case Op::SCmpGtU32: return Cmp(CmpInst::ICMP_UGT);
    case Op::SCmpGeU32: return Cmp(CmpInst::ICMP_UGE);
    case Op::SCmpLtU32: return Cmp(CmpInst::ICMP_ULT);
    case Op::SCmpLeU32: return Cmp(CmpInst::ICMP_ULE);
    default:
      llvm_unreachable("not a 32-bit scalar operation");
    }
    writeS32(I.Dst[0], R);
  }

  void emitScalar64(Op O, const DecodedInst &I) {
    auto Src = [&](unsigned K) { return readS64(I.Src[K]); };
    auto Nz = [&](Value *R) { setScc(B.CreateICmpNE(R, B.getInt64(0))); };
    Value *R = nullptr;
    switch (O) {
    case Op::SMov64:
      R = Src(0);
      break;
    case Op::SCselect64:
      R = B.CreateSelect(scc(), Src(0), Src(1));
      break;
    case Op::SCmpEqU64:
      return setScc(B.CreateICmpEQ(Src(0), Src(1)));
    case Op::SCmpLgU64:
      return setScc(B.CreateICmpNE(Src(0), Src(1)));
    case Op::SAndSaveexec:
    case Op::SOrSaveexec:
    case Op::SXorSaveexec:
    case Op::SAndn2Saveexec: {
      // sdst = the old EXEC; EXEC = F(ssrc0, EXEC); SCC = EXEC != 0.
      Value *X = Src(0), *Old = exec(), *New;
      if (O == Op::SAndSaveexec)
        New = B.CreateAnd(X, Old);
      else if (O == Op::SOrSaveexec)
        New = B.CreateOr(X, Old);
      else if (O == Op::SXorSaveexec)
        New = B.CreateXor(X, Old);
      else
        New = B.CreateAnd(X, B.CreateNot(Old));
      writeS64(I.Dst[0], Old);
      writePair(SgprExecLo, New);
      return Nz(New);
    }
    default:
      llvm_unreachable("not a 64-bit scalar operation");
    }
    writeS64(I.Dst[0], R);
  }

  Value *branchTaken(Op O) {
    switch (O) {
    case Op::SBranch:
      return B.getTrue();
    case Op::SCbranchScc0:
      return B.CreateNot(scc());
    case Op::SCbranchScc1:
      return scc();
    case Op::SCbranchVccz:
      return B.CreateICmpEQ(vcc(), B.getInt64(0));
    case Op::SCbranchVccnz:
      return B.CreateICmpNE(vcc(), B.getInt64(0));
    case Op::SCbranchExecz:
      return B.CreateICmpEQ(exec(), B.getInt64(0));
    case Op::SCbranchExecnz:
      return B.CreateICmpNE(exec(), B.getInt64(0));
    default:
      llvm_unreachable("not a branch");
    }
  }

  IRBuilder<> B;
  Type *I32, *I64;
  FixedVectorType *Lanes, *Floats, *Bits;
  Value *S, *V, *SccPtr;
  Value *Executions, *LaneCounts; // null: not counting
  /// EXEC is known to be all ones here (the full-EXEC copy, until an
  /// instruction writes EXEC).
  bool ExecFull = false;
};

//===----------------------------------------------------------------------===//
// The JIT
//===----------------------------------------------------------------------===//

} // namespace

/// One ORC JIT for the process, for every device: compiling is rare (a
/// trace once it is hot) and serialised.
class Engine {
public:
  static Expected<Engine &> get() {
    static Engine E;
    if (!E.J)
      return createStringError(inconvertibleErrorCode(), E.InitError);
    return E;
  }

  /// The host function for the trace at \p At, compiled or from the
  /// cache.
  Expected<void *> get(TraceStart At, ArrayRef<Op> Ops, bool Counted,
                       StringRef Name) {
    std::lock_guard<std::mutex> G(Lock);
    std::string Key = keyOf(At, Ops, Counted);
    auto It = Cache.find(Key);
    if (It != Cache.end()) {
      ++Totals.Reused;
      return It->second;
    }
    auto Start = std::chrono::steady_clock::now();
    Expected<void *> Fn = compile(At, Ops, Counted, Name);
    Totals.Seconds += std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - Start)
                          .count();
    if (Fn) {
      ++Totals.Compiled;
      Cache[Key] = *Fn;
    }
    return Fn;
  }

  TraceCompilerStats stats() {
    std::lock_guard<std::mutex> G(Lock);
    return Totals;
  }

private:
  Engine() {
    InitializeNativeTarget();
    InitializeNativeTargetAsmPrinter();
    auto JTMB = orc::JITTargetMachineBuilder::detectHost();
    if (!JTMB) {
      InitError = toString(JTMB.takeError());
      return;
    }
    JTMB->setCodeGenOptLevel(CodeGenOptLevel::Less);
    // No AVX-512: LLVM 22.1 computes the wrong truth table for a
    // merge-masked vpternlogd whose operands it reorders to fold a load
    // (llvm-project#157929, fixed by #209782 after 22.1.8): a v_bfi_b32
    // under EXEC came out wrong in the random corpus. AVX2 code is exact.
    JTMB->getFeatures().AddFeature("avx512f", false);
    CPU = JTMB->getCPU();
    Features = JTMB->getFeatures().getString();
    auto TMOr = JTMB->createTargetMachine();
    if (!TMOr) {
      InitError = toString(TMOr.takeError());
      return;
    }
    TM = std::move(*TMOr);
    auto JOr = orc::LLJITBuilder().setJITTargetMachineBuilder(*JTMB).create();
    if (!JOr) {
      InitError = toString(JOr.takeError());
      return;
    }
    J = std::move(*JOr);
  }

  Expected<void *> compile(TraceStart At, ArrayRef<Op> Ops, bool Counted,
                           StringRef Name) {
    std::string Symbol = "loom_trace_" + std::to_string(Totals.Compiled);
    auto Ctx = std::make_unique<LLVMContext>();
    auto M = std::make_unique<Module>(Symbol, *Ctx);
    M->setDataLayout(J->getDataLayout());
    M->setTargetTriple(J->getTargetTriple());
    Function *F = declare(*M, Symbol, Counted);
    TraceEmitter(*Ctx, *F).emit(At, Ops);
    if (verifyFunction(*F, &errs()))
      return createStringError(inconvertibleErrorCode(),
                               "trace at " + Name + ": invalid IR");
    optimize(*M);
    if (Error E = J->addIRModule(orc::ThreadSafeModule(
            std::move(M), orc::ThreadSafeContext(std::move(Ctx)))))
      return std::move(E);
    auto Addr = J->lookup(Symbol);
    if (!Addr)
      return Addr.takeError();
    return Addr->toPtr<void *>();
  }

  /// Everything the code of a trace depends on: the operations, their
  /// operands and immediates, which ones count lanes, and branch targets
  /// relative to the head.
  static std::string keyOf(TraceStart At, ArrayRef<Op> Ops, bool Counted) {
    std::string Key;
    auto Put = [&](const auto &X) {
      Key.append(reinterpret_cast<const char *>(&X), sizeof(X));
    };
    auto PutOperand = [&](const Operand &O) {
      Put(O.K);
      Put(O.Regs);
      Put(O.Index);
      Put(O.Value);
      Put(O.Mods); // v_pk_mov_b32's op_sel
    };
    Put(Counted);
    for (size_t K = 0; K < Ops.size(); ++K) {
      const DecodedInst &I = At.Head[K];
      Put(Ops[K]);
      Put(bool(I.Flags & FlagVector));
      Put(I.NumDst);
      Put(I.NumSrc);
      Put(I.NumImm);
      for (unsigned J = 0; J < I.NumDst; ++J)
        PutOperand(I.Dst[J]);
      for (unsigned J = 0; J < I.NumSrc; ++J)
        PutOperand(I.Src[J]);
      for (unsigned J = 0; J < I.NumImm; ++J)
        Put(I.Imm[J]);
      if (isBranch(Ops[K]))
        Put(At.relativeTarget(K));
    }
    return Key;
  }

  /// A trace function: every pointer argument is its own memory.
  Function *declare(Module &M, const std::string &Symbol, bool Counted) {
    LLVMContext &Ctx = M.getContext();
    PointerType *Ptr = PointerType::getUnqual(Ctx);
    SmallVector<Type *, 5> Params(Counted ? 5 : 3, Ptr);
    FunctionType *Ty =
        FunctionType::get(Type::getInt32Ty(Ctx), Params, /*isVarArg=*/false);
    Function *F = Function::Create(Ty, Function::ExternalLinkage, Symbol, M);
    for (unsigned K = 0; K < Params.size(); ++K) {
      F->addParamAttr(K, Attribute::NoAlias);
      F->addParamAttr(K, Attribute::NoUndef);
    }
    F->addFnAttr(Attribute::NoUnwind);
    F->addFnAttr("target-cpu", CPU);
    F->addFnAttr("target-features", Features);
    return F;
  }

  /// Forwarding of stored register values to later reads, dead stores,
  /// and the usual clean-up: what turns the naive IR into tight code.
  void optimize(Module &M) {
    LoopAnalysisManager LAM;
    FunctionAnalysisManager FAM;
    CGSCCAnalysisManager CGAM;
    ModuleAnalysisManager MAM;
    PassBuilder PB(TM.get());
    PB.registerModuleAnalyses(MAM);
    PB.registerCGSCCAnalyses(CGAM);
    PB.registerFunctionAnalyses(FAM);
    PB.registerLoopAnalyses(LAM);
    PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
    FunctionPassManager FPM;
    FPM.addPass(EarlyCSEPass(/*UseMemorySSA=*/true));
    FPM.addPass(InstCombinePass());
    FPM.addPass(DSEPass());
    ModulePassManager MPM;
    MPM.addPass(createModuleToFunctionPassAdaptor(std::move(FPM)));
    MPM.run(M, MAM);
  }

  std::mutex Lock;
  std::unique_ptr<orc::LLJIT> J;
  std::unique_ptr<TargetMachine> TM;
  std::string CPU, Features, InitError;
  StringMap<void *> Cache;
  TraceCompilerStats Totals;
};

template <class Fn>
static Expected<Fn> compileAs(const DecodedInst *Head, uint32_t HeadIndex,
                              ArrayRef<Op> Ops, bool Counted, StringRef Name) {
  auto E = Engine::get();
  if (!E)
    return E.takeError();
  auto Code = E->get({Head, HeadIndex}, Ops, Counted, Name);
  if (!Code)
    return Code.takeError();
  return reinterpret_cast<Fn>(*Code);
}

Expected<TraceFn> compileTrace(const DecodedInst *Head, uint32_t HeadIndex,
                               ArrayRef<Op> Ops, StringRef Name) {
  return compileAs<TraceFn>(Head, HeadIndex, Ops, false, Name);
}

Expected<CountedTraceFn> compileCountedTrace(const DecodedInst *Head,
                                             uint32_t HeadIndex,
                                             ArrayRef<Op> Ops,
                                             StringRef Name) {
  return compileAs<CountedTraceFn>(Head, HeadIndex, Ops, true, Name);
}

} // namespace loom::emu::trace

namespace loom::emu {

TraceCompilerStats traceCompilerStats() {
  auto E = trace::Engine::get();
  if (!E) {
    consumeError(E.takeError());
    return {};
  }
  return E->stats();
}

} // namespace loom::emu
