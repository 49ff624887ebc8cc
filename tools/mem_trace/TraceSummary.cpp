//===- tools/mem_trace/TraceSummary.cpp - What a memory trace adds up to --===//

#include "TraceSummary.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <bit>
#include <set>
#include <vector>

using namespace llvm;

namespace loom::trace {

uint64_t distinctLines(const TraceAccess &A, uint32_t Bytes) {
  std::set<uint64_t> Lines;
  for (uint64_t Addr : A.Addresses)
    for (uint64_t L = Addr / 64; L <= (Addr + std::max(Bytes, 1u) - 1) / 64;
         ++L)
      Lines.insert(L);
  return Lines.size();
}

uint64_t fewestLines(const TraceAccess &A, uint32_t Bytes) {
  // The bytes the lanes touch, each counted once (lanes may share them).
  std::vector<uint64_t> Starts = A.Addresses;
  std::sort(Starts.begin(), Starts.end());
  uint64_t Distinct = 0, End = 0;
  for (uint64_t S : Starts) {
    uint64_t E = S + std::max(Bytes, 1u);
    Distinct += E - std::max(S, std::min(End, E));
    End = std::max(End, E);
  }
  return (Distinct + 63) / 64;
}

uint64_t ldsConflictCycles(const TraceAccess &A, uint32_t Bytes,
                           unsigned *Degree) {
  unsigned LanesPerPhase = Bytes <= 4 ? 32 : 128 / (Bytes <= 8 ? 8 : 16);
  unsigned Dwords = std::max(1u, (Bytes + 3) / 4);
  uint64_t Cycles = 0;
  unsigned Worst = 0;
  size_t Next = 0; // index into Addresses, which follow the lanes of Exec
  for (unsigned First = 0; First < 64; First += LanesPerPhase) {
    uint64_t Phase = A.Exec & (LanesPerPhase == 64
                                   ? ~0ull
                                   : ((1ull << LanesPerPhase) - 1) << First);
    if (!Phase)
      continue;
    std::set<uint64_t> Bank[32];
    for (unsigned N = std::popcount(Phase); N; --N, ++Next) {
      uint64_t Dword = A.Addresses[Next] / 4;
      for (unsigned D = 0; D < Dwords; ++D)
        Bank[(Dword + D) % 32].insert(Dword + D);
    }
    unsigned Max = 1;
    for (const std::set<uint64_t> &B : Bank)
      Max = std::max<unsigned>(Max, B.size());
    Worst = std::max(Worst, Max);
    Cycles += Max - 1;
  }
  if (Degree)
    *Degree = Worst;
  return Cycles;
}

void TraceSummary::Totals::add(const Totals &O) {
  Accesses += O.Accesses;
  Lanes += O.Lanes;
  Bytes += O.Bytes;
  Lines += O.Lines;
  LineAccesses += O.LineAccesses;
  FewestLines += O.FewestLines;
  ConflictCycles += O.ConflictCycles;
  ConflictedAccesses += O.ConflictedAccesses;
  WorstDegree = std::max(WorstDegree, O.WorstDegree);
}

void TraceSummary::access(const TraceAccess &A, const TraceSite &S) {
  Totals T;
  T.Accesses = 1;
  T.Lanes = A.Addresses.size();
  T.Bytes = T.Lanes * S.Bytes;
  if (A.Where == Space::Lds) {
    unsigned Degree = 0;
    T.ConflictCycles = ldsConflictCycles(A, S.Bytes, &Degree);
    T.ConflictedAccesses = T.ConflictCycles != 0;
    T.WorstDegree = Degree;
  } else if (A.Where == Space::Global) {
    // (Scratch addresses are per-lane offsets, which the hardware
    // interleaves lane by lane: no lines to count.)
    T.Lines = distinctLines(A, S.Bytes);
    T.LineAccesses = 1;
    T.FewestLines = fewestLines(A, S.Bytes);
  }
  std::string Kind = instrKindName(S.Kind).str();
  if (Kind != spaceName(A.Where))
    Kind += "->" + spaceName(A.Where).str();
  ByKind[Kind].add(T);
  BySite[S.Id].add(T);
  All.add(T);
}

void TraceSummary::print(raw_ostream &OS, unsigned Top) const {
  OS << format("%-16s %12s %14s %16s %10s %12s\n", "kind", "accesses",
               "lanes", "bytes", "lines/acc", "conflicts");
  auto Row = [&](StringRef Name, const Totals &T) {
    std::string Lines =
        T.LineAccesses
            ? formatv("{0:f2}", double(T.Lines) / T.LineAccesses).str()
            : "-";
    std::string Conflicts =
        T.ConflictCycles || Name.contains("lds")
            ? std::to_string(T.ConflictCycles)
            : "-";
    OS << format("%-16s %12llu %14llu %16llu %10s %12s\n",
                 Name.str().c_str(), (unsigned long long)T.Accesses,
                 (unsigned long long)T.Lanes, (unsigned long long)T.Bytes,
                 Lines.c_str(), Conflicts.c_str());
  };
  for (const auto &[Name, T] : ByKind)
    Row(Name, T);
  Row("total", All);
  OS << Dispatches << " dispatches, " << Sites.size()
     << " memory instructions traced\n";
  if (All.LineAccesses)
    OS << formatv("coalescing: {0} distinct 64-byte lines in {1} vector "
                  "wave-accesses, {2:f2} a wave-access; their bytes fit in "
                  "{3} ({4:f1}% efficient)\n",
                  All.Lines, All.LineAccesses,
                  double(All.Lines) / All.LineAccesses, All.FewestLines,
                  100.0 * All.FewestLines / All.Lines);
  if (All.ConflictedAccesses || ByKind.count("lds"))
    OS << formatv("LDS bank conflicts: {0} extra cycles in {1} wave-accesses, "
                  "worst {2}-way\n",
                  All.ConflictCycles, All.ConflictedAccesses,
                  All.WorstDegree);

  auto Worst = [&](StringRef Title, auto Score, auto Describe) {
    std::vector<std::pair<uint64_t, uint32_t>> Ranked;
    for (const auto &[Id, T] : BySite)
      if (uint64_t S = Score(T))
        Ranked.push_back({S, Id});
    if (Ranked.empty())
      return;
    std::sort(Ranked.rbegin(), Ranked.rend());
    OS << Title << "\n";
    for (size_t I = 0; I < Ranked.size() && I < Top; ++I) {
      const TraceSite &S = Sites.at(Ranked[I].second);
      OS << "  " << S.Function << "+0x" << utohexstr(S.Offset, true) << " "
         << S.Opcode << ": " << Describe(BySite.at(S.Id)) << "\n";
    }
  };
  Worst(
      "least coalesced instructions (lines beyond the fewest):",
      [](const Totals &T) { return T.Lines - T.FewestLines; },
      [](const Totals &T) {
        return formatv("{0} wave-accesses, {1} lines, {2} needed", T.Accesses,
                       T.Lines, T.FewestLines)
            .str();
      });
  Worst(
      "most LDS bank conflicts:",
      [](const Totals &T) { return T.ConflictCycles; },
      [](const Totals &T) {
        return formatv("{0} wave-accesses, {1} extra cycles, worst {2}-way",
                       T.Accesses, T.ConflictCycles, T.WorstDegree)
            .str();
      });
}

} // namespace loom::trace
