//===- emu/ops/DsOps.cpp - LDS and lane permutes ---------------------------===//
//
// DS instructions address the work-group's LDS (Wave::Lds, shared by all
// its waves) at vaddr + the unsigned 16-bit offset; read2/write2/wrxchg2
// take two 8-bit offsets in units of the element size (times 64 for the
// st64 forms). On gfx9 M0 does not bound LDS accesses (clang leaves it at
// -1); only append/consume and the addtid forms read it, as a base
// (M0[15:0]). A lane whose access lies beyond the work-group's allocation
// is out of range: as on the hardware its write is dropped and its read
// (or atomic's return) is zero, and the dispatch counts it (ldsPlan;
// LOOM_STRICT_LDS=1 makes it a MemoryFault naming the LDS offset).
//
// Atomics go through std::atomic_ref on the LDS bytes: the waves of a group
// run on one host thread today, but stay correct if they ever do not.
//
// ds_swizzle_b32, ds_permute_b32 and ds_bpermute_b32 move data between
// lanes without touching LDS; a disabled source lane reads as zero.
//
//===----------------------------------------------------------------------===//

#include "HostLanes.h"
#include "Scratch.h"

namespace loom::emu {
namespace {

using namespace vmem;

/// One access per active lane at vaddr + Offset. The sum wraps at 32 bits:
/// clang folds "base - 4 * t" into a negative vaddr and a positive offset.
bool dsPlan(Wave &W, const Operand &VAddr, uint32_t Offset, unsigned Bytes,
            bool IsWrite, Plan &P) {
  P.Mask = W.exec();
  const uint32_t *A = W.vgpr(W.vectorIndex(VAddr));
  return ldsPlanFrom(W, P, Bytes, IsWrite,
                     [&](unsigned L) { return uint32_t(A[L] + Offset); });
}

/// The LDS offset of host address \p A (for faults and records).
uint64_t ldsOffset(const Wave &W, uint64_t A) {
  return A - reinterpret_cast<uint64_t>(W.Lds);
}

// The fast path. Reads and writes of whole dwords whose active lanes all
// lie in the LDS, with nothing recorded, move the dwords directly: one
// range check and one copy instead of a plan of 64 host addresses and a
// pass over it (dsPlan was up to 10 % of LDS-tiled programs).

/// Whether the accesses of \p Bytes at vaddr + \p Offsets[K] of every lane
/// of \p Exec lie in the LDS, and nothing is recorded.
template <unsigned N>
bool lanesInLds(const Wave &W, const uint32_t *A, const uint32_t (&Offsets)[N],
                unsigned Bytes, uint64_t Exec) {
  if (W.D->Record || !Exec)
    return false;
  // As ldsPlanFrom: an offset O fits when Limit - O has no top bit.
  uint64_t Limit = uint64_t(W.LdsSize) - Bytes, Outside = 0;
  for (unsigned K = 0; K < N; ++K) {
    if (Exec == ~uint64_t(0)) {
      for (unsigned L = 0; L < WaveSize; ++L)
        Outside |= Limit - uint64_t(uint32_t(A[L] + Offsets[K]));
    } else {
      for (unsigned L = 0; L < WaveSize; ++L)
        Outside |= (Limit - uint64_t(uint32_t(A[L] + Offsets[K]))) &
                   -((Exec >> L) & 1);
    }
  }
  return !(Outside >> 63);
}

#ifdef LOOM_HOST_LANES
[[gnu::always_inline]] __attribute__((target("avx2"))) inline __m256i
load8(const uint32_t *P) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i *>(P));
}
/// All-ones in the lanes of L..L+7 that \p Exec sets.
[[gnu::always_inline]] __attribute__((target("avx2"))) inline __m256i
active8(uint64_t Exec, unsigned L) {
  const __m256i Bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  __m256i E = _mm256_set1_epi32(int((Exec >> L) & 0xff));
  return _mm256_cmpeq_epi32(_mm256_and_si256(E, Bits), Bits);
}

