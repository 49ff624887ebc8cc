//===- instrument/PointCompiler.cpp - Hook calls to machine code ----------===//

#include "PointCompiler.h"

#include "loom/codeobj/CodeObject.h"
#include "loom/instrument/BinaryContext.h"
#include "loom/instrument/LaunchHeader.h"
#include "loom/instrument/Liveness.h"
#include "loom/instrument/MemoryWaits.h"
#include "loom/isa/McContext.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicsAMDGPU.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstrDesc.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/xxhash.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <cstddef>
#include <map>
#include <mutex>

using namespace llvm;

namespace loom::instrument::detail {

namespace {

Error fail(const Twine &Msg) { return createStringError(Msg.str()); }

/// What LLVM puts first in a callable function.
constexpr StringLiteral EntryWait = "s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)";

/// First index and count of the one kind of register an MC register covers.
struct RegRange {
  enum KindTy : uint8_t { None, Sgpr, Vgpr, Agpr } Kind = None;
  unsigned First = 0, Count = 0;
};

RegRange rangeOf(const InstrAnalyzer &A, unsigned Reg) {
  RegRange R;
  A.unitsOf(Reg).forEachUnit([&](unsigned U) {
    RegRange::KindTy K;
    unsigned N;
    if (U < RegisterSet::VgprBase) {
      K = RegRange::Sgpr;
      N = U - RegisterSet::SgprBase;
    } else if (U < RegisterSet::AgprBase) {
      K = RegRange::Vgpr;
      N = U - RegisterSet::VgprBase;
    } else if (U < RegisterSet::SpecialBase) {
      K = RegRange::Agpr;
      N = U - RegisterSet::AgprBase;
    } else {
      return;
    }
    if (R.Count == 0) {
      R.Kind = K;
      R.First = N;
    }
    if (K == R.Kind)
      ++R.Count;
  });
  return R;
}

/// Where a memory instruction's per-lane address comes from, and how the
/// hardware forms it (docs/instrument.md, "Memory addresses").
struct AddressParts {
  enum FormTy : uint8_t {
    Vector, ///< vaddr [+ saddr] + offset (global, flat)
    Lds,    ///< vaddr + offset, 32 bits
    Scratch,///< [vaddr] + [saddr] + offset, 32 bits: a private offset
    Scalar, ///< sbase + [soffset] + offset, dword aligned
    ScalarBuffer, ///< V# base + [soffset] + offset, dword aligned
    Buffer, ///< V# base + soffset + the lane's index and offset (MUBUF)
  } Form = Vector;
  RegRange Vaddr;   ///< 2 VGPRs (flat, global; a buffer's index and
                    ///< offset), or 1 (saddr form, LDS, scratch, buffer)
  RegRange Saddr;   ///< 2 SGPRs (global saddr form, scalar base)
  RegRange Soffset; ///< 1 SGPR (scalar and buffer soffset, scratch saddr)
  RegRange Rsrc;    ///< 4 SGPRs: the V# of buffer and s_buffer accesses
  int64_t Offset = 0;
  /// The instruction's offset field alone (a buffer's without an
  /// immediate soffset; an LDS pair's unscaled offset0).
  int64_t Field = 0;
  bool HasIndex = false, HasOffset = false; ///< buffer: what Vaddr holds
  bool is32Bit() const { return Form == Lds || Form == Scratch; }
};

/// A MUBUF instruction's operands: [vdata,] [vaddr,] srsrc, soffset,
/// offset, ... (vaddr by the form: OFFEN an offset, IDXEN an index, BOTHEN
/// both; OFFSET none).
Error bufferParts(const MCInst &Inst, const InstrAnalyzer &A, StringRef Name,
                  AddressParts &P) {
  P.Form = AddressParts::Buffer;
  P.HasIndex = Name.contains("_IDXEN") || Name.contains("_BOTHEN");
  P.HasOffset = Name.contains("_OFFEN") || Name.contains("_BOTHEN");
  if (!P.HasIndex && !P.HasOffset && !Name.contains("_OFFSET"))
    return fail("cannot tell the addressing form of " + Name);
  for (unsigned Op = 0; Op + 2 < Inst.getNumOperands(); ++Op) {
    const MCOperand &O = Inst.getOperand(Op);
    if (!O.isReg())
      continue;
    RegRange R = rangeOf(A, O.getReg().id());
    if (R.Kind != RegRange::Sgpr || R.Count != 4)
      continue;
    P.Rsrc = R;
    const MCOperand &SOff = Inst.getOperand(Op + 1),
                    &Off = Inst.getOperand(Op + 2);
    if (!Off.isImm())
      break;
    P.Offset = P.Field = Off.getImm();
    if (SOff.isImm()) {
      P.Offset += SOff.getImm();
    } else if (SOff.isReg()) {
      P.Soffset = rangeOf(A, SOff.getReg().id());
      if (P.Soffset.Kind != RegRange::Sgpr || P.Soffset.Count != 1)
        return fail("the soffset of " + Name + " is not an SGPR");
    }
    if (P.HasIndex || P.HasOffset) {
      if (Op == 0 || !Inst.getOperand(Op - 1).isReg())
        break;
      P.Vaddr = rangeOf(A, Inst.getOperand(Op - 1).getReg().id());
      if (P.Vaddr.Kind != RegRange::Vgpr ||
          P.Vaddr.Count != 1u + (P.HasIndex && P.HasOffset))
        break;
    }
    return Error::success();
  }
  return fail("cannot find the address operands of " + Name);
}

/// Whether memoryBaseOf leaves \p P's offset out: not a scalar or buffer
/// access's (their offsets take part in masks and range checks).
bool baseLeavesOffset(const AddressParts &P) {
  return P.Form == AddressParts::Vector || P.Form == AddressParts::Lds ||
         P.Form == AddressParts::Scratch;
}

Expected<AddressParts> addressParts(const BinaryInstruction &I,
                                    const InstrAnalyzer &A) {
  const MCInst &Inst = I.Inst;
  isa::McContext &MC = A.mc();
  StringRef Name = MC.opcodeBaseName(Inst.getOpcode());
  const MCInstrDesc &D = MC.desc(Inst.getOpcode());
  AddressParts P;
  MemoryKind K = I.Props.Memory;
  if (K == MemoryKind::Buffer) {
    if (Error E = bufferParts(Inst, A, Name, P))
      return std::move(E);
    return P;
  }
  if (K != MemoryKind::Global && K != MemoryKind::Flat &&
      K != MemoryKind::Lds && K != MemoryKind::Scalar &&
      K != MemoryKind::Scratch)
    return fail("the address of a " + memoryKindName(K) +
                " access is not available to hooks yet");
  bool ScalarBuffer = Name.starts_with("S_BUFFER_");
  if (K == MemoryKind::Scalar && !ScalarBuffer &&
      !Name.starts_with("S_LOAD") && !Name.starts_with("S_STORE") &&
      !Name.starts_with("S_ATOMIC"))
    return fail("the address of " + Name + " is not available to hooks");
  if (K == MemoryKind::Scalar)
    P.Form = ScalarBuffer ? AddressParts::ScalarBuffer : AddressParts::Scalar;
  else if (K == MemoryKind::Lds)
    P.Form = AddressParts::Lds;
  else if (K == MemoryKind::Scratch)
    P.Form = AddressParts::Scratch;
  bool TakesVaddr = K != MemoryKind::Scalar &&
                    !(K == MemoryKind::Scratch &&
                      (Name.ends_with("_SADDR") || Name.ends_with("_ST")));
  // The data of a scalar store or atomic, and of a scratch store, comes
  // before the address in the MC operands.
  bool SkipData = (K == MemoryKind::Scalar &&
                   I.Props.Direction != MemoryDirection::Load) ||
                  (K == MemoryKind::Scratch &&
                   I.Props.Direction == MemoryDirection::Store);
  bool SeenImm = false;
  for (unsigned Op = D.getNumDefs(); Op < Inst.getNumOperands(); ++Op) {
    const MCOperand &O = Inst.getOperand(Op);
    if (O.isReg() && SkipData) {
      SkipData = false;
    } else if (O.isReg()) {
      RegRange R = rangeOf(A, O.getReg().id());
      if (R.Kind == RegRange::Vgpr && P.Vaddr.Count == 0 && TakesVaddr)
        P.Vaddr = R;
      else if (R.Kind == RegRange::Sgpr && R.Count == 2 && P.Saddr.Count == 0 &&
               P.Form != AddressParts::ScalarBuffer)
        P.Saddr = R;
      else if (R.Kind == RegRange::Sgpr && R.Count == 4 &&
               P.Form == AddressParts::ScalarBuffer && P.Rsrc.Count == 0)
        P.Rsrc = R;
      else if (R.Kind == RegRange::Sgpr && R.Count == 1 &&
               (K == MemoryKind::Scalar || K == MemoryKind::Scratch) &&
               P.Soffset.Count == 0)
        P.Soffset = R;
    } else if (O.isImm() && !SeenImm) {
      SeenImm = true;
      P.Offset = O.getImm();
    }
  }
  // The decoder gives FLAT-encoded offsets as their field: 12 bits,
  // unsigned, for flat_*; 13 bits, signed, for global_* and scratch_*
  // (-4 comes as 0x1ffc).
  if (K == MemoryKind::Flat)
    P.Offset &= 0xfff;
  else if (K == MemoryKind::Global || K == MemoryKind::Scratch)
    P.Offset = SignExtend64<13>(uint64_t(P.Offset));
  P.Field = P.Offset;
  switch (P.Form) {
  case AddressParts::Lds:
    if (I.Props.AccessesPerLane == 2)
      P.Offset *= int64_t(I.Props.AccessBytes) * (Name.contains("ST64") ? 64 : 1);
    if (P.Vaddr.Count != 1)
      return fail("cannot find the address operand of " + Name);
    break;
  case AddressParts::Scalar:
    if (P.Saddr.Count != 2)
      return fail("cannot find the base address operand of " + Name);
    break;
  case AddressParts::ScalarBuffer:
    if (P.Rsrc.Count != 4)
      return fail("cannot find the buffer resource operand of " + Name);
    break;
  case AddressParts::Scratch:
    if (P.Vaddr.Count > 1 || (TakesVaddr && P.Vaddr.Count != 1))
      return fail("cannot find the address operand of " + Name);
    break;
  default:
    if (P.Vaddr.Count != 2 && !(P.Vaddr.Count == 1 && P.Saddr.Count == 2))
      return fail("cannot find the address operands of " + Name);
    break;
  }
  return P;
}

/// The parts of the address \p Arg (a MemoryAddress) passes for \p I: less
/// the offset for HookArg::memoryBaseOf, where the host can add it.
Expected<AddressParts> argAddressParts(const HookArg &Arg,
                                       const BinaryInstruction &I,
                                       const InstrAnalyzer &A) {
  Expected<AddressParts> P = addressParts(I, A);
  if (P && Arg.withoutOffset() && baseLeavesOffset(*P))
    P->Offset = 0;
  return P;
}

/// The functions Hooks.h declares and each point defines, from the
/// launch state (__loom_tool_slot is a constant per tool, set in loadHooks).
enum class HookIntrinsic : uint8_t { LaunchHeader, WorkgroupIdX, WorkgroupIdY,
                                 WorkgroupIdZ, WaveId, WaveWorkItem,
                                 LaneWord, DispatchPacket, KernargSegment };
constexpr std::pair<const char *, HookIntrinsic> Intrinsics[] = {
    {"__loom_launch_header", HookIntrinsic::LaunchHeader},
    {"__loom_workgroup_id_x", HookIntrinsic::WorkgroupIdX},
    {"__loom_workgroup_id_y", HookIntrinsic::WorkgroupIdY},
    {"__loom_workgroup_id_z", HookIntrinsic::WorkgroupIdZ},
    {"__loom_wave_id", HookIntrinsic::WaveId},
    {"__loom_wave_work_item", HookIntrinsic::WaveWorkItem},
    {"__loom_lane_word", HookIntrinsic::LaneWord},
    {"__loom_dispatch_packet", HookIntrinsic::DispatchPacket},
    {"__loom_kernarg_segment", HookIntrinsic::KernargSegment},
};

/// The intrinsics each function of the hook module reaches through calls,
/// as a mask of 1 << HookIntrinsic.
class IntrinsicUses {
public:
  explicit IntrinsicUses(Module &M) {
    for (auto [Name, I] : Intrinsics)
      if (Function *F = M.getFunction(Name))
        Known[F] = 1u << unsigned(I);
  }
  unsigned of(Function *F) {
    auto [It, New] = Known.try_emplace(F, 0);
    if (!New || F->isDeclaration())
      return It->second;
    unsigned Mask = 0;
    for (Instruction &I : instructions(*F))
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (Function *Callee = CB->getCalledFunction())
          Mask |= of(Callee);
    Known[F] = Mask;
    return Mask;
  }

private:
  DenseMap<Function *, unsigned> Known;
};

/// Builds one point function in \p M.
class PointBuilder {
public:
  PointBuilder(Module &M, const InstrAnalyzer &A)
      : M(M), A(A), Ctx(M.getContext()), Uses(M) {}

