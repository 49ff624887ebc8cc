//===- emu/ops/MatrixOps.cpp - MFMA, gfx90a matrix core operations --------===//
//
// gfx90a's matrix cores. Every V_MFMA_* computes, for each of its blocks b,
//   D[b] = A[b'] * B[b] + C[b],   A: M x K, B: K x N, C and D: M x N,
// with the matrices spread over the 64 lanes of the wave as ROCm's
// amd_matrix_instruction_calculator documents for CDNA2:
//
//  - A and B: lane L holds EPR consecutive k values, packed from the low bits
//    of one register (or of a register pair) up, of row i of A (column j of
//    B) of block b, where L = i + M * b + M * Blocks * (k / EPR);
//  - C and D: register r, lane L holds element (i, j) of block b with
//    j = L % N; rows go to registers in runs of 4 (32-bit results) or 1
//    (64-bit results), then to the next group of N lanes (see OutLayout).
//
// Modifiers (Imm[0..2], after the three sources):
//  - CBSZ/ABID: block ABID of every aligned group of 2^CBSZ blocks of A is
//    used by the whole group. CBSZ is clamped to log2(Blocks) and ABID to
//    its low CBSZ bits, so both are no-ops on single-block operations.
//  - BLGP: B is read from other lanes (broadcast of a 32- or 16-lane group,
//    or a rotation by 16). The F64 operations have no BLGP on gfx90a (gfx940
//    reuses the field as NEG), so it is ignored there.
//
// Numerics: the hardware's internal summation is not documented. Loom
// starts from C and adds the products with one fused multiply-add per k,
// in increasing k order, rounding to nearest even: in f32 for F32, F16 and
// BF16 inputs (F16 and BF16 products are exact in f32), in f64 for F64.
// I8 is exact int32 arithmetic that wraps. MI200 flushes subnormal inputs
// (A, B, C) and results of the F16 and BF16 operations to zero (AMD's
// "MI200 MFMA behavior specifics"); F32 and F64 keep subnormals. MODE's
// denormal and rounding fields do not apply to MFMA.
//
// EXEC: the matrix core works on the whole wave; MFMA reads and writes all
// 64 lanes whatever EXEC holds (the builtins are convergent for that
// reason). The AGPR moves (v_accvgpr_*) are ordinary masked moves, in
// LaneOps.cpp.
//
// Speed: the inner loop runs over the N lanes of one result row, the k loop
// around it, so each row stays in host vector registers. On x86-64 hosts
// with AVX2 and FMA the handlers are compiled a second time for them.
//
//===----------------------------------------------------------------------===//

#include "../Semantics.h"

#include <algorithm>
#include <array>
#include <cmath>

#if defined(__x86_64__) && defined(__clang__)
#define LOOM_MATRIX_FAST_TARGET 1
#endif

