//===- runtime/loader/CodeObjectReader.cpp - Code object readers ----------===//

#include "loom/runtime/loader/CodeObjectReader.h"

#include "loom/codeobj/Input.h"
#include "loom/runtime/loader/Agent.h"
#include "loom/runtime/loader/LoaderError.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;

namespace loom::loader {

Expected<std::unique_ptr<CodeObjectReader>>
CodeObjectReader::fromMemory(const void *Ptr, size_t Size) {
  if (!Ptr)
    return loaderError(LoaderErrc::InvalidArgument,
                       "code object reader: null code object pointer");
  if (Size == 0)
    return loaderError(LoaderErrc::InvalidArgument,
                       "code object reader: code object size is 0");
  if (Size > codeobj::MaxInputBytes)
    return loaderError(LoaderErrc::InvalidArgument,
                       formatv("code object reader: {0} bytes, more than "
                               "Loom's limit of {1} for a code object",
                               Size, codeobj::MaxInputBytes)
                           .str());
  std::unique_ptr<CodeObjectReader> R(new CodeObjectReader());
  R->Storage = ReaderStorage::Memory;
  R->MemoryBase = Ptr;
  const uint8_t *P = static_cast<const uint8_t *>(Ptr);
  R->Bytes.assign(P, P + Size);
  R->parse(formatv("memory at {0:x}", reinterpret_cast<uint64_t>(Ptr)).str());
  return std::move(R);
}

/// The path an open descriptor names, or "" (deleted files, pipes...).
static std::string pathOfFd(int Fd) {
  std::string Proc = "/proc/self/fd/" + std::to_string(Fd);
  char Buf[4096];
  ssize_t N = ::readlink(Proc.c_str(), Buf, sizeof(Buf) - 1);
  if (N <= 0 || Buf[0] != '/')
    return "";
  return std::string(Buf, N);
}

Expected<std::unique_ptr<CodeObjectReader>>
CodeObjectReader::fromFile(int Fd, uint64_t Offset, uint64_t Size) {
  struct stat St;
  if (Fd < 0 || ::fstat(Fd, &St) != 0)
    return loaderError(LoaderErrc::InvalidFile,
                       "code object reader: file descriptor " + Twine(Fd) +
                           " is not open");
  if (S_ISDIR(St.st_mode))
    return loaderError(LoaderErrc::InvalidFile,
                       "code object reader: file descriptor " + Twine(Fd) +
                           " is a directory");
  // /dev/zero and the like never end; pipes are read up to the cap.
  if (S_ISCHR(St.st_mode) || S_ISBLK(St.st_mode))
    return loaderError(LoaderErrc::InvalidFile,
                       "code object reader: file descriptor " + Twine(Fd) +
                           " is a device, not a file");
  if (Size > codeobj::MaxInputBytes ||
      (S_ISREG(St.st_mode) && !Size &&
       uint64_t(St.st_size) > Offset + codeobj::MaxInputBytes))
    return loaderError(LoaderErrc::InvalidFile,
                       formatv("code object reader: file descriptor {0} holds "
                               "more than Loom's limit of {1} bytes for a "
                               "code object",
                               Fd, codeobj::MaxInputBytes)
                           .str());
  std::unique_ptr<CodeObjectReader> R(new CodeObjectReader());
  R->Storage = ReaderStorage::File;
  R->Fd = Fd;
  R->Path = pathOfFd(Fd);
  R->FileOffset = Offset;
  std::string Name = R->Path.empty() ? "file descriptor " + std::to_string(Fd)
                                     : R->Path;
  // pread, so the descriptor's own offset is left alone; read until the end
  // when no size is given (pipes and /proc files have no useful st_size).
  uint64_t Want = Size ? Size : UINT64_MAX;
  uint64_t Pos = Offset;
  char Buf[1 << 16];
  while (R->Bytes.size() < Want) {
    size_t Chunk = std::min<uint64_t>(sizeof(Buf), Want - R->Bytes.size());
    ssize_t N = ::pread(Fd, Buf, Chunk, Pos);
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0)
      return loaderError(LoaderErrc::InvalidFile,
                         "code object reader: cannot read " + Name + ": " +
                             std::strerror(errno));
    if (N == 0)
      break;
    R->Bytes.insert(R->Bytes.end(), Buf, Buf + N);
    Pos += N;
    if (R->Bytes.size() > codeobj::MaxInputBytes)
      return loaderError(LoaderErrc::InvalidFile,
                         formatv("code object reader: {0} holds more than "
                                 "Loom's limit of {1} bytes for a code object",
                                 Name, codeobj::MaxInputBytes)
                             .str());
  }
  if (Size && R->Bytes.size() != Size)
    return loaderError(LoaderErrc::InvalidFile,
                       formatv("code object reader: {0} has {1} bytes at "
                               "offset {2}, {3} requested",
                               Name, R->Bytes.size(), Offset, Size)
                           .str());
  if (R->Bytes.empty())
    return loaderError(LoaderErrc::InvalidFile,
                       "code object reader: " + Name + " is empty at offset " +
                           Twine(Offset));
  R->parse(Name);
  return std::move(R);
}

