//===- loom/instrument/WaitStates.h - Software-managed hazards ------------===//
//
// gfx90a and gfx942 leave some hazards between instructions to software
// (LLVM's GCNHazardRecognizer; the CDNA2/CDNA3 ISA guides, "Manually
// Inserted Wait States"): a consumer issued too soon after its producer
// reads a stale value. The compiler pads its own code; where Loom inserts
// code, a producer on one side of the seam may meet a consumer on the
// other. This is the rule table and the count of wait states a seam needs;
// the instrumenter puts `s_nop N` (N + 1 wait states) where it is short.
//
// Each instruction is described from what Loom already has from LLVM's MC
// tables (InstrProperties: registers read and written, memory kind) plus a
// few opcode-name families (DPP forms, MFMA, transcendental operations,
// v_readlane/v_writelane and their lane select), so the rules read the
// registers an instruction really uses.
//
// A later writer of a register does not hide an earlier VALU write from
// the rules (as in LLVM: the hazard is on the earlier write's forwarding).
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_INSTRUMENT_WAITSTATES_H
#define LOOM_INSTRUMENT_WAITSTATES_H

#include "loom/instrument/InstrProperties.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/MC/MCInst.h"

#include <string>

namespace loom::isa {
class McContext;
}

namespace loom::instrument {

/// What the wait-state rules need of one instruction.
struct HazardInst {
  enum class Unit : uint8_t {
    Salu, ///< scalar ALU and control (s_*, no memory)
    Valu, ///< vector ALU (v_*, MFMA and v_accvgpr_* included)
    Vmem, ///< buffer, global, flat, scratch
    Lds,  ///< ds_*
    Smem, ///< scalar memory
  };
  Unit U = Unit::Salu;
  RegisterSet Reads, Writes;
  bool Dpp = false;  ///< a DPP form
  bool Mfma = false; ///< v_mfma*, v_smfmac*
  bool Dot = false;  ///< v_dot*
  /// A transcendental VALU (exp, log, rcp, rsq, sqrt, sin, cos).
  bool Trans = false;
  bool DivFmas = false; ///< v_div_fmas_*
  bool RwLane = false;  ///< v_readlane, v_readfirstlane, v_writelane
  /// v_readlane / v_readfirstlane: reads a lane of its VGPR (its only
  /// vector read).
  bool ReadLane = false;
  /// A vector memory store of more than 8 bytes (its data among its vector
  /// reads).
  bool WideStore = false;
  /// v_readlane / v_writelane: the RegisterSet unit of the SGPR (or VCC
  /// half) selecting the lane; -1 if a constant does.
  int LaneSelect = -1;
  /// Reads M0 in a way that needs an SALU's write of it settled: s_movrel,
  /// s_sendmsg, GDS, LDS DMA and add-TID, v_movrel, v_interp.
  bool ReadsM0Late = false;
  /// s_setreg_* / s_getreg_*.
  bool SetReg = false, GetReg = false;
  /// s_nop N: N + 1 wait states; 1 for anything else (0 for a stand-in
  /// that may be no instruction at all).
  unsigned WaitStates = 1;

  bool isValu() const { return U == Unit::Valu; }
  bool isVmem() const { return U == Unit::Vmem; }
};

/// Describes \p I (its properties as InstrAnalyzer found them).
HazardInst describeHazards(isa::McContext &MC, const llvm::MCInst &I,
                           const InstrProperties &P);

/// Which rules apply: gfx90a's, or gfx94x's (which adds VALU-to-VALU SGPR
/// forwarding, EXEC to lane access, VGPR to v_readlane and transcendental
/// results).
struct HazardTarget {
  bool Gfx94x = false;
  static HazardTarget of(llvm::StringRef Processor);
};

/// The rules by name, for the documentation and tests.
struct HazardRule {
  const char *Producer, *Consumer;
  unsigned WaitStates;
  bool Gfx94xOnly;
};
llvm::ArrayRef<HazardRule> hazardRules();

/// The most wait states any rule asks for: how far back a seam looks.
inline constexpr unsigned MaxHazardWaitStates = 19;

/// The instructions on one side of a seam by distance, nearest first:
/// step i holds every instruction that may be i instructions away (where
/// control flow joins before the seam or splits after it, several).
using HazardSteps = std::vector<llvm::SmallVector<const HazardInst *, 2>>;

/// Wait states to add at a seam so that no rule is broken between an
/// instruction \p Before it and one \p After it. The instructions between
/// them count as distance (a step as its fewest wait states: s_nop N gives
/// N + 1, a stand-in for code that may be absent 0).
unsigned waitStatesNeeded(const HazardSteps &Before, const HazardSteps &After,
                          HazardTarget T);

/// One straight path: \p Before in program order (its last right before
/// \p Next).
unsigned waitStatesNeeded(llvm::ArrayRef<HazardInst> Before,
                          const HazardInst &Next, HazardTarget T);

/// Steps of instructions in program order: \p Reversed for the side before
/// a seam (nearest first).
HazardSteps hazardSteps(llvm::ArrayRef<HazardInst> Insts, bool Reversed);

/// `s_nop` lines giving \p WaitStates wait states (none for 0).
std::string nopsFor(unsigned WaitStates);

} // namespace loom::instrument

#endif // LOOM_INSTRUMENT_WAITSTATES_H
