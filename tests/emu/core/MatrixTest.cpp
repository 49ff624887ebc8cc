//===- tests/emu/core/MatrixTest.cpp - MFMA and the AGPR moves ------------===//
//
// Every gfx90a V_MFMA_* in its VGPR (_vcd) and AGPR (_acd) forms, with the
// CBSZ/ABID/BLGP modifiers, constant accumulators and partial EXEC, run from
// kernels/matrix.s on register images the host fills. The host places and
// reads matrix elements with the per-instruction equations of ROCm's
// amd_matrix_instruction_calculator (CDNA2) and checks, per variant:
//
//  - SmallIntegers: integer-valued inputs whose products and sums are exact
//    in every type, against an exact reference: layouts and modifiers,
//    independent of summation order;
//  - RandomValues: random reals against a double-precision reference within
//    (K + 2) * u * (|c| + sum |a * b|), u the accumulator's unit roundoff
//    (2^-24 for f32, 2^-53 for f64): any summation order of K + 1 terms
//    with one rounding per step stays in this bound; int8 is exact;
//  - EdgeValues: inf, NaN, -0, subnormals and huge values, bit-exact (any
//    NaN matches any NaN) against the documented model: an fma chain from C
//    in increasing k order, with F16/BF16 subnormal inputs and results
//    flushed to zero.
//
// kernels/matrix.c checks the layouts once more through clang's builtins,
// with the equations written in device code, against a host matrix product.
//
//===----------------------------------------------------------------------===//

#include "loom/emu/Module.h"

#include <gtest/gtest.h>

#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace loom::emu;

namespace {

//===----------------------------------------------------------------------===//
// The operations and the host's model of their layouts
//===----------------------------------------------------------------------===//

enum class Ty { F32, F16, BF16, I8, F64 };

struct MfmaOp {
  const char *Name; // the fixture's variant prefix
  Ty In;
  unsigned M, N, K, Blocks;
};

const MfmaOp Ops[] = {
    {"f32_32x32x1f32", Ty::F32, 32, 32, 1, 2},
    {"f32_16x16x1f32", Ty::F32, 16, 16, 1, 4},
    {"f32_4x4x1f32", Ty::F32, 4, 4, 1, 16},
    {"f32_32x32x2f32", Ty::F32, 32, 32, 2, 1},
    {"f32_16x16x4f32", Ty::F32, 16, 16, 4, 1},
    {"f32_32x32x4f16", Ty::F16, 32, 32, 4, 2},
    {"f32_16x16x4f16", Ty::F16, 16, 16, 4, 4},
    {"f32_4x4x4f16", Ty::F16, 4, 4, 4, 16},
    {"f32_32x32x8f16", Ty::F16, 32, 32, 8, 1},
    {"f32_16x16x16f16", Ty::F16, 16, 16, 16, 1},
    {"f32_32x32x2bf16", Ty::BF16, 32, 32, 2, 2},
    {"f32_16x16x2bf16", Ty::BF16, 16, 16, 2, 4},
    {"f32_4x4x2bf16", Ty::BF16, 4, 4, 2, 16},
    {"f32_32x32x4bf16", Ty::BF16, 32, 32, 4, 1},
    {"f32_16x16x8bf16", Ty::BF16, 16, 16, 8, 1},
    {"f32_32x32x4bf16_1k", Ty::BF16, 32, 32, 4, 2},
    {"f32_16x16x4bf16_1k", Ty::BF16, 16, 16, 4, 4},
    {"f32_4x4x4bf16_1k", Ty::BF16, 4, 4, 4, 16},
    {"f32_32x32x8bf16_1k", Ty::BF16, 32, 32, 8, 1},
    {"f32_16x16x16bf16_1k", Ty::BF16, 16, 16, 16, 1},
    {"i32_32x32x4i8", Ty::I8, 32, 32, 4, 2},
    {"i32_16x16x4i8", Ty::I8, 16, 16, 4, 4},
    {"i32_4x4x4i8", Ty::I8, 4, 4, 4, 16},
    {"i32_32x32x8i8", Ty::I8, 32, 32, 8, 1},
    {"i32_16x16x16i8", Ty::I8, 16, 16, 16, 1},
    {"f64_16x16x4f64", Ty::F64, 16, 16, 4, 1},
    {"f64_4x4x4f64", Ty::F64, 4, 4, 4, 4},
};

unsigned bitsOf(Ty T) {
  switch (T) {
  case Ty::F32:
    return 32;
  case Ty::F16:
  case Ty::BF16:
    return 16;
  case Ty::I8:
    return 8;
  case Ty::F64:
    return 64;
  }
  return 0;
}

/// Register and lane positions, from the calculator's equations
/// ("--detail-instruction" output for CDNA2).
struct Layout {
  MfmaOp O;
  bool Wide;        // f64 accumulators
  unsigned EPR;     // k values per lane of A and B
  unsigned InRegs;  // registers of A (and of B)
  unsigned OutRegs; // 32-bit registers of C and D

  explicit Layout(const MfmaOp &Op) : O(Op), Wide(Op.In == Ty::F64) {
    EPR = O.M * O.K * O.Blocks / 64;
    InRegs = (EPR * bitsOf(O.In) + 31) / 32;
    OutRegs = O.M * O.N * O.Blocks / 64 * (Wide ? 2 : 1);
  }

  /// Lane of A[i][k] of block b (or of B[k][j]: pass j as Row):
  /// "M * block + M * blocks * floor(k / EPR) + i".
  unsigned inLane(unsigned Block, unsigned Row, unsigned K) const {
    return O.M * Block + O.M * O.Blocks * (K / EPR) + Row;
  }

