//===- isa/McContext.cpp - LLVM MC objects for one AMDGPU target ----------===//

#include "loom/isa/McContext.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"

#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCCodeEmitter.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCFixup.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/MC/MCInstrAnalysis.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCObjectFileInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <vector>

extern "C" {
void LLVMInitializeAMDGPUTargetInfo();
void LLVMInitializeAMDGPUTargetMC();
void LLVMInitializeAMDGPUDisassembler();
}

using namespace llvm;

namespace loom::isa {

void initializeAmdgpuTarget() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUDisassembler();
  });
}

static std::atomic<bool> CrashRecoveryEnabled{false};

namespace {
std::mutex RecoveryLock;
bool RecoveryPermanent = false; // guarded by RecoveryLock
unsigned RecoveryScopes = 0;    // guarded by RecoveryLock
bool ScopesEnabledIt = false;   // guarded by RecoveryLock

/// Whether LLVM's crash recovery is on. This library may be linked twice
/// into one process (the HSA runtime's copy and a program's, sharing
/// libLLVM), so the other copy, or the program, may have turned it on: a
/// CrashRecoveryContext has a current context inside RunSafely only then.
bool llvmRecoveryOn() {
  bool On = false;
  CrashRecoveryContext CRC;
  CRC.RunSafely([&] { On = CrashRecoveryContext::GetCurrent() != nullptr; });
  return On;
}
} // namespace

void enableCrashRecovery() {
  std::lock_guard<std::mutex> G(RecoveryLock);
  if (RecoveryPermanent)
    return;
  RecoveryPermanent = true;
  if (!RecoveryScopes)
    CrashRecoveryContext::Enable();
  CrashRecoveryEnabled = true;
}

CrashRecoveryScope::CrashRecoveryScope() {
  std::lock_guard<std::mutex> G(RecoveryLock);
  if (RecoveryScopes++ == 0 && !RecoveryPermanent) {
    // Turned on by someone else (the JIT in the program): theirs to keep.
    ScopesEnabledIt = !llvmRecoveryOn();
    if (ScopesEnabledIt)
      CrashRecoveryContext::Enable();
    CrashRecoveryEnabled = true;
  }
}

CrashRecoveryScope::~CrashRecoveryScope() {
  std::lock_guard<std::mutex> G(RecoveryLock);
  if (--RecoveryScopes == 0 && !RecoveryPermanent) {
    CrashRecoveryEnabled = false;
    if (ScopesEnabledIt)
      CrashRecoveryContext::Disable();
    ScopesEnabledIt = false;
  }
}

/// Runs \p F, under a CrashRecoveryContext if enabled. False if F crashed.
static bool runGuarded(function_ref<void()> F) {
  if (!CrashRecoveryEnabled) {
    F();
    return true;
  }
  CrashRecoveryContext CRC;
  return CRC.RunSafely(F);
}

std::string featureString(const codeobj::TargetId &Target) {
  std::string FS;
  auto Add = [&](codeobj::FeatureSetting S, StringRef Name) {
    if (S != codeobj::FeatureSetting::On && S != codeobj::FeatureSetting::Off)
      return;
    if (!FS.empty())
      FS += ',';
    FS += S == codeobj::FeatureSetting::On ? '+' : '-';
    FS += Name;
  };
  Add(Target.Xnack, "xnack");
  Add(Target.Sramecc, "sramecc");
  return FS;
}

struct McContext::Impl {
  Triple TheTriple{AmdhsaTriple};
  const Target *TheTarget = nullptr;
  std::string Processor;
  std::string Features;
  MCTargetOptions Options;
  // Declaration order is destruction order in reverse: users after what they
  // use.
  std::unique_ptr<MCRegisterInfo> MRI;
  std::unique_ptr<MCAsmInfo> MAI;
  std::unique_ptr<MCSubtargetInfo> STI;
  std::unique_ptr<MCInstrInfo> MII;
  std::unique_ptr<MCContext> Ctx;
  std::unique_ptr<MCObjectFileInfo> MOFI;
  /// The disassembler's own context: what decoding allocates there
  /// (expressions for lit() operands, say) lives until the context goes,
  /// so releaseDecodeMemory replaces both.
  std::unique_ptr<MCContext> DecodeCtx;
  std::unique_ptr<MCDisassembler> DisAsm;
  std::unique_ptr<MCInstrAnalysis> MIA;
  std::unique_ptr<MCInstPrinter> Printer;
  std::unique_ptr<MCCodeEmitter> Emitter;
  /// MCRegister id -> SGPR index, -1 for other registers.
  std::vector<int16_t> SgprOfReg;
  unsigned VccLo = 0, VccHi = 0;

