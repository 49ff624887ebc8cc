//===- jit/Assembler.cpp - AMDGPU assembly to a relocatable object --------===//
//
// The MC half of the pipeline: assembly text (with .amdhsa_kernel
// directives, as llvm-mc and clang -x assembler take it) through LLVM's
// AMDGPU assembly parser into an object streamer, in memory. The
// instrumentation layer emits its rewritten functions this way; tests and
// `loom run` can hand-write kernels.
//
//===----------------------------------------------------------------------===//

#include "loom/jit/Pipeline.h"

#include "Initialize.h"
#include "Recovery.h"

#include "loom/isa/McContext.h"

#include "llvm/MC/MCAsmBackend.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCCodeEmitter.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCObjectFileInfo.h"
#include "llvm/MC/MCObjectWriter.h"
#include "llvm/MC/MCParser/MCAsmParser.h"
#include "llvm/MC/MCParser/MCTargetAsmParser.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCStreamer.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

namespace loom::jit {

Expected<ObjectBytes> assembleObject(StringRef Assembly, StringRef Name,
                                     const TargetSpec &Target) {
  initializeCodegen();
  Triple TT(isa::AmdhsaTriple);
  std::string Why;
  const llvm::Target *T = TargetRegistry::lookupTarget(TT, Why);
  if (!T)
    return createStringError("no AMDGPU target in this LLVM: " + Why);

  SourceMgr Sources;
  Sources.AddNewSourceBuffer(MemoryBuffer::getMemBufferCopy(Assembly, Name),
                             SMLoc());
  std::string Messages;
  auto Collect = [&](const SMDiagnostic &D) {
    if (D.getKind() != SourceMgr::DK_Error)
      return;
    raw_string_ostream OS(Messages);
    if (!Messages.empty())
      OS << "\n";
    D.print(nullptr, OS, /*ShowColors=*/false);
  };
  Sources.setDiagHandler(
      [](const SMDiagnostic &D, void *C) {
        (*static_cast<decltype(Collect) *>(C))(D);
      },
      &Collect);

  MCTargetOptions Options;
  std::unique_ptr<MCRegisterInfo> MRI(T->createMCRegInfo(TT));
  std::unique_ptr<MCAsmInfo> MAI(T->createMCAsmInfo(*MRI, TT, Options));
  std::unique_ptr<MCSubtargetInfo> STI(
      T->createMCSubtargetInfo(TT, Target.Processor, Target.Features));
  std::unique_ptr<MCInstrInfo> MII(T->createMCInstrInfo());
  if (!MRI || !MAI || !STI || !MII)
    return createStringError("cannot set up the AMDGPU MC layer for " +
                             Target.str());
  MCContext Ctx(TT, MAI.get(), MRI.get(), STI.get(), &Sources, &Options);
  Ctx.setDiagnosticHandler([&](const SMDiagnostic &D, bool, const SourceMgr &,
                               std::vector<const MDNode *> &) { Collect(D); });
  std::unique_ptr<MCObjectFileInfo> MOFI(
      T->createMCObjectFileInfo(Ctx, /*PIC=*/true));
  Ctx.setObjectFileInfo(MOFI.get());

  SmallVector<char, 0> Buffer;
  raw_svector_ostream OS(Buffer);
  bool Failed = false;
  Error E = runRecoverable(Name + ": AMDGPU assembler", [&]() -> llvm::Error {
    std::unique_ptr<MCAsmBackend> MAB(
        T->createMCAsmBackend(*STI, *MRI, Options));
    std::unique_ptr<MCCodeEmitter> CE(T->createMCCodeEmitter(*MII, Ctx));
    if (!MAB || !CE)
      return createStringError("the AMDGPU target cannot emit objects");
    std::unique_ptr<MCObjectWriter> OW = MAB->createObjectWriter(OS);
    std::unique_ptr<MCStreamer> Streamer(T->createMCObjectStreamer(
        TT, Ctx, std::move(MAB), std::move(OW), std::move(CE), *STI));
    std::unique_ptr<MCAsmParser> Parser(
        createMCAsmParser(Sources, Ctx, *Streamer, *MAI));
    std::unique_ptr<MCTargetAsmParser> TAP(
        T->createMCAsmParser(*STI, *Parser, *MII, Options));
    if (!TAP)
      return createStringError("no AMDGPU assembly parser");
    Parser->setTargetParser(*TAP);
    Failed = Parser->Run(/*NoInitialTextSection=*/false);
    return Error::success();
  });
  if (E)
    return std::move(E);
  if (Failed || !Messages.empty())
    return createStringError(Messages.empty()
                                 ? (Name + ": assembly failed").str()
                                 : Messages);
  return ObjectBytes(Buffer.begin(), Buffer.end());
}

} // namespace loom::jit