/// readLanes with AVX2: the range check as the largest of the active
/// lanes' offsets, then eight lanes a masked gather, inactive lanes keeping
/// their VGPRs (Sgemm's ds_read2_b32 of 16 tile columns, on the 2-core
/// EPYC: 39 ns against 53 ns a read; Reduce's tree of shrinking EXECs took
/// the plan before).
template <Width Wd, unsigned N>
__attribute__((target("avx2"))) bool
gatherLanes(Wave &W, const uint32_t *A, const uint32_t (&Offsets)[N],
            unsigned Dst, uint64_t Exec) {
  if (W.D->Record || !Exec || W.LdsSize < Wd.Bytes)
    return false;
  __m256i Max = _mm256_setzero_si256();
  for (unsigned L = 0; L < WaveSize; L += 8) {
    __m256i O = load8(A + L), M = active8(Exec, L);
    for (unsigned K = 0; K < N; ++K) {
      __m256i At = _mm256_add_epi32(O, _mm256_set1_epi32(int(Offsets[K])));
      Max = _mm256_max_epu32(Max, _mm256_and_si256(At, M));
    }
  }
  __m128i M = _mm_max_epu32(_mm256_castsi256_si128(Max),
                            _mm256_extracti128_si256(Max, 1));
  M = _mm_max_epu32(M, _mm_shuffle_epi32(M, 0x4e));
  M = _mm_max_epu32(M, _mm_shuffle_epi32(M, 0xb1));
  if (uint32_t(_mm_cvtsi128_si32(M)) > W.LdsSize - Wd.Bytes)
    return false;
  // Offsets are below 64 KiB: signed 32-bit gather indices. A chunk reads
  // its addresses and old values before it stores, and stores only its own
  // lanes: vdst may be vaddr.
  const int *Lds = reinterpret_cast<const int *>(W.Lds);
  for (unsigned L = 0; L < WaveSize; L += 8) {
    __m256i O = load8(A + L), Mask = active8(Exec, L);
    bool Full = ((Exec >> L) & 0xff) == 0xff;
    __m256i V[N * Wd.Regs];
    for (unsigned K = 0; K < N; ++K) {
      __m256i At = _mm256_add_epi32(O, _mm256_set1_epi32(int(Offsets[K])));
      // Eight active lanes on one address (a broadcast) or on consecutive
      // dwords (a row) are one load; a tile's reads are mostly these
      // (Sgemm 7.2 -> 5.5 ms a dispatch, where every chunk was a gather).
      if (Full) {
        uint32_t First = uint32_t(_mm256_cvtsi256_si32(At));
        __m256i Same = _mm256_set1_epi32(int(First));
        if (_mm256_movemask_epi8(_mm256_cmpeq_epi32(At, Same)) == -1) {
          for (unsigned R = 0; R < Wd.Regs; ++R) {
            int32_t X;
            std::memcpy(&X, W.Lds + First + 4 * R, 4);
            V[K * Wd.Regs + R] = _mm256_set1_epi32(X);
          }
          continue;
        }
        if constexpr (Wd.Regs == 1) {
          __m256i Row = _mm256_add_epi32(
              Same, _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28));
          if (_mm256_movemask_epi8(_mm256_cmpeq_epi32(At, Row)) == -1) {
            V[K] = _mm256_loadu_si256(
                reinterpret_cast<const __m256i *>(W.Lds + First));
            continue;
          }
        }
      }
      for (unsigned R = 0; R < Wd.Regs; ++R) {
        unsigned J = K * Wd.Regs + R;
        V[J] = _mm256_mask_i32gather_epi32(load8(W.vgpr(Dst + J) + L), Lds + R,
                                           At, Mask, 1);
      }
    }
    for (unsigned J = 0; J < N * Wd.Regs; ++J)
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(W.vgpr(Dst + J) + L),
                          V[J]);
  }
  return true;
}
#endif

