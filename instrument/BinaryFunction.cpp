//===- instrument/BinaryFunction.cpp - A lifted kernel or function --------===//

#include "loom/instrument/BinaryFunction.h"

#include "loom/instrument/BinaryContext.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace loom::instrument {

StringRef functionStateName(FunctionState S) {
  switch (S) {
  case FunctionState::Disassembled:
    return "disassembled";
  case FunctionState::CFGBuilt:
    return "CFG built";
  case FunctionState::Instrumented:
    return "instrumented";
  case FunctionState::Emitted:
    return "emitted";
  }
  llvm_unreachable("unknown function state");
}

BinaryFunction::BinaryFunction(BinaryContext &BC, std::string Name,
                               isa::FunctionKind Kind, uint64_t Address,
                               uint64_t Size)
    : BC(BC), Name(std::move(Name)), Kind(Kind), Address(Address), Size(Size) {}

Error BinaryFunction::requireState(FunctionState S) const {
  if (State == S)
    return Error::success();
  return createStringError(formatv("{0} {1} is {2}, not {3}",
                                   isa::functionKindName(Kind), Name,
                                   functionStateName(State),
                                   functionStateName(S))
                               .str());
}

void BinaryFunction::markNotInstrumentable(std::string Why) {
  if (Reason.empty())
    Reason = std::move(Why);
}

size_t BinaryFunction::numInstructions() const {
  size_t N = Insts.size();
  for (const BinaryBasicBlock &B : Blocks)
    N += B.Instructions.size();
  return N;
}

std::optional<unsigned> BinaryFunction::blockStartingAt(uint64_t Addr) const {
  auto It = partition_point(
      Blocks, [&](const BinaryBasicBlock &B) { return B.Address < Addr; });
  if (It == Blocks.end() || It->Address != Addr)
    return std::nullopt;
  return It - Blocks.begin();
}

std::optional<unsigned> BinaryFunction::blockContaining(uint64_t Addr) const {
  auto It = partition_point(
      Blocks, [&](const BinaryBasicBlock &B) { return B.EndAddress <= Addr; });
  if (It == Blocks.end() || Addr < It->Address)
    return std::nullopt;
  return It - Blocks.begin();
}

static const BinaryInstruction *findIn(ArrayRef<BinaryInstruction> Insts,
                                       uint64_t Addr) {
  auto It = partition_point(
      Insts, [&](const BinaryInstruction &I) { return I.address() < Addr; });
  if (It == Insts.end() || It->address() != Addr)
    return nullptr;
  return &*It;
}

const BinaryInstruction *BinaryFunction::instructionAt(uint64_t Addr) const {
  if (State == FunctionState::Disassembled)
    return findIn(Insts, Addr);
  std::optional<unsigned> B = blockContaining(Addr);
  return B ? findIn(Blocks[*B].Instructions, Addr) : nullptr;
}

