//===- tests/emu/core/ScalarTest.cpp - The scalar unit --------------------===//
//
// SOP1/SOP2/SOPC/SOPK/SOPP and SMEM against host-computed references. The
// kernels are in kernels/scalar.s; most run one instruction over a list of
// input records (see the register roles at the top of scalar.s) and store
// its destination, SCC, M0 and EXEC, which are compared with a reference
// written here from the ISA's description of the instruction.
//
//===----------------------------------------------------------------------===//

#include "loom/emu/Coverage.h"
#include "loom/emu/Module.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <bit>
#include <chrono>
#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <vector>

using namespace loom::emu;

namespace {

//===----------------------------------------------------------------------===//
// Fixture: one device and the scalar.s module for every test.
//===----------------------------------------------------------------------===//

struct Env {
  std::unique_ptr<Device> Dev;
  std::unique_ptr<Module> Mod;
};

Env &env() {
  static Env E = [] {
    Env E;
    auto D = Device::create();
    if (!D) {
      ADD_FAILURE() << llvm::toString(D.takeError());
      return E;
    }
    E.Dev = std::move(*D);
    auto M = Module::loadFile(*E.Dev,
                              std::string(LOOM_EMU_CORE_DIR) + "/scalar.elf");
    if (!M) {
      ADD_FAILURE() << llvm::toString(M.takeError());
      return E;
    }
    E.Mod = std::move(*M);
    if (llvm::Error Err = E.Mod->resolve(
            [](llvm::StringRef) { return std::optional<uint64_t>(); }))
      ADD_FAILURE() << llvm::toString(std::move(Err));
    return E;
  }();
  return E;
}

Device &dev() { return *env().Dev; }

/// Runs \p Kernel over \p Items work-items in groups of \p Group, with the
/// kernarg segment \p Args (the kernels read it through s[0:1]).
DispatchResult run(llvm::StringRef Kernel, std::vector<uint64_t> Args,
                   uint32_t Items = 1, uint16_t Group = 1) {
  Env &E = env();
  DispatchResult Invalid;
  Invalid.Status = DispatchStatus::InvalidDispatch;
  if (!E.Mod)
    return Invalid;
  DeviceBuffer Kernarg(*E.Dev, 64 + Args.size() * 8, 64);
  std::memcpy(Kernarg.data(), Args.data(), Args.size() * 8);
  std::optional<uint64_t> KO = E.Mod->kernelObject(Kernel);
  EXPECT_TRUE(KO.has_value()) << "no kernel " << Kernel.str();
  if (!KO)
    return Invalid;
  DispatchParams P;
  P.KernelObject = *KO;
  P.GridSize[0] = Items;
  P.WorkgroupSize[0] = Group;
  P.Kernarg = Kernarg.address();
  return E.Dev->dispatch(P);
}

std::string hex(uint64_t V) {
  std::string S;
  llvm::raw_string_ostream(S) << llvm::format_hex(V, 18);
  return S;
}

//===----------------------------------------------------------------------===//
// Record kernels
//===----------------------------------------------------------------------===//

struct InRec {
  uint64_t A = 0, B = 0;
  uint32_t Scc = 0, M0 = 0;
  uint64_t D = 0, Exec = ~0ull, C = 0x0123456789abcdefull;
  uint32_t Pad[4] = {};
};
static_assert(sizeof(InRec) == 64);

struct OutRec {
  uint64_t R;
  uint32_t Scc, M0;
  uint64_t Exec, R2;
};
static_assert(sizeof(OutRec) == 32);

using RefFn = std::function<void(const InRec &, OutRec &)>;

/// Values that find edge cases: zero, one, shift counts around 32 and 64,
/// 16- and 32-bit sign boundaries, all-ones, and a few patterns.
const std::vector<uint64_t> &values() {
  static const std::vector<uint64_t> V = {
      0,
      1,
      2,
      3,
      4,
      15,
      16,
      31,
      32,
      33,
      63,
      64,
      65,
      0x7f,
      0x80,
      0xff,
      0x7fff,
      0x8000,
      0x8001,
      0xffff,
      0x10000,
      0x7fffffff,
      0x80000000,
      0x80000001,
      0xfffffffe,
      0xffffffff,
      0xffff8000,
      0x100000000ull,
      0x12345678,
      0xdeadbeef,
      0x0f0f0f0f,
      0x00f000f0,
      0xffffffff80000000ull,
      0xffffffffffff8000ull,
      0x8000000000000000ull,
      0x7fffffffffffffffull,
      0xfffffffffffffffeull,
      0xffffffffffffffffull,
      0x123456789abcdef0ull,
      0xfedcba9876543210ull,
      0x00ff00ff00ff00ffull,
  };
  return V;
}

/// Every A against every B, SCC clear and set; D = B (the destination's
/// old value, for the operations that read it).
std::vector<InRec> pairInputs() {
  std::vector<InRec> In;
  for (uint64_t A : values())
    for (uint64_t B : values())
      for (uint32_t Scc : {0u, 1u}) {
        InRec R;
        R.A = A;
        R.B = B;
        R.Scc = Scc;
        R.D = B ^ 0x5a5a5a5a00000000ull;
        In.push_back(R);
      }
  return In;
}

/// Bit-field descriptors for s_bfe: offsets and widths around the edges.
std::vector<InRec> bfeInputs() {
  std::vector<InRec> In;
  for (uint64_t A : values())
    for (uint32_t Width : {0u, 1u, 5u, 8u, 16u, 31u, 32u, 33u, 63u, 64u, 65u,
                           127u})
      for (uint32_t Off : {0u, 1u, 4u, 16u, 31u, 32u, 33u, 63u}) {
        InRec R;
        R.A = A;
        // Bits above the width field are ignored.
        R.B = (Width << 16) | Off | (Off == 4 ? 0xff800000u : 0u);
        In.push_back(R);
      }
  return In;
}

/// EXEC manipulation: every source against every EXEC.
std::vector<InRec> execInputs() {
  std::vector<InRec> In;
  for (uint64_t A : values())
    for (uint64_t E : values()) {
      InRec R;
      R.A = A;
      R.Exec = E;
      R.D = 0xd0d0d0d0d1d1d1d1ull;
      In.push_back(R);
    }
  return In;
}

/// M0-relative moves: M0 over register offsets inside and outside the
/// file (see movrelRef).
std::vector<InRec> movrelInputs(std::vector<uint32_t> M0s) {
  std::vector<InRec> In;
  uint64_t Vals[] = {0x1111111122222222ull, 0x8000000000000001ull,
                     0xfedcba9876543210ull};
  for (uint32_t M0 : M0s)
    for (uint64_t V : Vals) {
      InRec R;
      R.A = V;
      R.B = ~V;
      R.D = V * 3;
      R.C = V ^ 0xffff;
      R.M0 = M0;
      R.Pad[0] = 0xa0a0a0a0;
      R.Pad[3] = 0xa3a3a3a3;
      In.push_back(R);
    }
  return In;
}

/// Scalar atomics: the memory cell holds D, the data is A (and B); half
/// the records make the compare value of cmpswap (A.hi for 32 bits, B for
/// 64) equal to the memory.
std::vector<InRec> atomicInputs() {
  std::vector<InRec> In;
  for (uint64_t A : values())
    for (uint64_t D : values()) {
      InRec R;
      R.A = A;
      R.B = D;
      R.D = D;
      In.push_back(R);
      R.A = (uint64_t(uint32_t(D)) << 32) | uint32_t(A);
      R.B = A ^ D;
      In.push_back(R);
    }
  return In;
}

enum class Inputs { Pair, Bfe, Exec, Atomic, MovrelS, MovrelS64, MovrelD,
                    MovrelD64 };

std::vector<InRec> inputs(Inputs K) {
  switch (K) {
  case Inputs::Pair:
    return pairInputs();
  case Inputs::Bfe:
    return bfeInputs();
  case Inputs::Exec:
    return execInputs();
  case Inputs::Atomic:
    return atomicInputs();
  case Inputs::MovrelS:
    return movrelInputs({0, 1, 2, 5, 8, 12, 15, 16, 17, 94, 95, 1000,
                         0x80000000u});
  case Inputs::MovrelS64:
    return movrelInputs({0, 2, 8, 14, 16, 92, 94, 1000});
  case Inputs::MovrelD:
    return movrelInputs({0, 1, 6, 7, 77, 78, 300, 0xffffffffu});
  case Inputs::MovrelD64:
    return movrelInputs({0, 6, 76, 78, 300});
  }
  return {};
}

//===----------------------------------------------------------------------===//
// Reference helpers, written from the ISA's descriptions
//===----------------------------------------------------------------------===//

uint32_t lo(uint64_t V) { return uint32_t(V); }
uint32_t hi(uint64_t V) { return uint32_t(V >> 32); }
int32_t slo(uint64_t V) { return int32_t(uint32_t(V)); }

/// A 32-bit result lands in s24; s25 keeps the old destination's high half.
void r32(OutRec &O, uint32_t V) { O.R = (O.R & 0xffffffff00000000ull) | V; }
void nz32(OutRec &O, uint32_t V) {
  r32(O, V);
  O.Scc = V != 0;
}
void nz64(OutRec &O, uint64_t V) {
  O.R = V;
  O.Scc = V != 0;
}

uint64_t bit(uint64_t V, unsigned I) { return (V >> I) & 1; }

/// s_bfe on a Bits-wide value: offset S[log2(Bits)-1:0], width S[22:16];
/// bits past the top are not there, and a signed field takes the sign of
/// its top existing bit.
uint64_t bfeRef(uint64_t A, uint32_t S, unsigned Bits, bool Signed) {
  unsigned Off = S & (Bits - 1), Width = (S >> 16) & 0x7f;
  uint64_t R = 0;
  unsigned N = 0;
  for (unsigned I = 0; I < Width && Off + I < Bits; ++I, ++N)
    R |= bit(A, Off + I) << I;
  if (Signed && N && bit(R, N - 1))
    for (unsigned I = N; I < Bits; ++I)
      R |= uint64_t(1) << I;
  return Bits == 32 ? uint32_t(R) : R;
}

unsigned countBits(uint64_t V, unsigned Bits, unsigned Value) {
  unsigned N = 0;
  for (unsigned I = 0; I < Bits; ++I)
    N += bit(V, I) == Value;
  return N;
}

/// Index of the first bit equal to Value from the bottom, or -1.
uint32_t findFirst(uint64_t V, unsigned Bits, unsigned Value) {
  for (unsigned I = 0; I < Bits; ++I)
    if (bit(V, I) == Value)
      return I;
  return ~0u;
}

/// Bits skipped from the top before one equal to Value, or -1; Signed
/// looks for the first bit that differs from the sign.
uint32_t findLast(uint64_t V, unsigned Bits, bool Signed) {
  unsigned Want = Signed ? !bit(V, Bits - 1) : 1;
  for (int I = int(Bits) - 1; I >= 0; --I)
    if (bit(V, I) == Want)
      return Bits - 1 - I;
  return ~0u;
}

uint64_t reverse(uint64_t V, unsigned Bits) {
  uint64_t R = 0;
  for (unsigned I = 0; I < Bits; ++I)
    R |= bit(V, I) << (Bits - 1 - I);
  return R;
}

uint64_t wqmRef(uint64_t V, unsigned Bits) {
  uint64_t R = 0;
  for (unsigned I = 0; I < Bits; ++I)
    if ((V >> (I & ~3u)) & 0xf)
      R |= uint64_t(1) << I;
  return R;
}

uint64_t quadmaskRef(uint64_t V, unsigned Bits) {
  uint64_t R = 0;
  for (unsigned Q = 0; Q < Bits / 4; ++Q)
    if ((V >> (4 * Q)) & 0xf)
      R |= uint64_t(1) << Q;
  return R;
}

uint64_t mask(unsigned Bits) { return Bits == 64 ? ~0ull : (1ull << Bits) - 1; }

/// 32-bit signed overflow of an exact result.
bool overflows(int64_t Exact) { return Exact != int64_t(int32_t(Exact)); }

/// The SGPRs s8..s31 a record kernel holds when its instruction runs
/// (s26..s29 hold the previous record's outputs and are not used).
void recordRegs(const InRec &I, uint32_t *S) {
  uint32_t In[16];
  std::memcpy(In, &I, sizeof(In));
  for (unsigned R = 0; R < 16; ++R)
    S[8 + R] = In[R];
  S[24] = lo(I.D);
  S[25] = hi(I.D);
  S[30] = lo(I.C);
  S[31] = hi(I.C);
}

/// s_movrels reads s[8 + M0] (inside the 102 SGPRs, else 0); s_movreld
/// writes s[24 + M0] (inside the SGPRs, else nothing).
void movrelRef(const InRec &I, OutRec &O, unsigned Regs, bool Dest) {
  uint32_t S[128] = {};
  recordRegs(I, S);
  uint64_t Idx = uint64_t(Dest ? 24 : 8) + I.M0;
  bool In = Idx + Regs <= 102;
  if (Dest) {
    if (In)
      for (unsigned R = 0; R < Regs; ++R)
        S[Idx + R] = uint32_t(I.A >> (32 * R));
    O.R = S[24] | uint64_t(S[25]) << 32;
    O.R2 = S[30] | uint64_t(S[31]) << 32;
    return;
  }
  uint64_t V = 0;
  if (In)
    for (unsigned R = 0; R < Regs; ++R)
      V |= uint64_t(S[Idx + R]) << (32 * R);
  if (Regs == 1)
    r32(O, uint32_t(V));
  else
    O.R = V;
}

/// EXEC = F(src, EXEC); sdst = old (saveexec) or new (wrexec) EXEC.
RefFn execRef(uint64_t (*F)(uint64_t S, uint64_t E), bool WrExec) {
  return [F, WrExec](const InRec &I, OutRec &O) {
    uint64_t New = F(I.A, I.Exec);
    O.R = WrExec ? New : I.Exec;
    O.Exec = New;
    O.Scc = New != 0;
  };
}

/// The memory update of a scalar atomic: new value from old, data, compare.
uint64_t atomicNew(llvm::StringRef Op, uint64_t Old, uint64_t S, uint64_t C,
                   unsigned Bits) {
  uint64_t M = mask(Bits);
  auto Signed = [&](uint64_t V) {
    return Bits == 32 ? int64_t(int32_t(V)) : int64_t(V);
  };
  uint64_t R;
  if (Op == "swap")
    R = S;
  else if (Op == "cmpswap")
    R = Old == C ? S : Old;
  else if (Op == "add")
    R = Old + S;
  else if (Op == "sub")
    R = Old - S;
  else if (Op == "smin")
    R = Signed(S) < Signed(Old) ? S : Old;
  else if (Op == "umin")
    R = S < Old ? S : Old;
  else if (Op == "smax")
    R = Signed(S) > Signed(Old) ? S : Old;
  else if (Op == "umax")
    R = S > Old ? S : Old;
  else if (Op == "and")
    R = Old & S;
  else if (Op == "or")
    R = Old | S;
  else if (Op == "xor")
    R = Old ^ S;
  else if (Op == "inc")
    R = Old >= S ? 0 : Old + 1;
  else if (Op == "dec")
    R = Old == 0 || Old > S ? S : Old - 1;
  else
    R = 0xbad;
  return R & M;
}

/// The ATOMIC record kernels: cell = D, data = A (32-bit cmpswap compares
/// with A.hi; 64-bit with B). R = returned value over A, R2 = memory.
RefFn atomicRef(std::string Op, unsigned Bits, bool Rtn) {
  return [Op, Bits, Rtn](const InRec &I, OutRec &O) {
    uint64_t M = mask(Bits);
    uint64_t Old = I.D & M;
    uint64_t Cmp = Bits == 32 ? hi(I.A) : I.B;
    uint64_t New = atomicNew(Op, Old, I.A & M, Cmp, Bits);
    O.R2 = (I.D & ~M) | New;
    O.R = Rtn ? (I.A & ~M) | Old : I.A;
  };
}

struct Case {
  const char *Kernel;
  Inputs In;
  RefFn Ref;
};

std::vector<Case> cases() {
  using I_ = const InRec &;
  std::vector<Case> C = {
      // SOP2, 32 bits
      {"k_add_u32", Inputs::Pair,
       [](I_ I, OutRec &O) {
         uint64_t E = uint64_t(lo(I.A)) + lo(I.B);
         r32(O, uint32_t(E));
         O.Scc = E >> 32;
       }},
      {"k_sub_u32", Inputs::Pair,
       [](I_ I, OutRec &O) {
         r32(O, lo(I.A) - lo(I.B));
         O.Scc = lo(I.B) > lo(I.A);
       }},
      {"k_add_i32", Inputs::Pair,
       [](I_ I, OutRec &O) {
         int64_t E = int64_t(slo(I.A)) + slo(I.B);
         r32(O, uint32_t(E));
         O.Scc = overflows(E);
       }},
      {"k_sub_i32", Inputs::Pair,
       [](I_ I, OutRec &O) {
         int64_t E = int64_t(slo(I.A)) - slo(I.B);
         r32(O, uint32_t(E));
         O.Scc = overflows(E);
       }},
      {"k_addc_u32", Inputs::Pair,
       [](I_ I, OutRec &O) {
         uint64_t E = uint64_t(lo(I.A)) + lo(I.B) + (I.Scc != 0);
         r32(O, uint32_t(E));
         O.Scc = E >> 32;
       }},
      {"k_subb_u32", Inputs::Pair,
       [](I_ I, OutRec &O) {
         uint64_t Sub = uint64_t(lo(I.B)) + (I.Scc != 0);
         r32(O, uint32_t(lo(I.A) - Sub));
         O.Scc = Sub > lo(I.A);
       }},
      {"k_min_i32", Inputs::Pair,
       [](I_ I, OutRec &O) {
         O.Scc = slo(I.A) < slo(I.B);
         r32(O, O.Scc ? lo(I.A) : lo(I.B));
       }},
      {"k_min_u32", Inputs::Pair,
       [](I_ I, OutRec &O) {
         O.Scc = lo(I.A) < lo(I.B);
         r32(O, O.Scc ? lo(I.A) : lo(I.B));
       }},
      {"k_max_i32", Inputs::Pair,
       [](I_ I, OutRec &O) {
         O.Scc = slo(I.A) > slo(I.B);
         r32(O, O.Scc ? lo(I.A) : lo(I.B));
       }},
      {"k_max_u32", Inputs::Pair,
       [](I_ I, OutRec &O) {
         O.Scc = lo(I.A) > lo(I.B);
         r32(O, O.Scc ? lo(I.A) : lo(I.B));
       }},
      {"k_cselect_b32", Inputs::Pair,
       [](I_ I, OutRec &O) { r32(O, I.Scc ? lo(I.A) : lo(I.B)); }},
      {"k_cselect_b64", Inputs::Pair,
       [](I_ I, OutRec &O) { O.R = I.Scc ? I.A : I.B; }},
      {"k_and_b32", Inputs::Pair,
       [](I_ I, OutRec &O) { nz32(O, lo(I.A & I.B)); }},
      {"k_and_b64", Inputs::Pair, [](I_ I, OutRec &O) { nz64(O, I.A & I.B); }},
      {"k_or_b32", Inputs::Pair,
       [](I_ I, OutRec &O) { nz32(O, lo(I.A | I.B)); }},
      {"k_or_b64", Inputs::Pair, [](I_ I, OutRec &O) { nz64(O, I.A | I.B); }},
      {"k_xor_b32", Inputs::Pair,
       [](I_ I, OutRec &O) { nz32(O, lo(I.A ^ I.B)); }},
      {"k_xor_b64", Inputs::Pair, [](I_ I, OutRec &O) { nz64(O, I.A ^ I.B); }},
      {"k_andn2_b32", Inputs::Pair,
       [](I_ I, OutRec &O) { nz32(O, lo(I.A & ~I.B)); }},
      {"k_andn2_b64", Inputs::Pair,
       [](I_ I, OutRec &O) { nz64(O, I.A & ~I.B); }},
      {"k_orn2_b32", Inputs::Pair,
       [](I_ I, OutRec &O) { nz32(O, lo(I.A | ~I.B)); }},
      {"k_orn2_b64", Inputs::Pair,
       [](I_ I, OutRec &O) { nz64(O, I.A | ~I.B); }},
      {"k_nand_b32", Inputs::Pair,
       [](I_ I, OutRec &O) { nz32(O, lo(~(I.A & I.B))); }},
      {"k_nand_b64", Inputs::Pair,
       [](I_ I, OutRec &O) { nz64(O, ~(I.A & I.B)); }},
      {"k_nor_b32", Inputs::Pair,
       [](I_ I, OutRec &O) { nz32(O, lo(~(I.A | I.B))); }},
      {"k_nor_b64", Inputs::Pair,
       [](I_ I, OutRec &O) { nz64(O, ~(I.A | I.B)); }},
      {"k_xnor_b32", Inputs::Pair,
       [](I_ I, OutRec &O) { nz32(O, lo(~(I.A ^ I.B))); }},
      {"k_xnor_b64", Inputs::Pair,
       [](I_ I, OutRec &O) { nz64(O, ~(I.A ^ I.B)); }},
      {"k_lshl_b32", Inputs::Pair,
       [](I_ I, OutRec &O) { nz32(O, lo(I.A) << (lo(I.B) % 32)); }},
      {"k_lshl_b64", Inputs::Pair,
       [](I_ I, OutRec &O) { nz64(O, I.A << (lo(I.B) % 64)); }},
      {"k_lshr_b32", Inputs::Pair,
       [](I_ I, OutRec &O) { nz32(O, lo(I.A) >> (lo(I.B) % 32)); }},
      {"k_lshr_b64", Inputs::Pair,
       [](I_ I, OutRec &O) { nz64(O, I.A >> (lo(I.B) % 64)); }},
      {"k_ashr_i32", Inputs::Pair,
       [](I_ I, OutRec &O) {
         nz32(O, uint32_t(slo(I.A) >> (lo(I.B) % 32)));
       }},
      {"k_ashr_i64", Inputs::Pair,
       [](I_ I, OutRec &O) {
         nz64(O, uint64_t(int64_t(I.A) >> (lo(I.B) % 64)));
       }},
      {"k_bfm_b32", Inputs::Pair,
       [](I_ I, OutRec &O) {
         r32(O, uint32_t(mask(lo(I.A) % 32) << (lo(I.B) % 32)));
       }},
      {"k_bfm_b64", Inputs::Pair,
       [](I_ I, OutRec &O) { O.R = mask(lo(I.A) % 64) << (lo(I.B) % 64); }},
      {"k_mul_i32", Inputs::Pair,
       [](I_ I, OutRec &O) { r32(O, lo(I.A) * lo(I.B)); }},
      {"k_mul_hi_u32", Inputs::Pair,
       [](I_ I, OutRec &O) { r32(O, hi(uint64_t(lo(I.A)) * lo(I.B))); }},
      {"k_mul_hi_i32", Inputs::Pair,
       [](I_ I, OutRec &O) {
         r32(O, hi(uint64_t(int64_t(slo(I.A)) * slo(I.B))));
       }},
      {"k_bfe_u32", Inputs::Bfe,
       [](I_ I, OutRec &O) { nz32(O, bfeRef(lo(I.A), lo(I.B), 32, false)); }},
      {"k_bfe_i32", Inputs::Bfe,
       [](I_ I, OutRec &O) { nz32(O, bfeRef(lo(I.A), lo(I.B), 32, true)); }},
      {"k_bfe_u64", Inputs::Bfe,
       [](I_ I, OutRec &O) { nz64(O, bfeRef(I.A, lo(I.B), 64, false)); }},
      {"k_bfe_i64", Inputs::Bfe,
       [](I_ I, OutRec &O) { nz64(O, bfeRef(I.A, lo(I.B), 64, true)); }},
      {"k_absdiff_i32", Inputs::Pair,
       [](I_ I, OutRec &O) {
         // The difference wraps to 32 bits before its absolute value.
         int32_t D = int32_t(lo(I.A) - lo(I.B));
         nz32(O, D < 0 ? 0u - uint32_t(D) : uint32_t(D));
       }},
      {"k_pack_ll_b32_b16", Inputs::Pair,
       [](I_ I, OutRec &O) { r32(O, (lo(I.A) & 0xffff) | lo(I.B) << 16); }},
      {"k_pack_lh_b32_b16", Inputs::Pair,
       [](I_ I, OutRec &O) {
         r32(O, (lo(I.A) & 0xffff) | (lo(I.B) & 0xffff0000));
       }},
      {"k_pack_hh_b32_b16", Inputs::Pair,
       [](I_ I, OutRec &O) {
         r32(O, lo(I.A) >> 16 | (lo(I.B) & 0xffff0000));
       }},

      // SOP1
      {"k_mov_b32", Inputs::Pair, [](I_ I, OutRec &O) { r32(O, lo(I.A)); }},
      {"k_mov_b64", Inputs::Pair, [](I_ I, OutRec &O) { O.R = I.A; }},
      {"k_cmov_b32", Inputs::Pair,
       [](I_ I, OutRec &O) {
         if (I.Scc)
           r32(O, lo(I.A));
       }},
      {"k_cmov_b64", Inputs::Pair,
       [](I_ I, OutRec &O) {
         if (I.Scc)
           O.R = I.A;
       }},
      {"k_not_b32", Inputs::Pair, [](I_ I, OutRec &O) { nz32(O, ~lo(I.A)); }},
      {"k_not_b64", Inputs::Pair, [](I_ I, OutRec &O) { nz64(O, ~I.A); }},
      {"k_wqm_b32", Inputs::Pair,
       [](I_ I, OutRec &O) { nz32(O, wqmRef(lo(I.A), 32)); }},
      {"k_wqm_b64", Inputs::Pair,
       [](I_ I, OutRec &O) { nz64(O, wqmRef(I.A, 64)); }},
      {"k_brev_b32", Inputs::Pair,
       [](I_ I, OutRec &O) { r32(O, reverse(lo(I.A), 32)); }},
      {"k_brev_b64", Inputs::Pair,
       [](I_ I, OutRec &O) { O.R = reverse(I.A, 64); }},
      {"k_bcnt0_i32_b32", Inputs::Pair,
       [](I_ I, OutRec &O) { nz32(O, countBits(I.A, 32, 0)); }},
      {"k_bcnt0_i32_b64", Inputs::Pair,
       [](I_ I, OutRec &O) { nz32(O, countBits(I.A, 64, 0)); }},
      {"k_bcnt1_i32_b32", Inputs::Pair,
       [](I_ I, OutRec &O) { nz32(O, countBits(I.A, 32, 1)); }},
      {"k_bcnt1_i32_b64", Inputs::Pair,
       [](I_ I, OutRec &O) { nz32(O, countBits(I.A, 64, 1)); }},
      {"k_ff0_i32_b32", Inputs::Pair,
       [](I_ I, OutRec &O) { r32(O, findFirst(I.A, 32, 0)); }},
      {"k_ff0_i32_b64", Inputs::Pair,
       [](I_ I, OutRec &O) { r32(O, findFirst(I.A, 64, 0)); }},
      {"k_ff1_i32_b32", Inputs::Pair,
       [](I_ I, OutRec &O) { r32(O, findFirst(I.A, 32, 1)); }},
      {"k_ff1_i32_b64", Inputs::Pair,
       [](I_ I, OutRec &O) { r32(O, findFirst(I.A, 64, 1)); }},
      {"k_flbit_i32_b32", Inputs::Pair,
       [](I_ I, OutRec &O) { r32(O, findLast(lo(I.A), 32, false)); }},
      {"k_flbit_i32_b64", Inputs::Pair,
       [](I_ I, OutRec &O) { r32(O, findLast(I.A, 64, false)); }},
      {"k_flbit_i32", Inputs::Pair,
       [](I_ I, OutRec &O) { r32(O, findLast(lo(I.A), 32, true)); }},
      {"k_flbit_i32_i64", Inputs::Pair,
       [](I_ I, OutRec &O) { r32(O, findLast(I.A, 64, true)); }},
      {"k_sext_i32_i8", Inputs::Pair,
       [](I_ I, OutRec &O) { r32(O, uint32_t(int8_t(I.A))); }},
      {"k_sext_i32_i16", Inputs::Pair,
       [](I_ I, OutRec &O) { r32(O, uint32_t(int16_t(I.A))); }},
      {"k_bitset0_b32", Inputs::Pair,
       [](I_ I, OutRec &O) { r32(O, lo(I.D) & ~(1u << (lo(I.A) % 32))); }},
      {"k_bitset0_b64", Inputs::Pair,
       [](I_ I, OutRec &O) { O.R = I.D & ~(1ull << (lo(I.A) % 64)); }},
      {"k_bitset1_b32", Inputs::Pair,
       [](I_ I, OutRec &O) { r32(O, lo(I.D) | 1u << (lo(I.A) % 32)); }},
      {"k_bitset1_b64", Inputs::Pair,
       [](I_ I, OutRec &O) { O.R = I.D | 1ull << (lo(I.A) % 64); }},
      {"k_abs_i32", Inputs::Pair,
       [](I_ I, OutRec &O) {
         // |INT_MIN| wraps to INT_MIN.
         nz32(O, slo(I.A) < 0 ? 0u - lo(I.A) : lo(I.A));
       }},
      {"k_quadmask_b32", Inputs::Pair,
       [](I_ I, OutRec &O) { nz32(O, quadmaskRef(lo(I.A), 32)); }},
      {"k_quadmask_b64", Inputs::Pair,
       [](I_ I, OutRec &O) { nz64(O, quadmaskRef(I.A, 64)); }},
      {"k_bitreplicate_b64_b32", Inputs::Pair,
       [](I_ I, OutRec &O) {
         O.R = 0;
         for (unsigned B = 0; B < 32; ++B)
           O.R |= bit(I.A, B) << (2 * B) | bit(I.A, B) << (2 * B + 1);
       }},
      {"k_movrels_b32", Inputs::MovrelS,
       [](I_ I, OutRec &O) { movrelRef(I, O, 1, false); }},
      {"k_movrels_b64", Inputs::MovrelS64,
       [](I_ I, OutRec &O) { movrelRef(I, O, 2, false); }},
      {"k_movreld_b32", Inputs::MovrelD,
       [](I_ I, OutRec &O) { movrelRef(I, O, 1, true); }},
      {"k_movreld_b64", Inputs::MovrelD64,
       [](I_ I, OutRec &O) { movrelRef(I, O, 2, true); }},
      {"k_and_saveexec_b64", Inputs::Exec,
       execRef([](uint64_t S, uint64_t E) { return S & E; }, false)},
      {"k_or_saveexec_b64", Inputs::Exec,
       execRef([](uint64_t S, uint64_t E) { return S | E; }, false)},
      {"k_xor_saveexec_b64", Inputs::Exec,
       execRef([](uint64_t S, uint64_t E) { return S ^ E; }, false)},
      {"k_andn2_saveexec_b64", Inputs::Exec,
       execRef([](uint64_t S, uint64_t E) { return S & ~E; }, false)},
      {"k_orn2_saveexec_b64", Inputs::Exec,
       execRef([](uint64_t S, uint64_t E) { return S | ~E; }, false)},
      {"k_nand_saveexec_b64", Inputs::Exec,
       execRef([](uint64_t S, uint64_t E) { return ~(S & E); }, false)},
      {"k_nor_saveexec_b64", Inputs::Exec,
       execRef([](uint64_t S, uint64_t E) { return ~(S | E); }, false)},
      {"k_xnor_saveexec_b64", Inputs::Exec,
       execRef([](uint64_t S, uint64_t E) { return ~(S ^ E); }, false)},
      {"k_andn1_saveexec_b64", Inputs::Exec,
       execRef([](uint64_t S, uint64_t E) { return ~S & E; }, false)},
      {"k_orn1_saveexec_b64", Inputs::Exec,
       execRef([](uint64_t S, uint64_t E) { return ~S | E; }, false)},
      {"k_andn1_wrexec_b64", Inputs::Exec,
       execRef([](uint64_t S, uint64_t E) { return ~S & E; }, true)},
      {"k_andn2_wrexec_b64", Inputs::Exec,
       execRef([](uint64_t S, uint64_t E) { return S & ~E; }, true)},

      // SOPC
      {"k_cmp_eq_i32", Inputs::Pair,
       [](I_ I, OutRec &O) { O.Scc = slo(I.A) == slo(I.B); }},
      {"k_cmp_lg_i32", Inputs::Pair,
       [](I_ I, OutRec &O) { O.Scc = slo(I.A) != slo(I.B); }},
      {"k_cmp_gt_i32", Inputs::Pair,
       [](I_ I, OutRec &O) { O.Scc = slo(I.A) > slo(I.B); }},
      {"k_cmp_ge_i32", Inputs::Pair,
       [](I_ I, OutRec &O) { O.Scc = slo(I.A) >= slo(I.B); }},
      {"k_cmp_lt_i32", Inputs::Pair,
       [](I_ I, OutRec &O) { O.Scc = slo(I.A) < slo(I.B); }},
      {"k_cmp_le_i32", Inputs::Pair,
       [](I_ I, OutRec &O) { O.Scc = slo(I.A) <= slo(I.B); }},
      {"k_cmp_eq_u32", Inputs::Pair,
       [](I_ I, OutRec &O) { O.Scc = lo(I.A) == lo(I.B); }},
      {"k_cmp_lg_u32", Inputs::Pair,
       [](I_ I, OutRec &O) { O.Scc = lo(I.A) != lo(I.B); }},
      {"k_cmp_gt_u32", Inputs::Pair,
       [](I_ I, OutRec &O) { O.Scc = lo(I.A) > lo(I.B); }},
      {"k_cmp_ge_u32", Inputs::Pair,
       [](I_ I, OutRec &O) { O.Scc = lo(I.A) >= lo(I.B); }},
      {"k_cmp_lt_u32", Inputs::Pair,
       [](I_ I, OutRec &O) { O.Scc = lo(I.A) < lo(I.B); }},
      {"k_cmp_le_u32", Inputs::Pair,
       [](I_ I, OutRec &O) { O.Scc = lo(I.A) <= lo(I.B); }},
      {"k_cmp_eq_u64", Inputs::Pair,
       [](I_ I, OutRec &O) { O.Scc = I.A == I.B; }},
      {"k_cmp_lg_u64", Inputs::Pair,
       [](I_ I, OutRec &O) { O.Scc = I.A != I.B; }},
      {"k_bitcmp0_b32", Inputs::Pair,
       [](I_ I, OutRec &O) { O.Scc = bit(lo(I.A), lo(I.B) % 32) == 0; }},
      {"k_bitcmp1_b32", Inputs::Pair,
       [](I_ I, OutRec &O) { O.Scc = bit(lo(I.A), lo(I.B) % 32) == 1; }},
      {"k_bitcmp0_b64", Inputs::Pair,
       [](I_ I, OutRec &O) { O.Scc = bit(I.A, lo(I.B) % 64) == 0; }},
      {"k_bitcmp1_b64", Inputs::Pair,
       [](I_ I, OutRec &O) { O.Scc = bit(I.A, lo(I.B) % 64) == 1; }},

      // SOPK: simm16 0x8000 is -32768 for the signed forms, 32768 for the
      // unsigned compares.
      {"k_movk_i32", Inputs::Pair,
       [](I_, OutRec &O) { r32(O, 0xffff8765u); }},
      {"k_cmovk_i32", Inputs::Pair,
       [](I_ I, OutRec &O) {
         if (I.Scc)
           r32(O, 0xffff8001u);
       }},
      {"k_addk_i32_pos", Inputs::Pair,
       [](I_ I, OutRec &O) {
         int64_t E = int64_t(slo(I.D)) + 0x7fff;
         r32(O, uint32_t(E));
         O.Scc = overflows(E);
       }},
      {"k_addk_i32_neg", Inputs::Pair,
       [](I_ I, OutRec &O) {
         int64_t E = int64_t(slo(I.D)) - 0x8000;
         r32(O, uint32_t(E));
         O.Scc = overflows(E);
       }},
      {"k_mulk_i32", Inputs::Pair,
       [](I_ I, OutRec &O) { r32(O, lo(I.D) * uint32_t(-13)); }},
      {"k_cmpk_eq_i32", Inputs::Pair,
       [](I_ I, OutRec &O) { O.Scc = slo(I.A) == -32768; }},
      {"k_cmpk_lg_i32", Inputs::Pair,
       [](I_ I, OutRec &O) { O.Scc = slo(I.A) != -32768; }},
      {"k_cmpk_gt_i32", Inputs::Pair,
       [](I_ I, OutRec &O) { O.Scc = slo(I.A) > -32768; }},
      {"k_cmpk_ge_i32", Inputs::Pair,
       [](I_ I, OutRec &O) { O.Scc = slo(I.A) >= -32768; }},
      {"k_cmpk_lt_i32", Inputs::Pair,
       [](I_ I, OutRec &O) { O.Scc = slo(I.A) < -32768; }},
      {"k_cmpk_le_i32", Inputs::Pair,
       [](I_ I, OutRec &O) { O.Scc = slo(I.A) <= -32768; }},
      {"k_cmpk_eq_u32", Inputs::Pair,
       [](I_ I, OutRec &O) { O.Scc = lo(I.A) == 32768u; }},
      {"k_cmpk_lg_u32", Inputs::Pair,
       [](I_ I, OutRec &O) { O.Scc = lo(I.A) != 32768u; }},
      {"k_cmpk_gt_u32", Inputs::Pair,
       [](I_ I, OutRec &O) { O.Scc = lo(I.A) > 32768u; }},
      {"k_cmpk_ge_u32", Inputs::Pair,
       [](I_ I, OutRec &O) { O.Scc = lo(I.A) >= 32768u; }},
      {"k_cmpk_lt_u32", Inputs::Pair,
       [](I_ I, OutRec &O) { O.Scc = lo(I.A) < 32768u; }},
      {"k_cmpk_le_u32", Inputs::Pair,
       [](I_ I, OutRec &O) { O.Scc = lo(I.A) <= 32768u; }},

      // Constants in 64-bit operands: 32-bit literals zero-extended for
      // B64/U64 operands, sign-extended for I64 ones; inline constants
      // are 64-bit values (integers sign-extended, floats as doubles).
      {"k_lit_mov_b64", Inputs::Pair,
       [](I_, OutRec &O) { O.R = 0x80000000ull; }},
      {"k_lit_mov_b64_fff0", Inputs::Pair,
       [](I_, OutRec &O) { O.R = 0xfffffff0ull; }},
      {"k_lit_and_b64", Inputs::Pair,
       [](I_ I, OutRec &O) { nz64(O, I.A & 0x80000000ull); }},
      {"k_lit_lshr_b64", Inputs::Pair,
       [](I_ I, OutRec &O) { nz64(O, 0x80000000ull >> (lo(I.B) % 64)); }},
      {"k_lit_bfe_u64", Inputs::Bfe,
       [](I_ I, OutRec &O) { nz64(O, bfeRef(0x87654321ull, lo(I.B), 64, false)); }},
      {"k_lit_cmp_eq_u64", Inputs::Pair,
       [](I_ I, OutRec &O) { O.Scc = I.A == 0x80000000ull; }},
      {"k_lit_ashr_i64", Inputs::Pair,
       [](I_ I, OutRec &O) {
         nz64(O, uint64_t(int64_t(int32_t(0x80000000u)) >> (lo(I.B) % 64)));
       }},
      {"k_lit_bfe_i64", Inputs::Bfe,
       [](I_ I, OutRec &O) {
         nz64(O, bfeRef(0xffffffff87654321ull, lo(I.B), 64, true));
       }},
      {"k_lit_flbit_i32_i64", Inputs::Pair,
       [](I_, OutRec &O) { r32(O, findLast(0xffffffff80000000ull, 64, true)); }},
      {"k_inl_mov_b64_m1", Inputs::Pair, [](I_, OutRec &O) { O.R = ~0ull; }},
      {"k_inl_mov_b64_m16", Inputs::Pair,
       [](I_, OutRec &O) { O.R = uint64_t(int64_t(-16)); }},
      {"k_inl_mov_b64_f", Inputs::Pair,
       [](I_, OutRec &O) { O.R = std::bit_cast<uint64_t>(-4.0); }},
      {"k_inl_ashr_i64_m16", Inputs::Pair,
       [](I_ I, OutRec &O) {
         nz64(O, uint64_t(int64_t(-16) >> (lo(I.B) % 64)));
       }},
      {"k_inl_add_u32_f", Inputs::Pair,
       [](I_ I, OutRec &O) {
         uint64_t E = uint64_t(lo(I.A)) + std::bit_cast<uint32_t>(0.5f);
         r32(O, uint32_t(E));
         O.Scc = E >> 32;
       }},
      {"k_inl_cselect_b64", Inputs::Pair,
       [](I_ I, OutRec &O) {
         O.R = I.Scc ? 64 : std::bit_cast<uint64_t>(-2.0);
       }},

      // SMEM atomics (returning unless noted)
      {"k_atomic_add_nortn", Inputs::Atomic, atomicRef("add", 32, false)},
      {"k_atomic_cmpswap_x2_nortn", Inputs::Atomic,
       atomicRef("cmpswap", 64, false)},
      {"k_atomic_add_soff", Inputs::Atomic, atomicRef("add", 32, true)},
      {"k_atomic_add_sgpr_imm", Inputs::Atomic, atomicRef("add", 32, true)},
      {"k_atomic_add_alt", Inputs::Atomic, atomicRef("add", 32, true)},
  };
  for (unsigned N = 1; N <= 4; ++N)
    C.push_back({N == 1   ? "k_lshl1_add_u32"
                 : N == 2 ? "k_lshl2_add_u32"
                 : N == 3 ? "k_lshl3_add_u32"
                          : "k_lshl4_add_u32",
                 Inputs::Pair, [N](I_ I, OutRec &O) {
                   uint64_t E = (uint64_t(lo(I.A)) << N) + lo(I.B);
                   r32(O, uint32_t(E));
                   O.Scc = (E >> 32) != 0;
                 }});
  static const char *const AtomicOps[] = {"swap", "cmpswap", "add",  "sub",
                                          "smin", "umin",    "smax", "umax",
                                          "and",  "or",      "xor",  "inc",
                                          "dec"};
  static std::vector<std::string> Names; // kernel names must outlive C
  if (Names.empty())
    for (const char *Op : AtomicOps)
      for (const char *Suffix : {"", "_x2"})
        Names.push_back(std::string("k_atomic_") + Op + Suffix);
  for (const std::string &N : Names) {
    bool X2 = llvm::StringRef(N).ends_with("_x2");
    std::string Op = llvm::StringRef(N)
                         .drop_front(strlen("k_atomic_"))
                         .drop_back(X2 ? 3 : 0)
                         .str();
    C.push_back({N.c_str(), Inputs::Atomic, atomicRef(Op, X2 ? 64 : 32, true)});
  }
  return C;
}

class ScalarRecords : public ::testing::TestWithParam<Case> {};

TEST_P(ScalarRecords, MatchReference) {
  const Case &K = GetParam();
  std::vector<InRec> In = inputs(K.In);
  ASSERT_FALSE(In.empty());
  DeviceBuffer InBuf(dev(), In.size() * sizeof(InRec));
  DeviceBuffer OutBuf(dev(), In.size() * sizeof(OutRec));
  std::memcpy(InBuf.data(), In.data(), In.size() * sizeof(InRec));
  std::memset(OutBuf.data(), 0xcd, In.size() * sizeof(OutRec));
  DispatchResult R =
      run(K.Kernel, {InBuf.address(), OutBuf.address(), In.size()}, 1, 1);
  ASSERT_TRUE(R.ok()) << R.FirstFault.Message;
  const OutRec *Out = OutBuf.data<OutRec>();
  unsigned Failures = 0;
  for (size_t N = 0; N < In.size() && Failures < 8; ++N) {
    const InRec &I = In[N];
    OutRec E{I.D, I.Scc != 0, I.M0, I.Exec, I.C};
    K.Ref(I, E);
    const OutRec &G = Out[N];
    if (G.R == E.R && G.Scc == E.Scc && G.M0 == E.M0 && G.Exec == E.Exec &&
        G.R2 == E.R2)
      continue;
    ++Failures;
    ADD_FAILURE() << K.Kernel << " A=" << hex(I.A) << " B=" << hex(I.B)
                  << " SCC=" << I.Scc << " M0=" << I.M0 << " D=" << hex(I.D)
                  << " EXEC=" << hex(I.Exec) << "\n  got R=" << hex(G.R)
                  << " SCC=" << G.Scc << " M0=" << G.M0
                  << " EXEC=" << hex(G.Exec) << " R2=" << hex(G.R2)
                  << "\n want R=" << hex(E.R) << " SCC=" << E.Scc
                  << " M0=" << E.M0 << " EXEC=" << hex(E.Exec)
                  << " R2=" << hex(E.R2);
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, ScalarRecords, ::testing::ValuesIn(cases()),
                         [](const auto &Info) {
                           return std::string(Info.param.Kernel).substr(2);
                         });

//===----------------------------------------------------------------------===//
// Scalar memory
//===----------------------------------------------------------------------===//

uint32_t pattern(unsigned I) { return I * 0x9e3779b9u + 7; }

TEST(ScalarMemory, LoadsAndStoresOfEveryWidthAndAddressingForm) {
  DeviceBuffer Src(dev(), 512), Out(dev(), 256);
  for (unsigned I = 0; I < 128; ++I)
    Src.data<uint32_t>()[I] = pattern(I);
  std::memset(Out.data(), 0xee, 256);
  DispatchResult R = run("k_loads", {Src.address(), Out.address()});
  ASSERT_TRUE(R.ok()) << R.FirstFault.Message;
  std::vector<uint32_t> Want;
  Want.push_back(pattern(1));                 // s_load_dword imm
  for (unsigned I = 2; I < 4; ++I)            // x2
    Want.push_back(pattern(I));
  for (unsigned I = 4; I < 8; ++I)            // x4
    Want.push_back(pattern(I));
  for (unsigned I = 8; I < 16; ++I)           // x8
    Want.push_back(pattern(I));
  for (unsigned I = 16; I < 32; ++I)          // x16
    Want.push_back(pattern(I));
  Want.push_back(pattern(33));                // SGPR offset
  Want.push_back(pattern(35));                // SGPR + immediate
  Want.push_back(pattern(36));
  Want.push_back(pattern(1));                 // low address bits ignored
  Want.push_back(pattern(62));                // negative immediate
  Want.push_back(pattern(40));                // SOE=1, IMM=0 encoding
  Want.push_back(0x5a5a);                     // store, SGPR offset
  Want.push_back(1);                          // store, SGPR + immediate
  Want.push_back(2);
  const uint32_t *O = Out.data<uint32_t>();
  for (unsigned I = 0; I < Want.size(); ++I)
    EXPECT_EQ(O[I], Want[I]) << "slot " << I;
  EXPECT_EQ(O[Want.size()], 0xeeeeeeeeu) << "stores beyond the last slot";
  // Bytes are counted per instruction: 64 for the x16 load.
  uint64_t X16 = 0;
  for (const InstructionCount &IC : R.Counters.Instructions)
    if (IC.Opcode == "S_LOAD_DWORDX16_IMM")
      X16 += IC.MemoryBytes;
  EXPECT_EQ(X16, 64u);
}

TEST(ScalarMemory, AccessesAreRecordedAsOneLane) {
  DeviceOptions Opts;
  Opts.RecordMemoryAccesses = true;
  auto D = Device::create(Opts);
  ASSERT_TRUE(bool(D)) << llvm::toString(D.takeError());
  auto M = Module::loadFile(**D, std::string(LOOM_EMU_CORE_DIR) +
                                     "/scalar.elf");
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  DeviceBuffer Src(**D, 512), Out(**D, 256);
  DeviceBuffer Kernarg(**D, 64);
  uint64_t Args[] = {Src.address(), Out.address()};
  std::memcpy(Kernarg.data(), Args, sizeof(Args));
  DispatchParams P;
  P.KernelObject = *(*M)->kernelObject("k_loads");
  P.Kernarg = Kernarg.address();
  DispatchResult R = (*D)->dispatch(P);
  ASSERT_TRUE(R.ok()) << R.FirstFault.Message;
  bool SawX16 = false, SawStore = false;
  for (const MemoryAccessRecord &A : R.Counters.Accesses) {
    if (A.Space != 3)
      continue;
    EXPECT_EQ(A.ExecMask, 1u);
    ASSERT_EQ(A.Addresses.size(), 1u);
    if (A.BytesPerLane == 64 && A.Addresses[0] == Src.address() + 0x40 &&
        !A.IsWrite)
      SawX16 = true;
    if (A.IsWrite && A.Addresses[0] == Out.address() + 0x94 &&
        A.BytesPerLane == 4)
      SawStore = true;
  }
  EXPECT_TRUE(SawX16) << "the s_load_dwordx16";
  EXPECT_TRUE(SawStore) << "the s_store_dword with an SGPR offset";
}

/// k_buffer through a V# whose range is \p Limit bytes (num_records bytes
/// with stride 0, or num_records records of stride bytes).
void checkBuffer(uint32_t NumRecords, uint32_t Stride) {
  SCOPED_TRACE("num_records " + std::to_string(NumRecords) + " stride " +
               std::to_string(Stride));
  uint64_t Limit = Stride ? uint64_t(NumRecords) * Stride : NumRecords;
  DeviceBuffer Buf(dev(), 4096), Out(dev(), 256);
  uint32_t *B = Buf.data<uint32_t>();
  for (unsigned I = 0; I < 1024; ++I)
    B[I] = pattern(I);
  std::memset(Out.data(), 0xee, 256);
  DispatchResult R = run("k_buffer", {Buf.address(), Out.address(),
                                      NumRecords | uint64_t(Stride) << 32});
  ASSERT_TRUE(R.ok()) << R.FirstFault.Message;
  auto In = [&](uint64_t ByteOffset) { return ByteOffset + 4 <= Limit; };
  auto Load = [&](uint64_t ByteOffset) {
    return In(ByteOffset) ? pattern(unsigned(ByteOffset / 4)) : 0u;
  };
  const uint32_t *O = Out.data<uint32_t>();
  for (unsigned I = 0; I < 4; ++I)
    EXPECT_EQ(O[I], Load(4 * I)) << "x4 dword " << I;
  for (unsigned I = 0; I < 8; ++I)
    EXPECT_EQ(O[4 + I], Load(0x20 + 4 * I)) << "x8 dword " << I;
  EXPECT_EQ(O[12], Load(0x1000));
  EXPECT_EQ(O[13], Load(0x14));
  EXPECT_EQ(O[14], Load(0x18));
  for (unsigned I = 0; I < 4; ++I)
    EXPECT_EQ(B[8 + I], In(0x20 + 4 * I) ? 0x77 + I : pattern(8 + I))
        << "stored dword " << I;
  EXPECT_EQ(O[15], Load(4)) << "atomic's old value";
  EXPECT_EQ(B[1], pattern(1) + (In(4) ? 5 : 0));
  EXPECT_EQ(O[16], Load(0x320));
  EXPECT_EQ(B[200], pattern(200) + (In(0x320) ? 5 : 0));
}

TEST(ScalarMemory, BufferLoadsStoresAndAtomicsHonourTheRange) {
  checkBuffer(40, 0);
  checkBuffer(5, 8);
  checkBuffer(0, 0);
  checkBuffer(4096, 0);
  checkBuffer(1000, 4);
}

TEST(ScalarMemory, LoadFromUnregisteredMemoryFaults) {
  uint64_t Wild = 0x7f0000001000ull;
  DispatchResult R = run("k_load_from", {Wild});
  ASSERT_EQ(R.Status, DispatchStatus::MemoryFault) << R.FirstFault.Message;
  EXPECT_EQ(R.FirstFault.Address, Wild + 0x10);
  EXPECT_FALSE(R.FirstFault.IsWrite);
  EXPECT_EQ(R.FirstFault.Function, "k_load_from");
  EXPECT_NE(R.FirstFault.Message.find("7f0000001010"), std::string::npos)
      << R.FirstFault.Message;
  // A good address still works afterwards.
  DeviceBuffer Buf(dev(), 64);
  EXPECT_TRUE(run("k_load_from", {Buf.address()}).ok());
}

TEST(ScalarMemory, AtomicsAreAtomicAcrossWaves) {
  const unsigned Groups = 96, Iterations = 300;
  DeviceBuffer Counters(dev(), 64);
  std::memset(Counters.data(), 0, 64);
  DispatchResult R =
      run("k_atomic_count", {Counters.address(), Iterations}, Groups * 64, 64);
  ASSERT_TRUE(R.ok()) << R.FirstFault.Message;
  const uint32_t *C = Counters.data<uint32_t>();
  EXPECT_EQ(C[0], Groups * Iterations);
  EXPECT_EQ(C[2], Groups * Iterations);
  uint64_t Wide;
  std::memcpy(&Wide, C + 4, 8);
  EXPECT_EQ(Wide, uint64_t(Groups) * Iterations * 0x100000001ull);
}

TEST(ScalarMemory, ClocksMoveForwardAtTheirRates) {
  DeviceBuffer Out(dev(), 64);
  auto Now = [] {
    return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now().time_since_epoch())
                        .count());
  };
  uint64_t Before = Now();
  DispatchResult R = run("k_clocks", {Out.address()});
  uint64_t After = Now();
  ASSERT_TRUE(R.ok()) << R.FirstFault.Message;
  const uint64_t *T = Out.data<uint64_t>();
  // s_memrealtime: 100 MHz; s_memtime: 1 GHz; both from the steady clock.
  EXPECT_LE(Before / 10, T[0]);
  EXPECT_LE(T[0], T[3]);
  EXPECT_LE(T[3], After / 10);
  EXPECT_LE(Before, T[1]);
  EXPECT_LE(T[1], T[2]);
  EXPECT_LE(T[2], After);
}