Expected<std::unique_ptr<CodeObjectReader>>
CodeObjectReader::fromPath(StringRef Path) {
  int Fd = ::open(Path.str().c_str(), O_RDONLY | O_CLOEXEC);
  if (Fd < 0)
    return loaderError(LoaderErrc::InvalidFile,
                       "cannot open " + Path + ": " + std::strerror(errno));
  auto R = fromFile(Fd);
  ::close(Fd);
  if (R)
    (*R)->Fd = -1; // closed: only the path remains meaningful
  return R;
}

void CodeObjectReader::parse(StringRef Name) {
  Expected<codeobj::Input> In = codeobj::readInput(Bytes, Name);
  if (!In) {
    ParseError = toString(In.takeError());
    return;
  }
  for (codeobj::EmbeddedCodeObject &E : In->CodeObjects)
    Entries.push_back({E.EntryId, E.FileOffset, std::move(E.Object)});
  if (Entries.empty())
    ParseError = (Name + ": holds no AMDGPU code object").str();
}

Error CodeObjectReader::check() const {
  if (!ParseError.empty())
    return loaderError(LoaderErrc::InvalidCodeObject, ParseError);
  return Error::success();
}

Expected<const CodeObjectReader::Entry &>
CodeObjectReader::select(const codeobj::TargetId &AgentIsa) const {
  if (Error E = check())
    return std::move(E);
  const Entry *Best = nullptr;
  int BestScore = -1;
  for (const Entry &E : Entries) {
    int Score = isaMatchScore(E.Object->target(), AgentIsa);
    if (Score > BestScore) {
      Best = &E;
      BestScore = Score;
    }
  }
  if (Best)
    return *Best;
  if (Entries.size() == 1)
    return checkIsaCompatible(Entries[0].Object->target(), AgentIsa);
  std::string Targets;
  for (const Entry &E : Entries)
    Targets += (Targets.empty() ? "" : ", ") + E.Object->target().str();
  return loaderError(LoaderErrc::IncompatibleIsa,
                     "no code object for an agent of ISA " + AgentIsa.str() +
                         " (the reader holds " + Targets + ")");
}

/// AMDGPUUsage URI encoding: every byte outside [a-zA-Z0-9/_.~-] as %XX.
static std::string uriEncode(StringRef Path) {
  std::string Out;
  for (unsigned char C : Path) {
    if (isAlnum(C) || C == '/' || C == '_' || C == '.' || C == '~' || C == '-')
      Out += C;
    else {
      Out += '%';
      Out += hexdigit(C >> 4);
      Out += hexdigit(C & 15);
    }
  }
  return Out;
}

std::string CodeObjectReader::uri(const Entry &E) const {
  uint64_t Size = E.Object->bytes().size();
  if (Storage == ReaderStorage::File && !Path.empty())
    return formatv("file://{0}#offset={1}&size={2}", uriEncode(Path),
                   FileOffset + E.Offset, Size)
        .str();
  uint64_t Addr = Storage == ReaderStorage::Memory
                      ? reinterpret_cast<uint64_t>(MemoryBase) + E.Offset
                      : reinterpret_cast<uint64_t>(E.Object->bytes().data());
  return formatv("memory://{0}#offset={1:x}&size={2}", ::getpid(), Addr, Size)
      .str();
}

} // namespace loom::loader
