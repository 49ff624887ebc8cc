//===- emu/CodeRegion.cpp - Decode a loaded code object once ---------------===//

#include "CodeRegion.h"

#include "Decoder.h"
#include "Dispatch.h"
#include "TraceCache.h"

#include "loom/codeobj/CodeObject.h"
#include "loom/isa/Disassembler.h"

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

} // namespace

Expected<std::unique_ptr<CodeRegion>>
CodeRegion::create(Decoder &Dec, const codeobj::CodeObject &CO,
                   uint64_t LoadBase, StringRef Name, uint32_t FirstId,
                   uint32_t TraceThreshold) {
  std::unique_ptr<CodeRegion> R(new CodeRegion());
  R->Name = Name.str();
  R->LoadBase = LoadBase;
  R->FirstId = FirstId;
  R->Dec = &Dec;

  std::vector<const codeobj::LoadSegment *> Exec;
  for (const codeobj::LoadSegment &S : CO.loadSegments())
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

  // Linear sweep of each executable segment, over the loaded bytes.
  for (const codeobj::LoadSegment *S : Exec) {
    const uint8_t *Bytes = reinterpret_cast<const uint8_t *>(LoadBase + S->VAddr);
    uint64_t Off = 0;
    while (Off < S->FileSize) {
      DecodedInst I;
      uint64_t Addr = LoadBase + S->VAddr + Off;
      Dec.decode(ArrayRef<uint8_t>(Bytes + Off, S->FileSize - Off), Addr, I);
      I.Id = FirstId + static_cast<uint32_t>(R->Insts.size());
      R->IndexOfWord[(Addr - R->Begin) / 4] =
          static_cast<uint32_t>(R->Insts.size());
      R->Insts.push_back(I);
      Off += I.Size;
    }
  }

  // Direct branch targets.
  for (DecodedInst &I : R->Insts) {
    if (!(I.Flags & FlagBranch))
      continue;
    int64_t Words = static_cast<int16_t>(I.Imm[0] & 0xffff);
    uint64_t Target = I.Address + 4 + Words * 4;
    I.Target = R->indexOf(Target);
    if (I.Target == NoInstruction)
      I.Target = static_cast<uint32_t>(R->Insts.size()); // the sentinel
    else if (Target <= I.Address)
      I.Flags |= FlagBackwardBranch;
  }

  // Kernels and functions, and their basic blocks as `loom disasm` sees
  // them, so block counters and the disassembly agree.
  isa::Disassembler Disasm(Dec.mc(), CO);
  Disasm.omitText();
  Expected<std::vector<isa::DisassembledFunction>> Funcs =
      Disasm.disassembleAll();
  if (!Funcs)
    return Funcs.takeError();
  for (const isa::DisassembledFunction &F : *Funcs) {
    R->Symbols.push_back({F.Name, LoadBase + F.Address, F.Size,
                          F.Kind == isa::FunctionKind::Kernel});
    for (const isa::BasicBlock &B : F.Blocks) {
      uint32_t Idx = R->indexOf(LoadBase + B.Address);
      if (Idx != NoInstruction)
        R->Insts[Idx].Flags |= FlagStartsBlock;
    }
  }
  llvm::sort(R->Symbols, [](const Symbol &A, const Symbol &B) {
    return A.Address < B.Address;
  });
  for (const codeobj::SymbolInfo &L : CO.labels())
    if (StringRef(L.Name).starts_with("hook "))
      R->Hooks.push_back({L.Name, LoadBase + L.Address, L.Size, false});

  DecodedInst Sentinel;
  Sentinel.Fn = ranOffTheEnd;
  Sentinel.Address = R->End;
  Sentinel.Id = FirstId + static_cast<uint32_t>(R->Insts.size());
  R->Insts.push_back(Sentinel);

  // Insts is complete (the traces keep a pointer into it).
  if (TraceThreshold)
    R->Traces = std::make_unique<TraceCache>(R->Insts.data(), R->size(), Dec,
                                             TraceThreshold, R->Name);
  return std::move(R);
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
  uint32_t Idx = IndexOfWord[(Addr - Begin) / 4];
  return Idx;
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

