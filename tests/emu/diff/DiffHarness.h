//===- DiffHarness.h - Running corpus kernels and comparing results -------===//
//
// The pieces every differential test uses: the kernel file of a source at an
// optimisation level, one Device and the loaded modules shared by the whole
// binary, buffers to and from the device, launching with the fault reported
// on failure, deterministic inputs rich in edge cases, and comparison of
// results by kind (exact, NaN-tolerant float bits, ULP bounds).
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TESTS_EMU_DIFF_DIFFHARNESS_H
#define LOOM_TESTS_EMU_DIFF_DIFFHARNESS_H

#include "DiffCommon.h"
#include "OpTable.h"

#include "loom/emu/Device.h"
#include "loom/emu/Module.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace loom::emu::difftest {

/// The optimisation levels every kernel source is built at.
inline constexpr int OptLevels[] = {0, 1, 2, 3};

/// The processor the corpus runs on: $LOOM_DIFF_TARGET, or gfx90a.
std::string target();

/// Options of a device for target().
DeviceOptions deviceOptions();

/// Path of kernels/<Source>.cpp built for target() at -O<Level>.
std::string kernelPath(llvm::StringRef Source, int Level);

/// The device shared by the test binary (created on first use), or null
/// after a failure already reported to GoogleTest.
Device *sharedDevice();

/// The module of \p Source at \p Level on the shared device, loaded once.
/// Null after a failure already reported to GoogleTest.
Module *loadModule(llvm::StringRef Source, int Level);

/// Launches and checks that the dispatch completed; the message names the
/// fault otherwise. \p Result, if given, receives the dispatch result.
::testing::AssertionResult launchOk(Module &M, llvm::StringRef Kernel,
                                    const LaunchConfig &Config,
                                    const KernelArgs &Args,
                                    DispatchResult *Result = nullptr);

template <typename T>
std::unique_ptr<DeviceBuffer> upload(Device &Dev, llvm::ArrayRef<T> Values) {
  auto B = std::make_unique<DeviceBuffer>(Dev, std::max<size_t>(Values.size() * sizeof(T), 1));
  if (!Values.empty())
    std::memcpy(B->data(), Values.data(), Values.size() * sizeof(T));
  return B;
}
template <typename T>
std::unique_ptr<DeviceBuffer> upload(Device &Dev, const std::vector<T> &Values) {
  return upload(Dev, llvm::ArrayRef<T>(Values));
}
/// A buffer of \p Count copies of \p Fill.
template <typename T>
std::unique_ptr<DeviceBuffer> filled(Device &Dev, size_t Count, T Fill) {
  return upload(Dev, std::vector<T>(Count, Fill));
}
template <typename T>
std::vector<T> download(const DeviceBuffer &B, size_t Count) {
  std::vector<T> V(Count);
  std::memcpy(V.data(), B.data(), Count * sizeof(T));
  return V;
}

/// Sees every dispatch that launchOk found completed: the code object file
/// it ran from, the kernel and the result with its counters. The lifting
/// oracle (tests/instrument) checks the lifted CFG against them.
using LaunchObserver = std::function<void(
    llvm::StringRef Path, llvm::StringRef Kernel, const DispatchResult &R)>;
/// Installs \p Observer; with \p RecordMemoryAccesses, the shared device
/// (created after this call) records every memory access as well.
void setLaunchObserver(LaunchObserver Observer, bool RecordMemoryAccesses);

/// Runs a dispatch in place of launchOk's own M.launch: the instrumentation
/// oracle (tests/instrument) runs an instrumented copy of the kernel, and
/// the test's checks of the results then check that copy.
using LaunchInterceptor = std::function<llvm::Expected<DispatchResult>(
    Module &M, llvm::StringRef Path, llvm::StringRef Kernel,
    const LaunchConfig &Config, const KernelArgs &Args)>;
void setLaunchInterceptor(LaunchInterceptor Interceptor);

/// Gives the device the corpus runs on in place of one sharedDevice()
/// creates: the corpus dispatched through Loom's HSA runtime
/// (HsaDispatch.cpp) runs on the device behind the runtime's GPU agent, so
/// its buffers are memory that agent's dispatches reach. The device is not
/// owned; it must outlive the binary's modules.
using DeviceProvider = std::function<llvm::Expected<Device *>()>;
void setDeviceProvider(DeviceProvider Provider);

/// A parameterised test over OptLevels; GetParam() is the level.
class LevelTest : public ::testing::TestWithParam<int> {
protected:
  int level() const { return GetParam(); }
};

std::string levelName(const ::testing::TestParamInfo<int> &Info);

