//===- tests/jit/JitTest.cpp - LLVM IR in, a launched kernel out ----------===//
//
// The JIT end to end on the virtual GPU, through Loom's HSA runtime:
// kernels from IR text and from IRBuilder checked against the host, two
// modules calling each other and sharing a variable, hidden arguments,
// name lookup, argument checks, every error case, the cache, and lld used
// many times in a row and from several threads at once.
//
//===----------------------------------------------------------------------===//

#include "SaxpyIR.h"
#include "loom/jit/Cache.h"
#include "loom/jit/Jit.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicsAMDGPU.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <thread>
#include <unistd.h>

using namespace llvm;
using namespace loom::jit;

namespace {

const char *Saxpy = loom::examples::SaxpyIR;

/// Fails the test with the error's message.
#define ASSERT_OK(E)                                                           \
  do {                                                                         \
    if (Error Err_ = (E))                                                      \
      FAIL() << toString(std::move(Err_));                                     \
  } while (0)

template <typename T> T take(Expected<T> V) {
  if (!V) {
    ADD_FAILURE() << toString(V.takeError());
    std::abort();
  }
  if constexpr (std::is_reference_v<T>)
    return *V;
  else
    return std::move(*V);
}

std::string errorOf(Error E) {
  EXPECT_TRUE(bool(E)) << "expected an error";
  return toString(std::move(E));
}
template <typename T> std::string errorOf(Expected<T> V) {
  if (V) {
    ADD_FAILURE() << "expected an error";
    return "";
  }
  return toString(V.takeError());
}


class JitTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() { Dev = take(Device::open()).release(); }
  static void TearDownTestSuite() {
    delete Dev;
    Dev = nullptr;
  }

  template <typename T> T *alloc(size_t N) {
    return static_cast<T *>(take(Dev->allocate(N * sizeof(T))));
  }

  static Device *Dev;
};
Device *JitTest::Dev = nullptr;

TEST_F(JitTest, TargetComesFromTheAgent) {
  EXPECT_EQ(Dev->target().Processor, "gfx90a");
}

TEST_F(JitTest, SaxpyFromIRTextMatchesTheHost) {
  auto P = take(Dev->compile(Saxpy));
  Kernel &K = take(P->kernel("saxpy"));
  ASSERT_EQ(K.arguments().size(), 4u);
  EXPECT_EQ(K.arguments()[1].ValueKind, "global_buffer");

  const int N = 1000;
  float *X = alloc<float>(N), *Y = alloc<float>(N);
  for (int I = 0; I < N; ++I) {
    X[I] = I * 0.5f;
    Y[I] = 1000.0f - I;
  }
  auto L = take(K.launch({(N + 63) / 64}, {64}, 2.0f, X, Y, N));
  ASSERT_OK(L.wait());
  for (int I = 0; I < N; ++I)
    ASSERT_EQ(Y[I], 2.0f * (I * 0.5f) + (1000.0f - I)) << "at " << I;
  ASSERT_OK(Dev->free(X));
  ASSERT_OK(Dev->free(Y));
}

TEST_F(JitTest, KernelBuiltWithIRBuilder) {
  // out[i] = i * i + k, built instruction by instruction.
  auto Ctx = std::make_unique<LLVMContext>();
  auto M = std::make_unique<Module>("squares", *Ctx);
  Type *I32 = Type::getInt32Ty(*Ctx);
  PointerType *Global = PointerType::get(*Ctx, 1);
  auto *F = Function::Create(
      FunctionType::get(Type::getVoidTy(*Ctx), {Global, I32}, false),
      Function::ExternalLinkage, "squares", *M);
  F->setCallingConv(CallingConv::AMDGPU_KERNEL);
  IRBuilder<> B(BasicBlock::Create(*Ctx, "entry", F));
  Value *Tid = B.CreateIntrinsic(Intrinsic::amdgcn_workitem_id_x, {});
  Value *Bid = B.CreateIntrinsic(Intrinsic::amdgcn_workgroup_id_x, {});
  Value *I = B.CreateAdd(B.CreateMul(Bid, B.getInt32(128)), Tid);
  Value *V = B.CreateAdd(B.CreateMul(I, I), F->getArg(1));
  B.CreateStore(V, B.CreateGEP(I32, F->getArg(0), I));
  B.CreateRetVoid();

  auto P = take(Dev->compile(std::move(M)));
  const int N = 512;
  int32_t *Out = alloc<int32_t>(N);
  auto L = take(take(P->kernel("squares")).launch({N / 128}, {128}, Out, 7));
  ASSERT_OK(L.wait());
  for (int J = 0; J < N; ++J)
    ASSERT_EQ(Out[J], J * J + 7);
  ASSERT_OK(Dev->free(Out));
}