  /// The raw inputs every argument of \p P needs, into \p Out; returns
  /// the point's shape: points of one shape compile to the same code.
  Expected<std::string> prepare(const PointSpec &P, CompiledPoint &Out) {
    NextImm = 0;
    Key.clear();
    Needs = 0;
    // The launch state the hooks read through Hooks.h comes first: most
    // read it on a path of their own (a new chunk, say), and LLVM leaves
    // the first parameter registers alone more often than later ones,
    // whose registers it reuses on the common path after copying the
    // state away (BodyPlacement.h reads passed values where they are, not
    // copies the body makes).
    for (const HookCall &C : P.Calls)
      if (Function *Hook = M.getFunction(C.Hook))
        Needs |= Uses.of(Hook);
    for (auto [Name, I] : Intrinsics)
      if (Needs & 1u << unsigned(I))
        useIntrinsic(Out, I);
    for (const HookCall &C : P.Calls) {
      Key += C.Hook + "(";
      for (const HookArg &Arg : C.Args) {
        Key += std::to_string(unsigned(Arg.kind())) + "/" +
               std::to_string(Arg.bits()) + ":";
        if (Error E = collect(P, Arg, Out))
          return std::move(E);
        Key += ";";
      }
      Key += ")";
      if (C.Result) {
        // Its value leaves the body in the counter's parameter registers.
        Key += "=>" + std::to_string(*C.Result);
        for (bool High : {false, true}) {
          RawInput R{RawInput::Kind::State, waveCounterState(*C.Result, High)};
          use(Out, R);
          std::pair<unsigned, unsigned> Result{input(Out.SgprInputs, R), R.N};
          if (!is_contained(Out.Results, Result))
            Out.Results.push_back(Result);
        }
      }
    }
    Key += "|";
    for (const RawInput &R : Out.SgprInputs)
      Key += std::to_string(unsigned(R.K)) +
             (R.K == RawInput::Kind::State ? "." + std::to_string(R.N) : "") +
             ",";
    Key += "|";
    for (const RawInput &R : Out.VgprInputs)
      Key += std::to_string(unsigned(R.K)) + ",";
    return Key;
  }

  /// Builds __loom_point_<Index> for \p P, prepared into \p Out.
  Error build(const PointSpec &P, unsigned Index, CompiledPoint &Out) {
    ValueImm = 0;
    if (Out.SgprInputs.size() > MaxSgprParams ||
        Out.VgprInputs.size() > MaxVgprParams)
      return fail(P.Where + ": too many register values passed to hooks (" +
                  Twine(Out.SgprInputs.size()) + " scalar, " +
                  Twine(Out.VgprInputs.size()) + " vector; at most " +
                  Twine(MaxSgprParams) + " and " + Twine(MaxVgprParams) + ")");

    Type *I32 = Type::getInt32Ty(Ctx);
    SmallVector<Type *, 16> Params(Out.SgprInputs.size() + Out.VgprInputs.size(),
                                   I32);
    auto *FT = FunctionType::get(Type::getVoidTy(Ctx), Params, false);
    Function *F = Function::Create(FT, GlobalValue::ExternalLinkage,
                                   "__loom_point_" + Twine(Index), M);
    for (unsigned I = 0; I < Out.SgprInputs.size(); ++I)
      F->addParamAttr(I, Attribute::InReg);
    // The point is no callee of a kernel's ABI: it gets no implicit inputs.
    for (StringRef Attr :
         {"amdgpu-no-workitem-id-x", "amdgpu-no-workitem-id-y",
          "amdgpu-no-workitem-id-z", "amdgpu-no-workgroup-id-x",
          "amdgpu-no-workgroup-id-y", "amdgpu-no-workgroup-id-z",
          "amdgpu-no-dispatch-ptr", "amdgpu-no-queue-ptr",
          "amdgpu-no-implicitarg-ptr", "amdgpu-no-dispatch-id",
          "amdgpu-no-lds-kernel-id", "amdgpu-no-flat-scratch-init",
          "amdgpu-no-heap-ptr", "amdgpu-no-hostcall-ptr",
          "amdgpu-no-multigrid-sync-arg", "amdgpu-no-default-queue",
          "amdgpu-no-completion-action"})
      F->addFnAttr(Attr);
    F->addFnAttr(Attribute::NoUnwind);
    IRBuilder<> B(BasicBlock::Create(Ctx, "entry", F));
    Fn = F;
    Sgprs = &Out.SgprInputs;
    Vgprs = &Out.VgprInputs;
    Defined.clear();
    WaveValues.clear();

    for (const HookCall &C : P.Calls) {
      Function *Hook = M.getFunction(C.Hook);
      if (!Hook || Hook->isDeclaration())
        return fail(P.Where + ": no hook named '" + C.Hook +
                    "' in the tools' hooks (mark it LOOM_HOOK)");
      FunctionType *HT = Hook->getFunctionType();
      if (HT->getNumParams() != C.Args.size())
        return fail(P.Where + ": hook '" + C.Hook + "' takes " +
                    Twine(HT->getNumParams()) + " arguments, " +
                    Twine(C.Args.size()) + " given");
      SmallVector<Value *, 8> Args;
      for (unsigned I = 0; I < C.Args.size(); ++I) {
        Value *V = value(B, P, C.Args[I]);
        Expected<Value *> Conv = convert(B, V, HT->getParamType(I));
        if (!Conv)
          return fail(P.Where + ": hook '" + C.Hook + "' argument " +
                      Twine(I + 1) + " (" + C.Args[I].str() +
                      "): " + toString(Conv.takeError()));
        Args.push_back(*Conv);
      }
      CallInst *Call = B.CreateCall(Hook, Args);
      if (C.Result) {
        Type *RT = HT->getReturnType();
        if (!RT->isIntegerTy() || RT->getIntegerBitWidth() > 64)
          return fail(P.Where + ": hook '" + C.Hook + "' returns into wave "
                      "counter " + Twine(*C.Result) + ": it must return an "
                      "integer of at most 64 bits");
        WaveValues[*C.Result] = B.CreateZExt(Call, B.getInt64Ty());
      }
    }
    // Each counter's last value, pinned where the body ends to the
    // parameter registers Out.Results names (the glue copies them back).
    for (auto [N, V] : WaveValues) {
      RawInput Lo{RawInput::Kind::State, waveCounterState(N, false)};
      RawInput Hi{RawInput::Kind::State, waveCounterState(N, true)};
      std::string Constraints =
          "{s" + std::to_string(Out.FirstSgpr + input(*Sgprs, Lo)) + "},{s" +
          std::to_string(Out.FirstSgpr + input(*Sgprs, Hi)) + "}";
      Type *I32 = B.getInt32Ty();
      auto *Pin = InlineAsm::get(
          FunctionType::get(B.getVoidTy(), {I32, I32}, false), "",
          Constraints, /*hasSideEffects=*/true);
      B.CreateCall(Pin, {B.CreateTrunc(V, I32),
                         B.CreateTrunc(B.CreateLShr(V, 32), I32)});
    }
    B.CreateRetVoid();
    // The intrinsics' values, computed at the entry, where they dominate
    // every use the inlined hooks will have.
    B.SetInsertPoint(&F->getEntryBlock(), F->getEntryBlock().begin());
    for (auto [Name, I] : Intrinsics)
      if (Needs & 1u << unsigned(I))
        Defined[Name] = intrinsic(B, I);
    return Error::success();
  }

