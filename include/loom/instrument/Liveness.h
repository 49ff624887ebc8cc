//===- loom/instrument/Liveness.h - Live registers at every instruction ---===//
//
// Backward liveness of 32-bit register units over each function's CFG and
// across the call graph, for choosing what instrumentation must save.
//
// The EXEC subtlety. A vector instruction writes a VGPR/AGPR only in the
// lanes EXEC enables; the other lanes keep their old value, which may still
// be read (after EXEC is restored, or by the caller whose lanes are inactive
// in a callee). A forward pass names the EXEC value at every instruction in
// a tree where a child's lanes are within its parent's (narrowing by
// s_and_saveexec or v_cmpx, the else side of an if/else, restores from
// saved copies; nothing carried around a loop's back edge). Liveness keeps,
// for each live vector unit, a name containing every lane it may be read
// in, and a write ends its life only under an EXEC known to contain those
// lanes. Reads after returns and calls, or under an EXEC of unknown origin,
// may be in any lane; cross-lane reads (v_readlane, DPP, permutes) in all.
// So in a device function (entered under its caller's EXEC) a VGPR live at
// its return is live throughout. v_writelane, SDWA, DPP and d16 writes
// never kill.
//
// Calls. A call to a function of this code object uses what the callee
// reads before writing plus, of what is live after the call, what passes
// through the callee unkilled (per-call-site summaries, computed to a fixed
// point over the call graph); it kills nothing (IPRA may keep a caller's
// value in a register the convention calls clobbered). An unknown callee is
// the calling convention: it reads the argument registers and clobbers the
// caller-saved ones. A device function whose callers are all known (not
// exported, its address in no GOT entry, no unknown call in the code
// object) keeps live at its return what its callers need after their
// calls; any other keeps everything live there. s_endpgm, and an s_trap
// that ends a function, keep nothing live.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_INSTRUMENT_LIVENESS_H
#define LOOM_INSTRUMENT_LIVENESS_H

#include "loom/instrument/RegisterSet.h"

#include "llvm/Support/Error.h"

#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace loom::instrument {

class BinaryContext;
class BinaryFunction;

/// The AMDGPU calling convention for non-kernel functions (AMDGPUUsage,
/// "Non-Kernel Functions").
namespace callconv {
/// Read by a callee on entry: s[0:3] (scratch V#), s[4:29] and v[0:31]
/// (arguments), s32 (stack pointer), EXEC, FLAT_SCRATCH, MODE.
RegisterSet argumentRegisters();
/// Not preserved by a callee: s[4:31], VCC, SCC, M0, v[0:39] and the
/// VGPR blocks of 8 the convention interleaves (v[48:55], v[64:71], ...),
/// a[0:31]. (Inactive lanes of every VGPR are preserved.)
RegisterSet clobberedRegisters();
} // namespace callconv

/// Liveness of one function.
class FunctionLiveness {
public:
  /// Live before / after instruction \p Index of block \p Block.
  const RegisterSet &liveBefore(unsigned Block, unsigned Index) const {
    return Before[Block][Index];
  }
  const RegisterSet &liveAfter(unsigned Block, unsigned Index) const;
  const RegisterSet &liveIn(unsigned Block) const { return Before[Block][0]; }
  const RegisterSet &liveOut(unsigned Block) const { return Out[Block]; }
  /// Live at the function's entry.
  const RegisterSet &entryLiveIn() const { return Before[0][0]; }
  /// True if, before the instruction, EXEC may lack lanes the wave started
  /// with (so vector writes there keep inactive lanes' old values live).
  bool execMayBePartial(unsigned Block, unsigned Index) const {
    return Partial[Block][Index];
  }
  /// The live VGPRs/AGPRs that may be needed, before the instruction, in
  /// lanes EXEC does not enable there (a subset of liveBefore).
  const RegisterSet &liveInOtherLanes(unsigned Block, unsigned Index) const {
    return OtherBefore[Block][Index];
  }
  /// A name for the value EXEC holds before the instruction, where the
  /// analysis knows one: two instructions of the function with one name see
  /// the same EXEC on one entry of the function and one trip of each loop
  /// around both (a name made in a loop is not carried round its back edge).
  std::optional<unsigned> execName(unsigned Block, unsigned Index) const {
    int N = ExecNames[Block][Index];
    return N < 0 ? std::nullopt : std::optional<unsigned>(N);
  }
  /// Names of every lane (EXEC = -1: s_mov_b64 exec, -1; the
  /// s_or_saveexec_b64 ..., -1 of whole-wave code) and of the EXEC the
  /// function was entered with.
  static constexpr unsigned ExecAllLanes = 0, ExecAtEntry = 1;

private:
  friend class Liveness;
  friend struct LivenessBuilder;
  std::vector<std::vector<RegisterSet>> Before;
  std::vector<RegisterSet> Out;
  std::vector<std::vector<RegisterSet>> OtherBefore;
  std::vector<RegisterSet> OtherOut;
  std::vector<std::vector<bool>> Partial;
  std::vector<std::vector<int>> ExecNames;
};

class Liveness {
public:
  /// Every function of \p BC must be in state CFGBuilt (or later).
  static llvm::Expected<Liveness> compute(const BinaryContext &BC);

  /// Null for a function of another context.
  const FunctionLiveness *of(const BinaryFunction &F) const;

private:
  std::map<const BinaryFunction *, std::unique_ptr<FunctionLiveness>> Results;
};

} // namespace loom::instrument

#endif // LOOM_INSTRUMENT_LIVENESS_H
