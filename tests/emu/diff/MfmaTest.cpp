//===- MfmaTest.cpp - MFMA through its builtins ---------------------------===//
//
// Register layouts of gfx90a (CDNA2) MFMA operands, as given by AMD's matrix
// instruction calculator for gfx9-family matrix cores:
//
//  Inputs, for an M x K block-matrix A (B: N x K, its columns in place of
//  A's rows), B blocks: each lane holds E = K / (64 / (M * B)) consecutive
//  k values (one register for E = 1 with 32-bit types, packed 16- or 8-bit
//  values otherwise); element (i, k) of block b is item k % E of lane
//  i + M * (b + B * (k / E)).
//
//  Outputs, M x N per block, 32-bit: rows go in groups of H = 4 registers,
//  R = 64 / N groups across the lanes, P = ceil(64 / (M * N / 4)) blocks
//  side by side in a register. Element (i, j) of block b is in register
//  b * (M * N / 64) + (i / (4 * R)) * 4 + i % 4, lane
//  (b % P) * N + ((i / 4) % R) * P * N + j. 64-bit outputs: the same with
//  H = 1 (one register pair per row group).
//
// Operands are small integers (halves for f64), so every product and sum
// is exact in any order and the result is unique.
//
//===----------------------------------------------------------------------===//
#include "DiffHarness.h"

#include <cmath>
#include <cstring>

using namespace loom::emu;
using namespace loom::emu::difftest;

namespace {

enum class In { F32, F16, BF16, I8, F64 };

struct Shape {
  const char *Name; // the builtin's suffix, and the kernel's
  unsigned M, N, K, Blocks;
  In Type;

