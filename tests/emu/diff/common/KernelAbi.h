//===- KernelAbi.h - Constants kernels and tests must agree on ------------===//
//
// Operation selectors, counter slots and result counts of the kernels whose
// host references are written by hand in the tests.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TESTS_EMU_DIFF_COMMON_KERNELABI_H
#define LOOM_TESTS_EMU_DIFF_COMMON_KERNELABI_H

#include "DiffCommon.h"

namespace diff {

// amdgcn_builtins.cpp: approx_f32's Op argument.
enum ApproxF32Op : uint32_t {
  OpRcp,
  OpRsq,
  OpSqrt,
  OpExp2,
  OpLog2,
  OpSin,
  OpCos,
  OpLibExp2, // llvm.exp2.f32, lowered around v_exp_f32
  OpLibLog2, // llvm.log2.f32, lowered around v_log_f32
};

// amdgcn_builtins.cpp: approx_f64's Op argument.
enum ApproxF64Op : uint32_t { OpRcp64, OpRsq64, OpSqrt64 };

// amdgcn_builtins.cpp: exact_builtins' Op argument.
enum ExactOp : uint32_t {
  OpFract,
  OpFrexpMant,
  OpFrexpExp,
  OpClass,
  OpMed3,
  OpPkRtz,
  OpAlignBit,
  OpAlignByte,
  OpUbfe,
  OpSbfe,
};

// crosslane.cpp: results per work-item.
inline constexpr uint32_t CrosslaneResults = 36;

// dispatch.cpp: words per work-item.
inline constexpr uint32_t DispatchFields = 18;

// atomics.cpp: global 32-bit counters.
enum U32Slot : uint32_t {
  SlotInc,
  SlotAdd,
  SlotSub,
  SlotSMax,
  SlotSMin,
  SlotUMax,
  SlotUMin,
  SlotAnd,
  SlotOr,
  SlotXor,
  SlotXchg,
  SlotWrapInc,
  SlotWrapDec,
  SlotCas,
  SlotBins = 16, // 16 bins
  U32Slots = 32,
};
inline constexpr uint32_t WrapLimit = 37;

// atomics.cpp: global 64-bit counters.
enum U64Slot : uint32_t {
  Slot64Add,
  Slot64UMax,
  Slot64SMin,
  Slot64And,
  Slot64Or,
  Slot64Xor,
  Slot64Xchg,
  Slot64Cas,
  U64Slots,
};

// atomics.cpp: LDS counters, per work-group.
enum LdsSlot : uint32_t {
  LdsInc,
  LdsAdd,
  LdsUMax,
  LdsSMin,
  LdsAnd,
  LdsOr,
  LdsXor,
  LdsXchg,
  LdsFAdd,
  LdsBins = 16, // 16 bins
  LdsSlots = 32,
};

} // namespace diff

#endif // LOOM_TESTS_EMU_DIFF_COMMON_KERNELABI_H
