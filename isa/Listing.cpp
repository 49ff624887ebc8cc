//===- isa/Listing.cpp - A function's listing, as `loom disasm` prints ---===//

#include "loom/isa/Listing.h"

#include "loom/codeobj/CodeObject.h"

#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace loom::codeobj;

namespace loom::isa {

std::string blockLabel(uint64_t Address) {
  return formatv(".LBB_{0:x}", Address).str();
}

namespace {

/// Column where trailing comments start (text is padded to it).
constexpr unsigned CommentColumn = 56;

/// \p Text, then \p Comment (if any) from the comment column, a line.
void printLine(raw_ostream &OS, StringRef Text, StringRef Comment) {
  OS << Text;
  if (!Comment.empty()) {
    OS.indent(Text.size() < CommentColumn ? CommentColumn - Text.size() : 1);
    OS << "// " << Comment;
  }
  OS << "\n";
}

/// "<name+0x10>" or "0x1910" when nothing symbolizes the address.
std::string describe(const std::string &Symbolized, uint64_t Address) {
  if (Symbolized.empty())
    return formatv("{0:x}", Address).str();
  return "<" + Symbolized + ">";
}

std::string commentFor(const Instruction &I, const DisassembledFunction &F,
                       const CodeObject &CO) {
  auto Target = [&]() -> std::string {
    if (!I.Target)
      return I.TargetName;
    std::string S = describe(I.TargetName, *I.Target);
    // Branches name the block they go to; calls name the callee only.
    bool IsBranch =
        I.Flow == ControlFlow::Branch || I.Flow == ControlFlow::CondBranch;
    if (IsBranch && F.blockStartingAt(*I.Target))
      return blockLabel(*I.Target) + " " + S;
    return S;
  };
  auto Via = [&]() -> std::string {
    return I.Source == TargetSource::Got ? " (via GOT)" : "";
  };
  switch (I.Flow) {
  case ControlFlow::Branch:
  case ControlFlow::CondBranch:
    if (I.Target)
      return "-> " + Target();
    break;
  case ControlFlow::Call:
    if (I.Target || !I.TargetName.empty())
      return "call " + Target() + Via();
    return "indirect call";
  case ControlFlow::TailCall:
    if (I.Target || !I.TargetName.empty())
      return "tail call " + Target() + Via();
    return "indirect tail call";
  case ControlFlow::IndirectBranch:
    return "indirect branch";
  case ControlFlow::Return:
    return "return";
  case ControlFlow::None:
  case ControlFlow::EndProgram:
    break;
  }
  if (I.ComputedAddress) {
    // A GOT load: name the entry's relocation target.
    for (const DynamicRelocation &R : CO.dynamicRelocations())
      if (R.Offset == *I.ComputedAddress &&
          I.OpcodeName.find("LOAD") != std::string::npos)
        return formatv("GOT entry {0:x}: {1}", R.Offset,
                       R.Symbol.empty() ? formatv("{0:x}", R.Addend).str()
                                        : R.Symbol)
            .str();
    return "";
  }
  return "";
}

} // namespace

void printListing(raw_ostream &OS, const DisassembledFunction &F,
                  const Disassembler &D, const CodeObject &CO,
                  const ListingExtras &X) {
  OS << formatv("{0} ({1}) @ {2:x}, {3} bytes:", F.Name,
                functionKindName(F.Kind), F.Address, F.Size);
  std::string Demangled = demangle(F.Name);
  if (Demangled != F.Name)
    OS << "  // " << Demangled;
  OS << "\n";
  if (X.AfterHeader)
    X.AfterHeader(OS);

  for (size_t BI = 0; BI != F.Blocks.size(); ++BI) {
    const BasicBlock &B = F.Blocks[BI];
    std::string Label = blockLabel(B.Address) + ":";
    size_t Preds = B.Predecessors.size();
    std::string Comment;
    if (B.Address != F.Address || Preds)
      Comment = std::to_string(Preds) +
                (Preds == 1 ? " predecessor" : " predecessors");
    if (X.BlockNote)
      if (std::string Note = X.BlockNote(BI); !Note.empty())
        Comment += (Comment.empty() ? "" : "; ") + Note;
    printLine(OS, Label, Comment);
    if (X.BlockStart)
      X.BlockStart(OS, BI);
    for (size_t K = B.FirstInstruction;
         K != B.FirstInstruction + B.NumInstructions; ++K) {
      const Instruction &I = F.Instructions[K];
      std::string Line = formatv("  +0x{0:x-4}  0x{1:x-4}  {2}",
                                 I.Address - F.Address, I.Address, I.Text)
                             .str();
      std::string Comment = commentFor(I, F, CO);
      if (Comment.empty() && I.ComputedAddress && I.Flow == ControlFlow::None) {
        std::string Sym = D.symbolize(*I.ComputedAddress);
        Comment = formatv("address {0}", describe(Sym, *I.ComputedAddress));
      }
      printLine(OS, Line, Comment);
      if (X.AfterInstruction)
        X.AfterInstruction(OS, BI, K - B.FirstInstruction);
    }
    if (X.BlockEnd)
      X.BlockEnd(OS, BI);
  }
}

} // namespace loom::isa
