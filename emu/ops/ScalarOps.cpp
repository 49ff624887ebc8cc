//===- emu/ops/ScalarOps.cpp - SOP1, SOP2, SOPK, SOPC, SOPP ---------------===//
//
// Scalar ALU and program control. SCC is written exactly where the ISA says
// an instruction writes it.
//
//===----------------------------------------------------------------------===//

#include "../Semantics.h"

namespace loom::emu {
namespace {

// --- Program control (SOPP) -------------------------------------------------

void sEndpgm(Wave &W, const DecodedInst &) { W.State = WaveState::Ended; }
void sNop(Wave &, const DecodedInst &) {}
// Memory operations complete immediately, so counters never need waiting.
void sWaitcnt(Wave &, const DecodedInst &) {}
void sBarrier(Wave &W, const DecodedInst &) {
  W.State = WaveState::AtBarrier;
  W.Yield = true;
}
void sSleep(Wave &W, const DecodedInst &) { W.Yield = true; }
void sBranch(Wave &W, const DecodedInst &I) { W.NextIndex = I.Target; }

template <bool (*Cond)(const Wave &)>
void sCbranch(Wave &W, const DecodedInst &I) {
  if (Cond(W))
    W.NextIndex = I.Target;
}
bool scc0(const Wave &W) { return !W.SCC; }
bool scc1(const Wave &W) { return W.SCC; }
bool vccz(const Wave &W) { return W.vcc() == 0; }
bool vccnz(const Wave &W) { return W.vcc() != 0; }
bool execz(const Wave &W) { return W.exec() == 0; }
bool execnz(const Wave &W) { return W.exec() != 0; }

void sTrap(Wave &W, const DecodedInst &I) {
  raiseFault(W, DispatchStatus::Trap, 0, false,
             "s_trap " + std::to_string(I.Imm[0] & 0xff));
}

// --- Program counter (SOP1) -------------------------------------------------

void sGetpcB64(Wave &W, const DecodedInst &I) {
  writeScalar64(W, I.Dst[0], I.nextAddress());
}
void sSetpcB64(Wave &W, const DecodedInst &I) {
  jumpTo(W, readScalar64(W, I.Src[0]));
}
void sSwappcB64(Wave &W, const DecodedInst &I) {
  uint64_t Target = readScalar64(W, I.Src[0]);
  writeScalar64(W, I.Dst[0], I.nextAddress());
  jumpTo(W, Target);
}

// --- Moves and arithmetic ---------------------------------------------------

void sMovB32(Wave &W, const DecodedInst &I) {
  writeScalar32(W, I.Dst[0], readScalar32(W, I.Src[0]));
}
void sMovB64(Wave &W, const DecodedInst &I) {
  writeScalar64(W, I.Dst[0], readScalar64(W, I.Src[0]));
}
void sMovkI32(Wave &W, const DecodedInst &I) {
  writeScalar32(W, I.Dst[0], static_cast<uint32_t>(int32_t(int16_t(I.Imm[0]))));
}
void sAddU32(Wave &W, const DecodedInst &I) {
  uint64_t R = uint64_t(readScalar32(W, I.Src[0])) + readScalar32(W, I.Src[1]);
  writeScalar32(W, I.Dst[0], uint32_t(R));
  W.SCC = R >> 32;
}
void sAddcU32(Wave &W, const DecodedInst &I) {
  uint64_t R = uint64_t(readScalar32(W, I.Src[0])) + readScalar32(W, I.Src[1]) +
               W.SCC;
  writeScalar32(W, I.Dst[0], uint32_t(R));
  W.SCC = R >> 32;
}

} // namespace

void registerScalarOps(HandlerTable &T) {
  T.add("S_ENDPGM", sEndpgm, FlagEndsBlock);
  T.add("S_NOP", sNop);
  T.add("S_WAITCNT", sWaitcnt);
  T.add("S_BARRIER", sBarrier);
  T.add("S_SLEEP", sSleep);
  T.add("S_BRANCH", sBranch, FlagEndsBlock);
  T.add("S_CBRANCH_SCC0", sCbranch<scc0>, FlagEndsBlock);
  T.add("S_CBRANCH_SCC1", sCbranch<scc1>, FlagEndsBlock);
  T.add("S_CBRANCH_VCCZ", sCbranch<vccz>, FlagEndsBlock);
  T.add("S_CBRANCH_VCCNZ", sCbranch<vccnz>, FlagEndsBlock);
  T.add("S_CBRANCH_EXECZ", sCbranch<execz>, FlagEndsBlock);
  T.add("S_CBRANCH_EXECNZ", sCbranch<execnz>, FlagEndsBlock);
  T.add("S_TRAP", sTrap, FlagEndsBlock);
  T.add("S_GETPC_B64", sGetpcB64);
  T.add("S_SETPC_B64", sSetpcB64, FlagEndsBlock);
  T.add("S_SWAPPC_B64", sSwappcB64);
  T.add("S_MOV_B32", sMovB32);
  T.add("S_MOV_B64", sMovB64);
  T.add("S_MOVK_I32", sMovkI32);
  T.add("S_ADD_U32", sAddU32);
  T.add("S_ADDC_U32", sAddcU32);
}

} // namespace loom::emu