//===----------------------------------------------------------------------===//
// Program control
//===----------------------------------------------------------------------===//

TEST(ScalarControl, BranchesCallsAndReturns) {
  DeviceBuffer Out(dev(), 64);
  std::memset(Out.data(), 0, 64);
  DispatchResult R = run("k_branches", {Out.address()});
  ASSERT_TRUE(R.ok()) << R.FirstFault.Message;
  const uint32_t *O = Out.data<uint32_t>();
  uint32_t Ran = 0x2 | 0x8 | 0x10 | 0x40 | 0x80 | 0x100 | 0x200 | 0x800 |
                 0x4000 | 0x8000;
  EXPECT_EQ(O[0], Ran) << "paths: " << hex(O[0]);
  uint64_t Ret, Pc;
  std::memcpy(&Ret, O + 1, 8);
  std::memcpy(&Pc, O + 3, 8);
  // s_getpc_b64 is the instruction the call returns to; it reads its own
  // address + 4.
  EXPECT_EQ(Pc, Ret + 4);
  std::optional<uint64_t> Start = env().Mod->symbolAddress("k_branches");
  ASSERT_TRUE(Start);
  EXPECT_GT(Ret, *Start);
  EXPECT_LT(Ret, *Start + 0x200);
}

TEST(ScalarControl, SwappcCallsAndSetpcReturns) {
  DeviceBuffer Out(dev(), 64);
  std::memset(Out.data(), 0, 64);
  DispatchResult R = run("k_swappc", {Out.address()});
  ASSERT_TRUE(R.ok()) << R.FirstFault.Message;
  EXPECT_EQ(Out.data<uint32_t>()[0], uint32_t(int16_t(0xc0de)));
}

