//===- cli/CcCommand.cpp - loom cc: build a GPU program for loom run ------===//
//
// Runs clang-22 with the target, flags and start-up library a loom run
// program needs (docs/run.md, "Building programs"):
//
//   clang-22 --target=amdgcn-amd-amdhsa -mcpu=gfx90a -nogpulib -O2 -flto
//            -nostdlibinc -isystem DEV/include ARGS... DEV/libloomdev.bc
//
// -nostdlibinc keeps the host's C headers out; clang's own (stdint.h,
// stddef.h, stdarg.h, gpuintrin.h) stay.
//
// DEV is lib/loom/device next to bin/loom (or LOOM_DEVICE_DIR). Every
// argument goes to clang as given; --isa NAME picks -mcpu. With -c, -S or
// -E nothing is linked, so the library is left out.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace llvm;

namespace loom::cli {

std::string loomDeviceDir() {
  if (const char *Env = getenv("LOOM_DEVICE_DIR"); Env && *Env)
    return Env;
  static int Anchor;
  std::string Exe = sys::fs::getMainExecutable("loom", &Anchor);
  SmallString<256> Dir(sys::path::parent_path(sys::path::parent_path(Exe)));
  sys::path::append(Dir, "lib", "loom", "device");
  return std::string(Dir);
}

Expected<std::vector<std::string>> ccCommand(ArrayRef<std::string> Args) {
  std::string Dev = loomDeviceDir();
  std::string Lib = Dev + "/libloomdev.bc";
  if (!sys::fs::exists(Lib))
    return createStringError(inconvertibleErrorCode(),
                             "cannot find the device library %s (set "
                             "LOOM_DEVICE_DIR)",
                             Lib.c_str());
  std::string Clang = LOOM_CLANG_PATH;
  if (const char *Env = getenv("LOOM_CLANG"); Env && *Env)
    Clang = Env;
  std::string Cpu = "gfx90a";
  bool Link = true, HasCpu = false, HasOpt = false;
  std::vector<std::string> User;
  for (size_t I = 0; I < Args.size(); ++I) {
    StringRef A = Args[I];
    if (A == "--isa" && I + 1 < Args.size()) {
      Cpu = Args[++I];
      continue;
    }
    if (A.consume_front("--isa=")) {
      Cpu = A.str();
      continue;
    }
    if (A == "-c" || A == "-S" || A == "-E")
      Link = false;
    if (A.starts_with("-mcpu="))
      HasCpu = true;
    if (A.starts_with("-O"))
      HasOpt = true;
    User.push_back(Args[I]);
  }
  std::vector<std::string> Cmd = {Clang, "--target=amdgcn-amd-amdhsa"};
  if (!HasCpu)
    Cmd.push_back("-mcpu=" + Cpu);
  Cmd.push_back("-nogpulib");
  if (!HasOpt)
    Cmd.push_back("-O2");
  Cmd.push_back("-flto");
  Cmd.push_back("-nostdlibinc");
  Cmd.push_back("-isystem");
  Cmd.push_back(Dev + "/include");
  Cmd.insert(Cmd.end(), User.begin(), User.end());
  if (Link)
    Cmd.push_back(Lib);
  return Cmd;
}

int runCc(ArrayRef<std::string> Args) {
  bool Print = false;
  std::vector<std::string> Rest;
  for (const std::string &A : Args) {
    if (A == "--print-command")
      Print = true;
    else
      Rest.push_back(A);
  }
  if (Rest.empty() || Rest[0] == "--help" || Rest[0] == "-h") {
    outs() << "USAGE: loom cc [--isa gfx90a|gfx942] [--print-command] "
              "[clang args...] FILES -o PROG\n\n"
              "Builds a GPU program for 'loom run' with clang-22 and Loom's "
              "device library.\n";
    return Rest.empty() ? 1 : 0;
  }
  auto Cmd = ccCommand(Rest);
  if (!Cmd)
    return reportError("cc", Cmd.takeError());
  if (Print) {
    for (size_t I = 0; I < Cmd->size(); ++I)
      outs() << (I ? " " : "") << (*Cmd)[I];
    outs() << "\n";
    return 0;
  }
  std::vector<StringRef> Argv(Cmd->begin(), Cmd->end());
  std::string Msg;
  int Rc = sys::ExecuteAndWait(Argv[0], Argv, std::nullopt, {}, 0, 0, &Msg);
  if (Rc < 0)
    return reportError("cc", createStringError(inconvertibleErrorCode(),
                                               "cannot run %s: %s",
                                               (*Cmd)[0].c_str(), Msg.c_str()));
  return Rc;
}

} // namespace loom::cli