/// Reads whole dwords of the lanes of \p Exec at vaddr + \p Offsets[K]
/// into VGPRs \p Dst + K * Regs, all before any is written (vdst may be
/// vaddr), if lanesInLds holds; false otherwise, with nothing read.
template <Width Wd, unsigned N>
bool readLanes(Wave &W, const uint32_t *A, const uint32_t (&Offsets)[N],
               unsigned Dst, uint64_t Exec) {
  static_assert(Wd.Bytes == 4 * Wd.Regs);
#ifdef LOOM_HOST_LANES
  if (host::HasAvx2Fma) {
    if (!gatherLanes<Wd>(W, A, Offsets, Dst, Exec))
      return false;
  } else
#endif
  {
    if (Exec != ~uint64_t(0) || !lanesInLds(W, A, Offsets, Wd.Bytes, Exec))
      return false;
    alignas(64) uint32_t Tmp[N * Wd.Regs][WaveSize];
    for (unsigned K = 0; K < N; ++K)
      for (unsigned L = 0; L < WaveSize; ++L) {
        const uint8_t *From = W.Lds + uint32_t(A[L] + Offsets[K]);
        for (unsigned R = 0; R < Wd.Regs; ++R)
          std::memcpy(&Tmp[K * Wd.Regs + R][L], From + 4 * R, 4);
      }
    std::memcpy(W.vgpr(Dst), Tmp, sizeof(Tmp));
  }
  unsigned First = unsigned(std::countr_zero(Exec));
  W.noteLoad(
      reinterpret_cast<uint64_t>(W.Lds + uint32_t(A[First] + Offsets[0])));
  return true;
}

/// Writes VGPRs \p Data[K] of the lanes of \p Exec to vaddr + \p Offsets[K],
/// lanes in order (the highest lane wins an address, as in storeLanes).
template <Width Wd, unsigned N>
void writeLanes(Wave &W, const uint32_t *A, const uint32_t (&Offsets)[N],
                const unsigned (&Data)[N], uint64_t Exec) {
  static_assert(Wd.Bytes == 4 * Wd.Regs);
  for (unsigned K = 0; K < N; ++K) {
    const uint32_t *D = W.vgpr(Data[K]);
    auto Lane = [&](unsigned L) {
      uint8_t *To = W.Lds + uint32_t(A[L] + Offsets[K]);
      for (unsigned R = 0; R < Wd.Regs; ++R)
        std::memcpy(To + 4 * R, &D[R * WaveSize + L], 4);
    };
    if (Exec == ~uint64_t(0)) {
      for (unsigned L = 0; L < WaveSize; ++L)
        Lane(L);
    } else {
      forLanes(Exec, Lane);
    }
  }
  W.StoredMemory = true;
}

/// The fast path of a DS read or write of \p N dword groups (read/write:
/// one, read2/write2: two), if it applies.
template <Width Wd, bool IsWrite, unsigned N>
bool fastLanes(Wave &W, const DecodedInst &I, const uint32_t (&Offsets)[N]) {
  const uint32_t *A = W.vgpr(W.vectorIndex(I.Src[0]));
  uint64_t Exec = W.exec();
  if constexpr (IsWrite) {
    if (!lanesInLds(W, A, Offsets, Wd.Bytes, Exec))
      return false;
    unsigned Data[N];
    for (unsigned K = 0; K < N; ++K)
      Data[K] = W.vectorIndex(I.Src[1 + K]);
    writeLanes<Wd>(W, A, Offsets, Data, Exec);
  } else if (!readLanes<Wd>(W, A, Offsets, W.vectorIndex(I.Dst[0]), Exec)) {
    return false;
  }
  countBytes(W, I, uint64_t(N * std::popcount(Exec)) * Wd.Bytes);
  return true;
}

/// Whether \p Wd moves whole dwords (the forms the fast path takes).
constexpr bool wholeDwords(Width Wd) {
  return Wd.Bytes == 4 * Wd.Regs && !Wd.D16;
}

template <Width Wd> void dsRead(Wave &W, const DecodedInst &I) {
  if constexpr (wholeDwords(Wd))
    if (fastLanes<Wd, false>(W, I, {uint16_t(I.Imm[0])}))
      return;
  Plan P;
  if (!dsPlan(W, I.Src[0], uint16_t(I.Imm[0]), Wd.Bytes, false, P))
    return;
  notePlan(W, I, P, Wd.Bytes, false, false);
  loadLanes<Wd>(W, W.vectorIndex(I.Dst[0]), P, W.exec());
  countBytes(W, I, uint64_t(std::popcount(P.Mask)) * Wd.Bytes);
}