  /// Inlines every call of point \p F, then replaces the intrinsics' calls
  /// with their values.
  Error finish(Function &F, const PointSpec &P) {
    for (unsigned Budget = 100000;;) {
      SmallVector<CallBase *, 16> Calls;
      for (Instruction &I : instructions(F))
        if (auto *CB = dyn_cast<CallBase>(&I))
          if (Function *Callee = CB->getCalledFunction())
            if (!Callee->isDeclaration())
              Calls.push_back(CB);
      if (Calls.empty())
        break;
      for (CallBase *CB : Calls) {
        if (Budget-- == 0)
          return fail(P.Where + ": the hooks do not inline (recursion?)");
        InlineFunctionInfo IFI;
        InlineResult R = InlineFunction(*CB, IFI);
        if (!R.isSuccess())
          return fail(P.Where + ": cannot inline " +
                      CB->getCalledFunction()->getName() + ": " +
                      R.getFailureReason());
      }
    }
    SmallVector<CallBase *, 8> Dead;
    for (Instruction &I : instructions(F))
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (Function *Callee = CB->getCalledFunction()) {
          auto It = Defined.find(Callee->getName());
          if (It == Defined.end())
            continue;
          CB->replaceAllUsesWith(It->second);
          Dead.push_back(CB);
        }
    for (CallBase *CB : Dead)
      CB->eraseFromParent();
    return Error::success();
  }

  /// The values of the intrinsics of the point built last.
  StringMap<Value *> Defined;

private:
  void useIntrinsic(CompiledPoint &Out, HookIntrinsic I) {
    auto State = [&](LaunchState S) {
      use(Out, {RawInput::Kind::State, unsigned(S)});
    };
    switch (I) {
    case HookIntrinsic::LaunchHeader:
      State(LaunchState::HeaderLo);
      State(LaunchState::HeaderHi);
      return;
    case HookIntrinsic::WorkgroupIdX:
      State(LaunchState::WorkgroupIdX);
      return;
    case HookIntrinsic::WorkgroupIdY:
      State(LaunchState::WorkgroupIdY);
      return;
    case HookIntrinsic::WorkgroupIdZ:
      State(LaunchState::WorkgroupIdZ);
      return;
    case HookIntrinsic::WaveId:
      // From the first lane's work-item id and the work-group's size,
      // which is smaller than asked at the grid's edge.
      State(LaunchState::HeaderLo);
      State(LaunchState::HeaderHi);
      State(LaunchState::WorkgroupIdX);
      State(LaunchState::WorkgroupIdY);
      State(LaunchState::WorkgroupIdZ);
      State(LaunchState::WaveTid);
      return;
    case HookIntrinsic::WaveWorkItem:
      State(LaunchState::WaveTid);
      return;
    case HookIntrinsic::LaneWord:
      use(Out, {RawInput::Kind::LaneWord, 0});
      return;
    case HookIntrinsic::DispatchPacket:
      State(LaunchState::DispatchPtrLo);
      State(LaunchState::DispatchPtrHi);
      return;
    case HookIntrinsic::KernargSegment:
      State(LaunchState::KernargLo);
      State(LaunchState::KernargHi);
      return;
    }
  }

  Value *state(LaunchState S) { return raw({RawInput::Kind::State, unsigned(S)}); }

  /// The address a pair of launch states holds (\p Lo, and the next).
  Value *statePointer(IRBuilder<> &B, LaunchState Lo) {
    return B.CreateIntToPtr(
        pair(B, {RawInput::Kind::State, unsigned(Lo)},
             {RawInput::Kind::State, unsigned(Lo) + 1}),
        B.getPtrTy());
  }
  Value *header(IRBuilder<> &B) {
    return statePointer(B, LaunchState::HeaderLo);
  }
  /// A field of the launch header, read as \p Ty.
  Value *headerField(IRBuilder<> &B, size_t Offset, Type *Ty) {
    Value *Addr = B.CreateConstGEP1_64(B.getInt8Ty(), header(B), Offset);
    LoadInst *L = B.CreateAlignedLoad(Ty, Addr, Align(2));
    L->setMetadata(LLVMContext::MD_invariant_load, MDNode::get(Ctx, {}));
    return L;
  }

  Value *intrinsic(IRBuilder<> &B, HookIntrinsic I) {
    switch (I) {
    case HookIntrinsic::LaunchHeader:
      return header(B);
    case HookIntrinsic::WorkgroupIdX:
      return state(LaunchState::WorkgroupIdX);
    case HookIntrinsic::WorkgroupIdY:
      return state(LaunchState::WorkgroupIdY);
    case HookIntrinsic::WorkgroupIdZ:
      return state(LaunchState::WorkgroupIdZ);
    case HookIntrinsic::WaveId:
      return waveId(B);
    case HookIntrinsic::WaveWorkItem:
      return state(LaunchState::WaveTid);
    case HookIntrinsic::LaneWord:
      return raw({RawInput::Kind::LaneWord, 0});
    case HookIntrinsic::DispatchPacket:
      return statePointer(B, LaunchState::DispatchPtrLo);
    case HookIntrinsic::KernargSegment:
      return statePointer(B, LaunchState::KernargLo);
    }
    return nullptr;
  }

  /// The wave's index in its work-group: its first lane's flat work-item
  /// id over 64. At the grid's edge a work-group is cut short, and its
  /// work-items are numbered within the size it has.
  Value *waveId(IRBuilder<> &B) {
    Value *Tid = state(LaunchState::WaveTid);
    auto Field = [&](unsigned Shift) {
      return B.CreateAnd(B.CreateLShr(Tid, Shift), 1023);
    };
    auto Size = [&](unsigned Dim, LaunchState Id) {
      Value *Grid = headerField(B, offsetof(LoomLaunchHeader, GridSize) + 4 * Dim,
                                B.getInt32Ty());
      Value *Group = B.CreateZExt(
          headerField(B, offsetof(LoomLaunchHeader, WorkgroupSize) + 2 * Dim,
                      B.getInt16Ty()),
          B.getInt32Ty());
      Value *Left = B.CreateSub(Grid, B.CreateMul(state(Id), Group));
      return B.CreateSelect(B.CreateICmpULT(Left, Group), Left, Group);
    };
    Value *SizeX = Size(0, LaunchState::WorkgroupIdX);
    Value *SizeY = Size(1, LaunchState::WorkgroupIdY);
    Value *Flat = B.CreateAdd(
        Field(0),
        B.CreateMul(SizeX, B.CreateAdd(Field(10),
                                       B.CreateMul(SizeY, Field(20)))));
    return B.CreateLShr(Flat, 6);
  }

  unsigned input(std::vector<RawInput> &List, RawInput R) {
    for (unsigned I = 0; I < List.size(); ++I)
      if (List[I] == R)
        return I;
    List.push_back(R);
    return List.size() - 1;
  }
  void use(CompiledPoint &Out, RawInput R) {
    Key += std::to_string(
               input(R.isUniform() ? Out.SgprInputs : Out.VgprInputs, R)) +
           ",";
  }
  /// A value known at instrumentation time, which the glue sets: points
  /// that differ in such values only share their code.
  void useImm(CompiledPoint &Out, uint32_t V) {
    use(Out, {RawInput::Kind::Immediate, NextImm++, V});
  }
  /// The next immediate, in the order useImm gave them.
  Value *imm() { return raw({RawInput::Kind::Immediate, ValueImm++}); }
  Value *imm64(IRBuilder<> &B) {
    Value *Lo = imm();
    Value *Hi = imm();
    Type *I64 = B.getInt64Ty();
    return B.CreateOr(B.CreateZExt(Lo, I64),
                      B.CreateShl(B.CreateZExt(Hi, I64), 32));
  }

