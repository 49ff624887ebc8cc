//===- jit/Initialize.h - The AMDGPU target, registered once --------------===//
#ifndef LOOM_JIT_INITIALIZE_H
#define LOOM_JIT_INITIALIZE_H

namespace loom::jit {

/// Registers the AMDGPU target's code generator, assembly printer and
/// parser with LLVM once (thread-safe); every step of the pipeline calls it.
void initializeCodegen();

} // namespace loom::jit

#endif // LOOM_JIT_INITIALIZE_H
