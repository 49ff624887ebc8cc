//===- loom/codeobj/Kernarg.h - Kernarg segments built from metadata -----===//
//
// What a runtime writes into a kernel's kernarg segment besides the
// explicit arguments: the hidden arguments of code object v4 to v6
// (AMDGPUUsage, "Kernel Argument Metadata" and "Code Object V5 Kernel
// Implicit Arguments"), found by value kind in the kernel's metadata. One
// implementation for every launcher in Loom (the emulator's Module::launch,
// the JIT's Kernel::launch).
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_CODEOBJ_KERNARG_H
#define LOOM_CODEOBJ_KERNARG_H

#include "loom/codeobj/Metadata.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace loom::codeobj {

/// The launch geometry and the runtime's buffers that hidden arguments
/// carry. Buffers a launcher does not provide stay 0 (a null pointer).
struct HiddenArgumentValues {
  uint32_t GridItems[3] = {1, 1, 1}; ///< grid size in work-items
  uint16_t GroupItems[3] = {1, 1, 1};
  uint16_t Dimensions = 1;
  uint32_t DynamicLdsBytes = 0;
  uint64_t SharedApertureBase = 0;
  uint64_t PrivateApertureBase = 0;
  uint64_t QueuePointer = 0;
  uint64_t HeapV1 = 0;
  uint64_t PrintfBuffer = 0;
  uint64_t HostcallBuffer = 0;
};

/// Writes every hidden argument of \p Kernel into \p Kernarg (at least
/// Kernel.KernargSegmentSize bytes). Global offsets, and hidden arguments
/// a launcher has no value for, are zero: the segment should be zeroed
/// first. Fails if an argument lies outside \p Kernarg.
llvm::Error writeHiddenArguments(const KernelMetadata &Kernel,
                                 const HiddenArgumentValues &Values,
                                 llvm::MutableArrayRef<uint8_t> Kernarg);

} // namespace loom::codeobj

#endif // LOOM_CODEOBJ_KERNARG_H
