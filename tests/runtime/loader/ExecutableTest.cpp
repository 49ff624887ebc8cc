//===- tests/runtime/loader/ExecutableTest.cpp - Executables and symbols --===//

#include "LoaderTestUtil.h"

#include "loom/runtime/loader/Registry.h"

#include <atomic>
#include <set>
#include <thread>

using namespace loom;
using namespace loom::loader;
using namespace loom::loader::test;

namespace {

using ExecutableTest = LoaderFixture;

TEST_F(ExecutableTest, InfoAndStates) {
  auto E = Executable::create(Profile::Full, FloatRoundingMode::Near);
  EXPECT_EQ(E->profile(), Profile::Full);
  EXPECT_EQ(E->defaultFloatRoundingMode(), FloatRoundingMode::Near);
  EXPECT_EQ(E->state(), ExecutableState::Unfrozen);
  ASSERT_TRUE(load(*E, "gfx90a_v5_kernels.elf"));
  EXPECT_FALSE(bool(E->validate()));
  ASSERT_FALSE(bool(E->freeze()));
  EXPECT_EQ(E->state(), ExecutableState::Frozen);

  // Nothing changes a frozen executable.
  EXPECT_EQ(kindOf(E->freeze()), LoaderErrc::FrozenExecutable);
  auto R = reader("xco_callee.elf");
  EXPECT_EQ(kindOf(E->loadAgentCodeObject(Agent, *R)),
            LoaderErrc::FrozenExecutable);
  int X = 0;
  EXPECT_EQ(kindOf(E->defineProgramVariable("x", uint64_t(&X))),
            LoaderErrc::FrozenExecutable);
  EXPECT_EQ(kindOf(E->defineAgentVariable("x", Agent, VariableSegment::Global,
                                          uint64_t(&X))),
            LoaderErrc::FrozenExecutable);
  EXPECT_EQ(E->loadedCodeObjects().size(), 1u);
}

// Every kernel, device function and variable of the code object is a
// symbol, with the facts codeobj:: reads independently from the file.
TEST_F(ExecutableTest, SymbolsMatchTheCodeObject) {
  for (const char *Name : {"gfx90a_v5_kernels.elf", "gfx90a_v4_kernels.elf",
                           "gfx90a_v6_kernels.elf", "ocl_kernels.elf"}) {
    SCOPED_TRACE(Name);
    auto E = Executable::create();
    const LoadedCodeObject *L = load(*E, Name);
    ASSERT_TRUE(L);
    auto In = codeobj::readInputFile(fixture(Name));
    ASSERT_TRUE(bool(In)) << llvm::toString(In.takeError());
    const codeobj::CodeObject &CO = *In->CodeObjects.at(0).Object;
    uint64_t Delta = L->loadDelta();
    EXPECT_EQ(L->loadBase(), Delta); // the image starts at ELF address 0
    EXPECT_EQ(L->loadSize(), CO.loadedSize());

    size_t Expected = CO.kernels().size() + CO.functions().size() +
                      CO.variables().size();
    EXPECT_EQ(E->symbols().size(), Expected);
    EXPECT_EQ(E->agentSymbols(Agent.Handle).size(), Expected);
    EXPECT_TRUE(E->programSymbols().empty());
    ASSERT_GT(CO.kernels().size(), 0u);

    for (const codeobj::Kernel &K : CO.kernels()) {
      SCOPED_TRACE(K.Descriptor.Name);
      const Symbol *S = E->findSymbol(K.Descriptor.Name, Agent.Handle);
      ASSERT_NE(S, nullptr);
      EXPECT_EQ(S->Kind, SymbolKind::Kernel);
      EXPECT_EQ(S->Name, K.Descriptor.Name);
      EXPECT_EQ(S->Address, Delta + K.Descriptor.Address);
      EXPECT_EQ(S->Agent, Agent.Handle);
      EXPECT_EQ(S->Linkage, SymbolLinkage::Program);
      EXPECT_TRUE(S->IsDefinition);
      EXPECT_EQ(S->Code, L);
      EXPECT_EQ(S->GroupSegmentSize, K.KD.GroupSegmentFixedSize);
      EXPECT_EQ(S->PrivateSegmentSize, K.KD.PrivateSegmentFixedSize);
      EXPECT_EQ(S->DynamicCallStack, K.KD.Properties.UsesDynamicStack);
      const codeobj::KernelMetadata *MD = CO.metadataOf(K);
      ASSERT_NE(MD, nullptr);
      EXPECT_EQ(S->KernargSegmentSize, MD->KernargSegmentSize);
      EXPECT_EQ(S->KernargSegmentAlignment,
                std::max<uint64_t>(16, MD->KernargSegmentAlign));
      // The kernel object really is the descriptor.
      EXPECT_EQ(std::memcmp(reinterpret_cast<const void *>(S->Address),
                            CO.contents(K.Descriptor.Address, 64)->data(), 64),
                0);
      // The entry name alone is not a symbol, as in ROCr.
      EXPECT_EQ(E->findSymbol(K.Code.Name, Agent.Handle), nullptr);
    }
    for (const codeobj::Function &F : CO.functions()) {
      SCOPED_TRACE(F.Sym.Name);
      bool Local = F.Sym.Binding == codeobj::SymbolBinding::Local;
      const Symbol *S = E->findSymbol(F.Sym.Name, Agent.Handle);
      ASSERT_NE(S, nullptr);
      EXPECT_EQ(S->Kind, SymbolKind::IndirectFunction);
      EXPECT_EQ(S->Address, Delta + F.Sym.Address);
      EXPECT_EQ(S->Size, F.Sym.Size);
      EXPECT_EQ(S->Linkage,
                Local ? SymbolLinkage::Module : SymbolLinkage::Program);
      EXPECT_EQ(S->ModuleName, Local ? L->name().str() : "");
    }
    for (const codeobj::Variable &V : CO.variables()) {
      SCOPED_TRACE(V.Sym.Name);
      const Symbol *S = E->findSymbol(V.Sym.Name, Agent.Handle);
      ASSERT_NE(S, nullptr);
      EXPECT_EQ(S->Kind, SymbolKind::Variable);
      EXPECT_EQ(S->Address, Delta + V.Sym.Address);
      EXPECT_EQ(S->Size, V.Sym.Size);
      EXPECT_EQ(S->Allocation, VariableAllocation::Agent);
      EXPECT_EQ(S->Segment, VariableSegment::Global);
      EXPECT_FALSE(S->HostDefined);
      ASSERT_GT(S->Alignment, 0u);
      EXPECT_EQ(S->Address % S->Alignment, 0u);
      EXPECT_EQ(S->IsConst, V.Sym.Section.rfind(".rodata", 0) == 0);
    }
  }
}

TEST_F(ExecutableTest, VariablesHoldTheirInitialValues) {
  auto E = Executable::create();
  ASSERT_TRUE(load(*E, "gfx90a_v5_kernels.elf"));
  // kernels.c: float gscale = 2.5f; const int lut[8] = {1, 2, 3, 5, ...};
  // long long counter = 7 (the only exported one).
  const Symbol *Scale = E->findSymbol("gscale", Agent.Handle);
  const Symbol *Lut = E->findSymbol("lut", Agent.Handle);
  const Symbol *Counter = E->findSymbol("counter", Agent.Handle);
  ASSERT_TRUE(Scale && Lut && Counter);
  EXPECT_EQ(*reinterpret_cast<const float *>(Scale->Address), 2.5f);
  const int *LutP = reinterpret_cast<const int *>(Lut->Address);
  int Fib[8] = {1, 2, 3, 5, 8, 13, 21, 34};
  for (int I = 0; I < 8; ++I)
    EXPECT_EQ(LutP[I], Fib[I]);
  EXPECT_TRUE(Lut->IsConst);
  EXPECT_EQ(Lut->Size, 32u);
  EXPECT_EQ(*reinterpret_cast<const long long *>(Counter->Address), 7);
  EXPECT_EQ(Counter->Linkage, SymbolLinkage::Program);
  EXPECT_EQ(Scale->Linkage, SymbolLinkage::Module);
}

TEST_F(ExecutableTest, FreezeNamesEveryMissingSymbol) {
  auto E = Executable::create();
  ASSERT_TRUE(load(*E, "xco_caller.elf"));
  std::string Msg;
  EXPECT_EQ(kindOf(E->validate(), &Msg), LoaderErrc::VariableUndefined);
  EXPECT_NE(Msg.find("xco_shared_add"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("xco_shared_value"), std::string::npos) << Msg;
  EXPECT_EQ(kindOf(E->freeze(), &Msg), LoaderErrc::VariableUndefined);
  EXPECT_NE(Msg.find("xco_shared_add"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("xco_shared_value"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("xco_caller.elf"), std::string::npos) << Msg;
  EXPECT_EQ(E->state(), ExecutableState::Unfrozen);

  // A host definition of the variable leaves only the function missing.
  int Value = 5;
  ASSERT_FALSE(bool(E->defineAgentVariable("xco_shared_value", Agent,
                                           VariableSegment::Global,
                                           uint64_t(&Value))));
  EXPECT_EQ(kindOf(E->freeze(), &Msg), LoaderErrc::VariableUndefined);
  EXPECT_NE(Msg.find("xco_shared_add"), std::string::npos) << Msg;
  EXPECT_EQ(Msg.find("xco_shared_value"), std::string::npos) << Msg;
}

class CrossCodeObjectTest : public LoaderFixture,
                            public ::testing::WithParamInterface<bool> {};

// The caller's call of a device function another code object defines runs
// after freeze, whichever is loaded first.
TEST_P(CrossCodeObjectTest, CallRunsAfterFreeze) {
  bool CalleeFirst = GetParam();
  auto E = Executable::create();
  if (CalleeFirst)
    ASSERT_TRUE(load(*E, "xco_callee.elf"));
  ASSERT_TRUE(load(*E, "xco_caller.elf"));
  if (!CalleeFirst)
    ASSERT_TRUE(load(*E, "xco_callee.elf"));
  ASSERT_FALSE(bool(E->validate()));
  llvm::Error F = E->freeze();
  ASSERT_FALSE(bool(F)) << llvm::toString(std::move(F));

  const Symbol *Add = E->findSymbol("xco_shared_add", Agent.Handle);
  ASSERT_NE(Add, nullptr);
  EXPECT_EQ(Add->Kind, SymbolKind::IndirectFunction);
  EXPECT_EQ(Add->Code->name(), "xco_callee.elf");
  const Symbol *Value = E->findSymbol("xco_shared_value", Agent.Handle);
  ASSERT_NE(Value, nullptr);
  int SharedValue = *reinterpret_cast<const int *>(Value->Address);
  EXPECT_EQ(SharedValue, 100);

  const Symbol *K = E->findSymbol("xco_caller.kd", Agent.Handle);
  ASSERT_NE(K, nullptr);
  emu::DeviceBuffer Out(*Dev, 64 * 4);
  int A = 17, B = -4;
  emu::DispatchResult R =
      run(*K, 64, {arg(Out.address()), arg(A), arg(B)}, {0, 8, 12});
  ASSERT_TRUE(R.ok()) << R.FirstFault.Message;
  for (int I = 0; I < 64; ++I)
    EXPECT_EQ(Out.data<int>()[I], (A + B * 2) + SharedValue) << I;

  // The caller sees the callee's variable itself, not a copy.
  *reinterpret_cast<int *>(Value->Address) = 1000;
  R = run(*K, 64, {arg(Out.address()), arg(A), arg(B)}, {0, 8, 12});
  ASSERT_TRUE(R.ok()) << R.FirstFault.Message;
  EXPECT_EQ(Out.data<int>()[0], (A + B * 2) + 1000);
}

INSTANTIATE_TEST_SUITE_P(Order, CrossCodeObjectTest, ::testing::Bool());

TEST_F(ExecutableTest, HostDefinedGlobalsAreUsedByKernels) {
  auto E = Executable::create();
  ASSERT_TRUE(load(*E, "loader_globals.elf"));
  std::string Msg;
  EXPECT_EQ(kindOf(E->freeze(), &Msg), LoaderErrc::VariableUndefined);
  EXPECT_NE(Msg.find("host_scale"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("host_table"), std::string::npos) << Msg;

  emu::DeviceBuffer Scale(*Dev, 4), Table(*Dev, 16);
  *Scale.data<int>() = 3;
  int Tab[4] = {10, 20, 30, 40};
  std::memcpy(Table.data<int>(), Tab, 16);
  ASSERT_FALSE(bool(E->defineAgentVariable("host_scale", Agent,
                                           VariableSegment::Global,
                                           Scale.address())));
  ASSERT_FALSE(bool(E->defineAgentVariable("host_table", Agent,
                                           VariableSegment::Readonly,
                                           Table.address())));
  // A second definition of one name is refused.
  EXPECT_EQ(kindOf(E->defineAgentVariable("host_scale", Agent,
                                          VariableSegment::Global,
                                          Scale.address())),
            LoaderErrc::VariableAlreadyDefined);
  EXPECT_EQ(kindOf(E->defineAgentVariable("globals_mix", Agent,
                                          VariableSegment::Global,
                                          Scale.address())),
            LoaderErrc::VariableAlreadyDefined);
  llvm::Error F = E->freeze();
  ASSERT_FALSE(bool(F)) << llvm::toString(std::move(F));

  const Symbol *HostTable = E->findSymbol("host_table", Agent.Handle);
  ASSERT_NE(HostTable, nullptr);
  EXPECT_TRUE(HostTable->HostDefined);
  EXPECT_EQ(HostTable->Segment, VariableSegment::Readonly);
  EXPECT_TRUE(HostTable->IsConst);
  EXPECT_EQ(HostTable->Address, Table.address());
  EXPECT_EQ(HostTable->Code, nullptr);

  const Symbol *K = E->findSymbol("use_host_globals.kd", Agent.Handle);
  ASSERT_NE(K, nullptr);
  emu::DeviceBuffer Out(*Dev, 64 * 4);
  int A = 7;
  emu::DispatchResult R = run(*K, 64, {arg(Out.address()), arg(A)}, {0, 8});
  ASSERT_TRUE(R.ok()) << R.FirstFault.Message;
  for (int I = 0; I < 64; ++I)
    EXPECT_EQ(Out.data<int>()[I], (A + I) * 3 + Tab[I & 3]) << I;
}

TEST_F(ExecutableTest, ProgramVariablesResolveAgentCode) {
  auto E = Executable::create();
  ASSERT_TRUE(load(*E, "loader_globals.elf"));
  emu::DeviceBuffer Scale(*Dev, 4), Table(*Dev, 16);
  *Scale.data<int>() = -2;
  for (int I = 0; I < 4; ++I)
    Table.data<int>()[I] = I * I;
  ASSERT_FALSE(bool(E->defineProgramVariable("host_scale", Scale.address())));
  ASSERT_FALSE(bool(E->defineProgramVariable("host_table", Table.address())));
  EXPECT_EQ(kindOf(E->defineProgramVariable("host_table", Table.address())),
            LoaderErrc::VariableAlreadyDefined);
  EXPECT_EQ(kindOf(E->defineProgramVariable("", Table.address())),
            LoaderErrc::InvalidArgument);
  ASSERT_FALSE(bool(E->freeze()));
  const Symbol *P = E->findSymbol("host_scale", std::nullopt);
  ASSERT_NE(P, nullptr);
  EXPECT_EQ(P->Allocation, VariableAllocation::Program);
  EXPECT_FALSE(P->Agent);
  EXPECT_EQ(E->programSymbols().size(), 2u);

  const Symbol *K = E->findSymbol("use_host_globals.kd", Agent.Handle);
  emu::DeviceBuffer Out(*Dev, 64 * 4);
  emu::DispatchResult R = run(*K, 64, {arg(Out.address()), arg(1)}, {0, 8});
  ASSERT_TRUE(R.ok()) << R.FirstFault.Message;
  for (int I = 0; I < 64; ++I)
    EXPECT_EQ(Out.data<int>()[I], (1 + I) * -2 + (I & 3) * (I & 3)) << I;
}

// A host program finds a device function by name and passes its address
// to a kernel, which calls it.
TEST_F(ExecutableTest, DeviceFunctionAddressIsCallable) {
  auto E = Executable::create();
  ASSERT_TRUE(load(*E, "loader_globals.elf"));
  ASSERT_TRUE(load(*E, "xco_callee.elf"));
  emu::DeviceBuffer Scale(*Dev, 4), Table(*Dev, 16);
  *Scale.data<int>() = 5;
  ASSERT_FALSE(bool(E->defineProgramVariable("host_scale", Scale.address())));
  ASSERT_FALSE(bool(E->defineProgramVariable("host_table", Table.address())));
  ASSERT_FALSE(bool(E->freeze()));

  const Symbol *K = E->findSymbol("call_pointer.kd", Agent.Handle);
  ASSERT_NE(K, nullptr);
  struct Case {
    const char *Function;
    int (*Reference)(int, int);
  } Cases[] = {
      {"xco_shared_add", [](int A, int B) { return A + B * 2; }},
      {"globals_mix", [](int A, int B) { return A * 5 + B; }},
  };
  for (const Case &C : Cases) {
    SCOPED_TRACE(C.Function);
    const Symbol *F = E->findSymbol(C.Function, Agent.Handle);
    ASSERT_NE(F, nullptr);
    ASSERT_EQ(F->Kind, SymbolKind::IndirectFunction);
    emu::DeviceBuffer Out(*Dev, 64 * 4);
    int A = 3, B = 11;
    emu::DispatchResult R = run(
        *K, 64, {arg(Out.address()), arg(F->Address), arg(A), arg(B)},
        {0, 8, 16, 20});
    ASSERT_TRUE(R.ok()) << R.FirstFault.Message;
    for (int I = 0; I < 64; ++I)
      EXPECT_EQ(Out.data<int>()[I], C.Reference(A + I, B)) << I;
  }
}

TEST_F(ExecutableTest, SecondDefinitionForOneAgentIsRefused) {
  auto E = Executable::create();
  ASSERT_TRUE(load(*E, "gfx90a_v5_kernels.elf"));
  auto R = reader("gfx90a_v5_kernels.elf");
  std::string Msg;
  EXPECT_EQ(kindOf(E->loadAgentCodeObject(Agent, *R), &Msg),
            LoaderErrc::VariableAlreadyDefined);
  EXPECT_NE(Msg.find("scale_add.kd"), std::string::npos) << Msg;
  // The refused load left nothing behind.
  EXPECT_EQ(E->loadedCodeObjects().size(), 1u);
  EXPECT_FALSE(bool(E->freeze()));
}

TEST_F(ExecutableTest, OneCodeObjectForTwoAgents) {
  emu::DeviceOptions O;
  O.Threads = 1;
  auto Dev2 = emu::Device::create(O);
  ASSERT_TRUE(bool(Dev2));
  LoaderAgent Agent2 = LoaderAgent::forDevice(**Dev2, 0x2000);
  auto E = Executable::create();
  auto R = reader("xco_callee.elf");
  auto L1 = E->loadAgentCodeObject(Agent, *R);
  auto L2 = E->loadAgentCodeObject(Agent2, *R);
  ASSERT_TRUE(L1 && L2);
  ASSERT_FALSE(bool(E->freeze()));
  const Symbol *S1 = E->findSymbol("xco_callee_kernel.kd", Agent.Handle);
  const Symbol *S2 = E->findSymbol("xco_callee_kernel.kd", Agent2.Handle);
  ASSERT_TRUE(S1 && S2);
  EXPECT_NE(S1->Address, S2->Address);
  EXPECT_EQ(S2->Agent, Agent2.Handle);
  // Without an agent the name is ambiguous.
  EXPECT_EQ(E->findSymbol("xco_callee_kernel.kd", std::nullopt), nullptr);
  EXPECT_EQ(E->agentSymbols(Agent2.Handle).size(),
            E->agentSymbols(Agent.Handle).size());
  EXPECT_EQ(E->symbols().size(), 2 * E->agentSymbols(Agent.Handle).size());

  // Each runs on its own device: out[0] = xco_shared_add(out[1], out[2]).
  emu::DeviceBuffer Out(**Dev2, 16);
  Out.data<int>()[1] = 6;
  Out.data<int>()[2] = 8;
  emu::DeviceBuffer Kernarg(**Dev2, S2->KernargSegmentSize);
  uint64_t OutAddr = Out.address();
  std::memcpy(Kernarg.data(), &OutAddr, 8);
  emu::DispatchParams P;
  P.KernelObject = S2->Address;
  P.Kernarg = Kernarg.address();
  P.PrivateSegmentSize = S2->PrivateSegmentSize + 1024;
  emu::DispatchResult Res = (*Dev2)->dispatch(P);
  ASSERT_TRUE(Res.ok()) << Res.FirstFault.Message;
  EXPECT_EQ(Out.data<int>()[0], 6 + 8 * 2);
}

TEST_F(ExecutableTest, ProgramCodeObjectHasProgramSymbols) {
  auto E = Executable::create();
  auto R = reader("xco_callee.elf");
  auto L = E->loadProgramCodeObject(Agent, *R);
  ASSERT_TRUE(bool(L)) << llvm::toString(L.takeError());
  EXPECT_EQ(L->kind(), LoadedCodeObjectKind::Program);
  EXPECT_FALSE(L->agent());
  ASSERT_TRUE(load(*E, "xco_caller.elf"));
  ASSERT_FALSE(bool(E->freeze()));
  const Symbol *Add = E->findSymbol("xco_shared_add", std::nullopt);
  ASSERT_NE(Add, nullptr);
  EXPECT_FALSE(Add->Agent);
  EXPECT_EQ(Add->Allocation, VariableAllocation::Program);
  // With an agent, program symbols are still found.
  EXPECT_EQ(E->findSymbol("xco_shared_add", Agent.Handle), Add);
  EXPECT_TRUE(E->agentSymbols(Agent.Handle).size() > 0);

  // The agent code object calls into the program one.
  const Symbol *K = E->findSymbol("xco_caller.kd", Agent.Handle);
  emu::DeviceBuffer Out(*Dev, 64 * 4);
  emu::DispatchResult Res =
      run(*K, 64, {arg(Out.address()), arg(2), arg(3)}, {0, 8, 12});
  ASSERT_TRUE(Res.ok()) << Res.FirstFault.Message;
  EXPECT_EQ(Out.data<int>()[5], 2 + 3 * 2 + 100);
}

TEST_F(ExecutableTest, DestroyUnloadsEverything) {
  auto E = Executable::create();
  const LoadedCodeObject *L = load(*E, "xco_callee.elf");
  ASSERT_TRUE(L);
  ASSERT_FALSE(bool(E->freeze()));
  const Symbol *K = E->findSymbol("xco_callee_kernel.kd", Agent.Handle);
  ASSERT_NE(K, nullptr);
  Symbol Copy = *K;
  uint64_t Base = L->loadBase();

  emu::DeviceBuffer Out(*Dev, 16);
  Out.data<int>()[1] = 1;
  Out.data<int>()[2] = 2;
  ASSERT_TRUE(run(Copy, 1, {arg(Out.address())}, {0}).ok());
  EXPECT_EQ(Out.data<int>()[0], 5);

  Executable *Raw = E.get();
  EXPECT_TRUE(Registry::instance().isExecutable(Raw));
  EXPECT_TRUE(Registry::instance().isSymbol(K));
  E.reset();
  EXPECT_FALSE(Registry::instance().isExecutable(Raw));
  EXPECT_FALSE(Registry::instance().isSymbol(K));
  EXPECT_FALSE(Registry::instance().isLoadedCodeObject(L));
  EXPECT_EQ(Registry::instance().executableAt(Base), nullptr);
  emu::MemoryRange Range;
  EXPECT_FALSE(Dev->memory().find(Base, Range));

  // The destroyed kernel object is a failed dispatch, not a crash.
  emu::DispatchResult R = run(Copy, 1, {arg(Out.address())}, {0});
  EXPECT_FALSE(R.ok());
  EXPECT_NE(R.Status, emu::DispatchStatus::Completed);
}

} // namespace

namespace {

// Several threads load, look up, run and destroy executables at once; the
// registry's answers stay right for each.
TEST_F(ExecutableTest, ConcurrentExecutables) {
  std::vector<uint8_t> Callee = fileBytes(fixture("xco_callee.elf"));
  std::vector<uint8_t> Caller = fileBytes(fixture("xco_caller.elf"));
  std::atomic<int> Failures{0};
  auto Work = [&](int Seed) {
    for (int Round = 0; Round < 8; ++Round) {
      auto E = Executable::create();
      auto R1 = CodeObjectReader::fromMemory(Callee.data(), Callee.size());
      auto R2 = CodeObjectReader::fromMemory(Caller.data(), Caller.size());
      if (!R1 || !R2 || !E->loadAgentCodeObject(Agent, **R2) ||
          !E->loadAgentCodeObject(Agent, **R1) || E->freeze()) {
        if (!R1)
          llvm::consumeError(R1.takeError());
        if (!R2)
          llvm::consumeError(R2.takeError());
        ++Failures;
        continue;
      }
      const Symbol *K = E->findSymbol("xco_caller.kd", Agent.Handle);
      if (!K || Registry::instance().executableAt(K->Address) != E.get()) {
        ++Failures;
        continue;
      }
      emu::DeviceBuffer Out(*Dev, 64 * 4);
      emu::DispatchResult Res =
          run(*K, 64, {arg(Out.address()), arg(Seed), arg(Round)}, {0, 8, 12});
      if (!Res.ok() || Out.data<int>()[63] != Seed + Round * 2 + 100)
        ++Failures;
    }
  };
  std::vector<std::thread> Threads;
  for (int T = 0; T < 4; ++T)
    Threads.emplace_back(Work, T * 1000);
  for (std::thread &T : Threads)
    T.join();
  EXPECT_EQ(Failures.load(), 0);
}

} // namespace
