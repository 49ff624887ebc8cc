//===- jit/Cache.cpp - Linked code objects on disk ------------------------===//
//
// Entry layout: "LOOMCO01", payload size (u64, little-endian), BLAKE3 of
// the payload (32 bytes), payload.
//
//===----------------------------------------------------------------------===//

#include "loom/jit/Cache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace llvm;

#ifndef LOOM_VERSION
#error "LOOM_VERSION is set by the build"
#endif

namespace loom::jit {

namespace {

constexpr char Magic[8] = {'L', 'O', 'O', 'M', 'C', 'O', '0', '1'};
constexpr size_t HeaderSize = sizeof(Magic) + 8 + 32;

BLAKE3Result<32> hashOf(ArrayRef<char> Bytes) {
  return BLAKE3::hash<32>(
      ArrayRef(reinterpret_cast<const uint8_t *>(Bytes.data()), Bytes.size()));
}

} // namespace

CodeObjectCache::CodeObjectCache(std::string Directory)
    : Dir(std::move(Directory)) {}

std::string CodeObjectCache::key(ArrayRef<char> IR, const CompileOptions &C,
                                 const LinkOptions &L) {
  BLAKE3 H;
  // Each field ends with a NUL so that no two settings run together.
  auto Add = [&](StringRef S) {
    H.update(S);
    H.update(StringRef("\0", 1));
  };
  Add("loom " LOOM_VERSION);
  Add("llvm " LLVM_VERSION_STRING);
  Add(C.Target.Processor);
  Add(C.Target.Features);
  Add(std::to_string(C.OptLevel));
  Add(L.AllowUndefined ? "allow-undefined" : "no-undefined");
  H.update(ArrayRef(reinterpret_cast<const uint8_t *>(IR.data()), IR.size()));
  BLAKE3Result<32> R = H.final<32>();
  return toHex(R, /*LowerCase=*/true);
}

std::string CodeObjectCache::pathOf(StringRef Key) const {
  SmallString<256> P(Dir);
  sys::path::append(P, Key + ".co");
  return std::string(P);
}

std::optional<ObjectBytes> CodeObjectCache::lookup(StringRef Key) {
  std::string Path = pathOf(Key);
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false);
  if (!Buf) {
    ++Misses;
    return std::nullopt;
  }
  StringRef Data = (*Buf)->getBuffer();
  uint64_t Size = 0;
  bool Intact = Data.size() >= HeaderSize &&
                std::memcmp(Data.data(), Magic, sizeof(Magic)) == 0;
  if (Intact) {
    std::memcpy(&Size, Data.data() + sizeof(Magic), 8);
    Intact = Data.size() - HeaderSize == Size;
  }
  ArrayRef<char> Payload;
  if (Intact) {
    Payload = ArrayRef(Data.data() + HeaderSize, Size);
    BLAKE3Result<32> H = hashOf(Payload);
    Intact = std::memcmp(H.data(), Data.data() + sizeof(Magic) + 8, 32) == 0;
  }
  if (!Intact) {
    sys::fs::remove(Path);
    ++Discarded;
    ++Misses;
    return std::nullopt;
  }
  ++Hits;
  return ObjectBytes(Payload.begin(), Payload.end());
}

Error CodeObjectCache::store(StringRef Key, ArrayRef<char> CodeObject) {
  if (std::error_code EC = sys::fs::create_directories(Dir))
    return createStringError(EC, "JIT cache: cannot create " + Dir + ": " +
                                     EC.message());
  std::string Path = pathOf(Key);
  SmallString<256> Temp;
  int Fd;
  if (std::error_code EC =
          sys::fs::createUniqueFile(Path + ".tmp%%%%%%%%", Fd, Temp))
    return createStringError(EC, "JIT cache: cannot write in " + Dir + ": " +
                                     EC.message());
  {
    raw_fd_ostream OS(Fd, /*shouldClose=*/true);
    uint64_t Size = CodeObject.size();
    BLAKE3Result<32> H = hashOf(CodeObject);
    OS.write(Magic, sizeof(Magic));
    OS.write(reinterpret_cast<const char *>(&Size), 8);
    OS.write(reinterpret_cast<const char *>(H.data()), H.size());
    OS.write(CodeObject.data(), CodeObject.size());
    OS.close();
    if (OS.has_error()) {
      std::error_code EC = OS.error();
      OS.clear_error();
      sys::fs::remove(Temp);
      return createStringError(EC, "JIT cache: writing " + Temp + ": " +
                                       EC.message());
    }
  }
  if (std::error_code EC = sys::fs::rename(Temp, Path)) {
    sys::fs::remove(Temp);
    return createStringError(EC, "JIT cache: " + EC.message());
  }
  return Error::success();
}

} // namespace loom::jit
