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
// Block modes count only what the host cannot work out, and not all of it
// with hooks: runs in loops in wave counters (SGPRs), the kernel's runs
// outside loops in once-per-wave counters (VGPR lanes) where that is
// cheaper, and an `if (i < n)` block not at all where it can be worked out
// from the lanes its waves lost (Loss). Counter::instrument says which.
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

#include "loom/instrument/ControlEquivalence.h"
#include "loom/instrument/Liveness.h"
#include "loom/instrument/RegisterBudget.h"
#include "loom/instrument/Tool.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
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

  /// Most waves a dispatch counted in a block mode may have: its packed
  /// words (CountSlots.h) are exact below 2^29 waves.
  static constexpr uint64_t PackedWaves =
      (uint64_t(1) << (64 - LOOM_COUNT_WAVE_SHIFT)) - 1;

  /// The choice for dispatch \p D: instrumented if \p O wants it and, in
  /// a block mode \p M, it has at most maxWaves() waves (beyond, it runs
  /// its original code, uncounted, and a line of \p Tool's says so). Each
  /// of the dispatches of one kernel running at once (on several queues)
  /// gets a copy of its own, with slots of its own (a configuration each:
  /// the first copy, then a second while the first runs, ...), up to
  /// MaxConcurrent; beyond, the dispatch runs its original code, uncounted,
  /// and a line of \p Tool's says so.
  instrument::DispatchChoice choose(const ToolOptions &O,
                                    const instrument::Dispatch &D,
                                    llvm::StringRef Tool, CountMode M) {
    if (!O.wants(D))
      return instrument::DispatchChoice::original();
    if (M != CountMode::Instruction && D.waves() > MaxWaves) {
      llvm::errs() << Tool << ": dispatch " << D.Index << " " << D.Kernel
                   << " has " << D.waves() << " waves, more than the "
                   << MaxWaves
                   << " block counting counts exactly: not counted (running "
                      "the original code)\n";
      return instrument::DispatchChoice::original();
    }
    std::lock_guard<std::mutex> L(Lock);
    std::map<uint64_t, uint64_t> &Copies = Running[D.KernelObject];
    for (uint64_t C = 0; C < MaxConcurrent; ++C)
      if (Copies.try_emplace(C, D.Index).second) {
        ConfigurationOf[D.Index] = C;
        return instrument::DispatchChoice::instrumented(C);
      }
    llvm::errs() << Tool << ": dispatch " << D.Index << " " << D.Kernel
                 << " runs while " << MaxConcurrent
                 << " dispatches of the same kernel do: not counted (running "
                    "the original code)\n";
    return instrument::DispatchChoice::original();
  }
  /// Lowers the most waves a block-mode dispatch may have (tests: the
  /// max-waves= option) to \p N; at most PackedWaves.
  void setMaxWaves(uint64_t N) { MaxWaves = std::min(N, PackedWaves); }
  uint64_t maxWaves() const { return MaxWaves; }

  /// Ends what choose() started for \p D (take() does it too).
  void release(const instrument::Dispatch &D) {
    std::lock_guard<std::mutex> L(Lock);
    auto C = ConfigurationOf.find(D.Index);
    if (C == ConfigurationOf.end())
      return;
    Running[D.KernelObject].erase(C->second);
    ConfigurationOf.erase(C);
  }

  /// Adds the hooks to \p K.
  llvm::Error instrument(instrument::KernelInstrumentation &K, CountMode M) {
    using namespace instrument;
    Kernel Plan;
    PointList Points;
    std::vector<Loss> Losses;
    const isa::McContext &MC = K.context().mc();
    // Block modes ask only for what the host cannot work out: a class of
    // blocks that run equally often (ControlEquivalence) is counted at one
    // of them, the kernel's blocks that run once per wave not at all, and
    // only runs with vector instructions count lanes, once per class and
    // EXEC value (Liveness's EXEC names): none where EXEC holds every lane
    // (whole-wave code) or, in a kernel's once-per-wave runs, the lanes it
    // started with (the dispatch's work-items).
    std::vector<bool> CountsVector; // per slot: has vector instructions
    std::vector<bool> InLoop;       // per slot: its block is in a loop
    // Per slot in a loop whose EXEC is the same in every iteration: that
    // loop (invariantLoop).
    std::vector<InvariantLoop> Loop;
    // Per slot: the name of the EXEC it runs under, where known.
    std::vector<std::optional<unsigned>> ExecOf;
    // Device functions whose entries are worked out from their calls
    // (derivableCallees); per slot, whether it calls one; per such
    // function, its first slot and whether its entry runs once a call.
    std::set<const BinaryFunction *> FromCalls;
    if (M != CountMode::Instruction)
      FromCalls = derivableCallees(K);
    const CallGraph &Calls = K.context().callGraph();
    std::vector<bool> CallsOut;
    std::map<uint64_t, size_t> SlotOfCall;
    std::map<const BinaryFunction *, std::pair<size_t, bool>> EntryOf;
    for (BinaryFunction *F : K.functions()) {
      std::optional<ControlEquivalence> Classes;
      if (M != CountMode::Instruction)
        Classes.emplace(*F);
      // Per class, the slot counting its waves (its representative's first
      // run), filled as the representatives are met.
      std::vector<size_t> ClassSlot(Classes ? Classes->numClasses() : 0,
                                    Kernel::None);
      size_t FirstSlot = Plan.Slots.size();
      llvm::ArrayRef<BinaryBasicBlock> Blocks = F->blocks();
      for (unsigned BI = 0; BI < Blocks.size(); ++BI) {
        const BinaryBasicBlock &B = Blocks[BI];
        size_t BlockSlot = Plan.Slots.size();
        Plan.Blocks.push_back({blockName(*F, B), BlockSlot});
        if (Classes && Classes->representative(Classes->classOf(BI)) == BI)
          ClassSlot[Classes->classOf(BI)] = BlockSlot;
        for (size_t I = 0; I < B.Instructions.size(); ++I) {
          const BinaryInstruction &Inst = B.Instructions[I];
          bool Starts = M == CountMode::Instruction || I == 0 ||
                        (M == CountMode::Block &&
                         B.Instructions[I - 1].Props.writesExec());
          if (Starts) {
            Plan.WavesOf.push_back(Plan.Slots.size());
            Plan.LanesOf.push_back(Plan.Slots.size());
            Plan.Times.push_back(1);
            Plan.Slots.emplace_back();
            Points.push_back({F, &Inst});
            CountsVector.push_back(false);
            InLoop.push_back(false);
            Loop.emplace_back();
            ExecOf.emplace_back();
            CallsOut.push_back(false);
          }
          if (Inst.Props.isCall())
            if (const CallSite *C = Calls.siteAt(Inst.address());
                C && FromCalls.count(C->Callee)) {
              SlotOfCall[Inst.address()] = Plan.Slots.size() - 1;
              CallsOut.back() = true;
            }
          Plan.Slots.back().push_back(Plan.Instructions.size());
          Plan.Instructions.push_back(
              {operationName(MC, Inst.Inst.getOpcode()), Inst.Props.IsVector});
          if (Inst.Props.IsVector)
            CountsVector.back() = true;
        }
      }
      if (!Classes)
        continue;
      EntryOf[F] = {FirstSlot,
                    Classes->runsOncePerCall(Classes->classOf(0))};
      // Every run of the function takes its waves from its class's slot, or
      // from the dispatch, and its lanes from the first run of its class
      // with the same EXEC, or from what EXEC is known to hold.
      bool IsKernel = F->isKernel();
      const FunctionLiveness *Live = K.liveness().of(*F);
      std::map<std::pair<unsigned, unsigned>, size_t> LanesCounted;
      std::map<unsigned, InvariantLoop> LoopAt; // by block
      for (size_t S = FirstSlot; S < Plan.Slots.size(); ++S) {
        const BinaryInstruction *Inst = Points[S].second;
        unsigned BI = *F->blockContaining(Inst->address());
        unsigned C = Classes->classOf(BI);
        bool Once = IsKernel && Classes->runsOncePerCall(C);
        Plan.WavesOf[S] = Once ? Kernel::DispatchWaves : ClassSlot[C];
        InLoop[S] = Classes->inLoop(BI);
        if (InLoop[S]) {
          auto [It, New] = LoopAt.try_emplace(BI);
          if (New)
            It->second = invariantLoop(*F, *Classes, Live, BI);
          Loop[S] = It->second;
        }
        std::optional<unsigned> &Exec = ExecOf[S];
        if (Live)
          Exec = Live->execName(BI, Inst - Blocks[BI].Instructions.data());
        if (Exec == FunctionLiveness::ExecAllLanes)
          Plan.LanesOf[S] = Kernel::EveryLane;
        else if (Once && Exec == FunctionLiveness::ExecAtEntry)
          Plan.LanesOf[S] = Kernel::WorkItemLanes;
        else if (Exec && (CountsVector[S] || CallsOut[S]))
          Plan.LanesOf[S] = LanesCounted.try_emplace({C, *Exec}, S).first->second;
        // A call's lanes are its callee's at entry: counted here if
        // nothing else counts them.
        if (CallsOut[S] && Plan.LanesOf[S] == S)
          CountsVector[S] = true;
      }
      // A loop of one block with a trip count the code fixes: its waves and
      // lanes are the block before's, times the trips.
      for (size_t S = FirstSlot; S < Points.size(); ++S) {
        const BinaryInstruction *Inst = Points[S].second;
        unsigned BI = *F->blockContaining(Inst->address());
        if (!InLoop[S] || Inst != Blocks[BI].Instructions.data())
          continue;
        std::optional<std::pair<unsigned, uint64_t>> Trips =
            fixedTrips(MC, *F, BI);
        if (!Trips)
          continue;
        const BinaryBasicBlock &P = Blocks[Trips->first];
        size_t PS = S;
        while (PS > FirstSlot && Points[PS].second->address() > P.last().address())
          --PS;
        if (*F->blockContaining(Points[PS].second->address()) != Trips->first)
          continue;
        Plan.WavesOf[S] = Plan.WavesOf[PS];
        Plan.LanesOf[S] = Plan.LanesOf[PS];
        Plan.Times[S] = Trips->second;
        if (CountsVector[S] && Plan.LanesOf[PS] < Points.size())
          CountsVector[Plan.LanesOf[PS]] = true; // counts the lanes for both
      }
      if (IsKernel && Live)
        findLosses(MC, *F, *Live, Points, FirstSlot, Plan, Losses);
    }
    // A derivable callee's entry class: its waves are its calls', and its
    // lanes under the EXEC it was called with theirs.
    Plan.Calls.assign(Points.size(), {});
    for (const BinaryFunction *F : FromCalls) {
      auto It = EntryOf.find(F);
      if (It == EntryOf.end() || !It->second.second)
        continue;
      size_t E = It->second.first;
      std::vector<size_t> Sites;
      for (const CallSite *C : Calls.callsTo(*F))
        if (auto At = SlotOfCall.find(C->Address); At != SlotOfCall.end())
          Sites.push_back(At->second);
      if (Sites.empty() || Plan.WavesOf[E] != E)
        continue;
      size_t End = E;
      while (End < Points.size() && Points[End].first == F)
        ++End;
      std::set<size_t> EntryLanes; // the slots counting them until now
      for (size_t S = E; S < End; ++S)
        if (Plan.WavesOf[S] == E &&
            ExecOf[S] == FunctionLiveness::ExecAtEntry &&
            Plan.LanesOf[S] < Points.size())
          EntryLanes.insert(Plan.LanesOf[S]);
      for (size_t S = E; S < End; ++S)
        if (EntryLanes.count(Plan.LanesOf[S]))
          Plan.LanesOf[S] = E;
      Plan.Calls[E] = std::move(Sites);
    }
    // What each slot counts.
    std::vector<bool> Waves(Points.size()), Lanes(Points.size());
    Plan.Lost.assign(Points.size(), Kernel::None);
    for (size_t L = 0; L < Losses.size(); ++L)
      Plan.Lost[Losses[L].Slot] = L;
    for (size_t S = 0; S < Points.size(); ++S) {
      bool Derived = Plan.Lost[S] != Kernel::None || !Plan.Calls[S].empty();
      Waves[S] = M == CountMode::Instruction ||
                 (Plan.WavesOf[S] == S && !Derived);
      Lanes[S] = M == CountMode::Instruction ||
                 (M != CountMode::BlockEntry && CountsVector[S] &&
                  Plan.LanesOf[S] == S && !Derived);
    }
    // Block modes count slots in loops in wave counters (SGPRs: two or
    // three scalar instructions a count, no memory), as many as fit; the
    // rest with hooks (scalar atomics at each count). A counter costs two
    // more per wave (zeroed at the start, flushed at the end), more than
    // a hook where the slot runs once or never.
    //
    // A slot's lanes in a loop whose EXEC is the same in every iteration
    // need no add an iteration: they are its class's runs times EXEC's
    // lanes. Where a kernel enters the loop at most once per wave (from
    // one block outside loops), the lanes are taken where it enters (one
    // s_bcnt1 an entry, one SGPR a loop) and multiplied by the runs at the
    // flush (two instructions a wave); elsewhere the runs since the last
    // fold are folded in where the loop is left (seven instructions an
    // exit; one SGPR, the mark, and two for the folds' temporaries). An
    // iteration saves three (s_bcnt1, s_add, s_addc).
    std::vector<bool> InRegisters(Points.size()), Folded(Points.size());
    std::set<std::pair<const BinaryFunction *, unsigned>> Entered;
    if (M != CountMode::Instruction) {
      unsigned Spare = K.spareSgprs();
      for (size_t S = 0; S < Points.size(); ++S) {
        unsigned Need = 2 * (Waves[S] + Lanes[S]);
        if (InLoop[S] && Need && Need <= Spare) {
          InRegisters[S] = true;
          Spare -= Need;
        }
      }
      bool Temps = false;
      for (size_t S = 0; S < Points.size(); ++S) {
        size_t W = Plan.WavesOf[S];
        const InvariantLoop &L = Loop[S];
        if (!InRegisters[S] || !Lanes[S] || L.Exits.empty() ||
            W >= Points.size() || !InRegisters[W] || !Waves[W])
          continue;
        if (L.Exec && ExecOf[S] != L.Exec)
          continue; // under an EXEC of the body's own
        bool NewLoop = !Entered.count({Points[S].first, L.Header});
        unsigned Need = L.Entry ? NewLoop : Temps ? 1 : 3;
        if (Need > Spare)
          continue;
        Folded[S] = true;
        Spare -= Need;
        if (L.Entry)
          Entered.insert({Points[S].first, L.Header});
        else
          Temps = true;
      }
    }
    // The other loop slots' lanes (EXEC changing in the loop) per lane, in
    // a VGPR pair (WaveCounter::InVgpr): one v_add_u32 an iteration, each
    // lane active adding 1, against three scalar instructions; about six
    // more a wave (zeroing, the flush's vector atomic), while VGPRs last.
    std::vector<bool> PerLaneVgpr(Points.size());
    unsigned SpareVgprs = K.spareVgprs();
    if (M != CountMode::Instruction)
      for (size_t S = 0; S < Points.size(); ++S)
        if (InRegisters[S] && Lanes[S] && !Folded[S] && SpareVgprs >= 2) {
          PerLaneVgpr[S] = true;
          SpareVgprs -= 2;
        }
    // The kernel's runs outside loops, which a wave passes at most once,
    // in once-per-wave counters (lanes of VGPRs, one vector atomic a wave
    // for all) where that beats their hooks (onceInLanes).
    std::vector<bool> InLanes = onceInLanes(K, M, Points, InLoop, InRegisters,
                                            Waves, Lanes, SpareVgprs);
    // Words: two per slot (waves, lanes), then the once-per-wave counters',
    // one each, in a run.
    size_t Records = 0;
    Plan.WaveWord.resize(Points.size());
    Plan.LaneWord.resize(Points.size());
    for (size_t S = 0; S < Points.size(); ++S) {
      Plan.WaveWord[S] = InLanes[S] && Waves[S] ? 2 * Points.size() + Records++
                                                : 2 * S;
      Plan.LaneWord[S] = InLanes[S] && Lanes[S] ? 2 * Points.size() + Records++
                                                : 2 * S + 1;
    }
    // Then each loss's pair: its waves that skipped, its lanes lost.
    size_t LossWords = 2 * Points.size() + Records;
    if (M == CountMode::Instruction)
      Losses.clear(), Plan.Lost.assign(Points.size(), Kernel::None);
    Plan.LostWord.clear();
    for (size_t L = 0; L < Losses.size(); ++L)
      Plan.LostWord.push_back(LossWords + 2 * L);
    Plan.SlotCount = Points.size() + (Records + 2 * Losses.size() + 1) / 2;
    llvm::Expected<uint64_t> Base =
        Slots.allocate(K.kernel().name(), Plan.SlotCount);
    if (!Base)
      return Base.takeError();
    Plan.Base = *Base;
    std::vector<unsigned> TallyOf(Points.size()); // per slot: waves' counter
    Plan.Packed.assign(Points.size(), false);
    for (size_t S = 0; S < Points.size(); ++S) {
      auto [F, Inst] = Points[S];
      const BinaryBasicBlock &B = F->blocks()[*F->blockContaining(
          Inst->address())];
      bool AtEntry = Inst->address() == B.Address && M != CountMode::Instruction;
      uint64_t Offset = (Plan.Base + S) * 16;
      if (InRegisters[S] || InLanes[S]) {
        for (bool PerLane : {false, true}) {
          if (!(PerLane ? Lanes[S] : Waves[S]))
            continue;
          if (PerLane && Folded[S])
            continue; // at the loop's exits, below
          size_t Word = PerLane ? Plan.LaneWord[S] : Plan.WaveWord[S];
          // A wave's runs of a loop class fit 32 bits: its waves' counter
          // is narrow (one s_add_u32 a run). Lanes, up to 64 a run, not.
          unsigned Counter = K.plan().waveCounter(
              "LoomCounts", Plan.Base * 16 + Word * 8, InLanes[S],
              InRegisters[S] && !PerLane);
          if (PerLane && PerLaneVgpr[S])
            K.plan().counter(Counter).InVgpr = true;
          if (!PerLane)
            TallyOf[S] = Counter;
          CounterAdd A{Counter, 1, PerLane, std::nullopt, false};
          if (llvm::Error E = AtEntry ? K.plan().countAtBlockEntry(*F, B, A)
                                      : K.plan().countBefore(*F, *Inst, A))
            return E;
        }
        continue;
      }
      // A wave passes a kernel's runs outside loops at most once: its
      // wave and lanes go in one word, one atomic (CountSlots.h).
      Plan.Packed[S] = Waves[S] && Lanes[S] && !InLoop[S] &&
                       M != CountMode::Instruction && F == &K.kernel();
      const char *Hook = Plan.Packed[S]       ? "loom_count_once"
                         : Waves[S] && Lanes[S] ? "loom_count"
                         : Waves[S]           ? "loom_count_waves"
                         : Lanes[S]           ? "loom_count_lanes"
                                              : nullptr;
      if (!Hook)
        continue;
      std::vector<HookArg> Args{HookArg::globalAddress("LoomCounts", Offset)};
      if (llvm::Error E = AtEntry ? K.plan().atBlockEntry(*F, B, Hook, Args)
                                  : K.plan().before(*F, *Inst, Hook, Args))
        return E;
    }
    // Lanes of invariant loops, once every tally has its counter (a
    // class's waves are counted at its representative's slot, which may
    // come after).
    std::map<std::pair<const BinaryFunction *, unsigned>, unsigned> LanesAt;
    for (size_t S = 0; S < Points.size(); ++S) {
      if (!Folded[S])
        continue;
      const BinaryFunction &F = *Points[S].first;
      const InvariantLoop &L = Loop[S];
      unsigned Tally = TallyOf[Plan.WavesOf[S]];
      uint64_t Offset = Plan.Base * 16 + Plan.LaneWord[S] * 8;
      if (L.Entry) {
        auto [It, New] = LanesAt.try_emplace({&F, L.Header});
        if (New) {
          It->second = K.plan().waveCounter("", 0, false, true);
          K.plan().counter(It->second).NoZero = true;
          CounterAdd A{It->second, 1, true, std::nullopt, /*Set=*/true};
          if (llvm::Error E = K.plan().countBefore(F, *L.Entry, A))
            return E;
        }
        K.plan().productCounter("LoomCounts", Offset, Tally, It->second);
        continue;
      }
      CounterFold Since{Tally, K.plan().waveCounter("", 0, false, true)};
      CounterAdd A{K.plan().waveCounter("LoomCounts", Offset), 1, true, Since,
                   false};
      for (unsigned X : L.Exits)
        if (llvm::Error E =
                K.plan().countAtBlockEntry(F, F.blocks()[X], A))
          return E;
    }
    for (size_t L = 0; L < Losses.size(); ++L) {
      const Loss &X = Losses[L];
      uint64_t Offset = (Plan.Base * 2 + Plan.LostWord[L]) * 8;
      // Block entries need the waves that skipped only, and take them from
      // the same call: it runs on the few waves that cross the bound.
      std::vector<HookArg> Args{HookArg::globalAddress("LoomCounts", Offset)};
      for (unsigned Half : {0, 1})
        Args.push_back(HookArg::sgpr(X.Saved + Half));
      // The pair is the wave's first EXEC, never empty: the guard skips
      // the s_cbranch_execz too on waves that lost no lane.
      if (llvm::Error E = K.plan().beforeUnlessExecIs(
              K.kernel(), *X.Branch, X.Saved,
              "loom_count_lost", std::move(Args), /*PairNeverZero=*/true))
        return E;
    }
    // By kernel object (the corpus has a kernel of one name in a code
    // object per optimisation level) and copy, each with its own slots.
    std::lock_guard<std::mutex> L(Lock);
    Kernels[{K.kernelObject(), K.configuration()}] = std::move(Plan);
    return llvm::Error::success();
  }

  /// The counts of dispatch \p D (an instrumented one), read from the
  /// device and zeroed there.
  llvm::Expected<DispatchCounts> take(instrument::ToolContext &Ctx,
                                      const instrument::Dispatch &D) {
    const Kernel *Found = nullptr;
    {
      std::lock_guard<std::mutex> L(Lock);
      auto C = ConfigurationOf.find(D.Index);
      if (C != ConfigurationOf.end()) {
        auto It = Kernels.find({D.KernelObject, C->second});
        if (It != Kernels.end())
          Found = &It->second;
      }
    }
    if (!Found) {
      release(D);
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "%s was not instrumented by this tool",
                                     D.Kernel.c_str());
    }
    const Kernel &Plan = *Found;
    std::vector<uint64_t> Raw;
    llvm::Error E = Slots.take(Ctx, D.Agent, Plan.Base, Plan.SlotCount, Raw);
    release(D);
    if (E)
      return std::move(E);
    // Packed words (a wave's runs at most once a dispatch, the losses):
    // waves into the first word, lanes into the second.
    auto unpack = [&](size_t Word) {
      Raw[Word + 1] = Raw[Word] & ((uint64_t(1) << LOOM_COUNT_WAVE_SHIFT) - 1);
      Raw[Word] >>= LOOM_COUNT_WAVE_SHIFT;
    };
    for (size_t S = 0; S < Plan.Packed.size(); ++S)
      if (Plan.Packed[S])
        unpack(Plan.WaveWord[S]);
    for (size_t W : Plan.LostWord)
      unpack(W);
    DispatchCounts C;
    const uint64_t Waves = D.waves(), WorkItems = D.workItems();
    constexpr uint64_t WaveSize = 64; // gfx9
    // A device function's entry adds up its calls (Kernel::Calls), whose
    // counts may be added up too: each slot's worked out once.
    std::vector<std::optional<uint64_t>> WavesMemo(Plan.Slots.size()),
        LanesMemo(Plan.Slots.size());
    std::function<uint64_t(size_t)> wavesOf, runsOf, lanesOf;
    // The waves counted at (or worked out for) slot Slot.
    wavesOf = [&](size_t Slot) -> uint64_t {
      if (Slot == Kernel::DispatchWaves)
        return Waves;
      if (size_t L = Plan.Lost[Slot]; L != Kernel::None)
        return Waves - Raw[Plan.LostWord[L]];
      if (Plan.Calls[Slot].empty())
        return Raw[Plan.WaveWord[Slot]];
      if (!WavesMemo[Slot]) {
        uint64_t Sum = 0;
        for (size_t Call : Plan.Calls[Slot])
          Sum += runsOf(Call);
        WavesMemo[Slot] = Sum;
      }
      return *WavesMemo[Slot];
    };
    // How often slot S ran, and its lanes: what its instructions count.
    runsOf = [&](size_t S) { return wavesOf(Plan.WavesOf[S]) * Plan.Times[S]; };
    lanesOf = [&](size_t S) -> uint64_t {
      size_t L = Plan.LanesOf[S];
      if (L == Kernel::EveryLane)
        return runsOf(S) * WaveSize;
      if (L == Kernel::WorkItemLanes)
        return WorkItems * Plan.Times[S];
      if (Plan.Lost[L] != Kernel::None)
        return (WorkItems - Raw[Plan.LostWord[Plan.Lost[L]] + 1]) *
               Plan.Times[S];
      if (Plan.Calls[L].empty())
        return Raw[Plan.LaneWord[L]] * Plan.Times[S];
      if (!LanesMemo[L]) {
        uint64_t Sum = 0;
        for (size_t Call : Plan.Calls[L])
          Sum += lanesOf(Call);
        LanesMemo[L] = Sum;
      }
      return *LanesMemo[L] * Plan.Times[S];
    };
    for (size_t S = 0; S < Plan.Slots.size(); ++S) {
      uint64_t W = runsOf(S);
      if (!W) // as the counters, only what ran
        continue;
      bool AnyVector = false;
      for (uint32_t I : Plan.Slots[S])
        AnyVector |= Plan.Instructions[I].second;
      uint64_t Lanes = AnyVector ? lanesOf(S) : 0;
      for (uint32_t I : Plan.Slots[S]) {
        const auto &[Name, Vector] = Plan.Instructions[I];
        WavesLanes &O = C.Opcodes[Name];
        O.first += W;
        C.WaveInstructions += W;
        if (Vector) {
          O.second += Lanes;
          C.LaneInstructions += Lanes;
        }
      }
    }
    for (const auto &[Name, Slot] : Plan.Blocks)
      C.Blocks[Name] += runsOf(Slot);
    return C;
  }

