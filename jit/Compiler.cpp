//===- jit/Compiler.cpp - LLVM IR to a relocatable AMDGPU object ----------===//

#include "loom/jit/Pipeline.h"

#include "Initialize.h"
#include "Recovery.h"

#include "loom/isa/McContext.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <cstdlib>
#include <future>
#include <map>
#include <mutex>

extern "C" {
void LLVMInitializeAMDGPUTargetInfo();
void LLVMInitializeAMDGPUTarget();
void LLVMInitializeAMDGPUTargetMC();
void LLVMInitializeAMDGPUAsmPrinter();
void LLVMInitializeAMDGPUAsmParser();
}

using namespace llvm;

namespace loom::jit {

void initializeCodegen() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
    LLVMInitializeAMDGPUAsmParser();
  });
}

namespace {

/// Collects the errors the backend reports through the context (a call it
/// cannot lower, an unsupported address space...) instead of printing
/// them; restores the context's own handler when it goes.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(LLVMContext &Ctx)
      : Ctx(Ctx), Saved(Ctx.getDiagnosticHandlerCallBack()),
        SavedData(Ctx.getDiagnosticContext()) {
    Ctx.setDiagnosticHandlerCallBack(&DiagnosticCollector::handle, this);
  }
  ~DiagnosticCollector() { Ctx.setDiagnosticHandlerCallBack(Saved, SavedData); }

  Error take(const Twine &What) {
    if (Errors.empty())
      return Error::success();
    return createStringError(What + ": " + Errors);
  }

private:
  static void handle(const DiagnosticInfo *DI, void *Self) {
    auto *C = static_cast<DiagnosticCollector *>(Self);
    if (DI->getSeverity() != DS_Error)
      return;
    raw_string_ostream OS(C->Errors);
    if (!C->Errors.empty())
      OS << "; ";
    std::string Text;
    raw_string_ostream TOS(Text);
    DiagnosticPrinterRawOStream DP(TOS);
    DI->print(DP);
    // Backend diagnostics without a location say so; drop the noise.
    StringRef T(Text);
    T.consume_front("<unknown>:0:0: ");
    OS << T;
  }

  LLVMContext &Ctx;
  DiagnosticHandler::DiagnosticHandlerTy Saved;
  void *SavedData;
  std::string Errors;
};

Expected<std::unique_ptr<TargetMachine>>
createTargetMachine(const TargetSpec &T, unsigned OptLevel) {
  initializeCodegen();
  Triple TT(isa::AmdhsaTriple);
  std::string Error;
  const Target *TheTarget = TargetRegistry::lookupTarget(TT, Error);
  if (!TheTarget)
    return createStringError("no AMDGPU target in this LLVM: " + Error);
  // An unknown processor makes LLVM print a warning and fall back to a
  // generic one; refuse it instead (asking a generic subtarget, which
  // prints nothing).
  std::unique_ptr<MCSubtargetInfo> STI(
      TheTarget->createMCSubtargetInfo(TT, "", ""));
  if (!STI || !STI->isCPUStringValid(T.Processor))
    return createStringError("'" + T.Processor +
                             "' is not an AMDGPU processor LLVM knows");
  CodeGenOptLevel Level;
  switch (OptLevel) {
  case 0: Level = CodeGenOptLevel::None; break;
  case 1: Level = CodeGenOptLevel::Less; break;
  case 2: Level = CodeGenOptLevel::Default; break;
  case 3: Level = CodeGenOptLevel::Aggressive; break;
  default:
    return createStringError("optimisation level " + Twine(OptLevel) +
                             " is not 0 to 3");
  }
  std::unique_ptr<TargetMachine> TM(TheTarget->createTargetMachine(
      TT, T.Processor, T.Features, TargetOptions(), Reloc::PIC_, std::nullopt,
      Level));
  if (!TM)
    return createStringError("cannot create an AMDGPU target machine for " +
                             T.str());
  return std::move(TM);
}

/// A target machine, and the code generator's passes for assembly output
/// built on it once.
struct Machine {
  std::unique_ptr<TargetMachine> TM;
  /// Building the backend's pass pipeline and setting up its passes (the
  /// register allocator's tables over AMDGPU's thousands of register
  /// units, three times) cost about 12 ms a compilation, more than
  /// compiling an instrumentation point. The pipeline for assembly is
  /// kept and run again on module after module: each pass starts a module
  /// afresh in doInitialization, and the printer resets its streamer at
  /// the end of one. (Object output cannot be reused so: its assembler
  /// keeps the inline assembly's local labels from module to module.)
  std::unique_ptr<legacy::PassManager> AsmPasses;
  SmallVector<char, 0> AsmText;
  raw_svector_ostream AsmStream{AsmText}; ///< the pipeline's output
};

