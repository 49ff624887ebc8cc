//===- loom/instrument/DispatchAbi.h - Registers a kernel starts with -----===//
//
// The initial register state of a wave (AMDGPUUsage, "Initial Kernel
// Execution State"), as its kernel descriptor enables it: what a kernel may
// read before writing, and what an instrumented kernel's preamble must
// leave as it found it.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_INSTRUMENT_DISPATCHABI_H
#define LOOM_INSTRUMENT_DISPATCHABI_H

#include "loom/codeobj/KernelDescriptor.h"
#include "loom/instrument/RegisterSet.h"

#include "llvm/ADT/StringRef.h"

namespace loom::instrument {

/// The user SGPRs, then the system SGPRs (work-group ids, work-group info,
/// private segment wave offset), the work-item id VGPRs (packed into v0 on
/// gfx90a and gfx942), EXEC, MODE, and FLAT_SCRATCH where the hardware
/// sets it up (gfx942's architected flat scratch).
RegisterSet initialRegisters(const codeobj::KernelDescriptor &KD,
                             llvm::StringRef Processor);

} // namespace loom::instrument

#endif // LOOM_INSTRUMENT_DISPATCHABI_H