  Error collect(const PointSpec &P, const HookArg &Arg, CompiledPoint &Out) {
    using K = HookArg::Kind;
    using R = RawInput::Kind;
    switch (Arg.kind()) {
    case K::Sgpr:
      if (Arg.value() >= 102)
        return fail(P.Where + ": no SGPR s" + Twine(Arg.value()));
      use(Out, {R::Sgpr, unsigned(Arg.value())});
      return Error::success();
    case K::Vgpr:
    case K::Agpr:
      if (Arg.value() >= 256)
        return fail(P.Where + ": no register " + Arg.str());
      use(Out, {Arg.kind() == K::Vgpr ? R::Vgpr : R::Agpr,
                unsigned(Arg.value())});
      return Error::success();
    case K::Exec:
      use(Out, {R::ExecLo, 0});
      use(Out, {R::ExecHi, 0});
      return Error::success();
    case K::Vcc:
      use(Out, {R::VccLo, 0});
      use(Out, {R::VccHi, 0});
      return Error::success();
    case K::Scc:
      use(Out, {R::Scc, 0});
      return Error::success();
    case K::M0:
      use(Out, {R::M0, 0});
      return Error::success();
    case K::Pc:
    case K::InstrOffset:
    case K::InstrIndex:
    case K::MemoryBytes:
      if (!P.Instr)
        return fail(P.Where + ": " + Arg.str() +
                    " is only known at an instruction");
      if (Arg.kind() == K::MemoryBytes && !P.Instr->Props.isMemory())
        return fail(P.Where + ": " + Arg.str() + " of an instruction that "
                    "accesses no memory");
      switch (Arg.kind()) {
      case K::Pc:
        useImm(Out, uint32_t(P.Pc));
        useImm(Out, uint32_t(P.Pc >> 32));
        break;
      case K::InstrOffset:
        useImm(Out, P.InstrOffset);
        break;
      case K::InstrIndex:
        useImm(Out, P.InstrIndex);
        break;
      default:
        useImm(Out, P.Instr->Props.AccessBytes);
        break;
      }
      return Error::success();
    case K::MemoryAddress: {
      const BinaryInstruction *Of =
          Arg.instruction() ? Arg.instruction() : P.Instr;
      if (!Of || !Of->Props.isMemory())
        return fail(P.Where + ": " + Arg.str() +
                    " of an instruction that accesses no memory");
      Expected<AddressParts> Parts = argAddressParts(Arg, *Of, A);
      if (!Parts)
        return fail(P.Where + ": " + toString(Parts.takeError()));
      for (unsigned I = 0; I < Parts->Vaddr.Count; ++I)
        use(Out, {R::Vgpr, Parts->Vaddr.First + I});
      for (unsigned I = 0; I < Parts->Saddr.Count; ++I)
        use(Out, {R::Sgpr, Parts->Saddr.First + I});
      for (unsigned I = 0; I < Parts->Soffset.Count; ++I)
        use(Out, {R::Sgpr, Parts->Soffset.First + I});
      // The V#'s words: 0, 1 and 3 place an access; 2 (num_records), the
      // range check of a MUBUF access, says which lanes it drops.
      bool Mubuf = Parts->Form == AddressParts::Buffer;
      for (unsigned I : {0u, 1u, 2u, 3u})
        if (Parts->Rsrc.Count && (I != 2 || Mubuf))
          use(Out, {R::Sgpr, Parts->Rsrc.First + I});
      // An offset of 0 (most are) is not passed: one move and one add
      // less, in a shape of its own.
      bool Buffer = Mubuf || Parts->Form == AddressParts::ScalarBuffer;
      if (Buffer || Parts->Offset)
        useImm(Out, uint32_t(Parts->Offset));
      else
        Key += "z";
      // The range check leaves an inline soffset out.
      if (Mubuf && Parts->Offset != Parts->Field) {
        useImm(Out, uint32_t(Parts->Field));
        Key += "f";
      }
      Key += "a" + std::to_string(Parts->Form) +
             std::to_string(Parts->Vaddr.Count) +
             std::to_string(Parts->Saddr.Count) +
             std::to_string(Parts->Soffset.Count) +
             std::to_string(Parts->HasIndex) + std::to_string(Parts->HasOffset);
      return Error::success();
    }
    case K::Constant:
      useImm(Out, uint32_t(Arg.value()));
      if (Arg.bits() == 64)
        useImm(Out, uint32_t(Arg.value() >> 32));
      return Error::success();
    case K::LaneId:
      return Error::success();
    case K::WaveId:
      useIntrinsic(Out, HookIntrinsic::WaveId);
      return Error::success();
    case K::WorkgroupId:
      if (Arg.value() > 2)
        return fail(P.Where + ": no work-group id dimension " +
                    Twine(Arg.value()));
      useIntrinsic(Out, HookIntrinsic(unsigned(HookIntrinsic::WorkgroupIdX) +
                                  Arg.value()));
      return Error::success();
    case K::DispatchId:
      useIntrinsic(Out, HookIntrinsic::LaunchHeader);
      return Error::success();
    case K::WaveCounter:
      use(Out, {R::State, waveCounterState(Arg.value(), false)});
      use(Out, {R::State, waveCounterState(Arg.value(), true)});
      return Error::success();
    case K::GlobalAddress: // the emitter makes it a constant first
      return fail(P.Where + ": " + Arg.str() + " not resolved");
    }
    return Error::success();
  }

  Value *raw(RawInput R) {
    if (R.isUniform())
      return Fn->getArg(input(*Sgprs, R));
    return Fn->getArg(Sgprs->size() + input(*Vgprs, R));
  }
  Value *pair(IRBuilder<> &B, RawInput Lo, RawInput Hi) {
    Type *I64 = B.getInt64Ty();
    return B.CreateOr(B.CreateZExt(raw(Lo), I64),
                      B.CreateShl(B.CreateZExt(raw(Hi), I64), 32));
  }

  Value *value(IRBuilder<> &B, const PointSpec &P, const HookArg &Arg) {
    using K = HookArg::Kind;
    using R = RawInput::Kind;
    switch (Arg.kind()) {
    case K::Constant:
      return Arg.bits() == 64 ? imm64(B) : imm();
    case K::Sgpr:
      return raw({R::Sgpr, unsigned(Arg.value())});
    case K::Vgpr:
      return raw({R::Vgpr, unsigned(Arg.value())});
    case K::Agpr:
      return raw({R::Agpr, unsigned(Arg.value())});
    case K::Exec:
      return pair(B, {R::ExecLo, 0}, {R::ExecHi, 0});
    case K::Vcc:
      return pair(B, {R::VccLo, 0}, {R::VccHi, 0});
    case K::Scc:
      return raw({R::Scc, 0});
    case K::M0:
      return raw({R::M0, 0});
    case K::Pc:
      return imm64(B);
    case K::InstrOffset:
    case K::InstrIndex:
    case K::MemoryBytes:
      return imm();
    case K::LaneId:
      return laneId(B);
    case K::WaveId:
      return waveId(B);
    case K::WorkgroupId:
      return state(LaunchState(unsigned(LaunchState::WorkgroupIdX) + Arg.value()));
    case K::DispatchId:
      return headerField(B, offsetof(LoomLaunchHeader, DispatchId), B.getInt64Ty());
    case K::WaveCounter:
      if (auto It = WaveValues.find(Arg.value()); It != WaveValues.end())
        return It->second; // what an earlier call of the point returned
      return pair(B, {R::State, waveCounterState(Arg.value(), false)},
                  {R::State, waveCounterState(Arg.value(), true)});
    case K::GlobalAddress:
      break;
    case K::MemoryAddress:
      return memoryAddress(B, cantFail(argAddressParts(
                                  Arg, Arg.instruction() ? *Arg.instruction()
                                                         : *P.Instr,
                                  A)));
    }
    return B.getInt32(0);
  }

  /// The lane's index in its wave.
  Value *laneId(IRBuilder<> &B) {
    return B.CreateIntrinsic(
        llvm::Intrinsic::amdgcn_mbcnt_hi, {},
        {B.getInt32(~0u),
         B.CreateIntrinsic(llvm::Intrinsic::amdgcn_mbcnt_lo, {},
                           {B.getInt32(~0u), B.getInt32(0)})});
  }

  /// The lane's address of an access of \p Parts, as the hardware forms
  /// it, from the raw inputs collect asked for (the registers, then the
  /// offset's immediate).
  Value *memoryAddress(IRBuilder<> &B, const AddressParts &Parts) {
    using R = RawInput::Kind;
    Type *I64 = B.getInt64Ty();
    auto Zext = [&](Value *V) { return B.CreateZExt(V, I64); };
    auto Sgpr = [&](const RegRange &Range, unsigned I) {
      return raw({R::Sgpr, Range.First + I});
    };
    Value *Addr = nullptr;
    auto Add = [&](Value *V) { Addr = Addr ? B.CreateAdd(Addr, V) : V; };
    Value *Vaddr[2] = {};
    for (unsigned I = 0; I < Parts.Vaddr.Count; ++I)
      Vaddr[I] = raw({R::Vgpr, Parts.Vaddr.First + I});
    if (Parts.Form == AddressParts::Buffer ||
        Parts.Form == AddressParts::ScalarBuffer)
      return bufferAddress(B, Parts, Vaddr);
    if (Parts.Vaddr.Count == 2)
      Add(pair(B, {R::Vgpr, Parts.Vaddr.First},
               {R::Vgpr, Parts.Vaddr.First + 1}));
    else if (Parts.Vaddr.Count == 1)
      Add(Zext(Vaddr[0]));
    if (Parts.Saddr.Count == 2)
      Add(pair(B, {R::Sgpr, Parts.Saddr.First},
               {R::Sgpr, Parts.Saddr.First + 1}));
    if (Parts.Soffset.Count == 1)
      Add(Zext(Sgpr(Parts.Soffset, 0)));
    if (Parts.Offset || !Addr) // as collect passed it
      Add(Parts.Offset ? B.CreateSExt(imm(), I64) : B.getInt64(0));
    if (Parts.is32Bit())
      Addr = B.CreateAnd(Addr, B.getInt64(0xffffffff));
    if (Parts.Form == AddressParts::Scalar)
      Addr = B.CreateAnd(Addr, B.getInt64(~uint64_t(3)));
    return Addr;
  }

