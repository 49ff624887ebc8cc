//===- emu/CodeRegion.cpp - Decode a loaded code object once ---------------===//

#include "CodeRegion.h"

#include "Decoder.h"
#include "Dispatch.h"
#include "TraceCache.h"

#include "loom/codeobj/CodeObject.h"
#include "loom/isa/Disassembler.h"
#include "loom/isa/McContext.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace llvm;

namespace loom::emu {

namespace {

void ranOffTheEnd(Wave &W, const DecodedInst &I) {
  raiseFault(W, DispatchStatus::IllegalInstruction, 0, false,
             "execution ran past the end of the code");
}

/// The slot after a unit's last instruction: execution goes on at the next
/// unit's first byte (I.Address), as a linear sweep of the whole segment
/// would have it.
void fallThrough(Wave &W, const DecodedInst &I) { jumpTo(W, I.Address); }

} // namespace

Expected<std::unique_ptr<CodeRegion>>
CodeRegion::create(Decoder &Dec, std::shared_ptr<const codeobj::CodeObject> CO,
                   uint64_t LoadBase, StringRef Name, uint32_t FirstId,
                   uint32_t TraceThreshold) {
  std::unique_ptr<CodeRegion> R(new CodeRegion());
  R->Name = Name.str();
  R->LoadBase = LoadBase;
  R->FirstId = FirstId;
  R->Dec = &Dec;
  R->CO = std::move(CO);
  const codeobj::CodeObject &Obj = *R->CO;

  std::vector<const codeobj::LoadSegment *> Exec;
  for (const codeobj::LoadSegment &S : Obj.loadSegments())
    if ((S.Flags & ELF::PF_X) && S.FileSize)
      Exec.push_back(&S);
  // A code object of data alone (a tool's globals) has an empty region.
  R->Begin = R->End = LoadBase;
  if (!Exec.empty()) {
    R->Begin = LoadBase + Exec.front()->VAddr;
    R->End = LoadBase + Exec.back()->VAddr + Exec.back()->FileSize;
  }
  for (const codeobj::LoadSegment *S : Exec) {
    R->Begin = std::min(R->Begin, LoadBase + S->VAddr);
    R->End = std::max(R->End, LoadBase + S->VAddr + S->FileSize);
  }
  R->IndexOfWord.assign((R->End - R->Begin + 3) / 4, NoInstruction);

  // Kernels and functions: they name addresses in messages, and cut the
  // segments into units. What the block analysis would reject later is
  // rejected now, as when the whole object was decoded here.
  R->Disasm = std::make_unique<isa::Disassembler>(Dec.mc(), Obj);
  R->Disasm->omitText();
  if (!Obj.target().Processor.empty() &&
      Obj.target().Processor != Dec.mc().processor())
    return createStringError("code object is for " + Obj.target().Processor +
                             " but the MC context is for " +
                             Dec.mc().processor());
  std::vector<uint64_t> Cuts;
  for (const auto &[Sym, Kind] : R->Disasm->functionSymbols()) {
    if (Expected<ArrayRef<uint8_t>> Bytes = Obj.contents(Sym->Address, Sym->Size);
        !Bytes)
      return createStringError(isa::functionKindName(Kind) + " " + Sym->Name +
                               ": " + toString(Bytes.takeError()));
    bool IsKernel = Kind == isa::FunctionKind::Kernel;
    R->Functions.push_back({Sym, IsKernel});
    R->Symbols.push_back(
        {Sym->Name, LoadBase + Sym->Address, Sym->Size, IsKernel});
    Cuts.push_back(LoadBase + Sym->Address);
  }
  llvm::sort(R->Symbols, [](const Symbol &A, const Symbol &B) {
    return A.Address < B.Address;
  });
  for (const codeobj::SymbolInfo &L : Obj.labels())
    if (StringRef(L.Name).starts_with("hook "))
      R->Hooks.push_back({L.Name, LoadBase + L.Address, L.Size, false});

  // Units: each segment cut at the functions' starts (4-byte aligned, as
  // instructions are). Indices: a unit's words, plus its fall-through slot.
  llvm::sort(Cuts);
  std::vector<std::pair<uint64_t, uint64_t>> Spans;
  for (const codeobj::LoadSegment *S : Exec) {
    uint64_t Lo = LoadBase + S->VAddr, Hi = Lo + S->FileSize;
    auto It = std::upper_bound(Cuts.begin(), Cuts.end(), Lo);
    for (; It != Cuts.end() && *It < Hi; ++It)
      if (*It % 4 == 0 && *It > Lo) {
        Spans.push_back({Lo, *It});
        Lo = *It;
      }
    Spans.push_back({Lo, Hi});
  }
  R->NumUnits = static_cast<uint32_t>(Spans.size());
  R->Units = std::make_unique<Unit[]>(Spans.size());
  R->Swept.assign(Spans.size(), false);
  uint64_t Slots = 0;
  for (size_t K = 0; K < Spans.size(); ++K) {
    Unit &U = R->Units[K];
    U.Begin = Spans[K].first;
    U.End = Spans[K].second;
    U.First = static_cast<uint32_t>(Slots);
    Slots += (U.End - U.Begin + 3) / 4 + 1;
  }
  if (Slots + FirstId >= NoInstruction)
    return createStringError(formatv("{0}: too much code ({1} bytes)", Name,
                                     R->End - R->Begin)
                                 .str());
  R->Slots = static_cast<uint32_t>(Slots);
  R->Insts.reset(static_cast<DecodedInst *>(
      std::calloc(Slots + 1, sizeof(DecodedInst))));
  if (!R->Insts)
    return createStringError(formatv("{0}: cannot allocate the decoded form "
                                     "of {1} bytes of code",
                                     Name, R->End - R->Begin)
                                 .str());
  DecodedInst &Sentinel = R->Insts[Slots];
  Sentinel.Fn = ranOffTheEnd;
  Sentinel.Address = R->End;
  Sentinel.Id = FirstId + R->Slots;

  if (TraceThreshold)
    R->Traces = std::make_unique<TraceCache>(R->Insts.get(), R->Slots, Dec,
                                             TraceThreshold, R->Name);
  return std::move(R);
}

void CodeRegion::sweep(Unit &U) {
  const uint8_t *Bytes = reinterpret_cast<const uint8_t *>(U.Begin);
  uint64_t Size = U.End - U.Begin, Off = 0;
  uint32_t Idx = U.First;
  while (Off < Size) {
    DecodedInst &I = Insts[Idx];
    uint64_t Addr = U.Begin + Off;
    Dec->decode(ArrayRef<uint8_t>(Bytes + Off, Size - Off), Addr, I);
    I.Id = FirstId + Idx;
    IndexOfWord[(Addr - Begin) / 4] = Idx;
    Off += I.Size;
    ++Idx;
  }
  U.Count = Idx - U.First;
  // The next unit's first byte, or the end of the code.
  DecodedInst &Next = Insts[Idx];
  Next.Address = U.End;
  Next.Id = FirstId + Slots; // the sentinel's: not an instruction
  Next.Fn = U.End == End ? ranOffTheEnd : fallThrough;
}

void CodeRegion::analyse(Unit &U, std::vector<Unit *> &Pending) {
  // Direct branch targets.
  for (uint32_t K = 0; K < U.Count; ++K) {
    DecodedInst &I = Insts[U.First + K];
    if (!(I.Flags & FlagBranch))
      continue;
    uint64_t Target = I.branchTarget();
    I.Target = Slots; // the sentinel
    const Unit *T = unitAt(Target);
    if (!T)
      continue;
    if (T != &U && !Swept[T - Units.get()]) {
      // Into another unit (hand-written code): decoded along with this one.
      Unit &Other = const_cast<Unit &>(*T);
      sweep(Other);
      Swept[T - Units.get()] = true;
      Pending.push_back(&Other);
    }
    uint32_t Idx = IndexOfWord[(Target - Begin) / 4];
    if (Target % 4 == 0 && Idx != NoInstruction) {
      I.Target = Idx;
      if (Target <= I.Address)
        I.Flags |= FlagBackwardBranch;
    }
  }

  // Basic blocks of the kernels and functions over the unit, as `loom
  // disasm` sees them, so block counters and the disassembly agree: from
  // the swept instructions' flow where it decides them, else from the
  // Disassembler (decoding the function again: once as long as the sweep).
  for (const auto &[Sym, IsKernel] : Functions) {
    uint64_t Lo = LoadBase + Sym->Address, Hi = Lo + Sym->Size;
    if (Hi <= U.Begin || Lo >= U.End)
      continue;
    if (markBlocks(U, *Sym, IsKernel))
      continue;
    Expected<isa::DisassembledFunction> F = Disasm->disassemble(
        *Sym, IsKernel ? isa::FunctionKind::Kernel
                       : isa::FunctionKind::Function);
    if (!F) {
      consumeError(F.takeError()); // checked at create
      continue;
    }
    for (const isa::BasicBlock &B : F->Blocks) {
      uint64_t A = LoadBase + B.Address;
      if (A < U.Begin || A >= U.End || A % 4)
        continue;
      uint32_t Idx = IndexOfWord[(A - Begin) / 4];
      if (Idx != NoInstruction)
        Insts[Idx].Flags |= FlagStartsBlock;
    }
  }

  if (Traces)
    Traces->scan(U.First, U.First + U.Count);
}

bool CodeRegion::markBlocks(const Unit &U, const codeobj::SymbolInfo &Sym,
                            bool IsKernel) {
  uint64_t Lo = LoadBase + Sym.Address, Hi = Lo + Sym.Size;
  if (Lo < U.Begin || Hi > U.End || Lo % 4 || Lo == Hi)
    return false;
  uint32_t First = IndexOfWord[(Lo - Begin) / 4];
  if (First == NoInstruction)
    return false;
  // The Disassembler decodes [Lo, Hi) from Lo, as the sweep did from the
  // unit's start: the same instructions, if none crosses Hi.
  uint32_t End = First;
  for (; End < U.First + U.Count && Insts[End].Address < Hi; ++End)
    if (Insts[End].nextAddress() > Hi ||
        (Insts[End].Flags & FlagFlowUnknown))
      return false;
  auto TargetOf = [&](const DecodedInst &I) -> uint32_t {
    uint64_t T = I.branchTarget();
    return T >= Lo && T < Hi && T % 4 == 0 ? IndexOfWord[(T - Begin) / 4]
                                           : NoInstruction;
  };
  // isa::buildBasicBlocks' leaders: the entry, what follows a block's end,
  // branch targets inside the function. Direct targets are also where the
  // Disassembler's register tracking starts afresh (as after a call).
  std::vector<bool> Fresh(End - First, false);
  Fresh[0] = true;
  for (uint32_t K = First; K < End; ++K) {
    const DecodedInst &I = Insts[K];
    if ((I.Flags & FlagFlowEndsBlock) && K + 1 < End)
      Insts[K + 1].Flags |= FlagStartsBlock;
    if ((I.Flags & FlagFlowCall) && K + 1 < End)
      Fresh[K + 1 - First] = true;
    if (I.Flags & FlagFlowTarget)
      if (uint32_t T = TargetOf(I); T != NoInstruction) {
        Insts[T].Flags |= FlagStartsBlock;
        Fresh[T - First] = true;
      }
  }
  Insts[First].Flags |= FlagStartsBlock;
  // A register jump's target, from the registers since they were last
  // fresh (long branches: s_getpc_b64, s_add_u32, s_addc_u32 just before).
  uint32_t From = First;
  for (uint32_t K = First; K < End; ++K) {
    if (Fresh[K - First])
      From = K;
    const DecodedInst &I = Insts[K];
    if (!(I.Flags & FlagFlowRegister))
      continue;
    std::optional<uint64_t> T = Disasm->registerJumpTarget(
        Sym,
        IsKernel ? isa::FunctionKind::Kernel : isa::FunctionKind::Function,
        Insts[From].Address - LoadBase, I.nextAddress() - LoadBase);
    if (T && *T % 4 == 0 && LoadBase + *T >= Lo && LoadBase + *T < Hi)
      if (uint32_t Idx = IndexOfWord[(LoadBase + *T - Begin) / 4];
          Idx != NoInstruction)
        Insts[Idx].Flags |= FlagStartsBlock;
  }
  return true;
}

void CodeRegion::decode(const Unit &U) const {
  if (U.Decoded.load(std::memory_order_acquire))
    return;
  // Decoding fills slots no wave runs yet and publishes them at the end:
  // logically const.
  CodeRegion &R = const_cast<CodeRegion &>(*this);
  std::lock_guard<std::mutex> G(Decoding);
  if (U.Decoded.load(std::memory_order_relaxed))
    return;
  // LLVM's AMDGPU decoder and printer crash on some invalid encodings; the
  // bytes come from whoever loads code (any HSA client), so decoding runs
  // under crash recovery.
  isa::CrashRecoveryScope Recovery;
  std::lock_guard<std::mutex> D(Dec->lock());
  Unit &First = const_cast<Unit &>(U);
  std::vector<Unit *> Pending = {&First};
  R.sweep(First);
  R.Swept[&U - Units.get()] = true;
  for (size_t K = 0; K < Pending.size(); ++K)
    R.analyse(*Pending[K], Pending);
  // What LLVM allocated decoding can go: the region keeps no MCInst.
  Dec->mc().releaseDecodeMemory();
  for (Unit *P : Pending)
    P->Decoded.store(true, std::memory_order_release);
}

const CodeRegion::Unit *CodeRegion::unitAt(uint64_t Addr) const {
  const Unit *B = Units.get(), *E = B + NumUnits;
  const Unit *It = std::upper_bound(
      B, E, Addr,
      [](uint64_t A, const Unit &U) { return A < U.Begin; });
  if (It == B)
    return nullptr;
  --It;
  return Addr < It->End ? It : nullptr;
}

CodeRegion::~CodeRegion() = default;

std::string CodeRegion::text(uint32_t Index) const {
  if (Index >= size())
    return "<end of code>";
  const DecodedInst &I = Insts[Index];
  return Dec->text(ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(
                                         I.Address),
                                     std::max<size_t>(I.Size, 4)),
                   I.Address);
}

uint32_t CodeRegion::indexOf(uint64_t Addr) const {
  if (Addr < Begin || Addr >= End || (Addr - Begin) % 4)
    return NoInstruction;
  const Unit *U = unitAt(Addr);
  if (!U)
    return NoInstruction;
  decode(*U);
  return IndexOfWord[(Addr - Begin) / 4];
}

const CodeRegion::Symbol *CodeRegion::hookAt(uint64_t Addr) const {
  auto It = std::upper_bound(
      Hooks.begin(), Hooks.end(), Addr,
      [](uint64_t A, const Symbol &S) { return A < S.Address; });
  if (It == Hooks.begin())
    return nullptr;
  --It;
  return Addr < It->Address + It->Size ? &*It : nullptr;
}

const CodeRegion::Symbol *CodeRegion::symbolAt(uint64_t Addr) const {
  auto It = std::upper_bound(
      Symbols.begin(), Symbols.end(), Addr,
      [](uint64_t A, const Symbol &S) { return A < S.Address; });
  if (It == Symbols.begin())
    return nullptr;
  --It;
  if (Addr >= It->Address && Addr < It->Address + std::max<uint64_t>(It->Size, 4))
    return &*It;
  return nullptr;
}

} // namespace loom::emu