/// Target machines not in use, by target and level. Creating one costs
/// about a millisecond, and its first compilation (which makes its
/// subtarget) tens more, more than a small kernel's codegen: they are
/// made once and kept. A TargetMachine may be used by one thread at a
/// time: a compilation borrows one and gives it back.
class MachinePool {
public:
  struct Lent {
    MachinePool *Pool = nullptr;
    std::string Key;
    std::unique_ptr<Machine> M;
    Lent() = default;
    Lent(Lent &&) = default;
    ~Lent() {
      if (Pool && M)
        Pool->giveBack(Key, std::move(M));
    }
    /// A compilation that failed or crashed may have left its passes half
    /// way: the machine is not given back.
    void discard() { M.reset(); }
  };

  Expected<Lent> borrow(const TargetSpec &T, unsigned OptLevel) {
    Lent L;
    L.Pool = this;
    L.Key = T.str() + "/O" + std::to_string(OptLevel);
    {
      std::lock_guard<std::mutex> G(Lock);
      auto &Free = Idle[L.Key];
      if (!Free.empty()) {
        L.M = std::move(Free.back());
        Free.pop_back();
        return std::move(L);
      }
    }
    auto TM = createTargetMachine(T, OptLevel);
    if (!TM)
      return TM.takeError();
    L.M = std::make_unique<Machine>();
    L.M->TM = std::move(*TM);
    return std::move(L);
  }

private:
  void giveBack(const std::string &Key, std::unique_ptr<Machine> M) {
    std::lock_guard<std::mutex> G(Lock);
    Idle[Key].push_back(std::move(M));
  }

  std::mutex Lock;
  std::map<std::string, std::vector<std::unique_ptr<Machine>>> Idle;
};

MachinePool &machines() {
  // Never destroyed: a thread may still compile while the process exits.
  static MachinePool *Pool = new MachinePool;
  return *Pool;
}

OptimizationLevel passLevel(unsigned OptLevel) {
  switch (OptLevel) {
  case 0: return OptimizationLevel::O0;
  case 1: return OptimizationLevel::O1;
  case 3: return OptimizationLevel::O3;
  default: return OptimizationLevel::O2;
  }
}

/// The middle end: \p Passes, or clang's pipeline at \p OptLevel.
Error optimize(Module &M, TargetMachine &TM, unsigned OptLevel,
               StringRef Passes) {
  LoopAnalysisManager LAM;
  FunctionAnalysisManager FAM;
  CGSCCAnalysisManager CGAM;
  ModuleAnalysisManager MAM;
  PassBuilder PB(&TM);
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  ModulePassManager MPM;
  if (!Passes.empty()) {
    if (Error E = PB.parsePassPipeline(MPM, Passes))
      return createStringError("pass pipeline '" + Passes +
                               "': " + toString(std::move(E)));
  } else {
    MPM = OptLevel == 0 ? PB.buildO0DefaultPipeline(OptimizationLevel::O0)
                        : PB.buildPerModuleDefaultPipeline(passLevel(OptLevel));
  }
  MPM.run(M, MAM);
  return Error::success();
}

} // namespace

Expected<TargetSpec> TargetSpec::fromIsaName(StringRef IsaName) {
  // "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-" or "gfx90a:xnack-".
  StringRef Id = IsaName;
  size_t Dashes = Id.rfind("--");
  if (Dashes != StringRef::npos)
    Id = Id.drop_front(Dashes + 2);
  SmallVector<StringRef, 4> Parts;
  Id.split(Parts, ':');
  if (Parts.empty() || !Parts[0].starts_with("gfx"))
    return createStringError("'" + IsaName + "' names no AMDGPU processor");
  TargetSpec T;
  T.Processor = Parts[0].str();
  for (StringRef F : ArrayRef(Parts).drop_front()) {
    if (F.size() < 2 || (F.back() != '+' && F.back() != '-'))
      return createStringError("'" + IsaName + "': bad target feature '" +
                               F + "'");
    if (!T.Features.empty())
      T.Features += ',';
    T.Features += F.back();
    T.Features += F.drop_back().str();
  }
  return T;
}

std::string TargetSpec::str() const {
  return Features.empty() ? Processor : Processor + ":" + Features;
}

