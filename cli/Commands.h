//===- cli/Commands.h - The loom subcommands -------------------------------===//
//
// Each subcommand owns its llvm::cl::SubCommand and options in its own file;
// main() dispatches to the run function of the one that was selected.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_CLI_COMMANDS_H
#define LOOM_CLI_COMMANDS_H

#include "Launch.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace loom::cli {

/// Every loom option is in this category; --help hides LLVM's own options.
extern llvm::cl::OptionCategory LoomCategory;

extern llvm::cl::SubCommand InspectCommand;
int runInspect();

extern llvm::cl::SubCommand DisasmCommand;
int runDisasm();

extern llvm::cl::SubCommand CoverageCommand;
int runCoverage();

extern llvm::cl::SubCommand InfoCommand;
int runInfo();

extern llvm::cl::SubCommand ExecCommand;
int runExec();

extern llvm::cl::SubCommand InstrumentCommand;
int runInstrument();

extern llvm::cl::SubCommand RunCommand;
int runRun();

extern llvm::cl::SubCommand TraceCommand;
int runTrace();

/// loom cc takes clang's arguments as they are, so main() hands it argv
/// before llvm::cl sees it.
int runCc(llvm::ArrayRef<std::string> Args);

/// Prints "loom <command>: <message>" to stderr and returns exit code 1.
int reportError(llvm::StringRef Command, llvm::Error E);

/// Runs \p Argv (execvp) with Loom's runtime found first, as `loom exec`;
/// returns only if it cannot (after printing why).
int execOnLoom(llvm::StringRef Command, std::vector<std::string> &Argv);
/// The device library's directory, libloomdev.bc and its headers
/// (LOOM_DEVICE_DIR, or lib/loom/device/ next to bin/).
std::string loomDeviceDir();

} // namespace loom::cli

#endif // LOOM_CLI_COMMANDS_H
