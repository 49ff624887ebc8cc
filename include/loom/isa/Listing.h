//===- loom/isa/Listing.h - A function's listing, as `loom disasm` prints -===//
//
// One function as basic blocks of instructions, with branch and call
// targets symbolized (docs/cli.md, "loom disasm"). Callers add their own
// lines and notes through ListingExtras: `loom disasm --cfg` its lifted
// CFG and liveness, bb_count each block's count.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_ISA_LISTING_H
#define LOOM_ISA_LISTING_H

#include "loom/isa/Disassembler.h"

#include <cstddef>
#include <functional>
#include <string>

namespace llvm {
class raw_ostream;
}

namespace loom::isa {

/// What a caller adds to a listing; each part may be left empty.
struct ListingExtras {
  /// Lines after the function's header line.
  std::function<void(llvm::raw_ostream &)> AfterHeader;
  /// A note for block \p Block's label line, in its comment after the
  /// predecessor count ("" for none).
  std::function<std::string(size_t Block)> BlockNote;
  /// Lines after the label line of block \p Block.
  std::function<void(llvm::raw_ostream &, size_t Block)> BlockStart;
  /// Lines after instruction \p Index (within its block) of \p Block.
  std::function<void(llvm::raw_ostream &, size_t Block, size_t Index)>
      AfterInstruction;
  /// Lines after the last instruction of \p Block.
  std::function<void(llvm::raw_ostream &, size_t Block)> BlockEnd;
};

/// A block's label: ".LBB_1a00" for the block at address 0x1a00.
std::string blockLabel(uint64_t Address);

/// Prints \p F (disassembled by \p D from \p CO) as `loom disasm` does.
void printListing(llvm::raw_ostream &OS, const DisassembledFunction &F,
                  const Disassembler &D, const codeobj::CodeObject &CO,
                  const ListingExtras &Extras = {});

} // namespace loom::isa

#endif // LOOM_ISA_LISTING_H
