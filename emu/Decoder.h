//===- emu/Decoder.h - MCInst -> DecodedInst ------------------------------===//
//
// Turns LLVM's decoded instructions into the emulator's pre-decoded form.
// Operand roles come from the public MCInstrDesc: definitions, then uses
// whose operand type is a register or register-or-constant (sources, each
// preceded by its input-modifier operand when the encoding has one), then
// plain immediates. The operand-type value LLVM uses for input modifiers is
// private to the AMDGPU backend, so it is learned at start-up from an
// instruction known to have them.
//
// Handlers are found by operation name: the MC opcode name with its
// encoding suffixes removed ("V_ADD_F32_e64_vi" -> "V_ADD_F32"); the
// encoding becomes flags (FlagE64, FlagSdwa, FlagDpp, FlagSaddr, ...).
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_EMU_DECODER_H
#define LOOM_EMU_DECODER_H

#include "Inst.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace llvm {
class MCInst;
}

namespace loom::isa {
class McContext;
}

namespace loom::emu {

/// What a handler needs to know about an operation beyond its operands.
/// Picks, once per decoded instruction, a faster handler for its operand
/// shape (no modifiers, say), or returns null to keep the general one.
using Specializer = Handler (*)(const DecodedInst &I);

struct OpInfo {
  Handler Fn = nullptr;
  uint32_t Flags = 0; // FlagMemory, FlagVector, FlagEndsBlock...
  Specializer Specialize = nullptr;
};

/// Operation name -> handler. Each semantics file adds its operations.
class HandlerTable {
public:
  void add(llvm::StringRef OpName, Handler Fn, uint32_t Flags = 0,
           Specializer Specialize = nullptr);
  const OpInfo *find(llvm::StringRef OpName) const;
  /// Every registered operation name (for coverage reports).
  std::vector<std::string> names() const;

private:
  llvm::StringMap<OpInfo> Ops;
};

/// The table every device uses, built once.
const HandlerTable &handlers();

/// An operation name and the encoding facts its MC opcode name carries.
/// Addressing variants stay in the name ("BUFFER_LOAD_DWORD_OFFEN",
/// "S_LOAD_DWORD_IMM"): their operands differ.
struct OpName {
  std::string Name;   // "V_ADD_F32", "GLOBAL_LOAD_DWORD", "S_LOAD_DWORD_IMM"
  uint32_t Flags = 0; // FlagE64, FlagSdwa, FlagDpp, FlagSaddr
};

/// Splits an MC opcode name ("GLOBAL_LOAD_DWORD_SADDR_vi") into the
/// operation name and its encoding flags.
OpName operationName(llvm::StringRef McOpcodeName);

class Decoder {
public:
  explicit Decoder(isa::McContext &MC);
  ~Decoder();

  isa::McContext &mc() { return MC; }

  /// Decodes one instruction of \p Bytes at host address \p Address into
  /// \p Out (lock() held). Bytes that decode to no instruction, or to one
  /// without a handler, get the handler that reports an illegal
  /// instruction; Out.Size is then the bytes to skip. Bytes decoded before
  /// are not decoded again: compiled code repeats its instructions (an
  /// instrumented kernel its hooks' at every point: 17,000 distinct in the
  /// corpus's 174,000 at -O2), and LLVM's decoding is most of a first
  /// dispatch's time.
  void decode(llvm::ArrayRef<uint8_t> Bytes, uint64_t Address,
              DecodedInst &Out);

  /// The text of the instruction at the start of \p Bytes (".long 0x..."
  /// for bytes that are none), for messages: printing every instruction at
  /// load time cost as much as decoding it.
  /// Takes lock() itself.
  std::string text(llvm::ArrayRef<uint8_t> Bytes, uint64_t Address);

  /// Serialises the use of the McContext (not thread-safe): held while a
  /// code object is decoded, taken by text() (faults, on any thread).
  std::mutex &lock() { return McLock; }

  /// Name of \p NameId (see DecodedInst::NameId).
  llvm::StringRef nameOf(uint16_t NameId) const { return Names[NameId]; }

private:
  /// decode, with LLVM.
  void decodeBytes(llvm::ArrayRef<uint8_t> Bytes, uint64_t Address,
                   DecodedInst &Out);
  void convert(const llvm::MCInst &Inst, DecodedInst &Out);
  bool convertRegister(unsigned Reg, Operand &Op) const;
  uint16_t internName(llvm::StringRef Name);

  isa::McContext &MC;
  std::mutex McLock;
  /// Register number -> operand, precomputed from register names.
  std::vector<Operand> RegOperands;
  int InputModsType = -1;
  llvm::StringMap<uint16_t> NameIds;
  std::vector<std::string> Names;
  /// The target's longest instruction, in bytes.
  unsigned MaxInstBytes = 0;
  /// Instructions decoded (lock() held), and where each one's first 8
  /// bytes are in Seen; emptied when full (3.5 MB of instructions).
  std::vector<DecodedInst> Seen;
  llvm::DenseMap<uint64_t, uint32_t> SeenAt;
  static constexpr size_t MaxSeen = 1 << 14;
};

/// Handler of instructions Loom does not implement (and of bytes that are
/// no instruction): stops the dispatch with an IllegalInstruction fault.
void illegalInstruction(Wave &W, const DecodedInst &I);

} // namespace loom::emu

#endif // LOOM_EMU_DECODER_H
