//===- RandGen.cpp - loom_randgen: write (and build) a random file --------===//
//
//   loom_randgen --seed S [--programs N] [--size Z] [--only K] -o FILE.cpp
//       writes the generated source only (with --only K: program K and the
//       programs it calls, for minimising a failure by hand);
//   loom_randgen --seed S [--programs N] [--size Z] --level L --clang CLANG
//                --out-dir DIR [-v]
//       writes DIR/rand_<S>.cpp and compiles it at -O<L> into
//       DIR/rand_<S>.O<L>.elf (gfx90a) and DIR/rand_<S>.host.so (the host
//       reference, -O0), with the flags the soak mode uses too.
//
//===----------------------------------------------------------------------===//
#include "Generator.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

using namespace loom::randtest;

namespace {
[[noreturn]] void usage(const char *Why) {
  std::fprintf(stderr,
               "loom_randgen: %s\n"
               "usage: loom_randgen --seed S [--programs N] [--size Z] [--only K] "
               "(-o FILE.cpp | --level L --clang CLANG --out-dir DIR [-v])\n",
               Why);
  std::exit(2);
}

uint64_t number(const char *S, const char *What) {
  char *End = nullptr;
  unsigned long long V = std::strtoull(S, &End, 0);
  if (!*S || *End)
    usage((std::string("bad ") + What + ": " + S).c_str());
  return V;
}
} // namespace

int main(int Argc, char **Argv) {
  GeneratorOptions O;
  std::string Out, Clang, Dir;
  int Level = -1;
  bool Verbose = false, HaveSeed = false;
  for (int I = 1; I < Argc; ++I) {
    std::string A = Argv[I];
    auto Value = [&]() -> const char * {
      if (I + 1 >= Argc)
        usage((A + " needs a value").c_str());
      return Argv[++I];
    };
    if (A == "--seed") {
      O.Seed = number(Value(), "seed");
      HaveSeed = true;
    } else if (A == "--programs")
      O.Programs = static_cast<unsigned>(number(Value(), "program count"));
    else if (A == "--only")
      O.Only = static_cast<unsigned>(number(Value(), "program index"));
    else if (A == "--size")
      O.Size = static_cast<unsigned>(number(Value(), "size"));
    else if (A == "-o")
      Out = Value();
    else if (A == "--level")
      Level = static_cast<int>(number(Value(), "level"));
    else if (A == "--clang")
      Clang = Value();
    else if (A == "--out-dir")
      Dir = Value();
    else if (A == "-v")
      Verbose = true;
    else
      usage(("unknown argument " + A).c_str());
  }
  if (!HaveSeed)
    usage("--seed is required");
  if (O.Programs == 0 || O.Size == 0 || O.Size > 8)
    usage("--programs must be positive and --size in 1..8");
  if (O.Only && *O.Only >= O.Programs)
    usage("--only K needs K < --programs");

  GeneratedFile File = generateFile(O);
  if (!Out.empty()) {
    std::ofstream OS(Out);
    OS << File.Source;
    if (!OS) {
      std::fprintf(stderr, "loom_randgen: cannot write %s\n", Out.c_str());
      return 1;
    }
    return 0;
  }
  if (Level < 0 || Level > 3 || Clang.empty() || Dir.empty())
    usage("give -o, or --level 0..3 with --clang and --out-dir");
  BuildPaths P = buildPaths(Dir, O, Level);
  if (Verbose) {
    std::printf("%s\n%s\n",
                commandLine(deviceCommand(Clang, P.Source, P.Elf, Level)).c_str(),
                commandLine(hostCommand(Clang, P.Source, P.Host)).c_str());
  }
  std::string Err = writeAndCompile(File, P, Clang, Level);
  if (!Err.empty()) {
    std::fprintf(stderr, "loom_randgen: %s\n", Err.c_str());
    return 1;
  }
  return 0;
}