TEST(ScalarControl, HintsAndCacheControlsDoNothing) {
  DeviceBuffer Out(dev(), 64);
  DispatchResult R = run("k_noops", {Out.address()});
  ASSERT_TRUE(R.ok()) << R.FirstFault.Message;
  EXPECT_EQ(Out.data<uint32_t>()[0], 0x600du);
}

TEST(ScalarControl, HaltAndTrapStopTheDispatch) {
  struct {
    const char *Kernel, *Message;
  } Cases[] = {{"k_sethalt", "s_sethalt"},
               {"k_sendmsghalt", "s_sendmsghalt"},
               {"k_trap", "s_trap 2"}};
  for (const auto &C : Cases) {
    DispatchResult R = run(C.Kernel, {});
    EXPECT_EQ(R.Status, DispatchStatus::Trap) << C.Kernel;
    EXPECT_EQ(R.FirstFault.Function, C.Kernel);
    EXPECT_NE(R.FirstFault.Message.find(C.Message), std::string::npos)
        << R.FirstFault.Message;
  }
}

TEST(ScalarControl, ExecMasksTheLanesOfVectorInstructions) {
  for (uint64_t Mask : {0ull, ~0ull, 0x5555555555555555ull, 1ull << 63,
                        0x8000000000000001ull, 0x00000000ffff0000ull}) {
    SCOPED_TRACE("mask " + hex(Mask));
    DeviceBuffer Out(dev(), 512);
    std::memset(Out.data(), 0xaa, 512);
    DispatchResult R = run("k_exec_lanes", {Out.address(), Mask}, 64, 64);
    ASSERT_TRUE(R.ok()) << R.FirstFault.Message;
    const uint32_t *O = Out.data<uint32_t>();
    for (unsigned L = 0; L < 64; ++L) {
      EXPECT_EQ(O[L], (Mask >> L) & 1 ? L : 0xaaaaaaaau) << "lane " << L;
      EXPECT_EQ(O[64 + L], 1000u) << "lane " << L << " after the restore";
    }
  }
}