template <Width Wd> void dsWrite(Wave &W, const DecodedInst &I) {
  if constexpr (wholeDwords(Wd))
    if (fastLanes<Wd, true>(W, I, {uint16_t(I.Imm[0])}))
      return;
  Plan P;
  if (!dsPlan(W, I.Src[0], uint16_t(I.Imm[0]), Wd.Bytes, true, P))
    return;
  notePlan(W, I, P, Wd.Bytes, true, false);
  storeLanes<Wd>(W, W.vectorIndex(I.Src[1]), P);
  countBytes(W, I, uint64_t(std::popcount(P.Mask)) * Wd.Bytes);
}

/// read2/write2/wrxchg2's two offsets: offset0 and offset1 scaled by the
/// element size times \p Stride (1, or 64 for st64).
void offsets2(const DecodedInst &I, unsigned Bytes, unsigned Stride,
              uint32_t (&Out)[2]) {
  for (unsigned K = 0; K < 2; ++K)
    Out[K] = uint32_t(uint8_t(I.Imm[K])) * Bytes * Stride;
}

/// The two plans of a read2/write2/wrxchg2.
bool dsPlan2(Wave &W, const DecodedInst &I, unsigned Bytes, unsigned Stride,
             bool IsWrite, Plan (&P)[2]) {
  uint32_t Offsets[2];
  offsets2(I, Bytes, Stride, Offsets);
  for (unsigned K = 0; K < 2; ++K)
    if (!dsPlan(W, I.Src[0], Offsets[K], Bytes, IsWrite, P[K]))
      return false;
  return true;
}

template <Width Wd, unsigned Stride>
void dsRead2(Wave &W, const DecodedInst &I) {
  {
    uint32_t Offsets[2];
    offsets2(I, Wd.Bytes, Stride, Offsets);
    if (fastLanes<Wd, false>(W, I, Offsets))
      return;
  }
  Plan P[2];
  if (!dsPlan2(W, I, Wd.Bytes, Stride, false, P))
    return;
  unsigned Dst = W.vectorIndex(I.Dst[0]);
  for (unsigned K = 0; K < 2; ++K) {
    notePlan(W, I, P[K], Wd.Bytes, false, false);
    loadLanes<Wd>(W, Dst + K * Wd.Regs, P[K], W.exec());
  }
  countBytes(W, I,
             uint64_t(std::popcount(P[0].Mask) + std::popcount(P[1].Mask)) *
                 Wd.Bytes);
}

template <Width Wd, unsigned Stride>
void dsWrite2(Wave &W, const DecodedInst &I) {
  {
    uint32_t Offsets[2];
    offsets2(I, Wd.Bytes, Stride, Offsets);
    if (fastLanes<Wd, true>(W, I, Offsets))
      return;
  }
  Plan P[2];
  if (!dsPlan2(W, I, Wd.Bytes, Stride, true, P))
    return;
  for (unsigned K = 0; K < 2; ++K) {
    notePlan(W, I, P[K], Wd.Bytes, true, false);
    storeLanes<Wd>(W, W.vectorIndex(I.Src[1 + K]), P[K]);
  }
  countBytes(W, I,
             uint64_t(std::popcount(P[0].Mask) + std::popcount(P[1].Mask)) *
                 Wd.Bytes);
}

bool checkLdsAlignment(Wave &W, const Plan &P, unsigned Bytes) {
  return checkAtomicAlignment(W, P, Bytes, [&](unsigned L) {
    return ldsOffset(W, P.Addr[L]);
  });
}

