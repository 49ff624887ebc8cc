//===- cli/DisasmCommand.cpp - `loom disasm FILE [--kernel|--function]` ---===//
//
// Prints kernels and device functions as basic blocks of instructions, with
// branch and call targets symbolized. The format is documented in
// docs/cli.md, section "loom disasm".
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "loom/codeobj/Input.h"
#include "loom/instrument/BinaryContext.h"
#include "loom/instrument/Liveness.h"
#include "loom/isa/Disassembler.h"
#include "loom/isa/Listing.h"
#include "loom/isa/McContext.h"

#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace loom::codeobj;
using namespace loom::isa;

namespace loom::cli {

cl::SubCommand
    DisasmCommand("disasm",
                  "Disassemble kernels and device functions, with basic blocks "
                  "and symbolized branch and call targets");

static cl::opt<std::string> DisasmFile(cl::Positional, cl::Required,
                                       cl::desc("FILE"), cl::sub(DisasmCommand),
                                       cl::cat(LoomCategory));
static cl::opt<std::string>
    DisasmKernel("kernel", cl::value_desc("NAME"),
                 cl::desc("Only this kernel (symbol or demangled name)"),
                 cl::sub(DisasmCommand), cl::cat(LoomCategory));
static cl::opt<std::string> DisasmFunction(
    "function", cl::value_desc("NAME"),
    cl::desc("Only this device function (symbol or demangled name)"),
    cl::sub(DisasmCommand), cl::cat(LoomCategory));

static cl::opt<bool> DisasmCfg(
    "cfg",
    cl::desc("Lift the functions (loom::instrument): print each block's "
             "successors, whether a function is instrumentable, and the "
             "call graph"),
    cl::sub(DisasmCommand), cl::cat(LoomCategory));
static cl::opt<bool> DisasmLiveness(
    "liveness",
    cl::desc("With the lifted CFG, print the registers live into each block "
             "(implies --cfg)"),
    cl::sub(DisasmCommand), cl::cat(LoomCategory));
static cl::opt<bool> DisasmProps(
    "props",
    cl::desc("Print each instruction's registers read and written, memory "
             "access and, with --liveness, the registers live after it "
             "(implies --cfg)"),
    cl::sub(DisasmCommand), cl::cat(LoomCategory));

namespace {

/// What --cfg, --liveness and --props add to a function's listing.
struct Lifted {
  const instrument::BinaryFunction *Fn = nullptr;
  const instrument::FunctionLiveness *Live = nullptr; // with --liveness
};

/// "mem: global load 4B" and the like; empty for no memory access.
std::string describeMemory(const instrument::InstrProperties &P) {
  if (!P.isMemory())
    return "";
  std::string S = ("mem: " + instrument::memoryKindName(P.Memory) + " " +
                   instrument::memoryDirectionName(P.Direction))
                      .str();
  if (P.AccessBytes)
    S += " " + (P.AccessesPerLane > 1 ? std::to_string(P.AccessesPerLane) + "x" : "") +
         std::to_string(P.AccessBytes) + "B";
  if (P.AtomicReturns)
    S += " returns";
  return S;
}

void printProps(raw_ostream &OS, const instrument::BinaryInstruction &I,
                const Lifted &L, unsigned Block, unsigned Index) {
  const instrument::InstrProperties &P = I.Props;
  if (!I.Info.Valid)
    return;
  std::string S = P.IsVector ? "vector" : "scalar";
  if (!P.Reads.empty())
    S += "; reads " + P.Reads.str();
  if (!P.Writes.empty())
    S += "; writes " + P.Writes.str();
  if (!P.PartialWrites.empty())
    S += " (partially " + P.PartialWrites.str() + ")";
  if (std::string M = describeMemory(P); !M.empty())
    S += "; " + M;
  if (P.IsBarrier)
    S += "; barrier";
  if (P.IsWaitcnt)
    S += "; waitcnt";
  if (L.Live) {
    if (L.Live->execMayBePartial(Block, Index))
      S += "; exec may be partial";
    S += "; live after: " + L.Live->liveAfter(Block, Index).str();
  }
  OS << "           ; " << S << "\n";
}

std::string blockList(const instrument::BinaryFunction &F,
                      ArrayRef<unsigned> Blocks) {
  std::string S;
  for (unsigned B : Blocks)
    S += (S.empty() ? "" : ", ") + blockLabel(F.blocks()[B].Address);
  return S.empty() ? "none" : S;
}

void printFunction(raw_ostream &OS, const DisassembledFunction &F,
                   const Disassembler &D, const CodeObject &CO,
                   const Lifted &L) {
  ListingExtras X;
  if (L.Fn) {
    X.AfterHeader = [&](raw_ostream &OS) {
      if (L.Fn->isInstrumentable())
        OS << "  // instrumentable\n";
      else
        OS << "  // not instrumentable: " << L.Fn->notInstrumentableReason()
           << "\n";
    };
    if (DisasmProps)
      X.AfterInstruction = [&](raw_ostream &OS, size_t Block, size_t Index) {
        printProps(OS, L.Fn->blocks()[Block].Instructions[Index], L, Block,
                   Index);
      };
    X.BlockEnd = [&](raw_ostream &OS, size_t Block) {
      OS << "  // successors: "
         << blockList(*L.Fn, L.Fn->blocks()[Block].Successors) << "\n";
    };
  }
  if (L.Live)
    X.BlockStart = [&](raw_ostream &OS, size_t Block) {
      OS << "  // live-in: " << L.Live->liveIn(Block).str() << "\n";
    };
  printListing(OS, F, D, CO, X);
}

/// The call sites in the functions printed (all of the code object's
/// when no name was given).
void printCallGraph(raw_ostream &OS, const instrument::BinaryContext &BC,
                    ArrayRef<DisassembledFunction> Printed) {
  std::vector<instrument::CallSite> Sites;
  for (const instrument::CallSite &S : BC.callGraph().sites())
    for (const DisassembledFunction &F : Printed)
      if (S.Caller->name() == F.Name)
        Sites.push_back(S);
  OS << "\ncall graph:";
  if (Sites.empty())
    OS << " no calls";
  OS << "\n";
  for (const instrument::CallSite &S : Sites) {
    OS << formatv("  {0}+{1:x} {2} ", S.Caller->name(),
                  S.Address - S.Caller->address(),
                  S.IsTailCall ? "tail-calls" : "calls");
    if (S.CalleeName.empty())
      OS << "an unknown target";
    else
      OS << S.CalleeName;
    if (S.Callee == nullptr && !S.CalleeName.empty())
      OS << " (outside this code object)";
    OS << " [" << targetSourceName(S.Source) << "]\n";
  }
}

/// Disassembles what the options select from one code object. Returns false
/// (and prints nothing) if a name was given and this object lacks it.
Expected<bool> disasmCodeObject(raw_ostream &OS, const CodeObject &CO) {
  Expected<std::unique_ptr<McContext>> MC = McContext::create(CO.target());
  if (!MC)
    return MC.takeError();
  Disassembler D(**MC, CO);

  std::vector<DisassembledFunction> Fns;
  if (!DisasmKernel.empty() || !DisasmFunction.empty()) {
    bool WantKernel = !DisasmKernel.empty();
    StringRef Name = WantKernel ? DisasmKernel : DisasmFunction;
    // An exact symbol match wins; otherwise demangled names are tried.
    std::vector<const SymbolInfo *> Exact, Loose;
    auto Consider = [&](const SymbolInfo &S) {
      if (S.Name == Name)
        Exact.push_back(&S);
      else if (symbolNameMatches(S.Name, Name))
        Loose.push_back(&S);
    };
    if (WantKernel)
      for (const Kernel &K : CO.kernels())
        Consider(K.Code);
    else
      for (const Function &Fn : CO.functions())
        Consider(Fn.Sym);
    const std::vector<const SymbolInfo *> &Found =
        Exact.empty() ? Loose : Exact;
    if (Found.empty())
      return false;
    if (Found.size() > 1) {
      std::string Names;
      for (const SymbolInfo *S : Found)
        Names += (Names.empty() ? "" : ", ") + S->Name;
      return createStringError("'" + Name + "' is ambiguous: " + Names);
    }
    Expected<DisassembledFunction> F =
        D.disassemble(*Found.front(), WantKernel ? FunctionKind::Kernel
                                                 : FunctionKind::Function);
    if (!F)
      return F.takeError();
    Fns.push_back(std::move(*F));
  } else {
    Expected<std::vector<DisassembledFunction>> All = D.disassembleAll();
    if (!All)
      return All.takeError();
    Fns = std::move(*All);
  }

  std::unique_ptr<instrument::BinaryContext> BC;
  std::optional<instrument::Liveness> Live;
  if (DisasmCfg || DisasmLiveness || DisasmProps) {
    auto Lifted = instrument::BinaryContext::create(CO, **MC);
    if (!Lifted)
      return Lifted.takeError();
    BC = std::move(*Lifted);
    if (Error E = BC->buildCFGs())
      return std::move(E);
    if (DisasmLiveness) {
      Expected<instrument::Liveness> L = instrument::Liveness::compute(*BC);
      if (!L)
        return L.takeError();
      Live = std::move(*L);
    }
  }

  for (size_t K = 0; K != Fns.size(); ++K) {
    if (K)
      OS << "\n";
    Lifted L;
    if (BC) {
      L.Fn = BC->function(Fns[K].Name);
      if (L.Fn && Live)
        L.Live = Live->of(*L.Fn);
    }
    printFunction(OS, Fns[K], D, CO, L);
  }
  if (BC)
    printCallGraph(OS, *BC, Fns);
  return true;
}

/// "scale_add, call_chain" for the not-found message.
std::string availableNames(const Input &In, bool Kernels) {
  std::string Names;
  for (const EmbeddedCodeObject &E : In.CodeObjects) {
    auto Add = [&](StringRef N) {
      Names += (Names.empty() ? "" : ", ") + N.str();
    };
    if (Kernels)
      for (const Kernel &K : E.Object->kernels())
        Add(K.name());
    else
      for (const Function &F : E.Object->functions())
        Add(F.name());
  }
  return Names.empty() ? "none" : Names;
}

} // namespace

int runDisasm() {
  auto Fail = [](const Twine &Msg) {
    return reportError("disasm", createStringError(DisasmFile + ": " + Msg));
  };
  if (!DisasmKernel.empty() && !DisasmFunction.empty())
    return Fail("--kernel and --function are exclusive");

  // Bytes that crash LLVM's AMDGPU decoder must not take loom down with it.
  enableCrashRecovery();
  Expected<Input> In = readInputFile(DisasmFile);
  if (!In)
    return reportError("disasm", In.takeError()); // already names the file
  if (In->CodeObjects.empty())
    return Fail("no AMDGPU code object in the file");

  // Render everything first, so an error leaves no partial listing behind.
  std::string Out;
  raw_string_ostream OS(Out);
  bool Headers =
      In->CodeObjects.size() > 1 || !In->CodeObjects[0].EntryId.empty();
  bool AnyFound = false;
  for (const EmbeddedCodeObject &E : In->CodeObjects) {
    std::string Listing;
    raw_string_ostream LOS(Listing);
    Expected<bool> Found = disasmCodeObject(LOS, *E.Object);
    if (!Found) {
      std::string Msg = toString(Found.takeError());
      if (Headers)
        return Fail(formatv("code object {0}: {1}", E.EntryId, Msg).str());
      return Fail(Msg);
    }
    if (!*Found)
      continue;
    if (Headers) {
      if (AnyFound)
        OS << "\n";
      OS << formatv("code object {0} ({1}, offset {2:x}):\n\n", E.EntryId,
                    E.Object->target().str(), E.FileOffset);
    }
    AnyFound = true;
    OS << Listing;
  }
  if (!AnyFound) {
    bool WantKernel = !DisasmKernel.empty();
    return Fail(formatv("no {0} named '{1}' (available: {2})",
                        WantKernel ? "kernel" : "device function",
                        WantKernel ? DisasmKernel : DisasmFunction,
                        availableNames(*In, WantKernel))
                    .str());
  }
  outs() << Out;
  return 0;
}

} // namespace loom::cli
