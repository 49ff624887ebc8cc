//===- loom/instrument/RegisterSet.h - A set of 32-bit register units -----===//
//
// Liveness and instruction properties speak of 32-bit register units: each
// SGPR, VGPR and AGPR, and the special registers an instrumentation point
// may have to save (EXEC and VCC halves, SCC, M0, FLAT_SCRATCH halves,
// MODE). A set is a fixed bit vector, so a set per instruction stays cheap.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_INSTRUMENT_REGISTERSET_H
#define LOOM_INSTRUMENT_REGISTERSET_H

#include <array>
#include <bit>
#include <cstdint>
#include <string>

namespace loom::instrument {

/// The special register units, after the SGPRs, VGPRs and AGPRs.
enum class SpecialReg : uint8_t {
  ExecLo,
  ExecHi,
  VccLo,
  VccHi,
  Scc,
  M0,
  FlatScratchLo,
  FlatScratchHi,
  Mode,
};
inline constexpr unsigned NumSpecialRegs = 9;

class RegisterSet {
public:
  static constexpr unsigned NumSgprs = 128;
  static constexpr unsigned NumVgprs = 256;
  static constexpr unsigned NumAgprs = 256;
  static constexpr unsigned SgprBase = 0;
  static constexpr unsigned VgprBase = SgprBase + NumSgprs;
  static constexpr unsigned AgprBase = VgprBase + NumVgprs;
  static constexpr unsigned SpecialBase = AgprBase + NumAgprs;
  static constexpr unsigned NumUnits = SpecialBase + NumSpecialRegs;

  RegisterSet() = default;

  /// Units [First, First + Count) of one kind; out-of-range indices are
  /// dropped.
  RegisterSet &addSgprs(unsigned First, unsigned Count = 1);
  RegisterSet &addVgprs(unsigned First, unsigned Count = 1);
  RegisterSet &addAgprs(unsigned First, unsigned Count = 1);
  RegisterSet &add(SpecialReg R);
  /// Both halves of EXEC / VCC.
  RegisterSet &addExec();
  RegisterSet &addVcc();

  bool hasSgpr(unsigned N) const;
  bool hasVgpr(unsigned N) const;
  bool hasAgpr(unsigned N) const;
  bool has(SpecialReg R) const;
  /// The highest register of a file in the set; -1 if it has none.
  int highestSgpr() const;
  int highestVgpr() const;
  int highestAgpr() const;

  void setUnit(unsigned U) { Words[U / 64] |= uint64_t(1) << (U % 64); }
  void clearUnit(unsigned U) { Words[U / 64] &= ~(uint64_t(1) << (U % 64)); }
  bool testUnit(unsigned U) const { return Words[U / 64] >> (U % 64) & 1; }

  bool empty() const;
  unsigned count() const;
  /// True if any VGPR or AGPR unit is in the set.
  bool anyVector() const;
  /// The VGPR and AGPR units only / everything but them.
  RegisterSet vectorOnly() const;
  RegisterSet withoutVector() const;
  /// The set with its SGPRs moved up by \p SgprShift and its VGPRs by
  /// \p VgprShift (a hook body moved above the original code's registers).
  RegisterSet shifted(unsigned SgprShift, unsigned VgprShift) const;

  RegisterSet &operator|=(const RegisterSet &O);
  RegisterSet &operator&=(const RegisterSet &O);
  /// Removes \p O's units.
  RegisterSet &subtract(const RegisterSet &O);
  bool intersects(const RegisterSet &O) const;
  bool contains(const RegisterSet &O) const;
  friend bool operator==(const RegisterSet &A, const RegisterSet &B) {
    return A.Words == B.Words;
  }
  friend bool operator!=(const RegisterSet &A, const RegisterSet &B) {
    return !(A == B);
  }
  friend RegisterSet operator|(RegisterSet A, const RegisterSet &B) {
    return A |= B;
  }

  /// Calls \p F with each unit in the set, in increasing order.
  template <typename FnT> void forEachUnit(FnT F) const {
    for (unsigned W = 0; W != NumWords; ++W)
      for (uint64_t Bits = Words[W]; Bits; Bits &= Bits - 1)
        F(W * 64 + static_cast<unsigned>(std::countr_zero(Bits)));
  }

  /// Assembler-like ranges: "s[0:3] s5 v[0:1] a0 exec vcc_lo scc m0".
  std::string str() const;

private:
  static constexpr unsigned NumWords = (NumUnits + 63) / 64;
  std::array<uint64_t, NumWords> Words{};
};

} // namespace loom::instrument

#endif // LOOM_INSTRUMENT_REGISTERSET_H