/// The fast path of a DS atomic: every lane of EXEC in the LDS, aligned,
/// nothing recorded. One worker at a time runs the group that owns the
/// LDS, so each lane is a plain read-modify-write, in lane order (as
/// atomicLanes does for LDS lanes, without a plan of host addresses:
/// Histogram's ds_add_u32 bins 26.5 -> 14 ms a dispatch on one thread).
template <class Op, typename T, bool Rtn>
bool fastAtomic(Wave &W, const DecodedInst &I) {
  const uint32_t *A = W.vgpr(W.vectorIndex(I.Src[0]));
  uint32_t Offsets[1] = {uint16_t(I.Imm[0])};
  uint64_t Exec = W.exec();
  if (!lanesInLds(W, A, Offsets, sizeof(T), Exec))
    return false;
  uint32_t Misaligned = 0;
  for (unsigned L = 0; L < WaveSize; ++L)
    Misaligned |= (A[L] + Offsets[0]) & uint32_t(-((Exec >> L) & 1));
  if (Misaligned & (sizeof(T) - 1))
    return false; // the plan path faults
  unsigned D0 = W.vectorIndex(I.Src[1]), D1 = 0;
  if constexpr (requires { Op::TwoData; })
    D1 = W.vectorIndex(I.Src[2]);
  T Old[WaveSize];
  bool Changed = false;
  forLanes(Exec, [&](unsigned L) {
    uint8_t *At = W.Lds + uint32_t(A[L] + Offsets[0]);
    T O, Second = 0;
    std::memcpy(&O, At, sizeof(T));
    if constexpr (requires { Op::TwoData; })
      Second = atomicData<T>(W, D1, L);
    T New = Op::apply(O, atomicData<T>(W, D0, L), Second);
    std::memcpy(At, &New, sizeof(T));
    Changed |= New != O;
    Old[L] = O;
  });
  unsigned First = unsigned(std::countr_zero(Exec));
  W.noteLoad(reinterpret_cast<uint64_t>(W.Lds + uint32_t(A[First] + Offsets[0])));
  W.StoredMemory |= Changed;
  if constexpr (Rtn)
    returnOld(W, W.vectorIndex(I.Dst[0]), Old, Exec);
  countBytes(W, I, uint64_t(std::popcount(Exec)) * sizeof(T));
  return true;
}

/// Atomics: vaddr, data0 [, data1]; old value to vdst in RTN forms.
template <class Op, typename T, bool Rtn>
void dsAtomic(Wave &W, const DecodedInst &I) {
  if (fastAtomic<Op, T, Rtn>(W, I))
    return;
  Plan P;
  if (!dsPlan(W, I.Src[0], uint16_t(I.Imm[0]), sizeof(T), true, P) ||
      !checkLdsAlignment(W, P, sizeof(T)))
    return;
  notePlan(W, I, P, sizeof(T), true, true);
  unsigned D1 = 0;
  if constexpr (requires { Op::TwoData; })
    D1 = W.vectorIndex(I.Src[2]);
  atomicLanes<Op, T, Rtn>(W, P, W.vectorIndex(I.Src[1]), D1,
                          Rtn ? W.vectorIndex(I.Dst[0]) : 0, W.exec());
  countBytes(W, I, uint64_t(std::popcount(P.Mask)) * sizeof(T));
}

/// wrxchg2: swaps data0 and data1 with two locations; the old values go to
/// the two halves of vdst. Both data are read before vdst is written.
template <typename T, unsigned Stride>
void dsWrxchg2(Wave &W, const DecodedInst &I) {
  Plan P[2];
  if (!dsPlan2(W, I, sizeof(T), Stride, true, P) ||
      !checkLdsAlignment(W, P[0], sizeof(T)) ||
      !checkLdsAlignment(W, P[1], sizeof(T)))
    return;
  constexpr unsigned Regs = sizeof(T) / 4;
  T Old[2][WaveSize] = {};
  bool Changed = false;
  for (unsigned K = 0; K < 2; ++K) {
    notePlan(W, I, P[K], sizeof(T), true, true);
    unsigned Data = W.vectorIndex(I.Src[1 + K]);
    forLanes(P[K].Mask, [&](unsigned L) {
      T D = atomicData<T>(W, Data, L);
      Old[K][L] = atomicApply<atomic::Swap, T>(P[K].Addr[L], D, 0, Changed);
    });
  }
  W.StoredMemory |= Changed;
  unsigned Dst = W.vectorIndex(I.Dst[0]);
  uint64_t Exec = W.exec();
  for (unsigned K = 0; K < 2; ++K)
    for (unsigned R = 0; R < Regs; ++R) {
      uint32_t *D = W.vgpr(Dst + K * Regs + R);
      for (unsigned L = 0; L < WaveSize; ++L)
        D[L] = (Exec >> L) & 1 ? uint32_t(Old[K][L] >> (32 * R)) : D[L];
    }
  countBytes(W, I,
             uint64_t(std::popcount(P[0].Mask) + std::popcount(P[1].Mask)) *
                 sizeof(T));
}