Expected<std::unique_ptr<Module>> parseIR(MemoryBufferRef Input,
                                          LLVMContext &Ctx) {
  // The text parser reads up to a NUL, which a MemoryBufferRef of bytes
  // need not have: parse a terminated copy.
  std::unique_ptr<MemoryBuffer> Copy = MemoryBuffer::getMemBufferCopy(
      Input.getBuffer(), Input.getBufferIdentifier());
  SMDiagnostic Diag;
  std::unique_ptr<Module> M = llvm::parseIR(*Copy, Diag, Ctx);
  if (!M) {
    std::string Text;
    raw_string_ostream OS(Text);
    Diag.print(nullptr, OS, /*ShowColors=*/false, /*ShowKindLabel=*/true);
    return createStringError(StringRef(Text).rtrim().str());
  }
  return std::move(M);
}

Expected<ObjectBytes> compileModule(Module &M, const CompileOptions &O) {
  std::string Name = M.getModuleIdentifier();
  if (Name.empty())
    Name = "<module>";
  Triple TT(M.getTargetTriple());
  if (M.getTargetTriple().empty())
    M.setTargetTriple(Triple(isa::AmdhsaTriple));
  else if (TT.getArch() != Triple::amdgcn || TT.getOS() != Triple::AMDHSA)
    return createStringError(Name + ": module is for target '" + TT.str() +
                             "'; Loom compiles for " + isa::AmdhsaTriple);

  std::string Broken;
  raw_string_ostream BrokenOS(Broken);
  if (verifyModule(M, &BrokenOS))
    return createStringError(Name + ": invalid IR: " +
                             StringRef(Broken).rtrim());

  auto Borrowed = machines().borrow(O.Target, O.OptLevel);
  if (!Borrowed)
    return Borrowed.takeError();
  Machine &Mc = *Borrowed->M;
  TargetMachine *TM = Mc.TM.get();
  M.setDataLayout(TM->createDataLayout());

  ObjectBytes Object;
  DiagnosticCollector Diagnostics(M.getContext());
  Error E = runRecoverable(Name + ": AMDGPU backend", [&]() -> Error {
    if (Error Bad = optimize(M, *TM, O.OptLevel, O.Passes))
      return Bad;
    if (O.Assembly) {
      if (!Mc.AsmPasses) {
        Mc.AsmPasses = std::make_unique<legacy::PassManager>();
        if (TM->addPassesToEmitFile(*Mc.AsmPasses, Mc.AsmStream, nullptr,
                                    CodeGenFileType::AssemblyFile))
          return createStringError("the target cannot emit assembly");
      }
      Mc.AsmText.clear();
      Mc.AsmPasses->run(M);
      Object.assign(Mc.AsmText.begin(), Mc.AsmText.end());
      return Error::success();
    }
    SmallVector<char, 0> Buffer;
    raw_svector_ostream OS(Buffer);
    legacy::PassManager PM;
    if (TM->addPassesToEmitFile(PM, OS, nullptr, CodeGenFileType::ObjectFile))
      return createStringError("the target cannot emit this file type");
    PM.run(M);
    Object.assign(Buffer.begin(), Buffer.end());
    return Error::success();
  });
  if (E) {
    Borrowed->discard();
    return std::move(E);
  }
  if (Error D = Diagnostics.take(Name)) {
    Borrowed->discard();
    return std::move(D);
  }
  return Object;
}

void keepFunctions(Module &M, function_ref<bool(const Function &)> Keep) {
  if (Keep)
    for (Function &F : M)
      if (!F.isDeclaration() && !Keep(F))
        F.deleteBody();
  for (Function &F : make_early_inc_range(M))
    if (F.isDeclaration() && F.use_empty())
      F.eraseFromParent();
}

unsigned defaultCompileParts() {
  if (const char *Env = std::getenv("LOOM_COMPILE_THREADS"))
    return std::max(1, std::atoi(Env));
  // More parts than a copy has new shapes (rarely more than a few) only
  // cost threads.
  return std::clamp(llvm::hardware_concurrency().compute_thread_count(), 1u,
                    8u);
}

