//===- jit/Linker.cpp - Relocatable objects to a code object, by lld ------===//
//
// lld is used as a library (lld::lldMain with the ELF driver). It reads its
// inputs and writes its output through file names, so the inputs live in
// memfd files, named by /proc/self/fd paths. lld removes and recreates its
// output file, which a /proc/self/fd path cannot be, so the output is a
// temporary file in /dev/shm (memory too; the system's temporary directory
// where there is no /dev/shm), read back and removed at once. lld
// keeps process-global state (its CommonLinkerContext), so one link runs
// at a time; lldMain resets that state after each link, and after a crash
// inside lld it says it cannot run again, which this file remembers.
//
//===----------------------------------------------------------------------===//

#include "loom/jit/Pipeline.h"

#include "Recovery.h"

#include "lld/Common/Driver.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/Errno.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

LLD_HAS_DRIVER(elf)

using namespace llvm;

namespace loom::jit {

namespace {

std::mutex LldMutex;
bool LldUnusable = false; // guarded by LldMutex

/// An anonymous in-memory file, closed when it goes.
class MemFile {
public:
  static Expected<MemFile> create(const char *Name) {
    int Fd = ::memfd_create(Name, MFD_CLOEXEC);
    if (Fd < 0)
      return createStringError("memfd_create: " + sys::StrError(errno));
    return MemFile(Fd);
  }
  MemFile(MemFile &&O) : Fd(std::exchange(O.Fd, -1)) {}
  ~MemFile() {
    if (Fd >= 0)
      ::close(Fd);
  }

  std::string path() const { return "/proc/self/fd/" + std::to_string(Fd); }

  Error write(ArrayRef<char> Bytes) {
    for (size_t Done = 0; Done < Bytes.size();) {
      ssize_t N = ::pwrite(Fd, Bytes.data() + Done, Bytes.size() - Done, Done);
      if (N < 0 && errno == EINTR)
        continue;
      if (N <= 0)
        return createStringError("writing a linker input: " +
                                 sys::StrError(errno));
      Done += N;
    }
    return Error::success();
  }

private:
  explicit MemFile(int Fd) : Fd(Fd) {}
  int Fd;
};

/// A new, empty file for lld's output.
Expected<std::string> temporaryOutput() {
  SmallString<128> Path;
  int Fd;
  std::error_code EC = sys::fs::createUniqueFile(
      "/dev/shm/loom-jit-%%%%%%%%%%%%.co", Fd, Path);
  if (EC)
    EC = sys::fs::createTemporaryFile("loom-jit", "co", Fd, Path);
  if (EC)
    return createStringError(EC, "cannot create the linker's output file: " +
                                     EC.message());
  ::close(Fd);
  return std::string(Path);
}

} // namespace

Expected<ObjectBytes> linkObjects(ArrayRef<ObjectBytes> Objects,
                                  const LinkOptions &Options) {
  if (Objects.empty())
    return createStringError("nothing to link");
  std::vector<MemFile> Inputs;
  std::vector<std::string> Paths;
  for (const ObjectBytes &O : Objects) {
    auto F = MemFile::create("loom-jit-input.o");
    if (!F)
      return F.takeError();
    if (Error E = F->write(O))
      return std::move(E);
    Paths.push_back(F->path());
    Inputs.push_back(std::move(*F));
  }
  Expected<std::string> Out = temporaryOutput();
  if (!Out)
    return Out.takeError();
  std::string OutPath = *Out;
  scope_exit RemoveOutput([&] { sys::fs::remove(OutPath); });

  // As clang's AMDGPU toolchain links (clang -### shows it).
  std::vector<const char *> Args = {"ld.lld", "-shared", "-o",
                                    OutPath.c_str()};
  if (!Options.AllowUndefined)
    Args.push_back("--no-undefined");
  // lld's parallel loops cost more than they save on small inputs: an
  // instrumented copy's objects (tens to hundreds of KiB) link in 1.2-1.5
  // ms on one thread, 2.3-3 ms with lld's default (one per core).
  size_t InputBytes = 0;
  for (const ObjectBytes &O : Objects)
    InputBytes += O.size();
  if (InputBytes < (size_t(4) << 20))
    Args.push_back("--threads=1");
  for (const std::string &P : Paths)
    Args.push_back(P.c_str());

  std::string Messages;
  {
    std::lock_guard<std::mutex> Lock(LldMutex);
    if (LldUnusable)
      return createStringError(
          "lld crashed earlier in this process and cannot link again");
    raw_string_ostream Out(Messages), Err(Messages);
    lld::Result R{1, true};
    Error E = runRecoverable("lld", [&]() -> Error {
      R = lld::lldMain(Args, Out, Err, {{lld::Gnu, &lld::elf::link}});
      return Error::success();
    });
    if (E || !R.canRunAgain)
      LldUnusable = true;
    if (E)
      return std::move(E);
    if (R.retCode != 0) {
      StringRef Text = StringRef(Messages).trim();
      // lld names inputs by their /proc/self/fd paths: say which object.
      std::string Clean = Text.str();
      for (size_t I = 0; I < Paths.size(); ++I)
        for (size_t At; (At = Clean.find(Paths[I])) != std::string::npos;)
          Clean.replace(At, Paths[I].size(), "object " + std::to_string(I + 1));
      return createStringError("linking the code object failed: " +
                               (Clean.empty() ? std::string("lld failed")
                                              : Clean));
    }
  }
  auto Bytes = MemoryBuffer::getFile(OutPath, /*IsText=*/false,
                                     /*RequiresNullTerminator=*/false);
  if (!Bytes)
    return createStringError("reading the linked code object " + OutPath +
                             ": " + Bytes.getError().message());
  return ObjectBytes((*Bytes)->getBufferStart(), (*Bytes)->getBufferEnd());
}

} // namespace loom::jit