  /// Register (32- or 64-bit units) and lane of D[i][j] of block b.
  void outPos(unsigned B, unsigned I, unsigned J, unsigned &Reg,
              unsigned &Lane) const {
    unsigned M = O.M, N = O.N;
    if (Wide) {
      // "[2*floor(i/4)+1 : 2*floor(i/4)]" (one block) or "[1:0]" (four);
      // lane "16 * (i % 4) + N * block + j".
      Reg = O.Blocks == 1 ? I / 4 : 0;
      Lane = 16 * (I % 4) + (M * N < 64 ? N * B : 0) + J;
      return;
    }
    if (M == 4)
      Reg = I;
    else if (M == 16)
      Reg = O.Blocks == 4 ? 4 * B + I % 4 : I % 4;
    else
      Reg = (O.Blocks == 2 ? 16 * B : 0) + 4 * (I / 8) + I % 4;
    Lane = J + (M * N < 64 ? N * B : 0);
    if (M * N / 4 > 64)
      Lane += (N * (I / 4)) % 64;
    else if (M * N / 4 == 64)
      Lane += N * (I / 4);
  }
};

/// Lane BLGP pattern \p P reads B from ("_get_blgp_transformed_lane").
unsigned blgpLane(unsigned L, unsigned P) {
  switch (P) {
  case 1:
    return L % 32;
  case 2:
    return L < 32 ? L + 32 : L;
  case 3:
    return (L + 16) % 64;
  case 4:
  case 5:
  case 6:
  case 7:
    return (P - 4) * 16 + L % 16;
  default:
    return L;
  }
}

//===----------------------------------------------------------------------===//
// Register images and element values
//===----------------------------------------------------------------------===//

/// Raw bits of element \p Sub of lane \p Lane of a register image.
uint64_t getRaw(const std::vector<uint32_t> &Img, unsigned Lane, unsigned Sub,
                unsigned Bits) {
  if (Bits == 64)
    return Img[Lane] | (uint64_t(Img[64 + Lane]) << 32);
  unsigned Bit = Sub * Bits;
  uint32_t Word = Img[(Bit / 32) * 64 + Lane];
  return (Word >> (Bit % 32)) & ((Bits == 32 ? 0 : (1u << Bits)) - 1);
}

void setRaw(std::vector<uint32_t> &Img, unsigned Lane, unsigned Sub,
            unsigned Bits, uint64_t Raw) {
  if (Bits == 64) {
    Img[Lane] = uint32_t(Raw);
    Img[64 + Lane] = uint32_t(Raw >> 32);
    return;
  }
  unsigned Bit = Sub * Bits;
  uint32_t &Word = Img[(Bit / 32) * 64 + Lane];
  uint32_t Mask = (Bits == 32 ? 0u : (1u << Bits)) - 1;
  Word = (Word & ~(Mask << (Bit % 32))) | (uint32_t(Raw) & Mask) << (Bit % 32);
}

float flushed(float F) {
  return std::fpclassify(F) == FP_SUBNORMAL ? std::copysign(0.0f, F) : F;
}

/// An input element as the accumulator sees it (F16/BF16 subnormals flush).
double inValue(Ty T, uint64_t Raw) {
  switch (T) {
  case Ty::F32:
    return std::bit_cast<float>(uint32_t(Raw));
  case Ty::F16: // subnormal halves are normal floats: test the raw bits
    return (Raw & 0x7c00) ? double(std::bit_cast<_Float16>(uint16_t(Raw)))
                          : ((Raw & 0x8000) ? -0.0 : 0.0);
  case Ty::BF16:
    return flushed(std::bit_cast<float>(uint32_t(Raw) << 16));
  case Ty::I8:
    return int8_t(Raw);
  case Ty::F64:
    return std::bit_cast<double>(Raw);
  }
  return 0;
}

uint64_t rawOf(Ty T, double V) {
  switch (T) {
  case Ty::F32:
    return std::bit_cast<uint32_t>(float(V));
  case Ty::F16:
    return std::bit_cast<uint16_t>(_Float16(V));
  case Ty::BF16:
    return std::bit_cast<uint32_t>(float(V)) >> 16; // exact for our values
  case Ty::I8:
    return uint8_t(int8_t(V));
  case Ty::F64:
    return std::bit_cast<uint64_t>(V);
  }
  return 0;
}

/// One variant of the fixture: an entry symbol and what it runs.
struct Variant {
  std::string Sym;
  unsigned OpIndex = 0;
  unsigned Cbsz = 0, Abid = 0, Blgp = 0;
  bool ConstC = false;
  uint64_t CValue = 0; // raw bits of the inline constant
  const MfmaOp &op() const { return Ops[OpIndex]; }
};

void PrintTo(const Variant &V, std::ostream *OS) { *OS << V.Sym; }

/// The op whose name is the longest prefix of \p Sym followed by '_'.
unsigned opOfSymbol(const std::string &Sym) {
  unsigned Best = 0;
  size_t BestLen = 0;
  for (unsigned I = 0; I < std::size(Ops); ++I) {
    std::string N = std::string(Ops[I].Name) + "_";
    if (Sym.rfind(N, 0) == 0 && N.size() > BestLen) {
      Best = I;
      BestLen = N.size();
    }
  }
  return Best;
}

std::vector<Variant> allVariants() {
  std::vector<Variant> V;
  auto Add = [&](std::string Sym) {
    Variant X;
    X.Sym = std::move(Sym);
    X.OpIndex = opOfSymbol(X.Sym);
    // "<op>_c<cbsz>a<abid>b<blgp>"
    size_t Pos = X.Sym.rfind("_c");
    if (Pos != std::string::npos && Pos >= std::strlen(X.op().Name))
      std::sscanf(X.Sym.c_str() + Pos, "_c%ua%ub%u", &X.Cbsz, &X.Abid, &X.Blgp);
    V.push_back(X);
    return &V.back();
  };
  for (const MfmaOp &O : Ops) {
    Add(std::string(O.Name) + "_v");
    Add(std::string(O.Name) + "_a");
  }
  for (const char *S :
       {"f32_32x32x1f32_c1a1b0",     "f32_16x16x1f32_c2a3b0",
        "f32_16x16x1f32_c1a1b0",     "f32_4x4x1f32_c4a9b0",
        "f32_4x4x1f32_c3a5b0",       "f32_4x4x1f32_c0a0b1",
        "f32_4x4x1f32_c0a0b2",       "f32_4x4x1f32_c0a0b3",
        "f32_4x4x1f32_c0a0b4",       "f32_4x4x1f32_c0a0b5",
        "f32_4x4x1f32_c0a0b6",       "f32_4x4x1f32_c0a0b7",
        "f32_4x4x1f32_c2a1b6",       "f32_32x32x8f16_c0a0b1",
        "f32_32x32x8f16_c0a0b2",     "f32_32x32x8f16_c0a0b3",
        "f32_32x32x8f16_c0a0b4",     "f32_32x32x8f16_c0a0b5",
        "f32_32x32x8f16_c0a0b6",     "f32_32x32x8f16_c0a0b7",
        "f32_32x32x8f16_c3a5b0",     "f32_4x4x4f16_c2a2b0",
        "f32_32x32x4f16_c1a1b3",     "f32_32x32x2bf16_c1a1b0",
        "f32_16x16x2bf16_c2a2b5",    "f32_4x4x4bf16_1k_c4a15b0",
        "f32_32x32x4bf16_1k_c0a0b5", "f32_16x16x4bf16_1k_c1a0b2",
        "i32_16x16x4i8_c1a1b0",      "i32_4x4x4i8_c3a6b4",
        "i32_16x16x16i8_c0a0b3",     "f32_16x16x4f32_c0a0b7",
        "f64_16x16x4f64_c0a0b7"})
    Add(S);
  struct Const {
    const char *Sym;
    uint64_t Raw;
  };
  for (Const C : {Const{"f32_32x32x8f16_k1p0", 0x3f800000},
                  Const{"f32_4x4x1f32_k4", 4}, // a subnormal as f32
                  Const{"i32_16x16x16i8_km7", uint32_t(-7)},
                  Const{"f64_16x16x4f64_km2p0", std::bit_cast<uint64_t>(-2.0)},
                  Const{"f64_4x4x4f64_k0p5", std::bit_cast<uint64_t>(0.5)}}) {
    Variant *X = Add(C.Sym);
    X->ConstC = true;
    X->CValue = C.Raw;
  }
  // MFMA ignores EXEC: same results as with every lane on.
  Add("f32_16x16x4f32_exec");
  Add("f32_32x32x8f16_exec0");
  return V;
}

/// Register images of A (2 registers), B (2) and C (32): the fixture's `in`.
struct Inputs {
  std::vector<uint32_t> A = std::vector<uint32_t>(2 * 64),
                        B = std::vector<uint32_t>(2 * 64),
                        C = std::vector<uint32_t>(32 * 64);
};

/// A C element as the accumulator sees it.
double cValue(const Variant &V, const Layout &L, const Inputs &In,
              unsigned Block, unsigned I, unsigned J) {
  uint64_t Raw = V.CValue;
  if (!V.ConstC) {
    unsigned Reg, Lane;
    L.outPos(Block, I, J, Reg, Lane);
    Raw = L.Wide ? In.C[2 * Reg * 64 + Lane] |
                       (uint64_t(In.C[(2 * Reg + 1) * 64 + Lane]) << 32)
                 : In.C[Reg * 64 + Lane];
  }
  switch (V.op().In) {
  case Ty::F64:
    return std::bit_cast<double>(Raw);
  case Ty::I8:
    return int32_t(Raw);
  case Ty::F32:
    return std::bit_cast<float>(uint32_t(Raw));
  default:
    return flushed(std::bit_cast<float>(uint32_t(Raw)));
  }
}

/// Calls \p F(block, i, j, c, a[k], b[k]) for every result element, with the
/// A and B values the modifiers select.
template <typename Fn>
void forEachResult(const Variant &V, const Inputs &In, Fn F) {
  const MfmaOp &O = V.op();
  Layout L(O);
  unsigned Bits = bitsOf(O.In);
  unsigned MaxCbsz = 0;
  while ((1u << (MaxCbsz + 1)) <= O.Blocks)
    ++MaxCbsz;
  unsigned Cbsz = std::min(V.Cbsz, MaxCbsz);
  unsigned Abid = V.Abid & ((1u << Cbsz) - 1);
  // gfx90a's F64 operations have no BLGP.
  unsigned Blgp = O.In == Ty::F64 ? 0 : V.Blgp;
  std::vector<double> Av(O.K), Bv(O.K);
  for (unsigned Blk = 0; Blk < O.Blocks; ++Blk) {
    unsigned ABlk = (Blk >> Cbsz << Cbsz) + Abid;
    for (unsigned I = 0; I < O.M; ++I)
      for (unsigned J = 0; J < O.N; ++J) {
        for (unsigned K = 0; K < O.K; ++K) {
          Av[K] = inValue(O.In,
                          getRaw(In.A, L.inLane(ABlk, I, K), K % L.EPR, Bits));
          Bv[K] =
              inValue(O.In, getRaw(In.B, blgpLane(L.inLane(Blk, J, K), Blgp),
                                   K % L.EPR, Bits));
        }
        F(Blk, I, J, cValue(V, L, In, Blk, I, J), Av, Bv);
      }
  }
}

/// The documented model: an fma chain from C in k order, F16/BF16 results
/// flushed. Returns D's register image.
std::vector<uint32_t> modelResult(const Variant &V, const Inputs &In) {
  const MfmaOp &O = V.op();
  Layout L(O);
  std::vector<uint32_t> D(L.OutRegs * 64);
  forEachResult(V, In,
                [&](unsigned Blk, unsigned I, unsigned J, double C,
                    const std::vector<double> &A,
                    const std::vector<double> &B) {
                  unsigned Reg, Lane;
                  L.outPos(Blk, I, J, Reg, Lane);
                  if (O.In == Ty::F64) {
                    double Acc = C;
                    for (unsigned K = 0; K < O.K; ++K)
                      Acc = std::fma(A[K], B[K], Acc);
                    uint64_t Bits = std::bit_cast<uint64_t>(Acc);
                    D[2 * Reg * 64 + Lane] = uint32_t(Bits);
                    D[(2 * Reg + 1) * 64 + Lane] = uint32_t(Bits >> 32);
                  } else if (O.In == Ty::I8) {
                    uint32_t Acc = uint32_t(int32_t(C));
                    for (unsigned K = 0; K < O.K; ++K)
                      Acc += uint32_t(int32_t(A[K])) * uint32_t(int32_t(B[K]));
                    D[Reg * 64 + Lane] = Acc;
                  } else {
                    float Acc = float(C);
                    for (unsigned K = 0; K < O.K; ++K)
                      Acc = std::fma(float(A[K]), float(B[K]), Acc);
                    if (O.In != Ty::F32)
                      Acc = flushed(Acc);
                    D[Reg * 64 + Lane] = std::bit_cast<uint32_t>(Acc);
                  }
                });
  return D;
}

//===----------------------------------------------------------------------===//
// Input generators
//===----------------------------------------------------------------------===//

using Rng = std::mt19937_64;

/// Fills A and B with raw elements from \p Gen, and C (32-bit or 64-bit
/// words, per the accumulator) from \p GenC.
template <typename GenIn, typename GenAcc>
Inputs makeInputs(const MfmaOp &O, GenIn Gen, GenAcc GenC) {
  Inputs In;
  Layout L(O);
  unsigned Bits = bitsOf(O.In);
  for (unsigned Lane = 0; Lane < 64; ++Lane)
    for (unsigned Sub = 0; Sub < L.EPR; ++Sub) {
      setRaw(In.A, Lane, Sub, Bits, Gen());
      setRaw(In.B, Lane, Sub, Bits, Gen());
    }
  for (unsigned Reg = 0; Reg < (L.Wide ? 16u : 32u); ++Reg)
    for (unsigned Lane = 0; Lane < 64; ++Lane) {
      uint64_t C = GenC();
      if (L.Wide) {
        In.C[2 * Reg * 64 + Lane] = uint32_t(C);
        In.C[(2 * Reg + 1) * 64 + Lane] = uint32_t(C >> 32);
      } else {
        In.C[Reg * 64 + Lane] = uint32_t(C);
      }
    }
  return In;
}

uint64_t accRaw(Ty T, double V) {
  if (T == Ty::F64)
    return std::bit_cast<uint64_t>(V);
  if (T == Ty::I8)
    return uint32_t(int32_t(V));
  return std::bit_cast<uint32_t>(float(V));
}

Inputs smallIntegers(const MfmaOp &O, Rng &R) {
  if (O.In == Ty::I8)
    return makeInputs(
        O, [&] { return R() & 0xff; }, [&] { return R() & 0xffffffffu; });
  std::uniform_int_distribution<int> Small(-4, 4), Acc(-100, 100);
  return makeInputs(
      O, [&] { return rawOf(O.In, Small(R)); },
      [&] { return accRaw(O.In, Acc(R)); });
}

Inputs randomValues(const MfmaOp &O, Rng &R) {
  if (O.In == Ty::I8)
    return smallIntegers(O, R);
  std::uniform_real_distribution<double> U(-2, 2);
  return makeInputs(
      O,
      [&] {
        double V = U(R);
        // bf16: truncate an f32 (rawOf keeps the high half).
        return rawOf(O.In, O.In == Ty::F64 ? V : double(float(V)));
      },
      [&] { return accRaw(O.In, U(R)); });
}

Inputs edgeValues(const MfmaOp &O, Rng &R) {
  std::vector<uint64_t> In, Acc;
  switch (O.In) {
  case Ty::F32:
    In = {0x7f800000, 0xff800000, 0x7fc00000, 0x80000000,
          0x00000001, 0x807fffff, 0x7f7fffff, 0x0d800000 /* 2^-100 */};
    break;
  case Ty::F16:
    In = {0x7c00, 0xfc00, 0x7e00, 0x8000, 0x0001, 0x83ff, 0x7bff, 0x0400};
    break;
  case Ty::BF16:
    In = {0x7f80, 0xff80, 0x7fc0, 0x8000, 0x0001, 0x807f, 0x7f7f, 0x0080};
    break;
  case Ty::I8:
    In = {0x80, 0x7f, 0xff, 0x00, 0x01};
    break;
  case Ty::F64:
    In = {0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000000,
          0x8000000000000000, 0x0000000000000001, 0x800fffffffffffff,
          0x7fefffffffffffff, 0x1ff0000000000000 /* 2^-512 */};
    break;
  }
  if (O.In == Ty::F64)
    Acc = {0x7ff0000000000000, 0x7ff8000000000000, 0x8000000000000000,
           0x0000000000000003, 0x7fefffffffffffff, 0xffefffffffffffff};
  else if (O.In == Ty::I8)
    Acc = {0x7fffffff, 0x80000000, 0xffffffff, 0x7ffffff0};
  else
    Acc = {0x7f800000, 0x7fc00000, 0x80000000, 0x00000001,
           0x807ffffe, 0x7f7fffff, 0xff7fffff};
  Rng &G = R;
  Inputs Rand = randomValues(O, G);
  unsigned Bits = bitsOf(O.In);
  Layout L(O);
  // A quarter of the elements special, the rest random.
  auto Pick = [&](const std::vector<uint64_t> &From, uint64_t Else) {
    return G() % 4 == 0 ? From[G() % From.size()] : Else;
  };
  Inputs Out = Rand;
  for (unsigned Lane = 0; Lane < 64; ++Lane)
    for (unsigned Sub = 0; Sub < L.EPR; ++Sub) {
      setRaw(Out.A, Lane, Sub, Bits, Pick(In, getRaw(Rand.A, Lane, Sub, Bits)));
      setRaw(Out.B, Lane, Sub, Bits, Pick(In, getRaw(Rand.B, Lane, Sub, Bits)));
    }
  for (unsigned Reg = 0; Reg < (L.Wide ? 16u : 32u); ++Reg)
    for (unsigned Lane = 0; Lane < 64; ++Lane) {
      if (L.Wide) {
        uint64_t Old = Rand.C[2 * Reg * 64 + Lane] |
                       (uint64_t(Rand.C[(2 * Reg + 1) * 64 + Lane]) << 32);
        uint64_t C = Pick(Acc, Old);
        Out.C[2 * Reg * 64 + Lane] = uint32_t(C);
        Out.C[(2 * Reg + 1) * 64 + Lane] = uint32_t(C >> 32);
      } else {
        Out.C[Reg * 64 + Lane] = uint32_t(Pick(Acc, Rand.C[Reg * 64 + Lane]));
      }
    }
  return Out;
}

//===----------------------------------------------------------------------===//
// Running the fixture
//===----------------------------------------------------------------------===//

struct Fixture {
  std::unique_ptr<Device> Dev;
  std::unique_ptr<Module> Asm;
  std::string Error;

