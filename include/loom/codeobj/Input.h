//===- loom/codeobj/Input.h - Files that carry code objects ---------------===//
//
// Reads any file Loom accepts and yields the code objects inside it. The kind
// is detected from the bytes: a raw AMDGPU ELF, a clang offload bundle
// (uncompressed or compressed), or a host ELF executable or shared library
// whose .hip_fatbin section carries bundles.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_CODEOBJ_INPUT_H
#define LOOM_CODEOBJ_INPUT_H

#include "loom/codeobj/CodeObject.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace loom::codeobj {

enum class InputKind { CodeObject, OffloadBundle, CompressedOffloadBundle, HostBinary };

llvm::StringRef inputKindName(InputKind K);

/// A code object and where it was found.
struct EmbeddedCodeObject {
  /// Bundle entry id ("hipv4-amdgcn-amd-amdhsa--gfx90a"); empty for a raw
  /// code object.
  std::string EntryId;
  /// Byte offset of the code object in the file; for a compressed bundle,
  /// the offset in its decompressed contents.
  uint64_t FileOffset = 0;
  std::unique_ptr<CodeObject> Object;
};

/// Non-AMDGPU bundle entries (the "host-..." placeholder, other targets) are
/// listed but not parsed.
struct OtherBundleEntry {
  std::string EntryId;
  uint64_t FileOffset = 0;
  uint64_t Size = 0;
};

struct Input {
  std::string Path;
  InputKind Kind = InputKind::CodeObject;
  std::vector<EmbeddedCodeObject> CodeObjects;
  std::vector<OtherBundleEntry> OtherEntries;
};

/// Largest input Loom reads (a file, a reader's bytes, a decompressed
/// bundle): larger inputs are refused before they are read.
constexpr uint64_t MaxInputBytes = uint64_t(1) << 30;

/// Reads \p Path, which must be a regular file of at most MaxInputBytes.
/// Every error message starts with the path.
llvm::Expected<Input> readInputFile(llvm::StringRef Path);

/// Reads an in-memory file named \p Name.
llvm::Expected<Input> readInput(llvm::ArrayRef<uint8_t> Bytes,
                                llvm::StringRef Name);

/// \p E prefixed with \p Path unless its message starts with it already
/// (errors of embedded code objects name "file#offset=N"), the rest of the
/// message on one line (oneLine).
llvm::Error withPath(llvm::StringRef Path, llvm::Error E);

} // namespace loom::codeobj

#endif // LOOM_CODEOBJ_INPUT_H
