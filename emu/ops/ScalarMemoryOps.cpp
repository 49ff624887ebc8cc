//===- emu/ops/ScalarMemoryOps.cpp - SMEM ----------------------------------===//
//
// Scalar loads, stores and atomics, on a 64-bit address in an SGPR pair
// (s_load/s_store/s_atomic) or through a buffer resource in four SGPRs
// (s_buffer_*), plus the SMEM-encoded clocks and cache controls. Memory
// operations complete at once, so s_waitcnt lgkmcnt never waits and the
// cache controls have nothing to do.
//
// Every form of an operation shares one handler; the forms differ in where
// the byte offset comes from: the instruction (_IMM: Imm[0]), an SGPR
// (_SGPR, and _SGPR_alt, gfx9's other encoding of it: the operand after
// sbase), or both added (_SGPR_IMM). SMEM ignores the two low address bits.
//
// Operands: loads  Dst[0] = sdata, Src[0] = sbase [, Src[1] = soffset];
//           stores and atomics Src[0] = sdata, Src[1] = sbase
//           [, Src[2] = soffset]; returning atomics (glc) also have
//           Dst[0] = sdata (tied to Src[0]).
//
//===----------------------------------------------------------------------===//

#include "../Semantics.h"

#include "llvm/Support/FormatVariadic.h"

#include <atomic>
#include <chrono>
#include <string>
#include <type_traits>

namespace loom::emu {
namespace {

enum class Offs { Imm, Sgpr, SgprImm };

/// Where an access goes: its (dword-aligned) address and, through a buffer
/// resource, how many bytes from there are within the buffer's range.
struct Target {
  uint64_t Addr = 0;
  uint64_t InRange = ~0ull;

