//===- jit/Recovery.h - LLVM fatal errors and crashes as llvm::Error ------===//
//
// LLVM and lld report some failures by report_fatal_error (which exits the
// process) or by crashing on input they did not expect. A library must not
// take its host down with it: runRecoverable runs a step under a
// CrashRecoveryContext with a fatal-error handler that returns to it, so
// either becomes an Error naming the step. Memory the step had allocated
// may leak; that is the price of not exiting.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_JIT_RECOVERY_H
#define LOOM_JIT_RECOVERY_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

namespace loom::jit {

/// Runs \p Step; returns its Error, or one saying "<What>: <LLVM's
/// message>" if it hit a fatal error or crashed.
llvm::Error runRecoverable(const llvm::Twine &What,
                           llvm::function_ref<llvm::Error()> Step);

} // namespace loom::jit

#endif // LOOM_JIT_RECOVERY_H