  /// Through a V# (BufferOps.cpp in emu/ spells out the fields): for
  /// s_buffer, base + ((soffset + offset) & ~3), dword aligned; for MUBUF,
  /// per lane, index = vindex + (add_tid_enable ? lane : 0), offset =
  /// voffset + inst_offset (+ an inline soffset), then base + soffset +
  /// offset + stride * index, or the swizzled placement with swizzle_enable;
  /// the private segment's V# (swizzled, add_tid_enable, element size 4,
  /// index stride 64, no index) gives the private offset, as scratch_*
  /// and flat private addresses are.
  Value *bufferAddress(IRBuilder<> &B, const AddressParts &Parts,
                       Value *const (&Vaddr)[2]) {
    using R = RawInput::Kind;
    Type *I64 = B.getInt64Ty();
    auto Zext = [&](Value *V) { return B.CreateZExt(V, I64); };
    auto Word = [&](unsigned I) { return raw({R::Sgpr, Parts.Rsrc.First + I}); };
    auto Bits = [&](Value *V, unsigned Lo, unsigned N) {
      return B.CreateAnd(B.CreateLShr(V, Lo), (1u << N) - 1);
    };
    Value *W1 = Word(1), *W3 = Word(3);
    Value *SOffset = Parts.Soffset.Count
                         ? raw({R::Sgpr, Parts.Soffset.First})
                         : B.getInt32(0);
    if (Parts.Form == AddressParts::ScalarBuffer) {
      Value *Base = B.CreateOr(
          Zext(Word(0)), B.CreateShl(Zext(B.CreateAnd(W1, 0xffff)), 32));
      Value *Off = B.CreateAnd(B.CreateAdd(Zext(SOffset), Zext(imm())),
                               ~uint64_t(3));
      return B.CreateAnd(B.CreateAdd(Base, Off), ~uint64_t(3));
    }
    Value *Off = imm();
    Value *Field = Parts.Offset != Parts.Field ? imm() : Off;
    if (Parts.HasOffset) {
      Off = B.CreateAdd(Vaddr[Parts.HasIndex ? 1 : 0], Off);
      Field = B.CreateAdd(Vaddr[Parts.HasIndex ? 1 : 0], Field);
    }
    // The stack's accesses, most of those a program makes, branch past the
    // rest (a uniform branch: the V# is in SGPRs).
    BasicBlock *Private = nullptr, *General = B.GetInsertBlock();
    if (!Parts.HasIndex) {
      Private = General;
      General = BasicBlock::Create(Ctx, "buffer.general", Fn);
      BasicBlock *Done = BasicBlock::Create(Ctx, "buffer.done", Fn);
      Value *IsPrivate = B.CreateAnd(
          B.CreateICmpSLT(W1, B.getInt32(0)), // swizzle_enable
          B.CreateICmpEQ(Bits(W3, 19, 5),    // add_tid, 64, 4 bytes
                         B.getInt32(1 | 3 << 2 | 1 << 4)));
      Value *Offset = Zext(Off);
      B.CreateCondBr(IsPrivate, Done, General);
      B.SetInsertPoint(General);
      Value *Address =
          generalBufferAddress(B, Parts, Vaddr, Off, Field, SOffset);
      General = B.GetInsertBlock();
      B.CreateBr(Done);
      B.SetInsertPoint(Done);
      PHINode *Phi = B.CreatePHI(I64, 2);
      Phi->addIncoming(Offset, Private);
      Phi->addIncoming(Address, General);
      return Phi;
    }
    return generalBufferAddress(B, Parts, Vaddr, Off, Field, SOffset);
  }

  /// The address of MUBUF lane's \p Off (and index, from Vaddr) through
  /// any V#: linear, or swizzled with swizzle_enable; ~0 for a lane the
  /// range check drops (\p Field: its offset without an inline soffset).
  Value *generalBufferAddress(IRBuilder<> &B, const AddressParts &Parts,
                              Value *const (&Vaddr)[2], Value *Off,
                              Value *Field, Value *SOffset) {
    using R = RawInput::Kind;
    Type *I64 = B.getInt64Ty();
    auto Zext = [&](Value *V) { return B.CreateZExt(V, I64); };
    auto Bits = [&](Value *V, unsigned Lo, unsigned N) {
      return B.CreateAnd(B.CreateLShr(V, Lo), (1u << N) - 1);
    };
    Value *W1 = raw({R::Sgpr, Parts.Rsrc.First + 1}),
          *W3 = raw({R::Sgpr, Parts.Rsrc.First + 3});
    Value *Base = B.CreateOr(
        Zext(raw({R::Sgpr, Parts.Rsrc.First})),
        B.CreateShl(Zext(B.CreateAnd(W1, 0xffff)), 32));
    Value *AddTid = B.CreateICmpNE(Bits(W3, 23, 1), B.getInt32(0));
    Value *Swizzle = B.CreateICmpSLT(W1, B.getInt32(0));
    Value *Index = Parts.HasIndex ? Vaddr[0] : B.getInt32(0);
    Index = B.CreateAdd(Index, B.CreateSelect(AddTid, laneId(B),
                                              B.getInt32(0)));
    // With add_tid_enable, data_format is the stride's bits 17:14.
    Value *Stride = B.CreateOr(
        Bits(W1, 16, 14),
        B.CreateSelect(AddTid, B.CreateShl(Bits(W3, 15, 4), 14),
                       B.getInt32(0)));
    Value *Linear = B.CreateAdd(
        Zext(Off), B.CreateMul(Zext(Stride), Zext(Index)));
    // Element size 2 << n, index stride 8 << n: shifts, not divisions.
    Value *ElemLog = B.CreateAdd(Bits(W3, 19, 2), B.getInt32(1)),
          *StrideLog = B.CreateAdd(Bits(W3, 21, 2), B.getInt32(3));
    Value *ElemMask = B.CreateSub(B.CreateShl(B.getInt32(1), ElemLog),
                                  B.getInt32(1)),
          *StrideMask = B.CreateSub(B.CreateShl(B.getInt32(1), StrideLog),
                                    B.getInt32(1));
    Value *Swizzled = B.CreateAdd(
        B.CreateShl(
            B.CreateAdd(B.CreateMul(Zext(B.CreateLShr(Index, StrideLog)),
                                    Zext(Stride)),
                        Zext(B.CreateAnd(Off, B.CreateNot(ElemMask)))),
            Zext(StrideLog)),
        Zext(B.CreateOr(
            B.CreateShl(B.CreateAnd(Index, StrideMask), ElemLog),
            B.CreateAnd(Off, ElemMask))));
    Value *Address = B.CreateAdd(B.CreateAdd(Base, Zext(SOffset)),
                                 B.CreateSelect(Swizzle, Swizzled, Linear));
    // Range checking: none through a private V# (add_tid_enable); a
    // structured buffer (an index, a stride) drops index >= num_records,
    // a raw one offset >= num_records: the first dword out of range (a
    // lane whose later dwords are out moves fewer bytes, and is kept).
    Value *NumRecords = raw({R::Sgpr, Parts.Rsrc.First + 2});
    Value *Beyond = B.CreateICmpUGE(Field, NumRecords);
    if (Parts.HasIndex)
      Beyond = B.CreateSelect(
          B.CreateICmpNE(Bits(W1, 16, 14), B.getInt32(0)),
          B.CreateICmpUGE(Vaddr[0], NumRecords), Beyond);
    return B.CreateSelect(B.CreateAnd(Beyond, B.CreateNot(AddTid)),
                          B.getInt64(~0ull), Address);
  }

  /// A 32- or 64-bit integer to the hook's parameter type.
  Expected<Value *> convert(IRBuilder<> &B, Value *V, Type *To) {
    if (To->isIntegerTy())
      return B.CreateZExtOrTrunc(V, To);
    if (To->isPointerTy())
      return B.CreateIntToPtr(B.CreateZExt(V, B.getInt64Ty()), To);
    if (To->isFloatTy())
      return B.CreateBitCast(B.CreateZExtOrTrunc(V, B.getInt32Ty()), To);
    if (To->isDoubleTy())
      return B.CreateBitCast(B.CreateZExt(V, B.getInt64Ty()), To);
    std::string S;
    raw_string_ostream OS(S);
    To->print(OS);
    return fail("parameter of type " + S + " cannot take a register value");
  }

