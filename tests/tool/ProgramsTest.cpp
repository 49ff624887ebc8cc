//===- tests/tool/ProgramsTest.cpp - Shipped tools on the realistic set ---===//
//
// The counting tools on the programs of the realistic set (bench/programs:
// stencils, a scan, SGEMM, histograms, n-body, f16, f64, divergence,
// rocSPARSE's SpMV and rocPRIM's sort): larger kernels, more waves and
// more dispatches than the corpus's, each checking its own result. Every
// program must still pass its check under the tool, and each tool's counts
// must equal the virtual GPU's own of the same program run uninstrumented.
// About a minute in all on two cores. mem_trace is not run here: these
// programs make gigabytes of trace (ToolCorpusTest.cpp and MemTraceTest.cpp
// check it against the truth).
//
//===----------------------------------------------------------------------===//

#include "ToolTruth.h"

#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

using namespace llvm;
using namespace loom::test;

namespace {

class ShippedToolsOnPrograms : public ::testing::TestWithParam<const char *> {
protected:
  std::string path() const {
    return std::string(LOOM_BENCH_PROGRAM_DIR) + "/" + GetParam();
  }
};

TEST_P(ShippedToolsOnPrograms, CountsEqualTheTruth) {
  if (!sys::fs::exists(path()))
    GTEST_SKIP() << path() << " is not built (its ROCm library is missing)";
  std::vector<DispatchTruth> Truth = groundTruth(path());
  ASSERT_FALSE(Truth.empty());
  expectInstrCountsEqualTruth(instrCount(path(), "block"), Truth);
  expectInstrCountsEqualTruth(instrCount(path(), "instruction"), Truth);
  expectBlocksEqualTruth(path(), Truth);
}

INSTANTIATE_TEST_SUITE_P(RealisticSet, ShippedToolsOnPrograms,
                         ::testing::Values("Stencil", "Reduce", "Sgemm",
                                           "Histogram", "NBody", "Half",
                                           "Double", "Divergence", "SpMV",
                                           "Sort"),
                         [](const ::testing::TestParamInfo<const char *> &I) {
                           return std::string(I.param);
                         });

} // namespace
