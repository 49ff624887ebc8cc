//===- emu/ops/MemoryOps.cpp - FLAT, GLOBAL, SCRATCH, DS, MUBUF -----------===//

#include "../Semantics.h"

namespace loom::emu {
namespace {

/// Address of lane \p L of a GLOBAL instruction: vaddr (64-bit) + offset, or
/// saddr (64-bit SGPR) + vaddr (32-bit) + offset in SADDR form.
inline uint64_t globalAddress(const Wave &W, const DecodedInst &I,
                              const Operand &VAddr, const Operand *SAddr,
                              unsigned L, int64_t Offset) {
  const uint32_t *Lo = W.vgpr(W.vectorIndex(VAddr));
  if (SAddr)
    return readScalar64(W, *SAddr) + Lo[L] + Offset;
  uint64_t A = uint64_t(Lo[L]) | (uint64_t(Lo[L + WaveSize]) << 32);
  return A + Offset;
}

template <unsigned Dwords> void globalStore(Wave &W, const DecodedInst &I) {
  // Operands: vaddr, vdata [, saddr]; Imm: offset, cpol.
  bool Saddr = I.Flags & FlagSaddr;
  const Operand &VAddr = I.Src[0];
  const Operand &VData = I.Src[1];
  const Operand *SAddr = Saddr ? &I.Src[2] : nullptr;
  int64_t Offset = I.Imm[0];
  uint64_t Exec = W.exec();
  unsigned Data = W.vectorIndex(VData);
  for (unsigned L = 0; L < WaveSize; ++L) {
    if (!((Exec >> L) & 1))
      continue;
    uint64_t Addr = globalAddress(W, I, VAddr, SAddr, L, Offset);
    if (!checkMemory(W, Addr, Dwords * 4, true))
      return;
    for (unsigned D = 0; D < Dwords; ++D)
      std::memcpy(reinterpret_cast<void *>(Addr + 4 * D),
                  &W.vgpr(Data + D)[L], 4);
  }
  countBytes(W, I, uint64_t(std::popcount(Exec)) * Dwords * 4);
}

template <unsigned Dwords> void globalLoad(Wave &W, const DecodedInst &I) {
  // Operands: vdst; vaddr [saddr first in SADDR form]; Imm: offset, cpol.
  bool Saddr = I.Flags & FlagSaddr;
  const Operand &VAddr = Saddr ? I.Src[1] : I.Src[0];
  const Operand *SAddr = Saddr ? &I.Src[0] : nullptr;
  int64_t Offset = I.Imm[0];
  uint64_t Exec = W.exec();
  unsigned Dst = W.vectorIndex(I.Dst[0]);
  uint32_t Tmp[Dwords][WaveSize];
  for (unsigned L = 0; L < WaveSize; ++L) {
    if (!((Exec >> L) & 1))
      continue;
    uint64_t Addr = globalAddress(W, I, VAddr, SAddr, L, Offset);
    if (!checkMemory(W, Addr, Dwords * 4, false))
      return;
    for (unsigned D = 0; D < Dwords; ++D)
      std::memcpy(&Tmp[D][L], reinterpret_cast<const void *>(Addr + 4 * D), 4);
  }
  // Write after reading all lanes: vdst may overlap vaddr.
  for (unsigned D = 0; D < Dwords; ++D)
    for (unsigned L = 0; L < WaveSize; ++L)
      if ((Exec >> L) & 1)
        W.vgpr(Dst + D)[L] = Tmp[D][L];
  countBytes(W, I, uint64_t(std::popcount(Exec)) * Dwords * 4);
}

} // namespace

void registerMemoryOps(HandlerTable &T) {
  uint32_t F = FlagMemory | FlagVector;
  T.add("GLOBAL_STORE_DWORD", globalStore<1>, F);
  T.add("GLOBAL_STORE_DWORDX2", globalStore<2>, F);
  T.add("GLOBAL_STORE_DWORDX4", globalStore<4>, F);
  T.add("GLOBAL_LOAD_DWORD", globalLoad<1>, F);
  T.add("GLOBAL_LOAD_DWORDX2", globalLoad<2>, F);
  T.add("GLOBAL_LOAD_DWORDX4", globalLoad<4>, F);
}

void registerMatrixOps(HandlerTable &) {}

} // namespace loom::emu
