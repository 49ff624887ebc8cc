//===- instrument/MemoryWaits.cpp - Memory results still in flight --------===//

#include "loom/instrument/MemoryWaits.h"

#include "loom/instrument/BinaryFunction.h"

#include "llvm/ADT/StringRef.h"

using namespace llvm;

namespace loom::instrument {

namespace {

/// The registers a memory instruction's results land in: what it writes,
/// less EXEC, VCC, M0, SCC and the like (written at issue).
RegisterSet resultRegisters(const InstrProperties &P) {
  RegisterSet R;
  R.addSgprs(0, RegisterSet::NumSgprs)
      .addVgprs(0, RegisterSet::NumVgprs)
      .addAgprs(0, RegisterSet::NumAgprs);
  return R &= P.Writes;
}

} // namespace

PendingMemory PendingMemory::unknown() {
  PendingMemory P;
  P.Vm.addSgprs(0, RegisterSet::NumSgprs)
      .addVgprs(0, RegisterSet::NumVgprs)
      .addAgprs(0, RegisterSet::NumAgprs);
  P.Lgkm = P.Vm;
  P.AnyVm = P.AnyLgkm = true;
  return P;
}

void PendingMemory::step(const BinaryInstruction &I) {
  const InstrProperties &P = I.Props;
  if (P.isCall()) { // the callee may return with anything in flight
    *this = unknown();
    return;
  }
  if (P.IsWaitcnt) {
    // s_waitcnt simm16 (GFX9): vmcnt bits 3:0 and 15:14, lgkmcnt 11:8.
    // Only a count of zero drains a counter; the s_waitcnt_* forms of
    // later targets are left alone (conservative).
    StringRef Text = I.Info.Text;
    if (!Text.starts_with("s_waitcnt ") && Text != "s_waitcnt")
      return;
    int64_t Imm = -1;
    for (unsigned K = 0; K < I.Inst.getNumOperands(); ++K)
      if (I.Inst.getOperand(K).isImm())
        Imm = I.Inst.getOperand(K).getImm();
    if (Imm < 0)
      return;
    if ((Imm & 0xf) == 0 && ((Imm >> 14) & 3) == 0) {
      Vm = RegisterSet();
      AnyVm = false;
    }
    if (((Imm >> 8) & 0xf) == 0) {
      Lgkm = RegisterSet();
      AnyLgkm = false;
    }
    return;
  }
  StringRef Text = I.Info.Text;
  bool Lds = P.Memory == MemoryKind::Lds || Text.starts_with("ds_");
  bool Scalar = P.Memory == MemoryKind::Scalar ||
                Text.starts_with("s_memtime") ||
                Text.starts_with("s_memrealtime") ||
                Text.starts_with("s_sendmsg") || Text.starts_with("s_dcache");
  bool Vector = P.Memory == MemoryKind::Global ||
                P.Memory == MemoryKind::Scratch ||
                P.Memory == MemoryKind::Buffer || Text.starts_with("buffer_") ||
                Text.starts_with("global_") || Text.starts_with("scratch_");
  bool Flat = P.Memory == MemoryKind::Flat || Text.starts_with("flat_");
  if (!Lds && !Scalar && !Vector && !Flat)
    return;
  RegisterSet Results = resultRegisters(P);
  if (Vector || Flat) {
    Vm |= Results;
    AnyVm = true;
  }
  if (Lds || Scalar || Flat) {
    Lgkm |= Results;
    AnyLgkm = true;
  }
}

void PendingMemory::join(const PendingMemory &O) {
  Vm |= O.Vm;
  Lgkm |= O.Lgkm;
  AnyVm |= O.AnyVm;
  AnyLgkm |= O.AnyLgkm;
}

PendingMemoryAnalysis::PendingMemoryAnalysis(const BinaryFunction &F)
    : PendingMemoryAnalysis(F, F.isKernel() ? PendingMemory()
                                            : PendingMemory::unknown()) {}

PendingMemoryAnalysis::PendingMemoryAnalysis(const BinaryFunction &F,
                                             const PendingMemory &Entry) {
  ArrayRef<BinaryBasicBlock> Blocks = F.blocks();
  In.assign(Blocks.size(), PendingMemory());
  Out.assign(Blocks.size(), PendingMemory());
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (size_t B = 0; B < Blocks.size(); ++B) {
      PendingMemory P = B == 0 ? Entry : PendingMemory();
      for (unsigned Pred : Blocks[B].Predecessors)
        P.join(Out[Pred]);
      PendingMemory O = P;
      for (const BinaryInstruction &I : Blocks[B].Instructions)
        O.step(I);
      if (!(P == In[B]) || !(O == Out[B])) {
        In[B] = std::move(P);
        Out[B] = std::move(O);
        Changed = true;
      }
    }
  }
}

} // namespace loom::instrument