  static Fixture &get() {
    static Fixture F = [] {
      Fixture F;
      auto D = Device::create();
      if (!D) {
        F.Error = llvm::toString(D.takeError());
        return F;
      }
      F.Dev = std::move(*D);
      auto M = Module::loadFile(*F.Dev,
                                std::string(LOOM_EMU_CORE_DIR) + "/matrix.elf");
      if (!M) {
        F.Error = llvm::toString(M.takeError());
        return F;
      }
      F.Asm = std::move(*M);
      return F;
    }();
    return F;
  }
};

/// Runs variant \p Sym of mfma_run on \p In over \p Waves one-wave groups
/// and returns the first \p OutRegs registers it stores.
std::vector<uint32_t> runVariant(const std::string &Sym, const Inputs &In,
                                 unsigned OutRegs, uint32_t Count = 0,
                                 unsigned Waves = 1,
                                 double *Seconds = nullptr) {
  Fixture &F = Fixture::get();
  EXPECT_TRUE(F.Error.empty()) << F.Error;
  if (!F.Error.empty())
    return {};
  std::optional<uint64_t> Entry = F.Asm->symbolAddress(Sym);
  EXPECT_TRUE(Entry.has_value()) << "no variant " << Sym;
  if (!Entry)
    return {};
  DeviceBuffer InBuf(*F.Dev, 36 * 64 * 4), OutBuf(*F.Dev, 32 * 64 * 4);
  auto *P = InBuf.data<uint32_t>();
  std::memcpy(P, In.A.data(), 2 * 256);
  std::memcpy(P + 128, In.B.data(), 2 * 256);
  std::memcpy(P + 256, In.C.data(), 32 * 256);
  std::memset(OutBuf.data(), 0xcd, OutBuf.size());
  auto Start = std::chrono::steady_clock::now();
  auto R = F.Asm->launch("mfma_run", LaunchConfig::linear(64 * Waves, 64),
                         KernelArgs()
                             .add(InBuf.address())
                             .add(OutBuf.address())
                             .add(*Entry)
                             .add(Count));
  if (Seconds)
    *Seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
            .count();
  EXPECT_TRUE(bool(R)) << llvm::toString(R.takeError());
  if (!R)
    return {};
  EXPECT_TRUE(R->ok()) << Sym << ": " << R->FirstFault.Message;
  const uint32_t *Out = OutBuf.data<uint32_t>();
  return std::vector<uint32_t>(Out, Out + OutRegs * 64);
}

bool isNan(const MfmaOp &O, uint64_t Raw) {
  if (O.In == Ty::F64)
    return std::isnan(std::bit_cast<double>(Raw));
  if (O.In == Ty::I8)
    return false;
  return std::isnan(std::bit_cast<float>(uint32_t(Raw)));
}

/// Compares result images element by element, any NaN matching any NaN.
void expectSameResults(const Variant &V, const std::vector<uint32_t> &Want,
                       const std::vector<uint32_t> &Got, const char *What) {
  const MfmaOp &O = V.op();
  Layout L(O);
  ASSERT_EQ(Got.size(), Want.size());
  unsigned Bad = 0;
  for (unsigned Blk = 0; Blk < O.Blocks; ++Blk)
    for (unsigned I = 0; I < O.M; ++I)
      for (unsigned J = 0; J < O.N; ++J) {
        unsigned Reg, Lane;
        L.outPos(Blk, I, J, Reg, Lane);
        auto Get = [&](const std::vector<uint32_t> &Img) {
          return L.Wide ? Img[2 * Reg * 64 + Lane] |
                              (uint64_t(Img[(2 * Reg + 1) * 64 + Lane]) << 32)
                        : uint64_t(Img[Reg * 64 + Lane]);
        };
        uint64_t W = Get(Want), G = Get(Got);
        if (W == G || (isNan(O, W) && isNan(O, G)))
          continue;
        if (++Bad <= 5)
          ADD_FAILURE() << V.Sym << " " << What << ": D[" << Blk << "][" << I
                        << "][" << J << "] (reg " << Reg << ", lane " << Lane
                        << ") is 0x" << std::hex << G << ", want 0x" << W;
      }
  EXPECT_EQ(Bad, 0u) << V.Sym << " " << What;
}

class MfmaVariantTest : public ::testing::TestWithParam<Variant> {};

TEST_P(MfmaVariantTest, SmallIntegers) {
  const Variant &V = GetParam();
  Rng R(std::hash<std::string>()(V.Sym));
  Inputs In = smallIntegers(V.op(), R);
  // Exact reference: products and sums of integers well inside the type's
  // exact range (int8: wrapping int32), plus a constant C (0.5, or a
  // subnormal with one product: rounded once).
  Layout L(V.op());
  std::vector<uint32_t> Want(L.OutRegs * 64);
  forEachResult(
      V, In,
      [&](unsigned Blk, unsigned I, unsigned J, double C,
          const std::vector<double> &A, const std::vector<double> &B) {
        long double Sum = C;
        int64_t IntSum = V.op().In == Ty::I8 ? int64_t(C) : 0;
        for (unsigned K = 0; K < V.op().K; ++K) {
          Sum += (long double)A[K] * B[K];
          IntSum += int64_t(A[K]) * int64_t(B[K]);
        }
        unsigned Reg, Lane;
        L.outPos(Blk, I, J, Reg, Lane);
        if (L.Wide) {
          uint64_t Bits = std::bit_cast<uint64_t>(double(Sum));
          Want[2 * Reg * 64 + Lane] = uint32_t(Bits);
          Want[(2 * Reg + 1) * 64 + Lane] = uint32_t(Bits >> 32);
        } else {
          Want[Reg * 64 + Lane] = V.op().In == Ty::I8
                                      ? uint32_t(IntSum)
                                      : std::bit_cast<uint32_t>(float(Sum));
        }
      });
  expectSameResults(V, Want, runVariant(V.Sym, In, L.OutRegs),
                    "small integers");
}

TEST_P(MfmaVariantTest, RandomValues) {
  const Variant &V = GetParam();
  const MfmaOp &O = V.op();
  Rng R(std::hash<std::string>()(V.Sym) + 1);
  Inputs In = randomValues(O, R);
  Layout L(O);
  std::vector<uint32_t> Got = runVariant(V.Sym, In, L.OutRegs);
  ASSERT_EQ(Got.size(), L.OutRegs * 64);
  double U = O.In == Ty::F64 ? std::ldexp(1.0, -53) : std::ldexp(1.0, -24);
  unsigned Bad = 0;
  forEachResult(V, In,
                [&](unsigned Blk, unsigned I, unsigned J, double C,
                    const std::vector<double> &A,
                    const std::vector<double> &B) {
                  long double Exact = C, Mag = std::fabs(C);
                  for (unsigned K = 0; K < O.K; ++K) {
                    Exact += (long double)A[K] * B[K];
                    Mag += std::fabs((long double)A[K] * B[K]);
                  }
                  unsigned Reg, Lane;
                  L.outPos(Blk, I, J, Reg, Lane);
                  double G;
                  if (L.Wide)
                    G = std::bit_cast<double>(
                        Got[2 * Reg * 64 + Lane] |
                        (uint64_t(Got[(2 * Reg + 1) * 64 + Lane]) << 32));
                  else if (O.In == Ty::I8)
                    G = int32_t(Got[Reg * 64 + Lane]);
                  else
                    G = std::bit_cast<float>(Got[Reg * 64 + Lane]);
                  double Tol = O.In == Ty::I8 ? 0 : double((O.K + 2) * U * Mag);
                  if (O.In == Ty::I8)
                    Exact = int32_t(uint32_t(int64_t(Exact)));
                  if (std::fabs(double(G - Exact)) > Tol && ++Bad <= 5)
                    ADD_FAILURE() << V.Sym << ": D[" << Blk << "][" << I << "]["
                                  << J << "] = " << G << ", exact "
                                  << double(Exact) << ", tolerance " << Tol;
                });
  EXPECT_EQ(Bad, 0u);
}

TEST_P(MfmaVariantTest, EdgeValues) {
  const Variant &V = GetParam();
  Rng R(std::hash<std::string>()(V.Sym) + 2);
  Inputs In = edgeValues(V.op(), R);
  Layout L(V.op());
  expectSameResults(V, modelResult(V, In), runVariant(V.Sym, In, L.OutRegs),
                    "edge values");
}

INSTANTIATE_TEST_SUITE_P(Matrix, MfmaVariantTest,
                         ::testing::ValuesIn(allVariants()),
                         [](const auto &Info) { return Info.param.Sym; });

//===----------------------------------------------------------------------===//
// Targeted checks
//===----------------------------------------------------------------------===//

Variant plain(const char *Sym) {
  Variant V;
  V.Sym = Sym;
  V.OpIndex = opOfSymbol(Sym);
  return V;
}

/// Fills every element of A, B and every C word with one value.
Inputs uniform(const MfmaOp &O, uint64_t A, uint64_t B, uint64_t C) {
  return makeInputs(
      O, [&, N = 0]() mutable { return N++ % 2 ? B : A; }, [&] { return C; });
}

TEST(MatrixTest, HalfPrecisionOperationsFlushSubnormals) {
  // f16 2^-24 (subnormal) * 16384: 2^-10 if kept; flushed, D = C, and a
  // subnormal C flushes to +0.
  Variant H = plain("f32_32x32x8f16_v");
  for (uint32_t D :
       runVariant(H.Sym, uniform(H.op(), 0x0001, 0x7400, 0x10), 16))
    ASSERT_EQ(D, 0u);
  // bf16 2^-133 (subnormal) * 2^32: flushed, D = C = 1.5.
  Variant B = plain("f32_16x16x16bf16_1k_v");
  for (uint32_t D :
       runVariant(B.Sym, uniform(B.op(), 0x0001, 0x4f80, 0x3fc00000), 4))
    ASSERT_EQ(D, 0x3fc00000u);
  // A result that underflows: 2^-70 * 2^-70 per k, 16 k, into C = 0.
  for (uint32_t D : runVariant(B.Sym, uniform(B.op(), 0x1c80, 0x1c80, 0), 4))
    ASSERT_EQ(D, 0u);
}

TEST(MatrixTest, SinglePrecisionOperationsKeepSubnormals) {
  // f32: 2^-149 * 1.0 per k (4 of them) + C = 2 * 2^-149: 6 * 2^-149.
  Variant F = plain("f32_16x16x4f32_v");
  for (uint32_t D :
       runVariant(F.Sym, uniform(F.op(), 0x00000001, 0x3f800000, 2), 4))
    ASSERT_EQ(D, 6u);
  // f64: the same with the smallest double subnormal.
  Variant G = plain("f64_16x16x4f64_v");
  std::vector<uint32_t> Out =
      runVariant(G.Sym, uniform(G.op(), 1, std::bit_cast<uint64_t>(1.0), 2), 8);
  ASSERT_EQ(Out.size(), 8u * 64);
  for (unsigned R = 0; R < 4; ++R)
    for (unsigned L = 0; L < 64; ++L) {
      ASSERT_EQ(Out[2 * R * 64 + L], 6u);
      ASSERT_EQ(Out[(2 * R + 1) * 64 + L], 0u);
    }
}

TEST(MatrixTest, IntegerAccumulationWraps) {
  // 127 * 127 * 16 + INT_MAX wraps around.
  Variant V = plain("i32_16x16x16i8_v");
  uint32_t Want = uint32_t(0x7fffffff) + 127u * 127u * 16u;
  for (uint32_t D :
       runVariant(V.Sym, uniform(V.op(), 0x7f, 0x7f, 0x7fffffff), 4))
    ASSERT_EQ(D, Want);
  // -128 * -128 * 8 = 2^17 added to INT_MIN.
  Variant W = plain("i32_32x32x8i8_v");
  for (uint32_t D :
       runVariant(W.Sym, uniform(W.op(), 0x80, 0x80, 0x80000000), 16))
    ASSERT_EQ(D, 0x80000000u + (1u << 17));
}

TEST(MatrixTest, AgprMovesHonourExec) {
  Rng R(7);
  Inputs In;
  for (auto *Img : {&In.A, &In.B, &In.C})
    for (uint32_t &W : *Img)
      W = uint32_t(R());
  std::vector<uint32_t> Out = runVariant("acc_moves", In, 4);
  ASSERT_EQ(Out.size(), 4u * 64);
  uint64_t Exec = 0x0f0f3c01ull | (0x80000ff0ull << 32);
  for (unsigned L = 0; L < 64; ++L) {
    bool On = (Exec >> L) & 1;
    auto C = [&](unsigned Reg) { return In.C[Reg * 64 + L]; };
    EXPECT_EQ(Out[L], On ? In.A[L] : C(0)) << "write from v2, lane " << L;
    EXPECT_EQ(Out[64 + L], On ? uint32_t(-3) : C(1)) << "write -3, lane " << L;
    EXPECT_EQ(Out[128 + L], On ? C(3) : C(2)) << "mov a3, lane " << L;
    EXPECT_EQ(Out[192 + L], On ? C(3) : C(4)) << "read a3, lane " << L;
  }
}

TEST(MatrixTest, LoopOfMfmasAccumulates) {
  // D = C + n * A * B, exact in small integers; reports wave-MFMAs/s.
  Variant V = plain("f32_32x32x8f16_v");
  std::uniform_int_distribution<int> Small(-1, 1);
  Rng R(11);
  Inputs In = makeInputs(
      V.op(), [&] { return rawOf(Ty::F16, Small(R)); },
      [&] { return accRaw(Ty::F32, Small(R) * 100); });
  const uint32_t Count = 2000;
  const unsigned Waves = 32;
  double Seconds = 0;
  std::vector<uint32_t> Got =
      runVariant("mfma_loop", In, 16, Count, Waves, &Seconds);
  Layout L(V.op());
  std::vector<uint32_t> Want(16 * 64);
  forEachResult(
      V, In,
      [&](unsigned Blk, unsigned I, unsigned J, double C,
          const std::vector<double> &A, const std::vector<double> &B) {
        double Sum = 0;
        for (unsigned K = 0; K < 8; ++K)
          Sum += A[K] * B[K];
        unsigned Reg, Lane;
        L.outPos(Blk, I, J, Reg, Lane);
        Want[Reg * 64 + Lane] = std::bit_cast<uint32_t>(float(C + Count * Sum));
      });
  expectSameResults(V, Want, Got, "loop");
  std::printf("[ MFMA     ] v_mfma_f32_32x32x8f16: %.2f M wave-instructions/s "
              "(%u waves x %u in %.3f s)\n",
              Waves * double(Count) / Seconds / 1e6, Waves, Count, Seconds);
}

//===----------------------------------------------------------------------===//
// Clang's builtins (kernels/matrix.c)
//===----------------------------------------------------------------------===//

struct BuiltinTest : ::testing::TestWithParam<int> {
  void SetUp() override {
    Fixture &F = Fixture::get();
    ASSERT_TRUE(F.Error.empty()) << F.Error;
    auto M =
        Module::loadFile(*F.Dev, std::string(LOOM_EMU_CORE_DIR) + "/matrix.O" +
                                     std::to_string(GetParam()) + ".elf");
    ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
    Mod = std::move(*M);
  }