//===----------------------------------------------------------------------===//
// Hardware registers and GPR indexing
//===----------------------------------------------------------------------===//

TEST(ScalarHwReg, GetregSetregAndGprIndexing) {
  DeviceBuffer Out(dev(), 256);
  std::memset(Out.data(), 0xee, 256);
  DispatchResult R = run("k_hwreg", {Out.address()});
  ASSERT_TRUE(R.ok()) << R.FirstFault.Message;
  const uint32_t *O = Out.data<uint32_t>();
  const loom::codeobj::Kernel *K =
      env().Mod->codeObject().findKernel("k_hwreg");
  ASSERT_TRUE(K);
  const auto &R1 = K->KD.Rsrc1;
  uint32_t Mode = R1.FloatRoundMode32 | R1.FloatRoundMode16_64 << 2 |
                  R1.FloatDenormMode32 << 4 | R1.FloatDenormMode16_64 << 6 |
                  uint32_t(R1.EnableDx10Clamp) << 8 |
                  uint32_t(R1.EnableIeeeMode) << 9;
  EXPECT_EQ(O[0], Mode) << "MODE from the kernel descriptor";
  uint32_t NewMode = (Mode & ~0xffu) | 0x9 | 0x5 << 4;
  EXPECT_EQ(O[2], NewMode) << "s_setreg_b32 / s_setreg_imm32_b32 on MODE";
  EXPECT_EQ(O[3], (NewMode >> 2) & 7) << "a sub-field of MODE";
  // STATUS: SCC bit 0, EXECZ bit 9, VCCZ bit 10, VALID bit 16.
  EXPECT_EQ(O[4] & 1, 1u);
  EXPECT_EQ(O[5] & 1, 0u);
  EXPECT_EQ(O[4] & (1u << 16), 1u << 16);
  EXPECT_EQ(O[6], 2u) << "EXECZ clear, VCCZ set";
  EXPECT_EQ(O[7], 1u) << "EXECZ set, VCCZ clear";
  EXPECT_EQ(O[8], 1u) << "SCC written through STATUS";
  EXPECT_EQ(O[9], 0u);
  EXPECT_EQ(O[10], 0xbu << 8) << "TRAPSTS";
  EXPECT_EQ(O[11], uint32_t(SharedApertureBase >> 48) << 16 |
                       uint32_t(PrivateApertureBase >> 48))
      << "SH_MEM_BASES";
  EXPECT_EQ((O[12] >> 8) & 0x3f, K->KD.Rsrc1.GranulatedWorkitemVgprCount)
      << "GPR_ALLOC.VGPR_SIZE";
  EXPECT_EQ(O[13], 0u) << "LDS_ALLOC: no LDS";
  EXPECT_EQ(O[14], 0u) << "IB_STS: nothing outstanding";
  EXPECT_EQ(O[15], 1u << 30) << "HW_ID of the only wave";
  // GPR indexing: M0[7:0] index, M0[15:12] operands, MODE bit 27 enable.
  EXPECT_EQ(O[16], (0x12345678u & ~0xf0ffu) | 0xf3 | 0x9 << 12);
  EXPECT_EQ(O[17], NewMode | 1u << 27);
  EXPECT_EQ(O[18], (O[16] & ~0xf000u) | 0x6 << 12);
  EXPECT_EQ(O[19], (O[18] & ~0xffu) | 0xc5);
  EXPECT_EQ(O[20], NewMode) << "s_set_gpr_idx_off clears the enable";
  EXPECT_EQ(O[21], O[19]) << "and leaves M0";
}

