//===- loom/instrument/Tool.h - Writing an instrumentation tool -----------===//
//
// A tool is a shared library holding a class derived from loom::instrument::
// Tool (registered with LOOM_TOOL) and the LLVM bitcode of its hooks
// (loom_add_tool builds and embeds it). It is started by
//   loom instrument --tool NAME_OR_PATH [--tool-arg K=V]... -- ./app args
// or by HSA_TOOLS_LIB=libtool.so on any HSA runtime, Loom's or ROCm's: the
// tool runtime (libloom_tool) sees only the standard HSA API (decision 13).
//
// Life of a tool:
//   init              once, after hsa_init, with its options
//   codeObjectLoaded  each code object loaded into an executable
//   executableFrozen  each executable frozen
//   dispatch          each kernel dispatch, before it is submitted: the tool
//                     picks original or instrumented code, and a
//                     configuration (selective instrumentation)
//   instrument        once per (kernel, configuration): the tool lifts and
//                     walks the kernel and the functions it calls, and asks
//                     for hooks
//   channelRecords    while an instrumented dispatch runs, and once more
//                     after it: the records its hooks sent (channelPush)
//   dispatchComplete  after the dispatch, before the next packet of its
//                     queue starts and before the program sees the
//                     dispatch's completion signal
//   fini              once, at the last hsa_shut_down or at exit
//
// Calls into one tool never overlap (the runtime serialises them), though
// they come from several threads: the program's, each queue's packet
// processor, the runtime's async handler thread.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_INSTRUMENT_TOOL_H
#define LOOM_INSTRUMENT_TOOL_H

#include "loom/instrument/BinaryContext.h"
#include "loom/instrument/Instrumenter.h"
#include "loom/instrument/Liveness.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <hsa/hsa.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace loom::instrument {

/// What a tool knows of one dispatch.
struct Dispatch {
  uint64_t Index = 0;       ///< dispatches seen by the tool runtime, from 0
  std::string Kernel;       ///< kernel symbol ("_Z4axpyPfS_f")
  std::string CodeObject;   ///< the code object's name (file or URI)
  hsa_agent_t Agent{};
  hsa_queue_t *Queue = nullptr;
  hsa_executable_t Executable{};
  uint64_t KernelObject = 0; ///< the original kernel object
  uint32_t Grid[3] = {1, 1, 1};
  uint16_t WorkGroup[3] = {1, 1, 1};
  void *Kernarg = nullptr;
  /// Work-items in the grid.
  uint64_t workItems() const { return uint64_t(Grid[0]) * Grid[1] * Grid[2]; }
  /// Waves the grid runs as: each work-group's work-items, in waves of
  /// \p WaveSize (a partial group at the grid's edge has fewer).
  uint64_t waves(unsigned WaveSize = 64) const {
    uint64_t Total = 0;
    for (unsigned Edge = 0; Edge < 8; ++Edge) { // bit D: the partial group
      uint64_t Groups = 1, Items = 1;
      for (unsigned D = 0; D < 3; ++D) {
        uint32_t G = Grid[D], W = WorkGroup[D] ? WorkGroup[D] : 1;
        bool Partial = (Edge >> D) & 1;
        Groups *= Partial ? (G % W != 0) : G / W;
        Items *= Partial ? G % W : W;
      }
      Total += Groups * ((Items + WaveSize - 1) / WaveSize);
    }
    return Total;
  }
  /// Set for dispatchComplete: whether this dispatch ran code carrying this
  /// tool's hooks (false if the tool chose original code, or the copy could
  /// not be made).
  bool Instrumented = false;
  /// Set for dispatchComplete: records a lossy channel dropped in this
  /// dispatch (a lossless channel drops none).
  uint64_t ChannelDropped = 0;
};

/// The tool's answer to a dispatch.
struct DispatchChoice {
  bool Instrument = false;
  /// Distinct configurations get distinct instrumented copies; each is made
  /// once per kernel.
  uint64_t Configuration = 0;
  /// Bytes the hooks of this dispatch read with loom::launchData<T>() (as
  /// NVBit's nvbit_set_at_launch): copied next to the dispatch's kernel
  /// arguments.
  std::vector<uint8_t> LaunchData;

