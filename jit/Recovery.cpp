//===- jit/Recovery.cpp - LLVM fatal errors and crashes as llvm::Error ----===//

#include "Recovery.h"

#include "loom/isa/McContext.h"

#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>
#include <string>

using namespace llvm;

namespace loom::jit {

namespace {

/// The message of the fatal error that ended this thread's current step.
thread_local std::string *FatalMessage = nullptr;

void onFatalError(void *, const char *Reason, bool) {
  if (FatalMessage) {
    if (CrashRecoveryContext *CRC = CrashRecoveryContext::GetCurrent()) {
      *FatalMessage = Reason;
      CRC->HandleExit(1); // back to runRecoverable; does not return
    }
  }
  // Outside a step (the emulator's trace compiler, say): LLVM's own
  // behaviour, which exits once this returns.
  errs() << "LLVM ERROR: " << Reason << "\n";
}

void installHandlers() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    isa::enableCrashRecovery();
    install_fatal_error_handler(onFatalError);
  });
}

} // namespace

Error runRecoverable(const Twine &What, function_ref<Error()> Step) {
  installHandlers();
  // On for every step: the HSA runtime's copy of isa's recovery scopes
  // (a library of its own) may have turned LLVM's off since, when its
  // last scope ended.
  CrashRecoveryContext::Enable();
  std::string Message;
  std::string *Outer = FatalMessage;
  FatalMessage = &Message;
  Error Result = Error::success();
  CrashRecoveryContext CRC;
  bool Completed = CRC.RunSafely([&] { Result = Step(); });
  FatalMessage = Outer;
  if (Completed)
    return Result;
  consumeError(std::move(Result));
  if (Message.empty())
    Message = "LLVM crashed (signal or abort)";
  return createStringError(What + ": " + Message);
}

} // namespace loom::jit