  /// Runs \p Kernel(A, B, C, D) on one wave with row-major [block][row][col]
  /// matrices and checks D = A * B + C exactly (small integers).
  template <typename In, typename Acc>
  void check(const char *Kernel, unsigned M, unsigned N, unsigned K,
             unsigned Blocks) {
    Fixture &F = Fixture::get();
    Rng R(M * 1000 + K * 10 + Blocks);
    std::uniform_int_distribution<int> Small(-4, 4), Big(-100, 100);
    DeviceBuffer A(*F.Dev, Blocks * M * K * sizeof(In)),
        B(*F.Dev, Blocks * K * N * sizeof(In)),
        C(*F.Dev, Blocks * M * N * sizeof(Acc)),
        D(*F.Dev, Blocks * M * N * sizeof(Acc));
    for (unsigned I = 0; I < Blocks * M * K; ++I)
      A.data<In>()[I] = make<In>(Small(R));
    for (unsigned I = 0; I < Blocks * K * N; ++I)
      B.data<In>()[I] = make<In>(Small(R));
    for (unsigned I = 0; I < Blocks * M * N; ++I)
      C.data<Acc>()[I] = Acc(Big(R));
    auto Res = Mod->launch(Kernel, LaunchConfig::linear(64, 64),
                           KernelArgs()
                               .add(A.address())
                               .add(B.address())
                               .add(C.address())
                               .add(D.address()));
    ASSERT_TRUE(bool(Res)) << llvm::toString(Res.takeError());
    // Other families' instructions may not be emulated yet.
    if (Res->Status == DispatchStatus::IllegalInstruction &&
        Res->FirstFault.Instruction.find("mfma") == std::string::npos &&
        Res->FirstFault.Instruction.find("accvgpr") == std::string::npos)
      GTEST_SKIP() << Kernel << " needs " << Res->FirstFault.Instruction;
    ASSERT_TRUE(Res->ok()) << Res->FirstFault.Message;
    for (unsigned Blk = 0; Blk < Blocks; ++Blk)
      for (unsigned I = 0; I < M; ++I)
        for (unsigned J = 0; J < N; ++J) {
          double Sum = double(C.data<Acc>()[(Blk * M + I) * N + J]);
          for (unsigned Kk = 0; Kk < K; ++Kk)
            Sum += value(A.data<In>()[(Blk * M + I) * K + Kk]) *
                   value(B.data<In>()[(Blk * K + Kk) * N + J]);
          ASSERT_EQ(double(D.data<Acc>()[(Blk * M + I) * N + J]), Sum)
              << Kernel << " D[" << Blk << "][" << I << "][" << J << "]";
        }
  }