  /// A fresh DecodeCtx and DisAsm; false if LLVM gives no disassembler.
  bool newDisassembler();
};

bool McContext::Impl::newDisassembler() {
  DisAsm.reset();
  DecodeCtx = std::make_unique<MCContext>(TheTriple, MAI.get(), MRI.get(),
                                          STI.get());
  DisAsm.reset(TheTarget->createMCDisassembler(*STI, *DecodeCtx));
  return DisAsm != nullptr;
}

McContext::McContext(std::unique_ptr<Impl> I) : P(std::move(I)) {}
McContext::~McContext() = default;

Expected<std::unique_ptr<McContext>>
McContext::create(const codeobj::TargetId &Target) {
  if (Target.Processor.empty())
    return createStringError("code object names no processor");
  return create(Target.Processor, featureString(Target));
}

static Error mcError(StringRef What, StringRef Processor) {
  return createStringError("cannot create LLVM MC " + What + " for " +
                           Processor);
}

Expected<std::unique_ptr<McContext>> McContext::create(StringRef Processor,
                                                       StringRef Features) {
  initializeAmdgpuTarget();
  auto I = std::make_unique<Impl>();
  I->Processor = Processor.str();
  I->Features = Features.str();

  std::string LookupError;
  I->TheTarget = TargetRegistry::lookupTarget(I->TheTriple, LookupError);
  if (!I->TheTarget)
    return createStringError("AMDGPU target unavailable: " + LookupError);
  const Target &T = *I->TheTarget;

  // Ask an empty-CPU subtarget first: creating one for an unknown CPU would
  // print a warning to stderr instead of failing.
  {
    std::unique_ptr<MCSubtargetInfo> Probe(
        T.createMCSubtargetInfo(I->TheTriple, "", ""));
    if (!Probe || Processor.empty() || !Probe->isCPUStringValid(Processor))
      return createStringError("unknown AMDGPU processor '" + Processor + "'");
  }

  I->MRI.reset(T.createMCRegInfo(I->TheTriple));
  if (!I->MRI)
    return mcError("register info", Processor);
  I->MAI.reset(T.createMCAsmInfo(*I->MRI, I->TheTriple, I->Options));
  if (!I->MAI)
    return mcError("asm info", Processor);
  I->STI.reset(
      T.createMCSubtargetInfo(I->TheTriple, I->Processor, I->Features));
  if (!I->STI)
    return mcError("subtarget info", Processor);
  I->MII.reset(T.createMCInstrInfo());
  if (!I->MII)
    return mcError("instruction info", Processor);
  I->Ctx = std::make_unique<MCContext>(I->TheTriple, I->MAI.get(), I->MRI.get(),
                                       I->STI.get());
  I->MOFI.reset(T.createMCObjectFileInfo(*I->Ctx, /*PIC=*/false));
  I->Ctx->setObjectFileInfo(I->MOFI.get());
  if (!I->newDisassembler())
    return mcError("disassembler", Processor);
  I->MIA.reset(T.createMCInstrAnalysis(I->MII.get()));
  I->Printer.reset(T.createMCInstPrinter(
      I->TheTriple, I->MAI->getAssemblerDialect(), *I->MAI, *I->MII, *I->MRI));
  if (!I->Printer)
    return mcError("instruction printer", Processor);
  // The settings llvm-objdump uses, so our text matches its text.
  I->Printer->setPrintImmHex(true);
  I->Printer->setPrintBranchImmAsAddress(true);
  I->Printer->setMCInstrAnalysis(I->MIA.get());
  I->Emitter.reset(T.createMCCodeEmitter(*I->MII, *I->Ctx));
  if (!I->Emitter)
    return mcError("code emitter", Processor);

  // Scalar registers are found by name once; MC has no public enum for them.
  I->SgprOfReg.assign(I->MRI->getNumRegs(), -1);
  for (unsigned R = 1, E = I->MRI->getNumRegs(); R != E; ++R) {
    StringRef Name = I->MRI->getName(R);
    unsigned N;
    if (Name == "VCC_LO")
      I->VccLo = R;
    else if (Name == "VCC_HI")
      I->VccHi = R;
    else if (Name.consume_front("SGPR") && !Name.getAsInteger(10, N))
      I->SgprOfReg[R] = static_cast<int16_t>(N);
  }

  return std::unique_ptr<McContext>(new McContext(std::move(I)));
}

