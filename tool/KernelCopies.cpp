//===- tool/KernelCopies.cpp - Instrumented copies of kernels, made once --===//
//
// A copy is made for one kernel and one list of (tool, configuration): the
// kernel's code object is lifted once (the first time any of its kernels is
// instrumented), each tool adds its hooks to one shared plan, the code
// generator makes a new code object, and it is loaded as an executable of
// its own on the kernel's agent.
//
//===----------------------------------------------------------------------===//

#include "KernelCopies.h"
#include "Hsa.h"

#include "loom/instrument/LaunchHeader.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>

using namespace llvm;
using namespace loom::instrument;

namespace loom::tool {

namespace {
using Clock = std::chrono::steady_clock;

/// Adds the milliseconds since its creation to \p Into when destroyed.
class StageTimer {
public:
  explicit StageTimer(double &Into) : Into(Into), Start(Clock::now()) {}
  ~StageTimer() {
    Into += std::chrono::duration<double, std::milli>(Clock::now() - Start)
                .count();
  }

private:
  double &Into;
  Clock::time_point Start;
};
} // namespace

/// "instr_count+mem_trace": the tools of a copy, in messages and timings.
static std::string toolNames(const std::vector<ToolChoice> &Choices) {
  std::string Names;
  for (const ToolChoice &C : Choices)
    Names += (Names.empty() ? "" : "+") + C.Tool->name().str();
  return Names;
}

KernelCopies::KernelCopies(std::string DumpDir, const std::string &TimingPath)
    : DumpDir(std::move(DumpDir)) {
  if (TimingPath.empty())
    return;
  std::error_code EC;
  Timing = std::make_unique<raw_fd_ostream>(TimingPath, EC, sys::fs::OF_Append);
  if (EC) {
    errs() << "loom-tool: cannot write " << TimingPath << ": " << EC.message()
           << "\n";
    Timing.reset();
  }
}

KernelCopies::~KernelCopies() = default;

/// Kernel \p Name of \p C and the functions it calls, lifted on first need.
static Expected<LoadedCode::Lifted &> lift(LoadedCode &C, StringRef Name) {
  std::unique_ptr<LoadedCode::Lifted> &L = C.Lifts[Name.str()];
  if (!L) {
    L = std::make_unique<LoadedCode::Lifted>();
    Error E = Error::success();
    if (!C.MC) {
      auto MC = isa::McContext::create(C.Code->target());
      if (MC)
        C.MC = std::move(*MC);
      else
        E = MC.takeError();
    }
    if (!E) {
      auto BC = BinaryContext::create(*C.Code, *C.MC, {Name});
      E = BC ? (*BC)->buildCFGs() : BC.takeError();
      if (!E) {
        auto Live = Liveness::compute(**BC);
        if (Live) {
          L->Context = std::move(*BC);
          L->Live.emplace(std::move(*Live));
        } else {
          E = Live.takeError();
        }
      }
    }
    if (E)
      L->Error = "cannot lift " + C.Uri + ": " + toString(std::move(E));
  }
  if (!L->Error.empty())
    return createStringError(inconvertibleErrorCode(), "%s", L->Error.c_str());
  return *L;
}

void KernelCopies::dump(StringRef Name, StringRef Extension, StringRef Bytes) {
  SmallString<256> Path(DumpDir);
  sys::path::append(Path, Name + Extension);
  std::error_code EC;
  raw_fd_ostream OS(Path, EC);
  if (!EC)
    OS << Bytes;
  if (EC || OS.has_error())
    errs() << "loom-tool: cannot write " << Path << ": "
           << (EC ? EC : OS.error()).message() << "\n";
}

Expected<KernelCopy> KernelCopies::make(const KernelInfo &K,
                                        uint64_t KernelObject,
                                        const std::vector<ToolChoice> &Choices,
                                        const std::string &Suffix,
                                        hsa_executable_t &Exec,
                                        CopyTiming &Time) {
  LoadedCode &C = *K.Code;
  std::optional<StageTimer> Stage;
  Stage.emplace(Time.Lift);
  Expected<LoadedCode::Lifted &> Lifted = lift(C, K.Name);
  if (!Lifted)
    return Lifted.takeError();
  Stage.reset();
  BinaryContext &BC = *Lifted->Context;
  BinaryFunction *Kernel = BC.function(K.Name);
  if (!Kernel)
    return createStringError(inconvertibleErrorCode(), "no function %s in %s",
                             K.Name.c_str(), C.Uri.c_str());
  for (const BinaryFunction *F : BC.callGraph().reachableFrom(*Kernel))
    for (const BinaryBasicBlock &B : F->blocks())
      Time.Instructions += B.Instructions.size();
  if (!Kernel->isInstrumentable())
    return createStringError(inconvertibleErrorCode(), "not instrumentable: %s",
                             Kernel->notInstrumentableReason().str().c_str());

  InstrumentationPlan Plan(BC);
  Plan.addKernel(K.Name);
  std::vector<HookLibrary> Hooks;
  // With several tools, say which one failed.
  auto Blame = [&](const ToolChoice &Choice, Error E) {
    if (Choices.size() == 1)
      return E;
    return createStringError(inconvertibleErrorCode(), "%s: %s",
                             Choice.Tool->name().str().c_str(),
                             toString(std::move(E)).c_str());
  };
  for (const ToolChoice &Choice : Choices) {
    KernelInstrumentation KI(BC, *Lifted->Live, *Kernel, Plan,
                             Choice.Configuration, KernelObject);
    {
      StageTimer Timer(Time.Instrument);
      if (Error E = Choice.Tool->call(
              [&](Tool &T, ToolContext &Ctx) { return T.instrument(Ctx, KI); }))
        return Blame(Choice, std::move(E));
    }
    StageTimer Timer(Time.Hooks);
    Expected<const HookLibrary &> L = Choice.Tool->hooks(C.Agent);
    if (!L)
      return Blame(Choice, L.takeError());
    Hooks.push_back(*L);
  }

  InstrumentOptions Options;
  Options.LoadDelta = C.LoadDelta;
  Options.Suffix = Suffix;
  Options.Live = &*Lifted->Live;
  Stage.emplace(Time.Codegen);
  Expected<InstrumentedCodeObject> Out =
      instrumentCodeObject(Plan, Hooks, Options);
  if (!Out)
    return Out.takeError();
  Stage.reset();
  if (!DumpDir.empty()) {
    dump(K.Name + Suffix, ".s", Out->Assembly);
    dump(K.Name + Suffix, ".co", StringRef(Out->Elf.data(), Out->Elf.size()));
  }
  if (!Out->Warnings.empty())
    return createStringError(inconvertibleErrorCode(), "%s",
                             join(Out->Warnings, "; ").c_str());
  const InstrumentedKernel *IK = Out->kernel(K.Name);
  if (!IK)
    return createStringError(inconvertibleErrorCode(),
                             "the code generator made no copy of it");

  Stage.emplace(Time.Load);
  Expected<hsa_executable_t> Loaded = loadExecutable(C.Agent, Out->Elf);
  if (!Loaded)
    return Loaded.takeError();
  Exec = *Loaded;
  KernelCopy Copy;
  Copy.PrivateSegmentSize = IK->PrivateSegmentSize;
  Copy.StackSlotSize = IK->StackSlotSize;
  Copy.GroupSegmentSize = IK->GroupSegmentSize;
  Copy.UsesLaunchHeader = IK->UsesLaunchHeader;
  Copy.LaunchHeaderOffset = IK->LaunchHeaderOffset;
  Copy.KernargSize = IK->KernargSize;
  for (const ToolChoice &Choice : Choices)
    Copy.Tools.push_back(Choice.Tool);
  if (Copy.UsesLaunchHeader) {
    if (Choices.size() > LOOM_LAUNCH_MAX_TOOLS)
      return createStringError(
          inconvertibleErrorCode(),
          "its hooks read the launch header, which has slots for %d tools, "
          "not %zu",
          LOOM_LAUNCH_MAX_TOOLS, Choices.size());
    // The metadata's size, else the descriptor's; either way not past the
    // header.
    uint64_t Size = 0;
    if (const codeobj::Kernel *Kd = C.Code->findKernel(K.Name)) {
      const codeobj::KernelMetadata *MD = C.Code->metadataOf(*Kd);
      Size = MD ? MD->KernargSegmentSize : Kd->KD.KernargSize;
    }
    if (Size > Copy.LaunchHeaderOffset ||
        Copy.KernargSize < Copy.LaunchHeaderOffset + sizeof(LoomLaunchHeader))
      return createStringError(
          inconvertibleErrorCode(),
          "the launch header at kernarg offset %u (of %u bytes) overlaps the "
          "kernel's %llu bytes of arguments",
          Copy.LaunchHeaderOffset, Copy.KernargSize, (unsigned long long)Size);
    Copy.OriginalKernargSize = uint32_t(Size);
  }
  Error E = forEachSymbol(
      Exec, C.Agent,
      [&](hsa_executable_symbol_t Sym, StringRef Name,
          hsa_symbol_kind_t Kind) -> Error {
        Name.consume_back(".kd");
        if (Kind != HSA_SYMBOL_KIND_KERNEL || Name != IK->Symbol)
          return Error::success();
        return check(hsa().Core.hsa_executable_symbol_get_info_fn(
                         Sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT,
                         &Copy.KernelObject),
                     "hsa_executable_symbol_get_info(KERNEL_OBJECT)");
      });
  if (!E && !Copy.KernelObject)
    E = createStringError(inconvertibleErrorCode(),
                          "the loaded copy has no kernel %s",
                          IK->Symbol.c_str());
  if (E)
    return std::move(E);
  return Copy;
}

const KernelCopy *KernelCopies::get(const KernelInfo &K, uint64_t KernelObject,
                                    const std::vector<ToolChoice> &Choices) {
  std::lock_guard<std::mutex> L(Lock);
  auto [It, New] = Entries.try_emplace({KernelObject, Choices});
  Entry &Slot = It->second;
  if (!New)
    return Slot.Copy ? &*Slot.Copy : nullptr;

  Slot.Original = K.Code->Executable.handle;
  unsigned N = CopiesOf[KernelObject]++;
  std::string Suffix = ".loom" + (N ? std::to_string(N) : std::string());
  CopyTiming Time;
  Expected<KernelCopy> Copy =
      make(K, KernelObject, Choices, Suffix, Slot.Exec, Time);
  writeTiming(K, Choices, Time, bool(Copy));
  if (Copy)
    return &Slot.Copy.emplace(*Copy);

  std::string Tools = toolNames(Choices);
  // One line, whatever the message (lld's and the assembler's have
  // several), and not a page of them.
  std::string Why = toString(Copy.takeError());
  for (size_t At; (At = Why.find('\n')) != std::string::npos;)
    Why.replace(At, 1, "; ");
  if (Why.size() > 400)
    Why = Why.substr(0, 400) + "... (--dump DIR keeps the assembly)";
  errs() << "loom-tool: " << Tools << ": " << K.Name << ": " << Why
         << " (running the original code)\n";
  if (Slot.Exec.handle) {
    hsa().Core.hsa_executable_destroy_fn(Slot.Exec);
    Slot.Exec = {};
  }
  return nullptr;
}

void KernelCopies::writeTiming(const KernelInfo &K,
                               const std::vector<ToolChoice> &Choices,
                               const CopyTiming &Time, bool Made) {
  if (!Timing)
    return;
  std::string Tools = toolNames(Choices);
  // Whole microseconds: JSON numbers that read as they are.
  auto Us = [](double Ms) { return int64_t(std::llround(Ms * 1000)); };
  // One object per line, so that runs may append to one file.
  *Timing << json::Value(json::Object{{"kernel", K.Name},
                                      {"code_object", K.Code->Uri},
                                      {"tools", Tools},
                                      {"instructions", Time.Instructions},
                                      {"made", Made},
                                      {"lift_us", Us(Time.Lift)},
                                      {"instrument_us", Us(Time.Instrument)},
                                      {"hooks_us", Us(Time.Hooks)},
                                      {"codegen_us", Us(Time.Codegen)},
                                      {"load_us", Us(Time.Load)},
                                      {"total_us", Us(Time.total())}})
          << "\n";
  Timing->flush();
}

void KernelCopies::forget(hsa_executable_t Original) {
  std::lock_guard<std::mutex> L(Lock);
  for (auto It = Entries.begin(); It != Entries.end();) {
    if (It->second.Original != Original.handle) {
      ++It;
      continue;
    }
    if (It->second.Exec.handle)
      hsa().Core.hsa_executable_destroy_fn(It->second.Exec);
    CopiesOf.erase(It->first.first);
    It = Entries.erase(It);
  }
}

void KernelCopies::clear() {
  std::lock_guard<std::mutex> L(Lock);
  for (auto &[Key, E] : Entries)
    if (E.Exec.handle)
      hsa().Core.hsa_executable_destroy_fn(E.Exec);
  Entries.clear();
  CopiesOf.clear();
}

} // namespace loom::tool