TEST_F(JitTest, OptimisationLevelsAgree) {
  for (unsigned Level : {0u, 1u, 2u, 3u}) {
    ProgramOptions O;
    O.OptLevel = Level;
    auto P = take(Dev->compile(Saxpy, O));
    float *X = alloc<float>(64), *Y = alloc<float>(64);
    for (int I = 0; I < 64; ++I)
      X[I] = I, Y[I] = 1;
    ASSERT_OK(take(take(P->kernel("saxpy")).launch({1}, {64}, 3.0f, X, Y, 64))
                  .wait());
    for (int I = 0; I < 64; ++I)
      ASSERT_EQ(Y[I], 3.0f * I + 1) << "-O" << Level;
  }
}

// Hidden arguments, read back through the implicit argument pointer (code
// object v6: block count x at 0, group size x at 12, remainder x at 18,
// grid dimensions at 64; AMDGPUUsage) and the dynamic LDS size.
TEST_F(JitTest, HiddenArgumentsAreFilledAsARuntimeFillsThem) {
  const char *IR = R"(
@dyn = external addrspace(3) global [0 x i32], align 4
define amdgpu_kernel void @hidden(ptr addrspace(1) %out) {
  %ia = call ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
  %bc = load i32, ptr addrspace(4) %ia
  %gs.p = getelementptr i8, ptr addrspace(4) %ia, i64 12
  %gs = load i16, ptr addrspace(4) %gs.p
  %rm.p = getelementptr i8, ptr addrspace(4) %ia, i64 18
  %rm = load i16, ptr addrspace(4) %rm.p
  %gd.p = getelementptr i8, ptr addrspace(4) %ia, i64 64
  %gd = load i16, ptr addrspace(4) %gd.p
  %gs32 = zext i16 %gs to i32
  %rm32 = zext i16 %rm to i32
  %gd32 = zext i16 %gd to i32
  store i32 %bc, ptr addrspace(1) %out
  %o1 = getelementptr i32, ptr addrspace(1) %out, i32 1
  store i32 %gs32, ptr addrspace(1) %o1
  %o2 = getelementptr i32, ptr addrspace(1) %out, i32 2
  store i32 %rm32, ptr addrspace(1) %o2
  %o3 = getelementptr i32, ptr addrspace(1) %out, i32 3
  store i32 %gd32, ptr addrspace(1) %o3
  ; the last dynamic LDS word is writable and readable
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %l = getelementptr [0 x i32], ptr addrspace(3) @dyn, i32 0, i32 255
  store i32 %tid, ptr addrspace(3) %l
  %back = load i32, ptr addrspace(3) %l
  %o4 = getelementptr i32, ptr addrspace(1) %out, i32 4
  %zero = icmp eq i32 %tid, 0
  br i1 %zero, label %w, label %e
w:
  store i32 %back, ptr addrspace(1) %o4
  br label %e
e:
  ret void
}
declare ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
declare i32 @llvm.amdgcn.workitem.id.x()
)";
  auto P = take(Dev->compile(IR));
  Kernel &K = take(P->kernel("hidden"));
  int32_t *Out = alloc<int32_t>(8);
  LaunchOptions O;
  O.Grid = {3};
  O.Block = {32};
  O.DynamicLdsBytes = 1024;
  ASSERT_OK(take(K.launch(O, Out)).wait());
  EXPECT_EQ(Out[0], 3);  // block count x
  EXPECT_EQ(Out[1], 32); // group size x
  EXPECT_EQ(Out[2], 0);  // no partial group
  EXPECT_EQ(Out[3], 1);  // one dimension
  EXPECT_EQ(Out[4], 0);
  ASSERT_OK(Dev->free(Out));
}

// Module "lib" defines a device function and a variable; module "app"
// declares and uses both. Each is its own code object; the loader binds
// them at freeze.
TEST_F(JitTest, TwoModulesCallEachOtherAndShareAVariable) {
  const char *Lib = R"(
@scale = addrspace(1) global i32 3, align 4
define i32 @twice_plus(i32 %x) {
  %s = load i32, ptr addrspace(1) @scale
  %d = mul i32 %x, 2
  %r = add i32 %d, %s
  ret i32 %r
}
)";
  const char *App = R"(
@scale = external addrspace(1) global i32, align 4
declare i32 @twice_plus(i32)
define amdgpu_kernel void @use(ptr addrspace(1) %out) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %v = call i32 @twice_plus(i32 %tid)
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %v, ptr addrspace(1) %p
  %z = icmp eq i32 %tid, 0
  br i1 %z, label %bump, label %end
