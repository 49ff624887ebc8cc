//===- tests/runtime/loader/LoaderTestUtil.h - Loader test helpers --------===//
#ifndef LOOM_TESTS_RUNTIME_LOADER_LOADERTESTUTIL_H
#define LOOM_TESTS_RUNTIME_LOADER_LOADERTESTUTIL_H

#include "loom/codeobj/Input.h"
#include "loom/emu/Device.h"
#include "loom/emu/Module.h"
#include "loom/runtime/loader/Executable.h"
#include "loom/runtime/loader/LoaderError.h"

#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace loom::loader::test {

inline std::string fixture(const std::string &Name) {
  return std::string(LOOM_FIXTURE_DIR) + "/" + Name;
}

inline std::vector<uint8_t> fileBytes(const std::string &Path) {
  auto B = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                       /*RequiresNullTerminator=*/false);
  if (!B)
    return {};
  return std::vector<uint8_t>((*B)->getBufferStart(), (*B)->getBufferEnd());
}

/// The kind of a failed Expected/Error, consuming it; Failure if it
/// succeeded (so a test comparing with an expected kind fails).
inline LoaderErrc kindOf(llvm::Error E, std::string *Message = nullptr) {
  if (!E)
    return LoaderErrc::Failure;
  auto [Code, Text] = takeLoaderError(std::move(E));
  if (Message)
    *Message = Text;
  return Code;
}
template <typename T>
LoaderErrc kindOf(llvm::Expected<T> &&E, std::string *Message = nullptr) {
  if (E)
    return LoaderErrc::Failure;
  return kindOf(E.takeError(), Message);
}

/// A virtual GPU and the agent that stands for it.
struct LoaderFixture : ::testing::Test {
  void SetUp() override {
    emu::DeviceOptions O;
    O.Threads = 2;
    auto D = emu::Device::create(O);
    ASSERT_TRUE(bool(D)) << llvm::toString(D.takeError());
    Dev = std::move(*D);
    Agent = LoaderAgent::forDevice(*Dev, /*Handle=*/0x1000);
  }

  std::unique_ptr<CodeObjectReader> reader(const std::string &Name) {
    auto R = CodeObjectReader::fromPath(fixture(Name));
    EXPECT_TRUE(bool(R)) << llvm::toString(R.takeError());
    return R ? std::move(*R) : nullptr;
  }

  /// Loads fixture \p Name for Agent; fails the test if it cannot.
  const LoadedCodeObject *load(Executable &E, const std::string &Name) {
    auto R = reader(Name);
    if (!R)
      return nullptr;
    auto L = E.loadAgentCodeObject(Agent, *R);
    EXPECT_TRUE(bool(L)) << llvm::toString(L.takeError());
    return L ? &*L : nullptr;
  }

  /// Dispatches the kernel \p S with explicit arguments \p Args placed at
  /// the offsets \p Offsets (hidden arguments left zero), the way a
  /// program using only symbol information would.
  emu::DispatchResult run(const Symbol &S, uint32_t Items,
                          const std::vector<std::vector<uint8_t>> &Args,
                          const std::vector<uint32_t> &Offsets) {
    emu::DeviceBuffer Kernarg(*Dev, std::max<uint32_t>(S.KernargSegmentSize, 16),
                              S.KernargSegmentAlignment);
    for (size_t I = 0; I < Args.size(); ++I)
      std::memcpy(Kernarg.data<uint8_t>() + Offsets[I], Args[I].data(),
                  Args[I].size());
    emu::DispatchParams P;
    P.KernelObject = S.Address;
    P.GridSize[0] = Items;
    P.WorkgroupSize[0] = static_cast<uint16_t>(std::min<uint32_t>(Items, 64));
    P.Kernarg = Kernarg.address();
    P.GroupSegmentSize = S.GroupSegmentSize;
    P.PrivateSegmentSize = S.PrivateSegmentSize + (S.DynamicCallStack ? 1024 : 0);
    P.KernelName = S.Name;
    return Dev->dispatch(P);
  }

  template <typename T> static std::vector<uint8_t> arg(T V) {
    std::vector<uint8_t> B(sizeof(T));
    std::memcpy(B.data(), &V, sizeof(T));
    return B;
  }

  std::unique_ptr<emu::Device> Dev;
  LoaderAgent Agent;
};

} // namespace loom::loader::test

#endif // LOOM_TESTS_RUNTIME_LOADER_LOADERTESTUTIL_H