#define LOOM_DIFF_LEVELS(Suite)                                                \
  INSTANTIATE_TEST_SUITE_P(                                                    \
      , Suite, ::testing::ValuesIn(::loom::emu::difftest::OptLevels),          \
      ::loom::emu::difftest::levelName)

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

/// splitmix64: deterministic, seeded per test.
class Rng {
public:
  explicit Rng(uint64_t Seed) : State(Seed) {}
  uint64_t next();
  uint32_t next32() { return static_cast<uint32_t>(next() >> 32); }
  /// Uniform in [0, N).
  uint64_t below(uint64_t N) { return N ? next() % N : 0; }
  /// Uniform in [Lo, Hi].
  int64_t range(int64_t Lo, int64_t Hi) {
    return Lo + static_cast<int64_t>(below(static_cast<uint64_t>(Hi - Lo) + 1));
  }

private:
  uint64_t State;
};

/// Operand pairs for binary operations: the first Edges^2 elements pair
/// every edge value with every other (A[i] = Edges[i % E], B[i] =
/// Edges[i / E]); the rest are random. Edge lists hold zeros, signed zeros,
/// extremes, denormals, infinities, NaNs, rounding ties, shift counts.
struct U32Pairs {
  std::vector<uint32_t> A, B;
};
U32Pairs int32Inputs(size_t N, uint64_t Seed);
struct U64Pairs {
  std::vector<uint64_t> A, B;
};
U64Pairs int64Inputs(size_t N, uint64_t Seed);

std::vector<float> f32EdgeValues();
std::vector<double> f64EdgeValues();
std::vector<uint16_t> f16EdgeValues();

/// A random float: any bit pattern, a moderate-range value, or one near the
/// denormal range.
float randomF32(Rng &R);
double randomF64(Rng &R);
uint16_t randomF16(Rng &R);

/// Three operand arrays: edge x edge pairs first (C cycles through the
/// edges too), then random values.
struct F32Triples {
  std::vector<float> A, B, C;
};
F32Triples f32Inputs(size_t N, uint64_t Seed);
struct F64Triples {
  std::vector<double> A, B, C;
};
F64Triples f64Inputs(size_t N, uint64_t Seed);
struct F16Triples {
  std::vector<uint16_t> A, B, C;
};
F16Triples f16Inputs(size_t N, uint64_t Seed);

//===----------------------------------------------------------------------===//
// Comparison
//===----------------------------------------------------------------------===//

/// True if \p Dev matches \p Ref under \p Kind (OpTable.h).
bool sameResult(diff::OpKind Kind, uint64_t Dev, uint64_t Ref);

/// "0x..." plus the value it encodes for float kinds.
std::string formatResult(diff::OpKind Kind, uint64_t Bits);

/// Distance in units in the last place of binary32 between \p Dev and the
/// exact value \p Exact (computed in higher precision); 0 if both are the
/// same infinity, infinite if only one is NaN or an infinity.
double ulpErrorF32(float Dev, long double Exact);
/// Same for binary64.
double ulpErrorF64(double Dev, long double Exact);

/// Collects mismatches of one test; reports the first few in full and how
/// many there were.
class Mismatches {
public:
  explicit Mismatches(std::string What) : What(std::move(What)) {}
  void add(const std::string &Line);
  size_t count() const { return Count; }
  ::testing::AssertionResult result() const;

private:
  std::string What;
  std::vector<std::string> Lines;
  size_t Count = 0;
};

/// Compares results laid out [element][op] against the references for an
/// operation list with \p Names and \p Kinds; \p Inputs describes element
/// I's operands for the report.
template <typename T, typename DescribeFn>
::testing::AssertionResult
compareOps(llvm::StringRef What, llvm::ArrayRef<T> Dev, llvm::ArrayRef<T> Ref,
           llvm::ArrayRef<const char *> Names,
           llvm::ArrayRef<diff::OpKind> Kinds, DescribeFn Inputs) {
  Mismatches M(What.str());
  size_t NOps = Names.size();
  for (size_t I = 0; I < Dev.size(); ++I) {
    size_t Op = I % NOps;
    if (sameResult(Kinds[Op], static_cast<uint64_t>(Dev[I]), static_cast<uint64_t>(Ref[I])))
      continue;
    M.add(std::string(Names[Op]) + "(" + Inputs(I / NOps) + "): device " +
          formatResult(Kinds[Op], Dev[I]) + ", host " +
          formatResult(Kinds[Op], Ref[I]));
  }
  return M.result();
}

std::string hex(uint64_t V);

} // namespace loom::emu::difftest

#endif // LOOM_TESTS_EMU_DIFF_DIFFHARNESS_H