bump:
  store i32 10, ptr addrspace(1) @scale
  br label %end
end:
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
)";
  std::vector<Source> Sources;
  Sources.push_back(Source::ir(Lib, "lib.ll"));
  Sources.push_back(Source::ir(App, "app.ll"));
  auto P = take(Dev->build(std::move(Sources)));
  EXPECT_EQ(P->codeObjects().size(), 2u);
  auto *Scale = static_cast<int32_t *>(take(P->variable("scale")));
  EXPECT_EQ(*Scale, 3);
  int32_t *Out = alloc<int32_t>(64);
  ASSERT_OK(take(take(P->kernel("use")).launch({1}, {64}, Out)).wait());
  // Every lane read 3 (the store of 10 comes after all reads in wave
  // order: lane 0's store follows its own call, and all lanes run the
  // call together).
  for (int I = 0; I < 64; ++I)
    ASSERT_EQ(Out[I], 2 * I + 3);
  EXPECT_EQ(*Scale, 10); // the device's write is seen by the host
  ASSERT_OK(Dev->free(Out));
}

TEST_F(JitTest, AMissingFunctionOfAnotherModuleNamesIt) {
  // Alone, a module may not leave a symbol undefined: lld says which.
  const char *App = R"(
declare i32 @nowhere(i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out) {
  %v = call i32 @nowhere(i32 1)
  store i32 %v, ptr addrspace(1) %out
  ret void
}
)";
  std::string E = errorOf(Dev->compile(App));
  EXPECT_NE(E.find("undefined symbol: nowhere"), std::string::npos) << E;
}

const char *Overloads = R"(
define amdgpu_kernel void @_Z4fillPii(ptr addrspace(1) %p, i32 %v) {
  store i32 %v, ptr addrspace(1) %p
  ret void
}
define amdgpu_kernel void @_Z4fillPff(ptr addrspace(1) %p, float %v) {
  store float %v, ptr addrspace(1) %p
  ret void
}
define amdgpu_kernel void @_Z5clearPi(ptr addrspace(1) %p) {
  store i32 0, ptr addrspace(1) %p
  ret void
}
)";

TEST_F(JitTest, KernelsAreFoundByMangledOrDemangledName) {
  auto P = take(Dev->compile(Overloads));
  EXPECT_EQ(take(P->kernel("_Z4fillPii")).symbol(), "_Z4fillPii");
  EXPECT_EQ(take(P->kernel("fill(float*, float)")).symbol(), "_Z4fillPff");
  EXPECT_EQ(take(P->kernel("clear")).symbol(), "_Z5clearPi");
  EXPECT_EQ(take(P->kernel("clear(int*)")).name(), "clear(int*)");

  std::string Ambiguous = errorOf(P->kernel("fill"));
  EXPECT_NE(Ambiguous.find("ambiguous"), std::string::npos) << Ambiguous;
  EXPECT_NE(Ambiguous.find("fill(int*, int) [_Z4fillPii]"), std::string::npos)
      << Ambiguous;
  EXPECT_NE(Ambiguous.find("fill(float*, float) [_Z4fillPff]"),
            std::string::npos)
      << Ambiguous;

  std::string Missing = errorOf(P->kernel("clean"));
  EXPECT_NE(Missing.find("no kernel named 'clean'; near matches:"),
            std::string::npos)
      << Missing;
  EXPECT_NE(Missing.find("clear(int*)"), std::string::npos) << Missing;
  EXPECT_EQ(Missing.find("fill"), std::string::npos) << Missing;

  std::string Far = errorOf(P->kernel("transpose_matrix"));
  EXPECT_NE(Far.find("the program has these kernels"), std::string::npos)
      << Far;
}

TEST_F(JitTest, ArgumentsAreCheckedAgainstTheMetadata) {
  auto P = take(Dev->compile(Saxpy));
  Kernel &K = take(P->kernel("saxpy"));
  float *X = alloc<float>(64);
  std::string Count = errorOf(K.launch({1}, {64}, 2.0f, X, X));
  EXPECT_NE(Count.find("takes 4 arguments, 3 given"), std::string::npos)
      << Count;
  std::string Size = errorOf(K.launch({1}, {64}, 2.0f, X, 7, 64));
  EXPECT_NE(Size.find("argument 2"), std::string::npos) << Size;
  EXPECT_NE(Size.find("is 8 bytes (global_buffer), but a int of 4 bytes"),
            std::string::npos)
      << Size;
  std::string Double = errorOf(K.launch({1}, {64}, 2.0, X, X, 64));
  EXPECT_NE(Double.find("argument 0"), std::string::npos) << Double;
  std::string Block = errorOf(K.launch({1}, {2048}, 2.0f, X, X, 64));
  EXPECT_NE(Block.find("more than 1024"), std::string::npos) << Block;
  ASSERT_OK(Dev->free(X));
}