/// HW_ID of every wave of a dispatch of \p Groups groups of \p Waves waves.
void checkHwId(unsigned Groups, unsigned Waves) {
  SCOPED_TRACE(std::to_string(Groups) + " groups of " + std::to_string(Waves) +
               " waves");
  unsigned N = Groups * Waves;
  DeviceBuffer Out(dev(), 8 + 8 * N);
  std::memset(Out.data(), 0, 8 + 8 * N);
  DispatchResult R = run("k_hw_id", {Out.address()}, N * 64, Waves * 64);
  ASSERT_TRUE(R.ok()) << R.FirstFault.Message;
  const uint32_t *O = Out.data<uint32_t>();
  ASSERT_EQ(O[0], N);
  std::set<std::pair<uint32_t, uint32_t>> Slots; // (group, simd | wave << 2)
  for (unsigned I = 0; I < N; ++I) {
    uint32_t Id = O[2 + 2 * I], G = O[3 + 2 * I];
    unsigned WaveId = Id & 0xf, Simd = (Id >> 4) & 3, Cu = (Id >> 8) & 0xf,
             Se = (Id >> 13) & 3, Tg = (Id >> 16) & 0xf, Me = Id >> 30;
    EXPECT_EQ(Cu, G % 16) << "group " << G;
    EXPECT_EQ(Se, G / 16 % 4) << "group " << G;
    EXPECT_EQ(Tg, G / 64 % 16) << "group " << G;
    EXPECT_EQ(Me, 1u);
    EXPECT_LT(Simd + 4 * WaveId, Waves);
    EXPECT_TRUE(Slots.insert({G, Simd | WaveId << 2}).second)
        << "two waves of group " << G << " on SIMD " << Simd << " slot "
        << WaveId;
  }
}

