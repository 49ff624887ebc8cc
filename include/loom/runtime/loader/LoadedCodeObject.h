//===- loom/runtime/loader/LoadedCodeObject.h - A code object in memory ---===//
//
// One code object loaded into an executable for an agent (or for the
// program): where its image lives, where it came from, and the emu::Module
// that placed it and registered its code with the virtual GPU.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_RUNTIME_LOADER_LOADEDCODEOBJECT_H
#define LOOM_RUNTIME_LOADER_LOADEDCODEOBJECT_H

#include "loom/runtime/loader/CodeObjectReader.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace loom::emu {
class Device;
class Module;
} // namespace loom::emu

namespace loom::loader {

class Executable;

/// Mirrors hsa_ven_amd_loader_loaded_code_object_kind_t.
enum class LoadedCodeObjectKind : uint8_t { Program = 1, Agent = 2 };

class LoadedCodeObject {
public:
  ~LoadedCodeObject();

  Executable &executable() const { return *Owner; }
  LoadedCodeObjectKind kind() const { return Kind; }
  /// The agent's handle (Agent kind only).
  std::optional<uint64_t> agent() const { return AgentHandle; }
  emu::Device &device() const { return *Dev; }

  /// Name used in messages and as module name of local symbols.
  llvm::StringRef name() const { return Name; }
  std::string uri() const { return Uri; }

  ReaderStorage storage() const { return Storage; }
  /// Memory readers: the caller's pointer to this code object, and its size.
  uint64_t storageMemoryBase() const { return StorageBase; }
  uint64_t storageMemorySize() const { return StorageSize; }
  /// File readers: the descriptor the reader was created from.
  int storageFile() const { return StorageFd; }

  /// Loom's copy of the ELF bytes (always readable).
  const codeobj::CodeObject &codeObject() const { return *CO; }

  /// Lowest loaded address, bytes loaded, and load address minus ELF
  /// virtual address.
  uint64_t loadBase() const;
  uint64_t loadSize() const;
  int64_t loadDelta() const;
  bool contains(uint64_t Address) const {
    return Address >= loadBase() && Address - loadBase() < loadSize();
  }

  /// Offset in the code object of the first byte of the lowest PT_LOAD
  /// segment.
  uint64_t storageOffset() const { return FirstSegmentOffset; }
  /// Position among the loaded code objects of its executable.
  unsigned loadOrder() const { return Order; }

  emu::Module &module() const { return *Mod; }

private:
  friend class Executable;
  LoadedCodeObject() = default;

  Executable *Owner = nullptr;
  LoadedCodeObjectKind Kind = LoadedCodeObjectKind::Agent;
  std::optional<uint64_t> AgentHandle;
  emu::Device *Dev = nullptr;
  std::string Name;
  std::string Uri;
  ReaderStorage Storage = ReaderStorage::Memory;
  uint64_t StorageBase = 0;
  uint64_t StorageSize = 0;
  int StorageFd = -1;
  uint64_t LowestVAddr = 0;
  uint64_t FirstSegmentOffset = 0;
  unsigned Order = 0;
  std::shared_ptr<const codeobj::CodeObject> CO;
  std::unique_ptr<emu::Module> Mod;
};

} // namespace loom::loader

#endif // LOOM_RUNTIME_LOADER_LOADEDCODEOBJECT_H
