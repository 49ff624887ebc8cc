//===- emu/CodeRegion.h - The decoded code of one loaded code object -----===//
//
// The executable bytes of a registered code object, decoded by a linear
// sweep (AMDGPU code holds no data), with a dense index from address to
// instruction, branch targets resolved to indices, basic-block leaders
// marked, and the kernels and functions that name addresses in messages.
//
// Decoding is lazy, one unit at a time: the code is cut at every kernel and
// function start, and a unit is decoded the first time a dispatch enters it
// or a jump lands in it (a library's code object holds hundreds of kernels
// and a program runs a few; rocSPARSE's took 1.9 s to decode whole). Each
// unit owns a fixed range of instruction indices, one per 4-byte word of
// its bytes plus one: its instructions packed from the first, then a slot
// that continues at the next unit's first byte (a fall-through, which
// compiled code never does), so indices and the instruction array never
// move once a unit is published.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_EMU_CODEREGION_H
#define LOOM_EMU_CODEREGION_H

#include "Inst.h"

#include "llvm/Support/Error.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace loom::codeobj {
class CodeObject;
struct SymbolInfo;
}
namespace loom::isa {
class Disassembler;
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

  /// The region of the executable segments of \p CO loaded at \p LoadBase,
  /// decoded as it runs (Dec.lock() must not be held when it decodes).
  /// Instruction ids start at \p FirstId. Traces that have run
  /// \p TraceThreshold times are compiled to host code (0: never).
  static llvm::Expected<std::unique_ptr<CodeRegion>>
  create(Decoder &Dec, std::shared_ptr<const codeobj::CodeObject> CO,
         uint64_t LoadBase, llvm::StringRef Name, uint32_t FirstId,
         uint32_t TraceThreshold = 0);
  ~CodeRegion();

  llvm::StringRef name() const { return Name; }
  uint64_t loadBase() const { return LoadBase; }
  uint64_t begin() const { return Begin; }
  uint64_t end() const { return End; }
  bool contains(uint64_t Addr) const { return Addr >= Begin && Addr < End; }

  /// The instruction slots; only those of decoded units hold instructions.
  const DecodedInst *insts() const { return Insts.get(); }
  /// Instruction slots (ids); insts()[size()] is a sentinel that faults
  /// (running off the end of the code).
  uint32_t size() const { return Slots; }
  uint32_t firstId() const { return FirstId; }
  /// Calls \p F with each instruction decoded so far, in address order.
  template <class Fn> void forEachDecoded(Fn &&F) const {
    for (uint32_t U = 0; U < NumUnits; ++U)
      if (Units[U].Decoded.load(std::memory_order_acquire))
        for (uint32_t K = 0; K < Units[U].Count; ++K)
          F(Insts[Units[U].First + K]);
  }
  /// The assembly text of instruction \p Index (decoded again: for
  /// messages only).
  std::string text(uint32_t Index) const;

  /// Index of the instruction starting at \p Addr, or NoInstruction;
  /// decodes the unit holding it first if need be.
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

  /// Bytes [Begin, End) of one segment, decoded together.
  struct Unit {
    uint64_t Begin = 0, End = 0;
    uint32_t First = 0; ///< index of its first instruction
    uint32_t Count = 0; ///< instructions, once decoded
    std::atomic<bool> Decoded{false};
  };

  /// The unit holding \p Addr, or null.
  const Unit *unitAt(uint64_t Addr) const;
  /// Decodes unit \p U (and the units its branches lead to) unless done.
  void decode(const Unit &U) const;
  /// Decodes the instructions of \p U into their slots (Dec.lock() held).
  void sweep(Unit &U);
  /// Branch targets, block leaders and traces of the swept unit \p U;
  /// adds the units its branches lead to, not yet swept, to \p Pending.
  void analyse(Unit &U, std::vector<Unit *> &Pending);
  /// Marks the basic blocks of function \p Sym over the swept unit \p U
  /// from its instructions' flow flags (and the Disassembler's registers
  /// for a register jump's target); false, marking nothing, where they do
  /// not decide them (the Disassembler must, decoding it all again).
  bool markBlocks(const Unit &U, const codeobj::SymbolInfo &Sym,
                  bool IsKernel);

  struct FreeSlots {
    void operator()(DecodedInst *P) const { std::free(P); }
  };

  std::string Name;
  uint64_t LoadBase = 0, Begin = 0, End = 0;
  uint32_t FirstId = 0;
  uint32_t Slots = 0;
  /// Slots + 1 instructions, zero-filled (a default DecodedInst) by calloc,
  /// so the pages of units never decoded are never touched.
  std::unique_ptr<DecodedInst[], FreeSlots> Insts;
  std::unique_ptr<Unit[]> Units; // by address
  uint32_t NumUnits = 0;
  std::vector<bool> Swept;       // by unit, guarded by Decoding
  Decoder *Dec = nullptr; // the device's, which outlives its regions
  std::shared_ptr<const codeobj::CodeObject> CO;
  std::unique_ptr<isa::Disassembler> Disasm; // block analysis
  /// Kernels and functions of CO, by address (what Disasm analyses).
  std::vector<std::pair<const codeobj::SymbolInfo *, bool>> Functions;
  /// Serialises decoding (with Dec->lock() inside it).
  mutable std::mutex Decoding;
  std::vector<uint32_t> IndexOfWord; // (Addr - Begin) / 4 -> index
  std::vector<Symbol> Symbols;       // by address
  std::vector<Symbol> Hooks;         // by address, disjoint
  std::unique_ptr<TraceCache> Traces;
};

} // namespace loom::emu

#endif // LOOM_EMU_CODEREGION_H
