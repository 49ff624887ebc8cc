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

#include <utility>
#include <vector>

namespace loom::instrument {

/// Where a kernel descriptor puts each input of the initial SGPR state
/// (-1: not enabled): the user SGPRs in ABI order, USER_SGPR_COUNT of them
/// (preloaded kernel arguments after the enabled inputs), then the system
/// SGPRs.
struct SgprLayout {
  int PrivateSegmentBuffer = -1; ///< 4 SGPRs
  int DispatchPtr = -1;          ///< 2
  int QueuePtr = -1;             ///< 2
  int KernargSegmentPtr = -1;    ///< 2
  int DispatchId = -1;           ///< 2
  int FlatScratchInit = -1;      ///< 2
  int PrivateSegmentSize = -1;   ///< 1
  unsigned EnabledUserSgprs = 0; ///< the inputs above
  unsigned UserSgprs = 0;        ///< USER_SGPR_COUNT
  int WorkgroupId[3] = {-1, -1, -1};
  int WorkgroupInfo = -1;
  int PrivateSegmentWaveOffset = -1;
  unsigned Total = 0;

  static SgprLayout of(const codeobj::KernelDescriptor &KD);
  /// Every initial SGPR of \p Old, as (its place in Old, its place in
  /// \p New), New enabling the same inputs and maybe more.
  static std::vector<std::pair<unsigned, unsigned>>
  moves(const SgprLayout &Old, const SgprLayout &New);
};

/// gfx90a, gfx94x, gfx95x: VGPRs and AGPRs share one file of 512 per lane,
/// and the work-item ids come packed in v0.
bool hasUnifiedVectorFile(llvm::StringRef Processor);
/// gfx94x, gfx95x: the hardware sets FLAT_SCRATCH up (architected flat
/// scratch); no private segment V# is passed in s[0:3].
bool hasArchitectedFlatScratch(llvm::StringRef Processor);

/// The user SGPRs, then the system SGPRs (work-group ids, work-group info,
/// private segment wave offset), the work-item id VGPRs (packed into v0 on
/// gfx90a and gfx942), EXEC, MODE, and FLAT_SCRATCH where the hardware
/// sets it up (gfx942's architected flat scratch).
RegisterSet initialRegisters(const codeobj::KernelDescriptor &KD,
                             llvm::StringRef Processor);

} // namespace loom::instrument

#endif // LOOM_INSTRUMENT_DISPATCHABI_H
