//===- emu/CodeRegion.h - The decoded code of one loaded code object -----===//
//
// Every executable byte of a registered code object, decoded once by a
// linear sweep (AMDGPU code holds no data), with a dense index from address
// to instruction, branch targets resolved to indices, basic-block leaders
// marked, and the kernels and functions that name addresses in messages.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_EMU_CODEREGION_H
#define LOOM_EMU_CODEREGION_H

#include "Inst.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace loom::codeobj {
class CodeObject;
}

namespace loom::emu {

class Decoder;
class TraceCache;

inline constexpr uint32_t NoInstruction = ~0u;

class CodeRegion {
public:
  struct Symbol {
    std::string Name;
    uint64_t Address = 0; // host address
    uint64_t Size = 0;
    bool IsKernel = false;
  };

  /// Decodes the executable segments of \p CO loaded at \p LoadBase.
  /// Instruction ids start at \p FirstId. Traces that have run
  /// \p TraceThreshold times are compiled to host code (0: never).
  static llvm::Expected<std::unique_ptr<CodeRegion>>
  create(Decoder &Dec, const codeobj::CodeObject &CO, uint64_t LoadBase,
         llvm::StringRef Name, uint32_t FirstId, uint32_t TraceThreshold = 0);
  ~CodeRegion();

  llvm::StringRef name() const { return Name; }
  uint64_t loadBase() const { return LoadBase; }
  uint64_t begin() const { return Begin; }
  uint64_t end() const { return End; }
  bool contains(uint64_t Addr) const { return Addr >= Begin && Addr < End; }

  const DecodedInst *insts() const { return Insts.data(); }
  /// Real instructions; Insts[size()] is a sentinel that faults (running
  /// off the end of the code).
  uint32_t size() const { return static_cast<uint32_t>(Insts.size() - 1); }
  uint32_t firstId() const { return FirstId; }
  /// The assembly text of instruction \p Index (decoded again: for
  /// messages only).
  std::string text(uint32_t Index) const;

  /// Index of the instruction starting at \p Addr, or NoInstruction.
  uint32_t indexOf(uint64_t Addr) const;
  /// The kernel or function containing \p Addr.
  const Symbol *symbolAt(uint64_t Addr) const;
  /// The instrumentation hook whose inserted code holds \p Addr (a label
  /// "hook NAME (WHERE)" of the code object), if any.
  const Symbol *hookAt(uint64_t Addr) const;

  /// The region's traces (see TraceCache.h), or null with the trace
  /// compiler off.
  TraceCache *traces() const { return Traces.get(); }

private:
  CodeRegion() = default;

  std::string Name;
  uint64_t LoadBase = 0, Begin = 0, End = 0;
  uint32_t FirstId = 0;
  std::vector<DecodedInst> Insts;
  Decoder *Dec = nullptr; // the device's, which outlives its regions
  std::vector<uint32_t> IndexOfWord; // (Addr - Begin) / 4 -> index
  std::vector<Symbol> Symbols;       // by address
  std::vector<Symbol> Hooks;         // by address, disjoint
  std::unique_ptr<TraceCache> Traces;
};

} // namespace loom::emu

#endif // LOOM_EMU_CODEREGION_H
