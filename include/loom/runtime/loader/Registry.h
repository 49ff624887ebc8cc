//===- loom/runtime/loader/Registry.h - Every live loader object ----------===//
//
// The process-wide record of live executables, their loaded code objects and
// symbols, and code object readers. It answers what the AMD loader
// extension asks about the whole process (iterate executables, which
// executable holds an address, host address of a device address, segment
// descriptors), and lets the C binding check a handle before using it:
// handles are object addresses, as in ROCr, and a handle the registry does
// not know is refused, never followed.
//
// The registry only reads its own tables under its own lock; executables
// update it (executable lock, then registry lock), never the other way.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_RUNTIME_LOADER_REGISTRY_H
#define LOOM_RUNTIME_LOADER_REGISTRY_H

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <vector>

namespace loom::loader {

class CodeObjectReader;
class Executable;
class LoadedCodeObject;
struct Symbol;

/// One loaded segment (Loom loads each code object as one contiguous image),
/// as hsa_ven_amd_loader_segment_descriptor_t describes it.
struct SegmentDescriptor {
  std::optional<uint64_t> Agent; ///< none for a program code object
  const Executable *Exec = nullptr;
  const LoadedCodeObject *Code = nullptr;
  /// Loom's copy of the code object backing the segment.
  const void *StorageBase = nullptr;
  uint64_t StorageSize = 0;
  /// Offset in the code object of the first byte copied into the segment.
  uint64_t StorageOffset = 0;
  uint64_t SegmentBase = 0;
  uint64_t SegmentSize = 0;
};

class Registry {
public:
  static Registry &instance();

  /// Live executables, in creation order.
  std::vector<Executable *> executables() const;

  bool isExecutable(const void *P) const;
  bool isLoadedCodeObject(const void *P) const;
  bool isSymbol(const void *P) const;
  bool isReader(const void *P) const;

  /// The loaded code object (and its executable) whose image holds
  /// \p DeviceAddress, or null.
  const LoadedCodeObject *loadedCodeObjectAt(uint64_t DeviceAddress) const;
  Executable *executableAt(uint64_t DeviceAddress) const;
  /// Host address of a byte of a loaded image (identity: device memory is
  /// host memory); none if no loaded code object holds it.
  std::optional<uint64_t> hostAddress(uint64_t DeviceAddress) const;

  std::vector<SegmentDescriptor> segmentDescriptors() const;

  // Bookkeeping, called by Executable and the C binding.
  void addExecutable(Executable *E);
  void removeExecutable(Executable *E);
  void addLoadedCodeObject(const LoadedCodeObject *L);
  void removeLoadedCodeObject(const LoadedCodeObject *L);
  void addSymbol(const Symbol *S);
  void removeSymbol(const Symbol *S);
  void addReader(const CodeObjectReader *R);
  void removeReader(const CodeObjectReader *R);

private:
  Registry() = default;

  mutable std::mutex Lock;
  std::vector<Executable *> Executables;
  /// Loaded images by base address.
  std::map<uint64_t, const LoadedCodeObject *> Images;
  std::set<const void *> LoadedCodeObjects;
  std::set<const void *> Symbols;
  std::set<const void *> Readers;
};

} // namespace loom::loader

#endif // LOOM_RUNTIME_LOADER_REGISTRY_H