namespace {
/// The threads parts are compiled on, made at the first need and kept.
ThreadPoolInterface &compileThreads() {
  static DefaultThreadPool Pool(
      hardware_concurrency(std::max(1u, defaultCompileParts())));
  return Pool;
}

/// The functions \p M defines, shared out among \p Parts groups of about
/// the same number of instructions: the largest first, each to the group
/// with the fewest so far.
std::vector<std::vector<const Function *>> shareOut(const Module &M,
                                                    unsigned Parts) {
  // (instructions, place in M): the order is the same from run to run.
  std::vector<std::pair<unsigned, unsigned>> Defined;
  std::vector<const Function *> Functions;
  for (const Function &F : M)
    if (!F.isDeclaration()) {
      Defined.emplace_back(F.getInstructionCount(), Functions.size());
      Functions.push_back(&F);
    }
  Parts = std::max(1u, std::min<unsigned>(Parts, Defined.size()));
  llvm::sort(Defined, [](auto A, auto B) {
    return A.first != B.first ? A.first > B.first : A.second < B.second;
  });
  std::vector<std::vector<const Function *>> Groups(Parts);
  std::vector<unsigned> Size(Parts);
  for (auto [Instructions, Index] : Defined) {
    unsigned G = std::min_element(Size.begin(), Size.end()) - Size.begin();
    Groups[G].push_back(Functions[Index]);
    Size[G] += Instructions;
  }
  return Groups;
}
} // namespace

Expected<std::vector<ObjectBytes>>
compileModuleInParts(Module &M, const CompileOptions &O, unsigned Parts,
                     function_ref<std::string(const Function &)> Describe) {
  if (Parts == 0)
    Parts = defaultCompileParts();
  std::vector<std::vector<const Function *>> Groups = shareOut(M, Parts);
  std::vector<std::string> Names(Groups.size());
  for (size_t G = 0; G < Groups.size(); ++G)
    for (const Function *F : Groups[G])
      Names[G] += (Names[G].empty() ? "" : ", ") +
                  (Describe ? Describe(*F) : F->getName().str());
  auto Named = [&](size_t G, Error E) -> Error {
    return createStringError(Names[G] + ": " + toString(std::move(E)));
  };
  if (Groups.size() <= 1) {
    auto Object = compileModule(M, O);
    if (!Object)
      return Named(0, Object.takeError());
    return std::vector<ObjectBytes>{std::move(*Object)};
  }

  // Every part but the first as bitcode of a module of its own functions
  // (the others declared, or dropped where nothing calls them), which a
  // thread reads into a context of its own: an LLVMContext is one
  // thread's. The first part is M itself, compiled here meanwhile.
  std::vector<SmallVector<char, 0>> Bitcode(Groups.size());
  for (size_t G = 1; G < Groups.size(); ++G) {
    SmallPtrSet<const GlobalValue *, 16> Mine(Groups[G].begin(),
                                              Groups[G].end());
    ValueToValueMapTy VMap;
    std::unique_ptr<Module> Part =
        CloneModule(M, VMap, [&](const GlobalValue *GV) {
          return !llvm::isa<Function>(GV) || Mine.count(GV);
        });
    keepFunctions(*Part);
    raw_svector_ostream OS(Bitcode[G]);
    WriteBitcodeToFile(*Part, OS);
  }
  {
    SmallPtrSet<const GlobalValue *, 16> Mine(Groups[0].begin(),
                                              Groups[0].end());
    keepFunctions(M, [&](const Function &F) { return Mine.count(&F); });
  }

  std::vector<Expected<ObjectBytes>> Out;
  for (size_t G = 0; G < Groups.size(); ++G)
    Out.emplace_back(ObjectBytes());
  std::string Name = M.getModuleIdentifier();
  std::vector<std::shared_future<void>> Running;
  for (size_t G = 1; G < Groups.size(); ++G)
    Running.push_back(compileThreads().async([&, G] {
      LLVMContext Ctx;
      auto Part = parseIR(
          MemoryBufferRef(StringRef(Bitcode[G].data(), Bitcode[G].size()),
                          Name),
          Ctx);
      Out[G] = Part ? compileModule(**Part, O) : Part.takeError();
    }));
  Out[0] = compileModule(M, O);
  for (std::shared_future<void> &R : Running)
    R.wait();

  std::vector<ObjectBytes> Objects;
  Error Failed = Error::success();
  for (size_t G = 0; G < Groups.size(); ++G) {
    if (Out[G])
      Objects.push_back(std::move(*Out[G]));
    else
      Failed = joinErrors(std::move(Failed), Named(G, Out[G].takeError()));
  }
  if (Failed)
    return std::move(Failed);
  return Objects;
}

Expected<ObjectBytes> compileAndLink(Module &M, const CompileOptions &O,
                                     const LinkOptions &L) {
  auto Object = compileModule(M, O);
  if (!Object)
    return Object.takeError();
  return linkObjects(ArrayRef(&*Object, 1), L);
}

} // namespace loom::jit
