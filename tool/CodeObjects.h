//===- tool/CodeObjects.h - The program's code objects and kernels --------===//
//
// What the tool runtime learns from the wrapped loader calls: the bytes of
// each code object reader, which executable and agent each was loaded for,
// and, once the executable is frozen, each kernel object's symbol, code
// object and load delta. Thread-safe.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TOOL_CODEOBJECTS_H
#define LOOM_TOOL_CODEOBJECTS_H

#include "loom/codeobj/CodeObject.h"
#include "loom/instrument/BinaryContext.h"
#include "loom/instrument/Liveness.h"

#include <hsa/hsa.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace loom::tool {

/// A code object loaded into an executable, and (made on first need, by
/// whoever instruments one of its kernels) the lifted form of each kernel
/// instrumented.
struct LoadedCode {
  std::shared_ptr<const codeobj::CodeObject> Code;
  std::string Uri; ///< the loader's name for it, or Code's name
  hsa_executable_t Executable{};
  hsa_agent_t Agent{};
  int64_t LoadDelta = 0; ///< loaded address - ELF virtual address
  uint64_t LoadBase = 0, LoadSize = 0;

  /// A kernel and the functions it calls (BinaryContext::create with the
  /// kernel as root): lifting the whole code object would cost as much for
  /// one kernel as for all of a library's.
  struct Lifted {
    std::unique_ptr<instrument::BinaryContext> Context;
    std::optional<instrument::Liveness> Live;
    std::string Error; ///< why it cannot be lifted
  };
  /// Guarded by KernelCopies' lock: the MC objects for the code object's
  /// target, shared by its lifts, and the lifts by kernel name.
  std::unique_ptr<isa::McContext> MC;
  std::map<std::string, std::unique_ptr<Lifted>> Lifts;
};

struct KernelInfo {
  std::string Name;
  std::shared_ptr<LoadedCode> Code;
};

class CodeObjects {
public:
  /// A reader was created for \p Bytes; \p Name names it in messages.
  void readerCreated(hsa_code_object_reader_t Reader,
                     llvm::ArrayRef<uint8_t> Bytes, std::string Name);
  void readerDestroyed(hsa_code_object_reader_t Reader);
  /// \p Reader was loaded into \p Exec for \p Agent as \p Loaded.
  void loaded(hsa_executable_t Exec, hsa_agent_t Agent,
              hsa_code_object_reader_t Reader, hsa_loaded_code_object_t Loaded);
  /// Maps the kernel objects of the frozen \p Exec; returns its code
  /// objects, for the tools' codeObjectLoaded.
  std::vector<std::shared_ptr<LoadedCode>> frozen(hsa_executable_t Exec);
  /// Forgets \p Exec's kernels (their kernel objects may be reused).
  void destroyed(hsa_executable_t Exec);

  std::shared_ptr<const KernelInfo> kernel(uint64_t KernelObject) const;

private:
  struct Source {
    std::shared_ptr<const codeobj::CodeObject> Code; ///< null: unreadable
    std::string Name;
    std::string Error; ///< why it is unreadable
  };
  struct Pending {
    hsa_agent_t Agent;
    hsa_loaded_code_object_t Loaded;
    Source From;
  };
  mutable std::mutex Lock;
  std::map<uint64_t, Source> Readers;
  std::map<uint64_t, std::vector<Pending>> Loading; ///< by executable
  std::map<uint64_t, std::shared_ptr<const KernelInfo>> Kernels;
  std::map<uint64_t, std::vector<uint64_t>> KernelsOf; ///< by executable
};

} // namespace loom::tool

#endif // LOOM_TOOL_CODEOBJECTS_H
