//===- FloatOpsTest.cpp - binary16/32/64 arithmetic, bit-exact ------------===//
#include "DiffHarness.h"
#include "FloatOps.h"

#include "llvm/Support/FormatVariadic.h"

using namespace loom::emu;
using namespace loom::emu::difftest;

namespace {

constexpr uint32_t N = 2043;

class FloatOps : public LevelTest {};

std::string describe(double A, double B, double C) {
  return llvm::formatv("{0:e}, {1:e}, {2:e}", A, B, C).str();
}

TEST_P(FloatOps, F32) {
  static const char *const Names[] = {DIFF_F32_OPS(DIFF_OP_NAME)};
  static const diff::OpKind Kinds[] = {DIFF_F32_OPS(DIFF_OP_KIND)};
  constexpr size_t NOps = diff::F32OpCount;
  Module *M = loadModule("float_ops", level());
  ASSERT_TRUE(M);
  Device &Dev = *sharedDevice();
  F32Triples In = f32Inputs(N, 0x2001);
  auto A = upload(Dev, In.A), B = upload(Dev, In.B), C = upload(Dev, In.C);
  auto Out = filled<uint32_t>(Dev, size_t(N) * NOps, 0xcccccccc);
  ASSERT_TRUE(launchOk(*M, "f32_ops", LaunchConfig::linear(N, 64),
                       KernelArgs()
                           .add(Out->address())
                           .add(A->address())
                           .add(B->address())
                           .add(C->address())
                           .add(N)));
  std::vector<uint32_t> Expected(size_t(N) * NOps);
  for (uint32_t I = 0; I < N; ++I)
    diff::f32Ops(In.A[I], In.B[I], In.C[I], &Expected[size_t(I) * NOps]);
  std::vector<uint32_t> Got = download<uint32_t>(*Out, Expected.size());
  EXPECT_TRUE(compareOps<uint32_t>("f32_ops", Got, Expected, Names, Kinds, [&](size_t I) {
    return describe(In.A[I], In.B[I], In.C[I]);
  }));
}

TEST_P(FloatOps, F64) {
  static const char *const Names[] = {DIFF_F64_OPS(DIFF_OP_NAME)};
  static const diff::OpKind Kinds[] = {DIFF_F64_OPS(DIFF_OP_KIND)};
  constexpr size_t NOps = diff::F64OpCount;
  Module *M = loadModule("float_ops", level());
  ASSERT_TRUE(M);
  Device &Dev = *sharedDevice();
  F64Triples In = f64Inputs(N, 0x2002);
  auto A = upload(Dev, In.A), B = upload(Dev, In.B), C = upload(Dev, In.C);
  auto Out = filled<uint64_t>(Dev, size_t(N) * NOps, 0xccccccccccccccccull);
  ASSERT_TRUE(launchOk(*M, "f64_ops", LaunchConfig::linear(N, 64),
                       KernelArgs()
                           .add(Out->address())
                           .add(A->address())
                           .add(B->address())
                           .add(C->address())
                           .add(N)));
  std::vector<uint64_t> Expected(size_t(N) * NOps);
  for (uint32_t I = 0; I < N; ++I)
    diff::f64Ops(In.A[I], In.B[I], In.C[I], &Expected[size_t(I) * NOps]);
  std::vector<uint64_t> Got = download<uint64_t>(*Out, Expected.size());
  EXPECT_TRUE(compareOps<uint64_t>("f64_ops", Got, Expected, Names, Kinds, [&](size_t I) {
    return describe(In.A[I], In.B[I], In.C[I]);
  }));
}

TEST_P(FloatOps, F16) {
  static const char *const Names[] = {DIFF_F16_OPS(DIFF_OP_NAME)};
  static const diff::OpKind Kinds[] = {DIFF_F16_OPS(DIFF_OP_KIND)};
  constexpr size_t NOps = diff::F16OpCount;
  Module *M = loadModule("float_ops", level());
  ASSERT_TRUE(M);
  Device &Dev = *sharedDevice();
  F16Triples In = f16Inputs(N, 0x2003);
  auto A = upload(Dev, In.A), B = upload(Dev, In.B), C = upload(Dev, In.C);
  auto Out = filled<uint32_t>(Dev, size_t(N) * NOps, 0xcccccccc);
  ASSERT_TRUE(launchOk(*M, "f16_ops", LaunchConfig::linear(N, 64),
                       KernelArgs()
                           .add(Out->address())
                           .add(A->address())
                           .add(B->address())
                           .add(C->address())
                           .add(N)));
  std::vector<uint32_t> Expected(size_t(N) * NOps);
  for (uint32_t I = 0; I < N; ++I)
    diff::f16Ops(diff::f16Of(In.A[I]), diff::f16Of(In.B[I]), diff::f16Of(In.C[I]),
                 &Expected[size_t(I) * NOps]);
  std::vector<uint32_t> Got = download<uint32_t>(*Out, Expected.size());
  EXPECT_TRUE(compareOps<uint32_t>("f16_ops", Got, Expected, Names, Kinds, [&](size_t I) {
    return hex(In.A[I]) + ", " + hex(In.B[I]) + ", " + hex(In.C[I]);
  }));
}

LOOM_DIFF_LEVELS(FloatOps);

} // namespace
