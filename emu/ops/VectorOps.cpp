//===- emu/ops/VectorOps.cpp - VOP1, VOP2, VOP3, VOPC, VOP3P ---------------===//

#include "../Semantics.h"

namespace loom::emu {
namespace {

/// dst = F(src0, src1) on the active lanes, 32-bit integer operations
/// without modifiers.
template <uint32_t (*F)(uint32_t, uint32_t)>
void vopInt2(Wave &W, const DecodedInst &I) {
  Lanes32 T0, T1, R;
  const uint32_t *A = readVector32(W, I.Src[0], T0);
  const uint32_t *B = readVector32(W, I.Src[1], T1);
  for (unsigned L = 0; L < WaveSize; ++L)
    R.V[L] = F(A[L], B[L]);
  writeVector32(W, I.Dst[0], R.V, W.exec());
}

uint32_t addU32(uint32_t A, uint32_t B) { return A + B; }
uint32_t lshlrevB32(uint32_t A, uint32_t B) { return B << (A & 31); }

/// dst = F(src0, src1, src2), 32-bit integer operations (VOP3 only).
template <uint32_t (*F)(uint32_t, uint32_t, uint32_t)>
void vopInt3(Wave &W, const DecodedInst &I) {
  Lanes32 T0, T1, T2, R;
  const uint32_t *A = readVector32(W, I.Src[0], T0);
  const uint32_t *B = readVector32(W, I.Src[1], T1);
  const uint32_t *C = readVector32(W, I.Src[2], T2);
  for (unsigned L = 0; L < WaveSize; ++L)
    R.V[L] = F(A[L], B[L], C[L]);
  writeVector32(W, I.Dst[0], R.V, W.exec());
}

uint32_t lshlAddU32(uint32_t A, uint32_t B, uint32_t C) {
  return (A << (B & 31)) + C;
}

void vLshlrevB64(Wave &W, const DecodedInst &I) {
  Lanes32 T;
  Lanes64 V, R;
  const uint32_t *Shift = readVector32(W, I.Src[0], T);
  readVector64(W, I.Src[1], V);
  for (unsigned L = 0; L < WaveSize; ++L)
    R.V[L] = V.V[L] << (Shift[L] & 63);
  writeVector64(W, I.Dst[0], R.V, W.exec());
}

/// The carry mask of a VOP2 carry operation: VCC in the e32 form, the
/// explicit SGPR pair in the e64 form (Dst[1] for carry-out, the last
/// source for carry-in).
inline void writeCarry(Wave &W, const DecodedInst &I, uint64_t Carry) {
  uint64_t Exec = W.exec();
  if (I.NumDst > 1) {
    writeScalar64(W, I.Dst[1], Carry & Exec);
    return;
  }
  W.setVcc(Carry & Exec);
}

template <bool Sub, bool Rev, bool CarryIn>
void vAddCarry(Wave &W, const DecodedInst &I) {
  Lanes32 T0, T1, R;
  const uint32_t *A = readVector32(W, I.Src[Rev ? 1 : 0], T0);
  const uint32_t *B = readVector32(W, I.Src[Rev ? 0 : 1], T1);
  uint64_t In = 0;
  if (CarryIn)
    In = I.NumSrc > 2 ? readScalar64(W, I.Src[2]) : W.vcc();
  uint64_t Carry = 0;
  for (unsigned L = 0; L < WaveSize; ++L) {
    uint64_t C = CarryIn ? (In >> L) & 1 : 0;
    uint64_t Res = Sub ? uint64_t(A[L]) - B[L] - C : uint64_t(A[L]) + B[L] + C;
    R.V[L] = uint32_t(Res);
    Carry |= ((Res >> 32) & 1) << L;
  }
  writeVector32(W, I.Dst[0], R.V, W.exec());
  writeCarry(W, I, Carry);
}

void vMovB32(Wave &W, const DecodedInst &I) {
  Lanes32 T;
  writeVector32(W, I.Dst[0], readVector32(W, I.Src[0], T), W.exec());
}

} // namespace

void registerVectorOps(HandlerTable &T) {
  T.add("V_MOV_B32", vMovB32, FlagVector);
  T.add("V_ADD_U32", vopInt2<addU32>, FlagVector);
  T.add("V_LSHLREV_B32", vopInt2<lshlrevB32>, FlagVector);
  T.add("V_LSHL_ADD_U32", vopInt3<lshlAddU32>, FlagVector);
  T.add("V_LSHLREV_B64", vLshlrevB64, FlagVector);
  T.add("V_ADD_CO_U32", vAddCarry<false, false, false>, FlagVector);
  T.add("V_ADDC_CO_U32", vAddCarry<false, false, true>, FlagVector);
  T.add("V_SUB_CO_U32", vAddCarry<true, false, false>, FlagVector);
  T.add("V_SUBB_CO_U32", vAddCarry<true, false, true>, FlagVector);
  T.add("V_SUBREV_CO_U32", vAddCarry<true, true, false>, FlagVector);
  T.add("V_SUBBREV_CO_U32", vAddCarry<true, true, true>, FlagVector);
}

} // namespace loom::emu
