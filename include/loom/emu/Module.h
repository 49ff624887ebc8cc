//===- loom/emu/Module.h - A code object placed in memory, ready to run --===//
//
// Places a code object's PT_LOAD image in host memory (which is device
// memory), applies its dynamic relocations and registers its code with a
// Device. Loading is two-phase, as an HSA executable's load and freeze:
// load() places the image and applies relocations that need no symbol;
// resolve() binds the undefined symbols (functions and variables of other
// modules, or host-defined globals) and applies the rest.
//
// launch() is the convenience path tests, benchmarks and the JIT use to run a
// kernel by name: it builds the kernarg segment from the metadata (explicit
// arguments in order, hidden arguments filled in as the runtime would) and a
// dispatch packet, and dispatches. prepare() builds the same without
// dispatching.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_EMU_MODULE_H
#define LOOM_EMU_MODULE_H

#include "loom/codeobj/CodeObject.h"
#include "loom/emu/Device.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/FunctionExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace loom::emu {

/// Address of a symbol defined outside the module, or std::nullopt.
using SymbolResolver =
    llvm::unique_function<std::optional<uint64_t>(llvm::StringRef Name)>;

/// Explicit kernel arguments, in declaration order; each is placed at the
/// offset the metadata gives and must have the size it gives.
class KernelArgs {
public:
  template <typename T> KernelArgs &add(const T &V) {
    static_assert(std::is_trivially_copyable_v<T>);
    Args.emplace_back(sizeof(T));
    std::memcpy(Args.back().data(), &V, sizeof(T));
    return *this;
  }
  KernelArgs &addBytes(llvm::ArrayRef<uint8_t> Bytes) {
    Args.emplace_back(Bytes.begin(), Bytes.end());
    return *this;
  }
  /// Bytes at \p Offset of the kernarg segment, outside the arguments the
  /// metadata describes (an instrumented kernel's launch header).
  KernelArgs &addRaw(uint32_t Offset, llvm::ArrayRef<uint8_t> Bytes) {
    Raw.emplace_back(Offset, std::vector<uint8_t>(Bytes.begin(), Bytes.end()));
    return *this;
  }
  const std::vector<std::vector<uint8_t>> &args() const { return Args; }
  const std::vector<std::pair<uint32_t, std::vector<uint8_t>>> &raw() const {
    return Raw;
  }

private:
  std::vector<std::vector<uint8_t>> Args;
  std::vector<std::pair<uint32_t, std::vector<uint8_t>>> Raw;
};

struct LaunchConfig {
  /// Grid size in work-items, and work-group size.
  uint32_t Grid[3] = {1, 1, 1};
  uint16_t Workgroup[3] = {1, 1, 1};
  unsigned Dimensions = 1;
  uint32_t DynamicLdsBytes = 0;
  /// Extra scratch per work-item beyond the kernel's fixed size (for a
  /// dynamic stack).
  uint32_t ExtraPrivateBytes = 0;
  const std::atomic<bool> *Cancel = nullptr;

  static LaunchConfig linear(uint32_t GridItems, uint16_t WorkgroupItems) {
    LaunchConfig C;
    C.Grid[0] = GridItems;
    C.Workgroup[0] = WorkgroupItems;
    return C;
  }
};

/// What launch() dispatches, before it is placed in device memory: the
/// kernarg segment's bytes (explicit and hidden arguments) and the
/// dispatch, whose Kernarg the caller sets. For callers that dispatch
/// another way (an AQL packet through the HSA runtime).
struct PreparedLaunch {
  std::vector<uint8_t> Kernarg;
  DispatchParams Params;
};

class Module {
public:
  /// Largest span of loaded segments (lowest address 0 to the end of the
  /// last PT_LOAD, .bss included) a code object may claim: larger claims
  /// are refused before anything is allocated (docs/loader.md).
  static constexpr uint64_t MaxImageBytes = uint64_t(4) << 30;

  /// Places \p CO (kept alive by the module) in memory registered with
  /// \p Dev and registers its code. Relative relocations are applied now.
  static llvm::Expected<std::unique_ptr<Module>>
  load(Device &Dev, std::shared_ptr<const codeobj::CodeObject> CO,
       llvm::StringRef Name);

  /// Loads the single code object of a file (raw or bundle).
  static llvm::Expected<std::unique_ptr<Module>>
  loadFile(Device &Dev, llvm::StringRef Path);

  ~Module();

  /// Binds undefined symbols through \p Resolve and applies the remaining
  /// relocations. Fails naming every symbol left undefined.
  llvm::Error resolve(SymbolResolver Resolve);
  bool isResolved() const { return Resolved; }

  const codeobj::CodeObject &codeObject() const { return *CO; }
  llvm::StringRef name() const { return Name; }
  uint64_t base() const { return Base; }
  uint64_t size() const { return Size; }

  /// Loaded address of a defined symbol (kernel, descriptor, function,
  /// variable).
  std::optional<uint64_t> symbolAddress(llvm::StringRef Name) const;
  /// Loaded address of a kernel's descriptor (the kernel object).
  std::optional<uint64_t> kernelObject(llvm::StringRef Kernel) const;

  /// The kernarg segment and dispatch parameters launch() would use.
  llvm::Expected<PreparedLaunch> prepare(llvm::StringRef Kernel,
                                         const LaunchConfig &Config,
                                         const KernelArgs &Args) const;

  /// Runs \p Kernel. Buffers the arguments point to must be registered
  /// with the device's memory map (see DeviceBuffer).
  llvm::Expected<DispatchResult> launch(llvm::StringRef Kernel,
                                        const LaunchConfig &Config,
                                        const KernelArgs &Args);

private:
  Module(Device &Dev, std::shared_ptr<const codeobj::CodeObject> CO,
         llvm::StringRef Name);
  llvm::Error place();

  Device &Dev;
  std::shared_ptr<const codeobj::CodeObject> CO;
  std::string Name;
  uint8_t *Image = nullptr;
  uint64_t Base = 0;
  uint64_t Size = 0;
  bool Resolved = false;
};

/// Host memory registered with a device for as long as the buffer lives.
class DeviceBuffer {
public:
  DeviceBuffer(Device &Dev, size_t Bytes, size_t Align = 256);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer &&O) noexcept;
  DeviceBuffer(const DeviceBuffer &) = delete;

  template <typename T = void> T *data() const {
    return static_cast<T *>(Ptr);
  }
  uint64_t address() const { return reinterpret_cast<uint64_t>(Ptr); }
  size_t size() const { return Bytes; }

private:
  Device *Dev;
  void *Ptr = nullptr;
  size_t Bytes = 0;
};

} // namespace loom::emu

#endif // LOOM_EMU_MODULE_H
