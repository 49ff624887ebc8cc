//===- loom/runtime/loader/CodeObjectReader.h - Where code objects come from ===//
//
// An HSA code object reader: the bytes of a code object file, from memory or
// from a file descriptor. The reader copies and parses the bytes when it is
// created, so the caller's memory may go away at once (HSA only promises it
// stays valid until the reader is destroyed; Loom never reads it again).
// Bad bytes do not fail creation (ROCr accepts any bytes there too): the
// parse error is kept and every load through the reader fails with it, as
// an InvalidCodeObject error; check() reports it early.
//
// Beyond raw AMDGPU ELF code objects a reader accepts clang offload bundles
// (plain or compressed) and host binaries carrying them; loading picks the
// entry that best matches the agent's ISA.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_RUNTIME_LOADER_CODEOBJECTREADER_H
#define LOOM_RUNTIME_LOADER_CODEOBJECTREADER_H

#include "loom/codeobj/CodeObject.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace loom::loader {

enum class ReaderStorage : uint8_t { Memory, File };

class CodeObjectReader {
public:
  /// One code object the reader holds.
  struct Entry {
    /// Bundle entry id ("hipv4-amdgcn-amd-amdhsa--gfx90a"); empty for a raw
    /// code object.
    std::string EntryId;
    /// Offset of the code object in the reader's bytes.
    uint64_t Offset = 0;
    std::shared_ptr<const codeobj::CodeObject> Object;
  };

  /// A reader over [Ptr, Ptr + Size). Fails (InvalidArgument) only for a
  /// null pointer or a zero size.
  static llvm::Expected<std::unique_ptr<CodeObjectReader>>
  fromMemory(const void *Ptr, size_t Size);

  /// A reader over \p Size bytes of the open file \p Fd from \p Offset
  /// (Size 0: to the end of the file). The descriptor is read now and not
  /// kept open by Loom (its number is reported back). InvalidFile if it
  /// cannot be read.
  static llvm::Expected<std::unique_ptr<CodeObjectReader>>
  fromFile(int Fd, uint64_t Offset = 0, uint64_t Size = 0);

  /// Opens, reads and closes \p Path.
  static llvm::Expected<std::unique_ptr<CodeObjectReader>>
  fromPath(llvm::StringRef Path);

  ReaderStorage storage() const { return Storage; }
  /// The caller's pointer (memory readers), never dereferenced by Loom.
  const void *memoryBase() const { return MemoryBase; }
  /// Bytes the reader covers.
  uint64_t size() const { return Bytes.size(); }
  /// File descriptor, path (from /proc/self/fd, may be empty) and offset of
  /// file readers.
  int fd() const { return Fd; }
  llvm::StringRef path() const { return Path; }
  uint64_t fileOffset() const { return FileOffset; }
  /// Loom's copy of the bytes.
  llvm::ArrayRef<uint8_t> bytes() const { return Bytes; }

  /// Success if the bytes hold at least one AMDGPU code object; otherwise
  /// the parse error (InvalidCodeObject).
  llvm::Error check() const;
  /// Every AMDGPU code object inside (empty if the bytes did not parse).
  llvm::ArrayRef<Entry> entries() const { return Entries; }

  /// The entry to load for an agent whose ISA is \p AgentIsa: the one whose
  /// target matches it best. InvalidCodeObject if the bytes did not parse,
  /// IncompatibleIsa naming every target found if none can run there.
  llvm::Expected<const Entry &> select(const codeobj::TargetId &AgentIsa) const;

  /// The loaded-code-object URI of \p E, as AMDGPUUsage defines it:
  /// file://PATH#offset=N&size=N or memory://PID#offset=0xADDR&size=N.
  std::string uri(const Entry &E) const;

private:
  CodeObjectReader() = default;
  void parse(llvm::StringRef Name);

  ReaderStorage Storage = ReaderStorage::Memory;
  const void *MemoryBase = nullptr;
  int Fd = -1;
  std::string Path;
  uint64_t FileOffset = 0;
  std::vector<uint8_t> Bytes;
  std::vector<Entry> Entries;
  std::string ParseError; // empty if the bytes parsed
};

} // namespace loom::loader

#endif // LOOM_RUNTIME_LOADER_CODEOBJECTREADER_H