namespace loom::emu {
namespace {

#define MATRIX_INLINE inline __attribute__((always_inline))

// The k loop stays a loop so the row loop inside it is what vectorises:
// unrolled, clang vectorises the (reassociable) integer sums across k with
// lane gathers instead.
#if defined(__clang__)
#define MATRIX_K_LOOP _Pragma("clang loop unroll(disable) vectorize(disable)")
#else
#define MATRIX_K_LOOP
#endif

enum class Elem { F32, F16, BF16, I8, F64 };

/// What one input element type accumulates into.
template <Elem E> struct ElemInfo {
  using Acc = float;
  static constexpr unsigned Bits = E == Elem::F32 ? 32 : 16;
  static constexpr bool Flush = E != Elem::F32;
};
template <> struct ElemInfo<Elem::I8> {
  using Acc = uint32_t; // int32, wrapping
  static constexpr unsigned Bits = 8;
  static constexpr bool Flush = false;
};
template <> struct ElemInfo<Elem::F64> {
  using Acc = double;
  static constexpr unsigned Bits = 64;
  static constexpr bool Flush = false;
};

/// f32 subnormals become zeros of the same sign.
MATRIX_INLINE uint32_t flushF32(uint32_t Bits) {
  return (Bits & 0x7f800000u) ? Bits : Bits & 0x80000000u;
}

/// One element from the low bits of \p Raw. Written without branches so the
/// lane loops vectorise.
template <Elem E>
MATRIX_INLINE typename ElemInfo<E>::Acc decodeElem(uint32_t Raw) {
  if constexpr (E == Elem::F32) {
    return std::bit_cast<float>(Raw);
  } else if constexpr (E == Elem::F16) {
    uint32_t Sign = (Raw & 0x8000u) << 16;
    uint32_t Mag = Raw & 0x7fffu;
    uint32_t Bits = (Mag << 13) + 0x38000000u;         // rebias 15 -> 127
    Bits = Mag >= 0x7c00u ? Bits + 0x38000000u : Bits; // inf and NaN
    Bits = Mag < 0x0400u ? 0u : Bits;                  // subnormals flush
    return std::bit_cast<float>(Sign | Bits);
  } else if constexpr (E == Elem::BF16) {
    return std::bit_cast<float>(flushF32(Raw << 16));
  } else {
    static_assert(E == Elem::I8);
    return static_cast<uint32_t>(
        static_cast<int32_t>(static_cast<int8_t>(Raw)));
  }
}

MATRIX_INLINE float madd(float A, float B, float C) {
  return std::fma(A, B, C);
}
MATRIX_INLINE double madd(double A, double B, double C) {
  return std::fma(A, B, C);
}
MATRIX_INLINE uint32_t madd(uint32_t A, uint32_t B, uint32_t C) {
  return C + A * B;
}

/// Lane that BLGP pattern \p P reads B from for lane \p L.
constexpr unsigned blgpLane(unsigned L, unsigned P) {
  switch (P) {
  case 0:
    return L;
  case 1: // the low 32 lanes, broadcast
    return L & 31;
  case 2: // the high 32 lanes, broadcast
    return L | 32;
  case 3: // rotated down by 16
    return (L + 16) & 63;
  default: // 4..7: 16-lane group P - 4, broadcast
    return (P - 4) * 16 + (L & 15);
  }
}

/// blgpLane as a table. The lane loop gathers through it: clang 22 at -O3
/// miscompiles the switch inlined into an AVX2 lane loop (pattern 4 reads
/// lane L & 31).
struct BlgpTable {
  std::array<std::array<uint8_t, WaveSize>, 8> Lane{};
  constexpr BlgpTable() {
    for (unsigned P = 0; P < 8; ++P)
      for (unsigned L = 0; L < WaveSize; ++L)
        Lane[P][L] = static_cast<uint8_t>(blgpLane(L, P));
  }
};
constexpr BlgpTable Blgp;

/// Which block and row of the result each group of N lanes of each result
/// register holds.
struct RowId {
  uint8_t Block = 0, Row = 0;
};

template <unsigned M, unsigned N, unsigned Blocks, unsigned Height>
struct OutLayout {
  static constexpr unsigned Regs = M * N * Blocks / WaveSize;
  static constexpr unsigned Groups = WaveSize / N;
  std::array<RowId, Regs * Groups> Rows{};
  bool Valid = true;

