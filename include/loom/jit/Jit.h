//===- loom/jit/Jit.h - LLVM IR in, a launched kernel out -----------------===//
//
// The JIT's C++ API. A Device is a GPU agent of the HSA runtime the process
// runs on (Loom's virtual GPU by default; any agent of ROCm's runtime too).
// A Program is one HSA executable holding one code object per source
// (LLVM IR text or bitcode, a file, an llvm::Module, or an already linked
// code object); each is compiled and linked in-process (Pipeline.h) and
// the HSA loader binds their cross references at freeze time, so modules
// may call each other's device functions and share variables.
//
//   auto Dev = cantFail(loom::jit::Device::open());
//   auto Prog = Dev->compile(IRText);            // Expected<unique_ptr<Program>>
//   auto K = (*Prog)->kernel("saxpy");            // Expected<Kernel &>
//   auto L = K->launch({Blocks}, {256}, A, X, Y, N);
//   if (Error E = L->wait()) ...
//
// Arguments are checked against the kernel's metadata at the call: their
// number, each one's size and alignment; a mismatch is an error naming the
// argument. Hidden arguments are filled as a runtime fills them. Errors
// are llvm::Error with context; nothing here prints or exits.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_JIT_JIT_H
#define LOOM_JIT_JIT_H

#include "loom/jit/Pipeline.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/TypeName.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

namespace loom::codeobj {
struct KernelMetadata;
} // namespace loom::codeobj

namespace loom::jit {

class Device;
class Program;
class Stream;

/// Sizes of a grid (in work-groups) or a work-group (in work-items), as
/// HIP's dim3.
struct Dim3 {
  uint32_t X = 1, Y = 1, Z = 1;
  constexpr Dim3() = default;
  constexpr Dim3(uint32_t X, uint32_t Y = 1, uint32_t Z = 1)
      : X(X), Y(Y), Z(Z) {}
  /// 1, 2 or 3: the highest axis larger than 1.
  unsigned dimensions() const { return Z > 1 ? 3 : Y > 1 ? 2 : 1; }
};

/// One explicit kernel argument as the caller passed it.
struct ArgValue {
  const void *Data;
  uint32_t Size;
  uint32_t Align;
  llvm::StringRef Type; ///< the C++ type, for messages
};

template <typename T> ArgValue argValue(const T &V) {
  static_assert(std::is_trivially_copyable_v<T>,
                "kernel arguments are copied bytewise");
  return {&V, sizeof(T), alignof(T), llvm::getTypeName<T>()};
}

struct LaunchOptions {
  Dim3 Grid;  ///< work-groups per axis
  Dim3 Block; ///< work-items per work-group
  uint32_t DynamicLdsBytes = 0;
  Stream *On = nullptr; ///< null: the device's default stream
};

/// A submitted kernel. wait() returns once it has completed, or with the
/// queue's error if it faulted. Destroying a Launch waits for it, so
/// nothing it uses (its kernarg segment, its signal) goes while it runs.
/// A Launch must not outlive its Stream or its Program.
class Launch {
public:
  Launch(Launch &&O);
  Launch &operator=(Launch &&O);
  ~Launch();

  llvm::Error wait();
  bool done() const;

private:
  friend class Stream;
  Launch(Stream &S, uint64_t Signal, void *Kernarg, uint32_t KernargBytes,
         const std::string &Kernel)
      : S(&S), Signal(Signal), Kernarg(Kernarg), KernargBytes(KernargBytes),
        KernelName(&Kernel) {}
  void release();

  Stream *S = nullptr;
  uint64_t Signal = 0;
  void *Kernarg = nullptr;
  uint32_t KernargBytes = 0;
  const std::string *KernelName = nullptr; ///< the Kernel's, which outlives it
  bool Waited = false;
};

/// A kernel of a Program, with the layout of its arguments.
class Kernel {
public:
  struct Argument {
    std::string Name;      ///< as the metadata names it, may be empty
    std::string TypeName;  ///< OpenCL/HIP type name, may be empty
    std::string ValueKind; ///< by_value, global_buffer, ...
    uint32_t Offset = 0, Size = 0;
  };

