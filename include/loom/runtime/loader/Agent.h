//===- loom/runtime/loader/Agent.h - The agent a code object loads for ----===//
//
// The loader knows an agent as an opaque handle (the HSA agent handle), the
// virtual GPU that runs its code, and its ISA as a target id. Compatibility
// of a code object with an agent follows AMDGPUUsage "Target ID": same
// processor, and each of xnack and sramecc either unspecified in the code
// object ("any") or equal to the agent's mode.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_RUNTIME_LOADER_AGENT_H
#define LOOM_RUNTIME_LOADER_AGENT_H

#include "loom/codeobj/Target.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace loom::emu {
class Device;
}

namespace loom::loader {

struct LoaderAgent {
  /// Opaque identity reported back in symbol and code object queries.
  uint64_t Handle = 0;
  /// The virtual GPU code loaded for this agent runs on (never null).
  emu::Device *Device = nullptr;
  /// The agent's ISA with both feature modes decided (On or Off), e.g.
  /// gfx90a:sramecc+:xnack-.
  codeobj::TargetId Isa;

  /// An agent for \p Dev: its ISA is the device's target id with the
  /// modes it leaves open set to the processor's defaults (gfx90a and
  /// gfx942: sramecc on, xnack off, as on an MI210 / MI300 by default).
  static LoaderAgent forDevice(emu::Device &Dev, uint64_t Handle);
};

/// Parses a target id such as "gfx90a", "gfx90a:xnack-" or
/// "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-". Features not named are Any.
llvm::Expected<codeobj::TargetId> parseTargetId(llvm::StringRef Text);

/// Success if code built for \p Code runs on an agent whose ISA is
/// \p Agent; otherwise an IncompatibleIsa error saying which part differs.
llvm::Error checkIsaCompatible(const codeobj::TargetId &Code,
                               const codeobj::TargetId &Agent);

/// How well \p Code matches \p Agent: -1 incompatible, otherwise the number
/// of feature settings it names exactly (a better match scores higher).
int isaMatchScore(const codeobj::TargetId &Code,
                  const codeobj::TargetId &Agent);

} // namespace loom::loader

#endif // LOOM_RUNTIME_LOADER_AGENT_H
