//===- DispatchOracle.cpp - Lifted code checked against what ran ----------===//

#include "DispatchOracle.h"

#include "loom/instrument/CallGraph.h"
#include "loom/isa/McContext.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

using namespace loom;
using namespace loom::emu;

namespace loom::instrument::test {

namespace {

std::string hex(uint64_t V) { return "0x" + llvm::utohexstr(V, true); }

//===----------------------------------------------------------------------===//
// Max flow (Dinic), for check 4
//===----------------------------------------------------------------------===//

class MaxFlow {
public:
  explicit MaxFlow(unsigned N) : Adj(N), Level(N), Next(N) {}
  void addEdge(unsigned From, unsigned To, uint64_t Cap) {
    Adj[From].push_back(Edges.size());
    Edges.push_back({To, Cap});
    Adj[To].push_back(Edges.size());
    Edges.push_back({From, 0});
  }
  uint64_t run(unsigned S, unsigned T) {
    uint64_t Total = 0;
    while (bfs(S, T)) {
      std::fill(Next.begin(), Next.end(), 0);
      while (uint64_t F = dfs(S, T, std::numeric_limits<uint64_t>::max()))
        Total += F;
    }
    return Total;
  }

private:
  struct Edge {
    unsigned To;
    uint64_t Cap;
  };
  bool bfs(unsigned S, unsigned T) {
    std::fill(Level.begin(), Level.end(), -1);
    std::vector<unsigned> Queue{S};
    Level[S] = 0;
    for (size_t K = 0; K != Queue.size(); ++K)
      for (unsigned E : Adj[Queue[K]])
        if (Edges[E].Cap && Level[Edges[E].To] < 0) {
          Level[Edges[E].To] = Level[Queue[K]] + 1;
          Queue.push_back(Edges[E].To);
        }
    return Level[T] >= 0;
  }
  uint64_t dfs(unsigned U, unsigned T, uint64_t Limit) {
    if (U == T)
      return Limit;
    for (; Next[U] < Adj[U].size(); ++Next[U]) {
      unsigned E = Adj[U][Next[U]];
      Edge &Ed = Edges[E];
      if (!Ed.Cap || Level[Ed.To] != Level[U] + 1)
        continue;
      if (uint64_t F = dfs(Ed.To, T, std::min(Limit, Ed.Cap))) {
        Ed.Cap -= F;
        Edges[E ^ 1].Cap += F;
        return F;
      }
    }
    return 0;
  }
  std::vector<std::vector<unsigned>> Adj;
  std::vector<Edge> Edges;
  std::vector<int> Level;
  std::vector<size_t> Next;
};

std::string where(const BinaryFunction &F, uint64_t Addr) {
  return F.name().str() + "+" + hex(Addr - F.address());
}

//===----------------------------------------------------------------------===//
// The checks of one dispatch
//===----------------------------------------------------------------------===//

bool spaceFits(uint8_t Space, MemoryKind K) {
  switch (Space) {
  case 0: // global
    return K == MemoryKind::Global || K == MemoryKind::Flat ||
           K == MemoryKind::Buffer;
  case 1: // LDS
    return K == MemoryKind::Lds || K == MemoryKind::Flat;
  case 2: // scratch
    return K == MemoryKind::Scratch || K == MemoryKind::Flat ||
           K == MemoryKind::Buffer;
  case 3:
    return K == MemoryKind::Scalar;
  }
  return false;
}

void checkFlow(const BinaryFunction &F, const std::map<uint64_t, uint64_t> &Count,
               uint64_t Entries) {
  llvm::ArrayRef<BinaryBasicBlock> Blocks = F.blocks();
  auto CountOf = [&](uint64_t A) {
    auto It = Count.find(A);
    return It == Count.end() ? uint64_t(0) : It->second;
  };
  unsigned N = Blocks.size();
  // Nodes: 0 source, 1 sink, 2 + 2b out-side of block b, 3 + 2b in-side.
  MaxFlow G(2 + 2 * N);
  uint64_t Supply = 0, Demand = 0, Exits = 0;
  constexpr uint64_t Inf = std::numeric_limits<uint64_t>::max() / 4;
  for (unsigned B = 0; B != N; ++B) {
    uint64_t C = CountOf(Blocks[B].Address);
    const isa::Instruction &Last = Blocks[B].last().Info;
    bool Leaves = Last.Flow == isa::ControlFlow::EndProgram ||
                  Last.Flow == isa::ControlFlow::Return ||
                  Last.Flow == isa::ControlFlow::TailCall;
    if (Leaves) {
      Exits += C;
    } else if (C) {
      G.addEdge(0, 2 + 2 * B, C);
      Supply += C;
    }
    for (unsigned S : Blocks[B].Successors)
      G.addEdge(2 + 2 * B, 3 + 2 * S, Inf);
    uint64_t In = B == 0 ? Entries : 0;
    if (C < In) {
      ADD_FAILURE() << where(F, Blocks[B].Address) << " ran " << C
                    << " times but was entered " << In << " times";
      return;
    }
    if (C - In) {
      G.addEdge(3 + 2 * B, 1, C - In);
      Demand += C - In;
    }
  }
  uint64_t Flow = G.run(0, 1);
  EXPECT_TRUE(Flow == Supply && Flow == Demand)
      << F.name().str() << ": the executed counts admit no flow on the lifted "
      << "CFG (blocks pass on " << Supply << ", receive " << Demand
      << ", max flow " << Flow << "): an executed edge is missing";
  EXPECT_EQ(Exits, Entries)
      << F.name().str() << ": " << Entries << " entries but " << Exits
      << " exits through s_endpgm / returns / tail calls";
}

} // namespace

std::string OracleTotals::str() const {
  return llvm::formatv(
      "{0} dispatches of {1} kernels checked: {2} function runs, {3} "
      "executed instruction addresses ({4} wave-instructions), {5} of {6} "
      "blocks executed, {7} flow checks ({8} with entries counted at "
      "returns: an unknown callee ran), {9} memory access shapes",
      Dispatches, KernelsRun.size(), FunctionsChecked, InstructionAddresses,
      WaveInstructions, ExecutedBlocks, BlocksChecked, FlowChecks,
      FlowInferred, MemoryShapes);
}

void checkDispatch(BinaryContext &BC, llvm::StringRef Kernel,
                   const DispatchCounters &C, OracleTotals &T) {
  ++T.Dispatches;

  // Executed instructions by function, and counts by code object address
  // (the emulator's Pc is where the code was loaded).
  std::map<std::string, std::vector<const InstructionCount *>> ByFunction;
  std::map<uint64_t, uint64_t> Count;
  std::optional<uint64_t> Bias;
  for (const InstructionCount &IC : C.Instructions) {
    ByFunction[IC.Function].push_back(&IC);
    BinaryFunction *F = BC.function(IC.Function);
    if (!F)
      continue;
    uint64_t Addr = F->address() + IC.Offset;
    if (!Bias)
      Bias = IC.Pc - Addr;
    EXPECT_EQ(IC.Pc - Addr, *Bias) << IC.Function << "+" << hex(IC.Offset)
                                   << ": loaded at another offset";
    Count[Addr] = IC.WaveExecutions;
  }

  bool UnknownCallsRan = false;
  for (const CallSite &S : BC.callGraph().sites())
    if (S.isUnknown() && Count.count(S.Address))
      UnknownCallsRan = true;

  for (const auto &[Name, ICs] : ByFunction) {
    BinaryFunction *F = BC.function(Name);
    if (!F) {
      ADD_FAILURE() << BC.codeObject().name().str() << ": the emulator ran " << Name
                    << ", which lifting did not find";
      continue;
    }
    ++T.FunctionsChecked;
    EXPECT_TRUE(F->isInstrumentable())
        << F->name().str() << " ran but is not instrumentable: "
        << F->notInstrumentableReason().str();

    // Checks 1 and 2.
    for (const InstructionCount *IC : ICs) {
      ++T.InstructionAddresses;
      T.WaveInstructions += IC->WaveExecutions;
      uint64_t Addr = F->address() + IC->Offset;
      const BinaryInstruction *I = F->instructionAt(Addr);
      if (!I || !I->Info.Valid) {
        ADD_FAILURE() << "executed " << where(*F, Addr)
                      << " is no lifted instruction";
        continue;
      }
      // The emulator names the operation without its size variant (_e32).
      EXPECT_TRUE(BC.mc().opcodeBaseName(I->Inst.getOpcode())
                      .starts_with(IC->Opcode))
          << where(*F, Addr) << ": emulator ran " << IC->Opcode << ", lifted "
          << BC.mc().opcodeBaseName(I->Inst.getOpcode()).str();
      bool LiftedStart = F->blockStartingAt(Addr).has_value();
      EXPECT_EQ(LiftedStart, IC->StartsBlock)
          << where(*F, Addr) << ": block starts disagree";
          // The emulator counts the LDS-unit lane shuffles (ds_permute,
      // ds_bpermute, ds_swizzle) and the cache invalidations and write-backs
      // (buffer_wbinvl1_vol, ...) as memory instructions, though they access
      // no memory (and it records no access for them); MC says so too.
      llvm::StringRef Op = IC->Opcode;
      bool NoAccess = Op.starts_with("DS_PERMUTE") ||
                      Op.starts_with("DS_BPERMUTE") ||
                      Op.starts_with("DS_SWIZZLE") ||
                      Op.starts_with("BUFFER_WB") ||
                      Op.starts_with("BUFFER_INV") ||
                      Op.starts_with("S_DCACHE");
      if (!NoAccess)
        EXPECT_EQ(I->Props.isMemory(), IC->IsMemory)
            << where(*F, Addr) << " (" << I->Info.Text << "): memory or not";
    }

    // Check 3.
    for (const BinaryBasicBlock &B : F->blocks()) {
      ++T.BlocksChecked;
      auto It = Count.find(B.Address);
      uint64_t First = It == Count.end() ? 0 : It->second;
      if (First)
        ++T.ExecutedBlocks;
      for (const BinaryInstruction &I : B.Instructions) {
        auto J = Count.find(I.address());
        uint64_t N = J == Count.end() ? 0 : J->second;
        EXPECT_EQ(N, First)
            << where(*F, I.address()) << " (" << I.Info.Text << ") ran " << N
            << " times, its block " << where(*F, B.Address) << " " << First
            << ": control entered or left the block in its middle";
      }
    }

    // Check 4.
    uint64_t Entries = 0;
    if (F->isKernel()) {
      Entries = F->name() == Kernel ? C.Waves : 0;
    } else if (UnknownCallsRan) {
      // Calls of unknown target ran, so the calls into F are not known:
      // every entry returns (the dispatch completed), so count those.
      ++T.FlowInferred;
      for (const BinaryBasicBlock &B : F->blocks()) {
        isa::ControlFlow Last = B.last().Info.Flow;
        if (Last == isa::ControlFlow::Return ||
            Last == isa::ControlFlow::TailCall) {
          auto J = Count.find(B.Address);
          Entries += J == Count.end() ? 0 : J->second;
        }
      }
    } else {
      for (const CallSite *S : BC.callGraph().callsTo(*F)) {
        auto J = Count.find(S->Address);
        Entries += J == Count.end() ? 0 : J->second;
      }
    }
    ++T.FlowChecks;
    checkFlow(*F, Count, Entries);
  }

  // Check 5, once per distinct shape of access at an address.
  std::set<std::tuple<uint64_t, uint8_t, bool, bool, uint32_t>> Shapes;
  for (const MemoryAccessRecord &A : C.Accesses)
    Shapes.insert({A.Pc - Bias.value_or(0), A.Space, A.IsWrite, A.IsAtomic,
                   A.BytesPerLane});
  for (const auto &[Pc, Space, IsWrite, IsAtomic, Bytes] : Shapes) {
    ++T.MemoryShapes;
    const BinaryInstruction *I = nullptr;
    const BinaryFunction *Fn = nullptr;
    for (const BinaryFunction &F : BC.functions())
      if (Pc >= F.address() && Pc < F.address() + F.size()) {
        I = F.instructionAt(Pc);
        Fn = &F;
      }
    if (!I) {
      ADD_FAILURE() << "memory access at " << hex(Pc)
                    << " is no lifted instruction";
      continue;
    }
    const InstrProperties &P = I->Props;
    std::string At = where(*Fn, Pc) + " (" + I->Info.Text + ")";
    EXPECT_TRUE(P.isMemory()) << At;
    if (P.LdsDma && Space == 1 /* LDS */ && IsWrite) {
      // An LDS DMA load's second access: its dwords written to LDS.
      EXPECT_FALSE(IsAtomic) << At;
      EXPECT_EQ(Bytes, P.AccessBytes) << At << ": bytes per lane";
      continue;
    }
    EXPECT_TRUE(spaceFits(Space, P.Memory))
        << At << ": space " << int(Space) << ", lifted kind "
        << memoryKindName(P.Memory).str();
    EXPECT_EQ(IsAtomic, P.Direction == MemoryDirection::Atomic) << At;
    if (!IsAtomic)
      EXPECT_EQ(IsWrite, P.Direction == MemoryDirection::Store) << At;
    if (P.AccessBytes)
      EXPECT_EQ(Bytes, P.AccessBytes) << At << ": bytes per lane";
  }
}


} // namespace loom::instrument::test
