//===- cli/Launcher.cpp - The loom executable ------------------------------===//
//
// `loom exec -- APP` starts every HIP program run on Loom, and loading
// libLLVM (relocating it) took 40-50 ms of each, before APP even started.
// So the loom executable links no LLVM: a well-formed `loom exec` command
// line (options, then "--", then the program) is run here directly; every
// other command line, `loom exec` ones with help or errors included, goes
// to libloom-cli.so (next to libhsa-runtime64.so.1, loaded on demand),
// which parses it with llvm::cl as before.
//
//===----------------------------------------------------------------------===//

#include "Launch.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <string>

using namespace loom::cli;

namespace {

/// Reads `loom exec` option \p Name at argv[I] as llvm::cl does: -name=V,
/// --name=V, -name V or --name V. -1: not this option; 0: no value; 1:
/// read into \p Value (I moved past a separate value).
int readOption(int argc, char **argv, int &I, const char *Name,
               std::string &Value) {
  const char *A = argv[I] + (argv[I][1] == '-' ? 2 : 1);
  size_t Len = strlen(Name);
  if (strncmp(A, Name, Len) != 0 || (A[Len] != '=' && A[Len] != '\0'))
    return -1;
  if (A[Len] == '=') {
    Value = A + Len + 1;
    return 1;
  }
  if (I + 1 >= argc)
    return 0;
  Value = argv[++I];
  return 1;
}

/// A decimal that fits llvm::cl's unsigned.
bool parseSeconds(const std::string &S, unsigned &Out) {
  if (S.empty() || S.size() > 10 ||
      S.find_first_not_of("0123456789") != std::string::npos)
    return false;
  unsigned long long V = strtoull(S.c_str(), nullptr, 10);
  if (V > UINT_MAX)
    return false;
  Out = unsigned(V);
  return true;
}

/// Runs `loom exec [options] -- APP ARGS...` without LLVM. Returns false,
/// having changed nothing, for any command line llvm::cl should see.
bool execDirectly(int argc, char **argv, int &Status) {
  const char *Names[] = {"counters", "memory-trace", "kernel-timeout"};
  std::string Values[3];
  bool Seen[3] = {};
  int I = 2;
  for (; I < argc && strcmp(argv[I], "--"); ++I) {
    if (argv[I][0] != '-' || !argv[I][1])
      return false; // a program without "--"
    int Found = -1;
    for (int K = 0; K < 3 && Found < 0; ++K) {
      int R = readOption(argc, argv, I, Names[K], Values[K]);
      if (R == 0 || (R == 1 && Seen[K]))
        return false; // no value, or given twice
      if (R == 1)
        Seen[Found = K] = true;
    }
    if (Found < 0)
      return false; // --help, a typo, ...: llvm::cl says what
  }
  if (I + 1 >= argc)
    return false; // no program
  unsigned Seconds = 0;
  if (Seen[2] && !parseSeconds(Values[2], Seconds))
    return false;
  std::string Dir = loomLibraryDir();
  if (Dir.empty())
    return false;
  setExecOptions(Seen[2] ? &Seconds : nullptr, Values[0], Values[1]);
  Status = execWithRuntime("exec", Dir, argv + I + 1);
  return true;
}

} // namespace

int main(int argc, char **argv) {
  int Status;
  if (argc >= 3 && !strcmp(argv[1], "exec") &&
      execDirectly(argc, argv, Status))
    return Status;
  // Everything else: the commands, with LLVM.
  std::string Lib = executableDir() + "/../lib/libloom-cli.so";
  void *H = dlopen(Lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!H) {
    fprintf(stderr, "loom: cannot load %s: %s\n", Lib.c_str(), dlerror());
    return 1;
  }
  auto *Main =
      reinterpret_cast<int (*)(int, char **)>(dlsym(H, "loom_cli_main"));
  if (!Main) {
    fprintf(stderr, "loom: %s has no loom_cli_main\n", Lib.c_str());
    return 1;
  }
  return Main(argc, argv);
}
