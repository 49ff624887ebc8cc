//===- emu/ops/FlatOps.cpp - FLAT, GLOBAL and SCRATCH ---------------------===//
//
// The three segments of the FLAT encoding:
//  - GLOBAL: vaddr is a 64-bit address, or (SADDR) a 32-bit unsigned offset
//    from a 64-bit SGPR base; signed 13-bit instruction offset.
//  - FLAT: vaddr is a 64-bit flat address routed by aperture like the
//    hardware: high half = the shared aperture's -> the work-group's LDS at
//    the low half; = the private aperture's -> the lane's scratch at the low
//    half (see Scratch.h); anything else -> global memory. Unsigned 12-bit
//    offset on gfx90a.
//  - SCRATCH: the lane's private offset is vaddr or saddr (32-bit), plus the
//    signed 13-bit offset, placed from FLAT_SCRATCH.
// Cache policy bits are ignored; atomics return the old value in their RTN
// forms (separate opcodes). Operand roles (see Inst.h) differ by form; the
// SGPR operand, when present, is saddr.
//
//===----------------------------------------------------------------------===//

#include "Scratch.h"

namespace loom::emu {
namespace {

using namespace vmem;

enum class Seg { Flat, Global, Scratch };
enum class Kind { Load, Store, Atomic };

struct FlatArgs {
  const Operand *VAddr = nullptr, *SAddr = nullptr, *VData = nullptr;
};

/// Operand roles. Loads: [saddr,] vaddr (global); for scratch any of vaddr
/// and saddr. Stores and atomics: vaddr, vdata [, saddr]; scratch stores put
/// vdata first, then any of vaddr and saddr.
template <Seg S, Kind K> FlatArgs flatArgs(const DecodedInst &I) {
  FlatArgs A;
  const Operand *Src = I.Src;
  if constexpr (S == Seg::Scratch) {
    // Stores put vdata first. The address is vaddr, saddr, both (gfx940
    // SVS) or neither (gfx940 ST); d16 loads also have their tied
    // destination as a source.
    unsigned J = 0;
    if constexpr (K != Kind::Load)
      A.VData = &Src[J++];
    for (; J < I.NumSrc; ++J)
      if (!Src[J].Tied)
        (Src[J].K == Operand::Sgpr ? A.SAddr : A.VAddr) = &Src[J];
  } else if constexpr (K == Kind::Load) {
    if (Src[0].K == Operand::Sgpr) {
      A.SAddr = &Src[0];
      if constexpr (S == Seg::Global)
        A.VAddr = &Src[1];
    } else {
      A.VAddr = &Src[0];
    }
  } else {
    A.VAddr = &Src[0];
    A.VData = &Src[1];
    if (I.NumSrc > 2 && Src[2].K == Operand::Sgpr)
      A.SAddr = &Src[2];
  }
  return A;
}

/// The instruction offset. The MC layer gives the raw 13-bit field: signed
/// for GLOBAL and SCRATCH, 12 bits unsigned for FLAT on gfx90a.
template <Seg S> int64_t instOffset(const DecodedInst &I) {
  if constexpr (S == Seg::Flat)
    return I.Imm[0] & 0xfff;
  return int64_t(uint64_t(I.Imm[0]) << 51) >> 51;
}

/// Checks private offsets P.Addr of the plan's lanes against the wave's
/// scratch. Fast when FLAT_SCRATCH is the wave's base: then an access is in
/// range exactly when it ends within the per-lane size.
bool checkPrivate(Wave &W, const Plan &P, unsigned Bytes, bool IsWrite) {
  uint64_t Max = 0;
  for (unsigned L = 0; L < WaveSize; ++L)
    Max = std::max(Max, (P.Mask >> L) & 1 ? P.Addr[L] : 0);
  if (P.WaveBase == W.ScratchBase && Max + Bytes <= W.ScratchBytesPerLane)
    return true;
  bool Ok = true;
  forLanes(P.Mask, [&](unsigned L) {
    if (Ok && !scratchInRange(W, P.WaveBase, P.Addr[L], Bytes, L)) {
      scratchFault(W, P.Addr[L], Bytes, L, IsWrite);
      Ok = false;
    }
  });
  return Ok;
}

/// Routes FLAT lanes by aperture and checks each in lane order.
bool routeFlat(Wave &W, Plan &P, unsigned Bytes, bool IsWrite) {
  constexpr uint32_t SharedHi = SharedApertureBase >> 32,
                     PrivateHi = PrivateApertureBase >> 32;
  uint64_t Shared = 0, Private = 0;
  for (unsigned L = 0; L < WaveSize; ++L) {
    uint32_t Hi = uint32_t(P.Addr[L] >> 32);
    Shared |= uint64_t(Hi == SharedHi) << L;
    Private |= uint64_t(Hi == PrivateHi) << L;
  }
  Shared &= P.Mask;
  Private &= P.Mask;
  if (!(Shared | Private))
    return checkGlobal(W, P.Addr, P.Mask, Bytes, IsWrite);
  P.Local = Shared;
  P.Private = Private;
  P.WaveBase = W.flatScratch();
  bool Ok = true;
  uint64_t OutOfRange = 0;
  forLanes(P.Mask, [&](unsigned L) {
    if (!Ok)
      return;
    uint64_t A = P.Addr[L];
    uint32_t Off = uint32_t(A);
    if ((Shared >> L) & 1) {
      if (uint64_t(Off) + Bytes > W.LdsSize) {
        // LDS's own range check, as for DS instructions (ldsOutOfRange).
        if (!OutOfRange)
          Ok = ldsOutOfRange(W, A, Off, Bytes, L, 1, IsWrite);
        else
          W.D->LdsOutOfRange.fetch_add(1, std::memory_order_relaxed);
        OutOfRange |= uint64_t(1) << L;
        return;
      }
      P.Addr[L] = reinterpret_cast<uint64_t>(W.Lds) + Off;
    } else if ((Private >> L) & 1) {
      if (!scratchInRange(W, P.WaveBase, Off, Bytes, L)) {
        scratchFault(W, Off, Bytes, L, IsWrite);
        Ok = false;
        return;
      }
      P.Addr[L] = Off;
    } else {
      Ok = checkMemory(W, A, Bytes, IsWrite, int(L));
    }
  });
  P.Mask &= ~OutOfRange;
  P.Local &= ~OutOfRange;
  return Ok;
}

/// Computes and checks the targets of the active lanes; false after a fault.
template <Seg S>
bool flatPlan(Wave &W, const DecodedInst &I, const FlatArgs &A,
              unsigned Bytes, bool IsWrite, Plan &P) {
  P.Mask = W.exec();
  int64_t Off = instOffset<S>(I);
  if constexpr (S == Seg::Scratch) {
    uint32_t Base = uint32_t(Off) + (A.SAddr ? readScalar32(W, *A.SAddr) : 0);
    if (A.VAddr) {
      const uint32_t *V = W.vgpr(W.vectorIndex(*A.VAddr));
      for (unsigned L = 0; L < WaveSize; ++L)
        P.Addr[L] = uint32_t(Base + V[L]);
    } else {
      for (unsigned L = 0; L < WaveSize; ++L)
        P.Addr[L] = Base;
    }
    P.Private = P.Mask;
    P.WaveBase = W.flatScratch();
    return checkPrivate(W, P, Bytes, IsWrite);
  }
  const uint32_t *Lo = W.vgpr(W.vectorIndex(*A.VAddr));
  if (S == Seg::Global && A.SAddr) {
    uint64_t Base = readScalar64(W, *A.SAddr) + Off;
    for (unsigned L = 0; L < WaveSize; ++L)
      P.Addr[L] = Base + Lo[L];
  } else {
    const uint32_t *Hi = Lo + WaveSize;
    for (unsigned L = 0; L < WaveSize; ++L)
      P.Addr[L] = ((uint64_t(Hi[L]) << 32) | Lo[L]) + Off;
  }
  if constexpr (S == Seg::Flat)
    return routeFlat(W, P, Bytes, IsWrite);
  return checkGlobal(W, P.Addr, P.Mask, Bytes, IsWrite);
}

template <Seg S, Width Wd> void flatLoad(Wave &W, const DecodedInst &I) {
  Plan P;
  if (!flatPlan<S>(W, I, flatArgs<S, Kind::Load>(I), Wd.Bytes, false, P))
    return;
  notePlan(W, I, P, Wd.Bytes, false, false);
  loadLanes<Wd>(W, W.vectorIndex(I.Dst[0]), P, W.exec());
  countBytes(W, I, uint64_t(std::popcount(P.Mask)) * Wd.Bytes);
}

template <Seg S, Width Wd> void flatStore(Wave &W, const DecodedInst &I) {
  FlatArgs A = flatArgs<S, Kind::Store>(I);
  Plan P;
  if (!flatPlan<S>(W, I, A, Wd.Bytes, true, P))
    return;
  notePlan(W, I, P, Wd.Bytes, true, false);
  storeLanes<Wd>(W, W.vectorIndex(*A.VData), P);
  countBytes(W, I, uint64_t(std::popcount(P.Mask)) * Wd.Bytes);
}

/// Atomics: data in vdata (cmpswap: {src, cmp}), old value to vdst (RTN).
template <Seg S, class Op, typename T, bool Rtn>
void flatAtomic(Wave &W, const DecodedInst &I) {
  FlatArgs A = flatArgs<S, Kind::Atomic>(I);
  Plan P;
  if (!flatPlan<S>(W, I, A, sizeof(T), true, P))
    return;
  uint64_t LdsBase = reinterpret_cast<uint64_t>(W.Lds);
  if (!checkAtomicAlignment(W, P, sizeof(T), [&](unsigned L) {
        return (P.Local >> L) & 1 ? SharedApertureBase + (P.Addr[L] - LdsBase)
                                  : P.Addr[L];
      }))
    return;
  notePlan(W, I, P, sizeof(T), true, true);
  unsigned Data = W.vectorIndex(*A.VData);
  atomicLanes<Op, T, Rtn>(W, P, Data, Data + sizeof(T) / 4,
                          Rtn ? W.vectorIndex(I.Dst[0]) : 0, W.exec());
  countBytes(W, I, uint64_t(std::popcount(P.Mask)) * sizeof(T));
}

/// GLOBAL/SCRATCH_LOAD_LDS_DWORD: the dwords go to LDS, not to VGPRs.
template <Seg S> void flatLoadLds(Wave &W, const DecodedInst &I) {
  Plan P;
  if (flatPlan<S>(W, I, flatArgs<S, Kind::Load>(I), 4, false, P))
    loadDwordsToLds(W, I, P, P.Mask, instOffset<S>(I));
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

constexpr const char *SegPrefix[] = {"FLAT_", "GLOBAL_", "SCRATCH_"};

template <Seg S> std::string name(llvm::StringRef Op) {
  return (SegPrefix[int(S)] + Op).str();
}

template <Width Wd> void addLoad(HandlerTable &T, llvm::StringRef Op) {
  T.add(name<Seg::Flat>(Op), flatLoad<Seg::Flat, Wd>, MemFlags);
  T.add(name<Seg::Global>(Op), flatLoad<Seg::Global, Wd>, MemFlags);
  T.add(name<Seg::Scratch>(Op), flatLoad<Seg::Scratch, Wd>, MemFlags);
}

template <Width Wd> void addStore(HandlerTable &T, llvm::StringRef Op) {
  T.add(name<Seg::Flat>(Op), flatStore<Seg::Flat, Wd>, MemFlags);
  T.add(name<Seg::Global>(Op), flatStore<Seg::Global, Wd>, MemFlags);
  T.add(name<Seg::Scratch>(Op), flatStore<Seg::Scratch, Wd>, MemFlags);
}

/// FLAT_ATOMIC_<Op>[_RTN[_agpr]] and GLOBAL_ATOMIC_<Op>[_SADDR][_RTN
/// [_agpr]] (the decoder folds a trailing _SADDR into a flag, not one
/// before _RTN; the operands tell the forms apart).
template <class Op, typename T>
void addAtomic(HandlerTable &Tab, llvm::StringRef Name) {
  auto Add = [&](const std::string &Base, Handler NoRet, Handler Ret) {
    Tab.add(Base, NoRet, MemFlags);
    Tab.add(Base + "_RTN", Ret, MemFlags);
    Tab.add(Base + "_RTN_agpr", Ret, MemFlags);
  };
  std::string Flat = name<Seg::Flat>("ATOMIC_" + Name.str());
  std::string Global = name<Seg::Global>("ATOMIC_" + Name.str());
  Add(Flat, flatAtomic<Seg::Flat, Op, T, false>,
      flatAtomic<Seg::Flat, Op, T, true>);
  Add(Global, flatAtomic<Seg::Global, Op, T, false>,
      flatAtomic<Seg::Global, Op, T, true>);
  Add(Global + "_SADDR", flatAtomic<Seg::Global, Op, T, false>,
      flatAtomic<Seg::Global, Op, T, true>);
}

} // namespace

void registerFlatOps(HandlerTable &T) {
  addLoad<U8>(T, "LOAD_UBYTE");
  addLoad<I8>(T, "LOAD_SBYTE");
  addLoad<U16>(T, "LOAD_USHORT");
  addLoad<I16>(T, "LOAD_SSHORT");
  addLoad<B32>(T, "LOAD_DWORD");
  addLoad<B64>(T, "LOAD_DWORDX2");
  addLoad<B96>(T, "LOAD_DWORDX3");
  addLoad<B128>(T, "LOAD_DWORDX4");
  addLoad<U8D16>(T, "LOAD_UBYTE_D16");
  addLoad<U8D16Hi>(T, "LOAD_UBYTE_D16_HI");
  addLoad<I8D16>(T, "LOAD_SBYTE_D16");
  addLoad<I8D16Hi>(T, "LOAD_SBYTE_D16_HI");
  addLoad<B16D16>(T, "LOAD_SHORT_D16");
  addLoad<B16D16Hi>(T, "LOAD_SHORT_D16_HI");

  addStore<S8>(T, "STORE_BYTE");
  addStore<S8Hi>(T, "STORE_BYTE_D16_HI");
  addStore<S16>(T, "STORE_SHORT");
  addStore<S16Hi>(T, "STORE_SHORT_D16_HI");
  addStore<B32>(T, "STORE_DWORD");
  addStore<B64>(T, "STORE_DWORDX2");
  addStore<B96>(T, "STORE_DWORDX3");
  addStore<B128>(T, "STORE_DWORDX4");

  T.add("GLOBAL_LOAD_LDS_DWORD", flatLoadLds<Seg::Global>, MemFlags);
  T.add("SCRATCH_LOAD_LDS_DWORD", flatLoadLds<Seg::Scratch>, MemFlags);

  forEachMemoryAtomic([&]<class Op, typename V>(const std::string &Name) {
    addAtomic<Op, V>(T, Name);
  });
}

} // namespace loom::emu
