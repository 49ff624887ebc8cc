//===- loom/runtime/loader/Symbol.h - An executable symbol ----------------===//
//
// A symbol of an executable, as hsa_executable_symbol_get_info describes it.
// Kernels are named by their descriptor ("foo.kd", as ROCr names them for
// code object v3+) and their address is the kernel object. Device functions
// are symbols too (kind IndirectFunction, address = entry of the function),
// which ROCr does not offer. Variables are the code objects' own and the
// ones the host defined.
//
// Enumerations mirror the HSA ones value for value.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_RUNTIME_LOADER_SYMBOL_H
#define LOOM_RUNTIME_LOADER_SYMBOL_H

#include <cstdint>
#include <optional>
#include <string>

namespace loom::loader {

class Executable;
class LoadedCodeObject;

enum class SymbolKind : uint8_t { Variable = 0, Kernel = 1, IndirectFunction = 2 };
enum class SymbolLinkage : uint8_t { Module = 0, Program = 1 };
enum class VariableAllocation : uint8_t { Agent = 0, Program = 1 };
enum class VariableSegment : uint8_t { Global = 0, Readonly = 1 };

struct Symbol {
  SymbolKind Kind = SymbolKind::Variable;
  /// "foo.kd" for a kernel, the ELF name otherwise.
  std::string Name;
  /// Empty for program linkage; the loaded code object's name for module
  /// linkage (ELF-local symbols).
  std::string ModuleName;
  SymbolLinkage Linkage = SymbolLinkage::Program;
  bool IsDefinition = true;
  /// Agent of agent-allocated symbols; none for program allocation.
  std::optional<uint64_t> Agent;
  /// Kernel object, variable address or function entry.
  uint64_t Address = 0;
  /// Size in bytes of the kernel descriptor, variable or function.
  uint64_t Size = 0;

  // Kernels.
  uint32_t KernargSegmentSize = 0;
  uint32_t KernargSegmentAlignment = 0;
  uint32_t GroupSegmentSize = 0;
  uint32_t PrivateSegmentSize = 0;
  bool DynamicCallStack = false;
  uint32_t WavefrontSize = 64;

  // Variables.
  VariableAllocation Allocation = VariableAllocation::Agent;
  VariableSegment Segment = VariableSegment::Global;
  uint32_t Alignment = 0;
  bool IsConst = false;

  /// Defined by the host (define_*_external_variable, readonly_variable_define)
  /// rather than by a code object.
  bool HostDefined = false;
  Executable *Owner = nullptr;
  /// The loaded code object defining it (null if HostDefined).
  const LoadedCodeObject *Code = nullptr;
};

} // namespace loom::loader

#endif // LOOM_RUNTIME_LOADER_SYMBOL_H