  /// How many of \p Dwords consecutive dwords may be accessed (a prefix:
  /// out-of-range dwords read as 0 and are not written).
  unsigned dwords(unsigned Dwords) const {
    return unsigned(std::min<uint64_t>(Dwords, InRange / 4));
  }
};

/// The address of an access whose sbase is Src[BaseSrc] (its soffset, if
/// any, follows it).
template <bool Buffer, Offs O>
Target target(const Wave &W, const DecodedInst &I, unsigned BaseSrc) {
  uint64_t Off = 0;
  if constexpr (O != Offs::Imm)
    Off += readScalar32(W, I.Src[BaseSrc + 1]);
  if constexpr (O != Offs::Sgpr)
    Off += uint64_t(I.Imm[0]);
  Target T;
  if constexpr (!Buffer) {
    T.Addr = (readScalar64(W, I.Src[BaseSrc]) + Off) & ~uint64_t(3);
  } else {
    // V#: base 47:0, stride 61:48, num_records 95:64 (bytes if stride 0,
    // else records of stride bytes).
    const uint32_t *V = &W.S[I.Src[BaseSrc].Index];
    uint64_t Base = V[0] | uint64_t(V[1] & 0xffff) << 32;
    uint32_t Stride = (V[1] >> 16) & 0x3fff;
    uint64_t Limit = Stride ? uint64_t(V[2]) * Stride : V[2];
    Off &= ~uint64_t(3);
    T.Addr = (Base + Off) & ~uint64_t(3);
    T.InRange = Off < Limit ? Limit - Off : 0;
  }
  return T;
}

/// Counts the bytes of an access and records it (as one lane) when the
/// device records accesses.
void account(Wave &W, const DecodedInst &I, uint64_t Addr, uint32_t Bytes,
             bool IsWrite, bool IsAtomic) {
  if (!Bytes)
    return;
  countBytes(W, I, Bytes);
  recordAccess(W, I, 1, &Addr, Bytes, IsWrite, IsAtomic, /*Space=*/3);
}

void writeDwords(Wave &W, const Operand &Dst, const uint32_t *V, unsigned N) {
  if (Dst.K != Operand::Sgpr)
    return;
  for (unsigned D = 0; D < N; ++D)
    if (Dst.Index + D != SgprNull)
      W.S[Dst.Index + D] = V[D];
}

//===----------------------------------------------------------------------===//
// Loads and stores
//===----------------------------------------------------------------------===//

template <unsigned Dwords, bool Buffer> struct Load {
  template <Offs O> static void run(Wave &W, const DecodedInst &I) {
    Target T = target<Buffer, O>(W, I, 0);
    unsigned N = T.dwords(Dwords);
    uint32_t Tmp[Dwords] = {};
    if (N) {
      if (!checkMemory(W, T.Addr, N * 4, false))
        return;
      std::memcpy(Tmp, reinterpret_cast<const void *>(T.Addr), N * 4);
    }
    writeDwords(W, I.Dst[0], Tmp, Dwords);
    account(W, I, T.Addr, N * 4, false, false);
  }
};

template <unsigned Dwords, bool Buffer> struct Store {
  template <Offs O> static void run(Wave &W, const DecodedInst &I) {
    Target T = target<Buffer, O>(W, I, 1);
    unsigned N = T.dwords(Dwords);
    if (!N)
      return;
    if (!checkMemory(W, T.Addr, N * 4, true))
      return;
    std::memcpy(reinterpret_cast<void *>(T.Addr), &W.S[I.Src[0].Index], N * 4);
    account(W, I, T.Addr, N * 4, true, false);
  }
};

//===----------------------------------------------------------------------===//
// Atomics
//===----------------------------------------------------------------------===//

/// New memory value from the old one, the data and (cmpswap) the compare
/// value.
template <typename T> using AtomicFn = T (*)(T Old, T Src, T Cmp);

template <typename T> T aSwap(T, T S, T) { return S; }
template <typename T> T aCmpswap(T O, T S, T C) { return O == C ? S : O; }
template <typename T> T aAdd(T O, T S, T) { return O + S; }
template <typename T> T aSub(T O, T S, T) { return O - S; }
template <typename T> T aSmin(T O, T S, T) {
  using I = std::make_signed_t<T>;
  return I(S) < I(O) ? S : O;
}
template <typename T> T aUmin(T O, T S, T) { return S < O ? S : O; }
template <typename T> T aSmax(T O, T S, T) {
  using I = std::make_signed_t<T>;
  return I(S) > I(O) ? S : O;
}
template <typename T> T aUmax(T O, T S, T) { return S > O ? S : O; }
template <typename T> T aAnd(T O, T S, T) { return O & S; }
template <typename T> T aOr(T O, T S, T) { return O | S; }
template <typename T> T aXor(T O, T S, T) { return O ^ S; }
template <typename T> T aInc(T O, T S, T) { return O >= S ? 0 : O + 1; }
template <typename T> T aDec(T O, T S, T) {
  return O == 0 || O > S ? S : O - 1;
}

template <typename T> T readT(const Wave &W, unsigned Idx) {
  if constexpr (sizeof(T) == 8)
    return W.read64(Idx);
  else
    return W.S[Idx];
}

/// Really atomic on host memory (other waves run on other threads). The
/// data operand holds the source value, then (cmpswap) the compare value;
/// the returning form writes the old value to its first dword(s). A buffer
/// atomic out of range does nothing and returns 0.
template <typename T, AtomicFn<T> F, bool Buffer, bool Rtn> struct Atomic {
  template <Offs O> static void run(Wave &W, const DecodedInst &I) {
    constexpr unsigned Words = sizeof(T) / 4;
    Target Tg = target<Buffer, O>(W, I, 1);
    const Operand &Data = I.Src[0];
    T Src = readT<T>(W, Data.Index);
    T Cmp = Data.Regs >= 2 * Words ? readT<T>(W, Data.Index + Words) : T(0);
    T Old = 0;
    if (Tg.InRange >= sizeof(T)) {
      if (Tg.Addr % sizeof(T)) {
        raiseFault(W, DispatchStatus::MemoryFault, Tg.Addr, true,
                   llvm::formatv("misaligned 8-byte scalar atomic at {0:x}",
                                 Tg.Addr)
                       .str());
        return;
      }
      if (!checkMemory(W, Tg.Addr, sizeof(T), true))
        return;
      std::atomic_ref<T> Ref(*reinterpret_cast<T *>(Tg.Addr));
      Old = Ref.load(std::memory_order_relaxed);
      while (!Ref.compare_exchange_weak(Old, F(Old, Src, Cmp),
                                        std::memory_order_seq_cst,
                                        std::memory_order_relaxed)) {
      }
      account(W, I, Tg.Addr, sizeof(T), true, true);
    }
    if constexpr (Rtn) {
      uint32_t Out[Words];
      for (unsigned D = 0; D < Words; ++D)
        Out[D] = uint32_t(uint64_t(Old) >> (32 * D));
      writeDwords(W, I.Dst[0], Out, Words);
    }
  }
};

//===----------------------------------------------------------------------===//
// Clocks and no-ops
//===----------------------------------------------------------------------===//

/// s_memtime counts a 1 GHz "shader clock", s_memrealtime a 100 MHz
/// reference clock; both from the host's steady clock (nanoseconds since
/// its epoch), so they only move forward.
template <uint64_t NsPerTick> void sClock(Wave &W, const DecodedInst &I) {
  auto Ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                std::chrono::steady_clock::now().time_since_epoch())
                .count();
  writeScalar64(W, I.Dst[0], uint64_t(Ns) / NsPerTick);
}

struct NoOp {
  template <Offs> static void run(Wave &, const DecodedInst &) {}
};

/// Registers the addressing forms of one operation: Name_IMM, Name_SGPR
/// (also as Name_SGPR_alt) and Name_SGPR_IMM, \p Rtn ("" or "_RTN")
/// following the addressing form.
template <typename Op>
void addForms(HandlerTable &T, const std::string &Name, uint32_t Flags,
              const char *Rtn = "") {
  T.add(Name + "_IMM" + Rtn, Op::template run<Offs::Imm>, Flags);
  T.add(Name + "_SGPR" + Rtn, Op::template run<Offs::Sgpr>, Flags);
  T.add(Name + "_SGPR" + Rtn + "_alt", Op::template run<Offs::Sgpr>, Flags);
  T.add(Name + "_SGPR_IMM" + Rtn, Op::template run<Offs::SgprImm>, Flags);
}

template <typename T, AtomicFn<T> F>
void addAtomic(HandlerTable &Tab, const std::string &Op) {
  const std::string Global = "S_ATOMIC_" + Op, Buffer = "S_BUFFER_ATOMIC_" + Op;
  addForms<Atomic<T, F, false, false>>(Tab, Global, FlagMemory);
  addForms<Atomic<T, F, false, true>>(Tab, Global, FlagMemory, "_RTN");
  addForms<Atomic<T, F, true, false>>(Tab, Buffer, FlagMemory);
  addForms<Atomic<T, F, true, true>>(Tab, Buffer, FlagMemory, "_RTN");
}

/// Both widths of an atomic operation (Op, Op_X2).
template <AtomicFn<uint32_t> F32, AtomicFn<uint64_t> F64>
void addAtomicOp(HandlerTable &T, const std::string &Op) {
  addAtomic<uint32_t, F32>(T, Op);
  addAtomic<uint64_t, F64>(T, Op + "_X2");
}

} // namespace