  static DispatchChoice original() { return {}; }
  static DispatchChoice instrumented(uint64_t Config = 0) {
    DispatchChoice C;
    C.Instrument = true;
    C.Configuration = Config;
    return C;
  }
  template <typename T> DispatchChoice &withLaunchData(const T &V) {
    static_assert(std::is_trivially_copyable_v<T>);
    LaunchData.resize(sizeof(T));
    std::memcpy(LaunchData.data(), &V, sizeof(T));
    return *this;
  }
};

/// A tool's channel from its hooks (loom::channelPush) to its host code.
struct ChannelOptions {
  /// Bytes per record: sizeof the record type the hooks push (whole words).
  uint32_t RecordBytes = 0;
  /// Records each dispatch's ring holds (a power of two, at least 64).
  uint32_t Capacity = 1u << 16;
  /// Drop (and count) records when the ring is full, instead of making the
  /// hooks wait for the host.
  bool Lossy = false;
  /// The records are whole waves' chunks (loom::channelAppendWave, of
  /// RecordBytes, a power of two), each published by its LoomWaveChunk's
  /// End word rather than a Sequence word (a store less for the claim and
  /// the publication). Lossless.
  bool WaveChunks = false;
};

/// One kernel to instrument: the lifted code object it lives in, the kernel
/// and the functions it calls, their liveness, and the plan the hooks are
/// added to.
class KernelInstrumentation {
public:
  KernelInstrumentation(BinaryContext &BC, const Liveness &Live,
                        BinaryFunction &Kernel, InstrumentationPlan &Plan,
                        uint64_t Configuration, uint64_t KernelObject = 0)
      : BC(BC), Live(Live), Kernel(Kernel), Plan(Plan),
        Configuration(Configuration), KernelObject(KernelObject) {}

  BinaryContext &context() const { return BC; }
  const Liveness &liveness() const { return Live; }
  BinaryFunction &kernel() const { return Kernel; }
  /// The kernel, then every function it may call in this code object.
  std::vector<BinaryFunction *> functions() const;
  uint64_t configuration() const { return Configuration; }
  /// The original kernel object (Dispatch::KernelObject of the dispatches
  /// the copy runs for): kernels of one name in several code objects have
  /// distinct ones.
  uint64_t kernelObject() const { return KernelObject; }
  InstrumentationPlan &plan() const { return Plan; }
  /// SGPRs the copy can give wave counters (two each): what is left above
  /// the registers the kernel and its callees use (registersInUse, as the
  /// code generator counts them), less LoomOwnSgprs.
  unsigned spareSgprs() const;
  /// VGPRs the copy can give once-per-wave counters (two per 64): what is
  /// left above the registers the kernel and its callees use, less one for
  /// Loom's own state.
  unsigned spareVgprs() const;

private:
  BinaryContext &BC;
  const Liveness &Live;
  BinaryFunction &Kernel;
  InstrumentationPlan &Plan;
  uint64_t Configuration;
  uint64_t KernelObject;
};