Error BinaryFunction::buildCFG() {
  if (Error E = requireState(FunctionState::Disassembled))
    return E;

  uint64_t End = Address + Size;
  auto Off = [&](uint64_t A) { return formatv("+{0:x}", A - Address).str(); };
  auto IsBoundary = [&](uint64_t A) { return findIn(Insts, A) != nullptr; };
  for (const BinaryInstruction &I : Insts) {
    const isa::Instruction &Info = I.Info;
    if (!Info.Valid) {
      markNotInstrumentable("undecodable bytes at " + Off(Info.Address));
      continue;
    }
    switch (Info.Flow) {
    case isa::ControlFlow::IndirectBranch:
      markNotInstrumentable("indirect branch at " + Off(Info.Address) +
                            " to an unknown target");
      break;
    case isa::ControlFlow::Branch:
    case isa::ControlFlow::CondBranch:
      if (!Info.Target)
        markNotInstrumentable("branch at " + Off(Info.Address) +
                              " to an unknown target");
      else if (*Info.Target < Address || *Info.Target >= End)
        markNotInstrumentable(formatv("branch at {0} leaves the function "
                                      "(to {1:x})",
                                      Off(Info.Address), *Info.Target));
      else if (!IsBoundary(*Info.Target))
        markNotInstrumentable(formatv("branch at {0} into the middle of an "
                                      "instruction ({1})",
                                      Off(Info.Address), Off(*Info.Target)));
      break;
    default:
      break;
    }
  }
  if (Insts.empty())
    markNotInstrumentable("no instructions");
  else if (!Insts.back().Info.isBarrier() &&
           !(Insts.back().Info.Valid &&
             BC.mc().opcodeBaseName(Insts.back().Inst.getOpcode()) ==
                 "S_TRAP")) // llvm.trap: the wave ends there
    markNotInstrumentable("falls through past its end at " +
                          Off(Insts.back().address()));

  // The same leaders as `loom disasm` and the emulator's block counters.
  std::vector<isa::Instruction> Infos;
  Infos.reserve(Insts.size());
  for (const BinaryInstruction &I : Insts)
    Infos.push_back(I.Info);
  std::vector<isa::BasicBlock> IsaBlocks = isa::buildBasicBlocks(Infos);

  Blocks.clear();
  Blocks.reserve(IsaBlocks.size());
  for (const isa::BasicBlock &IB : IsaBlocks) {
    BinaryBasicBlock B;
    B.Address = IB.Address;
    B.EndAddress = IB.EndAddress;
    for (size_t S : IB.Successors)
      B.Successors.push_back(static_cast<unsigned>(S));
    for (size_t P : IB.Predecessors)
      B.Predecessors.push_back(static_cast<unsigned>(P));
    B.Instructions.reserve(IB.NumInstructions);
    for (size_t K = IB.FirstInstruction;
         K != IB.FirstInstruction + IB.NumInstructions; ++K)
      B.Instructions.push_back(std::move(Insts[K]));
    Blocks.push_back(std::move(B));
  }
  Insts.clear();
  applyGprIndexModes();
  State = FunctionState::CFGBuilt;
  return Error::success();
}

void BinaryFunction::applyGprIndexModes() {
  const InstrAnalyzer &A = BC.analyzer();
  for (BinaryBasicBlock &B : Blocks) {
    std::optional<unsigned> Mask; // on, with its operand mask
    for (BinaryInstruction &I : B.Instructions) {
      if (!I.Info.Valid)
        continue;
      StringRef Base = BC.mc().opcodeBaseName(I.Inst.getOpcode());
      auto LastImm = [&]() -> unsigned {
        for (unsigned K = I.Inst.getNumOperands(); K-- > 0;)
          if (I.Inst.getOperand(K).isImm())
            return static_cast<unsigned>(I.Inst.getOperand(K).getImm());
        return 0xf; // not known: every operand
      };
      if (Base == "S_SET_GPR_IDX_ON" || Base == "S_SET_GPR_IDX_MODE") {
        Mask = LastImm();
        continue;
      }
      if (Base == "S_SET_GPR_IDX_OFF") {
        Mask.reset();
        continue;
      }
      if (Mask)
        applyGprIndexMode(I.Props, I.Inst, *Mask, A);
    }
    if (Mask)
      markNotInstrumentable(
          formatv("GPR index mode still on at the end of the block at {0}",
                  formatv("+{0:x}", B.Address - Address).str())
              .str());
  }
}

Error BinaryFunction::markInstrumented() {
  if (Error E = requireState(FunctionState::CFGBuilt))
    return E;
  if (!isInstrumentable())
    return createStringError(isa::functionKindName(Kind) + " " + Name +
                             " is not instrumentable: " + Reason);
  State = FunctionState::Instrumented;
  return Error::success();
}

Error BinaryFunction::markEmitted() {
  if (Error E = requireState(FunctionState::Instrumented))
    return E;
  State = FunctionState::Emitted;
  return Error::success();
}

} // namespace loom::instrument