  const std::string &symbol() const { return Symbol; }
  /// Demangled C++ name ("saxpy(float, float*)"), or the symbol.
  const std::string &name() const { return Demangled; }
  llvm::ArrayRef<Argument> arguments() const { return Explicit; }
  uint32_t kernargSize() const { return KernargSize; }
  uint32_t groupSegmentSize() const { return GroupSize; }
  uint32_t privateSegmentSize() const { return PrivateSize; }

  template <typename... Ts>
  llvm::Expected<Launch> launch(Dim3 Grid, Dim3 Block, const Ts &...Args) {
    LaunchOptions O;
    O.Grid = Grid;
    O.Block = Block;
    return launch(O, Args...);
  }
  template <typename... Ts>
  llvm::Expected<Launch> launch(const LaunchOptions &O, const Ts &...Args) {
    llvm::SmallVector<ArgValue, 8> Values = {argValue(Args)...};
    return launchPacked(O, Values);
  }
  /// The non-template core of launch().
  llvm::Expected<Launch> launchPacked(const LaunchOptions &O,
                                      llvm::ArrayRef<ArgValue> Args);

  Kernel(Program &P, std::string Symbol, std::string Demangled);

private:
  friend class Device;
  friend class Program;
  friend class Stream;
  Program *Owner;
  std::string Symbol, Demangled;
  std::vector<Argument> Explicit;
  /// Every argument, hidden ones included (shared_ptr: the type is only
  /// declared here).
  std::shared_ptr<const codeobj::KernelMetadata> Metadata;
  uint64_t Object = 0; ///< kernel descriptor address
  uint32_t KernargSize = 0, KernargAlign = 16, GroupSize = 0, PrivateSize = 0;
};

/// One source of a Program.
class Source {
public:
  /// LLVM IR, as text or bitcode; \p Name names it in messages.
  static Source ir(llvm::StringRef IR, llvm::StringRef Name = "<ir>");
  /// A .ll or .bc file.
  static Source file(llvm::StringRef Path);
  /// A module built in memory; compiling changes it (it is optimised).
  static Source module(std::unique_ptr<llvm::Module> M);
  /// AMDGPU assembly text (llvm-mc syntax, with .amdhsa_kernel and
  /// .amdgpu_metadata), assembled by LLVM's MC layer.
  static Source assembly(llvm::StringRef Text, llvm::StringRef Name = "<asm>");
  /// A code object already linked (by clang, say): loaded as it is.
  static Source codeObject(ObjectBytes Bytes, llvm::StringRef Name);

  Source(Source &&);
  Source &operator=(Source &&);
  ~Source();

private:
  friend class Device;
  enum class Kind { IR, File, Module, Assembly, CodeObject } K = Kind::IR;
  std::string Name;
  std::vector<char> Bytes;
  std::unique_ptr<llvm::Module> M;
  Source(Kind K, std::string Name, std::vector<char> Bytes = {});
};

struct ProgramOptions {
  unsigned OptLevel = 2; ///< 0 to 3
  /// Opt-in on-disk cache of linked code objects (Cache.h); empty: none.
  /// Only sources given as bytes (IR text, bitcode, files) are cached.
  std::string CacheDirectory;
};

/// A loaded, frozen HSA executable and its kernels.
class Program {
public:
  ~Program();

  /// The kernel named \p Name: its symbol, its demangled C++ name, or the
  /// demangled name without parameters when that is unique. A name no
  /// kernel has, or one several have, is an error listing the candidates.
  llvm::Expected<Kernel &> kernel(llvm::StringRef Name);
  llvm::ArrayRef<std::unique_ptr<Kernel>> kernels() const { return Kernels; }

  /// Device address of a global variable, by symbol.
  llvm::Expected<void *> variable(llvm::StringRef Symbol);

