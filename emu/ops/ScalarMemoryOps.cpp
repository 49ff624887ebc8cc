//===- emu/ops/ScalarMemoryOps.cpp - SMEM ----------------------------------===//
//
// Scalar loads through the constant cache. Loads complete at once, so
// s_waitcnt lgkmcnt never waits.
//
//===----------------------------------------------------------------------===//

#include "../Semantics.h"

namespace loom::emu {
namespace {

/// s_load_dwordxN sdst, sbase, offset: Src[0] is the base pair, Src[1] (SGPR
/// variants) or Imm[0] (IMM variants) the byte offset.
template <unsigned Dwords, bool SgprOffset>
void sLoad(Wave &W, const DecodedInst &I) {
  uint64_t Base = readScalar64(W, I.Src[0]);
  uint64_t Offset = SgprOffset ? readScalar32(W, I.Src[1])
                               : static_cast<uint64_t>(I.Imm[0]);
  // SMEM ignores the low two address bits.
  uint64_t Addr = (Base + Offset) & ~uint64_t(3);
  if (!checkMemory(W, Addr, Dwords * 4, false))
    return;
  uint32_t Tmp[Dwords];
  std::memcpy(Tmp, reinterpret_cast<const void *>(Addr), sizeof(Tmp));
  if (I.Dst[0].K == Operand::Sgpr)
    for (unsigned D = 0; D < Dwords; ++D)
      if (I.Dst[0].Index + D != SgprNull)
        W.S[I.Dst[0].Index + D] = Tmp[D];
  countBytes(W, I, Dwords * 4);
}

} // namespace

void registerScalarMemoryOps(HandlerTable &T) {
  T.add("S_LOAD_DWORD_IMM", sLoad<1, false>, FlagMemory);
  T.add("S_LOAD_DWORDX2_IMM", sLoad<2, false>, FlagMemory);
  T.add("S_LOAD_DWORDX4_IMM", sLoad<4, false>, FlagMemory);
  T.add("S_LOAD_DWORDX8_IMM", sLoad<8, false>, FlagMemory);
  T.add("S_LOAD_DWORDX16_IMM", sLoad<16, false>, FlagMemory);
  T.add("S_LOAD_DWORD_SGPR", sLoad<1, true>, FlagMemory);
  T.add("S_LOAD_DWORDX2_SGPR", sLoad<2, true>, FlagMemory);
  T.add("S_LOAD_DWORDX4_SGPR", sLoad<4, true>, FlagMemory);
  T.add("S_LOAD_DWORDX8_SGPR", sLoad<8, true>, FlagMemory);
  T.add("S_LOAD_DWORDX16_SGPR", sLoad<16, true>, FlagMemory);
}

} // namespace loom::emu
