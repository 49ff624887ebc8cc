//===- loom/codeobj/CodeObject.h - One AMDGPU ELF code object -------------===//
//
// A parsed, validated AMDGPU code object: target, ABI version, kernels with
// their descriptors and metadata, device functions, variables, dynamic
// relocations and undefined symbols. Construction checks every offset it
// later relies on, so accessors never fail and never read out of bounds.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_CODEOBJ_CODEOBJECT_H
#define LOOM_CODEOBJ_CODEOBJECT_H

#include "loom/codeobj/KernelDescriptor.h"
#include "loom/codeobj/Metadata.h"
#include "loom/codeobj/Target.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace loom::codeobj {

enum class SymbolBinding : uint8_t { Local, Global, Weak };
enum class SymbolVisibility : uint8_t { Default, Internal, Hidden, Protected };

llvm::StringRef bindingName(SymbolBinding B);
llvm::StringRef visibilityName(SymbolVisibility V);

/// What every symbol kind shares. Addresses are ELF virtual addresses
/// (offsets from the load base once loaded).
struct SymbolInfo {
  std::string Name;
  uint64_t Address = 0;
  uint64_t Size = 0;
  std::string Section;
  SymbolBinding Binding = SymbolBinding::Local;
  SymbolVisibility Visibility = SymbolVisibility::Default;
};

/// A kernel: its code symbol (`name`), its descriptor (`name.kd`) and its
/// metadata entry, tied together by name.
struct Kernel {
  SymbolInfo Code;       // STT_FUNC `name`, the entry
  SymbolInfo Descriptor; // STT_OBJECT `name.kd`
  KernelDescriptor KD;
  /// Entry computed from the descriptor (descriptor address + entry offset).
  uint64_t EntryAddress = 0;
  /// Index into metadata().Kernels, if the note describes this kernel.
  std::optional<size_t> MetadataIndex;

  llvm::StringRef name() const { return Code.Name; }
};

/// A device function: an STT_FUNC symbol that is not a kernel entry.
struct Function {
  SymbolInfo Sym;
  llvm::StringRef name() const { return Sym.Name; }
};

/// A variable: an STT_OBJECT symbol that is not a kernel descriptor.
struct Variable {
  SymbolInfo Sym;
  llvm::StringRef name() const { return Sym.Name; }
};

/// An entry of .rela.dyn / .dynamic relocations.
struct DynamicRelocation {
  uint64_t Offset = 0;
  uint32_t Type = 0;
  std::string TypeName; // R_AMDGPU_ABS64, ...
  std::string Symbol;   // empty for relative relocations
  int64_t Addend = 0;
};

/// An undefined symbol of the dynamic symbol table (resolved at freeze time
/// against other code objects or host-defined globals).
struct UndefinedSymbol {
  std::string Name;
  SymbolBinding Binding = SymbolBinding::Global;
  bool IsFunction = false;
};

/// Loaded size and alignment of the PT_LOAD image, and where each byte of it
/// comes from in the file.
struct LoadSegment {
  uint64_t VAddr = 0;
  uint64_t MemSize = 0;
  uint64_t FileOffset = 0;
  uint64_t FileSize = 0;
  uint32_t Flags = 0; // PF_R/PF_W/PF_X
};

class CodeObject {
public:
  /// Parses \p Bytes (copied, so the caller's buffer may go away). \p Name
  /// names the code object in error messages (a file name, or
  /// "file#offset=N" for an embedded one).
  static llvm::Expected<std::unique_ptr<CodeObject>>
  create(llvm::ArrayRef<uint8_t> Bytes, llvm::StringRef Name);

  llvm::StringRef name() const { return Name; }
  llvm::ArrayRef<uint8_t> bytes() const { return Bytes; }

  const TargetId &target() const { return Target; }
  /// Code object ABI version: 4, 5 or 6 (from e_ident[EI_ABIVERSION]).
  unsigned abiVersion() const { return AbiVersion; }
  uint32_t elfFlags() const { return ElfFlags; }

  llvm::ArrayRef<Kernel> kernels() const { return Kernels; }
  llvm::ArrayRef<Function> functions() const { return Functions; }
  llvm::ArrayRef<Variable> variables() const { return Variables; }
  /// Sized symbols of no type (STT_NOTYPE with st_size): ranges of code a
  /// producer named, such as the hooks instrumentation inserts.
  llvm::ArrayRef<SymbolInfo> labels() const { return Labels; }
  llvm::ArrayRef<DynamicRelocation> dynamicRelocations() const {
    return DynRelocs;
  }
  llvm::ArrayRef<UndefinedSymbol> undefinedSymbols() const { return Undefs; }
  llvm::ArrayRef<LoadSegment> loadSegments() const { return Segments; }
  const Metadata &metadata() const { return MD; }
  /// The NT_AMDGPU_METADATA note's msgpack blob, as found (the instrumenter
  /// re-emits it for the instrumented copies); empty if none.
  llvm::StringRef metadataNote() const { return MetadataNote; }

  const Kernel *findKernel(llvm::StringRef Name) const;
  const Function *findFunction(llvm::StringRef Name) const;
  const Variable *findVariable(llvm::StringRef Name) const;
  const KernelMetadata *metadataOf(const Kernel &K) const;

  /// Bytes at ELF virtual addresses [VAddr, VAddr + Size), read through the
  /// PT_LOAD segments. Fails if any byte is outside the file image.
  llvm::Expected<llvm::ArrayRef<uint8_t>> contents(uint64_t VAddr,
                                                   uint64_t Size) const;

  /// Size of the loaded image: end of the highest PT_LOAD segment.
  uint64_t loadedSize() const;

private:
  CodeObject() = default;
  llvm::Error parse();

  std::string Name;
  std::vector<uint8_t> Bytes;
  TargetId Target;
  unsigned AbiVersion = 0;
  uint32_t ElfFlags = 0;
  std::vector<Kernel> Kernels;
  std::vector<Function> Functions;
  std::vector<Variable> Variables;
  std::vector<SymbolInfo> Labels;
  std::vector<DynamicRelocation> DynRelocs;
  std::vector<UndefinedSymbol> Undefs;
  std::vector<LoadSegment> Segments;
  std::string MetadataNote;
  Metadata MD;
};

/// True if \p Name names the symbol \p Symbol: the symbol itself, its
/// demangled form, or the demangled form without parameters ("saxpy" for
/// "_Z6saxpyfPKfPfi").
bool symbolNameMatches(llvm::StringRef Symbol, llvm::StringRef Name);

} // namespace loom::codeobj

#endif // LOOM_CODEOBJ_CODEOBJECT_H
