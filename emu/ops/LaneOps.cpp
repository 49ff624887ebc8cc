//===- emu/ops/LaneOps.cpp - Moves and cross-lane data movement -----------===//
//
// v_mov_b32 (with its SDWA and DPP forms through the vop framework),
// v_cndmask_b32, AGPR <-> VGPR moves, v_swap_b32, and the scalar <-> lane
// operations v_readlane_b32 / v_readfirstlane_b32 / v_writelane_b32, which
// ignore EXEC as the hardware does.
//
//===----------------------------------------------------------------------===//

#include "Vop.h"

namespace loom::emu {
namespace {

uint32_t mov(uint32_t A) { return A; }
uint32_t cndmask(uint32_t A, uint32_t B, vop::MaskBit C) { return C.V ? B : A; }

void vNop(Wave &, const DecodedInst &) {}

/// Lane number named by a scalar operand (SGPR, M0 or constant).
unsigned laneSelect(const Wave &W, const Operand &Op) {
  return readScalar32(W, Op) & (WaveSize - 1);
}

void vReadlane(Wave &W, const DecodedInst &I) {
  const uint32_t *V = W.vgpr(W.vectorIndex(I.Src[0]));
  writeScalar32(W, I.Dst[0], V[laneSelect(W, I.Src[1])]);
}

/// The first active lane; lane 0 when EXEC is empty.
void vReadfirstlane(Wave &W, const DecodedInst &I) {
  uint64_t Exec = W.exec();
  unsigned L = Exec ? unsigned(std::countr_zero(Exec)) : 0;
  Lanes32 T;
  writeScalar32(W, I.Dst[0], readVector32(W, I.Src[0], T)[L]);
}

void vWritelane(Wave &W, const DecodedInst &I) {
  W.vgpr(W.vectorIndex(I.Dst[0]))[laneSelect(W, I.Src[1])] =
      readScalar32(W, I.Src[0]);
}

/// v_swap_b32 vdst, vsrc: Dst = {vdst, vsrc}, Src = {vsrc, vdst}.
void vSwap(Wave &W, const DecodedInst &I) {
  uint32_t *A = W.vgpr(W.vectorIndex(I.Dst[0]));
  uint32_t *B = W.vgpr(W.vectorIndex(I.Dst[1]));
  alignas(64) uint32_t OldA[WaveSize], OldB[WaveSize];
  std::memcpy(OldA, A, sizeof(OldA));
  std::memcpy(OldB, B, sizeof(OldB));
  uint64_t Exec = W.exec();
  vop::blend32(A, OldB, Exec);
  vop::blend32(B, OldA, Exec);
}

} // namespace

void registerLaneOps(HandlerTable &T) {
  // AGPRs are addressed through Wave::vectorIndex like VGPRs: the accvgpr
  // moves are plain masked moves.
  for (const char *N : {"V_MOV_B32", "V_ACCVGPR_READ_B32",
                        "V_ACCVGPR_WRITE_B32", "V_ACCVGPR_MOV_B32"})
    T.add(N, vop::handler<mov>, FlagVector);
  T.add("V_CNDMASK_B32", vop::handler<cndmask, vop::MaskIn>, FlagVector);
  T.add("V_NOP", vNop, FlagVector);
  T.add("V_CLREXCP", vNop, FlagVector);
  T.add("V_SWAP_B32", vSwap, FlagVector);
  T.add("V_READLANE_B32", vReadlane, FlagVector);
  T.add("V_READFIRSTLANE_B32", vReadfirstlane, FlagVector);
  T.add("V_WRITELANE_B32", vWritelane, FlagVector);
}

} // namespace loom::emu
