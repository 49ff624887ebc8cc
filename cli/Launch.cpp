//===- cli/Launch.cpp - Running a program on Loom's runtime ----------------===//

#include "Launch.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

namespace loom::cli {

std::string executableDir() {
  char Buf[PATH_MAX];
  ssize_t N = readlink("/proc/self/exe", Buf, sizeof(Buf) - 1);
  if (N <= 0)
    return {};
  std::string Exe(Buf, size_t(N));
  size_t Slash = Exe.rfind('/');
  return Slash == std::string::npos ? std::string() : Exe.substr(0, Slash);
}

std::string loomLibraryDir() {
  if (const char *Env = getenv("LOOM_LIB_DIR"); Env && *Env)
    return Env;
  std::string Bin = executableDir();
  size_t Slash = Bin.rfind('/');
  if (Slash == std::string::npos)
    return {};
  std::string Dir = Bin.substr(0, Slash) + "/lib";
  return access((Dir + "/libhsa-runtime64.so.1").c_str(), F_OK) == 0
             ? Dir
             : std::string();
}

std::string absolutePath(const std::string &Path) {
  if (Path.empty() || Path[0] == '/')
    return Path;
  char Cwd[PATH_MAX];
  if (!getcwd(Cwd, sizeof(Cwd)))
    return Path;
  return std::string(Cwd) + "/" + Path;
}

static void prependEnv(const char *Name, const std::string &Value,
                       char Separator) {
  std::string New = Value;
  if (const char *Old = getenv(Name); Old && *Old)
    New += Separator + std::string(Old);
  setenv(Name, New.c_str(), 1);
}

void setExecOptions(const unsigned *TimeoutSeconds,
                    const std::string &CountersFile,
                    const std::string &MemoryTraceFile) {
  if (TimeoutSeconds)
    setenv("LOOM_KERNEL_TIMEOUT", std::to_string(*TimeoutSeconds).c_str(), 1);
  // The runtime opens the files (runtime/CountersReport.cpp); absolute
  // paths, so a program that changes directory writes them here.
  if (!CountersFile.empty())
    setenv("LOOM_COUNTERS", absolutePath(CountersFile).c_str(), 1);
  if (!MemoryTraceFile.empty())
    setenv("LOOM_MEMORY_TRACE", absolutePath(MemoryTraceFile).c_str(), 1);
}

int execWithRuntime(const char *Command, const std::string &LibDir,
                    char **Argv) {
  prependEnv("LD_LIBRARY_PATH", LibDir, ':');
  std::string Shim = LibDir + "/libloom-exec-shim.so";
  if (access(Shim.c_str(), F_OK) == 0)
    prependEnv("LD_PRELOAD", Shim, ':');
  execvp(Argv[0], Argv);
  fprintf(stderr, "loom %s: cannot run %s: %s\n", Command, Argv[0],
          strerror(errno));
  return 127;
}

} // namespace loom::cli
