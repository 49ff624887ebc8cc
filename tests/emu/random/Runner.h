//===- Runner.h - Running a generated file on the device and the host -----===//
//
// runFile loads a generated file's gfx90a code object and its host reference
// (RandomProtocol.h), and for every program: makes inputs (seeded by the
// file's seed and the program's number, so they do not depend on the
// optimisation level or on cutting the file down), launches prog_<k> over a few work-groups, runs the
// host reference on the same inputs and compares the results — bit-exact
// for integers, bit-exact for floats except that any NaN matches any NaN.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TESTS_EMU_RANDOM_RUNNER_H
#define LOOM_TESTS_EMU_RANDOM_RUNNER_H

#include "Generator.h"

#include "loom/emu/Device.h"

#include <cstdint>
#include <string>
#include <vector>

namespace loom::randtest {

struct FileUnderTest {
  /// How the file was generated (the runner itself reads the seed and size
  /// from the host object, so a hand-edited file reports what it holds).
  GeneratorOptions Options;
  int Level = 0;
  BuildPaths Paths;
  /// The generated file, when the caller has it (soak): failures then
  /// include the failing program's text.
  const GeneratedFile *Generated = nullptr;
};

struct ProgramFailure {
  unsigned Program = 0;
  std::string Message; ///< Several lines: what, where, the inputs.
};

struct FileReport {
  unsigned Programs = 0;
  unsigned Passed = 0;
  /// Set when the file could not be run at all (loading failed).
  std::string Error;
  std::vector<ProgramFailure> Failures;

  bool ok() const { return Error.empty() && Failures.empty(); }
  /// Error, or the first \p MaxShown failures in full and a count.
  std::string summary(unsigned MaxShown = 8) const;
};

struct RunOptions {
  /// A launch still running after this long is cancelled and reported (an
  /// emulator hang); LOOM_RANDOM_TIMEOUT overrides it.
  unsigned TimeoutSeconds = 120;
};

FileReport runFile(emu::Device &Dev, const FileUnderTest &File,
                   const RunOptions &Options = {});

} // namespace loom::randtest

#endif // LOOM_TESTS_EMU_RANDOM_RUNNER_H
