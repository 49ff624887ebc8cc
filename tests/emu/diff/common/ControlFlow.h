//===- ControlFlow.h - Divergent branches, loops, calls and recursion -----===//
//
// Each function's control flow depends on per-lane data, so on the device
// the lanes of one wave take different paths (EXEC masking, s_cbranch_exec*,
// waterfall loops for indirect calls). The out-of-line ones are real calls on
// the device at every optimisation level: argument passing in VGPRs and on
// the stack, struct returns, and recursion on the scratch stack.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TESTS_EMU_DIFF_COMMON_CONTROLFLOW_H
#define LOOM_TESTS_EMU_DIFF_COMMON_CONTROLFLOW_H

#include "DiffCommon.h"
#include "OpTable.h"

namespace diff {

DIFF_FN uint32_t collatzSteps(uint32_t X) {
  uint64_t V = X;
  uint32_t N = 0;
  while (V > 1 && N < 300) {
    V = (V & 1) ? 3 * V + 1 : V >> 1;
    ++N;
  }
  return N;
}

DIFF_FN uint32_t nestedLoops(uint32_t A, uint32_t B) {
  uint32_t Acc = A ^ 0x9e3779b9u;
  uint32_t NI = A & 15, NJ = B & 7;
  for (uint32_t I = 0; I < NI; ++I) {
    if (((A >> I) & 3) == 3)
      continue;
    for (uint32_t J = 0; J <= NJ; ++J) {
      if ((I * J + (B >> 8)) % 11 == 10)
        break;
      Acc = Acc * 31u + (I << J) + B;
    }
    if (Acc % 97 == 0)
      break;
  }
  return Acc;
}

DIFF_FN uint32_t switchChain(uint32_t A, uint32_t B) {
  uint32_t R = 0;
  switch (A % 9) {
  case 0:
    R = B;
    break;
  case 1:
    R = B * 3;
    [[fallthrough]];
  case 2:
    R += A;
    break;
  case 3:
  case 4:
    R = B ^ A;
    break;
  case 5:
    R = (B << 7) | (B >> 25);
    break;
  case 7:
    return A - B;
  default:
    R = ~B;
    break;
  }
  return R * 5 + 1;
}

// Newton's iteration with a data-dependent trip count and a float exit test.
DIFF_FN float newtonSqrt(float X) {
  if (!(X > 0.0f) || X > 1e30f)
    return X;
  float G = X > 1.0f ? X * 0.5f : 1.0f;
  for (int I = 0; I < 40; ++I) {
    float N = 0.5f * (G + X / G);
    if (N == G)
      break;
    G = N;
  }
  return G;
}

DIFF_FN uint32_t binarySearch(const uint32_t *Sorted, uint32_t N, uint32_t Key) {
  uint32_t Lo = 0, Hi = N;
  while (Lo < Hi) {
    uint32_t Mid = Lo + (Hi - Lo) / 2;
    if (Sorted[Mid] == Key)
      return Mid;
    if (Sorted[Mid] < Key)
      Lo = Mid + 1;
    else
      Hi = Mid;
  }
  return 0x80000000u | Lo;
}

// A private array indexed by data: scratch memory (or VGPR indexing).
DIFF_FN uint32_t localArray(uint32_t A, uint32_t B) {
  uint32_t Buf[24];
  for (uint32_t I = 0; I < 24; ++I)
    Buf[I] = (A * (I + 1)) ^ B;
  for (uint32_t I = 0; I < 32; ++I) {
    uint32_t J = (A + I * B) % 24;
    Buf[J] = Buf[(J * 7 + 3) % 24] + I;
  }
  uint32_t S = 0;
  for (uint32_t I = 0; I < 24; ++I)
    S = S * 3 + Buf[I];
  return S;
}

DIFF_NOINLINE uint32_t fib(uint32_t N) { return N < 2 ? N : fib(N - 1) + fib(N - 2); }

DIFF_NOINLINE uint32_t gcdRec(uint32_t A, uint32_t B) { return B == 0 ? A : gcdRec(B, A % B); }

DIFF_NOINLINE bool isOdd(uint32_t N);
DIFF_NOINLINE bool isEven(uint32_t N) { return N == 0 ? true : isOdd(N - 1); }
DIFF_NOINLINE bool isOdd(uint32_t N) { return N == 0 ? false : isEven(N - 1); }

// Recursion through pointers into the caller's stack frame.
DIFF_NOINLINE void quickSort(int32_t *V, int Lo, int Hi) {
  if (Lo >= Hi)
    return;
  int32_t Pivot = V[(Lo + Hi) / 2];
  int I = Lo, J = Hi;
  while (I <= J) {
    while (V[I] < Pivot)
      ++I;
    while (V[J] > Pivot)
      --J;
    if (I <= J) {
      int32_t T = V[I];
      V[I] = V[J];
      V[J] = T;
      ++I;
      --J;
    }
  }
  quickSort(V, Lo, J);
  quickSort(V, I, Hi);
}

DIFF_FN uint32_t sortedChecksum(uint32_t A, uint32_t B) {
  int32_t V[16];
  for (int I = 0; I < 16; ++I)
    V[I] = (int32_t)((A * (uint32_t)(I * 2 + 1)) ^ (B >> (I & 7))) >> (I & 3);
  quickSort(V, 0, 15);
  uint32_t S = 0;
  for (int I = 0; I < 16; ++I)
    S = S * 33 + (uint32_t)V[I];
  return S;
}

// More arguments than fit in VGPRs v0-v31: the rest go on the stack.
DIFF_NOINLINE uint64_t manyArgs(uint32_t A0, uint32_t A1, uint32_t A2, uint32_t A3,
                                uint32_t A4, uint32_t A5, uint32_t A6, uint32_t A7,
                                uint64_t B0, uint64_t B1, uint64_t B2, uint64_t B3,
                                uint64_t B4, uint64_t B5, uint64_t B6, uint64_t B7,
                                double D0, double D1, double D2, double D3,
                                float F0, float F1, uint8_t C0, int16_t S0,
                                uint32_t T0, uint32_t T1, uint32_t T2, uint32_t T3) {
  uint64_t R = A0 + 3ull * A1 + 5ull * A2 + 7ull * A3 + 11ull * A4 + 13ull * A5 +
               17ull * A6 + 19ull * A7;
  R ^= B0 + (B1 << 1) + (B2 << 2) + (B3 << 3) + (B4 << 4) + (B5 << 5) + (B6 << 6) +
       (B7 << 7);
  R += bitsOf(D0 * D1 + D2 - D3);
  R ^= (uint64_t)bitsOf(F0 / F1) << 13;
  R += (uint64_t)C0 * 1000 + (uint64_t)(int64_t)S0;
  R ^= ((uint64_t)T0 << 40) + ((uint64_t)T1 << 30) + ((uint64_t)T2 << 20) + T3;
  return R;
}

struct Triple {
  uint64_t Lo;
  uint32_t Hi;
  float F;
  uint8_t Tag[16];
};

// Returned in memory (sret) and passed by value.
DIFF_NOINLINE Triple makeTriple(uint32_t A, uint32_t B) {
  Triple T;
  T.Lo = (uint64_t)A * B;
  T.Hi = A ^ B;
  T.F = (float)A / (float)(B | 1);
  for (int I = 0; I < 16; ++I)
    T.Tag[I] = (uint8_t)(A >> (I & 3) * 8) + (uint8_t)I;
  return T;
}
DIFF_NOINLINE uint64_t foldTriple(Triple T) {
  uint64_t S = T.Lo ^ ((uint64_t)T.Hi << 17) ^ bitsOf(T.F);
  for (int I = 0; I < 16; ++I)
    S = S * 131 + T.Tag[I];
  return S;
}

DIFF_NOINLINE uint32_t opAdd(uint32_t X) { return X + 0x1234567u; }
DIFF_NOINLINE uint32_t opMul(uint32_t X) { return X * 2654435761u; }
DIFF_NOINLINE uint32_t opRot(uint32_t X) { return (X << 11) | (X >> 21); }
DIFF_NOINLINE uint32_t opFib(uint32_t X) { return fib(X % 10) ^ X; }
typedef uint32_t (*UnaryOp)(uint32_t);

// Calls through a per-lane function pointer: divergent indirect calls.
DIFF_NOINLINE uint32_t applyTwice(UnaryOp F, uint32_t X) { return F(F(X)); }

DIFF_FN UnaryOp pickOp(uint32_t A) {
  switch (A & 3) {
  case 0:
    return opAdd;
  case 1:
    return opMul;
  case 2:
    return opRot;
  default:
    return opFib;
  }
}

// (name, kind, expression over A, B) for the control-flow kernel.
#define DIFF_CONTROL_OPS(X)                                                    \
  X(collatz, KInt, collatzSteps(A & 0xfffff))                                  \
  X(nested_loops, KInt, nestedLoops(A, B))                                     \
  X(switch_chain, KInt, switchChain(A, B))                                     \
  X(newton_sqrt, KF32, bitsOf(newtonSqrt(f32Of(A))))                           \
  X(local_array, KInt, localArray(A, B))                                       \
  X(divergent_call, KInt, (A & 1) ? fib(B % 13) : gcdRec(A, B))                \
  X(fib, KInt, fib(A % 13))                                                    \
  X(gcd, KInt, gcdRec(A, B))                                                   \
  X(mutual_recursion, KInt, (uint64_t)isEven(A % 40))                          \
  X(quick_sort, KInt, sortedChecksum(A, B))                                    \
  X(many_args, KInt,                                                           \
    manyArgs(A, B, A + 1, B + 2, A ^ B, A * 3, B * 5, A - B, (uint64_t)A << 3, \
             (uint64_t)B << 9, A * (uint64_t)B, ~(uint64_t)A, A + 7ull,        \
             B + 9ull, (uint64_t)A << 31, (uint64_t)B << 33, (double)A,        \
             (double)B * 0.5, (double)(A ^ B), 0.25, (float)B, (float)(A | 1), \
             (uint8_t)A, (int16_t)B, A >> 3, B >> 5, A >> 7, B >> 11))         \
  X(struct_return, KInt, foldTriple(makeTriple(A, B)))                         \
  X(indirect_call, KInt, applyTwice(pickOp(A), B))

inline constexpr unsigned ControlOpCount = 0 DIFF_CONTROL_OPS(DIFF_OP_COUNT);

DIFF_FN void controlOps(uint32_t A, uint32_t B, uint64_t *R) {
  unsigned K = 0;
#define DIFF_X(Name, Kind, Expr) R[K++] = (uint64_t)(Expr);
  DIFF_CONTROL_OPS(DIFF_X)
#undef DIFF_X
}

} // namespace diff

#endif // LOOM_TESTS_EMU_DIFF_COMMON_CONTROLFLOW_H
