//===- emu/ops/BufferOps.cpp - MUBUF ---------------------------------------===//
//
// Buffer instructions address memory through a V# in four SGPRs (gfx9):
//   base [47:0], stride [61:48], cache_swizzle [62], swizzle_enable [63],
//   num_records [95:64], dst_sel_x/y/z/w [107:96], num_format [110:108],
//   data_format [114:111], element_size [116:115] (2 << n bytes),
//   index_stride [118:117] (8 << n), add_tid_enable [119].
// With add_tid_enable, data_format supplies stride bits [17:14]. Per lane:
//   index  = (idxen ? vgpr_index : 0) + (add_tid_enable ? lane : 0)
//   offset = (offen ? vgpr_offset : 0) + inst_offset
//   swizzled: (index / index_stride * stride + offset / element_size *
//     element_size) * index_stride + index % index_stride * element_size +
//     offset % element_size, for each dword of the access
//   linear:   offset + stride * index
//   address = base + soffset + that.
// gfx90a has no ADDR64 form. Range checking (GCN3/Vega ISA "Range
// checking"): private buffers (add_tid_enable) are not checked; structured
// buffers (idxen, stride != 0) are out of range when index >= num_records;
// raw buffers when offset >= num_records (soffset excluded), per dword for
// load/store_dword{x2,x3,x4}, for the whole access otherwise (format
// instructions, atomics). Out-of-range loads return 0 (format loads: 1 for
// dst_sel 1), stores and atomics are dropped.
//
// The private segment V# the dispatch sets up (add_tid_enable, swizzled,
// element size 4, index stride 64) places lane L's byte o exactly as
// Scratch.h's layout from base + soffset; those accesses must stay within
// the wave's scratch, so a wild private access faults.
//
//===----------------------------------------------------------------------===//

#include "Scratch.h"

