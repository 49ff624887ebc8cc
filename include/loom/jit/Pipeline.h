//===- loom/jit/Pipeline.h - LLVM IR to a loadable code object, in-process -===//
//
// Loom's one compile pipeline (ARCHITECTURE.md, decision 12), shared by the
// JIT and the instrumentation layer:
//
//   LLVM IR --(AMDGPU target machine, optimisation level)--> relocatable
//   object in memory --(lld as a library)--> linked, loadable code object
//
// Nothing runs clang or ld.lld as a subprocess. Every failure -- IR that
// does not parse or verify, a module for another target, a function the
// backend cannot compile, an LLVM fatal error, a link error -- comes back as
// an llvm::Error with its context; nothing prints or exits.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_JIT_PIPELINE_H
#define LOOM_JIT_PIPELINE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class Function;
class LLVMContext;
class Module;
} // namespace llvm

namespace loom::jit {

/// The processor code is compiled for.
struct TargetSpec {
  std::string Processor = "gfx90a"; ///< gfx90a, gfx942, ...
  std::string Features;             ///< LLVM features: "+xnack,-sramecc"
  /// From an HSA ISA name ("amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-") or
  /// a target id ("gfx90a:xnack-").
  static llvm::Expected<TargetSpec> fromIsaName(llvm::StringRef IsaName);
  std::string str() const; ///< "gfx90a" or "gfx90a:+xnack"
};

struct CompileOptions {
  TargetSpec Target;
  unsigned OptLevel = 2; ///< 0 to 3, as clang's -O
  /// Emit assembly text (what llc -filetype=asm prints) instead of a
  /// relocatable object: the instrumentation splices compiled hooks into
  /// the assembly of the code it re-emits.
  bool Assembly = false;
  /// The middle end as a pass pipeline in opt's syntax ("function(sroa,
  /// instcombine)"); empty: clang's pipeline at OptLevel.
  std::string Passes;
};

/// Bytes of an object file or a code object.
using ObjectBytes = std::vector<char>;

/// Parses LLVM IR, as text or bitcode (detected from the bytes), into a
/// module of \p Ctx. \p Name names the input in messages ("kernel.ll").
llvm::Expected<std::unique_ptr<llvm::Module>>
parseIR(llvm::MemoryBufferRef Input, llvm::LLVMContext &Ctx);

/// Optimises \p M at Options.OptLevel and compiles it to a relocatable
/// AMDGPU object. \p M is changed (its triple and data layout are set, the
/// optimiser runs on it). A module with no triple gets amdgcn-amd-amdhsa;
/// one for another triple is an error.
llvm::Expected<ObjectBytes> compileModule(llvm::Module &M,
                                          const CompileOptions &Options);

/// compileModule on several threads at once: the functions \p M defines
/// are shared out among up to \p Parts modules (whole functions, balanced
/// by size), each optimised and compiled on a thread with an LLVMContext of
/// its own; one output per part, in no particular order. Functions that do
/// not call each other come out as compileModule makes them (but for the
/// numbers in their local labels). \p Parts 0: defaultCompileParts(). An error
/// names the functions of each part that failed, by \p Describe if given,
/// and keeps every part's message. \p M is left without its functions'
/// bodies.
llvm::Expected<std::vector<ObjectBytes>> compileModuleInParts(
    llvm::Module &M, const CompileOptions &Options, unsigned Parts,
    llvm::function_ref<std::string(const llvm::Function &)> Describe = {});

/// Leaves \p M defining only the functions \p Keep accepts (all it
/// defines, without \p Keep): the others' bodies deleted, then every
/// declaration nothing uses any more erased.
void keepFunctions(
    llvm::Module &M,
    llvm::function_ref<bool(const llvm::Function &)> Keep = {});

/// The parts compileModuleInParts makes when asked for 0: LOOM_COMPILE_THREADS
/// if set (at least 1), else one per core, at most 8.
unsigned defaultCompileParts();

/// Assembles AMDGPU assembly text (llvm-mc syntax, .amdhsa_kernel
/// directives included) into a relocatable object. \p Name names the
/// input in messages ("kernel.s:12:3: error: ...").
llvm::Expected<ObjectBytes> assembleObject(llvm::StringRef Assembly,
                                           llvm::StringRef Name,
                                           const TargetSpec &Target);

struct LinkOptions {
  /// Leave symbols no input defines undefined in the result, for the HSA
  /// loader to bind at freeze time against the other code objects of an
  /// executable (a program of several modules). Off: an error naming them.
  bool AllowUndefined = false;
};

/// Links relocatable AMDGPU objects into one loadable code object (a shared
/// object, as clang's driver links with ld.lld -shared). lld keeps global
/// state, so links are serialised in the process; each starts pristine.
llvm::Expected<ObjectBytes> linkObjects(llvm::ArrayRef<ObjectBytes> Objects,
                                        const LinkOptions &Options = {});

/// compileModule, then linkObjects of the one object.
llvm::Expected<ObjectBytes> compileAndLink(llvm::Module &M,
                                           const CompileOptions &Options,
                                           const LinkOptions &Link = {});

} // namespace loom::jit

#endif // LOOM_JIT_PIPELINE_H
