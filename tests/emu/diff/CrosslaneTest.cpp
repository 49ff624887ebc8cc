//===- CrosslaneTest.cpp - Cross-lane operations within a wave -----------===//
//
// The reference follows the documented lane semantics (GFX9 ISA, LLVM
// AMDGPUModifierSyntax for dpp_ctrl and ds_swizzle offsets):
//  - DPP: quad_perm picks within a quad; row_shl:N reads lane L+N and
//    row_shr:N lane L-N in the same row of 16 (invalid outside it);
//    row_ror:N reads (L-N) mod 16 in the row; wave_shl/shr:1 read L+1/L-1 and
//    wave_rol/ror:1 the same mod 64; row_mirror reads 15-L in the row,
//    row_half_mirror 7-L in the half-row; row_bcast:15 reads the last lane
//    of the previous row, row_bcast:31 lane 31. A lane outside row_mask or
//    bank_mask is not written; an invalid source writes 0 with bound_ctrl,
//    else the lane is not written. Not written = keeps "old".
//  - ds_swizzle: offset[15] set: quad permute by offset[7:0]; clear: within
//    each 32 lanes, lane ((L & and) | or) ^ xor with the 5-bit masks at
//    offset[4:0], [9:5], [14:10].
//
//===----------------------------------------------------------------------===//
#include "DiffHarness.h"
#include "KernelAbi.h"

#include <algorithm>
#include <numeric>

using namespace loom::emu;
using namespace loom::emu::difftest;

