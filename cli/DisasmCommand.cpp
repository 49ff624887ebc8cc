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

/// Column where trailing comments start (text is padded to it).
constexpr unsigned CommentColumn = 56;

std::string blockLabel(uint64_t Address) {
  return formatv(".LBB_{0:x}", Address).str();
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
  OS << formatv("{0} ({1}) @ {2:x}, {3} bytes:", F.Name,
                functionKindName(F.Kind), F.Address, F.Size);
  std::string Demangled = demangle(F.Name);
  if (Demangled != F.Name)
    OS << "  // " << Demangled;
  OS << "\n";
  if (L.Fn) {
    if (L.Fn->isInstrumentable())
      OS << "  // instrumentable\n";
    else
      OS << "  // not instrumentable: " << L.Fn->notInstrumentableReason()
         << "\n";
  }

  for (size_t BI = 0; BI != F.Blocks.size(); ++BI) {
    const BasicBlock &B = F.Blocks[BI];
    std::string Label = blockLabel(B.Address) + ":";
    OS << Label;
    size_t Preds = B.Predecessors.size();
    if (B.Address != F.Address || Preds) {
      OS.indent(Label.size() < CommentColumn ? CommentColumn - Label.size()
                                             : 1);
      OS << "// " << Preds << (Preds == 1 ? " predecessor" : " predecessors");
    }
    OS << "\n";
    if (L.Live)
      OS << "  // live-in: " << L.Live->liveIn(BI).str() << "\n";
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
      OS << Line;
      if (!Comment.empty()) {
        OS.indent(Line.size() < CommentColumn ? CommentColumn - Line.size()
                                              : 1);
        OS << "// " << Comment;
      }
      OS << "\n";
      if (DisasmProps && L.Fn)
        printProps(OS, L.Fn->blocks()[BI].Instructions[K - B.FirstInstruction],
                   L, BI, K - B.FirstInstruction);
    }
    if (L.Fn)
      OS << "  // successors: " << blockList(*L.Fn, L.Fn->blocks()[BI].Successors)
         << "\n";
  }
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