namespace loom::emu {
namespace {

using namespace vmem;

struct Resource {
  uint64_t Base = 0;
  uint32_t Stride = 0, NumRecords = 0;
  uint32_t ElementSize = 4, IndexStride = 8;
  uint8_t DstSel[4] = {};
  uint8_t NumFormat = 0, DataFormat = 0;
  bool SwizzleEn = false, AddTid = false;
};

Resource decodeResource(const Wave &W, const Operand &Op) {
  const uint32_t *D = &W.S[Op.Index];
  Resource R;
  R.Base = D[0] | (uint64_t(D[1] & 0xffff) << 32);
  R.Stride = (D[1] >> 16) & 0x3fff;
  R.SwizzleEn = D[1] >> 31;
  R.NumRecords = D[2];
  for (unsigned K = 0; K < 4; ++K)
    R.DstSel[K] = (D[3] >> (3 * K)) & 7;
  R.NumFormat = (D[3] >> 12) & 7;
  R.DataFormat = (D[3] >> 15) & 15;
  R.ElementSize = 2u << ((D[3] >> 19) & 3);
  R.IndexStride = 8u << ((D[3] >> 21) & 3);
  R.AddTid = (D[3] >> 23) & 1;
  if (R.AddTid)
    R.Stride |= uint32_t(R.DataFormat) << 14;
  return R;
}

enum class Mode { Offset, Offen, Idxen, Bothen };

/// Operand roles: [vdata,] [vaddr,] srsrc, soffset (vaddr holds the index,
/// the offset, or both in two VGPRs, by mode).
struct BufArgs {
  const Operand *VData = nullptr, *VAddr = nullptr, *Rsrc, *SOffset;
};

template <Mode M, bool HasData> BufArgs bufArgs(const DecodedInst &I) {
  BufArgs A;
  unsigned K = 0;
  if constexpr (HasData)
    A.VData = &I.Src[K++];
  if constexpr (M != Mode::Offset)
    A.VAddr = &I.Src[K++];
  A.Rsrc = &I.Src[K];
  A.SOffset = &I.Src[K + 1];
  return A;
}

/// A plan with room for what MUBUF adds: per-lane dword counts (raw range
/// checks) and per-dword addresses (swizzled buffers).
struct BufPlan : Plan {
  uint8_t DwordCount[WaveSize];
  uint64_t PieceAddr[WaveSize][4];
};

/// Private buffer lanes must stay in the wave's scratch.
bool inWaveScratch(const Wave &W, uint64_t Addr, unsigned Bytes) {
  uint64_t Lo = W.ScratchBase, Size = uint64_t(W.ScratchBytesPerLane) * 64;
  return Addr >= Lo && Addr - Lo <= Size && Size - (Addr - Lo) >= Bytes;
}

void privateBufferFault(Wave &W, uint64_t Addr, unsigned Bytes, unsigned Lane,
                        bool IsWrite) {
  raiseFault(W, DispatchStatus::MemoryFault, Addr, IsWrite,
             llvm::formatv("memory fault: private buffer {0} of {1} bytes at "
                           "{2:x} in lane {3}, outside the wave's scratch",
                           IsWrite ? "write" : "read", Bytes, Addr, Lane)
                 .str());
}

/// Computes, range-checks and memory-checks the lanes of a \p Bytes access
/// (\p Whole: all-or-nothing range check). False after a fault.
template <Mode M>
bool bufPlan(Wave &W, const DecodedInst &I, const BufArgs &A,
             const Resource &R, unsigned Bytes, bool Whole, bool IsWrite,
             BufPlan &P) {
  constexpr bool IdxEn = M == Mode::Idxen || M == Mode::Bothen;
  const uint32_t *VIdx = nullptr, *VOff = nullptr;
  if constexpr (IdxEn)
    VIdx = W.vgpr(W.vectorIndex(*A.VAddr));
  if constexpr (M == Mode::Offen)
    VOff = W.vgpr(W.vectorIndex(*A.VAddr));
  if constexpr (M == Mode::Bothen)
    VOff = VIdx + WaveSize;
  uint32_t InstOff = uint32_t(I.Imm[0]);
  uint64_t Base = R.Base + readScalar32(W, *A.SOffset);
  unsigned Parts = !Whole && Bytes > 4 ? Bytes / 4 : 1;
  uint32_t Index[WaveSize], Off[WaveSize];
  uint64_t In = 0, Partial = 0;
  for (unsigned L = 0; L < WaveSize; ++L) {
    Index[L] = (VIdx ? VIdx[L] : 0) + (R.AddTid ? L : 0);
    Off[L] = (VOff ? VOff[L] : 0) + InstOff;
    unsigned Valid = Parts; // private buffers are not range-checked
    if (!R.AddTid && IdxEn && R.Stride) {
      Valid = Index[L] < R.NumRecords ? Parts : 0;
    } else if (!R.AddTid) {
      uint64_t Room = Off[L] < R.NumRecords ? R.NumRecords - Off[L] : 0;
      Valid = unsigned(std::min<uint64_t>(Parts, (Room + 3) / 4));
    }
    P.DwordCount[L] = uint8_t(Valid);
    In |= uint64_t(Valid != 0) << L;
    Partial |= uint64_t(Valid != 0 && Valid < Parts) << L;
  }
  P.Mask = W.exec() & In;
  if (P.Mask & Partial)
    P.Dwords = P.DwordCount;
  auto Moved = [&](unsigned L) {
    return P.Dwords ? std::min(Bytes, P.DwordCount[L] * 4u) : Bytes;
  };
  bool Ok = true;
  if (R.SwizzleEn && R.AddTid && R.ElementSize == 4 && R.IndexStride == 64 &&
      !IdxEn) {
    // The private segment: Scratch.h's layout from base + soffset.
    P.Private = P.Mask;
    P.WaveBase = Base;
    for (unsigned L = 0; L < WaveSize; ++L)
      P.Addr[L] = Off[L];
    forLanes(P.Mask, [&](unsigned L) {
      if (Ok && !scratchInRange(W, Base, Off[L], Moved(L), L)) {
        scratchFault(W, Off[L], Moved(L), L, IsWrite);
        Ok = false;
      }
    });
    return Ok;
  }
  if (R.SwizzleEn) {
    P.Split = P.Mask;
    P.Pieces = P.PieceAddr;
    forLanes(P.Mask, [&](unsigned L) {
      uint32_t IdxMsb = Index[L] / R.IndexStride,
               IdxLsb = Index[L] % R.IndexStride;
      for (unsigned K = 0; 4 * K < Moved(L); ++K) {
        uint32_t O = Off[L] + 4 * K;
        uint64_t Piece =
            Base +
            (uint64_t(IdxMsb) * R.Stride + O / R.ElementSize * R.ElementSize) *
                R.IndexStride +
            IdxLsb * R.ElementSize + O % R.ElementSize;
        unsigned N = std::min(4u, Moved(L) - 4 * K);
        if (!Ok)
          return;
        if (R.AddTid && !inWaveScratch(W, Piece, N)) {
          privateBufferFault(W, Piece, N, L, IsWrite);
          Ok = false;
        } else if (!R.AddTid) {
          Ok = checkMemory(W, Piece, N, IsWrite);
        }
        P.PieceAddr[L][K] = Piece;
      }
      P.Addr[L] = P.PieceAddr[L][0];
    });
    return Ok;
  }
  for (unsigned L = 0; L < WaveSize; ++L)
    P.Addr[L] = Base + Off[L] + uint64_t(R.Stride) * Index[L];
  if (!R.AddTid && !P.Dwords)
    return checkGlobal(W, P.Addr, P.Mask, Bytes, IsWrite);
  forLanes(P.Mask, [&](unsigned L) {
    if (!Ok)
      return;
    if (!R.AddTid) {
      Ok = checkMemory(W, P.Addr[L], Moved(L), IsWrite, int(L));
    } else if (!inWaveScratch(W, P.Addr[L], Moved(L))) {
      privateBufferFault(W, P.Addr[L], Moved(L), L, IsWrite);
      Ok = false;
    }
  });
  return Ok;
}

//===----------------------------------------------------------------------===//
// Data formats (buffer_load/store_format_*)
//===----------------------------------------------------------------------===//

/// Components and bits per component of a BUF_DATA_FORMAT; packed formats
/// (10_11_11, 11_11_10, 10_10_10_2, 2_10_10_10) are not emulated (Comps 0).
struct Format {
  uint8_t Comps = 0, Bits = 0;
};

Format dataFormat(unsigned DF) {
  static constexpr Format Formats[16] = {
      {}, {1, 8}, {1, 16}, {2, 8}, {1, 32}, {2, 16}, {}, {},
      {}, {},     {4, 8},  {2, 32}, {4, 16}, {3, 32}, {4, 32}, {}};
  return Formats[DF & 15];
}

enum NumFormat : uint8_t {
  Unorm = 0,
  Snorm = 1,
  Uscaled = 2,
  Sscaled = 3,
  Uint = 4,
  Sint = 5,
  Float = 7
};

bool isIntFormat(unsigned NF) { return NF == Uint || NF == Sint; }

/// The (V#-format) combination is one the emulator converts.
bool supported(const Resource &R, Format F) {
  return F.Comps && R.NumFormat != 6 && !(R.NumFormat == Float && F.Bits == 8);
}

uint32_t floatBits(float F) { return std::bit_cast<uint32_t>(F); }

/// Register value of a component of \p Bits raw bits.
uint32_t unpackComponent(uint32_t Raw, unsigned Bits, unsigned NF) {
  double Max = double((uint64_t(1) << Bits) - 1);
  int64_t S = int64_t(uint64_t(Raw) << (64 - Bits)) >> (64 - Bits);
  switch (NF) {
  case Unorm:
    return floatBits(float(Raw / Max));
  case Snorm:
    return floatBits(std::max(float(S / std::floor(Max / 2)), -1.0f));
  case Uscaled:
    return floatBits(float(Raw));
  case Sscaled:
    return floatBits(float(S));
  case Uint:
    return Raw;
  case Sint:
    return uint32_t(S);
  default: // Float
    return Bits == 32 ? Raw
                      : floatBits(float(std::bit_cast<_Float16>(uint16_t(Raw))));
  }
}

/// Raw bits of a component from register value \p Reg.
uint32_t packComponent(uint32_t Reg, unsigned Bits, unsigned NF) {
  uint64_t Mask = (uint64_t(1) << Bits) - 1;
  double Max = double(Mask);
  float F = std::bit_cast<float>(Reg);
  double X = std::isnan(F) ? 0.0 : double(F);
  switch (NF) {
  case Unorm:
    return uint32_t(std::nearbyint(std::clamp(X, 0.0, 1.0) * Max));
  case Snorm:
    return uint32_t(int64_t(std::nearbyint(std::clamp(X, -1.0, 1.0) *
                                           std::floor(Max / 2)))) &
           Mask;
  case Uscaled:
    return uint32_t(std::nearbyint(std::clamp(X, 0.0, Max)));
  case Sscaled: {
    double Half = std::floor(Max / 2);
    return uint32_t(int64_t(std::nearbyint(std::clamp(X, -Half - 1, Half)))) &
           Mask;
  }
  case Uint:
  case Sint:
    return Reg & Mask;
  default: // Float
    return Bits == 32 ? Reg
                      : std::bit_cast<uint16_t>(static_cast<_Float16>(F));
  }
}

/// A component (raw bits \p Raw, register value \p V) as the 16 bits of a
/// D16 format load: 16-bit float data as it is, integers truncated, the
/// other formats' values rounded to f16.
uint16_t toD16(uint32_t Raw, uint32_t V, Format F, unsigned NF) {
  if (isIntFormat(NF) || (NF == Float && F.Bits == 16))
    return uint16_t(NF == Float ? Raw : V);
  return std::bit_cast<uint16_t>(
      static_cast<_Float16>(std::bit_cast<float>(V)));
}

/// The raw bits a D16 format store writes for 16-bit register value \p H.
uint32_t fromD16(uint16_t H, Format F, unsigned NF) {
  if (NF == Float && F.Bits == 16)
    return H;
  uint32_t V = NF == Sint   ? uint32_t(int32_t(int16_t(H)))
               : NF == Uint ? H
                            : floatBits(float(std::bit_cast<_Float16>(H)));
  return packComponent(V, F.Bits, NF);
}

void unsupportedFormat(Wave &W, const Resource &R) {
  raiseFault(W, DispatchStatus::IllegalInstruction, 0, false,
             llvm::formatv("buffer data format {0} / number format {1} is not "
                           "emulated",
                           unsigned(R.DataFormat), unsigned(R.NumFormat))
                 .str());
}

//===----------------------------------------------------------------------===//
// Handlers, as families over the addressing mode
//===----------------------------------------------------------------------===//

template <Width Wd> struct Load {
  template <Mode M> static void run(Wave &W, const DecodedInst &I) {
    BufArgs A = bufArgs<M, false>(I);
    BufPlan P;
    if (!bufPlan<M>(W, I, A, decodeResource(W, *A.Rsrc), Wd.Bytes, false,
                    false, P))
      return;
    notePlan(W, I, P, Wd.Bytes, false, false);
    uint64_t Exec = W.exec();
    loadLanes<Wd>(W, W.vectorIndex(I.Dst[0]), P, Exec);
    countBytes(W, I, uint64_t(std::popcount(Exec)) * Wd.Bytes);
  }
};

template <Width Wd> struct Store {
  template <Mode M> static void run(Wave &W, const DecodedInst &I) {
    BufArgs A = bufArgs<M, true>(I);
    BufPlan P;
    if (!bufPlan<M>(W, I, A, decodeResource(W, *A.Rsrc), Wd.Bytes, false,
                    true, P))
      return;
    notePlan(W, I, P, Wd.Bytes, true, false);
    storeLanes<Wd>(W, W.vectorIndex(*A.VData), P);
    countBytes(W, I, uint64_t(std::popcount(W.exec())) * Wd.Bytes);
  }
};

/// Atomics: vdata (cmpswap: {src, cmp}), tied to vdst in the RTN forms.
template <class Op, typename T, bool Rtn> struct Atomic {
  template <Mode M> static void run(Wave &W, const DecodedInst &I) {
    BufArgs A = bufArgs<M, true>(I);
    BufPlan P;
    if (!bufPlan<M>(W, I, A, decodeResource(W, *A.Rsrc), sizeof(T), true,
                    true, P) ||
        !checkAtomicAlignment(W, P, sizeof(T),
                              [&](unsigned L) { return P.Addr[L]; }))
      return;
    notePlan(W, I, P, sizeof(T), true, true);
    unsigned Data = W.vectorIndex(*A.VData);
    uint64_t Exec = W.exec();
    atomicLanes<Op, T, Rtn>(W, P, Data, Data + sizeof(T) / 4,
                            Rtn ? W.vectorIndex(I.Dst[0]) : 0, Exec);
    countBytes(W, I, uint64_t(std::popcount(Exec)) * sizeof(T));
  }
};

/// buffer_load_dword ... lds: the dwords go to LDS (see loadDwordsToLds).
struct LoadLds {
  template <Mode M> static void run(Wave &W, const DecodedInst &I) {
    BufArgs A = bufArgs<M, false>(I);
    BufPlan P;
    if (bufPlan<M>(W, I, A, decodeResource(W, *A.Rsrc), 4, false, false, P))
      loadDwordsToLds(W, I, P, W.exec(), int64_t(uint32_t(I.Imm[0])));
  }
};

/// buffer_load_format_*: \p Comps components converted by the V#'s format
/// and dst_sel; \p D16 = 1 packs them as 16-bit values two per VGPR, 2
/// writes one into the high half of vdst.
template <unsigned Comps, unsigned D16> struct LoadFormat {
  template <Mode M> static void run(Wave &W, const DecodedInst &I) {
    BufArgs A = bufArgs<M, false>(I);
    Resource R = decodeResource(W, *A.Rsrc);
    Format F = dataFormat(R.DataFormat);
    if (!supported(R, F))
      return unsupportedFormat(W, R);
    unsigned Bytes = F.Comps * F.Bits / 8;
    BufPlan P;
    if (!bufPlan<M>(W, I, A, R, Bytes, true, false, P))
      return;
    notePlan(W, I, P, Bytes, false, false);
    uint64_t Exec = W.exec();
    uint32_t One = isIntFormat(R.NumFormat) ? 1 : floatBits(1.0f);
    constexpr unsigned Regs = D16 ? (Comps + 1) / 2 : Comps;
    Lanes32 Val[Regs];
    unsigned Dst = W.vectorIndex(I.Dst[0]);
    for (unsigned L = 0; L < WaveSize; ++L) {
      uint32_t C[4] = {0, 0, 0, One}, Raw[4] = {0, 0, 0, One};
      bool In = (P.Mask >> L) & 1;
      if (In && ((Exec >> L) & 1)) {
        uint8_t Buf[16];
        laneCopy<false>(P, L, Buf, Bytes);
        for (unsigned K = 0; K < F.Comps; ++K) {
          Raw[K] = 0;
          std::memcpy(&Raw[K], Buf + K * F.Bits / 8, F.Bits / 8);
          C[K] = unpackComponent(Raw[K], F.Bits, R.NumFormat);
        }
      }
      for (unsigned K = 0; K < Comps; ++K) {
        unsigned Sel = R.DstSel[K];
        bool FromData = In && Sel >= 4;
        uint32_t V = Sel == 1 ? One : (FromData ? C[Sel - 4] : 0);
        if constexpr (D16 == 0) {
          Val[K].V[L] = V;
        } else {
          uint32_t H =
              FromData ? toD16(Raw[Sel - 4], V, F, R.NumFormat)
                       : toD16(V, V, Format{F.Comps, 32}, R.NumFormat);
          uint32_t Old = W.vgpr(Dst + K / 2)[L];
          if (D16 == 2)
            Val[0].V[L] = (Old & 0xffff) | (H << 16);
          else if (K % 2 == 0)
            Val[K / 2].V[L] = (K + 1 < Comps ? 0 : Old & 0xffff0000u) | H;
          else
            Val[K / 2].V[L] |= H << 16;
        }
      }
    }
    for (unsigned R2 = 0; R2 < Regs; ++R2) {
      uint32_t *D = W.vgpr(Dst + R2);
      for (unsigned L = 0; L < WaveSize; ++L)
        D[L] = (Exec >> L) & 1 ? Val[R2].V[L] : D[L];
    }
    countBytes(W, I, uint64_t(std::popcount(Exec)) * Bytes);
  }
};

/// buffer_store_format_*: the first min(Comps, format components)
/// components, converted to the V#'s format.
template <unsigned Comps, unsigned D16> struct StoreFormat {
  template <Mode M> static void run(Wave &W, const DecodedInst &I) {
    BufArgs A = bufArgs<M, true>(I);
    Resource R = decodeResource(W, *A.Rsrc);
    Format F = dataFormat(R.DataFormat);
    if (!supported(R, F))
      return unsupportedFormat(W, R);
    unsigned N = std::min<unsigned>(Comps, F.Comps);
    unsigned Bytes = N * F.Bits / 8;
    BufPlan P;
    if (!bufPlan<M>(W, I, A, R, Bytes, true, true, P))
      return;
    notePlan(W, I, P, Bytes, true, false);
    unsigned Src = W.vectorIndex(*A.VData);
    forLanes(P.Mask, [&](unsigned L) {
      uint8_t Buf[16];
      for (unsigned K = 0; K < N; ++K) {
        uint32_t Raw;
        if constexpr (D16 == 0) {
          Raw = packComponent(W.vgpr(Src + K)[L], F.Bits, R.NumFormat);
        } else {
          uint32_t Reg = W.vgpr(Src + (D16 == 2 ? 0 : K / 2))[L];
          unsigned Shift = D16 == 2 || K % 2 ? 16 : 0;
          Raw = fromD16(uint16_t(Reg >> Shift), F, R.NumFormat);
        }
        std::memcpy(Buf + K * F.Bits / 8, &Raw, F.Bits / 8);
      }
      laneCopy<true>(P, L, Buf, Bytes);
    });
    countBytes(W, I, uint64_t(std::popcount(W.exec())) * Bytes);
  }
};

/// Cache write-back and invalidation: memory is always coherent here.
void cacheControl(Wave &, const DecodedInst &) {}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

/// Name_{OFFSET,OFFEN,IDXEN,BOTHEN}Suffix -> H::run<mode>.
template <class H>
void addModes(HandlerTable &T, const std::string &Name,
              const std::string &Suffix = "") {
  T.add(Name + "_OFFSET" + Suffix, H::template run<Mode::Offset>, MemFlags);
  T.add(Name + "_OFFEN" + Suffix, H::template run<Mode::Offen>, MemFlags);
  T.add(Name + "_IDXEN" + Suffix, H::template run<Mode::Idxen>, MemFlags);
  T.add(Name + "_BOTHEN" + Suffix, H::template run<Mode::Bothen>, MemFlags);
}

template <class Op, typename T>
void addAtomic(HandlerTable &Tab, llvm::StringRef Name) {
  std::string Base = ("BUFFER_ATOMIC_" + Name).str();
  addModes<Atomic<Op, T, false>>(Tab, Base);
  addModes<Atomic<Op, T, true>>(Tab, Base, "_RTN");
}

template <unsigned Comps>
void addFormat(HandlerTable &T, const std::string &Xyzw) {
  addModes<LoadFormat<Comps, 0>>(T, "BUFFER_LOAD_FORMAT_" + Xyzw);
  addModes<LoadFormat<Comps, 1>>(T, "BUFFER_LOAD_FORMAT_D16_" + Xyzw);
  addModes<StoreFormat<Comps, 0>>(T, "BUFFER_STORE_FORMAT_" + Xyzw);
  addModes<StoreFormat<Comps, 1>>(T, "BUFFER_STORE_FORMAT_D16_" + Xyzw);
}

} // namespace

void registerBufferOps(HandlerTable &T) {
  addModes<Load<U8>>(T, "BUFFER_LOAD_UBYTE");
  addModes<Load<I8>>(T, "BUFFER_LOAD_SBYTE");
  addModes<Load<U16>>(T, "BUFFER_LOAD_USHORT");
  addModes<Load<I16>>(T, "BUFFER_LOAD_SSHORT");
  addModes<Load<B32>>(T, "BUFFER_LOAD_DWORD");
  addModes<Load<B64>>(T, "BUFFER_LOAD_DWORDX2");
  addModes<Load<B96>>(T, "BUFFER_LOAD_DWORDX3");
  addModes<Load<B128>>(T, "BUFFER_LOAD_DWORDX4");
  addModes<Load<U8D16>>(T, "BUFFER_LOAD_UBYTE_D16");
  addModes<Load<U8D16Hi>>(T, "BUFFER_LOAD_UBYTE_D16_HI");
  addModes<Load<I8D16>>(T, "BUFFER_LOAD_SBYTE_D16");
  addModes<Load<I8D16Hi>>(T, "BUFFER_LOAD_SBYTE_D16_HI");
  addModes<Load<B16D16>>(T, "BUFFER_LOAD_SHORT_D16");
  addModes<Load<B16D16Hi>>(T, "BUFFER_LOAD_SHORT_D16_HI");
  addModes<LoadLds>(T, "BUFFER_LOAD_DWORD_LDS");

  addModes<Store<S8>>(T, "BUFFER_STORE_BYTE");
  addModes<Store<S8Hi>>(T, "BUFFER_STORE_BYTE_D16_HI");
  addModes<Store<S16>>(T, "BUFFER_STORE_SHORT");
  addModes<Store<S16Hi>>(T, "BUFFER_STORE_SHORT_D16_HI");
  addModes<Store<B32>>(T, "BUFFER_STORE_DWORD");
  addModes<Store<B64>>(T, "BUFFER_STORE_DWORDX2");
  addModes<Store<B96>>(T, "BUFFER_STORE_DWORDX3");
  addModes<Store<B128>>(T, "BUFFER_STORE_DWORDX4");

  addFormat<1>(T, "X");
  addFormat<2>(T, "XY");
  addFormat<3>(T, "XYZ");
  addFormat<4>(T, "XYZW");
  addModes<LoadFormat<1, 2>>(T, "BUFFER_LOAD_FORMAT_D16_HI_X");
  addModes<StoreFormat<1, 2>>(T, "BUFFER_STORE_FORMAT_D16_HI_X");

  forEachMemoryAtomic([&]<class Op, typename V>(const std::string &Name) {
    addAtomic<Op, V>(T, Name);
  });

  for (const char *Name : {"BUFFER_WBINVL1", "BUFFER_WBINVL1_VOL",
                           "BUFFER_WBL2", "BUFFER_INVL2", "BUFFER_INV"})
    T.add(Name, cacheControl, MemFlags);
}

} // namespace loom::emu
