//===- IntOpsTest.cpp - Integer arithmetic and bit manipulation -----------===//
#include "DiffHarness.h"
#include "IntOps.h"

using namespace loom::emu;
using namespace loom::emu::difftest;

namespace {

// Not a multiple of 64: the last wave runs with a partial EXEC mask.
constexpr uint32_t N = 2043;

class IntOps : public LevelTest {};

template <typename T, size_t NOps>
void checkBinary(Module &M, const char *Kernel, const std::vector<T> &A,
                 const std::vector<T> &B, void (*Ref)(T, T, T *),
                 const char *const (&Names)[NOps],
                 const diff::OpKind (&Kinds)[NOps]) {
  Device &Dev = *sharedDevice();
  auto DA = upload(Dev, A), DB = upload(Dev, B);
  auto Out = filled<T>(Dev, size_t(N) * NOps, T(0xcccccccccccccccc));
  ASSERT_TRUE(launchOk(M, Kernel, LaunchConfig::linear(N, 64),
                       KernelArgs()
                           .add(Out->address())
                           .add(DA->address())
                           .add(DB->address())
                           .add(N)));
  std::vector<T> Expected(size_t(N) * NOps);
  for (uint32_t I = 0; I < N; ++I)
    Ref(A[I], B[I], &Expected[size_t(I) * NOps]);
  std::vector<T> Got = download<T>(*Out, Expected.size());
  EXPECT_TRUE(compareOps<T>(Kernel, Got, Expected, Names, Kinds, [&](size_t I) {
    return hex(A[I]) + ", " + hex(B[I]);
  }));
}

TEST_P(IntOps, Int32) {
  static const char *const Names[] = {DIFF_INT32_OPS(DIFF_OP_NAME)};
  static const diff::OpKind Kinds[] = {DIFF_INT32_OPS(DIFF_OP_KIND)};
  Module *M = loadModule("int_ops", level());
  ASSERT_TRUE(M);
  U32Pairs In = int32Inputs(N, 0x1001);
  checkBinary<uint32_t>(*M, "int32_ops", In.A, In.B, diff::int32Ops, Names, Kinds);
}

TEST_P(IntOps, Int64) {
  static const char *const Names[] = {DIFF_INT64_OPS(DIFF_OP_NAME)};
  static const diff::OpKind Kinds[] = {DIFF_INT64_OPS(DIFF_OP_KIND)};
  Module *M = loadModule("int_ops", level());
  ASSERT_TRUE(M);
  U64Pairs In = int64Inputs(N, 0x1002);
  checkBinary<uint64_t>(*M, "int64_ops", In.A, In.B, diff::int64Ops, Names, Kinds);
}

TEST_P(IntOps, SmallInts) {
  static const char *const Names[] = {DIFF_SMALL_OPS(DIFF_OP_NAME)};
  static const diff::OpKind Kinds[] = {DIFF_SMALL_OPS(DIFF_OP_KIND)};
  Module *M = loadModule("int_ops", level());
  ASSERT_TRUE(M);
  U32Pairs In = int32Inputs(N, 0x1003);
  checkBinary<uint32_t>(*M, "small_int_ops", In.A, In.B, diff::smallIntOps,
                        Names, Kinds);
}

TEST_P(IntOps, BitManipulation) {
  static const char *const Names[] = {DIFF_BIT_OPS(DIFF_OP_NAME)};
  static const diff::OpKind Kinds[] = {DIFF_BIT_OPS(DIFF_OP_KIND)};
  constexpr size_t NOps = diff::BitOpCount;
  Module *M = loadModule("int_ops", level());
  ASSERT_TRUE(M);
  Device &Dev = *sharedDevice();
  U64Pairs In = int64Inputs(N, 0x1004);
  // Single bits and all-ones prefixes: every count from 0 to 64.
  for (unsigned I = 0; I < 64; ++I) {
    In.A[2 * I] = 1ull << I;
    In.A[2 * I + 1] = ~0ull >> I;
  }
  auto A = upload(Dev, In.A);
  auto Out = filled<uint64_t>(Dev, size_t(N) * NOps, 0xccccccccccccccccull);
  ASSERT_TRUE(launchOk(*M, "bit_ops", LaunchConfig::linear(N, 64),
                       KernelArgs().add(Out->address()).add(A->address()).add(N)));
  std::vector<uint64_t> Expected(size_t(N) * NOps);
  for (uint32_t I = 0; I < N; ++I)
    diff::bitOps(In.A[I], &Expected[size_t(I) * NOps]);
  std::vector<uint64_t> Got = download<uint64_t>(*Out, Expected.size());
  EXPECT_TRUE(compareOps<uint64_t>("bit_ops", Got, Expected, Names, Kinds,
                                   [&](size_t I) { return hex(In.A[I]); }));
}

LOOM_DIFF_LEVELS(IntOps);

} // namespace