namespace {

constexpr uint32_t Waves = 4;
constexpr uint32_t Total = Waves * 64;
constexpr uint32_t Results = diff::CrosslaneResults;

class Crosslane : public LevelTest {};

int dppSource(int Ctrl, int L) {
  int Row = L & ~15, R = L & 15, N = Ctrl & 15;
  if (Ctrl <= 0xff)
    return (L & ~3) | ((Ctrl >> (2 * (L & 3))) & 3);
  if (Ctrl > 0x100 && Ctrl <= 0x10f)
    return R + N < 16 ? L + N : -1;
  if (Ctrl > 0x110 && Ctrl <= 0x11f)
    return R - N >= 0 ? L - N : -1;
  if (Ctrl > 0x120 && Ctrl <= 0x12f)
    return Row | ((R - N) & 15);
  switch (Ctrl) {
  case 0x130:
    return L + 1 < 64 ? L + 1 : -1;
  case 0x134:
    return (L + 1) & 63;
  case 0x138:
    return L - 1 >= 0 ? L - 1 : -1;
  case 0x13c:
    return (L - 1) & 63;
  case 0x140:
    return Row | (15 - R);
  case 0x141:
    return (L & ~7) | (7 - (L & 7));
  case 0x142:
    return Row ? Row - 1 : -1;
  case 0x143:
    return L >= 32 ? 31 : -1;
  }
  ADD_FAILURE() << "unknown dpp_ctrl " << Ctrl;
  return -1;
}

struct DppCase {
  int Ctrl, RowMask, BankMask;
  bool Bound;
  const char *Name;
};
const DppCase DppCases[] = {
    {0x1b, 0xf, 0xf, false, "quad_perm:[3,2,1,0]"},
    {0xb1, 0xf, 0xf, false, "quad_perm:[1,0,3,2]"},
    {0x101, 0xf, 0xf, false, "row_shl:1"},
    {0x10f, 0xf, 0xf, false, "row_shl:15"},
    {0x111, 0xf, 0xf, false, "row_shr:1"},
    {0x113, 0xf, 0xf, false, "row_shr:3"},
    {0x125, 0xf, 0xf, false, "row_ror:5"},
    {0x12f, 0xf, 0xf, false, "row_ror:15"},
    {0x130, 0xf, 0xf, false, "wave_shl:1"},
    {0x134, 0xf, 0xf, false, "wave_rol:1"},
    {0x138, 0xf, 0xf, false, "wave_shr:1"},
    {0x13c, 0xf, 0xf, false, "wave_ror:1"},
    {0x140, 0xf, 0xf, false, "row_mirror"},
    {0x141, 0xf, 0xf, false, "row_half_mirror"},
    {0x142, 0xa, 0xf, false, "row_bcast:15 row_mask:0xa"},
    {0x143, 0xc, 0xf, false, "row_bcast:31 row_mask:0xc"},
    {0x111, 0x6, 0x5, false, "row_shr:1 row_mask:0x6 bank_mask:0x5"},
    {0x112, 0xf, 0xf, true, "row_shr:2 bound_ctrl"},
    {0x103, 0xf, 0xf, false, "row_shl:3"},
};

uint32_t dpp(const DppCase &C, const uint32_t *Old, const uint32_t *Src, int L) {
  if (!((C.RowMask >> (L / 16)) & 1) || !((C.BankMask >> ((L % 16) / 4)) & 1))
    return Old[L];
  int S = dppSource(C.Ctrl, L);
  if (S < 0)
    return C.Bound ? 0 : Old[L];
  return Src[S];
}

int swizzleSource(int Pattern, int L) {
  if (Pattern & 0x8000)
    return (L & ~3) | ((Pattern >> (2 * (L & 3))) & 3);
  int And = Pattern & 0x1f, Or = (Pattern >> 5) & 0x1f, Xor = (Pattern >> 10) & 0x1f;
  return (L & 0x20) | ((((L & 0x1f) & And) | Or) ^ Xor);
}

const std::vector<std::string> &resultNames() {
  static const std::vector<std::string> Names = [] {
    std::vector<std::string> V = {"ds_bpermute", "ds_permute", "readlane",
                                  "readfirstlane (divergent)", "ballot lo",
                                  "ballot hi", "mbcnt lane id", "mbcnt rank",
                                  "exec lo (divergent)", "exec hi (divergent)"};
    for (const DppCase &C : DppCases)
      V.push_back(std::string("dpp ") + C.Name);
    for (const char *S : {"swizzle quad [3,2,1,0]", "swizzle swap16",
                          "swizzle broadcast 5", "swizzle reverse 8"})
      V.push_back(S);
    V.push_back("dpp wave prefix sum");
    V.push_back("readlane 63 of the prefix sum");
    V.push_back("readlane loop");
    return V;
  }();
  return Names;
}

TEST_P(Crosslane, WaveOperations) {
  ASSERT_EQ(resultNames().size(), Results);
  Module *M = loadModule("crosslane", level());
  ASSERT_TRUE(M);
  Device &Dev = *sharedDevice();
  Rng R(0x8001);
  std::vector<uint32_t> In(Total), Perm(Total);
  for (uint32_t &V : In)
    V = R.next32();
  for (uint32_t W = 0; W < Waves; ++W) {
    uint32_t *P = &Perm[W * 64];
    std::iota(P, P + 64, 0u);
    for (int I = 63; I > 0; --I)
      std::swap(P[I], P[R.below(I + 1)]);
  }
  constexpr uint32_t ReadLane = 37;
  auto DI = upload(Dev, In), DP = upload(Dev, Perm);
  auto Out = filled<uint32_t>(Dev, size_t(Results) * Total, 0xcccccccc);
  ASSERT_TRUE(launchOk(*M, "crosslane", LaunchConfig::linear(Total, 64),
                       KernelArgs()
                           .add(Out->address())
                           .add(DI->address())
                           .add(DP->address())
                           .add(ReadLane)
                           .add(Total)));
  std::vector<uint32_t> Got = download<uint32_t>(*Out, size_t(Results) * Total);

  std::vector<uint32_t> Want(size_t(Results) * Total);
  for (uint32_t W = 0; W < Waves; ++W) {
    const uint32_t *V = &In[W * 64], *P = &Perm[W * 64];
    uint32_t Old[64];
    for (int L = 0; L < 64; ++L)
      Old[L] = 0xa0000000u | L;
    uint64_t Ballot = 0, Div3 = 0;
    int FirstOdd = -1;
    for (int L = 0; L < 64; ++L) {
      Ballot |= uint64_t((V[L] & 3) == 0) << L;
      Div3 |= uint64_t(V[L] % 3 == 0) << L;
      if (FirstOdd < 0 && (V[L] & 1))
        FirstOdd = L;
    }
    uint32_t Prefix[64], Running = 0;
    for (int L = 0; L < 64; ++L)
      Prefix[L] = Running += V[L];
    uint32_t Fold = 0;
    for (int L = 0; L < 64; L += 9)
      Fold = Fold * 31 + V[L];
    for (int L = 0; L < 64; ++L) {
      auto Put = [&](uint32_t K, uint32_t X) { Want[size_t(K) * Total + W * 64 + L] = X; };
      uint32_t K = 0;
      Put(K++, V[P[L]]);
      Put(K++, 0); // ds_permute: filled in below
      Put(K++, V[ReadLane]);
      Put(K++, (V[L] & 1) ? V[FirstOdd] : 0xffffffffu);
      Put(K++, static_cast<uint32_t>(Ballot));
      Put(K++, static_cast<uint32_t>(Ballot >> 32));
      Put(K++, L);
      Put(K++, __builtin_popcountll(Ballot & ((1ull << L) - 1)));
      Put(K++, V[L] % 3 == 0 ? static_cast<uint32_t>(Div3) : 0);
      Put(K++, V[L] % 3 == 0 ? static_cast<uint32_t>(Div3 >> 32) : 0);
      for (const DppCase &C : DppCases)
        Put(K++, dpp(C, Old, V, L));
      for (int Pattern : {0x801b, 0x401f, 0x00a0, 0x1c1f})
        Put(K++, V[swizzleSource(Pattern, L)]);
      Put(K++, Prefix[L]);
      Put(K++, Prefix[63]);
      Put(K++, Fold);
    }
    for (int L = 0; L < 64; ++L)
      Want[size_t(1) * Total + W * 64 + P[L]] = V[L];
  }

  Mismatches Bad("crosslane");
  for (uint32_t K = 0; K < Results; ++K)
    for (uint32_t I = 0; I < Total; ++I) {
      size_t At = size_t(K) * Total + I;
      if (Got[At] != Want[At])
        Bad.add(resultNames()[K] + ", wave " + std::to_string(I / 64) + " lane " +
                std::to_string(I % 64) + ": device " + hex(Got[At]) + ", expected " +
                hex(Want[At]));
    }
  EXPECT_TRUE(Bad.result());
}

LOOM_DIFF_LEVELS(Crosslane);

} // namespace
