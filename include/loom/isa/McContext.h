//===- loom/isa/McContext.h - LLVM MC objects for one AMDGPU target -------===//
//
// The LLVM MC layer set up once for one processor (and its xnack/sramecc
// settings): subtarget, register, asm and instruction info, an MCContext, the
// disassembler, instruction printer, code emitter and instruction analysis.
// Everything that decodes, prints, encodes or asks about instructions borrows
// these from here, as BOLT's BinaryContext lends its MC objects.
//
// An McContext is not thread-safe: the disassembler and the printer keep
// per-call state. Use one per thread, or serialise.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_ISA_MCCONTEXT_H
#define LOOM_ISA_MCCONTEXT_H

#include "loom/codeobj/Target.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace llvm {
class MCAsmInfo;
class MCCodeEmitter;
class MCContext;
class MCDisassembler;
class MCInst;
class MCInstPrinter;
class MCInstrAnalysis;
class MCInstrDesc;
class MCInstrInfo;
class MCRegisterInfo;
class MCSubtargetInfo;
class Target;
class Triple;
} // namespace llvm

namespace loom::isa {

/// The triple of every code object Loom handles.
inline constexpr llvm::StringLiteral AmdhsaTriple = "amdgcn-amd-amdhsa";

/// Registers the AMDGPU target with LLVM's TargetRegistry. Idempotent and
/// thread-safe; McContext::create calls it.
void initializeAmdgpuTarget();

/// LLVM 22's AMDGPU decoder and printer crash on some invalid encodings
/// (found with random bytes; e.g. SDWA with reserved sel values, some
/// MTBUF words), as llvm-objdump-22 itself does. Once this is called,
/// McContext::decode and McContext::print run under
/// llvm::CrashRecoveryContext, so such bytes come back as undecodable
/// instead of killing the process. It installs process-wide signal handlers
/// (a signal outside a decode goes back to the previous handlers), so
/// libraries leave the choice to programs: the loom CLI and the tests call
/// it. Idempotent and thread-safe.
void enableCrashRecovery();

/// Crash recovery for the lifetime of the object only, for libraries that
/// decode bytes they were handed (the HSA runtime's loader): the signal
/// handlers are installed while at least one scope is alive, and the
/// client's own handlers are back once none is. Thread-safe.
class CrashRecoveryScope {
public:
  CrashRecoveryScope();
  ~CrashRecoveryScope();
  CrashRecoveryScope(const CrashRecoveryScope &) = delete;
  CrashRecoveryScope &operator=(const CrashRecoveryScope &) = delete;
};

class McContext {
public:
  /// Sets up the MC layer for \p Target (processor plus xnack/sramecc).
  /// Fails if the target names no processor or one LLVM does not know.
  static llvm::Expected<std::unique_ptr<McContext>>
  create(const codeobj::TargetId &Target);

  /// Same, from a processor name ("gfx90a") and an LLVM feature string
  /// ("+xnack,-sramecc"; may be empty).
  static llvm::Expected<std::unique_ptr<McContext>>
  create(llvm::StringRef Processor, llvm::StringRef Features = "");

  ~McContext();
  McContext(const McContext &) = delete;
  McContext &operator=(const McContext &) = delete;

  llvm::StringRef processor() const;
  /// The LLVM feature string the subtarget was created with.
  llvm::StringRef features() const;

  const llvm::Triple &triple() const;
  const llvm::Target &target() const;
  const llvm::MCSubtargetInfo &subtargetInfo() const;
  const llvm::MCRegisterInfo &registerInfo() const;
  const llvm::MCAsmInfo &asmInfo() const;
  const llvm::MCInstrInfo &instrInfo() const;
  llvm::MCContext &context();
  const llvm::MCDisassembler &disassembler() const;
  /// Configured as llvm-objdump configures it (hex immediates).
  llvm::MCInstPrinter &instPrinter();
  llvm::MCCodeEmitter &codeEmitter();
  /// Null if the target provides no instruction analysis.
  const llvm::MCInstrAnalysis *instrAnalysis() const;

  struct DecodeResult {
    /// Bytes covered: the instruction, or if !Valid the chunk to skip (as
    /// llvm-objdump skips it). 0 only if the input is empty.
    uint64_t Size = 0;
    bool Valid = false;
  };

  /// Decodes one instruction at the start of \p Bytes, which sit at
  /// \p Address.
  DecodeResult decode(llvm::ArrayRef<uint8_t> Bytes, uint64_t Address,
                      llvm::MCInst &Inst) const;

  /// Frees what decoding allocated inside LLVM (the AMDGPU disassembler
  /// keeps expressions it builds, for lit() operands say, until its
  /// MCContext goes: they would add up over the code loaded in a process).
  /// MCInsts decoded before may point into that memory: call it only when
  /// none is in use any more.
  void releaseDecodeMemory();

  /// The instruction text exactly as llvm-objdump prints it, without its
  /// leading tab and padding ("s_cbranch_scc1 13"). Empty only if LLVM's
  /// printer crashed on it (see enableCrashRecovery).
  std::string print(const llvm::MCInst &Inst, uint64_t Address);

  /// Encodes \p Inst, appending its bytes to \p Out.
  llvm::Error encode(const llvm::MCInst &Inst,
                     llvm::SmallVectorImpl<char> &Out);

  const llvm::MCInstrDesc &desc(unsigned Opcode) const;
  /// MC opcode name, e.g. "S_CBRANCH_SCC1_vi".
  llvm::StringRef opcodeName(unsigned Opcode) const;
  /// The opcode name without its encoding suffix: "S_CBRANCH_SCC1".
  llvm::StringRef opcodeBaseName(unsigned Opcode) const;

  /// Index N of scalar register sN, or std::nullopt for any other register.
  std::optional<unsigned> sgprIndex(unsigned Reg) const;
  /// Scalar register indices a register covers: s[4:5] -> {4, 5}.
  llvm::SmallVector<unsigned, 4> sgprIndices(unsigned Reg) const;
  /// Operand code of a 32-bit scalar register an address can be built in:
  /// N for sN, VccLoCode / VccHiCode for VCC's halves.
  std::optional<unsigned> scalarCode(unsigned Reg) const;
  /// Codes of the 32-bit scalar registers \p Reg covers, in order:
  /// vcc -> {VccLoCode, VccHiCode}.
  llvm::SmallVector<unsigned, 4> scalarCodes(unsigned Reg) const;
  static constexpr unsigned VccLoCode = 106, VccHiCode = 107;
  /// \p Reg with its SGPRs moved up by \p SgprShift and its VGPRs by
  /// \p VgprShift (s[4:5] + 8 -> s[12:13]); other registers as they are.
  /// std::nullopt if the target has no such register.
  std::optional<unsigned> renumbered(unsigned Reg, unsigned SgprShift,
                                     unsigned VgprShift) const;

private:
  struct Impl;
  explicit McContext(std::unique_ptr<Impl> I);
  std::unique_ptr<Impl> P;
};

/// Drops the encoding suffix of an MC opcode name: "S_ADD_U32_vi" ->
/// "S_ADD_U32", "S_GETPC_B64_gfx6_gfx7" -> "S_GETPC_B64". Operand-size
/// variants such as "_e32" stay.
llvm::StringRef stripEncodingSuffix(llvm::StringRef OpcodeName);

/// The LLVM feature string for a target id's xnack and sramecc settings:
/// On -> "+xnack", Off -> "-xnack", Any/Unsupported -> nothing.
std::string featureString(const codeobj::TargetId &Target);

} // namespace loom::isa

#endif // LOOM_ISA_MCCONTEXT_H
