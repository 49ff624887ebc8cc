//===- loom/instrument/RegisterBudget.h - Registers a copy leaves free ----===//
//
// Inserted code keeps what it saves, and Loom's own state, in registers the
// original code never uses. How many there are is asked twice: by the code
// generator, and by a tool deciding how many wave counters to ask for before
// it plans. One function answers both, so the two cannot drift apart.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_INSTRUMENT_REGISTERBUDGET_H
#define LOOM_INSTRUMENT_REGISTERBUDGET_H

#include "llvm/ADT/ArrayRef.h"

namespace loom::instrument {

class BinaryContext;
class BinaryFunction;

/// Registers a gfx9 wave addresses: s0..s101, v0..v255.
inline constexpr unsigned MaxSgprs = 102;
inline constexpr unsigned MaxVgprs = 256;

/// SGPRs Loom may take for itself above the original code's, besides the
/// wave counters: the launch state (6), the counters' temporaries (a base
/// pair, a lane count, SCC: 4), a long branch's registers (3), and two
/// lost to aligning pairs.
inline constexpr unsigned LoomOwnSgprs = 15;

/// The highest SGPR and VGPR (-1: none) the original code may use while a
/// copy of one of \p Copied runs, entered from one of \p Kernels: what the
/// copied functions read and write, the kernels' initial registers, and,
/// where a copy calls code that is not copied, what the kernels' metadata
/// reserves for it. VGPRs stop at what the kernels were given, since an
/// indexed access (v_movrel*, s_set_gpr_idx_on) counts as touching them all.
struct RegistersInUse {
  int HighestSgpr = -1;
  int HighestVgpr = -1;
  /// AGPRs: the copied functions', the kernels' metadata .agpr_count, and
  /// a[0:31] (what the convention lets a callee clobber) where a copy calls
  /// code that is not copied.
  int HighestAgpr = -1;
  /// Whether a copy calls code that is not copied (or unknown).
  bool CallsOut = false;
};
RegistersInUse registersInUse(const BinaryContext &BC,
                              llvm::ArrayRef<const BinaryFunction *> Kernels,
                              llvm::ArrayRef<const BinaryFunction *> Copied);

} // namespace loom::instrument

#endif // LOOM_INSTRUMENT_REGISTERBUDGET_H
