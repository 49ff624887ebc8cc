//===- jit/HsaError.h - HSA statuses as llvm::Error -----------------------===//
#ifndef LOOM_JIT_HSAERROR_H
#define LOOM_JIT_HSAERROR_H

#include "hsa/hsa.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

namespace loom::jit {

/// "<Call> failed: <the runtime's text for S> (0x...)".
llvm::Error hsaError(hsa_status_t S, const llvm::Twine &Call);

} // namespace loom::jit

/// Returns an llvm::Error naming \p Call when it does not succeed.
#define CHECK_HSA(Call)                                                        \
  do {                                                                         \
    hsa_status_t S_ = (Call);                                                  \
    if (S_ != HSA_STATUS_SUCCESS)                                              \
      return ::loom::jit::hsaError(S_, #Call);                                 \
  } while (0)

#endif // LOOM_JIT_HSAERROR_H
