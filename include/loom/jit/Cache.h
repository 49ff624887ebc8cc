//===- loom/jit/Cache.h - Linked code objects on disk, keyed by their IR --===//
//
// An opt-in cache of the pipeline's output. The key hashes (BLAKE3) the IR
// as given, the target, the compile and link options, and the versions of
// Loom and LLVM, so a change to any of them misses. An entry carries its
// size and a hash of its contents: a truncated or corrupt entry is found
// on lookup, removed, and rebuilt by the caller. Entries are written to a
// temporary file and renamed into place, so readers never see half of one
// and processes may share a directory.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_JIT_CACHE_H
#define LOOM_JIT_CACHE_H

#include "loom/jit/Pipeline.h"

#include <atomic>
#include <optional>
#include <string>

namespace loom::jit {

class CodeObjectCache {
public:
  /// Entries live in \p Directory, created on first store.
  explicit CodeObjectCache(std::string Directory);

  /// The key of \p IR (text or bitcode) compiled and linked with these
  /// options: 64 hex digits.
  static std::string key(llvm::ArrayRef<char> IR, const CompileOptions &C,
                         const LinkOptions &L);

  /// The entry for \p Key, or nothing on a miss. A damaged entry is a miss
  /// (and counted in discarded()); it is removed.
  std::optional<ObjectBytes> lookup(llvm::StringRef Key);
  llvm::Error store(llvm::StringRef Key, llvm::ArrayRef<char> CodeObject);

  /// Path of \p Key's entry (tests damage entries through it).
  std::string pathOf(llvm::StringRef Key) const;
  const std::string &directory() const { return Dir; }

  uint64_t hits() const { return Hits; }
  uint64_t misses() const { return Misses; }
  uint64_t discarded() const { return Discarded; }

private:
  std::string Dir;
  std::atomic<uint64_t> Hits{0}, Misses{0}, Discarded{0};
};

} // namespace loom::jit

#endif // LOOM_JIT_CACHE_H
