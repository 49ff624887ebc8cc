//===- instrument/RegisterSet.cpp - A set of 32-bit register units --------===//

#include "loom/instrument/RegisterSet.h"

#include <bit>

namespace loom::instrument {

static void addRange(RegisterSet &S, unsigned Base, unsigned Limit,
                     unsigned First, unsigned Count) {
  for (unsigned N = First; N < First + Count && N < Limit; ++N)
    S.setUnit(Base + N);
}

RegisterSet &RegisterSet::addSgprs(unsigned First, unsigned Count) {
  addRange(*this, SgprBase, NumSgprs, First, Count);
  return *this;
}
RegisterSet &RegisterSet::addVgprs(unsigned First, unsigned Count) {
  addRange(*this, VgprBase, NumVgprs, First, Count);
  return *this;
}
RegisterSet &RegisterSet::addAgprs(unsigned First, unsigned Count) {
  addRange(*this, AgprBase, NumAgprs, First, Count);
  return *this;
}
RegisterSet &RegisterSet::add(SpecialReg R) {
  setUnit(SpecialBase + static_cast<unsigned>(R));
  return *this;
}
RegisterSet &RegisterSet::addExec() {
  return add(SpecialReg::ExecLo).add(SpecialReg::ExecHi);
}
RegisterSet &RegisterSet::addVcc() {
  return add(SpecialReg::VccLo).add(SpecialReg::VccHi);
}

bool RegisterSet::hasSgpr(unsigned N) const {
  return N < NumSgprs && testUnit(SgprBase + N);
}
bool RegisterSet::hasVgpr(unsigned N) const {
  return N < NumVgprs && testUnit(VgprBase + N);
}
bool RegisterSet::hasAgpr(unsigned N) const {
  return N < NumAgprs && testUnit(AgprBase + N);
}
/// The highest of units [Base, Base + Count) in \p S, less Base; -1 if none.
static int highestIn(const RegisterSet &S, unsigned Base, unsigned Count) {
  for (unsigned N = Count; N-- > 0;)
    if (S.testUnit(Base + N))
      return int(N);
  return -1;
}
int RegisterSet::highestSgpr() const { return highestIn(*this, SgprBase, NumSgprs); }
int RegisterSet::highestVgpr() const { return highestIn(*this, VgprBase, NumVgprs); }
int RegisterSet::highestAgpr() const { return highestIn(*this, AgprBase, NumAgprs); }
bool RegisterSet::has(SpecialReg R) const {
  return testUnit(SpecialBase + static_cast<unsigned>(R));
}

bool RegisterSet::empty() const {
  for (uint64_t W : Words)
    if (W)
      return false;
  return true;
}

unsigned RegisterSet::count() const {
  unsigned N = 0;
  for (uint64_t W : Words)
    N += std::popcount(W);
  return N;
}

static const RegisterSet &vectorMask() {
  static const RegisterSet M = [] {
    RegisterSet S;
    S.addVgprs(0, RegisterSet::NumVgprs).addAgprs(0, RegisterSet::NumAgprs);
    return S;
  }();
  return M;
}

bool RegisterSet::anyVector() const { return intersects(vectorMask()); }

RegisterSet RegisterSet::vectorOnly() const {
  RegisterSet S = *this;
  return S &= vectorMask();
}

RegisterSet RegisterSet::withoutVector() const {
  RegisterSet S = *this;
  return S.subtract(vectorMask());
}

RegisterSet &RegisterSet::operator|=(const RegisterSet &O) {
  for (unsigned K = 0; K != NumWords; ++K)
    Words[K] |= O.Words[K];
  return *this;
}
RegisterSet &RegisterSet::operator&=(const RegisterSet &O) {
  for (unsigned K = 0; K != NumWords; ++K)
    Words[K] &= O.Words[K];
  return *this;
}
RegisterSet &RegisterSet::subtract(const RegisterSet &O) {
  for (unsigned K = 0; K != NumWords; ++K)
    Words[K] &= ~O.Words[K];
  return *this;
}
bool RegisterSet::intersects(const RegisterSet &O) const {
  for (unsigned K = 0; K != NumWords; ++K)
    if (Words[K] & O.Words[K])
      return true;
  return false;
}
bool RegisterSet::contains(const RegisterSet &O) const {
  for (unsigned K = 0; K != NumWords; ++K)
    if (O.Words[K] & ~Words[K])
      return false;
  return true;
}

std::string RegisterSet::str() const {
  std::string Out;
  auto Emit = [&](const std::string &S) {
    if (!Out.empty())
      Out += ' ';
    Out += S;
  };
  auto Ranges = [&](char Prefix, unsigned Base, unsigned Count) {
    for (unsigned N = 0; N < Count;) {
      if (!testUnit(Base + N)) {
        ++N;
        continue;
      }
      unsigned End = N;
      while (End + 1 < Count && testUnit(Base + End + 1))
        ++End;
      if (End == N)
        Emit(Prefix + std::to_string(N));
      else
        Emit(Prefix + ("[" + std::to_string(N) + ":" + std::to_string(End) +
                       "]"));
      N = End + 1;
    }
  };
  Ranges('s', SgprBase, NumSgprs);
  Ranges('v', VgprBase, NumVgprs);
  Ranges('a', AgprBase, NumAgprs);
  // Register pairs print as one name when both halves are present.
  auto Pair = [&](SpecialReg Lo, SpecialReg Hi, const char *Both,
                  const char *LoName, const char *HiName) {
    if (has(Lo) && has(Hi))
      Emit(Both);
    else if (has(Lo))
      Emit(LoName);
    else if (has(Hi))
      Emit(HiName);
  };
  Pair(SpecialReg::ExecLo, SpecialReg::ExecHi, "exec", "exec_lo", "exec_hi");
  Pair(SpecialReg::VccLo, SpecialReg::VccHi, "vcc", "vcc_lo", "vcc_hi");
  if (has(SpecialReg::Scc))
    Emit("scc");
  if (has(SpecialReg::M0))
    Emit("m0");
  Pair(SpecialReg::FlatScratchLo, SpecialReg::FlatScratchHi, "flat_scratch",
       "flat_scratch_lo", "flat_scratch_hi");
  if (has(SpecialReg::Mode))
    Emit("mode");
  return Out;
}

RegisterSet RegisterSet::shifted(unsigned SgprShift, unsigned VgprShift) const {
  if (!SgprShift && !VgprShift)
    return *this;
  RegisterSet Out;
  forEachUnit([&](unsigned U) {
    if (U < VgprBase)
      Out.addSgprs(U - SgprBase + SgprShift);
    else if (U < AgprBase)
      Out.addVgprs(U - VgprBase + VgprShift);
    else
      Out.setUnit(U);
  });
  return Out;
}

} // namespace loom::instrument