  // The calculator's forward map: row i of block b starts at register
  //   b * (M * N / 64) + (i / (Height * Groups)) * Height + i % Height
  // and lane (b % PerReg) * N + ((i / Height) % Groups) * PerReg * N, where
  // PerReg = ceil(64 * Height / (M * N)) blocks share a register.
  constexpr OutLayout() {
    constexpr unsigned PerReg = (WaveSize * Height + M * N - 1) / (M * N);
    std::array<bool, Regs * Groups> Seen{};
    for (unsigned B = 0; B < Blocks; ++B)
      for (unsigned I = 0; I < M; ++I) {
        unsigned Reg = B * (M * N / WaveSize) +
                       (I / (Height * Groups)) * Height + I % Height;
        unsigned Lane = (B % PerReg) * N + ((I / Height) % Groups) * PerReg * N;
        unsigned Slot = Reg * Groups + Lane / N;
        if (Reg >= Regs || Lane % N || Seen[Slot]) {
          Valid = false;
          continue;
        }
        Seen[Slot] = true;
        Rows[Slot] = RowId{static_cast<uint8_t>(B), static_cast<uint8_t>(I)};
      }
  }
};

/// Decodes the EPR elements every lane holds of source \p Op.
template <Elem E, unsigned EPR>
MATRIX_INLINE void
decodeSource(const Wave &W, const Operand &Op,
             typename ElemInfo<E>::Acc (&Out)[EPR][WaveSize]) {
  constexpr unsigned Bits = ElemInfo<E>::Bits;
  constexpr unsigned Regs = (EPR * Bits + 31) / 32;
  Lanes32 Tmp[Regs];
  const uint32_t *R[Regs];
  for (unsigned I = 0; I < Regs; ++I)
    R[I] = readVector32(W, Op, Tmp[I], I);
  if constexpr (E == Elem::F64) {
    static_assert(EPR == 1);
    for (unsigned L = 0; L < WaveSize; ++L)
      Out[0][L] =
          std::bit_cast<double>(uint64_t(R[0][L]) | (uint64_t(R[1][L]) << 32));
  } else {
    for (unsigned Idx = 0; Idx < EPR; ++Idx) {
      const uint32_t *Word = R[Idx * Bits / 32];
      unsigned Shift = Idx * Bits % 32;
      for (unsigned L = 0; L < WaveSize; ++L)
        Out[Idx][L] = decodeElem<E>(Word[L] >> Shift);
    }
  }
}

/// Accumulator element \p V, with f32 subnormals flushed when \p Flush.
template <bool Flush, typename Acc> MATRIX_INLINE Acc accValue(Acc V) {
  if constexpr (Flush)
    return std::bit_cast<Acc>(flushF32(std::bit_cast<uint32_t>(V)));
  return V;
}

/// Lanes [Lane, Lane + Count) of accumulator register \p R of the range
/// starting at \p Regs (register pairs for 64-bit accumulators).
template <bool Flush, typename Acc, unsigned Count>
MATRIX_INLINE void loadRow(const uint32_t *Regs, unsigned R, unsigned Lane,
                           Acc (&Out)[Count]) {
  if constexpr (sizeof(Acc) == 8) {
    const uint32_t *Lo = Regs + 2 * R * WaveSize + Lane, *Hi = Lo + WaveSize;
    for (unsigned J = 0; J < Count; ++J)
      Out[J] = std::bit_cast<Acc>(uint64_t(Lo[J]) | (uint64_t(Hi[J]) << 32));
  } else {
    const uint32_t *Src = Regs + R * WaveSize + Lane;
    for (unsigned J = 0; J < Count; ++J)
      Out[J] = accValue<Flush>(std::bit_cast<Acc>(Src[J]));
  }
}

template <bool Flush, typename Acc, unsigned Count>
MATRIX_INLINE void storeRow(uint32_t *Regs, unsigned R, unsigned Lane,
                            const Acc (&In)[Count]) {
  if constexpr (sizeof(Acc) == 8) {
    uint32_t *Lo = Regs + 2 * R * WaveSize + Lane, *Hi = Lo + WaveSize;
    for (unsigned J = 0; J < Count; ++J) {
      uint64_t V = std::bit_cast<uint64_t>(In[J]);
      Lo[J] = static_cast<uint32_t>(V);
      Hi[J] = static_cast<uint32_t>(V >> 32);
    }
  } else {
    uint32_t *Dst = Regs + R * WaveSize + Lane;
    for (unsigned J = 0; J < Count; ++J)
      Dst[J] = std::bit_cast<uint32_t>(accValue<Flush>(In[J]));
  }
}

constexpr unsigned log2Of(unsigned V) {
  unsigned R = 0;
  while (V > 1) {
    V >>= 1;
    ++R;
  }
  return R;
}

/// The whole operation: dst, srcA, srcB, srcC; Imm = cbsz, abid, blgp.
template <Elem E, unsigned M, unsigned N, unsigned K, unsigned Blocks>
MATRIX_INLINE void mfmaBody(Wave &W, const DecodedInst &I) {
  using Info = ElemInfo<E>;
  using Acc = typename Info::Acc;
  constexpr unsigned KGroups = WaveSize / (M * Blocks); // lane groups along k
  constexpr unsigned EPR = K / KGroups;                 // k values per lane
  static_assert(M == N && KGroups * M * Blocks == WaveSize &&
                EPR * KGroups == K);
  using Layout = OutLayout<M, N, Blocks, sizeof(Acc) == 8 ? 1 : 4>;
  static constexpr Layout Out{};
  static_assert(Out.Valid, "result layout is not a bijection");
  constexpr unsigned Regs = Layout::Regs, Groups = Layout::Groups;
  constexpr unsigned Words = Regs * sizeof(Acc) / 4; // 32-bit registers

  // A and B are decoded first, so D may overlap them.
  alignas(64) Acc A[EPR][WaveSize], B[EPR][WaveSize];
  decodeSource<E, EPR>(W, I.Src[0], A);
  decodeSource<E, EPR>(W, I.Src[1], B);
  if constexpr (E != Elem::F64) {
    if (unsigned Pattern = static_cast<unsigned>(I.Imm[2]) & 7) {
      alignas(64) Acc Orig[EPR][WaveSize];
      std::memcpy(Orig, B, sizeof(B));
      const uint8_t *Src = Blgp.Lane[Pattern].data();
      for (unsigned Idx = 0; Idx < EPR; ++Idx)
        for (unsigned L = 0; L < WaveSize; ++L)
          B[Idx][L] = Orig[Idx][Src[L]];
    }
  }

  // Rows of C stream from its registers into the same rows of D. A C that
  // overlaps D without being D is copied first; a constant fills a copy.
  unsigned DBase = W.vectorIndex(I.Dst[0]);
  const Operand &COp = I.Src[2];
  alignas(64) uint32_t CCopy[Words][WaveSize];
  const uint32_t *CRegs = &CCopy[0][0];
  if (COp.isVector()) {
    unsigned CBase = W.vectorIndex(COp);
    if (CBase != DBase && CBase < DBase + Words && DBase < CBase + Words)
      std::memcpy(CCopy, W.vgpr(CBase), sizeof(CCopy));
    else
      CRegs = W.vgpr(CBase);
  } else {
    uint64_t V = sizeof(Acc) == 8 ? readScalar64(W, COp) : readScalar32(W, COp);
    for (unsigned R = 0; R < Words; ++R)
      for (unsigned L = 0; L < WaveSize; ++L)
        CCopy[R][L] =
            static_cast<uint32_t>(V >> (sizeof(Acc) == 8 ? 32 * (R & 1) : 0));
  }
  uint32_t *DRegs = W.vgpr(DBase);

  unsigned Cbsz =
      std::min<unsigned>(static_cast<unsigned>(I.Imm[0]) & 7, log2Of(Blocks));
  unsigned Abid = static_cast<unsigned>(I.Imm[1]) & ((1u << Cbsz) - 1);
  for (unsigned R = 0; R < Regs; ++R)
    for (unsigned G = 0; G < Groups; ++G) {
      RowId Id = Out.Rows[R * Groups + G];
      unsigned ABlock = ((Id.Block >> Cbsz) << Cbsz) + Abid;
      Acc Sum[N];
      loadRow<Info::Flush>(CRegs, R, G * N, Sum);
      MATRIX_K_LOOP
      for (unsigned Kk = 0; Kk < K; ++Kk) {
        Acc Av = A[Kk % EPR][ABlock * M + (Kk / EPR) * M * Blocks + Id.Row];
        const Acc *Bv = &B[Kk % EPR][Id.Block * N + (Kk / EPR) * N * Blocks];
        for (unsigned J = 0; J < N; ++J)
          Sum[J] = madd(Av, Bv[J], Sum[J]);
      }
      storeRow<Info::Flush>(DRegs, R, G * N, Sum);
    }
}

template <Elem E, unsigned M, unsigned N, unsigned K, unsigned Blocks>
void mfmaPortable(Wave &W, const DecodedInst &I) {
  mfmaBody<E, M, N, K, Blocks>(W, I);
}

#ifdef LOOM_MATRIX_FAST_TARGET
template <Elem E, unsigned M, unsigned N, unsigned K, unsigned Blocks>
__attribute__((target("avx2,fma"))) void mfmaFast(Wave &W,
                                                  const DecodedInst &I) {
  mfmaBody<E, M, N, K, Blocks>(W, I);
}
#endif

bool hostHasFma() {
#ifdef LOOM_MATRIX_FAST_TARGET
  static const bool Has =
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return Has;
#else
  return false;
#endif
}

template <Elem E, unsigned M, unsigned N, unsigned K, unsigned Blocks>
Handler mfma() {
#ifdef LOOM_MATRIX_FAST_TARGET
  if (hostHasFma())
    return mfmaFast<E, M, N, K, Blocks>;
#endif
  return mfmaPortable<E, M, N, K, Blocks>;
}

} // namespace

void registerMatrixOps(HandlerTable &T) {
  struct Op {
    const char *Name;
    Handler Fn;
  };
  const Op Ops[] = {
      {"V_MFMA_F32_32X32X1F32", mfma<Elem::F32, 32, 32, 1, 2>()},
      {"V_MFMA_F32_16X16X1F32", mfma<Elem::F32, 16, 16, 1, 4>()},
      {"V_MFMA_F32_4X4X1F32", mfma<Elem::F32, 4, 4, 1, 16>()},
      {"V_MFMA_F32_32X32X2F32", mfma<Elem::F32, 32, 32, 2, 1>()},
      {"V_MFMA_F32_16X16X4F32", mfma<Elem::F32, 16, 16, 4, 1>()},
      {"V_MFMA_F32_32X32X4F16", mfma<Elem::F16, 32, 32, 4, 2>()},
      {"V_MFMA_F32_16X16X4F16", mfma<Elem::F16, 16, 16, 4, 4>()},
      {"V_MFMA_F32_4X4X4F16", mfma<Elem::F16, 4, 4, 4, 16>()},
      {"V_MFMA_F32_32X32X8F16", mfma<Elem::F16, 32, 32, 8, 1>()},
      {"V_MFMA_F32_16X16X16F16", mfma<Elem::F16, 16, 16, 16, 1>()},
      {"V_MFMA_F32_32X32X2BF16", mfma<Elem::BF16, 32, 32, 2, 2>()},
      {"V_MFMA_F32_16X16X2BF16", mfma<Elem::BF16, 16, 16, 2, 4>()},
      {"V_MFMA_F32_4X4X2BF16", mfma<Elem::BF16, 4, 4, 2, 16>()},
      {"V_MFMA_F32_32X32X4BF16", mfma<Elem::BF16, 32, 32, 4, 1>()},
      {"V_MFMA_F32_16X16X8BF16", mfma<Elem::BF16, 16, 16, 8, 1>()},
      {"V_MFMA_F32_32X32X4BF16_1K", mfma<Elem::BF16, 32, 32, 4, 2>()},
      {"V_MFMA_F32_16X16X4BF16_1K", mfma<Elem::BF16, 16, 16, 4, 4>()},
      {"V_MFMA_F32_4X4X4BF16_1K", mfma<Elem::BF16, 4, 4, 4, 16>()},
      {"V_MFMA_F32_32X32X8BF16_1K", mfma<Elem::BF16, 32, 32, 8, 1>()},
      {"V_MFMA_F32_16X16X16BF16_1K", mfma<Elem::BF16, 16, 16, 16, 1>()},
      {"V_MFMA_I32_32X32X4I8", mfma<Elem::I8, 32, 32, 4, 2>()},
      {"V_MFMA_I32_16X16X4I8", mfma<Elem::I8, 16, 16, 4, 4>()},
      {"V_MFMA_I32_4X4X4I8", mfma<Elem::I8, 4, 4, 4, 16>()},
      {"V_MFMA_I32_32X32X8I8", mfma<Elem::I8, 32, 32, 8, 1>()},
      {"V_MFMA_I32_16X16X16I8", mfma<Elem::I8, 16, 16, 16, 1>()},
      {"V_MFMA_F64_16X16X4F64", mfma<Elem::F64, 16, 16, 4, 1>()},
      {"V_MFMA_F64_4X4X4F64", mfma<Elem::F64, 4, 4, 4, 4>()},
  };
  for (const Op &O : Ops)
    T.add(O.Name, O.Fn, FlagVector);
}

} // namespace loom::emu