/// ds_append/ds_consume: one atomic add (sub) of the number of active lanes
/// to the dword at M0[15:0] + offset; every active lane gets the old value.
template <bool Consume> void dsAppend(Wave &W, const DecodedInst &I) {
  uint64_t Exec = W.exec();
  if (!Exec)
    return;
  unsigned First = std::countr_zero(Exec);
  Plan P;
  P.Mask = uint64_t(1) << First;
  P.Addr[First] = (W.m0() & 0xffff) + uint32_t(uint16_t(I.Imm[0]));
  if (!ldsPlan(W, P, 4, true) || !checkLdsAlignment(W, P, 4))
    return;
  notePlan(W, I, P, 4, true, true);
  using Op = std::conditional_t<Consume, atomic::Sub, atomic::Add>;
  bool Changed = false;
  uint32_t Old = 0; // out of range: nothing added, zero returned
  if (P.Mask)
    Old = atomicApply<Op, uint32_t>(P.Addr[First],
                                    uint32_t(std::popcount(Exec)), 0, Changed);
  W.StoredMemory = true;
  Lanes32 Out;
  for (unsigned L = 0; L < WaveSize; ++L)
    Out.V[L] = Old;
  writeVector32(W, I.Dst[0], Out.V, Exec);
  countBytes(W, I, P.Mask ? 4 : 0);
}

/// ds_read/write_addtid_b32: lane L accesses M0[15:0] + offset + L * 4.
template <bool Write> void dsAddTid(Wave &W, const DecodedInst &I) {
  Plan P;
  P.Mask = W.exec();
  uint32_t Base = (W.m0() & 0xffff) + uint32_t(uint16_t(I.Imm[0]));
  for (unsigned L = 0; L < WaveSize; ++L)
    P.Addr[L] = uint32_t(Base + 4 * L);
  if (!ldsPlan(W, P, 4, Write))
    return;
  notePlan(W, I, P, 4, Write, false);
  if constexpr (Write)
    storeLanes<B32>(W, W.vectorIndex(I.Src[0]), P);
  else
    loadLanes<B32>(W, W.vectorIndex(I.Dst[0]), P, W.exec());
  countBytes(W, I, uint64_t(std::popcount(P.Mask)) * 4);
}

/// The lane ds_swizzle_b32 lane \p L reads for pattern \p Pat (the ISA's
/// four modes: FFT, rotate, quad permute, and-or-xor masks within 32).
unsigned swizzleSource(uint32_t Pat, unsigned L) {
  unsigned Half = L & 32, I = L & 31;
  if (Pat >= 0xe000) {
    unsigned Mask = Pat & 31;
    unsigned J = (__builtin_bitreverse32(I) >> 27) >> std::popcount(Mask);
    return (J | (I & Mask)) | Half;
  }
  if (Pat >= 0xc000) {
    unsigned Rot = (Pat >> 5) & 31, Mask = Pat & 31;
    if (Pat & 0x400)
      Rot = -Rot;
    return ((I & Mask) | ((I + Rot) & ~Mask & 31)) | Half;
  }
  if (Pat & 0x8000)
    return (L & ~3u) | ((Pat >> (2 * (L & 3))) & 3);
  unsigned And = Pat & 31, Or = (Pat >> 5) & 31, Xor = (Pat >> 10) & 31;
  return (((I & And) | Or) ^ Xor) | Half;
}

