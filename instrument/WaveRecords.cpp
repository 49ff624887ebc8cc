//===- instrument/WaveRecords.cpp - Once-per-wave counters in lanes -------===//

#include "WaveRecords.h"

#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace loom::instrument::detail {

namespace {

constexpr unsigned WaveLanes = 64;

std::string vreg(unsigned N) { return "v" + std::to_string(N); }
std::string sreg(unsigned N) { return "s" + std::to_string(N); }
std::string spair(unsigned N) {
  return "s[" + std::to_string(N) + ":" + std::to_string(N + 1) + "]";
}
std::string vpair(unsigned N) {
  return "v[" + std::to_string(N) + ":" + std::to_string(N + 1) + "]";
}

HazardInst valu(RegisterSet Reads, RegisterSet Writes, bool RwLane = false) {
  HazardInst I;
  I.U = HazardInst::Unit::Valu;
  I.Reads = std::move(Reads);
  I.Writes = std::move(Writes);
  I.RwLane = RwLane;
  return I;
}

HazardInst setExec() {
  HazardInst I;
  I.U = HazardInst::Unit::Salu;
  I.Writes.addExec();
  return I;
}

} // namespace

WaveRecords::WaveRecords(ArrayRef<WaveCounter> Counters,
                         ArrayRef<uint64_t> Addresses)
    : LaneOf(Counters.size(), -1) {
  unsigned Next = 0; // pair * 64 + lane of the next record
  for (size_t C = 0; C < Counters.size(); ++C) {
    if (!Counters[C].OncePerWave || !Addresses[C])
      continue;
    unsigned Pair = Next / WaveLanes, Lane = Next % WaveLanes;
    if (!Runs.empty() && Runs.back().Pair == Pair &&
        Addresses[C] == Runs.back().Address + 8 * Runs.back().Count)
      ++Runs.back().Count;
    else
      Runs.push_back({Pair, Lane, 1, Addresses[C]});
    LaneOf[C] = int(Next);
    AnyAboveLane31 |= Lane >= 32;
    Pairs = Pair + 1;
    ++Next;
  }
}

void WaveRecords::emitZero(raw_ostream &OS) const {
  // A 64-bit shift of 0 zeroes both VGPRs of a pair at once.
  for (unsigned P = 0; P < Pairs; ++P)
    OS << "\tv_lshlrev_b64 " << vpair(First + 2 * P) << ", 0, 0\n";
}

void WaveRecords::emitAdd(raw_ostream &OS, const CounterAdd &A) const {
  unsigned At = unsigned(LaneOf[A.Counter]);
  unsigned V = First + 2 * (At / WaveLanes), Lane = At % WaveLanes;
  if (!A.PerLane) {
    OS << "\tv_writelane_b32 " << vreg(V) << ", 1, " << Lane << "\n";
    return;
  }
  // EXEC's halves; the flush counts their bits.
  OS << "\tv_writelane_b32 " << vreg(V) << ", exec_lo, " << Lane << "\n";
  OS << "\tv_writelane_b32 " << vreg(V + 1) << ", exec_hi, " << Lane << "\n";
}

std::vector<HazardInst> WaveRecords::addHazards(const CounterAdd &A) const {
  unsigned V = First + 2 * (unsigned(LaneOf[A.Counter]) / WaveLanes);
  if (!A.PerLane)
    return {valu({}, RegisterSet().addVgprs(V), /*RwLane=*/true)};
  RegisterSet Exec;
  Exec.addExec();
  return {valu(Exec, RegisterSet().addVgprs(V), true),
          valu(Exec, RegisterSet().addVgprs(V + 1), true)};
}

std::vector<HazardInst> WaveRecords::flushHeadHazards() const {
  return {setExec(), valu(RegisterSet().addVgprs(First, 2),
                          RegisterSet().addVgprs(First))};
}

void WaveRecords::emitFlush(raw_ostream &OS, unsigned Offsets,
                            unsigned Base) const {
  if (empty())
    return;
  // The lanes in use (from 0: runs fill them in order), then each run's.
  auto SetExec = [&](unsigned Count, unsigned FirstLane) {
    if (Count == WaveLanes)
      OS << "\ts_mov_b64 exec, -1\n";
    else
      OS << "\ts_bfm_b64 exec, " << Count << ", " << FirstLane << "\n";
  };
  unsigned Used = Pairs > 1 ? WaveLanes
                            : Runs.back().FirstLane + Runs.back().Count;
  SetExec(Used, 0);
  // Each lane: the bits of its EXEC halves (a record of 1 stays 1), and a
  // high word of 0.
  for (unsigned P = 0; P < Pairs; ++P) {
    std::string Lo = vreg(First + 2 * P), Hi = vreg(First + 2 * P + 1);
    OS << "\tv_bcnt_u32_b32 " << Lo << ", " << Lo << ", 0\n";
    OS << "\tv_bcnt_u32_b32 " << Lo << ", " << Hi << ", " << Lo << "\n";
    OS << "\tv_mov_b32 " << Hi << ", 0\n";
  }
  // The lane's index times 8: its word's offset from its run's base.
  std::string O = vreg(Offsets);
  OS << "\tv_mbcnt_lo_u32_b32 " << O << ", -1, 0\n";
  if (AnyAboveLane31)
    OS << "\tv_mbcnt_hi_u32_b32 " << O << ", -1, " << O << "\n";
  OS << "\tv_lshlrev_b32 " << O << ", 3, " << O << "\n";
  for (const Run &R : Runs) {
    if (R.FirstLane != 0 || R.Count != Used)
      SetExec(R.Count, R.FirstLane);
    uint64_t At = R.Address - 8 * uint64_t(R.FirstLane);
    OS << "\ts_mov_b32 " << sreg(Base) << ", 0x" << utohexstr(uint32_t(At))
       << "\n\ts_mov_b32 " << sreg(Base + 1) << ", 0x"
       << utohexstr(uint32_t(At >> 32)) << "\n";
    OS << "\tglobal_atomic_add_x2 " << O << ", " << vpair(First + 2 * R.Pair)
       << ", " << spair(Base) << "\n";
  }
}

} // namespace loom::instrument::detail