void registerScalarMemoryOps(HandlerTable &T) {
  addForms<Load<1, false>>(T, "S_LOAD_DWORD", FlagMemory);
  addForms<Load<2, false>>(T, "S_LOAD_DWORDX2", FlagMemory);
  addForms<Load<4, false>>(T, "S_LOAD_DWORDX4", FlagMemory);
  addForms<Load<8, false>>(T, "S_LOAD_DWORDX8", FlagMemory);
  addForms<Load<16, false>>(T, "S_LOAD_DWORDX16", FlagMemory);
  addForms<Load<1, true>>(T, "S_BUFFER_LOAD_DWORD", FlagMemory);
  addForms<Load<2, true>>(T, "S_BUFFER_LOAD_DWORDX2", FlagMemory);
  addForms<Load<4, true>>(T, "S_BUFFER_LOAD_DWORDX4", FlagMemory);
  addForms<Load<8, true>>(T, "S_BUFFER_LOAD_DWORDX8", FlagMemory);
  addForms<Load<16, true>>(T, "S_BUFFER_LOAD_DWORDX16", FlagMemory);
  addForms<Store<1, false>>(T, "S_STORE_DWORD", FlagMemory);
  addForms<Store<2, false>>(T, "S_STORE_DWORDX2", FlagMemory);
  addForms<Store<4, false>>(T, "S_STORE_DWORDX4", FlagMemory);
  addForms<Store<1, true>>(T, "S_BUFFER_STORE_DWORD", FlagMemory);
  addForms<Store<2, true>>(T, "S_BUFFER_STORE_DWORDX2", FlagMemory);
  addForms<Store<4, true>>(T, "S_BUFFER_STORE_DWORDX4", FlagMemory);

  using u32 = uint32_t;
  using u64 = uint64_t;
  addAtomicOp<aSwap<u32>, aSwap<u64>>(T, "SWAP");
  addAtomicOp<aCmpswap<u32>, aCmpswap<u64>>(T, "CMPSWAP");
  addAtomicOp<aAdd<u32>, aAdd<u64>>(T, "ADD");
  addAtomicOp<aSub<u32>, aSub<u64>>(T, "SUB");
  addAtomicOp<aSmin<u32>, aSmin<u64>>(T, "SMIN");
  addAtomicOp<aUmin<u32>, aUmin<u64>>(T, "UMIN");
  addAtomicOp<aSmax<u32>, aSmax<u64>>(T, "SMAX");
  addAtomicOp<aUmax<u32>, aUmax<u64>>(T, "UMAX");
  addAtomicOp<aAnd<u32>, aAnd<u64>>(T, "AND");
  addAtomicOp<aOr<u32>, aOr<u64>>(T, "OR");
  addAtomicOp<aXor<u32>, aXor<u64>>(T, "XOR");
  addAtomicOp<aInc<u32>, aInc<u64>>(T, "INC");
  addAtomicOp<aDec<u32>, aDec<u64>>(T, "DEC");

  T.add("S_MEMTIME", sClock<1>);
  T.add("S_MEMREALTIME", sClock<10>);
  for (const char *Name :
       {"S_DCACHE_INV", "S_DCACHE_INV_VOL", "S_DCACHE_WB", "S_DCACHE_WB_VOL"})
    T.add(Name, NoOp::run<Offs::Imm>);
  for (const char *Name : {"S_DCACHE_DISCARD", "S_DCACHE_DISCARD_X2",
                           "S_ATC_PROBE", "S_ATC_PROBE_BUFFER"})
    addForms<NoOp>(T, Name, 0);
}

} // namespace loom::emu