TEST(ScalarHwReg, HwIdPlacesEveryWave) {
  checkHwId(80, 1);
  checkHwId(1, 4);
  checkHwId(3, 16);
}

//===----------------------------------------------------------------------===//
// Clang's scalar code: kernels/scalar.c built for the device at -O0 and -O2
// against the same source built for the host.
//===----------------------------------------------------------------------===//

#define KERNEL static
#include "emu/core/kernels/scalar.c"
#undef KERNEL

class ScalarClang : public ::testing::TestWithParam<int> {};

TEST_P(ScalarClang, UniformArithmeticMatchesTheHost) {
  auto M = Module::loadFile(dev(), std::string(LOOM_EMU_CORE_DIR) +
                                       "/scalar.O" +
                                       std::to_string(GetParam()) + ".elf");
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  ASSERT_FALSE(bool((*M)->resolve(
      [](llvm::StringRef) { return std::optional<uint64_t>(); })));
  const unsigned N = 64;
  const u64 Vals[] = {0,
                      1,
                      0x7fffffff,
                      0x80000000,
                      0xffffffff,
                      0x8000000000000000ull,
                      0xffffffffffffffffull,
                      0x123456789abcdef0ull,
                      0xfedcba9876543210ull,
                      37};
  for (u64 A : Vals)
    for (u64 B : {Vals[2], Vals[3], Vals[6], Vals[7], A})
      for (u32 C : {0u, 7u, 0x80000000u, 0xfffffff1u, 0x12345678u}) {
        u32 D = u32(A * 0x9e3779b9u) ^ C;
        SCOPED_TRACE("a=" + hex(A) + " b=" + hex(B) + " c=" + hex(C) +
                     " d=" + hex(D));
        DeviceBuffer Out(dev(), N * 8);
        std::memset(Out.data(), 0xcd, N * 8);
        u64 Want[N];
        std::memset(Want, 0xcd, sizeof(Want));
        uniform_ops(Want, A, B, C, D);
        auto R = (*M)->launch("uniform_ops", LaunchConfig::linear(1, 1),
                              KernelArgs().add(Out.address()).add(A).add(B)
                                  .add(C).add(D));
        ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
        ASSERT_TRUE(R->ok()) << R->FirstFault.Message;
        for (unsigned I = 0; I < N; ++I)
          ASSERT_EQ(Out.data<u64>()[I], Want[I]) << "result " << I;
      }
}