  Module &M;
  const InstrAnalyzer &A;
  LLVMContext &Ctx;
  IntrinsicUses Uses;
  std::string Key;
  unsigned Needs = 0;
  unsigned NextImm = 0, ValueImm = 0;
  Function *Fn = nullptr;
  std::vector<RawInput> *Sgprs = nullptr, *Vgprs = nullptr;
  /// Wave counters the calls built so far returned into.
  std::map<unsigned, Value *> WaveValues;
};

/// LLVM resolves an inline asm statement's "~{memory}" clobber by comparing
/// the name of every register of every AMDGPU register class with "memory"
/// (the generic TargetLowering::getRegForInlineAsmConstraint), twice per
/// statement; a hook's statements, inlined into every point, made that a
/// third of the points' compile time. A statement with side effects needs
/// no such clobber to stay in order with memory accesses: its call's
/// attributes, not the clobber, say what memory it may touch, SelectionDAG
/// chains it, and its machine instruction has unmodeled side effects,
/// which the schedulers do not move memory accesses across.
void dropMemoryClobbers(Module &M) {
  for (Function &F : M)
    for (Instruction &I : instructions(F)) {
      auto *CB = dyn_cast<CallBase>(&I);
      auto *IA = CB ? dyn_cast<InlineAsm>(CB->getCalledOperand()) : nullptr;
      if (!IA || !IA->hasSideEffects())
        continue;
      SmallVector<StringRef, 8> Parts;
      StringRef(IA->getConstraintString()).split(Parts, ',');
      std::string Kept;
      for (StringRef C : Parts)
        if (C != "~{memory}")
          Kept += (Kept.empty() ? "" : ",") + C.str();
      if (Kept.size() == IA->getConstraintString().size())
        continue;
      CB->setCalledOperand(InlineAsm::get(
          IA->getFunctionType(), IA->getAsmString(), Kept,
          /*hasSideEffects=*/true, IA->isAlignStack(), IA->getDialect(),
          IA->canThrow()));
    }
}

/// The hook modules of every library, linked into one, with each tool
/// global replaced by its address in the tool's loaded executable and the
/// hooks made internal and always inlined.
Expected<std::unique_ptr<Module>> loadHooks(ArrayRef<HookLibrary> Hooks,
                                            LLVMContext &Ctx) {
  auto Merged = std::make_unique<Module>("loom-hooks", Ctx);
  for (unsigned Slot = 0; Slot < Hooks.size(); ++Slot) {
    const HookLibrary &L = Hooks[Slot];
    auto M = jit::parseIR(MemoryBufferRef(L.Bitcode, L.Name), Ctx);
    if (!M)
      return fail("hooks of tool '" + L.Name + "': " + toString(M.takeError()));
    // The tool's slot in the launch header is the library's place here.
    if (Function *SlotFn = (*M)->getFunction("__loom_tool_slot")) {
      for (User *U : make_early_inc_range(SlotFn->users()))
        if (auto *CB = dyn_cast<CallBase>(U)) {
          CB->replaceAllUsesWith(ConstantInt::get(CB->getType(), Slot));
          CB->eraseFromParent();
        }
      if (SlotFn->use_empty())
        SlotFn->eraseFromParent();
    }
    for (GlobalVariable &GV : make_early_inc_range((*M)->globals())) {
      if (GV.getName().starts_with("llvm."))
        continue;
      auto It = L.GlobalAddresses.find(GV.getName());
      // Only the tool's executable holds data: the instrumented code
      // object carries code alone.
      if (It == L.GlobalAddresses.end())
        return fail("hooks of tool '" + L.Name + "': global '" +
                    GV.getName() + "' has no address in the tool's loaded "
                    "executable (declare it LOOM_DEVICE; string constants "
                    "are not supported in hooks yet)");
      Constant *Addr = ConstantExpr::getIntToPtr(
          ConstantInt::get(Type::getInt64Ty(Ctx), It->second), GV.getType());
      GV.replaceAllUsesWith(Addr);
      GV.eraseFromParent();
    }
    for (Function &F : **M) {
      // Hooks follow the target the points are compiled for.
      F.removeFnAttr("target-cpu");
      F.removeFnAttr("target-features");
      F.removeFnAttr(Attribute::NoInline);
      F.removeFnAttr(Attribute::OptimizeNone);
      if (F.isDeclaration())
        continue;
      F.addFnAttr(Attribute::AlwaysInline);
      if (F.getCallingConv() == CallingConv::AMDGPU_KERNEL)
        return fail("hooks of tool '" + L.Name + "': '" + F.getName() +
                    "' is a kernel; hooks are device functions");
    }
    dropMemoryClobbers(**M);
    (*M)->setTargetTriple(Merged->getTargetTriple());
    (*M)->setDataLayout(Merged->getDataLayout());
    if (Linker::linkModules(*Merged, std::move(*M)))
      return fail("hooks of tool '" + L.Name +
                  "' clash with another tool's (same hook or function name)");
  }
  // Used or not, every hook is a candidate; only point functions stay
  // external, so the optimiser drops the hooks once inlined.
  if (GlobalVariable *U = Merged->getGlobalVariable("llvm.used"))
    U->eraseFromParent();
  if (GlobalVariable *U = Merged->getGlobalVariable("llvm.compiler.used"))
    U->eraseFromParent();
  return std::move(Merged);
}

/// The lines of function \p Name in assembly \p Asm: from its label to its
/// .Lfunc_end label.
Expected<std::string> functionBody(StringRef Asm, StringRef Name,
                                   StringRef ReturnLabel, bool DropEntryWait) {
  size_t Start = Asm.find(("\n" + Name + ":").str());
  if (Start == StringRef::npos)
    return fail("no function " + Name + " in the compiled hooks");
  Start = Asm.find('\n', Start + 1);
  size_t End = Asm.find("\n.Lfunc_end", Start);
  if (End == StringRef::npos)
    return fail("no end of function " + Name + " in the compiled hooks");
  SmallVector<StringRef, 64> Lines;
  Asm.slice(Start + 1, End).split(Lines, '\n');
  // Labels the body defines get the instance marker, so each copy of a
  // shared body has its own.
  std::vector<std::string> Labels;
  for (StringRef L : Lines) {
    StringRef T = L.trim();
    if (T.starts_with(".L") && T.ends_with(":"))
      Labels.push_back(T.drop_back().str());
  }
  auto IsNameChar = [](char C) {
    return isAlnum(C) || C == '_' || C == '.' || C == '$';
  };
  std::string Body;
  bool Started = false;
  for (StringRef L : Lines) {
    StringRef T = L.trim();
    bool Instruction = !T.empty() && !T.starts_with(";") &&
                       !T.starts_with(".") && !T.ends_with(":");
    if (Instruction && !Started) {
      Started = true;
      if (DropEntryWait && T.starts_with(EntryWait))
        continue;
    }
    if (T.starts_with("s_setpc_b64 s[30:31]")) {
      Body += "\ts_branch " + ReturnLabel.str() + "\n";
      continue;
    }
    std::string Line = L.str();
    for (const std::string &Label : Labels) {
      std::string New = ".Lloom_" + std::string(CompiledPoint::InstanceMarker) +
                        "_" + Label.substr(2);
      for (size_t At = Line.find(Label); At != std::string::npos;
           At = Line.find(Label, At + 1)) {
        size_t After = At + Label.size();
        if ((At > 0 && IsNameChar(Line[At - 1])) ||
            (After < Line.size() && IsNameChar(Line[After])))
          continue;
        Line.replace(At, Label.size(), New);
        At += New.size() - 1;
      }
    }
    Body += Line + "\n";
  }
  return Body;
}

/// What LLVM says of function \p Name's frame in its assembly \p Asm
/// (`.set NAME.private_seg_size, N`, `.set NAME.has_dyn_sized_stack, 1`):
/// its size in bytes per lane, or an error if it has no fixed size.
Expected<unsigned> frameSize(StringRef Asm, StringRef Name) {
  auto Value = [&](StringRef Field) -> std::optional<uint64_t> {
    std::string Key = (".set " + Name + "." + Field + ", ").str();
    size_t At = Asm.find(Key);
    if (At == StringRef::npos)
      return std::nullopt;
    uint64_t V = 0;
    if (Asm.drop_front(At + Key.size()).take_while(isDigit).getAsInteger(10, V))
      return std::nullopt;
    return V;
  };
  if (Value("has_dyn_sized_stack").value_or(0))
    return fail("the hooks' stack has no fixed size (a dynamic alloca)");
  return unsigned(Value("private_seg_size").value_or(0));
}

/// Checks the lifted point: no calls, a stack only of a fixed size, no
/// reads of registers the glue does not set, and what it clobbers.
Error analyze(const BinaryContext &BC, const PointSpec &P, unsigned Index,
              StringRef Asm, StringRef Processor, CompiledPoint &Out) {
  std::string Name = "__loom_point_" + std::to_string(Index);
  const BinaryFunction *F = BC.function(Name);
  if (!F)
    return fail(P.Where + ": compiled point " + Name + " not found");
  Expected<unsigned> Frame = frameSize(Asm, Name);
  if (!Frame)
    return fail(P.Where + ": " + toString(Frame.takeError()));
  Out.StackBytes = *Frame;
  RegisterSet Writes;
  for (const BinaryBasicBlock &B : F->blocks())
    for (const BinaryInstruction &I : B.Instructions) {
      if (I.Props.isCall())
        return fail(P.Where + ": a hook calls a function that could not be "
                    "inlined (" + I.Info.Text + "); hooks must inline");
      // Private memory is the stack the glue gives a frame of StackBytes.
      if (!Out.StackBytes && (I.Props.Memory == MemoryKind::Scratch ||
                              I.Props.Memory == MemoryKind::Buffer))
        return fail(P.Where + ": the hooks reach private memory (" +
                    I.Info.Text + ") with no stack frame");
      if (I.Props.isReturn())
        continue;
      Writes |= I.Props.Writes;
    }
  RegisterSet Bad;
  Bad.add(SpecialReg::FlatScratchLo).add(SpecialReg::FlatScratchHi);
  Bad.add(SpecialReg::Mode).addAgprs(0, RegisterSet::NumAgprs);
  if (Writes.intersects(Bad))
    return fail(P.Where + ": the hooks write " + (RegisterSet(Writes) &= Bad).str() +
                ", which instrumentation cannot save yet");
  // Caller-saved registers that are not parameters hold nothing on entry: a
  // read of one that no path from the entry has written reads garbage (a
  // kernel input an intrinsic wanted). A dataflow over the point's CFG, not
  // layout order: the structurizer lays loops out latch first. Registers
  // written on some paths only are LLVM's undefined values (a loop's exit
  // mask), which it reads harmlessly.
  RegisterSet Unset;
  Unset.addSgprs(0, 30).addVgprs(0, 32).addVcc().add(SpecialReg::Scc)
      .add(SpecialReg::M0);
  Unset.subtract(RegisterSet().addSgprs(Out.FirstSgpr, Out.SgprInputs.size())
                     .addVgprs(0, Out.VgprInputs.size()));
  // With a stack, the glue sets its pointer and (gfx90a) V# too.
  RegisterSet StackRegs;
  if (Out.StackBytes) {
    StackRegs.addSgprs(StackPointerSgpr);
    if (hasScratchRsrc(Processor))
      StackRegs.addSgprs(0, 4);
    Unset.subtract(StackRegs);
  }
  ArrayRef<BinaryBasicBlock> Blocks = F->blocks();
  std::vector<RegisterSet> UnsetIn(Blocks.size(), Unset),
      UnsetOut(Blocks.size(), Unset);
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (size_t B = 0; B < Blocks.size(); ++B) {
      RegisterSet In = Unset;
      if (B != 0)
        for (unsigned P : Blocks[B].Predecessors)
          In &= UnsetOut[P];
      RegisterSet O = In;
      for (const BinaryInstruction &I : Blocks[B].Instructions)
        O.subtract(I.Props.Writes);
      Changed |= In != UnsetIn[B] || O != UnsetOut[B];
      UnsetIn[B] = In;
      UnsetOut[B] = O;
    }
  }
  for (size_t B = 0; B < Blocks.size(); ++B) {
    RegisterSet Now = UnsetIn[B];
    for (const BinaryInstruction &I : Blocks[B].Instructions) {
      if (I.Props.Reads.intersects(Now))
        return fail(P.Where + ": the hooks read " +
                    (RegisterSet(I.Props.Reads) &= Now).str() +
                    " before writing them, in " + I.Info.Text +
                    " (a builtin that reads a kernel input, such as HIP's "
                    "work-group id: use loom::workgroupId and the other "
                    "functions of Hooks.h)");
      Now.subtract(I.Props.Writes);
    }
  }
  // Memory the body leaves in flight where it returns.
  PendingMemoryAnalysis Waits(*F, PendingMemory());
  Out.LeavesVm = Out.LeavesLgkm = false;
  for (size_t B = 0; B < Blocks.size(); ++B)
    if (Blocks[B].last().Props.isReturn()) {
      PendingMemory P = Waits.blockIn(B);
      for (const BinaryInstruction &I : Blocks[B].Instructions)
        P.step(I);
      Out.LeavesVm |= P.AnyVm;
      Out.LeavesLgkm |= P.AnyLgkm;
    }
  Out.Clobbers = Writes | StackRegs;
  Out.Clobbers.addSgprs(Out.FirstSgpr, Out.SgprInputs.size());
  Out.Clobbers.addVgprs(0, Out.VgprInputs.size());
  return Error::success();
}

Expected<std::vector<char>> compileGlobals(StringRef Bitcode, StringRef Name,
                                           StringRef Processor) {
  LLVMContext Ctx;
  auto M = jit::parseIR(MemoryBufferRef(Bitcode, Name), Ctx);
  if (!M)
    return fail("hooks of tool '" + Name + "': " + toString(M.takeError()));
  // Code goes into the instrumented copies, where it is inlined; here a
  // hook's body would only reference what the copies define.
  for (Function &F : **M)
    F.deleteBody();
  for (GlobalVariable &GV : (*M)->globals())
    if (GV.hasInitializer() && !GV.getName().starts_with("llvm.") &&
        !llvm::isa<ConstantData>(GV.getInitializer()) &&
        !llvm::isa<ConstantAggregate>(GV.getInitializer()))
      return fail("hooks of tool '" + Name + "': global '" + GV.getName() +
                  "' is initialised with an address; tool globals hold data");
  if (GlobalVariable *U = (*M)->getGlobalVariable("llvm.used"))
    U->eraseFromParent();
  if (GlobalVariable *U = (*M)->getGlobalVariable("llvm.compiler.used"))
    U->eraseFromParent();
  for (Function &F : make_early_inc_range(**M))
    if (F.use_empty())
      F.eraseFromParent();
  jit::CompileOptions CO;
  CO.Target.Processor = Processor.str();
  return jit::compileAndLink(**M, CO);
}

} // namespace