StringRef McContext::processor() const { return P->Processor; }
StringRef McContext::features() const { return P->Features; }
const Triple &McContext::triple() const { return P->TheTriple; }
const Target &McContext::target() const { return *P->TheTarget; }
const MCSubtargetInfo &McContext::subtargetInfo() const { return *P->STI; }
const MCRegisterInfo &McContext::registerInfo() const { return *P->MRI; }
const MCAsmInfo &McContext::asmInfo() const { return *P->MAI; }
const MCInstrInfo &McContext::instrInfo() const { return *P->MII; }
MCContext &McContext::context() { return *P->Ctx; }
const MCDisassembler &McContext::disassembler() const { return *P->DisAsm; }
MCInstPrinter &McContext::instPrinter() { return *P->Printer; }
MCCodeEmitter &McContext::codeEmitter() { return *P->Emitter; }
const MCInstrAnalysis *McContext::instrAnalysis() const { return P->MIA.get(); }

McContext::DecodeResult McContext::decode(ArrayRef<uint8_t> Bytes,
                                          uint64_t Address,
                                          MCInst &Inst) const {
  DecodeResult R;
  if (Bytes.empty())
    return R;
  MCDisassembler::DecodeStatus S = MCDisassembler::Fail;
  if (!runGuarded([&] {
        S = P->DisAsm->getInstruction(Inst, R.Size, Bytes, Address, nulls());
      })) {
    // Skip one word, as the decoder does for bytes it rejects.
    Inst = MCInst();
    S = MCDisassembler::Fail;
    R.Size = std::min<uint64_t>(4, Bytes.size());
  }
  // SoftFail still names an instruction (with an unusual encoding), and
  // llvm-objdump prints it like any other.
  R.Valid = S != MCDisassembler::Fail;
  // The skip rule of llvm-objdump, so undecodable bytes line up with it.
  if (R.Size == 0)
    R.Size = std::min<uint64_t>(Bytes.size(),
                                P->DisAsm->suggestBytesToSkip(Bytes, Address));
  if (R.Size == 0)
    R.Size = 1;
  R.Size = std::min<uint64_t>(R.Size, Bytes.size());
  return R;
}

void McContext::releaseDecodeMemory() {
  bool Ok = P->newDisassembler();
  assert(Ok && "the disassembler was created once already");
  (void)Ok;
}

std::string McContext::print(const MCInst &Inst, uint64_t Address) {
  std::string Text;
  raw_string_ostream OS(Text);
  if (!runGuarded(
          [&] { P->Printer->printInst(&Inst, Address, "", *P->STI, OS); }))
    return "";
  OS.flush();
  return StringRef(Text).trim().str();
}

Error McContext::encode(const MCInst &Inst, SmallVectorImpl<char> &Out) {
  SmallVector<MCFixup, 2> Fixups;
  P->Emitter->encodeInstruction(Inst, Out, Fixups, *P->STI);
  if (!Fixups.empty())
    return createStringError("instruction " + opcodeName(Inst.getOpcode()) +
                             " needs a fixup to encode");
  return Error::success();
}

const MCInstrDesc &McContext::desc(unsigned Opcode) const {
  return P->MII->get(Opcode);
}

StringRef McContext::opcodeName(unsigned Opcode) const {
  return P->MII->getName(Opcode);
}

StringRef McContext::opcodeBaseName(unsigned Opcode) const {
  return stripEncodingSuffix(opcodeName(Opcode));
}

static bool isEncodingToken(StringRef T) {
  return T == "vi" || T == "si" || T == "ci" || T.starts_with("gfx");
}