  template <typename T> static T make(int V) {
    if constexpr (std::is_same_v<T, uint16_t>) // bf16 bits
      return uint16_t(std::bit_cast<uint32_t>(float(V)) >> 16);
    else
      return T(V);
  }
  template <typename T> static double value(T V) {
    if constexpr (std::is_same_v<T, uint16_t>)
      return std::bit_cast<float>(uint32_t(V) << 16);
    else
      return double(V);
  }

  std::unique_ptr<Module> Mod;
};

TEST_P(BuiltinTest, F16) {
  check<_Float16, float>("mm_32x32x8f16", 32, 32, 8, 1);
  check<_Float16, float>("mm_16x16x16f16", 16, 16, 16, 1);
}
TEST_P(BuiltinTest, F32) {
  check<float, float>("mm_32x32x2f32", 32, 32, 2, 1);
  check<float, float>("mm_16x16x4f32", 16, 16, 4, 1);
  check<float, float>("mm_4x4x1f32", 4, 4, 1, 16);
}
TEST_P(BuiltinTest, I8) {
  check<int8_t, int32_t>("mm_32x32x8i8", 32, 32, 8, 1);
}
TEST_P(BuiltinTest, BF16) {
  check<uint16_t, float>("mm_32x32x4bf16_1k", 32, 32, 4, 2);
}
TEST_P(BuiltinTest, F64) {
  check<double, double>("mm_16x16x4f64", 16, 16, 4, 1);
  check<double, double>("mm_4x4x4f64", 4, 4, 4, 4);
}

INSTANTIATE_TEST_SUITE_P(OptLevels, BuiltinTest, ::testing::Values(0, 2),
                         [](const auto &Info) {
                           return "O" + std::to_string(Info.param);
                         });

} // namespace