INSTANTIATE_TEST_SUITE_P(OptLevels, ScalarClang, ::testing::Values(0, 2),
                         [](const auto &Info) {
                           return "O" + std::to_string(Info.param);
                         });

//===----------------------------------------------------------------------===//
// Coverage: every scalar operation of gfx90a has a handler, except those
// Loom knowingly leaves out.
//===----------------------------------------------------------------------===//

TEST(ScalarCoverage, EveryGfx90aScalarOperationIsImplemented) {
  auto Ops = targetOperations("gfx90a");
  ASSERT_TRUE(bool(Ops)) << llvm::toString(Ops.takeError());
  // Left out: the SI-era fork/join control stack and s_setvskip (LLVM never
  // emits them), trap-handler returns, scalar scratch access (no documented
  // address computation, never emitted).
  auto LeftOut = [](llvm::StringRef Op) {
    return Op.starts_with("S_CBRANCH_JOIN") ||
           Op.starts_with("S_CBRANCH_G_FORK") ||
           Op.starts_with("S_CBRANCH_I_FORK") || Op == "S_SETVSKIP" ||
           Op.starts_with("S_RFE_") || Op.starts_with("S_SCRATCH_");
  };
  unsigned Scalar = 0;
  for (const std::string &Op : *Ops) {
    llvm::StringRef N(Op);
    if (!N.starts_with("S_") || LeftOut(N))
      continue;
    ++Scalar;
    EXPECT_TRUE(isImplemented(N)) << N.str();
  }
  EXPECT_GT(Scalar, 300u);
}

} // namespace