StringRef stripEncodingSuffix(StringRef Name) {
  // Suffixes such as "_gfx6_gfx7" have several tokens: drop from the end
  // while the last token names an encoding.
  while (true) {
    size_t Pos = Name.rfind('_');
    if (Pos == StringRef::npos || Pos == 0 ||
        !isEncodingToken(Name.substr(Pos + 1)))
      return Name;
    Name = Name.take_front(Pos);
  }
}

std::optional<unsigned> McContext::sgprIndex(unsigned Reg) const {
  if (Reg >= P->SgprOfReg.size() || P->SgprOfReg[Reg] < 0)
    return std::nullopt;
  return static_cast<unsigned>(P->SgprOfReg[Reg]);
}

/// What \p Of gives for \p Reg and its sub-registers, sorted, once each.
template <typename FnT>
static SmallVector<unsigned, 4> ofSubregisters(const MCRegisterInfo &MRI,
                                               unsigned Reg, FnT Of) {
  SmallVector<unsigned, 4> Out;
  if (Reg == 0 || Reg >= MRI.getNumRegs())
    return Out;
  for (MCPhysReg Sub : MRI.subregs_inclusive(Reg))
    if (std::optional<unsigned> N = Of(Sub))
      Out.push_back(*N);
  llvm::sort(Out);
  Out.erase(std::unique(Out.begin(), Out.end()), Out.end());
  return Out;
}

SmallVector<unsigned, 4> McContext::sgprIndices(unsigned Reg) const {
  return ofSubregisters(*P->MRI, Reg,
                        [&](unsigned Sub) { return sgprIndex(Sub); });
}

std::optional<unsigned> McContext::scalarCode(unsigned Reg) const {
  if (Reg && Reg == P->VccLo)
    return VccLoCode;
  if (Reg && Reg == P->VccHi)
    return VccHiCode;
  return sgprIndex(Reg);
}

/// MC registers by name, for renumbered(). AMDGPU's register info is the
/// triple's, the same for every processor: built once a process, not once
/// per code object. Its 21,259 names are LLVM's own strings, kept as
/// StringRefs in one table: 3-8 ms, where a StringMap's entry per name
/// took 21 ms.
static const DenseMap<StringRef, unsigned> &
registersByName(const MCRegisterInfo &MRI) {
  // Never destroyed: a thread may still instrument while the process exits.
  static const DenseMap<StringRef, unsigned> *ByName = [&] {
    auto *Map = new DenseMap<StringRef, unsigned>();
    Map->reserve(MRI.getNumRegs());
    for (unsigned R = 1, E = MRI.getNumRegs(); R != E; ++R)
      Map->try_emplace(MRI.getName(R), R);
    return Map;
  }();
  return *ByName;
}

std::optional<unsigned> McContext::renumbered(unsigned Reg,
                                              unsigned SgprShift,
                                              unsigned VgprShift) const {
  if (Reg == 0 || Reg >= P->SgprOfReg.size())
    return Reg;
  // By name: "SGPR4_SGPR5" -> "SGPR12_SGPR13"; MC has no arithmetic on
  // register numbers across classes.
  StringRef Name = P->MRI->getName(Reg);
  std::string New;
  bool Changed = false;
  while (!Name.empty()) {
    unsigned Shift = Name.starts_with("SGPR")   ? SgprShift
                     : Name.starts_with("VGPR") ? VgprShift
                                                : 0;
    if (Shift) {
      New += Name.take_front(4);
      Name = Name.drop_front(4);
      StringRef Digits = Name.take_while(isDigit);
      unsigned N;
      if (Digits.empty() || Digits.getAsInteger(10, N))
        return std::nullopt;
      New += std::to_string(N + Shift);
      Name = Name.drop_front(Digits.size());
      Changed = true;
      continue;
    }
    New += Name.front();
    Name = Name.drop_front();
  }
  if (!Changed)
    return Reg;
  const DenseMap<StringRef, unsigned> &ByName = registersByName(*P->MRI);
  auto It = ByName.find(New);
  if (It == ByName.end())
    return std::nullopt;
  return It->second;
}

SmallVector<unsigned, 4> McContext::scalarCodes(unsigned Reg) const {
  return ofSubregisters(*P->MRI, Reg,
                        [&](unsigned Sub) { return scalarCode(Sub); });
}

} // namespace loom::isa
