//===- instrument/Instrumenter.cpp - Hooks in, instrumented code out ------===//
//
// The instrumented code object is written as AMDGPU assembly and assembled
// and linked by the jit pipeline: labels let MC and lld do every branch
// fix-up and PC-relative offset, and the assembler computes nothing we would
// otherwise encode by hand. Original instructions keep their encodings
// (emitted as .long words); only branches and s_getpc_b64-relative
// addresses are rewritten.
//
//===----------------------------------------------------------------------===//

#include "loom/instrument/Instrumenter.h"

#include "BodyPlacement.h"
#include "IndirectCalls.h"
#include "PointCompiler.h"
#include "SeamHazards.h"
#include "WaveRecords.h"

#include "loom/instrument/DispatchAbi.h"
#include "loom/instrument/LaunchHeader.h"
#include "loom/instrument/Liveness.h"
#include "loom/instrument/MemoryWaits.h"
#include "loom/instrument/RegisterBudget.h"
#include "loom/instrument/WaitStates.h"
#include "loom/isa/McContext.h"
#include "loom/jit/Pipeline.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

using namespace llvm;

namespace loom::instrument {

StringRef hookPointName(HookPoint P) {
  switch (P) {
  case HookPoint::Before: return "before";
  case HookPoint::After: return "after";
  case HookPoint::BlockEntry: return "block entry";
  case HookPoint::KernelEntry: return "kernel entry";
  case HookPoint::KernelExit: return "kernel exit";
  }
  return "?";
}

int64_t memoryBaseOffset(const BinaryInstruction &I, const InstrAnalyzer &A) {
  return detail::memoryBaseOffsetOf(I, A);
}

int64_t instructionOffset(const BinaryInstruction &I, const InstrAnalyzer &A) {
  return detail::instructionOffsetOf(I, A);
}

std::string HookArg::str() const {
  switch (K) {
  case Kind::Constant: return "constant " + utohexstr(V, false, true);
  case Kind::Sgpr: return "s" + std::to_string(V);
  case Kind::Vgpr: return "v" + std::to_string(V);
  case Kind::Agpr: return "a" + std::to_string(V);
  case Kind::Exec: return "exec";
  case Kind::Vcc: return "vcc";
  case Kind::Scc: return "scc";
  case Kind::M0: return "m0";
  case Kind::Pc: return "pc";
  case Kind::InstrOffset: return "instruction offset";
  case Kind::InstrIndex: return "instruction index";
  case Kind::MemoryAddress:
    return WithoutOffset ? "memory address less its offset" : "memory address";
  case Kind::MemoryBytes: return "memory bytes";
  case Kind::LaneId: return "lane id";
  case Kind::WaveId: return "wave id";
  case Kind::WorkgroupId: return "work-group id " + std::string(1, "xyz"[V % 3]);
  case Kind::DispatchId: return "dispatch id";
  case Kind::WaveCounter: return "wave counter " + std::to_string(V);
  case Kind::GlobalAddress:
    return "address of " + Global + " + " + std::to_string(V);
  }
  return "?";
}

const InstrumentedKernel *
InstrumentedCodeObject::kernel(StringRef Original) const {
  for (const InstrumentedKernel &K : Kernels)
    if (K.Original == Original)
      return &K;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// InstrumentationPlan
//===----------------------------------------------------------------------===//

namespace {
Error fail(const Twine &Msg) { return createStringError(Msg.str()); }

std::string where(const BinaryFunction &F, HookPoint P, uint64_t Address) {
  std::string S = (F.isKernel() ? "kernel " : "function ") + F.name().str() +
                  ", " + hookPointName(P).str();
  // A kernel exit is an s_endpgm: there may be several.
  if (P != HookPoint::KernelEntry)
    S += " +0x" + utohexstr(Address - F.address(), true);
  return S;
}
} // namespace

Error InstrumentationPlan::before(const BinaryFunction &F,
                                  const BinaryInstruction &I, StringRef Hook,
                                  std::vector<HookArg> Args) {
  return add(HookRequest::call(F.name().str(), HookPoint::Before, I.address(),
                                Hook.str(), std::move(Args)));
}
Error InstrumentationPlan::beforeUnlessExecIs(const BinaryFunction &F,
                                              const BinaryInstruction &I,
                                              unsigned Pair, StringRef Hook,
                                              std::vector<HookArg> Args,
                                              bool PairNeverZero) {
  HookRequest R = HookRequest::call(F.name().str(), HookPoint::Before,
                                    I.address(), Hook.str(), std::move(Args));
  R.UnlessExecIs = Pair;
  R.PairNeverZero = PairNeverZero;
  return add(std::move(R));
}
Error InstrumentationPlan::after(const BinaryFunction &F,
                                 const BinaryInstruction &I, StringRef Hook,
                                 std::vector<HookArg> Args) {
  return add(HookRequest::call(F.name().str(), HookPoint::After, I.address(),
                                Hook.str(), std::move(Args)));
}
Error InstrumentationPlan::atBlockEntry(const BinaryFunction &F,
                                        const BinaryBasicBlock &B,
                                        StringRef Hook,
                                        std::vector<HookArg> Args) {
  return add(HookRequest::call(F.name().str(), HookPoint::BlockEntry, B.Address,
                                Hook.str(), std::move(Args)));
}
Error InstrumentationPlan::atKernelEntry(const BinaryFunction &K,
                                         StringRef Hook,
                                         std::vector<HookArg> Args) {
  return add(HookRequest::call(K.name().str(), HookPoint::KernelEntry, K.address(),
                                Hook.str(), std::move(Args)));
}
Error InstrumentationPlan::atKernelExit(const BinaryFunction &K,
                                        StringRef Hook,
                                        std::vector<HookArg> Args) {
  return add(HookRequest::call(K.name().str(), HookPoint::KernelExit, K.address(),
                                Hook.str(), std::move(Args)));
}

Error InstrumentationPlan::countBefore(const BinaryFunction &F,
                                       const BinaryInstruction &I,
                                       CounterAdd A) {
  return add(HookRequest::count(F.name().str(), HookPoint::Before,
                                 I.address(), A));
}
Error InstrumentationPlan::countAtBlockEntry(const BinaryFunction &F,
                                             const BinaryBasicBlock &B,
                                             CounterAdd A) {
  return add(HookRequest::count(F.name().str(), HookPoint::BlockEntry,
                                 B.Address, A));
}

Error InstrumentationPlan::add(HookRequest R) {
  BinaryFunction *F = BC.function(R.Function);
  if (!F)
    return fail("no kernel or device function '" + R.Function +
                "' in " + BC.codeObject().name());
  if (Error E = F->requireState(FunctionState::CFGBuilt))
    return E;
  std::string W = where(*F, R.Point, R.Address);
  if (R.Add) {
    if (R.Add->Counter >= Counters.size())
      return fail(W + ": no wave counter " + Twine(R.Add->Counter));
    if (R.Point == HookPoint::KernelEntry || R.Point == HookPoint::KernelExit)
      return fail(W + ": counters are added to before, after an "
                      "instruction or at a block's entry");
    const WaveCounter &C = Counters[R.Add->Counter];
    if (C.OncePerWave && (R.Add->Amount != 1 || C.Global.empty()))
      return fail(W + ": once-per-wave counter " + Twine(R.Add->Counter) +
                  " takes adds of 1 (or of the lanes) into a global's word");
    if (C.OncePerWave && C.Narrow)
      return fail(W + ": counter " + Twine(R.Add->Counter) +
                  " is once per wave and narrow: one or the other");
    if (C.Product)
      return fail(W + ": counter " + Twine(R.Add->Counter) +
                  " is a product: it takes no adds");
    if (C.InVgpr && (!R.Add->PerLane || R.Add->Set || R.Add->Since ||
                     C.Global.empty() || C.OncePerWave || C.Narrow))
      return fail(W + ": counter " + Twine(R.Add->Counter) +
                  " is in a VGPR: it takes adds of lanes, into a global's "
                  "word");
    if (R.Add->Set && (!C.Narrow || !C.Global.empty() || R.Add->Since))
      return fail(W + ": counter " + Twine(R.Add->Counter) +
                  " is set: it must be narrow and of no global");
    if (const std::optional<CounterFold> &F = R.Add->Since) {
      auto Narrow = [&](unsigned N) {
        return N < Counters.size() && Counters[N].Narrow;
      };
      if (C.OncePerWave || !Narrow(F->Tally) || !Narrow(F->Mark) ||
          F->Tally == F->Mark || !Counters[F->Mark].Global.empty())
        return fail(W + ": a fold into counter " + Twine(R.Add->Counter) +
                    " needs a narrow tally and a narrow mark of no global, "
                    "not once per wave");
    }
  } else if (R.Call.Hook.empty()) {
    return fail(W + ": no hook named");
  } else {
    if (R.UnlessExecIs &&
        (R.Point != HookPoint::Before ||
         (*R.UnlessExecIs != HookRequest::ExecNonZero &&
          (*R.UnlessExecIs % 2 || *R.UnlessExecIs + 1 >= MaxSgprs))))
      return fail(W + ": a call unless EXEC is an SGPR pair goes before an "
                      "instruction, and names an even pair");
    for (const HookArg &A : R.Call.Args)
      if (A.kind() == HookArg::Kind::WaveCounter &&
          (A.value() >= Counters.size() || Counters[A.value()].OncePerWave))
        return fail(W + ": hook '" + R.Call.Hook + "': no " + A.str() +
                    " a hook can read (once-per-wave counters live in "
                    "lanes)");
    if (R.Call.Result && (*R.Call.Result >= Counters.size() ||
                          Counters[*R.Call.Result].OncePerWave))
      return fail(W + ": hook '" + R.Call.Hook + "' returns into wave counter " +
                  Twine(*R.Call.Result) +
                  ", which does not exist or is once per wave");
  }
  switch (R.Point) {
  case HookPoint::KernelEntry:
  case HookPoint::KernelExit:
    if (!F->isKernel())
      return fail(W + ": " + F->name() + " is a device function, not a kernel");
    break;
  case HookPoint::BlockEntry:
    if (!F->blockStartingAt(R.Address))
      return fail(W + ": no basic block starts there");
    break;
  case HookPoint::Before:
  case HookPoint::After: {
    const BinaryInstruction *I = F->instructionAt(R.Address);
    if (!I || !F->blockContaining(R.Address))
      return fail(W + ": no instruction starts there");
    if (R.Point == HookPoint::After &&
        (I->Props.isBranch() || I->Props.isReturn() ||
         I->Props.isEndProgram() || I->Info.Flow == isa::ControlFlow::TailCall))
      return fail(W + ": nothing runs after " + I->Info.Text +
                  " (a hook after a branch, return or s_endpgm); hook the "
                  "blocks it goes to instead");
    break;
  }
  }
  Requests.push_back(std::move(R));
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Emission
//===----------------------------------------------------------------------===//

namespace {

using detail::CompiledPoint;
using detail::LaunchState;
using detail::NumLaunchStates;
using detail::PointSpec;
using detail::RawInput;
using detail::waveCounterState;


std::string sreg(unsigned N) { return "s" + std::to_string(N); }
/// The assembly name of a scalar register by its operand code
/// (McContext::scalarCode): an SGPR or a half of VCC.
std::string scalarName(unsigned Code) {
  if (Code == isa::McContext::VccLoCode)
    return "vcc_lo";
  if (Code == isa::McContext::VccHiCode)
    return "vcc_hi";
  return sreg(Code);
}

/// Whether the s_getpc_b64 at \p Idx of \p B starts the one use of the PC
/// Loom moves: s_add_u32 lo, lo, lit and s_addc_u32 hi, hi, lit on its
/// pair, an address the lifter computed.
bool getPcPair(const isa::McContext &MC, const BinaryBasicBlock &B,
               unsigned Idx) {
  if (Idx + 2 >= B.Instructions.size())
    return false;
  const BinaryInstruction &Get = B.Instructions[Idx];
  const BinaryInstruction &Add = B.Instructions[Idx + 1];
  const BinaryInstruction &Addc = B.Instructions[Idx + 2];
  if (MC.opcodeBaseName(Get.Inst.getOpcode()) != "S_GETPC_B64" ||
      MC.opcodeBaseName(Add.Inst.getOpcode()) != "S_ADD_U32" ||
      MC.opcodeBaseName(Addc.Inst.getOpcode()) != "S_ADDC_U32" ||
      !Addc.Info.ComputedAddress)
    return false;
  SmallVector<unsigned, 4> Pair =
      MC.scalarCodes(Get.Inst.getOperand(0).getReg().id());
  std::optional<unsigned> Lo = MC.scalarCode(Add.Inst.getOperand(0).getReg().id());
  std::optional<unsigned> Hi = MC.scalarCode(Addc.Inst.getOperand(0).getReg().id());
  return Pair.size() == 2 && Lo == Pair[0] && Hi == Pair[1];
}

std::string vpair(unsigned N) {
  return "v[" + std::to_string(N) + ":" + std::to_string(N + 1) + "]";
}
std::string spair(unsigned N) {
  return "s[" + std::to_string(N) + ":" + std::to_string(N + 1) + "]";
}
std::string vreg(unsigned N) { return "v" + std::to_string(N); }
/// laneWord()'s value (the lane's index times 4) into VGPR \p V.
void emitLaneWord(raw_ostream &OS, const std::string &V) {
  OS << "\tv_mbcnt_lo_u32_b32 " << V << ", -1, 0\n"
     << "\tv_mbcnt_hi_u32_b32 " << V << ", -1, " << V << "\n"
     << "\tv_lshlrev_b32 " << V << ", 2, " << V << "\n";
}

/// The points of one function, by where they go.
struct FunctionPoints {
  std::vector<unsigned> KernelEntry;
  std::map<uint64_t, unsigned> BlockEntry, Before, After, KernelExit;
  /// Calls before an instruction unless EXEC is an SGPR pair: the point,
  /// the pair.
  std::map<uint64_t, std::pair<unsigned, unsigned>> BeforeUnlessExec;
  /// Per such point: whether every call there promised the pair is never
  /// 0 (HookRequest::PairNeverZero).
  std::map<uint64_t, bool> PairNeverZero;
  /// Adds to wave counters, by where they go.
  std::map<uint64_t, std::vector<CounterAdd>> AddsBlockEntry, AddsBefore,
      AddsAfter;
};

/// Registers the original code may use, and so cannot hold saved values.
struct RegisterBudget {
  unsigned FirstFreeSgpr = 0;
  unsigned FirstFreeVgpr = 0;
  /// AGPRs: none used from FirstFreeAgpr up to AgprLimit (0 on targets
  /// without them).
  unsigned FirstFreeAgpr = 0, AgprLimit = 0;
};

/// Reads back the .loom.addrmap section lld resolved.
Error readAddressMap(InstrumentedCodeObject &R) {
  auto Obj = object::ObjectFile::createELFObjectFile(
      MemoryBufferRef(StringRef(R.Elf.data(), R.Elf.size()), "instrumented"));
  if (!Obj)
    return Obj.takeError();
  for (const object::SectionRef &S : (*Obj)->sections()) {
    Expected<StringRef> Name = S.getName();
    if (!Name || *Name != ".loom.addrmap") {
      if (!Name)
        consumeError(Name.takeError());
      continue;
    }
    Expected<StringRef> Data = S.getContents();
    if (!Data)
      return Data.takeError();
    for (size_t I = 0; I + 16 <= Data->size(); I += 16)
      R.AddressMap.emplace_back(
          support::endian::read64le(Data->data() + I),
          support::endian::read64le(Data->data() + I + 8));
  }
  llvm::sort(R.AddressMap);
  return Error::success();
}

/// Where in \p Text (offsets of line starts, in order) the assembler of
/// \p Name said "branch size exceeds simm16", from its error \p Err.
std::vector<size_t> branchRangeErrors(StringRef Err, StringRef Name,
                                      StringRef Text) {
  std::vector<size_t> LineStarts = {0};
  for (size_t At = Text.find('\n'); At != StringRef::npos;
       At = Text.find('\n', At + 1))
    LineStarts.push_back(At + 1);
  std::vector<size_t> Offsets;
  std::string Marker = (Name + ":").str();
  for (StringRef Rest = Err;;) {
    size_t At = Rest.find(Marker);
    if (At == StringRef::npos)
      break;
    Rest = Rest.drop_front(At + Marker.size());
    unsigned Line = 0;
    if (Rest.take_while(isDigit).getAsInteger(10, Line) || Line == 0 ||
        Line > LineStarts.size() ||
        !Rest.take_until([](char C) { return C == '\n'; })
             .contains("branch size exceeds simm16"))
      continue;
    Offsets.push_back(LineStarts[Line - 1]);
  }
  return Offsets;
}

class Emitter {
public:
  Emitter(const InstrumentationPlan &Plan, ArrayRef<HookLibrary> Hooks,
          const InstrumentOptions &Options)
      : Plan(Plan), BC(Plan.context()), Hooks(Hooks), Options(Options) {}

  Expected<InstrumentedCodeObject> run();

private:
  Error chooseFunctions();
  Error checkRewritable(const BinaryFunction &F);
  void collectPoints();
  /// The device address of the tool global \p Global; \p What says who
  /// asked, for messages.
  Expected<uint64_t> toolGlobal(StringRef Global, const Twine &What) const;
  /// HookArg::globalAddress arguments of the points, as the constants
  /// they are in this copy.
  Error resolveGlobalAddresses();
  /// Index of the instruction at \p Address in F's blocks, in order.
  unsigned instructionIndex(const BinaryFunction &F, uint64_t Address);
  void computeBudget();
  Error planLaunchState();
  /// Where the hooks' stack goes: StackBytes, SlotBase, StackSlotSize and
  /// the launch state that reaches it.
  void planStack();
  /// SGPRs for the wave counters (above the launch state) and the
  /// address of each one's word.
  Error planCounters();
  /// A VGPR for loom::laneWord(), if any point reads it and one is free.
  void planLaneWord();
  /// The counters in lanes of StateVgpr.
  Error takeCounterLanes();
  /// \p Adds, SCC kept if \p Live has it.
  void emitCounterAdds(ArrayRef<CounterAdd> Adds, const RegisterSet &Live);
  /// One add to the counter in SGPRs \p Lo, \p Hi (EXEC's lane count in
  /// \p Temp if per lane).
  void emitAdd(const CounterAdd &A, unsigned Lo, unsigned Hi, unsigned Temp);
  /// Every counter added to its word, before an s_endpgm (the records
  /// after the rest).
  void emitCounterFlush();
  /// emitCounterFlush's SGPR counters by group, if it pays; false if not.
  bool emitGroupedFlush();
  /// Counter \p C's product into its SGPR pair.
  void emitProduct(size_t C);
  void emitRecordFlush();
  bool usesState(LaunchState S) const {
    return StatesUsed & 1u << unsigned(S);
  }
  Error emitPreamble(const BinaryFunction &K);
  /// The SGPR the preamble puts launch state \p S together in, when it
  /// is kept in lanes.
  struct KernelLaunch;
  static unsigned preambleTemp(const KernelLaunch &L, LaunchState S);
  bool hasPreamble() const {
    return StatesUsed || StackBytes || !CounterReg.empty() || CountersInLanes ||
           (Records && !Records->empty()) || LaneWordVgpr ||
           any_of(VectorReg, [](unsigned V) { return V != ~0u; });
  }
  /// Where RawInput::State \p N (a launch state, or a half of a wave
  /// counter) lives for the whole kernel: an SGPR of its own, or lane N of
  /// StateVgpr.
  struct StateHome {
    bool InLane = false;
    unsigned Reg = 0, Lane = 0;
  };
  StateHome stateHome(unsigned N) const {
    bool Counter = N >= NumLaunchStates;
    if (Counter ? CountersInLanes : LaunchInLanes)
      return {true, *StateVgpr, N};
    if (!Counter)
      return {false, StateReg[N], 0};
    return {false,
            CounterReg[(N - NumLaunchStates) / 2] + (N - NumLaunchStates) % 2,
            0};
  }
  /// Copies state \p N into SGPR \p Dst; true if a VALU wrote it.
  bool emitStateRead(StringRef Dst, unsigned N);
  /// Copies SGPR \p Src into state \p N.
  void emitStateWrite(unsigned N, StringRef Src);
  /// A VGPR above every register the code and the points use, for state
  /// kept in its lanes when the SGPRs run out.
  Error takeStateVgpr();
  Error emitFunction(const BinaryFunction &F);
  /// Whether the guard of the calls before instruction \p I of \p B (an
  /// s_cbranch_execz whose pair is never 0, HookRequest::PairNeverZero,
  /// with nothing else at it) skips the branch too.
  bool skipsBranch(const FunctionPoints &FP, const BinaryBasicBlock &B,
                   unsigned I) const;
  /// The pair of the guard before instruction \p I of \p B.
  unsigned guardPair(const FunctionPoints &FP, const BinaryBasicBlock &B,
                     unsigned I) const {
    return FP.BeforeUnlessExec.at(B.Instructions[I].address()).second;
  }
  /// Where instruction \p I of block \p B of \p F is `s_and_saveexec_b64
  /// sX, SRC` and the next is an s_cbranch_execz whose guard (sX) skips
  /// it: whether the guard can go before the s_and_saveexec_b64 and skip
  /// that too, as `s_andn2_b64 sX, exec, SRC; s_cbranch_scc0`. A wave it
  /// skips would lose no lane, so the s_and_saveexec_b64 would have left
  /// EXEC as it is and written only sX and SCC: neither may be live where
  /// the branch falls through, nor SRC be sX, nor a point be between the
  /// two. SRC as assembly if so.
  std::optional<std::string> hoistedGuardSource(const BinaryFunction &F,
                                                const FunctionPoints &FP,
                                                unsigned B, unsigned I) const;
  /// How far point \p P's body moves up (SGPRs, VGPRs; 0 if it stays):
  /// above Budget, in steps of 4 (keeping register tuples aligned), if it
  /// fits below the architectural limits.
  std::pair<unsigned, unsigned> bodyShift(const CompiledPoint &P) const;
  /// Where \p P's body goes at its point: shifted so, and its parameters
  /// renamed to where their values are there (BodyPlacement.h).
  detail::BodyPlacement placeBody(const CompiledPoint &P, unsigned SgprShift,
                                  unsigned VgprShift);
  /// What \p P's body writes (its own registers), once per shape.
  const RegisterSet &bodyWrites(const CompiledPoint &P);
  std::map<const void *, RegisterSet> BodyWrites;
  /// \p P's body placed so, as machine words, a line per instruction;
  /// made once per shape and placement.
  Expected<const std::vector<std::string> &>
  placedBody(const CompiledPoint &P, const detail::BodyPlacement &Place);
  std::map<std::pair<const void *, detail::BodyPlacement>,
           std::vector<std::string>>
      PlacedBodies;
  /// Writes \p P's body placed so, with \p F's immediates folded.
  Error emitPlacedBody(const CompiledPoint &P,
                       const detail::BodyPlacement &Place,
                       const detail::Folds &F);
  /// s_waitcnt draining vmcnt and/or lgkmcnt; nothing if neither.
  void emitWait(bool Vm, bool Lgkm) {
    if (Vm || Lgkm)
      OS << "\ts_waitcnt" << (Vm ? " vmcnt(0)" : "")
         << (Lgkm ? " lgkmcnt(0)" : "") << "\n";
  }
  /// The original code around a point, for the wait-state rules
  /// (WaitStates.h): the instructions that may come before it and after
  /// it, by distance, over the CFG.
  struct Seam {
    HazardSteps Before, After;
  };
  Seam seamAt(const BinaryFunction &F, unsigned B, unsigned I);
  /// emitCounterAdds with the counters in lanes, through SGPRs dead there
  /// (or borrowed), the seams padded as a point's are.
  void emitCounterAddsInLanes(ArrayRef<CounterAdd> Adds,
                              const RegisterSet &Live,
                              const PendingMemory &Pending,
                              const Seam &Around);
  /// \p Adds to records, the seams padded as a point's are.
  void emitRecordAdds(ArrayRef<CounterAdd> Adds, const Seam &Around);
  const HazardInst &hazardOf(const BinaryInstruction &I);
  /// By instruction; a node map, as seams point into it.
  std::unordered_map<const BinaryInstruction *, HazardInst> Hazards;
  /// A point's body as the rules see it, once per shape and placement;
  /// \p Clobbers: its placed clobbers.
  const detail::BodyHazards &bodyHazards(const CompiledPoint &P,
                                         const detail::BodyPlacement &Place,
                                         const RegisterSet &Clobbers) {
    const void *Shape = P.Insts ? static_cast<const void *>(P.Insts.get())
                                : static_cast<const void *>(&P);
    auto [It, New] = BodyHazardCache.try_emplace({Shape, Place});
    if (New)
      It->second = detail::bodyHazards(BC, P, Place, Clobbers);
    return It->second;
  }
  std::map<std::pair<const void *, detail::BodyPlacement>, detail::BodyHazards>
      BodyHazardCache;
  /// The end of the point emitted last, until an original instruction
  /// follows it.
  std::vector<HazardInst> PreviousTail;
  /// s_nop before \p After where the rules need it (Result counts them).
  void padSeam(const HazardSteps &Before, const HazardSteps &After) {
    unsigned N = waitStatesNeeded(
        Before, After, HazardTarget::of(BC.codeObject().target().Processor));
    std::string Nops = nopsFor(N);
    Result.HazardWaitStates += N;
    Result.HazardNops += StringRef(Nops).count('\n');
    OS << Nops;
  }
  /// \p Pending: memory results that may still arrive there.
  Error emitPoint(unsigned Index, const RegisterSet &Live,
                  const PendingMemory &Pending, const Seam &Around);
  Error emitInstruction(const BinaryFunction &F, unsigned B, unsigned I);
  /// The copied functions a call through a pointer may reach.
  std::vector<detail::CopiedFunction> indirectTargets() const;
  /// Whether \p I is a call through a pointer whose target is translated
  /// to the instrumented copies (IndirectCalls.h); the translation goes
  /// before its address map label, the call through the pair it leaves.
  bool translatesCall(const BinaryInstruction &I) const;
  Error emitCallTranslation(const BinaryFunction &F, unsigned B, unsigned I);
  Error emitKernelDescriptor(const BinaryFunction &K, InstrumentedKernel &Out);
  Expected<std::string> metadataYaml();

  std::string blockLabel(const BinaryFunction &F, uint64_t Address) const {
    return ".Lloom_f" + std::to_string(FunctionIndex.lookup(&F)) + "_" +
           utohexstr(Address, true);
  }
  std::string copyName(const BinaryFunction &F) const {
    return F.name().str() + Options.Suffix;
  }
  /// The label that stands for \p Address in the new code, if it has one: a
  /// copied function's entry, or a block of the function being emitted.
  std::optional<std::string> labelFor(const BinaryFunction &Current,
                                      uint64_t Address) const {
    if (BinaryFunction *F = BC.functionAt(Address))
      if (Emitted.count(F))
        return copyName(*F);
    if (Current.blockStartingAt(Address))
      return blockLabel(Current, Address);
    return std::nullopt;
  }

  const InstrumentationPlan &Plan;
  const BinaryContext &BC;
  ArrayRef<HookLibrary> Hooks;
  const InstrumentOptions &Options;

  std::optional<Liveness> OwnLive; ///< when Options has none
  const Liveness *Live = nullptr;
  SetVector<const BinaryFunction *> Kernels;
  SetVector<const BinaryFunction *> Emitted; // kernels and callees copied
  DenseMap<const BinaryFunction *, unsigned> FunctionIndex;
  std::map<const BinaryFunction *, FunctionPoints> Points;
  DenseMap<const BinaryFunction *, DenseMap<uint64_t, unsigned>>
      InstructionIndex;
  std::vector<PointSpec> Specs;
  std::vector<CompiledPoint> Compiled;
  RegisterBudget Budget;
  /// The budget of the original code alone, before the launch state,
  /// counters and long branches took registers above it.
  RegisterBudget OriginalBudget;
  /// The hooks' stack, where a point needs one: a frame of StackBytes per
  /// lane (the deepest point's) in a slot of StackSlotSize above the
  /// original code's own stack: at SlotBase if that has a fixed size, else
  /// at the top of the private segment (planStack).
  unsigned StackBytes = 0, SlotBase = 0, StackSlotSize = 0;
  /// The stack pointer the glue gives a point: a byte offset per lane, in
  /// the wave's bytes (x64) where the stack is reached through a V#.
  uint32_t stackPointer() const {
    return SlotBase * (detail::hasScratchRsrc(processor()) ? 64 : 1);
  }
  StringRef processor() const { return BC.codeObject().target().Processor; }
  /// The launch state the points read (1 << LaunchState), and the SGPR
  /// each lives in for the whole kernel.
  unsigned StatesUsed = 0;
  unsigned StateReg[NumLaunchStates] = {};
  /// Per wave counter: the first of its two SGPRs (even), and the address
  /// of its word; the SGPRs counter code borrows: AddTemp (EXEC's lane
  /// count), AddScc (SCC kept), FlushBase (a pair: the words' base).
  std::vector<unsigned> CounterReg;
  std::vector<uint64_t> CounterAddress;
  /// The OncePerWave counters, in lanes of VGPR pairs of their own.
  std::optional<detail::WaveRecords> Records;
  bool isRecord(unsigned Counter) const {
    return Records && Records->isRecord(Counter);
  }
  /// Per wave counter in a VGPR pair (WaveCounter::InVgpr): its first
  /// VGPR, or ~0u.
  std::vector<unsigned> VectorReg;
  bool inVgpr(unsigned Counter) const {
    return Counter < VectorReg.size() && VectorReg[Counter] != ~0u;
  }
  /// Neither a record nor in a VGPR: in SGPRs (or lanes of the state's).
  bool inSgprs(unsigned Counter) const {
    return !isRecord(Counter) && !inVgpr(Counter);
  }
  /// Adds to counters in VGPRs, and their flush.
  void emitVectorAdds(ArrayRef<CounterAdd> Adds, const Seam &Around);
  void emitVectorFlush();
  /// VGPR pairs for Records, above every register the code and the points
  /// use.
  Error takeRecordVgprs();
  /// The first \p Count VGPRs from a multiple of \p Align above every
  /// register the code uses that no point writes, taken for the kernel's
  /// life; none if the budget has no such run.
  std::optional<unsigned> takeFreeVgprs(unsigned Count, unsigned Align);
  /// laneWord()'s VGPR, set by the preamble; none: the glue computes it.
  std::optional<unsigned> LaneWordVgpr;
  unsigned AddTemp = 0, AddScc = 0, FlushBase = 0;
  /// Two more for folds (CounterAdd::Since), if any.
  std::optional<unsigned> FoldTemp;
  /// Where no SGPRs are left for them (-O0 code calling functions uses
  /// s0..s101), the launch state and the counters live in lanes of
  /// StateVgpr instead, state N in lane N; counter adds there borrow
  /// s0.. where too few SGPRs are dead, kept meanwhile in lanes
  /// BorrowLane.. of it.
  std::optional<unsigned> StateVgpr;
  bool LaunchInLanes = false, CountersInLanes = false;
  static constexpr unsigned BorrowLane = 60;
  /// How a kernel's preamble gets the launch state: the initial SGPRs as
  /// the original descriptor lays them out and as the copy's does (which
  /// enables what the state needs), and where the launch header goes.
  struct KernelLaunch {
    codeobj::KernelDescriptor NewKD;
    SgprLayout Old, New;
    uint32_t HeaderOffset = 0;
    unsigned OldWorkitemId = 0;
  };
  DenseMap<const BinaryFunction *, KernelLaunch> Launch;
  /// Branches the inserted code put out of simm16 range, emitted as
  /// s_getpc/s_add/s_addc/s_setpc through LongBranchRegs (a pair, then a
  /// register for SCC), and the targets that need SCC restored on arrival
  /// (a pad before their label).
  std::set<std::pair<const BinaryFunction *, uint64_t>> LongBranches,
      SccPads, LongTargets;
  std::optional<unsigned> LongBranchRegs;
  /// Where no three SGPRs are free, long branches borrow s0..s2, kept
  /// meanwhile in lanes 0..2 of this VGPR (no code uses it) and given back
  /// by a pad at every long branch's target.
  std::optional<unsigned> LongBranchLanes;
  bool hasPad(const BinaryFunction &F, uint64_t Target) const {
    return SccPads.count({&F, Target}) ||
           (LongBranchLanes && LongTargets.count({&F, Target}));
  }
  /// Where each short branch's line starts in Text, to map an assembler
  /// error back to it.
  std::map<size_t, std::pair<const BinaryFunction *, uint64_t>> BranchLines;
  unsigned LongLabels = 0;
  /// Highest register any emitted code writes or reads, for the
  /// descriptors.
  int HighestSgpr = -1, HighestVgpr = -1;
  int BaseSgpr = -1, BaseVgpr = -1; // of the original code alone
  int HighestAgpr = -1, BaseAgpr = -1;
  unsigned PcLabels = 0, GuardLabels = 0;
  /// Original address of the instruction at each .Lloom_oN label.
  std::vector<uint64_t> AddressMapLabels;

  InstrumentedCodeObject Result;
  std::string Text;
  raw_string_ostream OS{Text};
};

/// Marks the registers of \p S in the running maxima.
void noteHighest(const RegisterSet &S, int &HighestSgpr, int &HighestVgpr) {
  HighestSgpr = std::max(HighestSgpr, S.highestSgpr());
  HighestVgpr = std::max(HighestVgpr, S.highestVgpr());
}

Error Emitter::checkRewritable(const BinaryFunction &F) {
  if (!F.isInstrumentable())
    return fail(F.notInstrumentableReason());
  for (const BinaryBasicBlock &B : F.blocks())
    for (unsigned I = 0; I < B.Instructions.size(); ++I) {
      const BinaryInstruction &Inst = B.Instructions[I];
      StringRef Name = BC.mc().opcodeBaseName(Inst.Inst.getOpcode());
      if (Name != "S_GETPC_B64")
        continue;
      // What a pair (getPcPair) cannot do, the original PC can, as long as
      // the instruction names its destination.
      if (!getPcPair(BC.mc(), B, I) &&
          BC.mc().scalarCodes(Inst.Inst.getOperand(0).getReg().id()).size() != 2)
        return fail("s_getpc_b64 at +0x" +
                    utohexstr(Inst.address() - F.address(), true) +
                    " writes no register pair Loom can name");
    }
  return Error::success();
}

Error Emitter::chooseFunctions() {
  // Kernels asked for, with a hook, or reaching a function with a hook.
  SetVector<const BinaryFunction *> Hooked;
  for (const HookRequest &R : Plan.requests())
    Hooked.insert(BC.function(R.Function));
  for (const std::string &K : Plan.kernels()) {
    const BinaryFunction *F = BC.function(K);
    if (!F || !F->isKernel())
      return fail("no kernel '" + K + "' in " + BC.codeObject().name());
    Kernels.insert(F);
  }
  for (const BinaryFunction &F : BC.functions()) {
    if (!F.isKernel())
      continue;
    // Every function F may reach in this code object.
    std::vector<const BinaryFunction *> Reach =
        BC.callGraph().reachableFrom(F);
    // Named kernels, if any are, else those that reach a hook.
    if (!Kernels.count(&F) &&
        (!Plan.kernels().empty() || none_of(Reach, [&](const BinaryFunction *G) {
          return Hooked.count(G);
        })))
      continue;
    if (Error E = checkRewritable(F)) {
      Result.Warnings.push_back("kernel " + F.name().str() +
                                " runs uninstrumented: " + toString(std::move(E)));
      continue;
    }
    Kernels.insert(&F);
    for (const BinaryFunction *G : Reach) {
      if (Emitted.count(G))
        continue;
      if (G != &F) {
        if (Error E = checkRewritable(*G)) {
          // Calls to it go to the original code.
          if (Hooked.count(G))
            Result.Warnings.push_back("function " + G->name().str() +
                                      " runs uninstrumented: " +
                                      toString(std::move(E)));
          else
            consumeError(std::move(E));
          continue;
        }
      }
      Emitted.insert(G);
    }
  }
  // A kernel left out above is dropped from Kernels.
  Kernels.remove_if([&](const BinaryFunction *K) { return !Emitted.count(K); });
  for (const BinaryFunction *F : Emitted)
    FunctionIndex[F] = FunctionIndex.size();
  return Error::success();
}

unsigned Emitter::instructionIndex(const BinaryFunction &F, uint64_t Address) {
  DenseMap<uint64_t, unsigned> &Index = InstructionIndex[&F];
  if (Index.empty())
    for (const BinaryBasicBlock &B : F.blocks())
      for (const BinaryInstruction &I : B.Instructions)
        Index[I.address()] = Index.size();
  return Index.lookup(Address);
}

void Emitter::collectPoints() {
  // Requests in the order asked; one point per (function, place).
  auto Spec = [&](unsigned &Slot, bool Fresh, const BinaryFunction &F,
                  const HookRequest &R) {
    if (Fresh) {
      Slot = Specs.size();
      PointSpec P;
      P.Where = where(F, R.Point, R.Address);
      if (R.Point == HookPoint::Before || R.Point == HookPoint::After) {
        P.Instr = F.instructionAt(R.Address);
        P.Pc = R.Address + Options.LoadDelta;
        P.InstrOffset = R.Address - F.address();
        P.InstrIndex = instructionIndex(F, R.Address);
      }
      Specs.push_back(std::move(P));
    }
    Specs[Slot].Calls.push_back(R.Call);
  };
  for (const HookRequest &R : Plan.requests()) {
    const BinaryFunction *F = BC.function(R.Function);
    if (!Emitted.count(F))
      continue;
    FunctionPoints &FP = Points[F];
    if (R.Add) {
      auto &Map = R.Point == HookPoint::BlockEntry ? FP.AddsBlockEntry
                  : R.Point == HookPoint::Before   ? FP.AddsBefore
                                                   : FP.AddsAfter;
      Map[R.Address].push_back(*R.Add);
      continue;
    }
    switch (R.Point) {
    case HookPoint::KernelEntry: {
      bool Fresh = FP.KernelEntry.empty();
      if (Fresh)
        FP.KernelEntry.push_back(0);
      Spec(FP.KernelEntry[0], Fresh, *F, R);
      break;
    }
    case HookPoint::KernelExit: {
      // Before every s_endpgm: one point per exit.
      for (const BinaryBasicBlock &B : F->blocks())
        for (const BinaryInstruction &I : B.Instructions)
          if (I.Props.isEndProgram()) {
            auto [It, Fresh] = FP.KernelExit.try_emplace(I.address(), 0);
            HookRequest At = R;
            At.Address = I.address();
            Spec(It->second, Fresh, *F, At);
          }
      break;
    }
    case HookPoint::Before:
      if (R.UnlessExecIs) {
        auto [It, Fresh] = FP.BeforeUnlessExec.try_emplace(
            R.Address, 0, *R.UnlessExecIs);
        Spec(It->second.first, Fresh, *F, R);
        bool &NeverZero =
            FP.PairNeverZero.try_emplace(R.Address, true).first->second;
        NeverZero = NeverZero && R.PairNeverZero;
        break;
      }
      [[fallthrough]];
    case HookPoint::BlockEntry:
    case HookPoint::After: {
      auto &Map = R.Point == HookPoint::BlockEntry ? FP.BlockEntry
                  : R.Point == HookPoint::Before   ? FP.Before
                                                   : FP.After;
      auto [It, Fresh] = Map.try_emplace(R.Address, 0);
      Spec(It->second, Fresh, *F, R);
      break;
    }
    }
  }
}

void Emitter::computeBudget() {
  RegistersInUse R = registersInUse(BC, Kernels.getArrayRef(),
                                    Emitted.getArrayRef());
  Budget.FirstFreeSgpr = R.HighestSgpr + 1;
  Budget.FirstFreeVgpr = R.HighestVgpr + 1;
  HighestSgpr = R.HighestSgpr;
  HighestVgpr = R.HighestVgpr;
  // AGPRs, where the target has them: what the code and the kernels'
  // metadata use is taken; the rest may hold saved VGPRs.
  if (hasUnifiedVectorFile(processor())) {
    Budget.FirstFreeAgpr = R.HighestAgpr + 1;
    Budget.AgprLimit = RegisterSet::NumAgprs;
    HighestAgpr = BaseAgpr = R.HighestAgpr;
  }
}

/// Homes for one point's saves: registers the original code never uses
/// (above the budget), then registers it uses that are dead at the point
/// (not live, not read by the arguments, no load in flight into them:
/// Liveness proves them free), none the point clobbers; and AGPRs the
/// code never uses (gfx90a, gfx94x), for VGPRs.
class SpareAllocator {
public:
  SpareAllocator(const RegisterBudget &B, const RegisterSet &Clobbers,
                 const RegisterSet &Dead)
      : B(B), Clobbers(Clobbers), Dead(Dead), NextS(B.FirstFreeSgpr),
        NextV(B.FirstFreeVgpr), NextA(B.FirstFreeAgpr) {}

  Expected<unsigned> sgpr() {
    if (std::optional<unsigned> N = take(NextS, DeadS, MaxSgprs,
                                         &RegisterSet::hasSgpr))
      return *N;
    return fail("no free scalar registers to save into (the kernel uses "
                "s0..s" + Twine(B.FirstFreeSgpr - 1) + ")");
  }
  Expected<unsigned> vgpr() {
    if (std::optional<unsigned> N = take(NextV, DeadV, MaxVgprs,
                                         &RegisterSet::hasVgpr))
      return *N;
    return fail("no free vector registers to save into (the kernel uses "
                "v0..v" + Twine(B.FirstFreeVgpr - 1) + ")");
  }
  std::optional<unsigned> agpr() {
    if (NextA >= B.AgprLimit)
      return std::nullopt;
    return NextA++;
  }

private:
  /// The next register of a file of \p Limit with \p Has: one above the
  /// budget the point does not clobber (from \p Next), else a dead one
  /// (from \p NextDead).
  std::optional<unsigned> take(unsigned &Next, unsigned &NextDead,
                               unsigned Limit,
                               bool (RegisterSet::*Has)(unsigned) const) {
    while (Next < Limit && (Clobbers.*Has)(Next))
      ++Next;
    if (Next < Limit)
      return Next++;
    while (NextDead < Limit && !(Dead.*Has)(NextDead))
      ++NextDead;
    if (NextDead < Limit)
      return NextDead++;
    return std::nullopt;
  }

  const RegisterBudget &B;
  const RegisterSet &Clobbers, &Dead;
  unsigned NextS, NextV, NextA, DeadS = 0, DeadV = 0;
};

void Emitter::planStack() {
  for (const CompiledPoint &P : Compiled)
    StackBytes = std::max(StackBytes, P.StackBytes);
  if (!StackBytes)
    return;
  // The slot goes above the deepest the original code's stack reaches. A
  // fixed size tells where (SlotBase, a constant stack pointer); a dynamic
  // stack (calls through pointers, recursion, dynamic allocas) may reach
  // any offset the dispatch's private segment size allows, so the slot
  // takes the top of a segment grown by StackSlotSize, and the preamble
  // finds it from the size's SGPR.
  uint32_t Fixed = 0;
  for (const BinaryFunction *K : Kernels) {
    const codeobj::Kernel *CK = BC.codeObject().findKernel(K->name());
    const codeobj::KernelMetadata *MD = BC.codeObject().metadataOf(*CK);
    if (CK->KD.Properties.UsesDynamicStack ||
        (MD && MD->UsesDynamicStack.value_or(false)))
      StatesUsed |= 1u << unsigned(LaunchState::StackPointer);
    Fixed = std::max(Fixed, CK->KD.PrivateSegmentFixedSize);
    if (MD)
      Fixed = std::max<uint32_t>(Fixed, MD->PrivateSegmentFixedSize);
  }
  SlotBase = alignTo(Fixed, 16);
  // At the top, the slot's start is rounded down to 16 bytes from a size
  // that is a multiple of 4: 16 more keep it above the original's part.
  StackSlotSize = alignTo(StackBytes, 16) +
                  (usesState(LaunchState::StackPointer) ? 16 : 0);
  if (detail::hasScratchRsrc(processor()))
    for (LaunchState S : {LaunchState::ScratchRsrc0, LaunchState::ScratchRsrc1,
                          LaunchState::ScratchRsrc2, LaunchState::ScratchRsrc3})
      StatesUsed |= 1u << unsigned(S);
}

Error Emitter::planLaunchState() {
  for (const CompiledPoint &P : Compiled)
    for (const RawInput &R : P.SgprInputs)
      if (R.K == RawInput::Kind::State && R.N < NumLaunchStates)
        StatesUsed |= 1u << R.N;
  planStack();
  if (!StatesUsed && !StackBytes)
    return Error::success();
  bool Header = usesState(LaunchState::HeaderLo);
  unsigned FirstFree = Budget.FirstFreeSgpr;
  for (const BinaryFunction *K : Kernels) {
    const codeobj::Kernel *CK = BC.codeObject().findKernel(K->name());
    KernelLaunch L;
    L.NewKD = CK->KD;
    L.Old = SgprLayout::of(CK->KD);
    L.OldWorkitemId = CK->KD.Rsrc2.EnableVgprWorkitemId;
    codeobj::KernelDescriptor &KD = L.NewKD;
    // User SGPRs the state needs that the original does not enable.
    unsigned Added = 0;
    auto Enable = [&](bool &Input, unsigned Sgprs) {
      if (!Input)
        Added += Sgprs;
      Input = true;
    };
    if (Header || usesState(LaunchState::KernargLo))
      Enable(KD.Properties.EnableSgprKernargSegmentPtr, 2);
    if (usesState(LaunchState::DispatchPtrLo))
      Enable(KD.Properties.EnableSgprDispatchPtr, 2);
    if (usesState(LaunchState::ScratchRsrc0)) {
      // The stack through the V#, and flat accesses to it (a private
      // pointer made generic) through FLAT_SCRATCH, which the preamble
      // sets up from flat_scratch_init and the wave's offset.
      Enable(KD.Properties.EnableSgprPrivateSegmentBuffer, 4);
      Enable(KD.Properties.EnableSgprFlatScratchInit, 2);
    }
    if (usesState(LaunchState::StackPointer))
      Enable(KD.Properties.EnableSgprPrivateSegmentSize, 1);
    KD.Rsrc2.UserSgprCount = L.Old.UserSgprs + Added;
    // The wave's scratch offset (and, with architected flat scratch, the
    // FLAT_SCRATCH the hardware sets).
    KD.Rsrc2.EnablePrivateSegment |= StackBytes > 0;
    bool Wg[3] = {usesState(LaunchState::WorkgroupIdX),
                  usesState(LaunchState::WorkgroupIdY),
                  usesState(LaunchState::WorkgroupIdZ)};
    KD.Rsrc2.EnableSgprWorkgroupIdX |= Wg[0];
    KD.Rsrc2.EnableSgprWorkgroupIdY |= Wg[1];
    KD.Rsrc2.EnableSgprWorkgroupIdZ |= Wg[2];
    if (usesState(LaunchState::WaveTid))
      KD.Rsrc2.EnableVgprWorkitemId = 2;
    L.New = SgprLayout::of(KD);
    uint64_t Kernarg = CK->KD.KernargSize;
    if (const codeobj::KernelMetadata *MD = BC.codeObject().metadataOf(*CK))
      Kernarg = std::max<uint64_t>(Kernarg, MD->KernargSegmentSize);
    L.HeaderOffset = alignTo(Kernarg, 16);
    FirstFree = std::max(FirstFree, L.New.Total);
    Launch[K] = L;
  }
  // The state lives where no point writes, above everything the original
  // code and the new initial state use.
  RegisterSet Clobbered;
  for (const CompiledPoint &P : Compiled)
    Clobbered |= P.Clobbers;
  unsigned N = FirstFree;
  for (unsigned S = 0; S < NumLaunchStates; ++S) {
    if (!usesState(LaunchState(S)))
      continue;
    while (N < MaxSgprs && Clobbered.hasSgpr(N))
      ++N;
    if (N >= MaxSgprs) {
      // None left: lanes of a VGPR of its own.
      LaunchInLanes = true;
      if (Error E = takeStateVgpr())
        return fail("no free scalar registers for the hooks' launch state "
                    "(the kernels use s0..s" + Twine(FirstFree - 1) +
                    ", the hooks " + Clobbered.str() + "), " +
                    toString(std::move(E)));
      return Error::success();
    }
    StateReg[S] = N++;
  }
  Budget.FirstFreeSgpr = N;
  HighestSgpr = std::max<int>(HighestSgpr, N - 1);
  return Error::success();
}

Error Emitter::takeStateVgpr() {
  if (StateVgpr)
    return Error::success();
  unsigned Used = Budget.FirstFreeVgpr;
  StateVgpr = takeFreeVgprs(1, 1);
  if (!StateVgpr)
    return fail("nor a vector register to keep it in lanes of (the kernels "
                "use v0..v" + Twine(Used - 1) + ")");
  return Error::success();
}

bool Emitter::emitStateRead(StringRef Dst, unsigned N) {
  StateHome H = stateHome(N);
  if (!H.InLane) {
    OS << "\ts_mov_b32 " << Dst << ", " << sreg(H.Reg) << "\n";
    return false;
  }
  OS << "\tv_readlane_b32 " << Dst << ", " << vreg(H.Reg) << ", " << H.Lane
     << "\n";
  return true;
}

void Emitter::emitStateWrite(unsigned N, StringRef Src) {
  StateHome H = stateHome(N);
  if (H.InLane)
    OS << "\tv_writelane_b32 " << vreg(H.Reg) << ", " << Src << ", " << H.Lane
       << "\n";
  else
    OS << "\ts_mov_b32 " << sreg(H.Reg) << ", " << Src << "\n";
}

unsigned Emitter::preambleTemp(const KernelLaunch &L, LaunchState S) {
  return L.New.Total + unsigned(S);
}

Error Emitter::emitPreamble(const BinaryFunction &K) {
  bool AnyVector = any_of(VectorReg, [](unsigned V) { return V != ~0u; });
  if ((Records && !Records->empty()) || AnyVector) {
    // EXEC saved meanwhile above the initial SGPRs, which nothing reads
    // yet (the launch state is written after).
    const codeobj::Kernel *CK = BC.codeObject().findKernel(K.name());
    auto L = Launch.find(&K);
    unsigned Save = alignTo(L != Launch.end() ? L->second.New.Total
                                              : SgprLayout::of(CK->KD).Total,
                            2);
    noteHighest(RegisterSet().addSgprs(Save, 2), HighestSgpr, HighestVgpr);
    // Under EXEC = -1, EXEC saved meanwhile (s_or_saveexec where SCC is
    // free, else s_mov: SCC kept).
    if (!Live->of(K)->entryLiveIn().has(SpecialReg::Scc)) {
      OS << "\ts_or_saveexec_b64 " << spair(Save) << ", -1\n";
    } else {
      OS << "\ts_mov_b64 " << spair(Save) << ", exec\n";
      OS << "\ts_mov_b64 exec, -1\n";
    }
    if (Records)
      Records->emitZero(OS);
    // A 64-bit shift of 0 zeroes both VGPRs of a pair at once.
    for (unsigned V : VectorReg)
      if (V != ~0u)
        OS << "\tv_lshlrev_b64 " << vpair(V) << ", 0, 0\n";
    OS << "\ts_mov_b64 exec, " << spair(Save) << "\n";
  }
  for (size_t C = 0; C < CounterReg.size(); ++C)
    if (CounterReg[C] != ~0u) {
      const WaveCounter &WC = Plan.counters()[C];
      // A product is made at the flush; a set counter is read only where
      // it was set or multiplied by a zero.
      if (WC.Product || WC.NoZero)
        continue;
      if (WC.Narrow && WC.Global.empty()) // one SGPR
        OS << "\ts_mov_b32 " << sreg(CounterReg[C]) << ", 0\n";
      else
        OS << "\ts_mov_b64 " << spair(CounterReg[C]) << ", 0\n";
    }
  if (LaneWordVgpr)
    emitLaneWord(OS, vreg(*LaneWordVgpr));
  if (CountersInLanes)
    for (size_t C = 0; C < Plan.counters().size(); ++C)
      for (bool High : {false, true})
        if (inSgprs(C))
          emitStateWrite(waveCounterState(C, High), "0");
  if (!StatesUsed && !StackBytes)
    return Error::success();
  const KernelLaunch &L = Launch.find(&K)->second;
  if (L.New.UserSgprs > 16)
    return fail("the hooks need " + Twine(L.New.UserSgprs - L.Old.UserSgprs) +
                " user SGPRs more (the kernarg segment or dispatch packet "
                "pointer, the private segment), and the kernel has " +
                Twine(16 - L.Old.UserSgprs) + " left");
  OS << "\t; loom: preamble (launch state)\n";
  // In lanes, the state is put together first in SGPRs above the initial
  // ones, free until the original code starts.
  auto Reg = [&](LaunchState S) {
    return sreg(LaunchInLanes ? preambleTemp(L, S) : StateReg[unsigned(S)]);
  };
  if (usesState(LaunchState::HeaderLo)) {
    unsigned Kernarg = L.New.KernargSegmentPtr;
    OS << "\ts_add_u32 " << Reg(LaunchState::HeaderLo) << ", " << sreg(Kernarg)
       << ", " << L.HeaderOffset << "\n";
    OS << "\ts_addc_u32 " << Reg(LaunchState::HeaderHi) << ", "
       << sreg(Kernarg + 1) << ", 0\n";
  }
  // The kernel's own pointers, as the hardware passed them.
  for (auto [Lo, Input] : {std::pair(LaunchState::DispatchPtrLo, L.New.DispatchPtr),
                           std::pair(LaunchState::KernargLo, L.New.KernargSegmentPtr)})
    if (usesState(Lo))
      for (unsigned Half = 0; Half < 2; ++Half)
        OS << "\ts_mov_b32 " << Reg(LaunchState(unsigned(Lo) + Half)) << ", "
           << sreg(Input + Half) << "\n";
  for (unsigned D = 0; D < 3; ++D) {
    LaunchState S = LaunchState(unsigned(LaunchState::WorkgroupIdX) + D);
    if (usesState(S))
      OS << "\ts_mov_b32 " << Reg(S) << ", " << sreg(L.New.WorkgroupId[D])
         << "\n";
  }
  if (usesState(LaunchState::ScratchRsrc0)) {
    // The V# with the wave's offset in its base, as LLVM's kernels make it
    // for their callees (the stack pointer then counts from 0); FLAT_SCRATCH
    // as they set it up.
    unsigned Rsrc = L.New.PrivateSegmentBuffer;
    std::string Offset = sreg(L.New.PrivateSegmentWaveOffset);
    OS << "\ts_add_u32 " << Reg(LaunchState::ScratchRsrc0) << ", "
       << sreg(Rsrc) << ", " << Offset << "\n";
    OS << "\ts_addc_u32 " << Reg(LaunchState::ScratchRsrc1) << ", "
       << sreg(Rsrc + 1) << ", 0\n";
    OS << "\ts_mov_b32 " << Reg(LaunchState::ScratchRsrc2) << ", "
       << sreg(Rsrc + 2) << "\n";
    OS << "\ts_mov_b32 " << Reg(LaunchState::ScratchRsrc3) << ", "
       << sreg(Rsrc + 3) << "\n";
    OS << "\ts_add_u32 flat_scratch_lo, " << sreg(L.New.FlatScratchInit)
       << ", " << Offset << "\n";
    OS << "\ts_addc_u32 flat_scratch_hi, " << sreg(L.New.FlatScratchInit + 1)
       << ", 0\n";
  }
  if (usesState(LaunchState::StackPointer)) {
    // The slot's start, 16-byte aligned, at the segment's top; in the
    // wave's bytes (x64) where the stack is reached through a V#.
    std::string SP = Reg(LaunchState::StackPointer);
    OS << "\ts_sub_u32 " << SP << ", " << sreg(L.New.PrivateSegmentSize)
       << ", " << alignTo(StackBytes, 16) << "\n";
    OS << "\ts_and_b32 " << SP << ", " << SP << ", -16\n";
    if (detail::hasScratchRsrc(processor()))
      OS << "\ts_lshl_b32 " << SP << ", " << SP << ", 6\n";
  }
  if (usesState(LaunchState::WaveTid)) {
    // Lane 0 is active at a wave's start: its work-items come first.
    OS << "\tv_readfirstlane_b32 " << Reg(LaunchState::WaveTid) << ", v0\n";
    if (L.OldWorkitemId < 2)
      OS << "\tv_and_b32_e32 v0, " << (L.OldWorkitemId == 0 ? 0x3ff : 0xfffff)
         << ", v0\n";
  }
  if (LaunchInLanes) {
    HighestSgpr = std::max<int>(HighestSgpr,
                                preambleTemp(L, LaunchState(NumLaunchStates - 1)));
    OS << "\ts_nop 1\n"; // v_readfirstlane's SGPR, read by a VALU
    for (unsigned S = 0; S < NumLaunchStates; ++S)
      if (usesState(LaunchState(S)))
        emitStateWrite(S, Reg(LaunchState(S)));
  }
  // The original initial SGPRs back where the original code expects them.
  // Each moves down (or stays): in increasing order no source is
  // overwritten before it is read.
  auto Moves = SgprLayout::moves(L.Old, L.New);
  llvm::sort(Moves);
  for (auto [To, From] : Moves)
    if (To != From)
      OS << "\ts_mov_b32 " << sreg(To) << ", " << sreg(From) << "\n";
  return Error::success();
}

Expected<uint64_t> Emitter::toolGlobal(StringRef Global,
                                       const Twine &What) const {
  const uint64_t *Address = nullptr;
  for (const HookLibrary &L : Hooks) {
    auto It = L.GlobalAddresses.find(Global);
    if (It == L.GlobalAddresses.end())
      continue;
    if (Address)
      return fail(What + ": tools '" + Hooks.front().Name + "' and '" +
                  L.Name + "' both have a global of that name");
    Address = &It->second;
  }
  if (!Address)
    return fail(What + ": no tool has a global of that name (LOOM_DEVICE)");
  return *Address;
}

Error Emitter::resolveGlobalAddresses() {
  for (PointSpec &P : Specs)
    for (HookCall &C : P.Calls)
      for (HookArg &A : C.Args) {
        if (A.kind() != HookArg::Kind::GlobalAddress)
          continue;
        Expected<uint64_t> Address =
            toolGlobal(A.global(), Twine(P.Where) + ": hook " + C.Hook +
                                       "'s address of '" + A.global() + "'");
        if (!Address)
          return Address.takeError();
        A = HookArg::constant64(*Address + A.value());
      }
  return Error::success();
}

Error Emitter::planCounters() {
  ArrayRef<WaveCounter> Counters = Plan.counters();
  if (Counters.empty())
    return Error::success();
  for (const WaveCounter &C : Counters) {
    if (C.Global.empty()) { // state only: never flushed
      CounterAddress.push_back(0);
      continue;
    }
    Expected<uint64_t> Address =
        toolGlobal(C.Global, "wave counter in '" + C.Global + "'");
    if (!Address)
      return Address.takeError();
    CounterAddress.push_back(*Address + C.Offset);
  }
  for (const WaveCounter &C : Counters)
    if (C.Product &&
        (C.OncePerWave || C.Global.empty() ||
         C.Product->first >= Counters.size() ||
         C.Product->second >= Counters.size() ||
         !Counters[C.Product->first].Narrow ||
         !Counters[C.Product->second].Narrow))
      return fail("a product wave counter needs a global's word and two "
                  "narrow counters");
  Records.emplace(Counters, CounterAddress);
  if (Error E = takeRecordVgprs())
    return E;
  VectorReg.assign(Counters.size(), ~0u);
  for (size_t C = 0; C < Counters.size(); ++C) {
    if (!Counters[C].InVgpr)
      continue;
    unsigned Used = Budget.FirstFreeVgpr;
    std::optional<unsigned> V = takeFreeVgprs(2, 2);
    if (!V)
      return fail("no free vector registers for wave counter " + Twine(C) +
                  " (the kernels use v0..v" + Twine(Used - 1) + ")");
    VectorReg[C] = *V;
  }
  if (all_of(seq(Counters.size()), [&](size_t C) { return !inSgprs(C); }))
    return Error::success();
  if (LaunchInLanes)
    return takeCounterLanes();
  // Above the launch state, where no point writes, as the state.
  RegisterSet Clobbered;
  for (const CompiledPoint &P : Compiled)
    Clobbered |= P.Clobbers;
  unsigned N = Budget.FirstFreeSgpr;
  auto Take = [&](unsigned Count) -> Expected<unsigned> {
    for (;; ++N) {
      if (Count == 2 && N % 2)
        continue;
      if (N + Count > MaxSgprs)
        return fail("no free scalar registers for " + Twine(Counters.size()) +
                    " wave counters (the kernels use s0..s" +
                    Twine(Budget.FirstFreeSgpr - 1) + ")");
      if (!Clobbered.hasSgpr(N) && (Count == 1 || !Clobbered.hasSgpr(N + 1)))
        break;
    }
    N += Count;
    return N - Count;
  };
  for (size_t C = 0; C < Counters.size(); ++C) {
    if (!inSgprs(C)) {
      CounterReg.push_back(~0u); // none
      continue;
    }
    // A narrow counter of no word (a fold's mark) takes one SGPR.
    const WaveCounter &WC = Counters[C];
    Expected<unsigned> R = Take(WC.Narrow && WC.Global.empty() ? 1 : 2);
    if (!R) {
      // None left: lanes of a VGPR of its own, as the launch state can.
      CounterReg.clear();
      if (Error E = takeCounterLanes())
        return joinErrors(R.takeError(), std::move(E));
      consumeError(R.takeError());
      return Error::success();
    }
    CounterReg.push_back(*R);
  }
  bool Folds = any_of(Plan.requests(), [](const HookRequest &R) {
    return R.Add && R.Add->Since;
  });
  Expected<unsigned> Base = Take(2), Temp = Take(1), Scc = Take(1);
  if (!Base || !Temp || !Scc) {
    CounterReg.clear();
    Error Why = joinErrors(joinErrors(Base.takeError(), Temp.takeError()),
                           Scc.takeError());
    if (Error E = takeCounterLanes())
      return joinErrors(std::move(Why), std::move(E));
    consumeError(std::move(Why));
    return Error::success();
  }
  if (Folds) {
    Expected<unsigned> Fold = Take(2);
    if (!Fold)
      return Fold.takeError();
    FoldTemp = *Fold;
  }
  FlushBase = *Base;
  AddTemp = *Temp;
  AddScc = *Scc;
  Budget.FirstFreeSgpr = N;
  HighestSgpr = std::max<int>(HighestSgpr, N - 1);
  return Error::success();
}

Error Emitter::takeCounterLanes() {
  size_t Count = Plan.counters().size();
  if (any_of(Plan.requests(),
             [](const HookRequest &R) { return R.Add && R.Add->Since; }) ||
      any_of(Plan.counters(), [](const WaveCounter &C) { return C.Product; }))
    return fail("no free scalar registers for " + Twine(Count) +
                " wave counters, and folds and products need them there");
  if (NumLaunchStates + 2 * Count > BorrowLane)
    return fail("no free scalar registers for " + Twine(Count) +
                " wave counters, and at most " +
                Twine((BorrowLane - NumLaunchStates) / 2) +
                " fit in a vector register's lanes");
  CountersInLanes = true;
  return takeStateVgpr();
}

void Emitter::emitAdd(const CounterAdd &A, unsigned Lo, unsigned Hi,
                      unsigned Temp) {
  if (A.Since) {
    // Gained = tally - mark; mark = tally; counter += gained (times the
    // lanes: a 38-bit product, high half from s_mul_hi_u32).
    std::string Gained = sreg(*FoldTemp), High = sreg(*FoldTemp + 1);
    std::string Tally = sreg(CounterReg[A.Since->Tally]),
                Mark = sreg(CounterReg[A.Since->Mark]);
    OS << "\ts_sub_u32 " << Gained << ", " << Tally << ", " << Mark
       << "\n\ts_mov_b32 " << Mark << ", " << Tally << "\n";
    if (A.PerLane) {
      OS << "\ts_bcnt1_i32_b64 " << sreg(Temp) << ", exec\n";
      OS << "\ts_mul_hi_u32 " << High << ", " << Gained << ", " << sreg(Temp)
         << "\n\ts_mul_i32 " << Gained << ", " << Gained << ", "
         << sreg(Temp) << "\n";
    } else {
      OS << "\ts_mov_b32 " << High << ", 0\n";
    }
    OS << "\ts_add_u32 " << sreg(Lo) << ", " << sreg(Lo) << ", " << Gained
       << "\n\ts_addc_u32 " << sreg(Hi) << ", " << sreg(Hi) << ", " << High
       << "\n";
    return;
  }
  if (A.Set) {
    if (A.PerLane)
      OS << "\ts_bcnt1_i32_b64 " << sreg(Lo) << ", exec\n";
    else
      OS << "\ts_mov_b32 " << sreg(Lo) << ", " << A.Amount << "\n";
    return;
  }
  std::string Amount = std::to_string(A.Amount);
  if (A.PerLane) {
    OS << "\ts_bcnt1_i32_b64 " << sreg(Temp) << ", exec\n";
    if (A.Amount != 1)
      OS << "\ts_mul_i32 " << sreg(Temp) << ", " << sreg(Temp) << ", "
         << Amount << "\n";
    Amount = sreg(Temp);
  }
  OS << "\ts_add_u32 " << sreg(Lo) << ", " << sreg(Lo) << ", " << Amount
     << "\n";
  // A narrow counter's total fits its low half: the high one stays 0.
  if (!Plan.counters()[A.Counter].Narrow)
    OS << "\ts_addc_u32 " << sreg(Hi) << ", " << sreg(Hi) << ", 0\n";
}

void Emitter::emitCounterAdds(ArrayRef<CounterAdd> Adds,
                              const RegisterSet &Live) {
  bool KeepScc = Live.has(SpecialReg::Scc);
  if (KeepScc)
    OS << "\ts_cselect_b32 " << sreg(AddScc) << ", 1, 0\n";
  for (const CounterAdd &A : Adds)
    emitAdd(A, CounterReg[A.Counter], CounterReg[A.Counter] + 1, AddTemp);
  if (KeepScc)
    OS << "\ts_cmp_lg_u32 " << sreg(AddScc) << ", 0\n";
}

void Emitter::emitCounterAddsInLanes(ArrayRef<CounterAdd> Adds,
                                     const RegisterSet &Live,
                                     const PendingMemory &Pending,
                                     const Seam &Around) {
  // Four SGPRs: a counter's halves, EXEC's lane count, SCC. Registers of
  // the original code dead here serve as they are; the rest are borrowed
  // from s0.., kept meanwhile in lanes BorrowLane.. of StateVgpr.
  bool KeepScc = Live.has(SpecialReg::Scc);
  bool PerLane = any_of(Adds, [](const CounterAdd &A) { return A.PerLane; });
  unsigned Needed = KeepScc ? 4 : PerLane ? 3 : 2;
  RegisterSet Busy = Live | Pending.Vm | Pending.Lgkm;
  SmallVector<unsigned, 4> Regs, Borrowed;
  for (unsigned S = 0;
       S < std::min(OriginalBudget.FirstFreeSgpr, MaxSgprs) && Regs.size() < Needed;
       ++S)
    if (!Busy.hasSgpr(S))
      Regs.push_back(S);
  for (unsigned S = 0; Regs.size() < Needed; ++S)
    if (!is_contained(Regs, S)) {
      Regs.push_back(S);
      Borrowed.push_back(S);
    }
  std::string Lo = sreg(Regs[0]), Hi = sreg(Regs[1]);
  unsigned V = *StateVgpr;
  HazardInst Head; // v_writelane of the borrowed SGPRs, or v_readlane
  Head.U = HazardInst::Unit::Valu;
  Head.RwLane = true;
  for (unsigned R : Regs)
    Head.Reads.addSgprs(R);
  Head.Reads.addExec();
  Head.Writes.addVgprs(V);
  Head.WaitStates = 0;
  HazardSteps Before = hazardSteps(PreviousTail, /*Reversed=*/true);
  Before.insert(Before.end(), Around.Before.begin(), Around.Before.end());
  padSeam(Before, hazardSteps({Head}, /*Reversed=*/false));
  for (unsigned K = 0; K < Borrowed.size(); ++K)
    OS << "\tv_writelane_b32 " << vreg(V) << ", " << sreg(Borrowed[K]) << ", "
       << BorrowLane + K << "\n";
  if (KeepScc)
    OS << "\ts_cselect_b32 " << sreg(Regs[3]) << ", 1, 0\n";
  // A VALU's SGPR write read by a VALU, its VGPR write read by
  // v_readlane: a wait state or two on gfx94x.
  if (!Borrowed.empty())
    OS << "\ts_nop 1\n";
  for (const CounterAdd &A : Adds) {
    StateHome L = stateHome(waveCounterState(A.Counter, false));
    StateHome H = stateHome(waveCounterState(A.Counter, true));
    bool Narrow = Plan.counters()[A.Counter].Narrow; // its high lane: 0
    OS << "\tv_readlane_b32 " << Lo << ", " << vreg(V) << ", " << L.Lane
       << "\n";
    if (!Narrow)
      OS << "\tv_readlane_b32 " << Hi << ", " << vreg(V) << ", " << H.Lane
         << "\n";
    emitAdd(A, Regs[0], Regs[1], Regs.size() > 2 ? Regs[2] : 0);
    OS << "\tv_writelane_b32 " << vreg(V) << ", " << Lo << ", " << L.Lane
       << "\n";
    if (!Narrow)
      OS << "\tv_writelane_b32 " << vreg(V) << ", " << Hi << ", " << H.Lane
         << "\n";
    OS << "\ts_nop 1\n";
  }
  if (KeepScc)
    OS << "\ts_cmp_lg_u32 " << sreg(Regs[3]) << ", 0\n";
  for (unsigned K = 0; K < Borrowed.size(); ++K)
    OS << "\tv_readlane_b32 " << sreg(Borrowed[K]) << ", " << vreg(V) << ", "
       << BorrowLane + K << "\n";
  noteHighest(RegisterSet().addSgprs(Regs.back()), HighestSgpr, HighestVgpr);
  // SGPRs a VALU wrote: 5 wait states before a VMEM reads them.
  HazardInst Restore, Nop;
  Restore.U = HazardInst::Unit::Valu;
  Restore.RwLane = Restore.ReadLane = true;
  for (unsigned R : Regs)
    Restore.Writes.addSgprs(R);
  Restore.Reads.addVgprs(V).addExec();
  PreviousTail = {Restore};
  if (!Borrowed.empty()) {
    OS << "\ts_nop 4\n";
    Nop.WaitStates = 5;
    PreviousTail.push_back(Nop);
  }
  padSeam(hazardSteps(PreviousTail, /*Reversed=*/true), Around.After);
}

void Emitter::emitCounterFlush() {
  // Each counter with a word: the SGPR pair it is in, the word's address.
  std::vector<std::pair<unsigned, uint64_t>> Words;
  unsigned Base = FlushBase;
  if (CountersInLanes) {
    // Before s_endpgm nothing is live: any SGPRs do, a pair per counter
    // (s[0:1], s[2:3], ...) and the base after them.
    unsigned Pair = 0;
    for (size_t C = 0; C < Plan.counters().size(); ++C) {
      if (Plan.counters()[C].Global.empty() || !inSgprs(C))
        continue;
      for (bool High : {false, true})
        emitStateRead(sreg(Pair + High), waveCounterState(C, High));
      Words.emplace_back(Pair, CounterAddress[C]);
      Pair += 2;
    }
    if (Words.empty())
      return;
    OS << "\ts_nop 4\n"; // SGPRs a VALU wrote
    Base = Pair;
    noteHighest(RegisterSet().addSgprs(0, Pair + 2), HighestSgpr, HighestVgpr);
  } else {
    if (emitGroupedFlush())
      return;
    for (size_t C = 0; C < CounterReg.size(); ++C) {
      const WaveCounter &WC = Plan.counters()[C];
      if (WC.Global.empty() || !inSgprs(C))
        continue;
      if (WC.Product)
        emitProduct(C);
      Words.emplace_back(CounterReg[C], CounterAddress[C]);
    }
  }
  if (Words.empty())
    return;
  // Scalar atomics take a 20-bit offset from their base.
  std::optional<uint64_t> At;
  for (auto [Pair, Address] : Words) {
    if (!At || Address < *At || Address - *At >= (1u << 20)) {
      At = Address;
      OS << "\ts_mov_b32 " << sreg(Base) << ", 0x" << utohexstr(uint32_t(*At))
         << "\n\ts_mov_b32 " << sreg(Base + 1) << ", 0x"
         << utohexstr(uint32_t(*At >> 32)) << "\n";
    }
    OS << "\ts_atomic_add_x2 " << spair(Pair) << ", " << spair(Base) << ", 0x"
       << utohexstr(Address - *At) << "\n";
  }
  OS << "\ts_waitcnt lgkmcnt(0)\n";
}

void Emitter::emitProduct(size_t C) {
  const WaveCounter &WC = Plan.counters()[C];
  std::string A = sreg(CounterReg[WC.Product->first]),
              B = sreg(CounterReg[WC.Product->second]);
  OS << "\ts_mul_i32 " << sreg(CounterReg[C]) << ", " << A << ", " << B
     << "\n\ts_mul_hi_u32 " << sreg(CounterReg[C] + 1) << ", " << A << ", "
     << B << "\n";
}

bool Emitter::emitGroupedFlush() {
  // A narrow counter and the products it is a factor of are all 0 while it
  // is (a loop the wave never entered): where two or more such groups
  // exist (waves entering some of several loops), each is flushed only if
  // its tally is not 0 (two instructions against one atomic for it and
  // three, two multiplies and an atomic, a product). One base for all.
  ArrayRef<WaveCounter> Counters = Plan.counters();
  std::map<size_t, std::vector<size_t>> Groups; // by tally; others: own
  std::vector<size_t> Rest;
  std::optional<uint64_t> Low, High;
  for (size_t C = 0; C < CounterReg.size(); ++C) {
    const WaveCounter &WC = Counters[C];
    if (WC.Global.empty() || !inSgprs(C))
      continue;
    Low = std::min(Low.value_or(CounterAddress[C]), CounterAddress[C]);
    High = std::max(High.value_or(CounterAddress[C]), CounterAddress[C]);
    if (WC.Product && !Counters[WC.Product->first].Global.empty())
      Groups[WC.Product->first].push_back(C);
  }
  if (Groups.size() < 2 || *High - *Low >= (1u << 20))
    return false;
  for (size_t C = 0; C < CounterReg.size(); ++C) {
    const WaveCounter &WC = Counters[C];
    if (!WC.Global.empty() && inSgprs(C) && !Groups.count(C) &&
        !(WC.Product && Groups.count(WC.Product->first)))
      Rest.push_back(C);
  }
  OS << "\ts_mov_b32 " << sreg(FlushBase) << ", 0x" << utohexstr(uint32_t(*Low))
     << "\n\ts_mov_b32 " << sreg(FlushBase + 1) << ", 0x"
     << utohexstr(uint32_t(*Low >> 32)) << "\n";
  auto Add = [&](size_t C) {
    OS << "\ts_atomic_add_x2 " << spair(CounterReg[C]) << ", "
       << spair(FlushBase) << ", 0x" << utohexstr(CounterAddress[C] - *Low)
       << "\n";
  };
  for (size_t C : Rest) {
    if (Counters[C].Product)
      emitProduct(C);
    Add(C);
  }
  for (auto &[Tally, Products] : Groups) {
    std::string Skip = ".Lloom_fs" + std::to_string(GuardLabels++);
    OS << "\ts_cmp_eq_u32 " << sreg(CounterReg[Tally]) << ", 0\n"
       << "\ts_cbranch_scc1 " << Skip << "\n";
    Add(Tally);
    for (size_t C : Products) {
      emitProduct(C);
      Add(C);
    }
    OS << Skip << ":\n";
  }
  OS << "\ts_waitcnt lgkmcnt(0)\n";
  return true;
}

void Emitter::emitRecordFlush() {
  if (!Records || Records->empty())
    return;
  // Nothing is live before s_endpgm: v0 takes the lanes' offsets, s[0:1]
  // a run's base.
  padSeam(hazardSteps(PreviousTail, /*Reversed=*/true),
          hazardSteps(Records->flushHeadHazards(), /*Reversed=*/false));
  PreviousTail.clear();
  Records->emitFlush(OS, 0, 0);
  noteHighest(RegisterSet().addSgprs(0, 2).addVgprs(0), HighestSgpr,
              HighestVgpr);
}

Error Emitter::takeRecordVgprs() {
  if (Records->empty())
    return Error::success();
  unsigned Used = Budget.FirstFreeVgpr;
  std::optional<unsigned> V = takeFreeVgprs(2 * Records->pairs(), 2);
  if (!V)
    return fail("no free vector registers for " +
                Twine(2 * Records->pairs()) +
                " once-per-wave counters' lanes (the kernels use v0..v" +
                Twine(Used - 1) + ")");
  Records->place(*V);
  return Error::success();
}

std::optional<unsigned> Emitter::takeFreeVgprs(unsigned Count,
                                               unsigned Align) {
  // Above everything the code uses; no point may write them either.
  RegisterSet Clobbered;
  for (const CompiledPoint &P : Compiled)
    Clobbered |= P.Clobbers;
  auto Free = [&](unsigned V) {
    for (unsigned K = 0; K < Count; ++K)
      if (Clobbered.hasVgpr(V + K))
        return false;
    return true;
  };
  unsigned V = alignTo(Budget.FirstFreeVgpr, Align);
  while (V + Count <= MaxVgprs && !Free(V))
    V += Align;
  if (V + Count > MaxVgprs)
    return std::nullopt;
  Budget.FirstFreeVgpr = V + Count;
  HighestVgpr = std::max<int>(HighestVgpr, V + Count - 1);
  return V;
}

void Emitter::planLaneWord() {
  if (any_of(Compiled, [](const CompiledPoint &P) {
        return is_contained(P.VgprInputs, RawInput{RawInput::Kind::LaneWord});
      }))
    LaneWordVgpr = takeFreeVgprs(1, 1);
}


void Emitter::emitVectorAdds(ArrayRef<CounterAdd> Adds, const Seam &Around) {
  std::vector<HazardInst> Insts;
  for (const CounterAdd &A : Adds) {
    HazardInst I;
    I.U = HazardInst::Unit::Valu;
    I.Reads.addVgprs(VectorReg[A.Counter]).addExec();
    I.Writes.addVgprs(VectorReg[A.Counter]);
    Insts.push_back(I);
  }
  HazardSteps Before = hazardSteps(PreviousTail, /*Reversed=*/true);
  Before.insert(Before.end(), Around.Before.begin(), Around.Before.end());
  padSeam(Before, hazardSteps(Insts, /*Reversed=*/false));
  for (const CounterAdd &A : Adds)
    OS << "\tv_add_u32_e32 " << vreg(VectorReg[A.Counter]) << ", "
       << A.Amount << ", " << vreg(VectorReg[A.Counter]) << "\n";
  PreviousTail = std::move(Insts);
  padSeam(hazardSteps(PreviousTail, /*Reversed=*/true), Around.After);
}

void Emitter::emitVectorFlush() {
  if (none_of(VectorReg, [](unsigned V) { return V != ~0u; }))
    return;
  // Nothing is live before s_endpgm: v0 (below every counter's pair) takes
  // an offset of 0 in every lane, s[0:1] the word's address; every lane
  // adds its count to the one word.
  HazardInst Exec, Offset;
  Exec.U = HazardInst::Unit::Salu;
  Exec.Writes.addExec();
  Offset.U = HazardInst::Unit::Valu;
  Offset.Writes.addVgprs(0);
  Offset.Reads.addExec();
  padSeam(hazardSteps(PreviousTail, /*Reversed=*/true),
          hazardSteps({Exec, Offset}, /*Reversed=*/false));
  PreviousTail.clear();
  OS << "\ts_mov_b64 exec, -1\n\tv_mov_b32 v0, 0\n";
  // Words within the instruction's 12-bit offset share a base.
  std::optional<uint64_t> Base;
  for (size_t C = 0; C < VectorReg.size(); ++C) {
    if (VectorReg[C] == ~0u)
      continue;
    uint64_t At = CounterAddress[C];
    if (!Base || At < *Base || At - *Base >= 4096) {
      Base = At;
      OS << "\ts_mov_b32 s0, 0x" << utohexstr(uint32_t(At))
         << "\n\ts_mov_b32 s1, 0x" << utohexstr(uint32_t(At >> 32)) << "\n";
    }
    OS << "\tglobal_atomic_add_x2 v0, " << vpair(VectorReg[C]) << ", s[0:1]";
    if (At != *Base)
      OS << " offset:" << At - *Base;
    OS << "\n";
  }
  noteHighest(RegisterSet().addSgprs(0, 2).addVgprs(0), HighestSgpr,
              HighestVgpr);
}

void Emitter::emitRecordAdds(ArrayRef<CounterAdd> Adds, const Seam &Around) {
  std::vector<HazardInst> Insts;
  for (const CounterAdd &A : Adds)
    for (HazardInst &I : Records->addHazards(A))
      Insts.push_back(std::move(I));
  HazardSteps Before = hazardSteps(PreviousTail, /*Reversed=*/true);
  Before.insert(Before.end(), Around.Before.begin(), Around.Before.end());
  padSeam(Before, hazardSteps(Insts, /*Reversed=*/false));
  for (const CounterAdd &A : Adds)
    Records->emitAdd(OS, A);
  PreviousTail = std::move(Insts);
  padSeam(hazardSteps(PreviousTail, /*Reversed=*/true), Around.After);
}

std::pair<unsigned, unsigned>
Emitter::bodyShift(const CompiledPoint &P) const {
  if (!P.Insts)
    return {0, 0};
  int MinS = -1, MaxS = -1, MinV = -1, MaxV = -1;
  P.Clobbers.forEachUnit([&](unsigned U) {
    auto Note = [](int &Min, int &Max, int N) {
      Min = Min < 0 ? N : std::min(Min, N);
      Max = std::max(Max, N);
    };
    if (U < RegisterSet::VgprBase)
      Note(MinS, MaxS, U - RegisterSet::SgprBase);
    else if (U < RegisterSet::AgprBase)
      Note(MinV, MaxV, U - RegisterSet::VgprBase);
  });
  auto Shift = [](int Min, int Max, unsigned FirstFree, unsigned Limit) {
    if (Min < 0 || Min >= int(FirstFree))
      return 0u;
    unsigned D = alignTo(FirstFree - Min, 4);
    return Max + D < Limit ? D : 0u;
  };
  return {Shift(MinS, MaxS, Budget.FirstFreeSgpr, MaxSgprs),
          Shift(MinV, MaxV, Budget.FirstFreeVgpr, MaxVgprs)};
}

const RegisterSet &Emitter::bodyWrites(const CompiledPoint &P) {
  auto [It, New] = BodyWrites.try_emplace(P.Insts.get());
  if (New)
    It->second = detail::bodyWrites(BC.analyzer(), *P.Insts);
  return It->second;
}

detail::BodyPlacement Emitter::placeBody(const CompiledPoint &P,
                                         unsigned SgprShift,
                                         unsigned VgprShift) {
  if (!P.Insts)
    return {SgprShift, VgprShift, {}};
  // Each parameter and the register its value is in, where it is in one
  // the glue leaves as it is until the body runs.
  using detail::ParamSource;
  std::vector<ParamSource> Params;
  for (unsigned I = 0; I < P.SgprInputs.size(); ++I) {
    const RawInput &R = P.SgprInputs[I];
    ParamSource S;
    S.Param = RegisterSet::SgprBase + P.FirstSgpr + I;
    auto Special = [](SpecialReg Reg) {
      return RegisterSet::SpecialBase + unsigned(Reg);
    };
    switch (R.K) {
    case RawInput::Kind::Sgpr: S.Source = RegisterSet::SgprBase + R.N; break;
    case RawInput::Kind::ExecLo: S.Source = Special(SpecialReg::ExecLo); break;
    case RawInput::Kind::ExecHi: S.Source = Special(SpecialReg::ExecHi); break;
    case RawInput::Kind::VccLo: S.Source = Special(SpecialReg::VccLo); break;
    case RawInput::Kind::VccHi: S.Source = Special(SpecialReg::VccHi); break;
    case RawInput::Kind::M0: S.Source = Special(SpecialReg::M0); break;
    case RawInput::Kind::State:
      // State in a lane is read into the parameter; in an SGPR, read there.
      if (StateHome H = stateHome(R.N); !H.InLane)
        S.Source = RegisterSet::SgprBase + H.Reg;
      S.Result = is_contained(P.Results, std::make_pair(I, R.N));
      break;
    default: break;
    }
    Params.push_back(S);
  }
  for (unsigned I = 0; I < P.VgprInputs.size(); ++I) {
    const RawInput &R = P.VgprInputs[I];
    ParamSource S;
    S.Param = RegisterSet::VgprBase + I;
    if (R.K == RawInput::Kind::Vgpr)
      S.Source = RegisterSet::VgprBase + R.N;
    else if (R.K == RawInput::Kind::LaneWord && LaneWordVgpr)
      S.Source = RegisterSet::VgprBase + *LaneWordVgpr;
    Params.push_back(S);
  }
  // The glue writes the stack pointer and V# after the arguments: nothing
  // is read from them.
  if (P.StackBytes) {
    RegisterSet Stack;
    Stack.addSgprs(detail::StackPointerSgpr + SgprShift);
    if (detail::hasScratchRsrc(processor()))
      Stack.addSgprs(SgprShift, 4);
    for (ParamSource &S : Params)
      if (S.Source && Stack.testUnit(*S.Source))
        S.Source.reset();
  }
  return detail::placeBody(BC.analyzer(), *P.Insts, *P.Reads, bodyWrites(P),
                           SgprShift, VgprShift, Params);
}

/// An instruction as a line of machine words, its text as a comment.
static Error wordsLine(isa::McContext &MC, const MCInst &I, raw_ostream &OS) {
  SmallVector<char, 16> Bytes;
  if (Error E = MC.encode(I, Bytes))
    return E;
  OS << "\t.long ";
  for (size_t W = 0; W + 4 <= Bytes.size(); W += 4)
    OS << (W ? ", " : "")
       << format_hex(support::endian::read32le(Bytes.data() + W), 10);
  OS << "\t; " << MC.print(I, 0) << "\n";
  return Error::success();
}

Expected<const std::vector<std::string> &>
Emitter::placedBody(const CompiledPoint &P,
                    const detail::BodyPlacement &Place) {
  auto [It, New] = PlacedBodies.try_emplace({P.Insts.get(), Place});
  if (!New)
    return It->second;
  isa::McContext &MC = BC.mc();
  for (size_t N = 0; N < P.Insts->size(); ++N) {
    MCInst I = (*P.Insts)[N];
    if (!detail::placeInstruction(BC.analyzer(), I, P.Reads->Entry[N], Place))
      return fail("cannot move the registers of " + MC.print(I, 0) +
                  " of a hook body");
    raw_string_ostream Line(It->second.emplace_back());
    if (Error E = wordsLine(MC, I, Line))
      return std::move(E);
  }
  return It->second;
}

Error Emitter::emitPlacedBody(const CompiledPoint &P,
                              const detail::BodyPlacement &Place,
                              const detail::Folds &F) {
  Expected<const std::vector<std::string> &> Lines = placedBody(P, Place);
  if (!Lines)
    return Lines.takeError();
  for (size_t N = 0; N < Lines->size(); ++N) {
    MCInst I = (*P.Insts)[N];
    uint64_t Entry = P.Reads->Entry[N];
    if (F.empty() || !detail::foldInstruction(BC.analyzer(), I, Entry, F)) {
      OS << (*Lines)[N];
      continue;
    }
    // Placed again, after folding: only the other operands' registers move.
    detail::placeInstruction(BC.analyzer(), I, Entry, Place);
    if (Error E = wordsLine(BC.mc(), I, OS))
      return E;
  }
  return Error::success();
}

Error Emitter::emitPoint(unsigned Index, const RegisterSet &Live,
                         const PendingMemory &Pending, const Seam &Around) {
  const CompiledPoint &P = Compiled[Index];
  // A body in machine words moves up above every register the original
  // code uses, so that it clobbers nothing live and saves nothing, and
  // reads its parameters where their values are.
  auto [SgprShift, VgprShift] = bodyShift(P);
  const detail::BodyPlacement Place = placeBody(P, SgprShift, VgprShift);
  // Constants the body takes as immediates rather than from the glue.
  detail::Folds Folded;
  if (P.Insts) {
    std::vector<std::pair<unsigned, uint32_t>> Immediates;
    for (unsigned I = 0; I < P.SgprInputs.size(); ++I)
      if (P.SgprInputs[I].K == RawInput::Kind::Immediate)
        Immediates.push_back({RegisterSet::SgprBase + P.FirstSgpr + I,
                              P.SgprInputs[I].Imm});
    Folded = detail::foldImmediates(BC.analyzer(), *P.Insts, *P.Reads, Place,
                                    Immediates);
  }
  RegisterSet Clob =
      P.Insts ? detail::placedClobbers(P.Clobbers, bodyWrites(P), Place, Folded)
              : P.Clobbers.shifted(SgprShift, VgprShift);
  // Registers the arguments are read from.
  RegisterSet Sources;
  for (const RawInput &R : P.SgprInputs) {
    switch (R.K) {
    case RawInput::Kind::Sgpr: Sources.addSgprs(R.N); break;
    case RawInput::Kind::VccLo: Sources.add(SpecialReg::VccLo); break;
    case RawInput::Kind::VccHi: Sources.add(SpecialReg::VccHi); break;
    case RawInput::Kind::M0: Sources.add(SpecialReg::M0); break;
    case RawInput::Kind::Scc: Sources.add(SpecialReg::Scc); break;
    default: break;
    }
  }
  for (const RawInput &R : P.VgprInputs)
    if (R.K == RawInput::Kind::Vgpr)
      Sources.addVgprs(R.N);
    else if (R.K == RawInput::Kind::LaneWord && LaneWordVgpr)
      Sources.addVgprs(*LaneWordVgpr);
  // Registers no original code that can run with a copy uses hold nothing
  // of the program's, whatever liveness says (it keeps every preserved
  // register live at a return to an unknown caller).
  RegisterSet Needed = Live;
  Needed.subtract(
      RegisterSet()
          .addSgprs(OriginalBudget.FirstFreeSgpr,
                    MaxSgprs - std::min(OriginalBudget.FirstFreeSgpr, MaxSgprs))
          .addVgprs(OriginalBudget.FirstFreeVgpr,
                    MaxVgprs - std::min(OriginalBudget.FirstFreeVgpr, MaxVgprs)));
  RegisterSet Save = Clob;
  Save &= Needed | Sources;

  // Each saved 32-bit value gets a home: a spare SGPR while there are any,
  // then a lane of a spare VGPR (v_writelane and v_readlane ignore EXEC).
  // Homes in lanes of EXEC, VCC, M0 and SCC go through a temporary SGPR,
  // Temp, itself saved first and restored last.
  struct Home {
    bool InLane = false;
    unsigned Reg = 0, Lane = 0;
  };
  // Registers of the original code that nothing reads before writing
  // them again, which the point does not read either.
  // (A budget from a kernel's metadata may count VCC and the rest past
  // s101.)
  RegisterSet Dead;
  Dead.addSgprs(0, std::min(OriginalBudget.FirstFreeSgpr, MaxSgprs))
      .addVgprs(0, std::min(OriginalBudget.FirstFreeVgpr, MaxVgprs));
  Dead.subtract(Live | Sources | Clob | Pending.Vm | Pending.Lgkm);
  SpareAllocator Spares(Budget, Clob, Dead);
  // The body reads renamed parameters' sources where they are: none is
  // Temp.
  RegisterSet Used = Clob | Place.sources();
  std::vector<unsigned> LaneVgprs;
  unsigned Lanes = 0;
  bool OutOfSgprs = false;
  auto NewHome = [&]() -> Expected<Home> {
    if (!OutOfSgprs) {
      auto N = Spares.sgpr();
      if (N) {
        Used.addSgprs(*N);
        return Home{false, *N, 0};
      }
      consumeError(N.takeError());
      OutOfSgprs = true;
    }
    if (Lanes % 64 == 0) {
      auto V = Spares.vgpr();
      if (!V) {
        consumeError(V.takeError());
        return fail("no free registers to save into (the kernel uses s0..s" +
                    Twine(Budget.FirstFreeSgpr - 1) + " and v0..v" +
                    Twine(Budget.FirstFreeVgpr - 1) + ")");
      }
      Used.addVgprs(*V);
      LaneVgprs.push_back(*V);
    }
    unsigned L = Lanes++;
    return Home{true, LaneVgprs[L / 64], L % 64};
  };

  bool SaveVcc = Save.has(SpecialReg::VccLo) || Save.has(SpecialReg::VccHi);
  // EXEC: if the body writes it, or for copying VGPRs in every lane.
  RegisterSet SavedVgprs = Save;
  SavedVgprs &= RegisterSet().addVgprs(0, RegisterSet::NumVgprs);
  bool SaveExec = Clob.has(SpecialReg::ExecLo) ||
                  Clob.has(SpecialReg::ExecHi) || !SavedVgprs.empty();
  std::optional<Home> SccHome, M0Home;
  Home ExecHome[2], VccHome[2];
  std::map<unsigned, Home> SgprHome;
  // Original -> spare VGPR, or AGPR (v_accvgpr_write/read) where no VGPR
  // is free.
  struct VectorHome {
    unsigned Reg = 0;
    bool Agpr = false;
    std::string name() const { return (Agpr ? "a" : "v") + std::to_string(Reg); }
  };
  std::map<unsigned, VectorHome> VgprSave;
  auto Take = [&](Home &H) -> Error {
    auto N = NewHome();
    if (!N)
      return N.takeError();
    H = *N;
    return Error::success();
  };
  if (SaveExec)
    for (Home &H : ExecHome)
      if (Error E = Take(H))
        return E;
  if (Save.has(SpecialReg::Scc))
    if (Error E = Take(SccHome.emplace()))
      return E;
  if (SaveVcc)
    for (Home &H : VccHome)
      if (Error E = Take(H))
        return E;
  if (Save.has(SpecialReg::M0))
    if (Error E = Take(M0Home.emplace()))
      return E;
  for (unsigned S = 0; S < MaxSgprs; ++S)
    if (Save.hasSgpr(S))
      if (Error E = Take(SgprHome[S]))
        return E;
  // The temporary: s0 unless it is a home, saved in a lane of its own.
  std::optional<unsigned> Temp;
  if (OutOfSgprs) {
    unsigned T = 0;
    while (!Save.hasSgpr(T) && Used.hasSgpr(T))
      ++T;
    Temp = T;
    if (!SgprHome.count(T))
      if (Error E = Take(SgprHome[T]))
        return E;
  }
  for (unsigned V = 0; V < MaxVgprs; ++V)
    if (Save.hasVgpr(V)) {
      auto N = Spares.vgpr();
      if (N) {
        Used.addVgprs(*N);
        VgprSave[V] = {*N, false};
        continue;
      }
      std::optional<unsigned> A = Spares.agpr();
      if (!A)
        return N.takeError();
      consumeError(N.takeError());
      Used.addAgprs(*A);
      HighestAgpr = std::max<int>(HighestAgpr, *A);
      VgprSave[V] = {*A, true};
    }
  noteHighest(Used, HighestSgpr, HighestVgpr);

  bool VaLuWroteSgpr = false;
  auto SaveTo = [&](StringRef Src, const Home &H) {
    if (H.InLane)
      OS << "\tv_writelane_b32 " << vreg(H.Reg) << ", " << Src << ", "
         << H.Lane << "\n";
    else
      OS << "\ts_mov_b32 " << sreg(H.Reg) << ", " << Src << "\n";
  };
  /// Restores \p Dst; a special register from a lane goes through Temp.
  auto RestoreFrom = [&](StringRef Dst, const Home &H, bool Special) {
    if (!H.InLane) {
      OS << "\ts_mov_b32 " << Dst << ", " << sreg(H.Reg) << "\n";
      return;
    }
    VaLuWroteSgpr = true;
    std::string To = Special ? sreg(*Temp) : Dst.str();
    OS << "\tv_readlane_b32 " << To << ", " << vreg(H.Reg) << ", " << H.Lane
       << "\n";
    if (Special)
      OS << "\ts_mov_b32 " << Dst << ", " << To << "\n";
  };
  auto RestoreExec = [&] {
    if (!SaveExec)
      return;
    RestoreFrom("exec_lo", ExecHome[0], true);
    RestoreFrom("exec_hi", ExecHome[1], true);
  };

  // A sized label over the inserted code names the hooks in faults.
  SmallVector<StringRef, 4> Names;
  for (const HookCall &C : Specs[Index].Calls)
    if (!is_contained(Names, C.Hook))
      Names.push_back(C.Hook);
  std::string Hooks = join(Names, ", ");
  std::string Label =
      "\"hook " + Hooks + " (" + Specs[Index].Where + ")\"";
  OS << "\t; loom: " << Specs[Index].Where << "\n" << Label << ":\n";
  // A memory result still in flight into a register the inserted code
  // reads or writes would land in the middle of it: wait for those.
  RegisterSet Touched = Used | Sources | Save;
  // State kept in lanes is read and written with v_readlane/v_writelane.
  bool StateLanes = any_of(P.SgprInputs, [&](const RawInput &R) {
    return R.K == RawInput::Kind::State && stateHome(R.N).InLane;
  }) || any_of(P.Results, [&](auto R) { return stateHome(R.second).InLane; });
  if (StateLanes)
    Touched.addVgprs(*StateVgpr);
  const detail::BodyHazards &BH = bodyHazards(P, Place, Clob);
  // A point right after another (no original instruction between) meets
  // the other's end first.
  HazardSteps Before = hazardSteps(PreviousTail, /*Reversed=*/true);
  Before.insert(Before.end(), Around.Before.begin(), Around.Before.end());
  std::vector<HazardInst> Head =
      detail::glueHead(Touched, !LaneVgprs.empty() || StateLanes, BH);
  padSeam(Before, hazardSteps(Head, /*Reversed=*/false));
  emitWait(Pending.Vm.intersects(Touched), Pending.Lgkm.intersects(Touched));
  if (Temp)
    SaveTo(sreg(*Temp), SgprHome[*Temp]);
  if (SccHome) {
    if (SccHome->InLane) {
      OS << "\ts_cselect_b32 " << sreg(*Temp) << ", 1, 0\n";
      SaveTo(sreg(*Temp), *SccHome);
    } else {
      OS << "\ts_cselect_b32 " << sreg(SccHome->Reg) << ", 1, 0\n";
    }
  }
  if (SaveExec) {
    SaveTo("exec_lo", ExecHome[0]);
    SaveTo("exec_hi", ExecHome[1]);
  }
  if (SaveVcc) {
    SaveTo("vcc_lo", VccHome[0]);
    SaveTo("vcc_hi", VccHome[1]);
  }
  if (M0Home)
    SaveTo("m0", *M0Home);
  for (auto &[S, H] : SgprHome)
    if (!Temp || S != *Temp)
      SaveTo(sreg(S), H);
  bool AgprHomes = any_of(VgprSave, [](auto &S) { return S.second.Agpr; });
  if (!VgprSave.empty()) {
    OS << "\ts_mov_b64 exec, -1\n";
    for (auto &[V, To] : VgprSave)
      OS << (To.Agpr ? "\tv_accvgpr_write_b32 " : "\tv_mov_b32_e32 ")
         << To.name() << ", " << vreg(V) << "\n";
    RestoreExec();
    if (AgprHomes) // v_accvgpr_write, then v_accvgpr_read of the AGPR
      OS << "\ts_nop 1\n";
  }

  // Arguments. Until the body runs, only the parameter registers (and
  // Temp) have changed: a saved SGPR is read from its home, the rest from
  // where they are. A renamed parameter is read there by the body itself.
  for (unsigned I = 0; I < P.SgprInputs.size(); ++I) {
    const RawInput &R = P.SgprInputs[I];
    unsigned Param = RegisterSet::SgprBase + P.FirstSgpr + I;
    if (Place.renamed(Param) ||
        llvm::is_contained(make_first_range(Folded), Param))
      continue;
    std::string Dst = sreg(P.FirstSgpr + SgprShift + I);
    switch (R.K) {
    case RawInput::Kind::Sgpr:
      if (auto It = SgprHome.find(R.N); It != SgprHome.end())
        RestoreFrom(Dst, It->second, false);
      else
        OS << "\ts_mov_b32 " << Dst << ", " << sreg(R.N) << "\n";
      break;
    case RawInput::Kind::ExecLo:
    case RawInput::Kind::ExecHi:
      OS << "\ts_mov_b32 " << Dst << ", "
         << (R.K == RawInput::Kind::ExecHi ? "exec_hi" : "exec_lo") << "\n";
      break;
    case RawInput::Kind::VccLo:
    case RawInput::Kind::VccHi:
      OS << "\ts_mov_b32 " << Dst << ", "
         << (R.K == RawInput::Kind::VccHi ? "vcc_hi" : "vcc_lo") << "\n";
      break;
    case RawInput::Kind::Scc:
      OS << "\ts_cselect_b32 " << Dst << ", 1, 0\n";
      break;
    case RawInput::Kind::M0:
      OS << "\ts_mov_b32 " << Dst << ", m0\n";
      break;
    case RawInput::Kind::State:
      VaLuWroteSgpr |= emitStateRead(Dst, R.N);
      break;
    case RawInput::Kind::Immediate:
      OS << "\ts_mov_b32 " << Dst << ", " << format_hex(R.Imm, 10) << "\n";
      break;
    default:
      break;
    }
  }
  for (unsigned I = 0; I < P.VgprInputs.size(); ++I) {
    const RawInput &R = P.VgprInputs[I];
    if (Place.renamed(RegisterSet::VgprBase + I))
      continue;
    if (R.K == RawInput::Kind::Agpr)
      OS << "\tv_accvgpr_read_b32 " << vreg(I + VgprShift) << ", a" << R.N
         << "\n";
    else if (R.K == RawInput::Kind::LaneWord && !LaneWordVgpr)
      emitLaneWord(OS, vreg(I + VgprShift));
    else if (R.K == RawInput::Kind::LaneWord)
      OS << "\tv_mov_b32_e32 " << vreg(I + VgprShift) << ", "
         << vreg(*LaneWordVgpr) << "\n";
    else if (auto It = VgprSave.find(R.N); It != VgprSave.end())
      OS << (It->second.Agpr ? "\tv_accvgpr_read_b32 " : "\tv_mov_b32_e32 ")
         << vreg(I + VgprShift) << ", " << It->second.name() << "\n";
    else
      OS << "\tv_mov_b32_e32 " << vreg(I + VgprShift) << ", " << vreg(R.N)
         << "\n";
  }
  // The hooks' stack: its pointer, and the V# it is reached through.
  if (P.StackBytes) {
    if (detail::hasScratchRsrc(processor()))
      for (unsigned K = 0; K < 4; ++K)
        VaLuWroteSgpr |= emitStateRead(
            sreg(K + SgprShift), unsigned(LaunchState::ScratchRsrc0) + K);
    std::string SP = sreg(detail::StackPointerSgpr + SgprShift);
    if (usesState(LaunchState::StackPointer))
      VaLuWroteSgpr |=
          emitStateRead(SP, unsigned(LaunchState::StackPointer));
    else
      OS << "\ts_mov_b32 " << SP << ", " << format_hex(stackPointer(), 10)
         << "\n";
  }
  // An SGPR a VALU wrote needs 5 wait states before a VMEM reads it.
  if (VaLuWroteSgpr)
    OS << "\ts_nop 4\n";
  else
    padSeam(hazardSteps(detail::argumentWrites(P, VgprShift), true),
            hazardSteps(BH.Head, false));

  // The shared body, its labels made this copy's own.
  std::string Instance = "p" + std::to_string(Index);
  auto Spliced = [&](StringRef Text) {
    std::string S = Text.str();
    StringRef Marker = CompiledPoint::InstanceMarker;
    for (size_t At = S.find(Marker); At != std::string::npos;
         At = S.find(Marker, At + Instance.size()))
      S.replace(At, Marker.size(), Instance);
    return S;
  };
  if (SgprShift || VgprShift || !Place.Renames.empty() || !Folded.empty()) {
    if (Error E = emitPlacedBody(P, Place, Folded))
      return E;
  } else {
    OS << Spliced(P.Body);
  }
  OS << Spliced(P.ReturnLabel) << ":\n";
  // Values the hooks return into wave counters, from the parameter
  // registers they were left in (unless the body updated the counter in
  // place), before those are restored.
  bool ResultsInLanes = any_of(P.Results, [&](auto Result) {
    return stateHome(Result.second).InLane;
  });
  if (ResultsInLanes) // a VALU's write of an SGPR, then v_writelane reads it
    OS << "\ts_nop 1\n";
  for (auto [Param, State] : P.Results)
    if (!Place.renamed(RegisterSet::SgprBase + P.FirstSgpr + Param))
      emitStateWrite(State, sreg(P.FirstSgpr + SgprShift + Param));

  // The body's own memory operations, before its registers are restored.
  emitWait(P.LeavesVm, P.LeavesLgkm);
  VaLuWroteSgpr = false;
  if (!VgprSave.empty()) {
    OS << "\ts_mov_b64 exec, -1\n";
    for (auto &[V, From] : VgprSave)
      OS << (From.Agpr ? "\tv_accvgpr_read_b32 " : "\tv_mov_b32_e32 ")
         << vreg(V) << ", " << From.name() << "\n";
  }
  RestoreExec();
  if (SaveVcc) {
    RestoreFrom("vcc_lo", VccHome[0], true);
    RestoreFrom("vcc_hi", VccHome[1], true);
  }
  if (M0Home)
    RestoreFrom("m0", *M0Home, true);
  for (auto &[S, H] : SgprHome)
    if (!Temp || S != *Temp)
      RestoreFrom(sreg(S), H, false);
  // SCC last of what sets it; Temp (a VALU read, which leaves SCC) after.
  if (SccHome) {
    if (SccHome->InLane) {
      RestoreFrom(sreg(*Temp), *SccHome, false);
      OS << "\ts_cmp_lg_u32 " << sreg(*Temp) << ", 0\n";
    } else {
      OS << "\ts_cmp_lg_u32 " << sreg(SccHome->Reg) << ", 0\n";
    }
  }
  if (Temp)
    RestoreFrom(sreg(*Temp), SgprHome[*Temp], false);
  if (VaLuWroteSgpr)
    OS << "\ts_nop 4\n";
  RegisterSet RestoredVector;
  for (auto &Saved : VgprSave)
    RestoredVector.addVgprs(Saved.first);
  if (ResultsInLanes)
    RestoredVector.addVgprs(*StateVgpr);
  PreviousTail = detail::glueTail(BH, RestoredVector, M0Home.has_value(),
                                  VaLuWroteSgpr);
  padSeam(hazardSteps(PreviousTail, /*Reversed=*/true), Around.After);
  std::string End = ".Lloom_" + Instance + "_end";
  OS << End << ":\n\t.size " << Label << ", " << End << "-" << Label << "\n";
  return Error::success();
}

void emitWords(raw_ostream &OS, const BinaryInstruction &I) {
  ArrayRef<uint8_t> Bytes = I.Info.Bytes;
  OS << "\t.long ";
  for (size_t K = 0; K + 4 <= Bytes.size(); K += 4) {
    if (K)
      OS << ", ";
    OS << format_hex(support::endian::read32le(Bytes.data() + K), 10);
  }
  OS << "\t; " << I.Info.Text << "\n";
}

Error Emitter::emitInstruction(const BinaryFunction &F, unsigned B,
                               unsigned Idx) {
  const BinaryBasicBlock &Block = F.blocks()[B];
  const BinaryInstruction &I = Block.Instructions[Idx];
  isa::McContext &MC = BC.mc();
  StringRef Name = MC.opcodeBaseName(I.Inst.getOpcode());
  const FunctionLiveness *FL = Live->of(F);

  // A PC-relative branch: to its block's label.
  if ((I.Props.Flow == isa::ControlFlow::Branch ||
       I.Props.Flow == isa::ControlFlow::CondBranch) &&
      I.Info.Source == isa::TargetSource::Immediate) {
    auto L = I.Info.Target ? labelFor(F, *I.Info.Target) : std::nullopt;
    if (!L)
      return fail("branch at +0x" + utohexstr(I.address() - F.address(), true) +
                  " leaves the function");
    StringRef Mnemonic = StringRef(I.Info.Text).split(' ').first;
    if (!LongBranches.count({&F, I.address()})) {
      BranchLines[OS.tell()] = {&F, I.address()};
      OS << "\t" << Mnemonic << " " << *L << "\n";
      return Error::success();
    }
    // A long branch: a conditional one skips over it on the inverse
    // condition.
    std::string Skip = ".Lloom_long" + std::to_string(LongLabels++);
    if (Mnemonic != "s_branch") {
      static const std::pair<StringRef, StringRef> Inverse[] = {
          {"s_cbranch_scc0", "s_cbranch_scc1"},
          {"s_cbranch_scc1", "s_cbranch_scc0"},
          {"s_cbranch_vccz", "s_cbranch_vccnz"},
          {"s_cbranch_vccnz", "s_cbranch_vccz"},
          {"s_cbranch_execz", "s_cbranch_execnz"},
          {"s_cbranch_execnz", "s_cbranch_execz"}};
      auto It = find_if(Inverse, [&](auto &P) { return P.first == Mnemonic; });
      if (It == std::end(Inverse))
        return fail(Mnemonic + " at +0x" +
                    utohexstr(I.address() - F.address(), true) +
                    " is out of range and has no inverse to branch around "
                    "a long branch");
      OS << "\t" << It->second << " " << Skip << "_skip\n";
    }
    unsigned Pair = *LongBranchRegs, SccReg = *LongBranchRegs + 2;
    if (LongBranchLanes)
      for (unsigned K = 0; K < 3; ++K)
        OS << "\tv_writelane_b32 v" << *LongBranchLanes << ", "
           << sreg(Pair + K) << ", " << K << "\n";
    std::string To = *L;
    if (SccPads.count({&F, *I.Info.Target}))
      OS << "\ts_cselect_b32 " << sreg(SccReg) << ", 1, 0\n";
    if (hasPad(F, *I.Info.Target))
      To += "_pad";
    OS << "\ts_getpc_b64 " << spair(Pair) << "\n" << Skip << ":\n";
    OS << "\ts_add_u32 " << sreg(Pair) << ", " << sreg(Pair) << ", (" << To
       << "-" << Skip << ")&4294967295\n";
    OS << "\ts_addc_u32 " << sreg(Pair + 1) << ", " << sreg(Pair + 1) << ", ("
       << To << "-" << Skip << ")>>32\n";
    OS << "\ts_setpc_b64 " << spair(Pair) << "\n";
    if (Mnemonic != "s_branch")
      OS << Skip << "_skip:\n";
    return Error::success();
  }

  if (Name == "S_GETPC_B64" && !getPcPair(MC, Block, Idx)) {
    // A PC put to another use: the original's, so that what is computed
    // from it (data, or code run as it is) is what the original computed.
    SmallVector<unsigned, 4> Pair =
        MC.scalarCodes(I.Inst.getOperand(0).getReg().id());
    uint64_t Pc = I.Info.endAddress() + Options.LoadDelta;
    OS << "\ts_mov_b32 " << scalarName(Pair[0]) << ", "
       << format_hex(Pc & 0xffffffff, 10) << "\n";
    OS << "\ts_mov_b32 " << scalarName(Pair[1]) << ", "
       << format_hex(Pc >> 32, 10) << "\n";
    return Error::success();
  }
  if (Name == "S_GETPC_B64") {
    const BinaryInstruction &Add = Block.Instructions[Idx + 1];
    const BinaryInstruction &Addc = Block.Instructions[Idx + 2];
    uint64_t Target = *Addc.Info.ComputedAddress;
    std::optional<unsigned> LoCode =
        MC.scalarCode(Add.Inst.getOperand(0).getReg().id());
    std::optional<unsigned> HiCode =
        MC.scalarCode(Addc.Inst.getOperand(0).getReg().id());
    if (!LoCode || !HiCode)
      return fail("unexpected s_getpc_b64 pair");
    std::string Lo = scalarName(*LoCode), Hi = scalarName(*HiCode);
    // A function's address taken as a value (not the target of a direct
    // call of F) stays the original's, as a pointer stored or compared
    // must; calls through it reach the copy (translatesCall).
    const BinaryFunction *G = BC.functionAt(Target);
    bool ValueOnly =
        G && !G->isKernel() &&
        none_of(BC.callGraph().callsFrom(F), [&](const CallSite *S) {
          return S->Callee == G && S->Source == isa::TargetSource::PcRelative;
        });
    auto L = ValueOnly ? std::nullopt : labelFor(F, Target);
    if (L) {
      std::string Pc = ".Lloom_pc" + std::to_string(PcLabels++);
      emitWords(OS, I);
      OS << Pc << ":\n";
      OS << "\ts_add_u32 " << Lo << ", " << Lo << ", (" << *L
         << "-" << Pc << ")&4294967295\n";
      OS << "\ts_addc_u32 " << Hi << ", " << Hi << ", ("
         << *L << "-" << Pc << ")>>32\n";
    } else {
      // Data, or code left as it is: its address in the original.
      uint64_t Abs = Target + Options.LoadDelta;
      emitWords(OS, I);
      OS << "\ts_mov_b32 " << Lo << ", " << format_hex(Abs & 0xffffffff, 10)
         << "\n";
      OS << "\ts_mov_b32 " << Hi << ", " << format_hex(Abs >> 32, 10)
         << "\n";
    }
    // SCC is the pair's carry out; if anything reads it, recreate it.
    if (FL->liveAfter(B, Idx + 2).has(SpecialReg::Scc)) {
      uint64_t Pc = I.Info.endAddress() + Options.LoadDelta;
      uint64_t Delta = Target - I.Info.endAddress();
      uint64_t LoSum = (Pc & 0xffffffff) + (Delta & 0xffffffff);
      uint64_t HiSum = (Pc >> 32) + (Delta >> 32) + (LoSum >> 32);
      OS << "\ts_cmp_eq_u32 0, " << ((HiSum >> 32) & 1 ? 0 : 1) << "\n";
    }
    return Error::success();
  }
  // The add and addc of a pair were emitted with their s_getpc_b64.
  if ((Idx >= 1 && getPcPair(MC, Block, Idx - 1)) ||
      (Idx >= 2 && getPcPair(MC, Block, Idx - 2)))
    return Error::success();

  if (translatesCall(I)) {
    // emitCallTranslation left the target in the destination pair (a tail
    // call's own pair).
    std::string Dst =
        spair(MC.scalarCodes(I.Inst.getOperand(0).getReg().id())[0]);
    if (I.Info.Flow == isa::ControlFlow::TailCall)
      OS << "\ts_setpc_b64 " << Dst << "\n";
    else
      OS << "\ts_swappc_b64 " << Dst << ", " << Dst << "\n";
    return Error::success();
  }

  emitWords(OS, I);
  return Error::success();
}

std::vector<detail::CopiedFunction> Emitter::indirectTargets() const {
  std::vector<detail::CopiedFunction> Out;
  for (const BinaryFunction *G : BC.callGraph().indirectTargets())
    if (Emitted.count(G))
      Out.push_back({G->address() + Options.LoadDelta, copyName(*G)});
  return Out;
}

bool Emitter::translatesCall(const BinaryInstruction &I) const {
  StringRef Op = BC.mc().opcodeBaseName(I.Inst.getOpcode());
  bool Call = I.Info.Flow == isa::ControlFlow::Call && Op == "S_SWAPPC_B64";
  bool Tail = I.Info.Flow == isa::ControlFlow::TailCall && Op == "S_SETPC_B64";
  return (Call || Tail) && !I.Info.Target && I.Info.TargetName.empty() &&
         any_of(BC.callGraph().indirectTargets(),
                [&](const BinaryFunction *G) { return Emitted.count(G); });
}

Error Emitter::emitCallTranslation(const BinaryFunction &F, unsigned B,
                                   unsigned Idx) {
  const BinaryInstruction &I = F.blocks()[B].Instructions[Idx];
  if (!translatesCall(I))
    return Error::success();
  isa::McContext &MC = BC.mc();
  // s_swappc_b64 Dst, Src; s_setpc_b64 Src, whose pair the translation
  // may overwrite: the callee reads no argument from it.
  bool Tail = I.Info.Flow == isa::ControlFlow::TailCall;
  SmallVector<unsigned, 4> Dst =
      MC.scalarCodes(I.Inst.getOperand(0).getReg().id());
  SmallVector<unsigned, 4> Src =
      MC.scalarCodes(I.Inst.getOperand(Tail ? 0 : 1).getReg().id());
  std::string At = (Tail ? "tail call at +0x" : "call at +0x") +
                   utohexstr(I.address() - F.address(), true);
  if (Dst.size() != 2 || Src.size() != 2 || Dst[0] >= MaxSgprs ||
      Src[0] >= MaxSgprs)
    return fail(At + " goes through registers other than SGPR pairs");
  // The calling convention clobbers SCC at a call, so liveness never has it
  // live here; the chain's compares would lose it otherwise.
  if (Live->of(F)->liveBefore(B, Idx).has(SpecialReg::Scc))
    return fail(At + ": SCC is live across a call through a pointer");
  detail::emitTranslatedCall(OS, Dst[0], Src[0], indirectTargets(),
                             ".Lloom_ic" + std::to_string(PcLabels++));
  return Error::success();
}

const HazardInst &Emitter::hazardOf(const BinaryInstruction &I) {
  auto [It, New] = Hazards.try_emplace(&I);
  if (New)
    It->second = describeHazards(BC.mc(), I.Inst, I.Props);
  return It->second;
}

Emitter::Seam Emitter::seamAt(const BinaryFunction &F, unsigned B,
                              unsigned Pos) {
  // As far back and ahead as a rule reaches (an instruction is at least a
  // wait state), over the CFG: every position one more instruction away,
  // through predecessors going back and successors going ahead. Nothing
  // is followed into a caller or a callee, as LLVM's hazard recognizer
  // does not.
  ArrayRef<BinaryBasicBlock> Blocks = F.blocks();
  using Position = std::pair<unsigned, unsigned>; // block, instruction
  auto Walk = [&](bool Back) {
    HazardSteps Steps;
    std::set<Position> Frontier = {{B, Pos}};
    while (!Frontier.empty() && Steps.size() < MaxHazardWaitStates) {
      std::set<Position> Next;
      SmallVector<const HazardInst *, 2> Step;
      auto Take = [&](unsigned Blk, unsigned K) {
        const HazardInst *H = &hazardOf(Blocks[Blk].Instructions[K]);
        if (!is_contained(Step, H))
          Step.push_back(H);
        Next.insert({Blk, Back ? K : K + 1});
      };
      for (auto [Blk, K] : Frontier) {
        ArrayRef<BinaryInstruction> Insts = Blocks[Blk].Instructions;
        if (Back && K > 0)
          Take(Blk, K - 1);
        else if (!Back && K < Insts.size())
          Take(Blk, K);
        else
          for (unsigned Other : Back ? ArrayRef(Blocks[Blk].Predecessors)
                                     : ArrayRef(Blocks[Blk].Successors))
            if (!Blocks[Other].Instructions.empty())
              Take(Other, Back ? Blocks[Other].Instructions.size() - 1 : 0);
      }
      if (Step.empty())
        break;
      Steps.push_back(std::move(Step));
      Frontier = std::move(Next);
    }
    return Steps;
  };
  return {Walk(true), Walk(false)};
}

Error Emitter::emitFunction(const BinaryFunction &F) {
  PreviousTail.clear();
  std::string Sym = copyName(F);
  OS << "\n\t.globl " << Sym << "\n\t.protected " << Sym << "\n";
  OS << "\t.p2align " << (F.isKernel() ? 8 : 2) << "\n";
  OS << "\t.type " << Sym << ",@function\n" << Sym << ":\n";
  const FunctionLiveness *FL = Live->of(F);
  FunctionPoints &FP = Points[&F];
  // The wave's first instructions: the preamble's, if any, are the only
  // ones before the original code (its v_readfirstlane and v_and of v0 are
  // VALU writes).
  Seam Start = seamAt(F, 0, 0);
  Start.Before.clear();
  std::vector<HazardInst> Preamble;
  if (F.isKernel() && hasPreamble()) {
    if (Error E = emitPreamble(F))
      return E;
    if (usesState(LaunchState::WaveTid)) {
      HazardInst ReadFirst;
      ReadFirst.U = HazardInst::Unit::Valu;
      ReadFirst.Writes.addSgprs(
          LaunchInLanes ? preambleTemp(Launch.find(&F)->second,
                                       LaunchState::WaveTid)
                        : StateReg[unsigned(LaunchState::WaveTid)]);
      HazardInst Mask = ReadFirst;
      Mask.Writes = RegisterSet().addVgprs(0);
      Preamble = {ReadFirst, Mask};
      if (LaunchInLanes) {
        HazardInst Lanes = ReadFirst; // v_writelane into StateVgpr
        Lanes.Reads = ReadFirst.Writes;
        Lanes.Writes = RegisterSet().addVgprs(*StateVgpr);
        Preamble.push_back(Lanes);
      }
      Start.Before = hazardSteps(Preamble, /*Reversed=*/true);
    } else if (LaneWordVgpr && !StatesUsed) {
      // The lane word's v_lshlrev ends the preamble.
      HazardInst Word;
      Word.U = HazardInst::Unit::Valu;
      Word.Reads = Word.Writes = RegisterSet().addVgprs(*LaneWordVgpr);
      Start.Before = hazardSteps({Word}, /*Reversed=*/true);
    }
  }
  if (!FP.KernelEntry.empty()) {
    if (Error E = emitPoint(FP.KernelEntry[0], FL->entryLiveIn(),
                            PendingMemory::unknown(), Start))
      return E;
  } else if (F.isKernel()) {
    padSeam(Start.Before, Start.After);
  }
  PendingMemoryAnalysis Waits(F);
  PendingMemory Pending;
  // A point at \p Addr, before instruction \p Pos of block \p B.
  auto At = [&](std::map<uint64_t, unsigned> &Map, uint64_t Addr,
                const RegisterSet &L, unsigned B, unsigned Pos) -> Error {
    auto It = Map.find(Addr);
    return It == Map.end()
               ? Error::success()
               : emitPoint(It->second, L, Pending, seamAt(F, B, Pos));
  };
  // A point's counter adds come before its hooks; scalar code, they need
  // no VGPR indexing switched off.
  // Adds to once-per-wave counters write VGPR lanes: inside an
  // s_set_gpr_idx_on region (\p IndexMask set) indexing goes off around
  // them, as around a point.
  auto Count = [&](std::map<uint64_t, std::vector<CounterAdd>> &Adds,
                   uint64_t Addr, const RegisterSet &L, unsigned B,
                   unsigned Pos, std::optional<unsigned> IndexMask) {
    auto It = Adds.find(Addr);
    if (It == Adds.end())
      return;
    SmallVector<CounterAdd, 4> InLanes, InVgprs, Rest;
    for (const CounterAdd &A : It->second)
      (isRecord(A.Counter)       ? InLanes
       : inVgpr(A.Counter) ? InVgprs
                                 : Rest)
          .push_back(A);
    if (!InLanes.empty() || !InVgprs.empty()) {
      if (IndexMask)
        OS << "\ts_set_gpr_idx_off\n";
      if (!InLanes.empty())
        emitRecordAdds(InLanes, seamAt(F, B, Pos));
      if (!InVgprs.empty())
        emitVectorAdds(InVgprs, seamAt(F, B, Pos));
      if (IndexMask)
        OS << "\ts_set_gpr_idx_on m0, " << *IndexMask << "\n\ts_nop 0\n";
    }
    if (Rest.empty())
      return;
    if (CountersInLanes)
      emitCounterAddsInLanes(Rest, L, Pending, seamAt(F, B, Pos));
    else
      emitCounterAdds(Rest, L);
  };
  for (unsigned B = 0; B < F.blocks().size(); ++B) {
    const BinaryBasicBlock &Block = F.blocks()[B];
    if (hasPad(F, Block.Address)) {
      // Long branches arrive at the pad, which gives SCC and the borrowed
      // registers back; the code before falls through past it.
      std::string L = blockLabel(F, Block.Address);
      OS << "\ts_branch " << L << "\n" << L << "_pad:\n";
      if (SccPads.count({&F, Block.Address}))
        OS << "\ts_cmp_lg_u32 " << sreg(*LongBranchRegs + 2) << ", 0\n";
      if (LongBranchLanes) {
        OS << "\ts_nop 4\n"; // v_writelane to v_readlane of its VGPR
        for (unsigned K = 0; K < 3; ++K)
          OS << "\tv_readlane_b32 " << sreg(*LongBranchRegs + K) << ", v"
             << *LongBranchLanes << ", " << K << "\n";
        // VALU writes of s0..s2, then the block (or a point's glue, a VALU
        // reading them at worst).
        HazardInst Lanes, Glue;
        Lanes.U = Glue.U = HazardInst::Unit::Valu;
        Lanes.Writes.addSgprs(*LongBranchRegs, 3);
        Glue.Reads = Lanes.Writes;
        Glue.WaitStates = 0;
        HazardSteps After = seamAt(F, B, 0).After;
        After.insert(After.begin(), {&Glue});
        padSeam({{&Lanes}}, After);
      }
    }
    OS << blockLabel(F, Block.Address) << ":\n";
    Pending = Waits.blockIn(B);
    Count(FP.AddsBlockEntry, Block.Address, FL->liveIn(B), B, 0,
          std::nullopt);
    if (Error E = At(FP.BlockEntry, Block.Address, FL->liveIn(B), B, 0))
      return E;
    // Between s_set_gpr_idx_on and s_set_gpr_idx_off the hardware offsets
    // VGPR operands by M0[7:0], for the operands M0[15:12] selects. A point
    // there switches indexing off for the inserted code (M0, which the
    // region's instructions read, is live there and so kept) and back on
    // after it with the region's operand mask.
    bool Indexing = false;
    unsigned IndexMask = 0;
    auto AtIndexed = [&](std::map<uint64_t, unsigned> &Map, uint64_t Addr,
                         const RegisterSet &L, unsigned Pos) -> Error {
      if (!Indexing || !Map.count(Addr))
        return At(Map, Addr, L, B, Pos);
      OS << "\ts_set_gpr_idx_off\n";
      if (Error E = At(Map, Addr, L, B, Pos))
        return E;
      // The next VALU may index one instruction later (a wait state).
      OS << "\ts_set_gpr_idx_on m0, " << IndexMask << "\n\ts_nop 0\n";
      return Error::success();
    };
    // The label of a guard moved before an s_and_saveexec_b64, for the
    // branch after it.
    std::string HoistedSkip;
    for (unsigned I = 0; I < Block.Instructions.size(); ++I) {
      const MCInst &Inst = Block.Instructions[I].Inst;
      uint64_t Addr = Block.Instructions[I].address();
      Count(FP.AddsBefore, Addr, FL->liveBefore(B, I), B, I,
            Indexing ? std::optional<unsigned>(IndexMask) : std::nullopt);
      // The label after this instruction that the guard below jumps to,
      // if it skips the instruction too.
      std::string SkipAfter;
      if (auto G = FP.BeforeUnlessExec.find(Addr);
          G != FP.BeforeUnlessExec.end()) {
        // Waves whose EXEC is the pair (or not empty) skip the calls; an
        // s_cbranch_execz they would not take with them, where nothing
        // else is at it (HookRequest::PairNeverZero).
        bool NonZero = G->second.second == HookRequest::ExecNonZero;
        bool SkipsBranch = !NonZero && skipsBranch(FP, Block, I);
        if (Indexing || (!NonZero && HoistedSkip.empty() &&
                         FL->liveBefore(B, I).has(SpecialReg::Scc)))
          return fail(where(F, HookPoint::Before, Addr) +
                      ": a call unless EXEC is an SGPR pair needs SCC dead "
                      "and no VGPR indexing there");
        // A guard moved before the s_and_saveexec_b64 (below) is there
        // already.
        bool Hoisted = !HoistedSkip.empty();
        std::string Skip = Hoisted ? std::move(HoistedSkip)
                                   : ".Lloom_u" + std::to_string(GuardLabels++);
        HoistedSkip.clear();
        if (NonZero)
          OS << "\ts_cbranch_execnz " << Skip << "\n";
        else if (!Hoisted)
          OS << "\ts_cmp_eq_u64 " << spair(G->second.second) << ", exec\n"
             << "\ts_cbranch_scc1 " << Skip << "\n";
        if (Error E = emitPoint(G->second.first, FL->liveBefore(B, I), Pending,
                                seamAt(F, B, I)))
          return E;
        if (SkipsBranch)
          SkipAfter = Skip;
        else
          OS << Skip << ":\n";
      }
      if (Error E = AtIndexed(FP.Before, Addr, FL->liveBefore(B, I), I))
        return E;
      if (Error E = AtIndexed(FP.KernelExit, Addr, FL->liveBefore(B, I), I))
        return E;
      if (Error E = emitCallTranslation(F, B, I))
        return E;
      if (F.isKernel() && Block.Instructions[I].Props.isEndProgram()) {
        emitCounterFlush();
        emitRecordFlush();
        emitVectorFlush();
      }
      if (std::optional<std::string> Source =
              Indexing ? std::nullopt : hoistedGuardSource(F, FP, B, I)) {
        // The guard of the s_cbranch_execz after this s_and_saveexec_b64,
        // here: a wave that would lose no lane skips both.
        HoistedSkip = ".Lloom_u" + std::to_string(GuardLabels++);
        OS << "\ts_andn2_b64 " << spair(guardPair(FP, Block, I + 1))
           << ", exec, " << *Source << "\n\ts_cbranch_scc0 " << HoistedSkip
           << "\n";
      }
      OS << ".Lloom_o" << AddressMapLabels.size() << ":\n";
      AddressMapLabels.push_back(Addr);
      PreviousTail.clear();
      if (Error E = emitInstruction(F, B, I))
        return E;
      if (!SkipAfter.empty())
        OS << SkipAfter << ":\n";
      StringRef Name = BC.mc().opcodeBaseName(Inst.getOpcode());
      if (Name.starts_with("S_SET_GPR_IDX_ON") ||
          Name.starts_with("S_SET_GPR_IDX_MODE")) {
        Indexing |= Name.starts_with("S_SET_GPR_IDX_ON");
        const MCOperand &Mask = Inst.getOperand(Inst.getNumOperands() - 1);
        IndexMask = Mask.isImm() ? unsigned(Mask.getImm()) & 0xf : 0xf;
      } else if (Name.starts_with("S_SET_GPR_IDX_OFF")) {
        Indexing = false;
      }
      Pending.step(Block.Instructions[I]);
      Count(FP.AddsAfter, Addr, FL->liveAfter(B, I), B, I + 1,
            Indexing ? std::optional<unsigned>(IndexMask) : std::nullopt);
      if (Error E = AtIndexed(FP.After, Addr, FL->liveAfter(B, I), I + 1))
        return E;
    }
    if (Indexing)
      return fail("VGPR indexing (s_set_gpr_idx_on) goes on past the block at "
                  "+0x" + utohexstr(Block.Address - F.address(), true));
  }
  OS << "\t.size " << Sym << ", .-" << Sym << "\n";
  return Error::success();
}

bool Emitter::skipsBranch(const FunctionPoints &FP, const BinaryBasicBlock &B,
                          unsigned I) const {
  uint64_t Addr = B.Instructions[I].address();
  auto NeverZero = FP.PairNeverZero.find(Addr);
  return NeverZero != FP.PairNeverZero.end() && NeverZero->second &&
         BC.mc().opcodeBaseName(B.Instructions[I].Inst.getOpcode()) ==
             "S_CBRANCH_EXECZ" &&
         !FP.Before.count(Addr) && !FP.KernelExit.count(Addr) &&
         !FP.After.count(Addr) && !FP.AddsAfter.count(Addr);
}

std::optional<std::string>
Emitter::hoistedGuardSource(const BinaryFunction &F, const FunctionPoints &FP,
                            unsigned B, unsigned I) const {
  const BinaryBasicBlock &Block = F.blocks()[B];
  if (I + 2 != Block.Instructions.size() || B + 1 >= F.blocks().size() ||
      FP.BeforeUnlessExec.empty())
    return std::nullopt;
  const BinaryInstruction &Save = Block.Instructions[I];
  uint64_t Addr = Save.address(), Next = Block.Instructions[I + 1].address();
  auto G = FP.BeforeUnlessExec.find(Next);
  if (G == FP.BeforeUnlessExec.end() ||
      G->second.second == HookRequest::ExecNonZero ||
      !skipsBranch(FP, Block, I + 1) || FP.AddsBefore.count(Next) ||
      FP.After.count(Addr) || FP.AddsAfter.count(Addr))
    return std::nullopt;
  const isa::McContext &MC = BC.mc();
  const MCInst &Inst = Save.Inst;
  unsigned Pair = G->second.second;
  if (MC.opcodeBaseName(Inst.getOpcode()) != "S_AND_SAVEEXEC_B64" ||
      Inst.getNumOperands() < 2 || !Inst.getOperand(0).isReg() ||
      !Inst.getOperand(1).isReg() ||
      MC.scalarCodes(Inst.getOperand(0).getReg().id()) !=
          SmallVector<unsigned, 4>{Pair, Pair + 1})
    return std::nullopt;
  SmallVector<unsigned, 4> Source =
      MC.scalarCodes(Inst.getOperand(1).getReg().id());
  std::string Text;
  if (Source == SmallVector<unsigned, 4>{isa::McContext::VccLoCode,
                                         isa::McContext::VccHiCode})
    Text = "vcc";
  else if (Source.size() == 2 && Source[0] % 2 == 0 &&
           Source[1] == Source[0] + 1 && Source[1] < MaxSgprs &&
           Source[0] != Pair)
    Text = spair(Source[0]);
  else
    return std::nullopt;
  // Where the branch falls through: the next block.
  const RegisterSet &After = Live->of(F)->liveIn(B + 1);
  if (After.hasSgpr(Pair) || After.hasSgpr(Pair + 1) ||
      After.has(SpecialReg::Scc))
    return std::nullopt;
  return Text;
}

Error Emitter::emitKernelDescriptor(const BinaryFunction &K,
                                    InstrumentedKernel &Out) {
  const codeobj::Kernel *CK = BC.codeObject().findKernel(K.name());
  if (!CK)
    return fail("no kernel descriptor for " + K.name());
  auto Raw = BC.codeObject().contents(CK->Descriptor.Address,
                                      codeobj::KernelDescriptor::Size);
  if (!Raw)
    return Raw.takeError();
  std::array<uint8_t, 64> D;
  std::copy(Raw->begin(), Raw->end(), D.begin());
  const codeobj::KernelDescriptor &KD = CK->KD;

  // Register counts, raised to cover the saves (AMDGPUUsage, "Kernel
  // Descriptor": gfx9 SGPR blocks of 16, gfx90a/gfx942 VGPR blocks of 8
  // over the unified VGPR + AGPR file).
  uint32_t Rsrc1 = KD.ComputePgmRsrc1, Rsrc3 = KD.ComputePgmRsrc3;
  unsigned SgprsUsed = HighestSgpr + 1 + 6; // VCC, FLAT_SCRATCH, XNACK_MASK
  unsigned SgprField = 2 * std::max<int>(0, int(divideCeil(SgprsUsed, 16)) - 1);
  SgprField = std::max(SgprField, (Rsrc1 >> 6) & 0xf);
  unsigned OldTotal = ((Rsrc1 & 0x3f) + 1) * 8;
  unsigned OldAccum = KD.accumOffsetInVgprs();
  unsigned Agprs = OldTotal > OldAccum ? OldTotal - OldAccum : 0;
  Agprs = std::max<unsigned>(Agprs, HighestAgpr + 1); // saved VGPRs
  unsigned Arch = std::max<unsigned>(HighestVgpr + 1, 1);
  unsigned Accum = std::max(OldAccum, unsigned(alignTo(Arch, 4)));
  unsigned Total = std::max(OldTotal, Accum + Agprs);
  if (Total > 512)
    return fail("kernel " + K.name() + " needs " + Twine(Total) +
                " vector registers instrumented; at most 512");
  Rsrc1 = (Rsrc1 & ~0x3ffu) | (divideCeil(Total, 8) - 1) | SgprField << 6;
  Rsrc3 = (Rsrc3 & ~0x3fu) | (Accum / 4 - 1);
  support::endian::write32le(&D[44], Rsrc3);
  support::endian::write32le(&D[48], Rsrc1);

  // The inputs the launch state needs (AMDGPUUsage, "Kernel Descriptor":
  // COMPUTE_PGM_RSRC2 and KERNEL_CODE_PROPERTIES).
  Out.KernargSize = KD.KernargSize;
  if (auto It = Launch.find(&K); It != Launch.end()) {
    const codeobj::KernelDescriptor &New = It->second.NewKD;
    uint32_t Rsrc2 = KD.ComputePgmRsrc2;
    Rsrc2 = (Rsrc2 & ~(0x1fu << 1)) | (New.Rsrc2.UserSgprCount & 0x1f) << 1;
    Rsrc2 |= uint32_t(New.Rsrc2.EnableSgprWorkgroupIdX) << 7 |
             uint32_t(New.Rsrc2.EnableSgprWorkgroupIdY) << 8 |
             uint32_t(New.Rsrc2.EnableSgprWorkgroupIdZ) << 9;
    Rsrc2 = (Rsrc2 & ~(0x3u << 11)) | (New.Rsrc2.EnableVgprWorkitemId & 3) << 11;
    Rsrc2 |= uint32_t(New.Rsrc2.EnablePrivateSegment);
    support::endian::write32le(&D[52], Rsrc2);
    uint16_t Props = support::endian::read16le(&D[56]);
    Props |= uint16_t(New.Properties.EnableSgprPrivateSegmentBuffer) |
             uint16_t(New.Properties.EnableSgprDispatchPtr) << 1 |
             uint16_t(New.Properties.EnableSgprKernargSegmentPtr) << 3 |
             uint16_t(New.Properties.EnableSgprFlatScratchInit) << 5 |
             uint16_t(New.Properties.EnableSgprPrivateSegmentSize) << 6;
    support::endian::write16le(&D[56], Props);
    if (usesState(LaunchState::HeaderLo)) {
      Out.UsesLaunchHeader = true;
      Out.LaunchHeaderOffset = It->second.HeaderOffset;
      Out.KernargSize = Out.LaunchHeaderOffset + sizeof(LoomLaunchHeader);
      support::endian::write32le(&D[8], Out.KernargSize);
    }
  }

  Out.PrivateSegmentSize = KD.PrivateSegmentFixedSize;
  if (StackBytes) {
    // The slot for the hooks' stack, above the original's.
    Out.PrivateSegmentSize = SlotBase + StackSlotSize;
    Out.StackSlotSize = StackSlotSize;
    support::endian::write32le(&D[4], Out.PrivateSegmentSize);
  }

  std::string Sym = copyName(K);
  OS << "\n\t.rodata\n\t.p2align 6\n\t.globl " << Sym << ".kd\n\t.protected "
     << Sym << ".kd\n\t.type " << Sym << ".kd,@object\n" << Sym << ".kd:\n";
  auto Bytes = [&](unsigned From, unsigned To) {
    OS << "\t.byte ";
    for (unsigned I = From; I < To; ++I)
      OS << (I > From ? ", " : "") << unsigned(D[I]);
    OS << "\n";
  };
  Bytes(0, 16);
  OS << "\t.quad " << Sym << " - " << Sym << ".kd\n";
  Bytes(24, 64);
  OS << "\t.size " << Sym << ".kd, 64\n\t.text\n";

  Out.Original = K.name().str();
  Out.Symbol = Sym;
  Out.GroupSegmentSize = KD.GroupSegmentFixedSize;
  return Error::success();
}

Expected<std::string> Emitter::metadataYaml() {
  msgpack::Document Doc;
  if (!Doc.readFromBlob(BC.codeObject().metadataNote(), false))
    return fail(BC.codeObject().name() + ": unreadable metadata note");
  msgpack::MapDocNode Root = Doc.getRoot().getMap();
  msgpack::ArrayDocNode Old = Root["amdhsa.kernels"].getArray();
  msgpack::ArrayDocNode New = Doc.getArrayNode();
  unsigned Vgprs = HighestVgpr + 1, Sgprs = HighestSgpr + 1 + 6;
  for (const InstrumentedKernel &K : Result.Kernels) {
    for (msgpack::DocNode &N : Old) {
      if (!N.isMap())
        continue;
      msgpack::MapDocNode M = N.getMap();
      if (M[".symbol"].isString() &&
          M[".symbol"].getString() != K.Original + ".kd")
        continue;
      msgpack::MapDocNode Copy = Doc.getMapNode();
      for (auto &[Key, Value] : M)
        Copy[Key] = Value;
      Copy[".name"] = Doc.getNode(K.Symbol, /*Copy=*/true);
      Copy[".symbol"] = Doc.getNode(K.Symbol + ".kd", /*Copy=*/true);
      if (Copy[".vgpr_count"].isEmpty() ||
          Copy[".vgpr_count"].getUInt() < Vgprs)
        Copy[".vgpr_count"] = Doc.getNode(uint64_t(Vgprs));
      if (Copy[".sgpr_count"].isEmpty() ||
          Copy[".sgpr_count"].getUInt() < Sgprs)
        Copy[".sgpr_count"] = Doc.getNode(uint64_t(Sgprs));
      if (HighestAgpr >= 0 && (Copy[".agpr_count"].isEmpty() ||
                               Copy[".agpr_count"].getUInt() <
                                   unsigned(HighestAgpr + 1)))
        Copy[".agpr_count"] = Doc.getNode(uint64_t(HighestAgpr + 1));
      if (K.UsesLaunchHeader)
        Copy[".kernarg_segment_size"] = Doc.getNode(uint64_t(K.KernargSize));
      if (StackBytes)
        Copy[".private_segment_fixed_size"] =
            Doc.getNode(uint64_t(K.PrivateSegmentSize));
      New.push_back(Copy);
      break;
    }
  }
  Root["amdhsa.kernels"] = New;
  std::string Yaml;
  raw_string_ostream YOS(Yaml);
  Doc.toYAML(YOS);
  return Yaml;
}

Expected<InstrumentedCodeObject> Emitter::run() {
  for (const BinaryFunction &F : BC.functions())
    if (Error E = F.requireState(FunctionState::CFGBuilt))
      return std::move(E);
  Live = Options.Live;
  if (!Live) {
    auto L = Liveness::compute(BC);
    if (!L)
      return L.takeError();
    Live = &OwnLive.emplace(std::move(*L));
  }
  if (Error E = chooseFunctions())
    return std::move(E);
  if (Kernels.empty())
    return std::move(Result);
  collectPoints();
  if (Error E = resolveGlobalAddresses())
    return std::move(E);
  computeBudget();
  OriginalBudget = Budget;

  auto Target = jit::TargetSpec::fromIsaName(BC.codeObject().target().str());
  if (!Target)
    return Target.takeError();
  auto C = detail::compilePoints(Specs, Hooks, *Target, Options.OptLevel,
                                 Options.CompileThreads, BC.mc());
  if (!C)
    return C.takeError();
  Compiled = std::move(*C);
  if (Error E = planLaunchState()) {
    // The state's registers serve every copied function: no kernel here
    // can have it.
    std::string Why = toString(std::move(E));
    for (const BinaryFunction *K : Kernels)
      Result.Warnings.push_back("kernel " + K->name().str() +
                                " runs uninstrumented: " + Why);
    return std::move(Result);
  }
  if (Error E = planCounters()) {
    std::string Why = toString(std::move(E));
    for (const BinaryFunction *K : Kernels)
      Result.Warnings.push_back("kernel " + K->name().str() +
                                " runs uninstrumented: " + Why);
    return std::move(Result);
  }
  planLaneWord();
  BaseSgpr = HighestSgpr;
  BaseVgpr = HighestVgpr;

  // A kernel whose code cannot be emitted (no free registers to save
  // into, a branch out of range) is left out with a warning, and the rest
  // emitted again without it.
  // Drops every kernel that reaches \p Failed (with a warning) and what
  // only they reach; false if none does.
  auto Drop = [&](const BinaryFunction *Failed, StringRef Why) {
    auto IsCopied = [&](const BinaryFunction *G) { return Emitted.count(G); };
    SmallVector<const BinaryFunction *, 4> Dropped;
    for (const BinaryFunction *K : Kernels)
      if (is_contained(BC.callGraph().reachableFrom(*K, IsCopied), Failed))
        Dropped.push_back(K);
    for (const BinaryFunction *K : Dropped) {
      Result.Warnings.push_back("kernel " + K->name().str() +
                                " runs uninstrumented: " + Failed->name().str() +
                                ": " + Why.str());
      Kernels.remove(K);
    }
    SetVector<const BinaryFunction *> Keep;
    for (const BinaryFunction *K : Kernels)
      Keep.insert_range(BC.callGraph().reachableFrom(*K, IsCopied));
    Emitted = std::move(Keep);
    return !Dropped.empty();
  };
  std::optional<jit::ObjectBytes> Obj;
  while (!Obj) {
    Text.clear();
    HighestSgpr = BaseSgpr;
    HighestVgpr = BaseVgpr;
    HighestAgpr = BaseAgpr;
    for (const CompiledPoint &P : Compiled)
      noteHighest(P.Clobbers, HighestSgpr, HighestVgpr);
    OS << "\t.amdgcn_target \"amdgcn-amd-amdhsa--"
       << BC.codeObject().target().str() << "\"\n";
    OS << "\t.amdhsa_code_object_version " << BC.codeObject().abiVersion()
       << "\n\t.text\n";
    AddressMapLabels.clear();
    Result.HazardWaitStates = Result.HazardNops = 0;
    PcLabels = 0;
    GuardLabels = 0;
    LongLabels = 0;
    BranchLines.clear();
    const BinaryFunction *Failed = nullptr;
    std::string Why;
    // Where each function's text starts, to map assembler errors back.
    std::vector<std::pair<size_t, const BinaryFunction *>> Starts;
    for (const BinaryFunction *F : Emitted) {
      OS.flush();
      Starts.emplace_back(Text.size(), F);
      if (Error E = emitFunction(*F)) {
        Failed = F;
        Why = toString(std::move(E));
        break;
      }
    }
    if (Failed) {
      if (!Drop(Failed, Why))
        return fail(Failed->name() + ": " + Why);
      if (Kernels.empty())
        return std::move(Result);
      continue;
    }
    Result.Kernels.clear();
    for (const BinaryFunction *K : Kernels) {
      InstrumentedKernel IK;
      if (Error E = emitKernelDescriptor(*K, IK))
        return std::move(E);
      Result.Kernels.push_back(std::move(IK));
    }
    auto Yaml = metadataYaml();
    if (!Yaml)
      return Yaml.takeError();
    OS << "\t.amdgpu_metadata\n" << *Yaml << "\t.end_amdgpu_metadata\n";
    // Where each original instruction went: (new address, original
    // address) pairs in a section the loader ignores.
    OS << "\t.section .loom.addrmap,\"\",@progbits\n";
    for (size_t I = 0; I < AddressMapLabels.size(); ++I)
      OS << "\t.quad .Lloom_o" << I << ", "
         << format_hex(AddressMapLabels[I], 18) << "\n";
    OS.flush();
    Result.Assembly = Text;

    std::string Name = BC.codeObject().name().str() + ".loom";
    auto O = jit::assembleObject(Text, Name, *Target);
    if (O) {
      Obj = std::move(*O);
      break;
    }
    // A branch the inserted code put out of reach (simm16 words) becomes a
    // long branch; if there are no registers for those, its function is
    // left out. Other errors are Loom's own.
    std::string Err = toString(O.takeError());
    std::vector<size_t> OutOfRange = branchRangeErrors(Err, Name, Text);
    bool NewLong = false;
    for (size_t Offset : OutOfRange) {
      auto It = BranchLines.find(Offset);
      if (It == BranchLines.end())
        continue;
      auto [F, Address] = It->second;
      if (!LongBranches.insert(It->second).second)
        continue;
      NewLong = true;
      // SCC given back at the target if it is live there.
      const BinaryInstruction *I = F->instructionAt(Address);
      LongTargets.insert({F, *I->Info.Target});
      if (std::optional<unsigned> B = F->blockStartingAt(*I->Info.Target))
        if (Live->of(*F)->liveIn(*B).has(SpecialReg::Scc))
          SccPads.insert({F, *I->Info.Target});
    }
    if (NewLong && !LongBranchRegs) {
      // Three SGPRs (an aligned pair and one) no point writes, above what
      // the code and the saves use.
      RegisterSet Clobbered;
      for (const CompiledPoint &P : Compiled)
        Clobbered |= P.Clobbers;
      unsigned N = alignTo(Budget.FirstFreeSgpr, 2);
      while (N + 3 <= MaxSgprs &&
             (Clobbered.hasSgpr(N) || Clobbered.hasSgpr(N + 1) ||
              Clobbered.hasSgpr(N + 2)))
        N += 2;
      if (N + 3 <= MaxSgprs) {
        LongBranchRegs = N;
        Budget.FirstFreeSgpr = N + 3;
        BaseSgpr = std::max<int>(BaseSgpr, N + 2);
      } else {
        unsigned V = Budget.FirstFreeVgpr;
        while (V < MaxVgprs && Clobbered.hasVgpr(V))
          ++V;
        if (V < MaxVgprs) {
          LongBranchRegs = 0;
          LongBranchLanes = V;
          Budget.FirstFreeVgpr = V + 1;
          BaseVgpr = std::max<int>(BaseVgpr, V);
        }
      }
    }
    if (NewLong && LongBranchRegs)
      continue;
    // The function of the first out-of-range branch is left out.
    if (!OutOfRange.empty())
      for (auto [Start, F] : Starts)
        if (Start <= OutOfRange.front())
          Failed = F;
    if (!Failed)
      return createStringError(Err);
    if (!Drop(Failed, "a branch is out of range once hooks are inserted, "
                      "and no registers are left for a long branch"))
      return createStringError(Err);
    Result.Kernels.clear();
    if (Kernels.empty())
      return std::move(Result);
  }

  jit::LinkOptions LO;
  LO.AllowUndefined = false;
  auto Linked = jit::linkObjects(ArrayRef(&*Obj, 1), LO);
  if (!Linked)
    return Linked.takeError();
  Result.Elf = std::move(*Linked);
  if (Error E = readAddressMap(Result))
    return std::move(E);
  return std::move(Result);
}

} // namespace

Expected<InstrumentedCodeObject>
instrumentCodeObject(const InstrumentationPlan &Plan,
                     ArrayRef<HookLibrary> Hooks,
                     const InstrumentOptions &Options) {
  Emitter E(Plan, Hooks, Options);
  return E.run();
}

} // namespace loom::instrument
