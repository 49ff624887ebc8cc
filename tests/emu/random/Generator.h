//===- Generator.h - Seeded random C++ programs for the emulator ----------===//
//
// generateFile(seed) writes one self-contained C++20 source holding N random
// programs f_0 .. f_{N-1} over i8..u64, f32 and f64: expressions (arithmetic,
// bitwise, shifts, comparisons, ternaries, casts, bit builtins, correctly
// rounded float operations), calls to earlier programs (some noinline),
// if/else chains, switches, bounded loops, local arrays with masked indices
// and early returns. The same text is built for gfx90a (one kernel per
// program) and for the host (the reference); see RandomProtocol.h.
//
// The programs have no undefined behaviour and nothing the two targets may
// legitimately compute differently: signed arithmetic is done in unsigned,
// division is guarded, shift counts are masked, float->int conversions
// saturate through helpers, NaN bits never reach an integer or a sign, and
// fmin/fmax results are normalised so the sign of a zero result is defined.
// Only correctly rounded float operations are used, so results must match
// bit for bit (any NaN matches any NaN).
//
// Generation is a pure function of (seed, programs, size): it uses its own
// splitmix64, never <random>'s distributions.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TESTS_EMU_RANDOM_GENERATOR_H
#define LOOM_TESTS_EMU_RANDOM_GENERATOR_H

#include "RandomProtocol.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace loom::randtest {

struct GeneratorOptions {
  uint64_t Seed = 1;
  unsigned Programs = 50;
  /// Scales statement counts, expression depth and the work budget of each
  /// program (1: the CI size; soak runs may ask for more).
  unsigned Size = 1;
  /// Emit only program Only (kernel and table entry) and the programs it
  /// calls, for minimising a failure by hand. Program k is the same text
  /// whatever Programs and Only are, as long as Programs > k.
  std::optional<unsigned> Only;
};

struct GeneratedProgram {
  std::string Name; ///< f_<k>
  Type Result;
  std::vector<Type> Params;
  uint32_t UniformMask = 0;
  bool NoInline = false;
  std::vector<unsigned> Callees; ///< Earlier programs it calls directly.
  std::string Text;              ///< The function's definition.
};

struct GeneratedFile {
  GeneratorOptions Options;
  std::string Source;
  std::vector<GeneratedProgram> Programs;

  /// The text of program \p K and of every program it calls, callees first,
  /// for reports.
  std::string programWithCallees(unsigned K) const;
};

GeneratedFile generateFile(const GeneratorOptions &Options);

/// "rand_<seed>" (size 1) or "rand_<seed>_s<size>".
std::string fileStem(const GeneratorOptions &Options);

/// The files one (seed, level) build produces in a directory.
struct BuildPaths {
  std::string Source; ///< <dir>/<stem>.cpp
  std::string Elf;    ///< <dir>/<stem>.O<level>.elf
  std::string Host;   ///< <dir>/<stem>.host.so (always -O0)
};
BuildPaths buildPaths(const std::string &Dir, const GeneratorOptions &Options,
                      int Level);

/// Compiler command lines (argv, argv[0] = \p Clang). Both sides use
/// -ffp-contract=off, -fno-fast-math and -fno-math-errno. The device code is
/// built at the level under test; the host reference always at -O0, the
/// most literal translation (and the quickest to build).
std::vector<std::string> deviceCommand(const std::string &Clang,
                                       const std::string &Source,
                                       const std::string &Out, int Level);
std::vector<std::string> hostCommand(const std::string &Clang,
                                     const std::string &Source,
                                     const std::string &Out);
std::string commandLine(const std::vector<std::string> &Argv);

/// Writes the source of \p File and compiles it for the device at \p Level
/// and for the host.
/// Returns an empty string on success, else what failed (with the
/// compiler's output).
std::string writeAndCompile(const GeneratedFile &File, const BuildPaths &Paths,
                            const std::string &Clang, int Level);

} // namespace loom::randtest

#endif // LOOM_TESTS_EMU_RANDOM_GENERATOR_H
