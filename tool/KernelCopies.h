//===- tool/KernelCopies.h - Instrumented copies of kernels, made once ----===//
#ifndef LOOM_TOOL_KERNELCOPIES_H
#define LOOM_TOOL_KERNELCOPIES_H

#include "CodeObjects.h"
#include "ToolHost.h"

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace llvm {
class raw_fd_ostream;
}

namespace loom::tool {

/// A tool that asked for instrumented code, with its configuration.
struct ToolChoice {
  ToolHost *Tool;
  uint64_t Configuration;
  auto operator<=>(const ToolChoice &) const = default;
};

/// What a dispatch of an instrumented copy needs.
struct KernelCopy {
  uint64_t KernelObject = 0;
  uint32_t PrivateSegmentSize = 0;
  uint32_t GroupSegmentSize = 0;
  uint32_t StackSlotSize = 0; ///< InstrumentedKernel::StackSlotSize
  /// The copy's hooks read the launch header: its dispatches need a
  /// kernarg segment of KernargSize bytes with the header at
  /// LaunchHeaderOffset (Launch.h).
  bool UsesLaunchHeader = false;
  uint32_t LaunchHeaderOffset = 0;
  uint32_t KernargSize = 0;
  /// The original kernel's kernarg segment (its metadata's size): what is
  /// copied from the program's, which may be no bigger.
  uint32_t OriginalKernargSize = 0;
  /// The tools whose hooks the copy carries, by launch header slot.
  std::vector<ToolHost *> Tools;
};

/// What making one copy cost, in milliseconds, stage by stage
/// (`loom instrument --timing FILE`, docs/instrument.md).
struct CopyTiming {
  double Lift = 0;       ///< lifting the kernel and what it calls
  double Instrument = 0; ///< the tools' instrument() callbacks
  double Hooks = 0;      ///< compiling the tools' hooks: once per agent
  double Codegen = 0;    ///< instrumentCodeObject: glue, MC, lld
  double Load = 0;       ///< loading the copy as an executable
  /// The instructions of the kernel and of the functions it calls.
  size_t Instructions = 0;
  double total() const { return Lift + Instrument + Hooks + Codegen + Load; }
};

class KernelCopies {
public:
  /// Where `loom instrument --dump` writes each copy's code object and
  /// assembly ("" for nowhere), and where `--timing` appends a JSON line
  /// per copy ("" for nowhere).
  KernelCopies(std::string DumpDir, const std::string &TimingPath);
  ~KernelCopies();

  /// The copy of kernel \p K carrying the hooks of \p Choices (in tool
  /// order), made on the first request. Null if it cannot be made: the
  /// reason was printed, once, and the dispatch runs the original code.
  const KernelCopy *get(const KernelInfo &K, uint64_t KernelObject,
                        const std::vector<ToolChoice> &Choices);
  /// Destroys the copies made from the kernels of \p Original.
  void forget(hsa_executable_t Original);
  void clear();

private:
  llvm::Expected<KernelCopy> make(const KernelInfo &K, uint64_t KernelObject,
                                  const std::vector<ToolChoice> &Choices,
                                  const std::string &Suffix,
                                  hsa_executable_t &Exec, CopyTiming &Time);
  void writeTiming(const KernelInfo &K, const std::vector<ToolChoice> &Choices,
                   const CopyTiming &Time, bool Made);
  void dump(llvm::StringRef Name, llvm::StringRef Extension,
            llvm::StringRef Bytes);

  struct Entry {
    std::optional<KernelCopy> Copy; ///< none: failed
    hsa_executable_t Exec{};        ///< holding the copy
    uint64_t Original = 0;          ///< the original executable
  };
  std::string DumpDir;
  std::unique_ptr<llvm::raw_fd_ostream> Timing;
  /// Held while a copy is made: lld links one at a time anyway, and two
  /// queues asking for the same copy must make it once.
  std::mutex Lock;
  std::map<std::pair<uint64_t, std::vector<ToolChoice>>, Entry> Entries;
  std::map<uint64_t, unsigned> CopiesOf; ///< per kernel object, for suffixes
};

} // namespace loom::tool

#endif // LOOM_TOOL_KERNELCOPIES_H