/// The machine code of point \p F as .long words, which MC reads much
/// faster than instructions: position-independent as long as its one
/// return is its last instruction (dropped: the code after the point
/// follows) and it reads no PC. None otherwise. \p DroppedEndWait: the
/// s_waitcnt LLVM puts before a callable function's return was dropped
/// too (the glue waits for what the body leaves in flight, in one
/// s_waitcnt with its own).
static std::optional<std::string>
bodyWords(const BinaryFunction &F, StringRef ReturnLabel, bool DropEntryWait,
          std::vector<MCInst> &Code, const std::map<uint64_t, uint64_t> &Entry,
          ParamReads &Reads, bool &DroppedEndWait) {
  std::vector<const BinaryInstruction *> Insts;
  for (const BinaryBasicBlock &B : F.blocks())
    for (const BinaryInstruction &I : B.Instructions)
      Insts.push_back(&I);
  llvm::sort(Insts, [](auto *A, auto *B) { return A->address() < B->address(); });
  if (Insts.empty())
    return std::nullopt;
  // The words end where the return label goes: at a last return (dropped),
  // or after the last instruction (a block laid out after the return).
  bool LastReturns = Insts.back()->Props.isReturn();
  size_t Count = LastReturns ? Insts.size() - 1 : Insts.size();
  uint64_t End = LastReturns ? Insts.back()->address()
                             : Insts.back()->Info.endAddress();
  // The wait in the return's own block (no branch lands between them):
  // branches to it go on to the glue's wait.
  DroppedEndWait =
      LastReturns && Count > 0 &&
      StringRef(Insts[Count - 1]->Info.Text).starts_with("s_waitcnt") &&
      !F.blockStartingAt(Insts.back()->address());
  if (DroppedEndWait)
    End = Insts[--Count]->address();
  std::string Words;
  raw_string_ostream OS(Words);
  auto Emit = [&](ArrayRef<uint8_t> Bytes, StringRef Text) {
    OS << "\t.long ";
    for (size_t W = 0; W + 4 <= Bytes.size(); W += 4)
      OS << (W ? ", " : "")
         << format_hex(support::endian::read32le(Bytes.data() + W), 10);
    OS << "\t; " << Text << "\n";
  };
  uint64_t Next = F.address();
  for (size_t K = 0; K < Count; ++K) {
    const BinaryInstruction &I = *Insts[K];
    if (I.address() != Next || StringRef(I.Info.Text).starts_with("s_getpc"))
      return std::nullopt;
    Next = I.Info.endAddress();
    if (K == 0 && DropEntryWait)
      continue;
    if (!I.Props.isReturn()) {
      Code.push_back(I.Inst);
      auto It = Entry.find(I.address());
      Reads.Entry.push_back(It == Entry.end() ? 0 : It->second);
      Emit(I.Info.Bytes, I.Info.Text);
      continue;
    }
    // A return before the end: an s_branch to the end, of the same size
    // (s_setpc_b64 is one word too), so no other branch moves.
    int64_t Delta = (int64_t(End) - int64_t(I.Info.endAddress())) / 4;
    if (I.size() != 4 || Delta < INT16_MIN || Delta > INT16_MAX)
      return std::nullopt;
    uint8_t Branch[4];
    support::endian::write32le(Branch, 0xbf820000u | uint16_t(Delta));
    MCInst Inst;
    if (!F.context().mc().decode(Branch, I.address(), Inst).Valid)
      return std::nullopt;
    Code.push_back(Inst);
    Reads.Entry.push_back(0);
    Emit(Branch, "s_branch to the return");
  }
  // Branches to the return go on to the label, right after the words.
  (void)ReturnLabel;
  return Words;
}

/// The points' middle end. The hooks come optimised (clang -O2); a point
/// only needs them inlined into it and the result cleaned up (its
/// arguments are parameters, not constants: nothing to unroll or
/// vectorise), then the AMDGPU attributor, which finds the implicit
/// inputs (work-group ids, dispatch pointer...) a point does not read, so
/// that the calling convention does not reserve SGPRs for them. clang's
/// whole -O2 pipeline took 3.3 times as long on Lds's mem_trace shapes
/// (6.9 against 2.1 ms) for the same code.
constexpr const char *PointPasses =
    "always-inline,function(sroa,early-cse<memssa>,"
    "instcombine<no-verify-fixpoint>,simplifycfg,gvn,"
    "instcombine<no-verify-fixpoint>,simplifycfg,dce),amdgpu-attributor";

/// Compiles the shapes of \p M (__loom_point_S, for each S not Cached) and
/// lifts them: their bodies and clobbers into the shapes' first points.
static Error compileShapes(Module &M, ArrayRef<PointSpec> Points,
                           ArrayRef<unsigned> FirstOfShape,
                           const std::vector<bool> &Cached,
                           const jit::TargetSpec &Target, unsigned OptLevel,
                           unsigned Threads, isa::McContext &MC,
                           StringRef ReturnLabel,
                           std::vector<CompiledPoint> &Out) {
  // A hook calling a function nothing defines (or an intrinsic Loom does
  // not provide): an error naming it now, not an undefined symbol at link.
  for (Function &F : M) {
    if (!F.isDeclaration() || F.isIntrinsic())
      continue;
    for (User *U : F.users())
      if (auto *CB = dyn_cast<CallBase>(U))
        if (CB->getFunction()->getName().starts_with("__loom_point_"))
          return fail("the hooks call " + F.getName() + ", which " +
                      (F.getName().starts_with("__loom_")
                           ? "Loom does not provide"
                           : "no tool's hooks define"));
  }
  // Every hook is inlined into the points by now: the rest of the hook
  // library is not compiled (nor lifted).
  jit::keepFunctions(M, [](const Function &F) {
    return F.getName().starts_with("__loom_point_");
  });

  // The shapes are independent functions: compiled on every core at once.
  jit::CompileOptions CO;
  CO.Target = Target;
  CO.OptLevel = OptLevel;
  CO.Assembly = true;
  if (OptLevel > 0)
    CO.Passes = PointPasses;
  auto Asms = jit::compileModuleInParts(
      M, CO, Threads, [&](const Function &F) {
        unsigned S = 0;
        StringRef(F.getName()).drop_front(strlen("__loom_point_"))
            .getAsInteger(10, S);
        return S < FirstOfShape.size() ? Points[FirstOfShape[S]].Where
                                       : F.getName().str();
      });
  if (!Asms)
    return Asms.takeError();
  std::string AsmText;
  for (const jit::ObjectBytes &Asm : *Asms)
    AsmText.append(Asm.begin(), Asm.end());

  // Lift the compiled points, to know what they read and write.
  std::vector<jit::ObjectBytes> Objs;
  for (const jit::ObjectBytes &Asm : *Asms) {
    auto Obj = jit::assembleObject(StringRef(Asm.data(), Asm.size()),
                                   "loom-points", Target);
    if (!Obj)
      return Obj.takeError();
    Objs.push_back(std::move(*Obj));
  }
  auto Linked = jit::linkObjects(Objs);
  if (!Linked)
    return Linked.takeError();
  auto CObj = codeobj::CodeObject::create(
      ArrayRef(reinterpret_cast<const uint8_t *>(Linked->data()),
               Linked->size()),
      "loom-points");
  if (!CObj)
    return CObj.takeError();
  auto BC = BinaryContext::create(**CObj, MC); // same target as the original
  if (!BC)
    return BC.takeError();
  if (Error E = (*BC)->buildCFGs())
    return E;
  for (unsigned S = 0; S < FirstOfShape.size(); ++S) {
    if (Cached[S])
      continue;
    unsigned I = FirstOfShape[S];
    if (Error E = analyze(**BC, Points[I], S, AsmText, Target.Processor,
                          Out[I]))
      return E;
    std::string Name = "__loom_point_" + std::to_string(S);
    // LLVM starts a callable function by waiting for its caller's memory
    // operations; the glue waits for those that matter (MemoryWaits.h).
    const BinaryFunction &F = *(*BC)->function(Name);
    bool DropEntryWait = !F.blocks().empty() &&
                         F.blocks()[0].Predecessors.empty() &&
                         StringRef(F.blocks()[0].Instructions[0].Info.Text)
                             .starts_with(EntryWait);
    std::vector<MCInst> Insts;
    ParamReads Reads;
    RegisterSet Params, Results;
    Params.addSgprs(Out[I].FirstSgpr, Out[I].SgprInputs.size())
        .addVgprs(0, Out[I].VgprInputs.size());
    for (auto [Param, State] : Out[I].Results)
      Results.addSgprs(Out[I].FirstSgpr + Param);
    std::map<uint64_t, uint64_t> Entry =
        paramReads(F, Params, Results, Reads.Mixed);
    bool DroppedEndWait = false;
    if (std::optional<std::string> Words =
            bodyWords(F, ReturnLabel, DropEntryWait, Insts, Entry, Reads,
                      DroppedEndWait)) {
      Out[I].Body = std::move(*Words);
      if (DroppedEndWait)
        Out[I].LeavesVm = Out[I].LeavesLgkm = true;
      Out[I].Insts =
          std::make_shared<const std::vector<MCInst>>(std::move(Insts));
      Out[I].Reads = std::make_shared<const ParamReads>(std::move(Reads));
      continue;
    }
    auto Body = functionBody(AsmText, Name, ReturnLabel, DropEntryWait);
    if (!Body)
      return Body.takeError();
    Out[I].Body = std::move(*Body);
  }
  return Error::success();
}