  /// The linked code objects, in source order (for inspection or saving).
  llvm::ArrayRef<ObjectBytes> codeObjects() const { return CodeObjects; }
  Device &device() const { return Dev; }

private:
  friend class Device;
  explicit Program(Device &D) : Dev(D) {}
  Device &Dev;
  uint64_t Executable = 0;
  std::vector<uint64_t> Readers;
  std::vector<ObjectBytes> CodeObjects;
  std::vector<std::unique_ptr<Kernel>> Kernels;
};

/// An HSA queue of a device. Launches on one stream run in order (each
/// packet has the barrier bit set), as on a HIP stream.
class Stream {
public:
  ~Stream();
  /// Waits for every launch submitted so far.
  llvm::Error synchronize();
  /// The queue's error, once a kernel of it has faulted: the stream is
  /// then unusable, and every further launch on it fails.
  llvm::Error status() const;
  Device &device() const { return Dev; }

private:
  friend class Device;
  friend class Kernel;
  friend class Launch;
  explicit Stream(Device &D) : Dev(D) {}
  llvm::Expected<Launch> submit(Kernel &K, const LaunchOptions &O,
                                llvm::ArrayRef<ArgValue> Args);
  llvm::Error waitSignal(uint64_t Signal, llvm::StringRef Kernel) const;
  static void onQueueError(int Status, void *Queue, void *Self);

  /// A completion signal and a kernarg buffer, reused by launch after
  /// launch so that a launch allocates nothing.
  struct Slot {
    uint64_t Signal = 0;
    void *Kernarg = nullptr;
    uint32_t Bytes = 0;
  };
  static constexpr uint32_t SlotKernargBytes = 4096;
  llvm::Expected<Slot> takeSlot(uint32_t KernargBytes);
  void giveBack(Slot S);

  Device &Dev;
  std::mutex SlotLock;
  std::vector<Slot> FreeSlots;
  void *Queue = nullptr; ///< hsa_queue_t *
  std::atomic<int> QueueStatus{0}; ///< hsa_status_t of a queue error
};

/// A GPU agent, its memory pools and a default stream.
class Device {
public:
  /// The \p Index-th GPU agent of the HSA runtime (0: the first). Calls
  /// hsa_init; the destructor calls hsa_shut_down.
  static llvm::Expected<std::unique_ptr<Device>> open(unsigned Index = 0);
  ~Device();

  /// The processor the agent's ISA names; code is compiled for it.
  const TargetSpec &target() const { return Target; }
  const std::string &name() const { return AgentName; }
  uint64_t agentHandle() const { return Agent; }

  /// Compiles and loads one program from \p Sources.
  llvm::Expected<std::unique_ptr<Program>>
  build(std::vector<Source> Sources, const ProgramOptions &O = {});
  /// One module of IR text or bitcode.
  llvm::Expected<std::unique_ptr<Program>>
  compile(llvm::StringRef IR, const ProgramOptions &O = {});
  llvm::Expected<std::unique_ptr<Program>>
  compileFile(llvm::StringRef Path, const ProgramOptions &O = {});
  llvm::Expected<std::unique_ptr<Program>>
  compile(std::unique_ptr<llvm::Module> M, const ProgramOptions &O = {});

  /// Device memory (the agent's coarse-grained global pool), accessible
  /// to every agent. On the virtual GPU the host may touch it directly.
  llvm::Expected<void *> allocate(size_t Bytes);
  llvm::Error free(void *Ptr);
  llvm::Error copy(void *Dst, const void *Src, size_t Bytes);

  Stream &defaultStream() { return *Default; }
  llvm::Expected<std::unique_ptr<Stream>> createStream();

private:
  friend class Stream;
  friend class Launch;
  Device() = default;
  llvm::Expected<ObjectBytes> compileSource(Source &S, const ProgramOptions &O,
                                            const LinkOptions &L);

  uint64_t Agent = 0, Cpu = 0, GlobalPool = 0, KernargPool = 0;
  TargetSpec Target;
  std::string AgentName;
  std::unique_ptr<Stream> Default;
  bool Initialized = false;
};

} // namespace loom::jit

#endif // LOOM_JIT_JIT_H
