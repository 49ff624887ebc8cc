//===- tests/support/RunCommand.h - Run a program, capture its output -----===//
#ifndef LOOM_TESTS_SUPPORT_RUNCOMMAND_H
#define LOOM_TESTS_SUPPORT_RUNCOMMAND_H

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

#include <optional>
#include <unistd.h>
#include <string>
#include <vector>

namespace loom::test {

struct CommandResult {
  /// Exit code; -2 if the program crashed (died by a signal), -1 if it
  /// could not be run.
  int ExitCode = -1;
  std::string Out;
  std::string Err;
  std::string ErrorMessage; // from LLVM, when the program could not run

  bool crashed() const { return ExitCode == -2; }
};

/// Runs \p Args (Args[0] is the program path) with stdout and stderr
/// captured through temporary files, in this process's environment plus
/// \p ExtraEnv ("NAME=VALUE" entries, which win).
inline CommandResult runCommand(const std::vector<std::string> &Args,
                                const std::vector<std::string> &ExtraEnv = {}) {
  CommandResult R;
  llvm::SmallString<128> OutPath, ErrPath;
  llvm::sys::fs::createTemporaryFile("loom-test", "out", OutPath);
  llvm::sys::fs::createTemporaryFile("loom-test", "err", ErrPath);
  std::vector<llvm::StringRef> Argv(Args.begin(), Args.end());
  std::optional<llvm::StringRef> Redirects[] = {std::nullopt, OutPath.str(),
                                                ErrPath.str()};
  std::optional<llvm::ArrayRef<llvm::StringRef>> Env;
  std::vector<llvm::StringRef> EnvRefs;
  if (!ExtraEnv.empty()) {
    EnvRefs.assign(ExtraEnv.begin(), ExtraEnv.end());
    for (char **E = environ; *E; ++E) {
      llvm::StringRef Entry(*E);
      llvm::StringRef Name = Entry.split('=').first;
      if (llvm::none_of(ExtraEnv, [&](llvm::StringRef X) {
            return X.split('=').first == Name;
          }))
        EnvRefs.push_back(Entry);
    }
    Env = EnvRefs;
  }
  R.ExitCode = llvm::sys::ExecuteAndWait(Args.at(0), Argv, Env,
                                         Redirects, /*SecondsToWait=*/120,
                                         /*MemoryLimit=*/0, &R.ErrorMessage);
  auto Slurp = [](llvm::StringRef Path) {
    auto Buf = llvm::MemoryBuffer::getFile(Path);
    return Buf ? (*Buf)->getBuffer().str() : std::string();
  };
  R.Out = Slurp(OutPath);
  R.Err = Slurp(ErrPath);
  llvm::sys::fs::remove(OutPath);
  llvm::sys::fs::remove(ErrPath);
  return R;
}

} // namespace loom::test

#endif // LOOM_TESTS_SUPPORT_RUNCOMMAND_H