  unsigned inBytes() const {
    switch (Type) {
    case In::F32:
    case In::I8:
      return 4;
    default:
      return 8;
    }
  }
  /// Input items per lane.
  unsigned perLane() const { return K / (64 / (M * Blocks)); }
  bool out64() const { return Type == In::F64; }
  /// Accumulator elements per lane.
  unsigned regs() const { return M * N * Blocks / 64; }
};

const Shape Shapes[] = {
    // Shapes[4] is also the chained test's.
    {"f32_32x32x1f32", 32, 32, 1, 2, In::F32},
    {"f32_16x16x1f32", 16, 16, 1, 4, In::F32},
    {"f32_4x4x1f32", 4, 4, 1, 16, In::F32},
    {"f32_32x32x2f32", 32, 32, 2, 1, In::F32},
    {"f32_16x16x4f32", 16, 16, 4, 1, In::F32},
    {"f32_32x32x8f16", 32, 32, 8, 1, In::F16},
    {"f32_16x16x16f16", 16, 16, 16, 1, In::F16},
    {"f32_4x4x4f16", 4, 4, 4, 16, In::F16},
    {"i32_32x32x8i8", 32, 32, 8, 1, In::I8},
    {"i32_16x16x16i8", 16, 16, 16, 1, In::I8},
    {"i32_4x4x4i8", 4, 4, 4, 16, In::I8},
    {"f32_32x32x8bf16_1k", 32, 32, 8, 1, In::BF16},
    {"f32_16x16x16bf16_1k", 16, 16, 16, 1, In::BF16},
    {"f64_16x16x4f64", 16, 16, 4, 1, In::F64},
    {"f64_4x4x4f64", 4, 4, 4, 4, In::F64},
};

constexpr unsigned Waves = 2;

struct Slot {
  unsigned Lane, Item;
};
Slot inputSlot(const Shape &S, unsigned Rows, unsigned I, unsigned K, unsigned B) {
  unsigned E = S.perLane();
  return {I + Rows * (B + S.Blocks * (K / E)), K % E};
}
Slot outputSlot(const Shape &S, unsigned I, unsigned J, unsigned B) {
  unsigned H = S.out64() ? 1 : 4;
  unsigned R = 64 / S.N;
  unsigned P = (64 + S.M * S.N / H - 1) / (S.M * S.N / H);
  unsigned Reg = B * (S.M * S.N / 64) + (I / (H * R)) * H + I % H;
  unsigned Lane = (B % P) * S.N + ((I / H) % R) * P * S.N + J;
  return {Lane, Reg};
}

/// Input operand bytes of all lanes of all waves, and their values.
struct Operand {
  std::vector<uint8_t> Bytes;
  std::vector<double> Values; // [wave][lane][item]
};

Operand makeOperand(const Shape &S, Rng &R) {
  unsigned E = S.perLane();
  Operand O;
  O.Bytes.resize(size_t(Waves) * 64 * S.inBytes());
  O.Values.resize(size_t(Waves) * 64 * E);
  for (size_t L = 0; L < size_t(Waves) * 64; ++L)
    for (unsigned It = 0; It < E; ++It) {
      uint8_t *P = &O.Bytes[L * S.inBytes()];
      double V;
      switch (S.Type) {
      case In::F32: {
        float F = static_cast<float>(R.range(-8, 8));
        std::memcpy(P, &F, 4);
        V = F;
        break;
      }
      case In::F16: {
        _Float16 H = static_cast<_Float16>(R.range(-8, 8));
        std::memcpy(P + 2 * It, &H, 2);
        V = static_cast<double>(H);
        break;
      }
      case In::BF16: {
        float F = static_cast<float>(R.range(-8, 8));
        uint16_t Hi = static_cast<uint16_t>(diff::bitsOf(F) >> 16); // exact
        std::memcpy(P + 2 * It, &Hi, 2);
        V = F;
        break;
      }
      case In::I8: {
        int8_t B = static_cast<int8_t>(R.range(-128, 127));
        std::memcpy(P + It, &B, 1);
        V = B;
        break;
      }
      case In::F64: {
        double D = static_cast<double>(R.range(-16, 16)) * 0.5;
        std::memcpy(P, &D, 8);
        V = D;
        break;
      }
      }
      O.Values[L * E + It] = V;
    }
  return O;
}

/// mfma.cpp is built for gfx90a only (tests/emu/diff/CMakeLists.txt: the
/// gfx942 compiler lacks some of its builtins); on another target
/// (LOOM_DIFF_TARGET) its tests are skipped, not failed.
bool mfmaBuiltForTarget() { return target() == "gfx90a"; }

class Mfma : public ::testing::TestWithParam<std::tuple<int, size_t>> {
protected:
  void SetUp() override {
    if (!mfmaBuiltForTarget())
      GTEST_SKIP() << "mfma.cpp is not built for " << target();
  }
};

template <typename Acc>
void runShape(Module &M, const Shape &S, uint64_t Seed, bool Chain) {
  Device &Dev = *sharedDevice();
  Rng R(Seed);
  Operand A = makeOperand(S, R), B = makeOperand(S, R);
  unsigned Regs = S.regs(), E = S.perLane();
  std::vector<Acc> C(size_t(Waves) * Regs * 64);
  for (Acc &V : C)
    V = static_cast<Acc>(R.range(-1000, 1000));
  auto DA = upload(Dev, A.Bytes), DB = upload(Dev, B.Bytes), DC = upload(Dev, C);
  auto DD = filled<Acc>(Dev, C.size(), static_cast<Acc>(-7777));
  std::string Kernel = std::string("mfma_") + S.Name + (Chain ? "_chain" : "");
  ASSERT_TRUE(launchOk(M, Kernel, LaunchConfig::linear(Waves * 64, 64),
                       KernelArgs()
                           .add(DD->address())
                           .add(DA->address())
                           .add(DB->address())
                           .add(DC->address())));
  std::vector<Acc> Got = download<Acc>(*DD, C.size());

  std::vector<double> Want(C.size());
  for (unsigned W = 0; W < Waves; ++W) {
    auto AccAt = [&](std::vector<double> &V, unsigned I, unsigned J, unsigned Bk) -> double & {
      Slot O = outputSlot(S, I, J, Bk);
      return V[(size_t(W) * Regs + O.Item) * 64 + O.Lane];
    };
    // X's lanes read with A's layout times Y's with B's layout, onto D.
    auto Step = [&](const Operand &X, const Operand &Y, std::vector<double> &D) {
      std::vector<double> Next = D;
      for (unsigned Bk = 0; Bk < S.Blocks; ++Bk)
        for (unsigned I = 0; I < S.M; ++I)
          for (unsigned J = 0; J < S.N; ++J) {
            double Sum = AccAt(D, I, J, Bk);
            for (unsigned K = 0; K < S.K; ++K) {
              Slot SA = inputSlot(S, S.M, I, K, Bk), SB = inputSlot(S, S.N, J, K, Bk);
              Sum += X.Values[(W * 64 + SA.Lane) * E + SA.Item] *
                     Y.Values[(W * 64 + SB.Lane) * E + SB.Item];
            }
            AccAt(Next, I, J, Bk) = Sum;
          }
      D = Next;
    };
    std::vector<double> D(C.begin(), C.end());
    Step(A, B, D);
    if (Chain)
      Step(B, A, D);
    for (size_t K = size_t(W) * Regs * 64; K < size_t(W + 1) * Regs * 64; ++K)
      Want[K] = D[K];
  }
  Mismatches Bad(Kernel);
  for (size_t K = 0; K < Got.size(); ++K)
    if (static_cast<double>(Got[K]) != Want[K])
      Bad.add("wave " + std::to_string(K / (Regs * 64)) + " register " +
              std::to_string(K / 64 % Regs) + " lane " + std::to_string(K % 64) +
              ": device " + std::to_string(static_cast<double>(Got[K])) +
              ", expected " + std::to_string(Want[K]));
  EXPECT_TRUE(Bad.result());
}

TEST_P(Mfma, Builtin) {
  auto [Level, Index] = GetParam();
  const Shape &S = Shapes[Index];
  Module *M = loadModule("mfma", Level);
  ASSERT_TRUE(M);
  uint64_t Seed = 0xa000 + Index;
  if (S.Type == In::F64)
    runShape<double>(*M, S, Seed, false);
  else if (S.Type == In::I8)
    runShape<int32_t>(*M, S, Seed, false);
  else
    runShape<float>(*M, S, Seed, false);
}

INSTANTIATE_TEST_SUITE_P(
    , Mfma,
    ::testing::Combine(::testing::ValuesIn(OptLevels),
                       ::testing::Range<size_t>(0, std::size(Shapes))),
    [](const ::testing::TestParamInfo<std::tuple<int, size_t>> &Info) {
      return std::string(Shapes[std::get<1>(Info.param)].Name) + "_O" +
             std::to_string(std::get<0>(Info.param));
    });

class MfmaChain : public LevelTest {
protected:
  void SetUp() override {
    if (!mfmaBuiltForTarget())
      GTEST_SKIP() << "mfma.cpp is not built for " << target();
  }
};

// Two dependent MFMAs: the second accumulates onto the first's result.
TEST_P(MfmaChain, F32_16x16x4) {
  Module *M = loadModule("mfma", level());
  ASSERT_TRUE(M);
  runShape<float>(*M, Shapes[4], 0xa100, true);
}

LOOM_DIFF_LEVELS(MfmaChain);

} // namespace