TEST_F(JitTest, ArgumentAlignmentIsChecked) {
  // [2 x i32] is 8 bytes aligned to 4: it sits at offset 4, where a
  // uint64_t (alignment 8) may not go, though a struct of two ints may.
  auto P = take(Dev->compile(R"(
define amdgpu_kernel void @pair(i32 %a, [2 x i32] %b, ptr addrspace(1) %out) {
  %b1 = extractvalue [2 x i32] %b, 1
  %s = add i32 %a, %b1
  store i32 %s, ptr addrspace(1) %out
  ret void
}
)"));
  Kernel &K = take(P->kernel("pair"));
  ASSERT_EQ(K.arguments()[1].Offset, 4u);
  int32_t *Out = alloc<int32_t>(1);
  std::string E = errorOf(K.launch({1}, {1}, 1, uint64_t(2), Out));
  EXPECT_NE(E.find("argument 1 'b' of kernel 'pair' lies at offset 4, not "
                   "aligned for a"),
            std::string::npos)
      << E;
  struct IntPair {
    int32_t X, Y;
  };
  ASSERT_OK(take(K.launch({1}, {1}, 40, IntPair{1, 2}, Out)).wait());
  EXPECT_EQ(*Out, 42);
}

TEST_F(JitTest, BadIRIsAClearError) {
  std::string Parse = errorOf(Dev->compile("define void @f( {", {}));
  EXPECT_NE(Parse.find("<ir>:1:"), std::string::npos) << Parse;
  EXPECT_NE(Parse.find("error:"), std::string::npos) << Parse;

  std::string Verify = errorOf(Dev->compile(R"(
define amdgpu_kernel void @k(ptr addrspace(1) %p) {
  call amdgpu_kernel void @k(ptr addrspace(1) %p)
  ret void
}
)"));
  EXPECT_NE(Verify.find("invalid IR"), std::string::npos) << Verify;

  std::string Triple = errorOf(Dev->compile(R"(
target triple = "x86_64-unknown-linux-gnu"
define void @f() {
  ret void
}
)"));
  EXPECT_NE(Triple.find("module is for target 'x86_64-unknown-linux-gnu'"),
            std::string::npos)
      << Triple;

  std::string Missing = errorOf(Dev->compileFile("/nonexistent/k.ll"));
  EXPECT_NE(Missing.find("/nonexistent/k.ll"), std::string::npos) << Missing;
}

TEST_F(JitTest, WhatTheBackendCannotCompileIsAnErrorNotAnExit) {
  // A kernel run first: the HSA runtime's decoder (its own copy of isa's
  // crash recovery scopes, sharing libLLVM) turned LLVM's recovery off
  // when its scope ended, and the fatal error below then exited.
  {
    auto P = take(Dev->compile(Saxpy));
    Kernel &K = take(P->kernel("saxpy"));
    float *X = alloc<float>(64), *Y = alloc<float>(64);
    for (int I = 0; I < 64; ++I)
      X[I] = 1, Y[I] = I;
    ASSERT_OK(take(K.launch({1}, {64}, 2.0f, X, Y, 64)).wait());
    EXPECT_EQ(Y[63], 65.0f);
  }
  // Reported through the context's diagnostics.
  std::string Lds = errorOf(Dev->compile(R"(
@lds = internal addrspace(3) global [40000 x i32] poison
define amdgpu_kernel void @big(ptr addrspace(1) %p, i32 %x) {
  %a = getelementptr [40000 x i32], ptr addrspace(3) @lds, i32 0, i32 %x
  store volatile i32 1, ptr addrspace(3) %a
  %b = load volatile i32, ptr addrspace(3) %a
  store i32 %b, ptr addrspace(1) %p
  ret void
}
)"));
  EXPECT_NE(Lds.find("local memory (160000) exceeds limit (65536)"),
            std::string::npos)
      << Lds;
  // An LLVM fatal error ("Cannot select"), which would exit llc.
  std::string Select = errorOf(Dev->compile(R"(
define amdgpu_kernel void @k(ptr addrspace(1) %p, i32 %x) {
  %v = call i32 @llvm.amdgcn.permlane16.i32(i32 %x, i32 %x, i32 0, i32 0, i1 false, i1 false)
  store i32 %v, ptr addrspace(1) %p
  ret void
}
declare i32 @llvm.amdgcn.permlane16.i32(i32, i32, i32, i32, i1, i1)
)"));
  EXPECT_NE(Select.find("Cannot select"), std::string::npos) << Select;
  // The JIT still works afterwards.
  auto P = take(Dev->compile(Saxpy));
  EXPECT_TRUE(bool(P->kernel("saxpy")));
}

TEST_F(JitTest, AFaultingKernelIsAnErrorAndTheProcessGoesOn) {
  auto P = take(Dev->compile(Saxpy));
  Kernel &K = take(P->kernel("saxpy"));
  auto S = take(Dev->createStream());
  LaunchOptions O;
  O.Grid = {1};
  O.Block = {64};
  O.On = S.get();
  auto *Bad = reinterpret_cast<float *>(uintptr_t(0x1000));
  auto L = take(K.launch(O, 1.0f, Bad, Bad, 64));
  std::string E = errorOf(L.wait());
  EXPECT_NE(E.find("kernel 'saxpy'"), std::string::npos) << E;
  EXPECT_TRUE(bool(S->status()));
  consumeError(S->status());
  // The default stream is unaffected.
  float *X = alloc<float>(64), *Y = alloc<float>(64);
  for (int I = 0; I < 64; ++I)
    X[I] = 1, Y[I] = I;
  ASSERT_OK(take(K.launch({1}, {64}, 1.0f, X, Y, 64)).wait());
  EXPECT_EQ(Y[63], 64.0f);
}

TEST_F(JitTest, StreamsOrderTheirLaunches) {
  auto P = take(Dev->compile(Saxpy));
  Kernel &K = take(P->kernel("saxpy"));
  auto S = take(Dev->createStream());
  float *X = alloc<float>(64), *Y = alloc<float>(64);
  for (int I = 0; I < 64; ++I)
    X[I] = 1, Y[I] = 0;
  LaunchOptions O;
  O.Grid = {1};
  O.Block = {64};
  O.On = S.get();
  std::vector<Launch> Launches;
  for (int I = 0; I < 20; ++I)
    Launches.push_back(take(K.launch(O, 1.0f, X, Y, 64)));
  ASSERT_OK(S->synchronize());
  for (Launch &L : Launches)
    EXPECT_TRUE(L.done());
  for (int I = 0; I < 64; ++I)
    ASSERT_EQ(Y[I], 20.0f);
}

// The MC half of the pipeline: a hand-written kernel (the trace compiler's
// test kernel) assembled, linked and launched.
TEST_F(JitTest, AssemblyIsAssembledLinkedAndRun) {
  auto Text = MemoryBuffer::getFile(std::string(LOOM_SOURCE_DIR) +
                                    "/tests/emu/core/kernels/trace_bfi.s");
  ASSERT_TRUE(bool(Text));
  std::vector<Source> S;
  S.push_back(Source::assembly((*Text)->getBuffer(), "trace_bfi.s"));
  auto P = take(Dev->build(std::move(S)));
  uint32_t *Out = alloc<uint32_t>(64), *A = alloc<uint32_t>(64),
           *B = alloc<uint32_t>(64);
  for (uint32_t I = 0; I < 64; ++I) {
    A[I] = I * 0x01010101u;
    B[I] = I % 2 ? 0x80000000u : 0x12345678u;
  }
  ASSERT_OK(take(take(P->kernel("bfi_const_mask")).launch({1}, {64}, Out, A, B))
                .wait());
  for (uint32_t I = 0; I < 64; ++I)
    ASSERT_EQ(Out[I], ((A[I] + 100u * 0x9e3779b9u) & 0x7fffffffu) |
                          (B[I] & 0x80000000u))
        << I;

  std::string Bad = errorOf(assembleObject(
      "  .text\n  v_add_f32 v0, v1\n  s_bogus s0\n", "bad.s", TargetSpec()));
  EXPECT_NE(Bad.find("bad.s:2:"), std::string::npos) << Bad;
  EXPECT_NE(Bad.find("bad.s:3:"), std::string::npos) << Bad;
}

class JitCacheTest : public JitTest {
protected:
  void SetUp() override {
    SmallString<128> Dir;
    ASSERT_FALSE(sys::fs::createUniqueDirectory("loom-jit-cache", Dir));
    CacheDir = std::string(Dir);
  }
  void TearDown() override { sys::fs::remove_directories(CacheDir); }
  std::string CacheDir;
};

TEST_F(JitCacheTest, HitMissAndCorruptEntries) {
  CodeObjectCache Cache(CacheDir);
  CompileOptions C;
  C.Target = Dev->target();
  std::string Key = CodeObjectCache::key(ArrayRef(Saxpy, strlen(Saxpy)), C, {});
  EXPECT_FALSE(Cache.lookup(Key));

  ProgramOptions O;
  O.CacheDirectory = CacheDir;
  auto First = take(Dev->compile(Saxpy, O)); // miss: compiled and stored
  ASSERT_TRUE(sys::fs::exists(Cache.pathOf(Key)));
  auto Second = take(Dev->compile(Saxpy, O)); // hit
  EXPECT_EQ(First->codeObjects()[0], Second->codeObjects()[0]);
  std::optional<ObjectBytes> Hit = Cache.lookup(Key);
  ASSERT_TRUE(Hit);
  EXPECT_EQ(*Hit, First->codeObjects()[0]);
  EXPECT_EQ(Cache.hits(), 1u);

  // Other options, other key.
  ProgramOptions O0 = O;
  O0.OptLevel = 0;
  CompileOptions C0 = C;
  C0.OptLevel = 0;
  EXPECT_NE(CodeObjectCache::key(ArrayRef(Saxpy, strlen(Saxpy)), C0, {}), Key);

  // Truncated, then one byte flipped: each found, discarded and rebuilt.
  for (int Damage = 0; Damage < 2; ++Damage) {
    std::string Path = Cache.pathOf(Key);
    uint64_t Size = 0;
    ASSERT_FALSE(sys::fs::file_size(Path, Size));
    if (Damage == 0) {
      ASSERT_EQ(::truncate(Path.c_str(), Size / 2), 0);
    } else {
      std::fstream F(Path, std::ios::in | std::ios::out | std::ios::binary);
      F.seekp(Size - 100);
      F.put('\x5a');
    }
    CodeObjectCache Check(CacheDir);
    EXPECT_FALSE(Check.lookup(Key));
    EXPECT_EQ(Check.discarded(), 1u);
    EXPECT_FALSE(sys::fs::exists(Path));
    auto Rebuilt = take(Dev->compile(Saxpy, O));
    EXPECT_EQ(Rebuilt->codeObjects()[0], First->codeObjects()[0]);
    EXPECT_TRUE(sys::fs::exists(Path));
  }
  // And the cached program runs.
  float *X = alloc<float>(64), *Y = alloc<float>(64);
  for (int I = 0; I < 64; ++I)
    X[I] = I, Y[I] = 0;
  ASSERT_OK(take(take(Second->kernel("saxpy")).launch({1}, {64}, 2.0f, X, Y, 64))
                .wait());
  EXPECT_EQ(Y[10], 20.0f);
}

// lld's global state must not leak from one link into the next.
TEST(JitPipeline, HundredLinksInARow) {
  LLVMContext Ctx;
  auto M = cantFail(parseIR(MemoryBufferRef(Saxpy, "saxpy.ll"), Ctx));
  CompileOptions C;
  ObjectBytes Object = cantFail(compileModule(*M, C));
  ObjectBytes First = cantFail(linkObjects(ArrayRef(&Object, 1)));
  for (int I = 0; I < 100; ++I) {
    auto Linked = linkObjects(ArrayRef(&Object, 1));
    ASSERT_TRUE(bool(Linked)) << toString(Linked.takeError());
    ASSERT_EQ(*Linked, First) << "link " << I;
  }
  // A failing link in between leaves the next one clean.
  ObjectBytes Junk = {'n', 'o', 't', ' ', 'E', 'L', 'F'};
  std::string E = toString(linkObjects(ArrayRef(&Junk, 1)).takeError());
  EXPECT_NE(E.find("linking the code object failed"), std::string::npos) << E;
  EXPECT_NE(E.find("object 1"), std::string::npos) << E;
  EXPECT_EQ(cantFail(linkObjects(ArrayRef(&Object, 1))), First);
}

TEST(JitPipeline, FourThreadsCompileAndLinkAtOnce) {
  std::vector<ObjectBytes> Results(4);
  std::vector<std::string> Errors(4);
  std::vector<std::thread> Threads;
  for (int T = 0; T < 4; ++T)
    Threads.emplace_back([&, T] {
      for (int I = 0; I < 10; ++I) {
        LLVMContext Ctx;
        auto M = parseIR(MemoryBufferRef(Saxpy, "saxpy.ll"), Ctx);
        if (!M) {
          Errors[T] = toString(M.takeError());
          return;
        }
        auto Linked = compileAndLink(**M, CompileOptions());
        if (!Linked) {
          Errors[T] = toString(Linked.takeError());
          return;
        }
        if (I && *Linked != Results[T]) {
          Errors[T] = "link differs";
          return;
        }
        Results[T] = std::move(*Linked);
      }
    });
  for (std::thread &T : Threads)
    T.join();
  for (int T = 0; T < 4; ++T) {
    EXPECT_EQ(Errors[T], "") << "thread " << T;
    EXPECT_EQ(Results[T], Results[0]);
  }
}

TEST(JitPipeline, TargetsFromIsaNames) {
  TargetSpec T = cantFail(
      TargetSpec::fromIsaName("amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"));
  EXPECT_EQ(T.Processor, "gfx90a");
  EXPECT_EQ(T.Features, "+sramecc,-xnack");
  EXPECT_EQ(cantFail(TargetSpec::fromIsaName("gfx942")).Processor, "gfx942");
  EXPECT_FALSE(bool(TargetSpec::fromIsaName("x86_64")));
  consumeError(TargetSpec::fromIsaName("x86_64").takeError());

  // gfx942 compiles too; an unknown processor is refused.
  LLVMContext Ctx;
  auto M = cantFail(parseIR(MemoryBufferRef(Saxpy, "saxpy.ll"), Ctx));
  CompileOptions C;
  C.Target.Processor = "gfx942";
  EXPECT_TRUE(bool(compileAndLink(*M, C)));
  auto M2 = cantFail(parseIR(MemoryBufferRef(Saxpy, "saxpy.ll"), Ctx));
  C.Target.Processor = "gfx9999";
  std::string E = toString(compileModule(*M2, C).takeError());
  EXPECT_NE(E.find("'gfx9999' is not an AMDGPU processor"), std::string::npos)
      << E;
}

} // namespace

namespace {
/// Functions of different sizes, independent of each other, as the
/// instrumentation's points are; \p Bad adds ones the backend cannot
/// select (a fatal error in LLVM).
std::string partsModule(unsigned Bad) {
  std::string IR;
  for (unsigned F = 0; F < 5; ++F) {
    IR += "define void @f" + std::to_string(F) +
          "(ptr addrspace(1) %p, i32 inreg %n, i32 %v) {\n  %x0 = add i32 %v, "
          "%n\n";
    for (unsigned I = 1; I <= 4 * F; ++I)
      IR += "  %x" + std::to_string(I) + " = mul i32 %x" +
            std::to_string(I - 1) + ", " + std::to_string(I + 2) + "\n";
    IR += "  %q = getelementptr i32, ptr addrspace(1) %p, i32 %n\n"
          "  %c = icmp ugt i32 %x" + std::to_string(4 * F) + ", 7\n"
          "  br i1 %c, label %big, label %done\n"
          "big:\n  atomicrmw add ptr addrspace(1) %q, i32 %v seq_cst\n"
          "  br label %done\n"
          "done:\n  ret void\n}\n";
  }
  for (unsigned B = 0; B < Bad; ++B)
    IR += "define void @bad" + std::to_string(B) +
          "(ptr addrspace(1) %p, i32 %x) {\n"
          "  %v = call i32 @llvm.amdgcn.permlane16.i32(i32 %x, i32 %x, i32 0, "
          "i32 0, i1 false, i1 false)\n"
          "  store i32 %v, ptr addrspace(1) %p\n  ret void\n}\n";
  IR += "declare i32 @llvm.amdgcn.permlane16.i32(i32, i32, i32, i32, i1, "
        "i1)\n";
  return IR;
}

/// Each function's assembly, its local labels numbered from 0 (they are
/// numbered by the function's place in its module).
std::map<std::string, std::string>
functionsOf(const std::vector<ObjectBytes> &Parts) {
  std::map<std::string, std::string> Out;
  for (const ObjectBytes &Part : Parts) {
    StringRef Asm(Part.data(), Part.size());
    for (unsigned F = 0; F < 5; ++F) {
      std::string Name = "f" + std::to_string(F);
      size_t Start = Asm.find("\n" + Name + ":");
      if (Start == StringRef::npos)
        continue;
      size_t End = Asm.find("\n.Lfunc_end", Start);
      std::string Text = Asm.slice(Start, End).str();
      std::string Normal;
      for (size_t I = 0; I < Text.size(); ++I) {
        Normal += Text[I];
        if (StringRef(Text).substr(I).starts_with(".LBB")) {
          Normal += "BB";
          I += 3;
          while (I + 1 < Text.size() && isDigit(Text[I + 1]))
            ++I;
        }
      }
      EXPECT_TRUE(Out.emplace(Name, Normal).second) << Name << " twice";
    }
  }
  return Out;
}
} // namespace

// The instrumentation compiles a copy's new shapes on several threads:
// each function must come out as one compilation of the whole module makes
// it, whichever part it falls in.
TEST(JitPipeline, FunctionsCompiledInPartsAreThoseOfOneCompilation) {
  CompileOptions C;
  C.Assembly = true;
  std::map<std::string, std::string> Whole;
  for (unsigned Parts : {1u, 2u, 3u, 5u, 8u}) {
    LLVMContext Ctx;
    std::string IR = partsModule(0);
    auto M = cantFail(parseIR(MemoryBufferRef(IR, "parts.ll"), Ctx));
    auto Out = compileModuleInParts(*M, C, Parts);
    ASSERT_TRUE(bool(Out)) << toString(Out.takeError());
    EXPECT_EQ(Out->size(), std::min(Parts, 5u));
    std::map<std::string, std::string> Functions = functionsOf(*Out);
    ASSERT_EQ(Functions.size(), 5u) << Parts << " parts";
    if (Parts == 1)
      Whole = Functions;
    for (auto &[Name, Text] : Functions)
      EXPECT_EQ(Text, Whole[Name]) << Name << ", " << Parts << " parts";
  }
}

// compileModule keeps the backend's passes for assembly and runs them on
// module after module: what a module comes out as does not depend on what
// was compiled before it (but for the `.text` the first output starts with).
TEST(JitPipeline, AssemblyDoesNotDependOnWhatWasCompiledBefore) {
  CompileOptions C;
  C.Assembly = true;
  auto Compile = [&](const std::string &IR) -> std::string {
    LLVMContext Ctx;
    auto M = cantFail(parseIR(MemoryBufferRef(IR, "m.ll"), Ctx));
    auto Out = compileModule(*M, C);
    if (!Out)
      return "error: " + toString(Out.takeError());
    std::string Text;
    for (StringRef Line : split(StringRef(Out->data(), Out->size()), '\n'))
      if (Line != "\t.text")
        Text += Line.str() + "\n";
    return Text;
  };
  std::string First = Compile(partsModule(0));
  ASSERT_NE(First.find("\nf4:"), std::string::npos) << First;
  std::string Other =
      "define void @g(ptr addrspace(1) %p, i32 %v) {\n"
      "  %w = call i32 asm sideeffect \"s_mov_b32 $0, 1\\0A1:\", \"=s\"()\n"
      "  %s = add i32 %v, %w\n  store i32 %s, ptr addrspace(1) %p\n"
      "  ret void\n}\n";
  for (int Round = 0; Round < 3; ++Round) {
    EXPECT_EQ(Compile(Other).find("error"), std::string::npos);
    EXPECT_EQ(Compile(partsModule(0)), First) << "round " << Round;
  }
  // After a module the backend fails on, too.
  EXPECT_NE(Compile(partsModule(1)).find("error: "), std::string::npos);
  EXPECT_EQ(Compile(partsModule(0)), First);
}

// A function the backend cannot compile fails its part: the error names
// the part's functions and keeps every failed part's message; the other
// parts and the next compilation are not affected.
TEST(JitPipeline, APartThatFailsIsNamedAndNothingIsLost) {
  CompileOptions C;
  C.Assembly = true;
  LLVMContext Ctx;
  std::string IR = partsModule(2);
  auto M = cantFail(parseIR(MemoryBufferRef(IR, "parts.ll"), Ctx));
  auto Out = compileModuleInParts(*M, C, 7, [](const Function &F) {
    return "point " + F.getName().str();
  });
  ASSERT_FALSE(bool(Out));
  std::string E = toString(Out.takeError());
  for (const char *Bad : {"point bad0: ", "point bad1: "})
    EXPECT_NE(E.find(Bad), std::string::npos) << E;
  EXPECT_EQ(E.find("point f"), std::string::npos) << E;
  size_t First = E.find("Cannot select");
  ASSERT_NE(First, std::string::npos) << E;
  EXPECT_NE(E.find("Cannot select", First + 1), std::string::npos) << E;

  LLVMContext Again;
  std::string Good = partsModule(0);
  auto N = cantFail(parseIR(MemoryBufferRef(Good, "parts.ll"), Again));
  auto Next = compileModuleInParts(*N, C, 3);
  ASSERT_TRUE(bool(Next)) << toString(Next.takeError());
  EXPECT_EQ(functionsOf(*Next).size(), 5u);
}