private:
  /// How often each block of \p F runs per call, roughly, for choosing
  /// between ways of counting: 1 at the entry, split evenly between a
  /// conditional branch's ways, except that the skip of an s_cbranch_execz
  /// (taken only by a wave whose lanes all left) is taken as never.
  /// Forward edges only (blocks in address order); after a loop, what
  /// leaves it.
  static std::vector<double> blockRuns(const isa::McContext &MC,
                                       const instrument::BinaryFunction &F) {
    llvm::ArrayRef<instrument::BinaryBasicBlock> Blocks = F.blocks();
    std::vector<double> Runs(Blocks.size());
    if (Blocks.empty())
      return Runs;
    Runs[0] = 1;
    for (unsigned B = 0; B < Blocks.size(); ++B) {
      const instrument::BinaryBasicBlock &Block = Blocks[B];
      unsigned Forward = 0;
      for (unsigned S : Block.Successors)
        Forward += S > B;
      if (!Forward)
        continue;
      bool SkipsEmpty = !Block.Instructions.empty() &&
                        MC.opcodeBaseName(Block.last().Inst.getOpcode()) ==
                            "S_CBRANCH_EXECZ";
      for (unsigned S : Block.Successors) {
        if (S <= B)
          continue;
        bool Skip = SkipsEmpty && Block.last().Info.Target &&
                    Blocks[S].Address == *Block.last().Info.Target;
        Runs[S] += SkipsEmpty ? (Skip ? 0 : Runs[B]) : Runs[B] / Forward;
      }
    }
    return Runs;
  }

  /// The device functions of \p K whose entries the host can add up from
  /// their calls: every call of one is a direct call (not a tail call)
  /// from a function of the kernel, none of them in a cycle of calls, and
  /// no call in the kernel's functions goes where the code does not say
  /// (it might reach them). A call passes its EXEC on: the callee's
  /// lanes at entry are the call's.
  static std::set<const instrument::BinaryFunction *>
  derivableCallees(const instrument::KernelInstrumentation &K) {
    const instrument::CallGraph &Calls = K.context().callGraph();
    std::vector<instrument::BinaryFunction *> Functions = K.functions();
    std::set<const instrument::BinaryFunction *> Ours(Functions.begin(),
                                                      Functions.end()),
        Out;
    for (const instrument::BinaryFunction *F : Functions)
      for (const instrument::CallSite *C : Calls.callsFrom(*F))
        if (C->isUnknown())
          return {};
    for (const instrument::BinaryFunction *F : Functions) {
      if (F->isKernel())
        continue;
      bool Derivable = true;
      for (const instrument::CallSite *C : Calls.callsTo(*F))
        Derivable &= !Ours.count(C->Caller) || !C->IsTailCall;
      for (const instrument::BinaryFunction *G : Calls.reachableFrom(*F))
        for (const instrument::CallSite *C : Calls.callsFrom(*G))
          Derivable &= C->Callee != F; // a cycle through F
      if (Derivable)
        Out.insert(F);
    }
    return Out;
  }

  /// A loop whose EXEC is the same in every iteration: no instruction of
  /// its body calls, returns or ends the program, it branches only to known
  /// blocks, and none writes EXEC, or those that do give it back: the
  /// header's EXEC has a name (Liveness: every way into the header brings
  /// the same EXEC) that EXEC has again wherever the loop is left (-O0's
  /// whole-wave spills, `s_or_saveexec_b64 s[N:N+1], -1` ... `s_mov_b64
  /// exec, s[N:N+1]`, in loops).
  struct InvariantLoop {
    unsigned Header = 0;
    /// Where the body writes EXEC: the header's EXEC's name, the one a
    /// slot must run under for its lanes to be the loop's.
    std::optional<unsigned> Exec;
    /// The blocks it is left to: EXEC at their entries, from the loop, is
    /// the loop's. Empty: no such loop.
    std::vector<unsigned> Exits;
    /// Where a kernel's wave enters it at most once, with the loop's EXEC:
    /// before the last instruction of its one predecessor outside it, a
    /// block in no loop (the last a branch, or writing no EXEC); or null.
    const instrument::BinaryInstruction *Entry = nullptr;
  };
  /// The outermost such loop around block \p BI of \p F (\p Live: its
  /// liveness, for EXEC's names; one whose body writes EXEC only where
  /// some of BI runs under the header's EXEC).
  static InvariantLoop
  invariantLoop(const instrument::BinaryFunction &F,
                const instrument::ControlEquivalence &Classes,
                const instrument::FunctionLiveness *Live, unsigned BI) {
    llvm::ArrayRef<instrument::BinaryBasicBlock> Blocks = F.blocks();
    InvariantLoop Best;
    std::vector<unsigned> BestBody;
    for (unsigned H : Classes.loopsOf(BI).set_bits()) {
      std::vector<unsigned> Body = Classes.loopBody(H);
      if (Body.size() <= BestBody.size())
        continue;
      std::vector<bool> In(Blocks.size());
      for (unsigned B : Body)
        In[B] = true;
      bool Invariant = true, WritesExec = false;
      std::vector<unsigned> Exits;
      for (unsigned B : Body) {
        const instrument::BinaryBasicBlock &Block = Blocks[B];
        if (Block.Successors.empty())
          Invariant = false;
        for (const instrument::BinaryInstruction &I : Block.Instructions) {
          WritesExec |= I.Props.writesExec();
          if (I.Props.isCall() || I.Props.isReturn() ||
              I.Props.isEndProgram() ||
              I.Props.Flow == isa::ControlFlow::IndirectBranch)
            Invariant = false;
        }
        for (unsigned X : Block.Successors)
          if (!In[X] && std::find(Exits.begin(), Exits.end(), X) == Exits.end())
            Exits.push_back(X);
      }
      std::optional<unsigned> Exec;
      if (Invariant && WritesExec) {
        // EXEC given back: the header's name where it is left, and in BI
        // somewhere (or an inner loop of BI's under an EXEC of its own is
        // the better choice).
        if (Live)
          Exec = Live->execName(H, 0);
        bool InBI = false;
        for (unsigned K = 0; Exec && K < Blocks[BI].Instructions.size(); ++K)
          InBI |= Live->execName(BI, K) == Exec;
        if (!Exec || *Exec == instrument::FunctionLiveness::ExecAllLanes ||
            !InBI)
          Invariant = false;
        for (unsigned B : Body) {
          const instrument::BinaryBasicBlock &Block = Blocks[B];
          bool Leaves = llvm::any_of(Block.Successors,
                                     [&](unsigned X) { return !In[X]; });
          if (Invariant && Leaves &&
              (Block.Instructions.empty() || Block.last().Props.writesExec() ||
               Live->execName(B, Block.Instructions.size() - 1) != Exec))
            Invariant = false;
        }
      }
      if (Invariant && !Exits.empty()) {
        Best.Header = H;
        Best.Exits = std::move(Exits);
        Best.Exec = Exec;
        BestBody = std::move(Body);
      }
    }
    if (Best.Exits.empty() || !F.isKernel())
      return Best;
    std::vector<unsigned> Outside;
    for (unsigned P : Blocks[Best.Header].Predecessors)
      if (!Classes.loopsOf(P).test(Best.Header))
        Outside.push_back(P);
    if (Outside.size() != 1 || Classes.inLoop(Outside[0]) ||
        Blocks[Outside[0]].Instructions.empty())
      return Best;
    const instrument::BinaryInstruction &Last = Blocks[Outside[0]].last();
    if (Last.Props.isBranch() || !Last.Props.writesExec())
      Best.Entry = &Last;
    return Best;
  }

  /// A loop of block \p BI alone whose trips the code fixes: the block
  /// P before it, its one predecessor besides itself, always enters it
  /// and last sets an SGPR sI to a constant (s_mov_b32, s_movk_i32); the
  /// loop adds a constant to sI once (s_add_i32, s_add_u32, s_sub_i32),
  /// writes it nowhere else, and branches back on SCC from its last
  /// compare of sI with a constant; no EXEC write, call or end in it. The
  /// trips are found by running those three on the host (at most 2^20).
  /// Every entry then runs the block that many times under P's last EXEC:
  /// (P, trips), or none.
  static std::optional<std::pair<unsigned, uint64_t>>
  fixedTrips(const isa::McContext &MC, const instrument::BinaryFunction &F,
             unsigned BI) {
    llvm::ArrayRef<instrument::BinaryBasicBlock> Blocks = F.blocks();
    const instrument::BinaryBasicBlock &B = Blocks[BI];
    if (B.Predecessors.size() != 2 || B.Instructions.size() < 3)
      return std::nullopt;
    unsigned P = B.Predecessors[0] == BI ? B.Predecessors[1]
                                         : B.Predecessors[0];
    if (P == BI || Blocks[P].Successors.size() != 1 ||
        Blocks[P].Instructions.empty() || Blocks[P].last().Props.writesExec())
      return std::nullopt;
    const instrument::BinaryInstruction &Branch = B.last();
    llvm::StringRef BranchOp = MC.opcodeBaseName(Branch.Inst.getOpcode());
    bool OnScc1 = BranchOp == "S_CBRANCH_SCC1";
    if ((!OnScc1 && BranchOp != "S_CBRANCH_SCC0") || !Branch.Info.Target ||
        *Branch.Info.Target != B.Address)
      return std::nullopt;
    auto Sgpr = [&](const llvm::MCOperand &O) -> std::optional<unsigned> {
      if (!O.isReg())
        return std::nullopt;
      std::optional<unsigned> C = MC.scalarCode(O.getReg().id());
      if (C && *C < instrument::MaxSgprs)
        return C;
      return std::nullopt;
    };
    // The compare: the last SCC writer.
    size_t N = B.Instructions.size(), Cmp = N;
    for (size_t I = N - 1; I-- > 0;)
      if (B.Instructions[I].Props.Writes.has(instrument::SpecialReg::Scc)) {
        Cmp = I;
        break;
      }
    if (Cmp == N)
      return std::nullopt;
    const llvm::MCInst &CmpInst = B.Instructions[Cmp].Inst;
    llvm::StringRef CmpOp = MC.opcodeBaseName(CmpInst.getOpcode());
    if (!CmpOp.starts_with("S_CMP_") || CmpInst.getNumOperands() != 2)
      return std::nullopt;
    bool Swapped = !CmpInst.getOperand(0).isReg();
    std::optional<unsigned> Var = Sgpr(CmpInst.getOperand(Swapped ? 1 : 0));
    const llvm::MCOperand &Bound = CmpInst.getOperand(Swapped ? 0 : 1);
    if (!Var || !Bound.isImm())
      return std::nullopt;
    // The step: sI's one writer in the loop.
    size_t Step = N;
    for (size_t I = 0; I < N; ++I) {
      const instrument::BinaryInstruction &X = B.Instructions[I];
      if (X.Props.writesExec() || X.Props.isCall() || X.Props.isReturn() ||
          X.Props.isEndProgram())
        return std::nullopt;
      if (!X.Props.Writes.hasSgpr(*Var))
        continue;
      if (Step != N)
        return std::nullopt;
      Step = I;
    }
    if (Step == N)
      return std::nullopt;
    const llvm::MCInst &StepInst = B.Instructions[Step].Inst;
    llvm::StringRef StepOp = MC.opcodeBaseName(StepInst.getOpcode());
    if ((StepOp != "S_ADD_I32" && StepOp != "S_ADD_U32" &&
         StepOp != "S_SUB_I32") ||
        StepInst.getNumOperands() != 3 || Sgpr(StepInst.getOperand(0)) != Var ||
        Sgpr(StepInst.getOperand(1)) != Var || !StepInst.getOperand(2).isImm())
      return std::nullopt;
    int64_t By = StepInst.getOperand(2).getImm();
    if (StepOp == "S_SUB_I32")
      By = -By;
    // Its value entering: P's last writer of it.
    std::optional<int64_t> Start;
    llvm::ArrayRef<instrument::BinaryInstruction> PInsts =
        Blocks[P].Instructions;
    for (size_t I = PInsts.size(); I-- > 0;) {
      if (!PInsts[I].Props.Writes.hasSgpr(*Var))
        continue;
      const llvm::MCInst &Def = PInsts[I].Inst;
      llvm::StringRef Op = MC.opcodeBaseName(Def.getOpcode());
      if ((Op == "S_MOV_B32" || Op == "S_MOVK_I32") &&
          Def.getNumOperands() == 2 && Sgpr(Def.getOperand(0)) == Var &&
          Def.getOperand(1).isImm())
        Start = Def.getOperand(1).getImm();
      break;
    }
    if (!Start)
      return std::nullopt;
    // Run it: 32-bit values, the compare signed or not by its name.
    bool Signed = CmpOp.ends_with("_I32");
    if (!Signed && !CmpOp.ends_with("_U32"))
      return std::nullopt;
    llvm::StringRef Rel = CmpOp.drop_front(6).take_front(2);
    uint32_t I32 = uint32_t(*Start), K32 = uint32_t(Bound.getImm());
    for (uint64_t Trips = 1; Trips <= (1u << 20); ++Trips) {
      auto Compare = [&]() {
        int64_t A = Signed ? int64_t(int32_t(I32)) : int64_t(I32);
        int64_t K = Signed ? int64_t(int32_t(K32)) : int64_t(K32);
        if (Swapped)
          std::swap(A, K);
        return Rel == "EQ"   ? A == K
               : Rel == "LG" ? A != K
               : Rel == "LT" ? A < K
               : Rel == "LE" ? A <= K
               : Rel == "GT" ? A > K
                             : A >= K;
      };
      bool Scc = false;
      if (Step < Cmp) {
        I32 += uint32_t(By);
        Scc = Compare();
      } else {
        Scc = Compare();
        I32 += uint32_t(By);
      }
      if (Scc != OnScc1)
        return std::make_pair(P, Trips);
    }
    return std::nullopt;
  }

  /// Per slot: whether it counts in a once-per-wave counter. A kernel's
  /// slot outside loops runs at most once per wave; its hook costs a wave
  /// that runs it 6 to 8 instructions, a once-per-wave counter 1 to 3 (1
  /// for waves, 2 for lanes): 5 saved a run. The kernel then pays a fixed
  /// price every wave (zeroing the lanes, one vector atomic: about 14).
  /// Taken where the savings, weighed by how often the slots run
  /// (blockRuns), are twice that (the estimate is rough: on ROCclr's
  /// fillBufferAligned, whose uniform branches pick one of four paths, it
  /// finds 5 runs where waves take 2), and VGPRs allow.
  using PointList = std::vector<std::pair<const instrument::BinaryFunction *,
                                          const instrument::BinaryInstruction *>>;
  struct Kernel;

  /// A block B entered only from P, where P runs once per wave under the
  /// EXEC the wave started with and ends `s_and_saveexec_b64 sX, ...;
  /// s_cbranch_execz` skipping B: the `if (i < n)` at a kernel's top. The
  /// wave enters B unless no lane is left, with the lanes left. So B's
  /// waves are the dispatch's less the waves that skipped, and its lanes
  /// the work-items less the lanes lost (sX & ~EXEC): counted by a call
  /// before the branch on waves that lost lanes only (HookRequest::
  /// UnlessExecIs); the others pay no instruction where the guard can go
  /// before the s_and_saveexec_b64 (sX and SCC dead past the branch), one
  /// elsewhere (docs/instrument.md).
  struct Loss {
    size_t Slot;                                ///< B's first run
    const instrument::BinaryInstruction *Branch; ///< P's s_cbranch_execz
    unsigned Saved;                             ///< sX
  };
  /// Whether the s_and_saveexec_b64 at \p At of \p B takes VCC from a
  /// v_cmp of a VGPR with an SGPR: a bound (`i < n`), which few waves fall
  /// across, so the losses' call rarely runs. Against a constant (`tid ==
  /// 0`, `lane & 1`) most waves lose lanes, and the call (some 15
  /// instructions) would cost more than the block's own hook.
  static bool comparesWithScalar(const isa::McContext &MC,
                                 const instrument::BinaryBasicBlock &B,
                                 unsigned At) {
    const llvm::MCInst &Save = B.Instructions[At].Inst;
    if (Save.getNumOperands() < 2 || !Save.getOperand(1).isReg() ||
        MC.scalarCodes(Save.getOperand(1).getReg().id()) !=
            llvm::SmallVector<unsigned, 4>{isa::McContext::VccLoCode,
                                           isa::McContext::VccHiCode})
      return false;
    for (unsigned I = At; I-- > 0;) {
      const instrument::BinaryInstruction &Cmp = B.Instructions[I];
      if (!Cmp.Props.Writes.has(instrument::SpecialReg::VccLo))
        continue;
      if (!MC.opcodeBaseName(Cmp.Inst.getOpcode()).starts_with("V_CMP"))
        return false;
      // An SGPR the block sets to a constant (s_movk_i32 s2, 0x80) is a
      // constant.
      auto Constant = [&](unsigned Sgpr) {
        for (unsigned J = I; J-- > 0;) {
          const instrument::BinaryInstruction &Def = B.Instructions[J];
          if (!Def.Props.Writes.hasSgpr(Sgpr))
            continue;
          llvm::StringRef Op = MC.opcodeBaseName(Def.Inst.getOpcode());
          return (Op.starts_with("S_MOV") || Op.starts_with("S_MOVK")) &&
                 Def.Inst.getNumOperands() > 1 && Def.Inst.getOperand(1).isImm();
        }
        return false;
      };
      for (unsigned K = 0; K < Cmp.Inst.getNumOperands(); ++K) {
        const llvm::MCOperand &O = Cmp.Inst.getOperand(K);
        if (O.isReg())
          if (std::optional<unsigned> C = MC.scalarCode(O.getReg().id());
              C && *C < instrument::MaxSgprs && !Constant(*C))
            return true;
      }
      return false;
    }
    return false;
  }

  static void findLosses(const isa::McContext &MC,
                         const instrument::BinaryFunction &F,
                         const instrument::FunctionLiveness &Live,
                         const PointList &Points, size_t FirstSlot,
                         const Kernel &Plan, std::vector<Loss> &Out) {
    llvm::ArrayRef<instrument::BinaryBasicBlock> Blocks = F.blocks();
    for (size_t S = FirstSlot; S < Points.size(); ++S) {
      const instrument::BinaryInstruction *Entry = Points[S].second;
      std::optional<unsigned> BI = F.blockContaining(Entry->address());
      if (!BI || Blocks[*BI].Address != Entry->address() ||
          Plan.WavesOf[S] != S || Blocks[*BI].Predecessors.size() != 1)
        continue;
      unsigned P = Blocks[*BI].Predecessors[0];
      const instrument::BinaryBasicBlock &Pred = Blocks[P];
      size_t N = Pred.Instructions.size();
      if (N < 2 || P + 1 != *BI)
        continue;
      const instrument::BinaryInstruction &Branch = Pred.Instructions[N - 1];
      const instrument::BinaryInstruction &Save = Pred.Instructions[N - 2];
      if (MC.opcodeBaseName(Branch.Inst.getOpcode()) != "S_CBRANCH_EXECZ" ||
          MC.opcodeBaseName(Save.Inst.getOpcode()) != "S_AND_SAVEEXEC_B64" ||
          (Branch.Info.Target && *Branch.Info.Target == Blocks[*BI].Address))
        continue;
      if (!comparesWithScalar(MC, Pred, N - 2))
        continue;
      llvm::SmallVector<unsigned, 4> Pair =
          MC.scalarCodes(Save.Inst.getOperand(0).getReg().id());
      if (Pair.size() != 2 || Pair[0] % 2 || Pair[1] != Pair[0] + 1 ||
          Pair[0] >= instrument::MaxSgprs)
        continue;
      // P once per wave (its waves the dispatch's), under the wave's first
      // EXEC (never empty) before the s_and_saveexec; SCC free for the test.
      size_t PS = S;
      while (PS > FirstSlot &&
             *F.blockContaining(Points[PS].second->address()) != P)
        --PS;
      if (*F.blockContaining(Points[PS].second->address()) != P ||
          Plan.WavesOf[PS] != Kernel::DispatchWaves ||
          Live.execName(P, N - 2) != instrument::FunctionLiveness::ExecAtEntry ||
          Live.liveBefore(P, N - 1).has(instrument::SpecialReg::Scc))
        continue;
      Out.push_back({S, &Branch, Pair[0]});
    }
  }

  static std::vector<bool>
  onceInLanes(instrument::KernelInstrumentation &K, CountMode M,
              const PointList &Points, const std::vector<bool> &InLoop,
              const std::vector<bool> &InRegisters,
              const std::vector<bool> &Waves, const std::vector<bool> &Lanes,
              unsigned SpareVgprs) {
    constexpr unsigned SavedPerRun = 5, FixedCost = 14, PerVgprs = 64;
    std::vector<bool> InLanes(Points.size());
    if (M == CountMode::Instruction)
      return InLanes;
    const instrument::BinaryFunction &F = K.kernel();
    std::vector<double> Runs = blockRuns(K.context().mc(), F);
    double Saved = 0;
    unsigned Records = 0;
    for (size_t S = 0; S < Points.size(); ++S) {
      unsigned Need = Waves[S] + Lanes[S];
      if (!Need || InLoop[S] || InRegisters[S] || Points[S].first != &F)
        continue;
      InLanes[S] = true;
      Records += Need;
      Saved += Runs[*F.blockContaining(Points[S].second->address())] *
               SavedPerRun;
    }
    unsigned Vgprs = 2 * ((Records + PerVgprs - 1) / PerVgprs);
    if (Saved <= 2 * FixedCost || Vgprs > SpareVgprs)
      InLanes.assign(Points.size(), false);
    return InLanes;
  }

  struct Kernel {
    static constexpr size_t None = ~size_t(0);
    /// WavesOf: a run of the kernel's once per wave.
    static constexpr size_t DispatchWaves = None - 1;
    /// LanesOf: the dispatch's work-items (a kernel's once-per-wave run
    /// under the EXEC its waves start with), or every lane of each wave.
    static constexpr size_t WorkItemLanes = None - 2, EveryLane = None - 3;
    uint64_t Base = 0;
    /// Slots taken in LoomCounts: one per counting point, then the
    /// once-per-wave counters' words, two a slot.
    uint64_t SlotCount = 0;
    /// Per slot: the words (from Base's first) its waves and its lanes are
    /// counted in, if it counts them.
    std::vector<size_t> WaveWord, LaneWord;
    /// Per slot: the loss (findLosses) its waves and lanes are worked out
    /// from, or None; per loss, its pair of words (packed in the first, as
    /// Packed slots).
    std::vector<size_t> Lost, LostWord;
    /// Per slot: its waves and lanes are packed in its first word
    /// (loom_count_once; LOOM_COUNT_WAVE_SHIFT).
    std::vector<bool> Packed;
    /// Per slot: the instructions it counts (indices into Instructions).
    std::vector<std::vector<uint32_t>> Slots;
    /// Per slot: the slot that counts its waves (its class's
    /// representative's first), or DispatchWaves.
    std::vector<size_t> WavesOf;
    /// Per slot: the slot that counts its lanes (itself, or its class's
    /// first run under the same EXEC), or WorkItemLanes, or EveryLane.
    /// Lanes are only read for vector instructions.
    std::vector<size_t> LanesOf;
    /// Per slot: what its WavesOf and LanesOf counts are multiplied by (a
    /// loop's trips, fixedTrips), 1 for most.
    std::vector<uint64_t> Times;
    /// Per slot: the slots of the calls whose runs are its waves, and
    /// whose lanes are its lanes (a device function's entry,
    /// derivableCallees); empty for most.
    std::vector<std::vector<size_t>> Calls;
    /// (opcode, whether it counts lanes).
    std::vector<std::pair<std::string, bool>> Instructions;
    /// Every block, with the slot counting its entries.
    std::vector<std::pair<std::string, size_t>> Blocks;
  };
  SlotAllocator Slots;
  uint64_t MaxWaves = PackedWaves;
  /// Kernel object -> the dispatch of it being counted.
  /// Copies of one kernel, so of its dispatches, that may run at once.
  static constexpr uint64_t MaxConcurrent = 8;
  std::mutex Lock;
  /// Kernel object -> copy (configuration) -> the dispatch running it.
  std::map<uint64_t, std::map<uint64_t, uint64_t>> Running;
  /// Dispatch -> the copy it runs.
  std::map<uint64_t, uint64_t> ConfigurationOf;
  /// (kernel object, configuration) -> its plan. std::map: a plan stays
  /// where it is while others are added.
  std::map<std::pair<uint64_t, uint64_t>, Kernel> Kernels;
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
    uint64_t MaxWaves = Counts.maxWaves();
    if (llvm::Error E = Ctx.numberOption("max-waves", MaxWaves))
      return E;
    Counts.setMaxWaves(MaxWaves);
    return llvm::Error::success();
  }

  instrument::DispatchChoice dispatch(instrument::ToolContext &,
                                      const instrument::Dispatch &D) override {
    return Counts.choose(Options, D, Name, Mode);
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
