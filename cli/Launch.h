//===- cli/Launch.h - Running a program on Loom's runtime ------------------===//
//
// What `loom exec` does once its options are read, without LLVM: the
// launcher (Launcher.cpp) runs well-formed `loom exec` command lines with it
// before any of LLVM is loaded, and ExecCommand.cpp with it after parsing
// the rest.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_CLI_LAUNCH_H
#define LOOM_CLI_LAUNCH_H

#include <string>

namespace loom::cli {

/// The running executable's directory ("" if unknown).
std::string executableDir();

/// The directory holding Loom's libhsa-runtime64.so.1 (LOOM_LIB_DIR, or
/// lib/ next to the loom executable's bin/), or "" if there is none.
std::string loomLibraryDir();

/// \p Path made absolute against the working directory.
std::string absolutePath(const std::string &Path);

/// Sets what `loom exec`'s options ask of the runtime: a dispatch time
/// limit (\p TimeoutSeconds, if not null) and the counter and memory trace
/// files (if not empty), as absolute paths.
void setExecOptions(const unsigned *TimeoutSeconds,
                    const std::string &CountersFile,
                    const std::string &MemoryTraceFile);

/// Runs \p Argv (execvp) with \p LibDir first in LD_LIBRARY_PATH and
/// Loom's shim preloaded. Returns only if it cannot, with 127, after
/// printing "loom <Command>: cannot run ...".
int execWithRuntime(const char *Command, const std::string &LibDir,
                    char **Argv);

} // namespace loom::cli

#endif // LOOM_CLI_LAUNCH_H
