//===- emu/Coverage.cpp - Operations used versus operations implemented ---===//

#include "loom/emu/Coverage.h"

#include "Decoder.h"

#include "loom/codeobj/CodeObject.h"
#include "loom/isa/Disassembler.h"
#include "loom/isa/McContext.h"

#include "llvm/MC/MCInstrInfo.h"

#include <set>

using namespace llvm;

namespace loom::emu {

Expected<std::map<std::string, uint64_t>>
operationsUsedBy(const codeobj::CodeObject &CO) {
  auto MC = isa::McContext::create(CO.target());
  if (!MC)
    return MC.takeError();
  isa::Disassembler D(**MC, CO);
  auto Funcs = D.disassembleAll();
  if (!Funcs)
    return Funcs.takeError();
  std::map<std::string, uint64_t> Uses;
  for (const isa::DisassembledFunction &F : *Funcs)
    for (const isa::Instruction &I : F.Instructions)
      Uses[I.Valid ? operationName(I.OpcodeName).Name : "<invalid>"]++;
  return Uses;
}

bool isImplemented(StringRef Operation) {
  return handlers().find(Operation) != nullptr;
}

std::vector<std::string> implementedOperations() { return handlers().names(); }

Expected<std::vector<std::string>> targetOperations(StringRef Processor) {
  auto MC = isa::McContext::create(Processor);
  if (!MC)
    return MC.takeError();
  // Encoding suffixes of the generation gfx90a/gfx942 belong to.
  static const StringLiteral Gfx9Suffixes[] = {"_vi", "_gfx9", "_gfx90a",
                                               "_gfx90a_acd", "_gfx90a_vcd"};
  static const StringLiteral Gfx940Suffixes[] = {
      "_vi", "_gfx9", "_gfx90a", "_gfx940", "_gfx940_acd", "_gfx940_vcd"};
  bool Is940 = Processor.starts_with("gfx94") || Processor.starts_with("gfx95");
  ArrayRef<StringLiteral> Suffixes =
      Is940 ? ArrayRef<StringLiteral>(Gfx940Suffixes)
            : ArrayRef<StringLiteral>(Gfx9Suffixes);
  const MCInstrInfo &MII = (*MC)->instrInfo();
  std::set<std::string> Ops;
  for (unsigned Opc = 0; Opc < MII.getNumOpcodes(); ++Opc) {
    StringRef Name = MII.getName(Opc);
    for (StringRef S : Suffixes)
      if (Name.ends_with(S)) {
        Ops.insert(operationName(Name).Name);
        break;
      }
  }
  return std::vector<std::string>(Ops.begin(), Ops.end());
}

} // namespace loom::emu
