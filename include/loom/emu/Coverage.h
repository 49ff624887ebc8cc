//===- loom/emu/Coverage.h - Which operations code uses, which Loom runs --===//
//
// Operations are MC opcode names without encoding suffixes ("V_ADD_F32"),
// the unit the emulator implements (one handler serves every encoding).
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_EMU_COVERAGE_H
#define LOOM_EMU_COVERAGE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace loom::codeobj {
class CodeObject;
}

namespace loom::emu {

/// Static uses of each operation in the kernels and functions of \p CO.
llvm::Expected<std::map<std::string, uint64_t>>
operationsUsedBy(const codeobj::CodeObject &CO);

/// True if the emulator has a handler for \p Operation.
bool isImplemented(llvm::StringRef Operation);

/// Every operation the emulator implements.
std::vector<std::string> implementedOperations();

/// Every operation LLVM's MC tables give an encoding for on \p Processor's
/// generation (for gfx90a: the VI/GFX9/GFX90A encodings; an upper bound,
/// since a few VI encodings were dropped in GFX9).
llvm::Expected<std::vector<std::string>>
targetOperations(llvm::StringRef Processor);

} // namespace loom::emu

#endif // LOOM_EMU_COVERAGE_H