/// Given to a tool: its options, and its device globals.
class ToolContext {
public:
  virtual ~ToolContext() = default;
  /// --tool-arg NAME=VALUE (or LOOM_TOOL_ARGS="NAME=VALUE ..." under
  /// HSA_TOOLS_LIB); TOOL:NAME=VALUE sets it for the tool registered as
  /// TOOL only, and wins over NAME=VALUE.
  virtual std::optional<std::string> option(llvm::StringRef Name) const = 0;
  std::string option(llvm::StringRef Name, llvm::StringRef Default) const {
    auto V = option(Name);
    return V ? *V : Default.str();
  }
  /// Option \p Name as a number, into \p Value (left as it is if the
  /// option is not given); "NAME=VALUE: not a number" if it is not one.
  template <typename T>
  llvm::Error numberOption(llvm::StringRef Name, T &Value) const {
    auto V = option(Name);
    if (V && !llvm::to_integer(*V, Value))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "%s=%s: not a number", Name.str().c_str(),
                                     V->c_str());
    return llvm::Error::success();
  }
  /// Device address of the tool's global \p Name (LOOM_DEVICE in its
  /// hooks) on \p Agent; an error if there is none. The first use on an
  /// agent compiles the hooks and loads them there.
  virtual llvm::Expected<uint64_t> globalAddress(hsa_agent_t Agent,
                                                 llvm::StringRef Name) = 0;
  /// Copies between the tool's global and host memory (hsa_memory_copy):
  /// \p Bytes from byte \p Offset of the global (a part of an array); an
  /// error if they are not all inside it.
  virtual llvm::Error readGlobal(hsa_agent_t Agent, llvm::StringRef Name,
                                 uint64_t Offset, void *Out, size_t Bytes) = 0;
  virtual llvm::Error writeGlobal(hsa_agent_t Agent, llvm::StringRef Name,
                                  uint64_t Offset, const void *In,
                                  size_t Bytes) = 0;
  /// The same from the global's start.
  llvm::Error readGlobal(hsa_agent_t Agent, llvm::StringRef Name, void *Out,
                         size_t Bytes) {
    return readGlobal(Agent, Name, 0, Out, Bytes);
  }
  llvm::Error writeGlobal(hsa_agent_t Agent, llvm::StringRef Name,
                          const void *In, size_t Bytes) {
    return writeGlobal(Agent, Name, 0, In, Bytes);
  }
  /// Opens the tool's channel (once, in init): each instrumented dispatch
  /// gets a ring, drained by a host thread into Tool::channelRecords while
  /// the kernel runs.
  virtual llvm::Error openChannel(const ChannelOptions &Options) = 0;
  template <typename T>
  llvm::Expected<T> read(hsa_agent_t Agent, llvm::StringRef Name) {
    T V{};
    if (llvm::Error E = readGlobal(Agent, Name, &V, sizeof(T)))
      return std::move(E);
    return V;
  }
};

class Tool {
public:
  virtual ~Tool() = default;

  virtual llvm::Error init(ToolContext &Ctx) { return llvm::Error::success(); }
  virtual void fini(ToolContext &Ctx) {}
  virtual void codeObjectLoaded(ToolContext &Ctx, hsa_executable_t Exec,
                                const codeobj::CodeObject &CO) {}
  virtual void executableFrozen(ToolContext &Ctx, hsa_executable_t Exec) {}
  virtual DispatchChoice dispatch(ToolContext &Ctx, const Dispatch &D) {
    return DispatchChoice::instrumented();
  }
  /// Asks for hooks in \p K (through K.plan()). An error makes this
  /// (kernel, configuration) run original code, with the error reported.
  virtual llvm::Error instrument(ToolContext &Ctx,
                                 KernelInstrumentation &K) = 0;
  /// \p Count records of ChannelOptions::RecordBytes each, in the order
  /// they were claimed, from the channel's drain thread while \p D runs,
  /// and a last time before dispatchComplete. The memory is the ring's:
  /// copy what must outlive the call.
  virtual void channelRecords(ToolContext &Ctx, const Dispatch &D,
                              const void *Records, size_t Count) {}
  virtual void dispatchComplete(ToolContext &Ctx, const Dispatch &D) {}
};

/// Registration, done by LOOM_TOOL at the library's load.
using ToolFactory = std::unique_ptr<Tool> (*)();
void registerTool(const char *Name, ToolFactory Factory,
                  const void *AnchorInLibrary);

} // namespace loom::instrument

/// Registers tool class \p Class under \p Name ("instr_count").
#define LOOM_TOOL(Class, Name)                                                 \
  namespace {                                                                  \
  struct LoomToolRegistration_##Class {                                        \
    LoomToolRegistration_##Class() {                                           \
      ::loom::instrument::registerTool(                                        \
          Name,                                                                \
          []() -> std::unique_ptr<::loom::instrument::Tool> {                  \
            return std::make_unique<Class>();                                  \
          },                                                                   \
          reinterpret_cast<const void *>(&LoomToolAnchor_##Class));            \
    }                                                                          \
    static void LoomToolAnchor_##Class() {}                                    \
  } LoomToolRegistrationInstance_##Class;                                      \
  }

#endif // LOOM_INSTRUMENT_TOOL_H