Expected<std::vector<CompiledPoint>>
compilePoints(ArrayRef<PointSpec> Points, ArrayRef<HookLibrary> Hooks,
              const jit::TargetSpec &Target, unsigned OptLevel,
              unsigned Threads, isa::McContext &MC) {
  std::vector<CompiledPoint> Out(Points.size());
  if (Points.empty())
    return Out;
  if (Hooks.size() > LOOM_LAUNCH_MAX_TOOLS)
    return fail("hooks of " + Twine(Hooks.size()) + " tools in one copy; at "
                "most " + Twine(LOOM_LAUNCH_MAX_TOOLS));

  // A shape compiled once stays compiled for the process: a tool asks for
  // the same shapes in kernel after kernel. Its code depends on the hooks
  // (their bitcode and the addresses their globals were given), the target
  // and the optimisation level, and the shape.
  std::string Context = Target.Processor + "|" + Target.Features + "|" +
                        std::to_string(OptLevel);
  for (const HookLibrary &L : Hooks) {
    Context += "|" + utohexstr(xxh3_64bits(L.Bitcode));
    std::vector<std::pair<StringRef, uint64_t>> Globals;
    for (const auto &G : L.GlobalAddresses)
      Globals.emplace_back(G.getKey(), G.getValue());
    llvm::sort(Globals);
    for (auto [Name, Address] : Globals)
      Context += "," + Name.str() + "=" + utohexstr(Address);
  }
  // The hooks as loadHooks makes them are kept for the process, each in a
  // context of its own: a call builds its points in a copy of them
  // (parsing the hooks' bitcode took a few milliseconds a copy, cached
  // shapes or not). A context is one thread's at a time, so a call
  // borrows one (or makes one, if all are busy: copies made at once on
  // several threads compile at once) and gives it back when its module
  // is gone.
  struct LoadedHooks {
    LLVMContext Ctx;
    std::unique_ptr<Module> Pristine;
  };
  static std::mutex LoadedLock;
  static StringMap<std::vector<std::unique_ptr<LoadedHooks>>> Idle;
  std::unique_ptr<LoadedHooks> Hooked;
  {
    std::lock_guard<std::mutex> L(LoadedLock);
    std::vector<std::unique_ptr<LoadedHooks>> &Free = Idle[Context];
    if (!Free.empty()) {
      Hooked = std::move(Free.back());
      Free.pop_back();
    }
  }
  if (!Hooked)
    Hooked = std::make_unique<LoadedHooks>();
  scope_exit GiveBack([&] {
    std::lock_guard<std::mutex> L(LoadedLock);
    Idle[Context].push_back(std::move(Hooked));
  });
  if (!Hooked->Pristine) {
    auto Pristine = loadHooks(Hooks, Hooked->Ctx);
    if (!Pristine)
      return Pristine.takeError();
    Hooked->Pristine = std::move(*Pristine);
  }
  std::unique_ptr<Module> M = CloneModule(*Hooked->Pristine);
  InstrAnalyzer A(MC);
  PointBuilder Builder(*M, A);

  struct CachedShape {
    std::string Body;
    RegisterSet Clobbers;
    bool LeavesVm, LeavesLgkm;
    std::shared_ptr<const std::vector<MCInst>> Insts;
    std::shared_ptr<const ParamReads> Reads;
    unsigned StackBytes;
  };
  auto SetShape = [](CompiledPoint &To, const auto &From) {
    To.Body = From.Body;
    To.Clobbers = From.Clobbers;
    To.StackBytes = From.StackBytes;
    To.LeavesVm = From.LeavesVm;
    To.LeavesLgkm = From.LeavesLgkm;
    To.Insts = From.Insts;
    To.Reads = From.Reads;
  };
  static std::mutex CacheLock;
  static StringMap<CachedShape> Cache;

  // One function per shape not compiled yet, built from the shape's first
  // point.
  StringMap<unsigned> ShapeOfKey;
  std::vector<unsigned> ShapeOf(Points.size()), FirstOfShape;
  std::vector<std::string> ShapeKey;
  std::vector<bool> Cached;
  std::string ReturnLabel =
      ".Lloom_" + std::string(CompiledPoint::InstanceMarker) + "_done";
  unsigned ToCompile = 0;
  for (unsigned I = 0; I < Points.size(); ++I) {
    Expected<std::string> Key = Builder.prepare(Points[I], Out[I]);
    if (!Key)
      return Key.takeError();
    Out[I].ReturnLabel = ReturnLabel;
    Out[I].FirstSgpr = firstSgprParam(Target.Processor);
    auto [It, New] = ShapeOfKey.try_emplace(*Key, FirstOfShape.size());
    ShapeOf[I] = It->second;
    if (!New)
      continue;
    unsigned S = FirstOfShape.size();
    FirstOfShape.push_back(I);
    ShapeKey.push_back(Context + "|" + *Key);
    {
      std::lock_guard<std::mutex> L(CacheLock);
      auto C = Cache.find(ShapeKey.back());
      Cached.push_back(C != Cache.end());
      if (Cached.back()) {
        SetShape(Out[I], C->second);
        continue;
      }
    }
    ++ToCompile;
    if (Error E = Builder.build(Points[I], S, Out[I]))
      return std::move(E);
    if (Error E = Builder.finish(
            *M->getFunction("__loom_point_" + std::to_string(S)),
            Points[I]))
      return std::move(E);
  }
  if (ToCompile) {
    if (Error E = compileShapes(*M, Points, FirstOfShape, Cached, Target,
                                OptLevel, Threads, MC, ReturnLabel, Out))
      return std::move(E);
    std::lock_guard<std::mutex> L(CacheLock);
    for (unsigned S = 0; S < FirstOfShape.size(); ++S)
      if (!Cached[S]) {
        const CompiledPoint &P = Out[FirstOfShape[S]];
        Cache[ShapeKey[S]] = {P.Body,       P.Clobbers, P.LeavesVm,
                              P.LeavesLgkm, P.Insts,    P.Reads,
                              P.StackBytes};
      }
  }
  for (unsigned I = 0; I < Points.size(); ++I) {
    const CompiledPoint &First = Out[FirstOfShape[ShapeOf[I]]];
    if (&First == &Out[I])
      continue;
    SetShape(Out[I], First);
  }
  return Out;
}

/// addressParts of \p I, or none where hooks cannot have its address.
static std::optional<AddressParts> knownParts(const BinaryInstruction &I,
                                              const InstrAnalyzer &A) {
  Expected<AddressParts> P = addressParts(I, A);
  if (!P) {
    consumeError(P.takeError());
    return std::nullopt;
  }
  return *P;
}

int64_t memoryBaseOffsetOf(const BinaryInstruction &I,
                           const InstrAnalyzer &A) {
  std::optional<AddressParts> P = knownParts(I, A);
  return P && baseLeavesOffset(*P) ? P->Offset : 0;
}

int64_t instructionOffsetOf(const BinaryInstruction &I,
                            const InstrAnalyzer &A) {
  std::optional<AddressParts> P = knownParts(I, A);
  return P ? P->Field : 0;
}

} // namespace loom::instrument::detail

llvm::Expected<std::vector<char>>
loom::instrument::compileHookGlobals(llvm::StringRef Bitcode,
                                     llvm::StringRef Name,
                                     llvm::StringRef Processor) {
  return detail::compileGlobals(Bitcode, Name, Processor);
}