void dsSwizzle(Wave &W, const DecodedInst &I) {
  uint32_t Pat = uint32_t(I.Imm[0]) & 0xffff;
  uint64_t Exec = W.exec();
  const uint32_t *In = W.vgpr(W.vectorIndex(I.Src[0]));
  Lanes32 Out;
  for (unsigned L = 0; L < WaveSize; ++L) {
    unsigned J = swizzleSource(Pat, L);
    Out.V[L] = (Exec >> J) & 1 ? In[J] : 0;
  }
  writeVector32(W, I.Dst[0], Out.V, Exec);
}

/// ds_permute_b32 (forward: active lane L sends data to lane
/// (addr + offset) / 4 mod 64; the highest sender wins, unreached lanes get
/// zero) and ds_bpermute_b32 (backward: lane L reads that lane, zero if it
/// is disabled).
template <bool Backward> void dsPermute(Wave &W, const DecodedInst &I) {
  uint64_t Exec = W.exec();
  const uint32_t *Addr = W.vgpr(W.vectorIndex(I.Src[0]));
  const uint32_t *Data = W.vgpr(W.vectorIndex(I.Src[1]));
  uint32_t Off = uint32_t(I.Imm[0]);
  Lanes32 Out;
  if constexpr (Backward) {
    for (unsigned L = 0; L < WaveSize; ++L) {
      unsigned J = ((Addr[L] + Off) >> 2) & 63;
      Out.V[L] = (Exec >> J) & 1 ? Data[J] : 0;
    }
  } else {
    std::memset(Out.V, 0, sizeof(Out.V));
    forLanes(Exec, [&](unsigned L) {
      Out.V[((Addr[L] + Off) >> 2) & 63] = Data[L];
    });
  }
  writeVector32(W, I.Dst[0], Out.V, Exec);
}

void dsNop(Wave &, const DecodedInst &) {}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

/// Adds \p Name, and the "_vi_agpr" name the decoder gives the form with
/// AGPR data (its encoding suffix is not last there).
void add(HandlerTable &T, const std::string &Name, Handler H) {
  T.add(Name, H, MemFlags);
  T.add(Name + "_vi_agpr", H, MemFlags);
}

/// DS_<Op>_<Type> and DS_<Op>_RTN_<Type>.
template <class Op, typename T>
void addAtomic(HandlerTable &Tab, llvm::StringRef Name, llvm::StringRef Type,
               bool HasNoRet = true) {
  if (HasNoRet)
    add(Tab, ("DS_" + Name + "_" + Type).str(), dsAtomic<Op, T, false>);
  add(Tab, ("DS_" + Name + "_RTN_" + Type).str(), dsAtomic<Op, T, true>);
}

/// The 32- and 64-bit forms: <Op>_<Prefix>32 and <Op>_<Prefix>64.
template <class Op>
void addAtomic2(HandlerTable &Tab, llvm::StringRef Name,
                llvm::StringRef Prefix) {
  addAtomic<Op, uint32_t>(Tab, Name, (Prefix + "32").str());
  addAtomic<Op, uint64_t>(Tab, Name, (Prefix + "64").str());
}

} // namespace

