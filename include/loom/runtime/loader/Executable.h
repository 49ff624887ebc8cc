//===- loom/runtime/loader/Executable.h - An HSA executable ---------------===//
//
// An executable collects code objects loaded for agents (or for the program),
// and variables the host defines, into one namespace. Its life is HSA's:
//
//   unfrozen: load code objects, define external and read-only variables;
//   freeze:   bind every undefined symbol of every loaded code object to a
//             definition in another code object of the executable (device
//             functions included) or to a host-defined variable; fails,
//             naming every symbol left undefined, and stays unfrozen;
//   frozen:   kernels may run; nothing more may be loaded or defined.
//
// Destroying it unloads every code object: its memory is unregistered from
// the virtual GPU and its code forgotten, so a later dispatch of one of its
// kernel objects is an invalid dispatch, not a crash.
//
// Symbol namespace, as ROCr's: agent symbols are keyed by (name, agent),
// program symbols by name. Two ELF-global definitions of one name for one
// agent are refused (VariableAlreadyDefined). ELF-local symbols (static
// functions, hidden variables) are listed too, with module linkage; a
// lookup by name finds one only when no global symbol has that name.
//
// Thread safety: every member may be called from several threads.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_RUNTIME_LOADER_EXECUTABLE_H
#define LOOM_RUNTIME_LOADER_EXECUTABLE_H

#include "loom/runtime/loader/Agent.h"
#include "loom/runtime/loader/CodeObjectReader.h"
#include "loom/runtime/loader/LoadedCodeObject.h"
#include "loom/runtime/loader/Symbol.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

namespace loom::loader {

/// Mirror hsa_profile_t, hsa_default_float_rounding_mode_t and
/// hsa_executable_state_t.
enum class Profile : uint8_t { Base = 0, Full = 1 };
enum class FloatRoundingMode : uint8_t { Default = 0, Zero = 1, Near = 2 };
enum class ExecutableState : uint8_t { Unfrozen = 0, Frozen = 1 };

class Executable {
public:
  /// Creates an executable and records it in the process-wide Registry.
  static std::unique_ptr<Executable>
  create(Profile P = Profile::Base,
         FloatRoundingMode Mode = FloatRoundingMode::Default);
  ~Executable();
  Executable(const Executable &) = delete;

  Profile profile() const { return Prof; }
  FloatRoundingMode defaultFloatRoundingMode() const { return Rounding; }
  ExecutableState state() const;
  bool isFrozen() const { return state() == ExecutableState::Frozen; }

  /// Loads the code object of \p Reader that best matches \p Agent's ISA.
  /// Relocations that need no symbol are applied now, the rest at freeze.
  llvm::Expected<const LoadedCodeObject &>
  loadAgentCodeObject(const LoaderAgent &Agent, const CodeObjectReader &Reader);

  /// Loads a program code object: its symbols have program allocation and
  /// no agent. Its code still runs somewhere: on \p RunsOn, the agent that
  /// stands for "the program" (Loom's agents share one ISA).
  llvm::Expected<const LoadedCodeObject &>
  loadProgramCodeObject(const LoaderAgent &RunsOn,
                        const CodeObjectReader &Reader);

  /// Host-defined globals (hsa_executable_global_variable_define,
  /// _agent_global_variable_define, _readonly_variable_define). The
  /// address must stay valid and, for device access, registered.
  llvm::Error defineProgramVariable(llvm::StringRef Name, uint64_t Address);
  llvm::Error defineAgentVariable(llvm::StringRef Name,
                                  const LoaderAgent &Agent,
                                  VariableSegment Segment, uint64_t Address);

  /// Resolves every loaded code object; see the file comment.
  llvm::Error freeze();
  /// Success if freezing now would succeed (or it is frozen); otherwise the
  /// error freeze would give.
  llvm::Error validate() const;

  /// Every symbol: program symbols, then agent symbols, in load order.
  std::vector<const Symbol *> symbols() const;
  std::vector<const Symbol *> agentSymbols(uint64_t Agent) const;
  std::vector<const Symbol *> programSymbols() const;
  /// A symbol by name: with an agent, its agent symbol (else a program
  /// symbol of that name); without, a program symbol, else the agent symbol
  /// of that name if exactly one agent has one. Null if none.
  const Symbol *findSymbol(llvm::StringRef Name,
                           std::optional<uint64_t> Agent) const;

  std::vector<const LoadedCodeObject *> loadedCodeObjects() const;
  /// The loaded code object whose image holds \p Address, or null.
  const LoadedCodeObject *loadedCodeObjectAt(uint64_t Address) const;

private:
  Executable(Profile P, FloatRoundingMode Mode);

  llvm::Expected<const LoadedCodeObject &>
  load(const LoaderAgent &Agent, const CodeObjectReader &Reader,
       LoadedCodeObjectKind Kind);
  /// Address of a definition of \p Name visible to \p LCO's undefined
  /// symbols. Caller holds Lock.
  std::optional<uint64_t> resolveFor(const LoadedCodeObject &LCO,
                                     llvm::StringRef Name) const;
  /// Names \p LCO cannot resolve now. Caller holds Lock.
  std::vector<std::string> unresolved(const LoadedCodeObject &LCO) const;
  /// Adds \p S to the namespace. Caller holds Lock.
  llvm::Error addSymbol(std::unique_ptr<Symbol> S, bool Global);
  /// Names \p S (a variable the host defines), checks and adds it.
  llvm::Error defineHostVariable(llvm::StringRef Name,
                                 std::unique_ptr<Symbol> S);
  const Symbol *findLocked(llvm::StringRef Name,
                           std::optional<uint64_t> Agent) const;

  const Profile Prof;
  const FloatRoundingMode Rounding;
  mutable std::shared_mutex Lock;
  ExecutableState State = ExecutableState::Unfrozen;
  std::vector<std::unique_ptr<LoadedCodeObject>> Code;
  /// Every symbol in definition order (stable addresses).
  std::vector<std::unique_ptr<Symbol>> Symbols;
  std::map<std::string, const Symbol *> ProgramByName;
  std::map<std::pair<std::string, uint64_t>, const Symbol *> AgentByName;
};

} // namespace loom::loader

#endif // LOOM_RUNTIME_LOADER_EXECUTABLE_H
