//===- loom/instrument/CallGraph.h - Calls between lifted functions -------===//
//
// Built from the resolved targets of s_swappc_b64 / s_call_b64 (calls) and
// s_setpc_b64 to another function (tail calls): s_getpc_b64 plus
// s_add_u32/s_addc_u32 pairs, and GOT loads resolved through the code
// object's relocations and symbols (isa::Disassembler does the resolving).
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_INSTRUMENT_CALLGRAPH_H
#define LOOM_INSTRUMENT_CALLGRAPH_H

#include "loom/isa/Disassembler.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <string>
#include <vector>

namespace loom::instrument {

class BinaryFunction;

struct CallSite {
  BinaryFunction *Caller = nullptr;
  /// Address of the call (or tail-call) instruction.
  uint64_t Address = 0;
  /// The callee when it is a function of this code object; null when the
  /// target is unknown (an indirect call) or defined in another code object.
  BinaryFunction *Callee = nullptr;
  /// The target's symbol ("helper", or the GOT relocation's symbol); empty
  /// if unknown.
  std::string CalleeName;
  bool IsTailCall = false;
  isa::TargetSource Source = isa::TargetSource::None;

  /// True if nothing is known of the callee: the calling convention stands
  /// in for it.
  bool isUnknown() const { return Callee == nullptr; }
  /// True if the target comes from a register whose value is not known (a
  /// function pointer): it may be any function of the code object, or one
  /// of another.
  bool isIndirect() const { return Callee == nullptr && CalleeName.empty(); }
};

class CallGraph {
public:
  llvm::ArrayRef<CallSite> sites() const { return Sites; }
  /// Call sites in \p F / calling \p F.
  std::vector<const CallSite *> callsFrom(const BinaryFunction &F) const;
  std::vector<const CallSite *> callsTo(const BinaryFunction &F) const;
  const CallSite *siteAt(uint64_t Address) const;
  /// \p Root, then every function of this code object it may call,
  /// breadth first; with \p Through, only through callees it accepts. A
  /// call through a pointer (CallSite::isIndirect) may reach every
  /// indirectTargets() function.
  std::vector<const BinaryFunction *> reachableFrom(
      const BinaryFunction &Root,
      llvm::function_ref<bool(const BinaryFunction *)> Through = nullptr) const;

  /// What a call through a pointer may reach in this code object: every
  /// function symbol but the kernels, since any may have its address taken
  /// (stored in data, computed with s_getpc_b64, passed as an argument).
  llvm::ArrayRef<BinaryFunction *> indirectTargets() const {
    return IndirectTargets;
  }

  void add(CallSite S) { Sites.push_back(std::move(S)); }
  void setIndirectTargets(std::vector<BinaryFunction *> Targets) {
    IndirectTargets = std::move(Targets);
  }
  void clear() {
    Sites.clear();
    IndirectTargets.clear();
  }

private:
  std::vector<CallSite> Sites;
  std::vector<BinaryFunction *> IndirectTargets;
};

} // namespace loom::instrument

#endif // LOOM_INSTRUMENT_CALLGRAPH_H
