//===- tests/jit/KernelRefTest.cpp - Kernels launched by their symbol -----===//
//
// loom::kernel_ref (header-only, public HSA API) against clang-22 code
// objects of code object v5 and v4, loaded into executables by the JIT's
// Device (any loader would do: kernel_ref searches every executable of the
// process). Results are checked against the host.
//
//===----------------------------------------------------------------------===//

#include "loom/jit/Jit.h"
#include "loom/jit/KernelRef.h"

#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

using namespace llvm;
using namespace loom::jit;

namespace {

std::unique_ptr<Program> loadFixture(Device &D, const std::string &Name) {
  std::string Path = std::string(LOOM_FIXTURE_DIR) + "/" + Name;
  auto Buf = MemoryBuffer::getFile(Path);
  if (!Buf) {
    ADD_FAILURE() << Path << ": " << Buf.getError().message();
    return nullptr;
  }
  std::vector<Source> S;
  S.push_back(Source::codeObject(
      ObjectBytes((*Buf)->getBufferStart(), (*Buf)->getBufferEnd()), Path));
  auto P = D.build(std::move(S));
  if (!P) {
    ADD_FAILURE() << toString(P.takeError());
    return nullptr;
  }
  return std::move(*P);
}

class KernelRefTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() { Dev = cantFail(Device::open()).release(); }
  static void TearDownTestSuite() { delete Dev; }
  static Device *Dev;
};
Device *KernelRefTest::Dev = nullptr;

TEST_F(KernelRefTest, ClangCodeObjectV5) {
  auto P = loadFixture(*Dev, "gfx90a_v5_kernels.elf");
  ASSERT_TRUE(P);
  const int N = 200;
  auto *Out = static_cast<float *>(cantFail(Dev->allocate(N * 4)));
  auto *In = static_cast<float *>(cantFail(Dev->allocate(N * 4)));
  for (int I = 0; I < N; ++I)
    In[I] = I;
  // scale_add(float *out, const float *in, int n): out = in * 2.5 + table
  // (zero-initialised); work-groups of 64.
  loom::kernel_ref<void(float *, const float *, int)> ScaleAdd{"scale_add"};
  ASSERT_EQ(ScaleAdd.launch({(N + 63) / 64}, {64}, Out, In, N).wait(),
            HSA_STATUS_SUCCESS);
  for (int I = 0; I < N; ++I)
    ASSERT_EQ(Out[I], I * 2.5f) << I;

  // The hidden group size (v5: in the kernarg) reaches the kernel.
  auto *U = static_cast<uint64_t *>(cantFail(Dev->allocate(8)));
  loom::kernel_ref<void(uint64_t *, char, short, double)> Mixed{
      "mixed_args.kd"};
  ASSERT_EQ(Mixed.launch({2}, {48}, U, char(3), short(400), 5000.0).wait(),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(*U, 3u + 400u + 5000u + 48u);
  // Many launches in a row reuse the slots.
  for (int I = 0; I < 600; ++I)
    ASSERT_EQ(Mixed.launch({1}, {uint32_t(I % 64 + 1)}, U, char(1), short(2), 3.0)
                  .wait(),
              HSA_STATUS_SUCCESS);
  EXPECT_EQ(*U, 1u + 2u + 3u + 599u % 64 + 1);

  loom::kernel_ref<void(int *)> Missing{"no_such_kernel"};
  EXPECT_EQ(Missing.launch({1}, {1}, nullptr).status(),
            HSA_STATUS_ERROR_INVALID_SYMBOL_NAME);
  loom::kernel_ref<void(float *, const float *, int)> TooBig{"scale_add"};
  EXPECT_EQ(TooBig.launch({1}, {2048}, Out, In, N).status(),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  cantFail(Dev->free(Out));
  cantFail(Dev->free(In));
  cantFail(Dev->free(U));
}

TEST_F(KernelRefTest, ClangCodeObjectV4) {
  auto P = loadFixture(*Dev, "gfx90a_v4_kernels.elf");
  ASSERT_TRUE(P);
  auto *U = static_cast<uint64_t *>(cantFail(Dev->allocate(8)));
  loom::kernel_ref<void(uint64_t *, char, short, double)> Mixed{"mixed_args"};
  ASSERT_EQ(Mixed.launch({1}, {32}, U, char(-1), short(10), 20.0).wait(),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(*U, uint64_t(-1) + 10u + 20u + 32u);
  cantFail(Dev->free(U));
}

} // namespace