void registerDsOps(HandlerTable &T) {
  add(T, "DS_READ_U8", dsRead<U8>);
  add(T, "DS_READ_I8", dsRead<I8>);
  add(T, "DS_READ_U16", dsRead<U16>);
  add(T, "DS_READ_I16", dsRead<I16>);
  add(T, "DS_READ_B32", dsRead<B32>);
  add(T, "DS_READ_B64", dsRead<B64>);
  add(T, "DS_READ_B96", dsRead<B96>);
  add(T, "DS_READ_B128", dsRead<B128>);
  add(T, "DS_READ_U8_D16", dsRead<U8D16>);
  add(T, "DS_READ_U8_D16_HI", dsRead<U8D16Hi>);
  add(T, "DS_READ_I8_D16", dsRead<I8D16>);
  add(T, "DS_READ_I8_D16_HI", dsRead<I8D16Hi>);
  add(T, "DS_READ_U16_D16", dsRead<B16D16>);
  add(T, "DS_READ_U16_D16_HI", dsRead<B16D16Hi>);
  add(T, "DS_READ2_B32", dsRead2<B32, 1>);
  add(T, "DS_READ2_B64", dsRead2<B64, 1>);
  add(T, "DS_READ2ST64_B32", dsRead2<B32, 64>);
  add(T, "DS_READ2ST64_B64", dsRead2<B64, 64>);

  add(T, "DS_WRITE_B8", dsWrite<S8>);
  add(T, "DS_WRITE_B16", dsWrite<S16>);
  add(T, "DS_WRITE_B8_D16_HI", dsWrite<S8Hi>);
  add(T, "DS_WRITE_B16_D16_HI", dsWrite<S16Hi>);
  add(T, "DS_WRITE_B32", dsWrite<B32>);
  add(T, "DS_WRITE_B64", dsWrite<B64>);
  add(T, "DS_WRITE_B96", dsWrite<B96>);
  add(T, "DS_WRITE_B128", dsWrite<B128>);
  add(T, "DS_WRITE2_B32", dsWrite2<B32, 1>);
  add(T, "DS_WRITE2_B64", dsWrite2<B64, 1>);
  add(T, "DS_WRITE2ST64_B32", dsWrite2<B32, 64>);
  add(T, "DS_WRITE2ST64_B64", dsWrite2<B64, 64>);

  using namespace atomic;
  addAtomic2<Add>(T, "ADD", "U");
  addAtomic2<Sub>(T, "SUB", "U");
  addAtomic2<RSub>(T, "RSUB", "U");
  addAtomic2<Inc>(T, "INC", "U");
  addAtomic2<Dec>(T, "DEC", "U");
  addAtomic2<SMin>(T, "MIN", "I");
  addAtomic2<SMax>(T, "MAX", "I");
  addAtomic2<UMin>(T, "MIN", "U");
  addAtomic2<UMax>(T, "MAX", "U");
  addAtomic2<And>(T, "AND", "B");
  addAtomic2<Or>(T, "OR", "B");
  addAtomic2<Xor>(T, "XOR", "B");
  addAtomic2<MskOr>(T, "MSKOR", "B");
  addAtomic2<CmpSt>(T, "CMPST", "B");
  addAtomic2<FCmpSt>(T, "CMPST", "F");
  addAtomic2<FMin>(T, "MIN", "F");
  addAtomic2<FMax>(T, "MAX", "F");
  addAtomic2<FAdd<false>>(T, "ADD", "F");
  addAtomic<Swap, uint32_t>(T, "WRXCHG", "B32", /*HasNoRet=*/false);
  addAtomic<Swap, uint64_t>(T, "WRXCHG", "B64", /*HasNoRet=*/false);
  addAtomic<Wrap, uint32_t>(T, "WRAP", "B32", /*HasNoRet=*/false);
  add(T, "DS_WRXCHG2_RTN_B32", dsWrxchg2<uint32_t, 1>);
  add(T, "DS_WRXCHG2_RTN_B64", dsWrxchg2<uint64_t, 1>);
  add(T, "DS_WRXCHG2ST64_RTN_B32", dsWrxchg2<uint32_t, 64>);
  add(T, "DS_WRXCHG2ST64_RTN_B64", dsWrxchg2<uint64_t, 64>);

  add(T, "DS_APPEND", dsAppend<false>);
  add(T, "DS_CONSUME", dsAppend<true>);
  add(T, "DS_READ_ADDTID_B32", dsAddTid<false>);
  add(T, "DS_WRITE_ADDTID_B32", dsAddTid<true>);
  add(T, "DS_SWIZZLE_B32", dsSwizzle);
  add(T, "DS_PERMUTE_B32", dsPermute<false>);
  add(T, "DS_BPERMUTE_B32", dsPermute<true>);
  add(T, "DS_NOP", dsNop);
}

} // namespace loom::emu
