//===- InstrumenterTest.cpp - Instrumented kernels on the virtual GPU -----===//
//
// Kernels of the clang-built fixtures are instrumented with the hooks of
// test_hooks.hip and run on the emulator next to the original: results must
// be identical, and what the hooks count must equal what the emulator
// counted running the original.
//
//===----------------------------------------------------------------------===//
#include "HookTestUtil.h"

#include "loom/codeobj/CodeObject.h"
#include "loom/emu/Device.h"
#include "loom/emu/Module.h"
#include "loom/instrument/BinaryContext.h"
#include "loom/instrument/ControlEquivalence.h"
#include "loom/instrument/Instrumenter.h"
#include "loom/instrument/LaunchHeader.h"
#include "loom/instrument/WaitStates.h"
#include "loom/jit/Pipeline.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>

using namespace loom;
using namespace loom::instrument;
using llvm::Error;

namespace {

#define ASSERT_OK(E)                                                           \
  do {                                                                         \
    if (Error Err = (E))                                                       \
      FAIL() << llvm::toString(std::move(Err));                                \
  } while (0)

template <typename T> T check(llvm::Expected<T> V) {
  if (!V) {
    ADD_FAILURE() << llvm::toString(V.takeError());
    return T();
  }
  return std::move(*V);
}

class InstrumenterTest : public ::testing::Test {
protected:
  /// The virtual GPU's processor, and the fixtures' (gfx90a_v5_kernels.elf
  /// is the first on gfx90a; files of other targets are named after them).
  virtual llvm::StringRef target() const { return "gfx90a"; }
  std::string fixtureFor(llvm::StringRef Gfx90aName) const {
    if (target() == "gfx90a")
      return Gfx90aName.str();
    if (Gfx90aName == "gfx90a_v5_kernels.elf")
      return (target() + "_v5_kernels.elf").str();
    return (Gfx90aName.drop_back(4) + "." + target() + ".elf").str();
  }

  void SetUp() override {
    emu::DeviceOptions O;
    O.Target = target().str();
    auto D = emu::Device::create(O);
    ASSERT_TRUE(bool(D)) << llvm::toString(D.takeError());
    Dev = std::move(*D);
    auto H = testutil::loadHooks(*Dev, LOOM_TEST_HOOKS_BC, target());
    ASSERT_TRUE(bool(H)) << llvm::toString(H.takeError());
    Hooks = std::move(*H);
    ASSERT_NO_FATAL_FAILURE(useFixture("gfx90a_v5_kernels.elf"));
  }

  /// Loads fixture \p File as the original code (Orig) and lifts it
  /// (Lifted).
  void useFixture(llvm::StringRef File) {
    auto M = emu::Module::loadFile(
        *Dev, LOOM_FIXTURE_DIR "/" + fixtureFor(File));
    ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
    Orig = std::move(*M);
    ASSERT_OK(Orig->resolve([](llvm::StringRef) { return std::nullopt; }));
    auto BC = BinaryContext::create(Orig->codeObject());
    ASSERT_TRUE(bool(BC)) << llvm::toString(BC.takeError());
    Lifted = std::move(*BC);
    ASSERT_OK(Lifted->buildCFGs());
  }

  /// \p Plan's code object, with no warning; its assembly on stderr with
  /// LOOM_TEST_DUMP set.
  llvm::Expected<InstrumentedCodeObject>
  instrument(const InstrumentationPlan &Plan) {
    InstrumentOptions O;
    O.LoadDelta = Orig->base();
    auto R = instrumentCodeObject(Plan, {Hooks->Library}, O);
    if (!R)
      return R.takeError();
    for (const std::string &W : R->Warnings)
      ADD_FAILURE() << "warning: " << W;
    if (getenv("LOOM_TEST_DUMP"))
      fprintf(stderr, "%s", R->Assembly.c_str());
    return R;
  }

  /// wave_info at \p K's entry: each wave's launch state, through
  /// HookArgs and Hooks.h alike.
  /// The launch of the launch-state tests: a 3-D grid of scale_add, 200 x
  /// 5 x 2 work-items in groups of 48 x 2 x 1 (partial groups at x's edge).
  static constexpr uint32_t Grid3D[3] = {200, 5, 2};
  static constexpr uint16_t Group3D[3] = {48, 2, 1};
  static emu::LaunchConfig launch3D() {
    emu::LaunchConfig C;
    C.Dimensions = 3;
    std::copy(Grid3D, Grid3D + 3, C.Grid);
    std::copy(Group3D, Group3D + 3, C.Workgroup);
    return C;
  }
  /// scale_add (\p Kernel of \p Mod) on that grid over Grid3D[0] floats
  /// (In refilled, Out reset first), with \p Header at \p HeaderOffset of
  /// the kernarg segment if given: Out afterwards.
  std::vector<float> runScaleAdd3D(emu::Module &Mod, llvm::StringRef Kernel,
                                   emu::DeviceBuffer &In, emu::DeviceBuffer &Out,
                                   const LoomLaunchHeader *Header = nullptr,
                                   uint32_t HeaderOffset = 0) {
    constexpr int N = Grid3D[0];
    for (int I = 0; I < N; ++I) {
      In.data<float>()[I] = float(I) * 0.25f - 3;
      Out.data<float>()[I] = -1;
    }
    emu::KernelArgs Args;
    Args.add(Out.data()).add(In.data()).add(int32_t(N));
    if (Header)
      Args.addRaw(HeaderOffset,
                  llvm::ArrayRef(reinterpret_cast<const uint8_t *>(Header),
                                 sizeof(*Header)));
    auto Res = Mod.launch(Kernel, launch3D(), Args);
    EXPECT_TRUE(Res && Res->ok());
    if (!Res)
      ADD_FAILURE() << llvm::toString(Res.takeError());
    return std::vector<float>(Out.data<float>(), Out.data<float>() + N);
  }

  static Error askWaveInfo(InstrumentationPlan &Plan, const BinaryFunction &K) {
    return Plan.atKernelEntry(
        K, "wave_info",
        {HookArg::exec(), HookArg::laneId(), HookArg::waveId(),
         HookArg::workgroupId(0), HookArg::dispatchId()});
  }

  /// \p Plan's code object, with no warning, loaded (null on a failure);
  /// its assembly on stderr with LOOM_TEST_DUMP set, and in \p Assembly.
  std::unique_ptr<emu::Module>
  instrumentAndLoad(const InstrumentationPlan &Plan,
                    std::string *Assembly = nullptr) {
    auto R = instrument(Plan);
    if (!R) {
      ADD_FAILURE() << llvm::toString(R.takeError());
      return nullptr;
    }
    if (Assembly)
      *Assembly = R->Assembly;
    auto M = loadElf(R->Elf, "instrumented");
    if (!M)
      ADD_FAILURE() << R->Assembly;
    return M;
  }

  std::unique_ptr<emu::Module> loadElf(llvm::ArrayRef<char> Elf,
                                       llvm::StringRef Name) {
    auto M = testutil::loadElf(*Dev, Elf, Name);
    if (!M) {
      ADD_FAILURE() << llvm::toString(M.takeError());
      return nullptr;
    }
    return std::move(*M);
  }

  uint64_t *global(llvm::StringRef Name) { return Hooks->global(Name); }

  void resetCounts() {
    std::memset(global("loom_test_waves"), 0, 65536 * 8);
    std::memset(global("loom_test_lanes"), 0, 65536 * 8);
    std::memset(global("loom_test_events"), 0, 4 * 8);
  }

  /// call_chain(Out, \p A, \p B) on \p N work-items, run by the original
  /// and then, the hooks' counts reset, by \p Copy: their outputs must be
  /// equal. What the virtual GPU counted of the original.
  emu::DispatchCounters callChainBothWays(emu::Module &Copy, unsigned N,
                                          int32_t A = 13, int32_t B = 6);

  /// Instruments \p Kernel (and the kernels \p More) with \p Hook(index,
  /// exec) before every instruction of every function.
  std::unique_ptr<emu::Module>
  instrumentAll(llvm::StringRef Kernel, llvm::StringRef Hook,
                InstrumentedCodeObject *Out,
                llvm::ArrayRef<llvm::StringRef> More = {}) {
    InstrumentationPlan Plan(*Lifted);
    Plan.addKernel(Kernel);
    for (llvm::StringRef K : More)
      Plan.addKernel(K);
    for (const BinaryFunction &F : Lifted->functions()) {
      Index[F.name().str()] = NextIndex;
      for (const BinaryBasicBlock &B : F.blocks())
        for (const BinaryInstruction &I : B.Instructions) {
          Where[NextIndex] = {F.name().str(), I.address() - F.address()};
          if (Error E = Plan.before(F, I, Hook,
                                    {HookArg::constant(NextIndex++),
                                     HookArg::exec()})) {
            ADD_FAILURE() << llvm::toString(std::move(E));
            return nullptr;
          }
        }
    }
    auto R = instrument(Plan);
    if (!R) {
      ADD_FAILURE() << llvm::toString(R.takeError());
      return nullptr;
    }
    auto M = loadElf(R->Elf, "instrumented");
    if (!M)
      ADD_FAILURE() << R->Assembly;
    *Out = std::move(*R);
    return M;
  }

  /// scale_add instrumented (\p M: a counting hook before every
  /// instruction) gives the original's results and counts what it ran.
  void expectScaleAddCounted(emu::Module &M);

  // Tests run on gfx90a and gfx942 (InstrumenterGfx942Test).
  void checkStackHook();
  void checkStackHookOverDynamicStack();
  void checkSavesWithNoFreeRegister();
  void checkLaneWord();

  /// Hook counts against the emulator's counters of the original run.
  void expectCountsEqual(const emu::DispatchCounters &Truth) {
    std::map<std::pair<std::string, uint64_t>, const emu::InstructionCount *>
        ByPlace;
    for (const emu::InstructionCount &C : Truth.Instructions)
      ByPlace[{C.Function, C.Offset}] = &C;
    unsigned Checked = 0;
    for (auto &[I, Place] : Where) {
      auto It = ByPlace.find(Place);
      uint64_t Waves = It == ByPlace.end() ? 0 : It->second->WaveExecutions;
      uint64_t Lanes = global("loom_test_lanes")[I];
      // The hook runs in active lanes only: executions with EXEC empty
      // are not seen by it.
      EXPECT_LE(global("loom_test_waves")[I], Waves)
          << Place.first << "+0x" << std::hex << Place.second;
      if (It != ByPlace.end() && It->second->ActiveLanes) {
        EXPECT_EQ(Lanes, It->second->ActiveLanes)
            << Place.first << "+0x" << std::hex << Place.second;
      }
      if (Waves)
        ++Checked;
    }
    EXPECT_GT(Checked, 5u);
    // Every execution with lanes active is counted.
    uint64_t HookWaves = 0;
    for (auto &[I, Place] : Where)
      HookWaves += global("loom_test_waves")[I];
    EXPECT_LE(HookWaves, Truth.WaveInstructions);
    EXPECT_GT(HookWaves, 0u);
  }

  std::unique_ptr<emu::Device> Dev;
  std::unique_ptr<emu::Module> Orig;
  std::unique_ptr<testutil::LoadedHooks> Hooks;
  std::unique_ptr<BinaryContext> Lifted;
  std::map<std::string, unsigned> Index;
  std::map<unsigned, std::pair<std::string, uint64_t>> Where;
  unsigned NextIndex = 0;
};

struct ScaleAddRun {
  std::vector<float> Out;
  emu::DispatchCounters Counters;
};

ScaleAddRun runScaleAdd(emu::Device &Dev, emu::Module &M,
                        llvm::StringRef Kernel) {
  constexpr int N = 200;
  emu::DeviceBuffer In(Dev, N * 4), Out(Dev, N * 4);
  for (int I = 0; I < N; ++I) {
    static_cast<float *>(In.data())[I] = float(I) * 0.5f - 7;
    static_cast<float *>(Out.data())[I] = -1;
  }
  emu::KernelArgs Args;
  Args.add(Out.data()).add(In.data()).add(int32_t(N));
  auto R = M.launch(Kernel, emu::LaunchConfig::linear(256, 64), Args);
  ScaleAddRun Run;
  if (!R) {
    ADD_FAILURE() << llvm::toString(R.takeError());
    return Run;
  }
  EXPECT_TRUE(R->ok()) << R->FirstFault.Message << " at " << R->FirstFault.Function
                       << "+0x" << std::hex << R->FirstFault.Offset << " "
                       << R->FirstFault.Instruction;
  Run.Out.assign(static_cast<float *>(Out.data()),
                 static_cast<float *>(Out.data()) + N);
  Run.Counters = std::move(R->Counters);
  return Run;
}

void InstrumenterTest::expectScaleAddCounted(emu::Module &M) {
  ScaleAddRun Truth = runScaleAdd(*Dev, *Orig, "scale_add");
  resetCounts();
  ScaleAddRun Got = runScaleAdd(*Dev, M, "scale_add.loom");
  EXPECT_EQ(Got.Out, Truth.Out);
  expectCountsEqual(Truth.Counters);
}

/// \p Kernel with \p Args on a grid of \p N work-items in groups of 64:
/// the first N ints of \p Out, and what the virtual GPU counted into
/// \p Counters if given.
std::vector<int> launchForInts(emu::Module &M, llvm::StringRef Kernel,
                               unsigned N, const emu::KernelArgs &Args,
                               emu::DeviceBuffer &Out,
                               emu::DispatchCounters *Counters) {
  auto Res = M.launch(Kernel, emu::LaunchConfig::linear(N, 64), Args);
  if (!Res) {
    ADD_FAILURE() << llvm::toString(Res.takeError());
    return {};
  }
  EXPECT_TRUE(Res->ok()) << Res->FirstFault.Message;
  if (Counters)
    *Counters = Res->Counters;
  return std::vector<int>(Out.data<int>(), Out.data<int>() + N);
}

/// call_chain(Out, A, B) on a grid of \p N work-items in groups of 64: its
/// output, and what the virtual GPU counted into \p Counters if given.
std::vector<int> runCallChain(emu::Device &Dev, emu::Module &M,
                              llvm::StringRef Kernel, unsigned N, int32_t A,
                              int32_t B,
                              emu::DispatchCounters *Counters = nullptr) {
  emu::DeviceBuffer Out(Dev, 256 * 4);
  emu::KernelArgs Args;
  Args.add(Out.data()).add(A).add(B);
  return launchForInts(M, Kernel, N, Args, Out, Counters);
}

emu::DispatchCounters InstrumenterTest::callChainBothWays(emu::Module &Copy,
                                                          unsigned N,
                                                          int32_t A,
                                                          int32_t B) {
  emu::DispatchCounters Truth;
  std::vector<int> Want =
      runCallChain(*Dev, *Orig, "call_chain", N, A, B, &Truth);
  resetCounts();
  EXPECT_EQ(runCallChain(*Dev, Copy, "call_chain.loom", N, A, B), Want);
  return Truth;
}

TEST_F(InstrumenterTest, CountsEveryInstructionOfScaleAdd) {
  InstrumentedCodeObject ICO;
  auto M = instrumentAll("scale_add", "count", &ICO);
  ASSERT_TRUE(M);
  ASSERT_NE(ICO.kernel("scale_add"), nullptr);
  EXPECT_EQ(ICO.kernel("scale_add")->Symbol, "scale_add.loom");
  EXPECT_FALSE(ICO.AddressMap.empty());

  ScaleAddRun Truth = runScaleAdd(*Dev, *Orig, "scale_add");
  resetCounts();
  ScaleAddRun Got = runScaleAdd(*Dev, *M, "scale_add.loom");
  EXPECT_EQ(Got.Out, Truth.Out);
  expectCountsEqual(Truth.Counters);
}

TEST_F(InstrumenterTest, ClobberingHooksChangeNothing) {
  InstrumentedCodeObject ICO;
  auto M = instrumentAll("scale_add", "clobber", &ICO);
  ASSERT_TRUE(M);
  expectScaleAddCounted(*M);
}

// A hook that needs a stack (a local array indexed by lane) before every
// instruction of scale_add: its frame is in a slot of each lane's private
// segment above the kernel's own, reached through the stack pointer and
// V# the glue sets; the counts are exact and the results unchanged.
void InstrumenterTest::checkStackHook() {
  InstrumentedCodeObject ICO;
  auto M = instrumentAll("scale_add", "count_via_stack", &ICO);
  ASSERT_TRUE(M);
  const InstrumentedKernel *IK = ICO.kernel("scale_add");
  ASSERT_NE(IK, nullptr);
  const codeobj::Kernel *K = Orig->codeObject().findKernel("scale_add");
  EXPECT_GE(IK->PrivateSegmentSize, K->KD.PrivateSegmentFixedSize + 256)
      << "the slot holds the hook's array";
  expectScaleAddCounted(*M);
}

// The same hook in call_chain, whose stack is dynamic (helper_fib
// recurses): the slot is at the top of a private segment grown by it, found
// from the segment's size, clear of the recursion's frames.
void InstrumenterTest::checkStackHookOverDynamicStack() {
  const codeobj::Kernel *K = Orig->codeObject().findKernel("call_chain");
  ASSERT_NE(K, nullptr);
  ASSERT_TRUE(K->KD.Properties.UsesDynamicStack);
  InstrumentedCodeObject ICO;
  auto M = instrumentAll("call_chain", "count_via_stack", &ICO);
  ASSERT_TRUE(M);
  const InstrumentedKernel *IK = ICO.kernel("call_chain");
  ASSERT_NE(IK, nullptr);
  EXPECT_GE(IK->StackSlotSize, 256u);
  constexpr unsigned N = 150;
  emu::DispatchCounters Truth = callChainBothWays(*M, N);
  expectCountsEqual(Truth);
}

struct PointerRun {
  std::vector<int> Out;
  emu::DispatchCounters Counters;
};

/// fnptr_kernels.c's \p Kernel over a wave; \p Fn: fnptr_arg's pointer.
PointerRun runPointers(emu::Device &Dev, emu::Module &M, llvm::StringRef Kernel,
                       std::optional<uint64_t> Fn, int A) {
  constexpr int N = 64;
  emu::DeviceBuffer Out(Dev, N * 4);
  std::memset(Out.data(), 0xcc, N * 4);
  emu::KernelArgs Args;
  Args.add(Out.data());
  if (Fn)
    Args.add(*Fn);
  Args.add(int32_t(A));
  PointerRun Run;
  auto R = M.launch(Kernel, emu::LaunchConfig::linear(N, N), Args);
  if (!R) {
    ADD_FAILURE() << llvm::toString(R.takeError());
    return Run;
  }
  EXPECT_TRUE(R->ok()) << Kernel.str() << ": " << R->FirstFault.Message;
  Run.Out.assign(static_cast<int *>(Out.data()),
                 static_cast<int *>(Out.data()) + N);
  Run.Counters = std::move(R->Counters);
  return Run;
}

// Calls through function pointers (fnptr_kernels.c): a per-lane pointer
// from a table the loader filled with the original functions' addresses
// (a waterfall loop), and one passed as an argument. The instrumented
// kernels reach the instrumented copies of the code object's functions,
// whose every instruction the hooks count as the emulator counted the
// original run; a pointer into another code object (xco_callee.c) still
// runs its original code. A tail call through a pointer (fnptr_tail) reaches
// the copy too.
TEST_F(InstrumenterTest, CallsThroughPointersReachTheCopies) {
  auto Other = emu::Module::loadFile(*Dev, LOOM_FIXTURE_DIR "/xco_callee.elf");
  ASSERT_TRUE(bool(Other)) << llvm::toString(Other.takeError());
  ASSERT_OK((*Other)->resolve([](llvm::StringRef) { return std::nullopt; }));
  std::optional<uint64_t> Foreign = (*Other)->symbolAddress("xco_shared_add");
  ASSERT_TRUE(Foreign);
  ASSERT_NO_FATAL_FAILURE(useFixture("fnptr_kernels.elf"));
  // Nothing calls fp_loop directly: it is an indirect target.
  const BinaryFunction *Kernel = Lifted->function("fnptr_table");
  ASSERT_NE(Kernel, nullptr);
  EXPECT_TRUE(llvm::is_contained(Lifted->callGraph().reachableFrom(*Kernel),
                           Lifted->function("fp_loop")));

  InstrumentedCodeObject ICO;
  // fp_through's jump through fp_chosen is a tail call to an unknown
  // callee, which leaves it instrumentable.
  const BinaryFunction *Through = Lifted->function("fp_through");
  ASSERT_NE(Through, nullptr);
  EXPECT_TRUE(Through->isInstrumentable())
      << Through->notInstrumentableReason().str();
  auto Copy = instrumentAll("fnptr_table", "count", &ICO,
                            {"fnptr_arg", "fnptr_tail"});
  ASSERT_TRUE(Copy);
  EXPECT_NE(ICO.Assembly.find("to the instrumented copy of its callee"),
            std::string::npos);
  std::optional<uint64_t> Loop = Orig->symbolAddress("fp_loop");
  ASSERT_TRUE(Loop);
  struct Case {
    const char *Kernel;
    std::optional<uint64_t> Fn;
  } Cases[] = {{"fnptr_table", std::nullopt},
               {"fnptr_arg", Loop},
               {"fnptr_arg", Foreign},
               {"fnptr_tail", std::nullopt}};
  for (const Case &C : Cases) {
    SCOPED_TRACE(C.Kernel);
    PointerRun Truth = runPointers(*Dev, *Orig, C.Kernel, C.Fn, 1000);
    resetCounts();
    PointerRun Got = runPointers(*Dev, *Copy, std::string(C.Kernel) + ".loom",
                                 C.Fn, 1000);
    EXPECT_EQ(Got.Out, Truth.Out);
    expectCountsEqual(Truth.Counters);
    // The callee ran instrumented: its hooks counted it.
    llvm::StringRef Callee = C.Fn == Foreign ? "" : "fp_loop";
    if (!Callee.empty()) {
      unsigned First = Index[Callee.str()];
      EXPECT_GT(global("loom_test_waves")[First], 0u);
    }
  }
  EXPECT_EQ(runPointers(*Dev, *Orig, "fnptr_arg", Foreign, 7).Out[5], 7 + 10);
}

// A hook reading an MFMA's result right after it (mfma_kernel.c): the
// inserted code waits out the MFMA (WaitStates.h) before its v_mov reads
// the result (19 wait states, the most any MFMA needs), and the hook sees
// what the MFMA computed (1.5 * 2).
TEST_F(InstrumenterTest, AHookAfterAnMfmaWaitsForItsResult) {
  ASSERT_NO_FATAL_FAILURE(useFixture("mfma_kernel.elf"));
  const BinaryFunction *K = Lifted->function("mfma_kernel");
  ASSERT_NE(K, nullptr);
  const BinaryInstruction *Mfma = nullptr;
  for (const BinaryBasicBlock &B : K->blocks())
    for (const BinaryInstruction &I : B.Instructions)
      if (llvm::StringRef(I.Info.Text).starts_with("v_mfma"))
        Mfma = &I;
  ASSERT_NE(Mfma, nullptr);
  ASSERT_TRUE(Mfma->Props.Writes.hasVgpr(2)) << Mfma->Info.Text;

  InstrumentationPlan Plan(*Lifted);
  ASSERT_OK(Plan.after(*K, *Mfma, "record",
                       {HookArg::constant(7), HookArg::exec(),
                        HookArg::vgpr(2), HookArg::constant64(0)}));
  InstrumentOptions O;
  O.LoadDelta = Orig->base();
  auto R = instrumentCodeObject(Plan, {Hooks->Library}, O);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->HazardWaitStates, MaxHazardWaitStates) << R->Assembly;
  EXPECT_NE(R->Assembly.find("\ts_nop 15\n\ts_nop 2\n"), std::string::npos)
      << R->Assembly;
  auto Copy = loadElf(R->Elf, "instrumented");
  ASSERT_TRUE(Copy);

  auto Run = [&](emu::Module &Mod, llvm::StringRef Name) {
    emu::DeviceBuffer Out(*Dev, 64 * 4);
    emu::KernelArgs Args;
    Args.add(Out.data()).add(1.5f).add(2.0f);
    auto D = Mod.launch(Name, emu::LaunchConfig::linear(64, 64), Args);
    EXPECT_TRUE(D && D->ok());
    if (!D)
      llvm::consumeError(D.takeError());
    return std::vector<float>(static_cast<float *>(Out.data()),
                              static_cast<float *>(Out.data()) + 64);
  };
  std::memset(global("loom_test_args"), 0, 6 * 8);
  EXPECT_EQ(Run(*Copy, "mfma_kernel.loom"), Run(*Orig, "mfma_kernel"));
  float Got;
  uint32_t Bits = uint32_t(global("loom_test_args")[2]);
  std::memcpy(&Got, &Bits, 4);
  EXPECT_EQ(Got, 3.0f);
}

// The launch state at kernel entry: work-group ids, wave ids (partial
// work-groups at the grid's edge included), lane ids, the dispatch id and
// the tool's launch data, on a 3-D grid of a kernel whose descriptor
// enables none of Y, Z or the work-item ids beyond X (the preamble enables
// them and moves the original inputs back).
TEST_F(InstrumenterTest, HooksSeeTheLaunchState) {
  InstrumentationPlan Plan(*Lifted);
  const BinaryFunction *K = Lifted->function("scale_add");
  ASSERT_NE(K, nullptr);
  ASSERT_OK(askWaveInfo(Plan, *K));
  auto R = instrument(Plan);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  const InstrumentedKernel *IK = R->kernel("scale_add");
  ASSERT_NE(IK, nullptr);
  ASSERT_TRUE(IK->UsesLaunchHeader);
  EXPECT_EQ(IK->LaunchHeaderOffset % 16, 0u);
  EXPECT_EQ(IK->KernargSize, IK->LaunchHeaderOffset + sizeof(LoomLaunchHeader));
  auto M = loadElf(R->Elf, "instrumented");
  ASSERT_TRUE(M) << R->Assembly;

  constexpr int N = Grid3D[0];
  emu::DeviceBuffer In(*Dev, N * 4), Out(*Dev, N * 4), Data(*Dev, 8);
  *Data.data<uint64_t>() = 0x1234567890abcdefull;
  LoomLaunchHeader H{};
  H.DispatchId = 77;
  std::copy(Grid3D, Grid3D + 3, H.GridSize);
  std::copy(Group3D, Group3D + 3, H.WorkgroupSize);
  H.ToolCount = 1;
  H.Tools[0].Data = reinterpret_cast<uint64_t>(Data.data());
  std::vector<float> Truth = runScaleAdd3D(*Orig, "scale_add", In, Out);
  testutil::resetWaves(*Hooks);
  EXPECT_EQ(runScaleAdd3D(*M, "scale_add.loom", In, Out, &H,
                          IK->LaunchHeaderOffset),
            Truth);
  unsigned Bad = 0;
  auto Seen = testutil::recordedWaves(*Hooks, 77, 0x1234567890abcdefull, Bad);
  EXPECT_EQ(Seen, testutil::expectedWaves(Grid3D, Group3D));
  EXPECT_EQ(Seen.size(), 46u); // 5 x 3 x 2 work-groups, 16 of two waves
  EXPECT_EQ(Bad, 0u);
}

// A hook reads the kernel's dispatch packet and kernarg segment
// (loom::dispatchPacket, kernargSegment) where scale_add's descriptor
// enables no dispatch pointer: the copy enables it, the hook sees the
// packet of the launch and the kernel's arguments, and the original code
// finds its inputs where it expects them (results unchanged).
TEST_F(InstrumenterTest, HooksSeeTheDispatchPacketAndKernargs) {
  const codeobj::Kernel *CK = Lifted->codeObject().findKernel("scale_add");
  ASSERT_NE(CK, nullptr);
  ASSERT_FALSE(CK->KD.Properties.EnableSgprDispatchPtr);
  InstrumentationPlan Plan(*Lifted);
  const BinaryFunction *K = Lifted->function("scale_add");
  ASSERT_NE(K, nullptr);
  ASSERT_OK(Plan.atKernelEntry(*K, "kernel_inputs", {}));
  auto R = instrument(Plan);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  const InstrumentedKernel *IK = R->kernel("scale_add");
  ASSERT_NE(IK, nullptr);
  EXPECT_FALSE(IK->UsesLaunchHeader); // the kernel's pointers, no header
  auto M = loadElf(R->Elf, "instrumented");
  ASSERT_TRUE(M) << R->Assembly;

  constexpr int N = Grid3D[0];
  const uint32_t *Grid = Grid3D;
  const uint16_t *Group = Group3D;
  emu::DeviceBuffer In(*Dev, N * 4), Out(*Dev, N * 4);
  std::vector<float> Truth = runScaleAdd3D(*Orig, "scale_add", In, Out);
  uint64_t *Inputs = global("loom_test_inputs");
  std::memset(Inputs, 0, 12 * 8);
  *global("loom_test_mismatch") = 0;
  EXPECT_EQ(runScaleAdd3D(*M, "scale_add.loom", In, Out), Truth);
  EXPECT_NE(Inputs[0], 0u) << "the hook did not run";
  EXPECT_EQ(*global("loom_test_mismatch"), 0u);
  EXPECT_EQ(Inputs[2], 3u); // dimensions
  EXPECT_EQ(Inputs[3], uint64_t(Grid[0]) | uint64_t(Grid[1]) << 32);
  EXPECT_EQ(Inputs[4], Grid[2]);
  EXPECT_EQ(Inputs[5], uint64_t(Group[0]) | uint64_t(Group[1]) << 16 |
                           uint64_t(Group[2]) << 32);
  EXPECT_EQ(Inputs[6], Inputs[1]); // the packet's kernarg_address
  EXPECT_EQ(Inputs[7], reinterpret_cast<uint64_t>(Out.data()));
  EXPECT_EQ(Inputs[8], reinterpret_cast<uint64_t>(In.data()));
  EXPECT_EQ(uint32_t(Inputs[9]), uint32_t(N));
}

// Wave counters (per-wave SGPRs, flushed at s_endpgm) added to before
// every instruction of call_chain and its callees (a loop in helper_sum,
// recursion in helper_fib, SCC live between every s_cmp and its branch)
// count exactly what the virtual GPU ran, and change no result.
TEST_F(InstrumenterTest, WaveCountersCountExactly) {
  InstrumentationPlan Plan(*Lifted);
  Plan.addKernel("call_chain");
  const BinaryFunction *K = Lifted->function("call_chain");
  ASSERT_NE(K, nullptr);
  unsigned Waves = Plan.waveCounter("loom_test_events", 0);
  unsigned Lanes = Plan.waveCounter("loom_test_events", 8);
  unsigned Entry = Plan.waveCounter("loom_test_events", 16);
  bool SccLive = false;
  for (const BinaryFunction &F : Lifted->functions())
    for (const BinaryBasicBlock &B : F.blocks())
      for (const BinaryInstruction &I : B.Instructions) {
        ASSERT_OK(Plan.countBefore(F, I, {Waves, 1, false, {}, false}));
        if (I.Props.IsVector)
          ASSERT_OK(Plan.countBefore(F, I, {Lanes, 1, true, {}, false}));
        SccLive |= I.Props.Reads.has(SpecialReg::Scc);
      }
  EXPECT_TRUE(SccLive);
  ASSERT_OK(Plan.countAtBlockEntry(*K, K->blocks()[0], {Entry, 3, true, {}, false}));
  EXPECT_TRUE(bool(Plan.countAtBlockEntry(*K, K->blocks()[0], {7, 1, false, {}, false})))
      << "a counter that does not exist";
  auto M = instrumentAndLoad(Plan);
  ASSERT_TRUE(M);

  constexpr unsigned N = 150; // three waves, the last one partial
  emu::DispatchCounters Truth = callChainBothWays(*M, N);
  const uint64_t *Words = global("loom_test_events");
  EXPECT_EQ(Words[0], Truth.WaveInstructions);
  EXPECT_EQ(Words[1], Truth.ActiveLaneInstructions);
  EXPECT_EQ(Words[2], 3u * N);
  EXPECT_GT(Truth.WaveInstructions, 300u); // the loop and the recursion ran
}

// The loop counters' pieces, on call_chain: a narrow counter (32-bit adds)
// before every instruction counts every wave-instruction; a tally of the
// kernel's first instruction times the lanes set there (CounterAdd::Set),
// as a product flushed at s_endpgm, and the same tally folded there
// (CounterAdd::Since) and again before each s_endpgm (nothing gained
// since: 0 added), are the work-items. Results unchanged.
TEST_F(InstrumenterTest, NarrowSetProductAndFoldCountExactly) {
  InstrumentationPlan Plan(*Lifted);
  Plan.addKernel("call_chain");
  const BinaryFunction *K = Lifted->function("call_chain");
  ASSERT_NE(K, nullptr);
  unsigned Waves = Plan.waveCounter("loom_test_events", 0, false, true);
  unsigned Tally = Plan.waveCounter("", 0, false, true);
  unsigned Lanes = Plan.waveCounter("", 0, false, true);
  unsigned Mark = Plan.waveCounter("", 0, false, true);
  Plan.counter(Lanes).NoZero = true;
  Plan.productCounter("loom_test_events", 8, Tally, Lanes);
  unsigned Folded = Plan.waveCounter("loom_test_events", 16);
  for (const BinaryFunction &F : Lifted->functions())
    for (const BinaryBasicBlock &B : F.blocks())
      for (const BinaryInstruction &I : B.Instructions)
        ASSERT_OK(Plan.countBefore(F, I, {Waves, 1, false, {}, false}));
  const BinaryInstruction &First = K->blocks()[0].Instructions[0];
  CounterAdd Fold{Folded, 1, true, CounterFold{Tally, Mark}, false};
  ASSERT_OK(Plan.countBefore(*K, First, {Tally, 1, false, {}, false}));
  ASSERT_OK(Plan.countBefore(*K, First, {Lanes, 1, true, {}, true}));
  ASSERT_OK(Plan.countBefore(*K, First, Fold));
  for (const BinaryBasicBlock &B : K->blocks())
    if (B.last().Props.isEndProgram())
      ASSERT_OK(Plan.countBefore(*K, B.last(), Fold));
  // A set counter must be narrow and of no word; a fold needs narrow ones.
  EXPECT_TRUE(bool(Plan.countBefore(*K, First, {Folded, 1, true, {}, true})));
  EXPECT_TRUE(bool(Plan.countBefore(
      *K, First, {Folded, 1, true, CounterFold{Folded, Mark}, false})));
  auto M = instrumentAndLoad(Plan);
  ASSERT_TRUE(M);

  constexpr unsigned N = 150; // three waves, the last one partial
  emu::DispatchCounters Truth = callChainBothWays(*M, N);
  const uint64_t *Words = global("loom_test_events");
  EXPECT_EQ(Words[0], Truth.WaveInstructions);
  EXPECT_EQ(Words[1], N);
  EXPECT_EQ(Words[2], N);
}

/// Once-per-wave counters in \p Kernel (of the fixture loaded): at the entry
/// of each block outside loops, its waves (word 2i of loom_test_waves)
/// and, before its first vector instruction with no EXEC write before it in
/// the block, that instruction's lanes (word 2i + 1). The plan, and per
/// counted word the instruction whose ground truth it must equal (its
/// offset in the kernel; lanes if odd).
struct OnceCounters {
  std::vector<std::pair<uint64_t, bool>> Expect; ///< per word: offset, lanes
};
OnceCounters askOnceCounters(InstrumentationPlan &Plan, const BinaryFunction &K) {
  OnceCounters O;
  auto Ok = [](Error E) {
    if (E)
      ADD_FAILURE() << llvm::toString(std::move(E));
  };
  ControlEquivalence Classes(K);
  for (unsigned BI = 0; BI < K.blocks().size(); ++BI) {
    const BinaryBasicBlock &B = K.blocks()[BI];
    if (Classes.inLoop(BI))
      continue;
    const BinaryInstruction *Vector = nullptr;
    for (const BinaryInstruction &I : B.Instructions) {
      if (I.Props.IsVector) {
        Vector = &I;
        break;
      }
      if (I.Props.writesExec())
        break;
    }
    uint64_t Word = O.Expect.size();
    unsigned W = Plan.waveCounter("loom_test_waves", 8 * Word, true);
    Error Two = Plan.countAtBlockEntry(K, B, {W, 2, false, {}, false});
    EXPECT_TRUE(bool(Two)) << "once-per-wave counters take adds of 1";
    llvm::consumeError(std::move(Two));
    Ok(Plan.countAtBlockEntry(K, B, {W, 1, false, {}, false}));
    O.Expect.push_back({B.Address - K.address(), false});
    if (!Vector)
      continue;
    unsigned L = Plan.waveCounter("loom_test_waves", 8 * (Word + 1), true);
    Ok(Plan.countBefore(K, *Vector, {L, 1, true, {}, false}));
    O.Expect.push_back({Vector->address() - K.address(), true});
  }
  return O;
}

/// Each word of \p O against \p Truth's counts of \p Kernel.
void expectOnceCounts(const OnceCounters &O, const uint64_t *Words,
                      const emu::DispatchCounters &Truth,
                      llvm::StringRef Kernel) {
  std::map<uint64_t, const emu::InstructionCount *> At;
  for (const emu::InstructionCount &I : Truth.Instructions)
    if (I.Function == Kernel)
      At[I.Offset] = &I;
  for (size_t W = 0; W < O.Expect.size(); ++W) {
    auto [Offset, Lanes] = O.Expect[W];
    auto It = At.find(Offset);
    uint64_t Want = It == At.end() ? 0
                    : Lanes        ? It->second->ActiveLanes
                                   : It->second->WaveExecutions;
    EXPECT_EQ(Words[W], Want) << Kernel.str() << " +0x"
                              << llvm::utohexstr(Offset)
                              << (Lanes ? " lanes" : " waves");
  }
}

// Once-per-wave counters (lanes of a VGPR pair, one vector atomic at
// s_endpgm) at every block of call_chain outside its loops: each equals
// what the virtual GPU ran there, on three waves the last of which is
// partial, and no result changes. A counter a hook would read is refused.
TEST_F(InstrumenterTest, OncePerWaveCountersCountExactly) {
  InstrumentationPlan Plan(*Lifted);
  Plan.addKernel("call_chain");
  const BinaryFunction *K = Lifted->function("call_chain");
  ASSERT_NE(K, nullptr);
  OnceCounters O = askOnceCounters(Plan, *K);
  ASSERT_GE(O.Expect.size(), 2u);
  Error Read = Plan.atKernelEntry(
      *K, "bump", {HookArg::waveCounter(0), HookArg::constant(1)});
  EXPECT_TRUE(bool(Read)) << "a hook reading a once-per-wave counter";
  llvm::consumeError(std::move(Read));
  std::string Assembly;
  auto M = instrumentAndLoad(Plan, &Assembly);
  ASSERT_TRUE(M);
  EXPECT_NE(Assembly.find("global_atomic_add_x2 v0, v["), std::string::npos);
  EXPECT_NE(Assembly.find("exec_hi"), std::string::npos);

  constexpr unsigned N = 150; // three waves, the last one partial
  emu::DispatchCounters Truth = callChainBothWays(*M, N);
  expectOnceCounts(O, global("loom_test_waves"), Truth, "call_chain");
}

// A call before scale_add's s_cbranch_execz unless EXEC is the mask its
// s_and_saveexec_b64 saved (HookRequest::UnlessExecIs) runs on the waves
// that lost lanes to `i < n` only: with n = 200 on five waves, the fourth
// (8 lanes left) and the fifth (none left: EXEC = 0, it skips the block).
// bump is scalar code, into a wave counter: it runs under EXEC = 0 too.
// Unless EXEC is not empty (HookRequest::ExecNonZero), on the fifth alone.
// Once-per-wave counters at the same branch count every wave, the fifth
// under EXEC = 0 included, and the 200 lanes left.
TEST_F(InstrumenterTest, ACallUnlessExecIsRunsWhereLanesWereLost) {
  InstrumentationPlan Plan(*Lifted);
  Plan.addKernel("scale_add");
  const BinaryFunction *K = Lifted->function("scale_add");
  ASSERT_NE(K, nullptr);
  const BinaryInstruction *Branch = nullptr;
  unsigned Saved = 0;
  for (const BinaryBasicBlock &B : K->blocks()) {
    size_t N = B.Instructions.size();
    if (N >= 2 && B.last().Info.Text.find("s_cbranch_execz") == 0 &&
        B.Instructions[N - 2].Info.Text.find("s_and_saveexec_b64 s[") == 0) {
      Branch = &B.last();
      llvm::StringRef Text = B.Instructions[N - 2].Info.Text;
      ASSERT_FALSE(Text.drop_front(strlen("s_and_saveexec_b64 s["))
                       .consumeInteger(10, Saved));
    }
  }
  ASSERT_NE(Branch, nullptr);
  unsigned C = Plan.waveCounter("loom_test_events", 0);
  Error Odd = Plan.beforeUnlessExecIs(*K, *Branch, Saved + 1, "bump",
                                      {HookArg::constant(1)});
  EXPECT_TRUE(bool(Odd)) << "an odd pair";
  llvm::consumeError(std::move(Odd));
  HookRequest R = HookRequest::call(
      "scale_add", HookPoint::Before, Branch->address(), "bump",
      {HookArg::waveCounter(C), HookArg::constant(1)}, C);
  R.UnlessExecIs = Saved;
  ASSERT_OK(Plan.add(R));
  // Unless EXEC is not empty, at the join the branch skips to (where
  // EXEC is the block's, or empty): the fifth wave alone.
  ASSERT_TRUE(Branch->Info.Target.has_value());
  unsigned Empty = Plan.waveCounter("loom_test_events", 8);
  HookRequest Z = HookRequest::call(
      "scale_add", HookPoint::Before, *Branch->Info.Target, "bump",
      {HookArg::waveCounter(Empty), HookArg::constant(1)}, Empty);
  Z.UnlessExecIs = HookRequest::ExecNonZero;
  ASSERT_OK(Plan.add(Z));
  unsigned Waves = Plan.waveCounter("loom_test_waves", 0, true);
  unsigned Lanes = Plan.waveCounter("loom_test_waves", 8, true);
  ASSERT_OK(Plan.countBefore(*K, *Branch, {Waves, 1, false, {}, false}));
  ASSERT_OK(Plan.countBefore(*K, *Branch, {Lanes, 1, true, {}, false}));
  std::string Assembly;
  auto M = instrumentAndLoad(Plan, &Assembly);
  ASSERT_TRUE(M);
  EXPECT_NE(Assembly.find("s_cmp_eq_u64 s[" + std::to_string(Saved)),
            std::string::npos);
  auto Run = [&](emu::Module &Mod, llvm::StringRef Kernel) {
    constexpr int N = 200;
    emu::DeviceBuffer In(*Dev, 320 * 4), Out(*Dev, 320 * 4);
    for (int I = 0; I < 320; ++I) {
      static_cast<float *>(In.data())[I] = float(I);
      static_cast<float *>(Out.data())[I] = -1;
    }
    emu::KernelArgs Args;
    Args.add(Out.data()).add(In.data()).add(int32_t(N));
    auto Res = Mod.launch(Kernel, emu::LaunchConfig::linear(320, 64), Args);
    EXPECT_TRUE(Res && Res->ok());
    if (!Res)
      ADD_FAILURE() << llvm::toString(Res.takeError());
    return std::vector<float>(Out.data<float>(), Out.data<float>() + 320);
  };
  std::vector<float> Want = Run(*Orig, "scale_add");
  resetCounts();
  EXPECT_EQ(Run(*M, "scale_add.loom"), Want);
  EXPECT_EQ(global("loom_test_events")[0], 2u);
  EXPECT_EQ(global("loom_test_events")[1], 1u);
  EXPECT_EQ(global("loom_test_waves")[0], 5u);
  EXPECT_EQ(global("loom_test_waves")[1], 200u);
}

// Hooks keep per-wave state in a wave counter: bump(counter, 1) and then
// bump(counter, 2), returning into it, before every instruction of
// call_chain and its callees (the second call sees what the first
// returned), flushed at s_endpgm: three times what the virtual GPU ran.
// In the kernel the body reads and updates the counter in place and takes
// 1 and 2 as immediates (BodyPlacement.h): no glue at all.
TEST_F(InstrumenterTest, HooksKeepStateInWaveCounters) {
  InstrumentationPlan Plan(*Lifted);
  Plan.addKernel("call_chain");
  unsigned C = Plan.waveCounter("loom_test_events", 24);
  for (const BinaryFunction &F : Lifted->functions())
    for (const BinaryBasicBlock &B : F.blocks())
      for (const BinaryInstruction &I : B.Instructions)
        for (uint32_t N : {1, 2}) {
          ASSERT_OK(Plan.add(HookRequest::call(
              F.name().str(), HookPoint::Before, I.address(), "bump",
              {HookArg::waveCounter(C), HookArg::constant(N)}, C)));
        }
  HookRequest Bad = HookRequest::call(
      "call_chain", HookPoint::KernelEntry, 0, "bump",
      {HookArg::waveCounter(5), HookArg::constant(1)});
  EXPECT_TRUE(bool(Plan.add(Bad))) << "a counter that does not exist";
  llvm::consumeError(Plan.add(Bad));
  std::string Assembly;
  auto M = instrumentAndLoad(Plan, &Assembly);
  ASSERT_TRUE(M);
  llvm::StringRef Label = "\"hook bump (kernel call_chain, before +0x0)\":\n";
  size_t At = Assembly.find(Label.str());
  ASSERT_NE(At, std::string::npos);
  llvm::StringRef Point = llvm::StringRef(Assembly).substr(At + Label.size());
  EXPECT_TRUE(Point.starts_with("\t.long ")) << "glue before the body:\n"
                                              << Point.take_front(200).str();
  size_t Done = Point.find(".Lloom_");
  ASSERT_NE(Done, llvm::StringRef::npos);
  EXPECT_TRUE(Point.substr(Done).split('\n').second.starts_with(".Lloom_"))
      << "glue after the body:\n" << Point.take_front(400).str();

  emu::DispatchCounters Truth = callChainBothWays(*M, 100, 9, 5);
  EXPECT_EQ(global("loom_test_events")[3], 3 * Truth.WaveInstructions);
}

// A hook that faults is reported as a fault in that hook, by name and
// place; the device goes on running kernels.
TEST_F(InstrumenterTest, AFaultInAHookNamesTheHook) {
  InstrumentationPlan Plan(*Lifted);
  const BinaryFunction *K = Lifted->function("scale_add");
  ASSERT_NE(K, nullptr);
  const BinaryInstruction &Third = K->blocks()[0].Instructions[2];
  ASSERT_OK(Plan.before(*K, Third, "fault_hook",
                        {HookArg::constant64(0x10)}));
  InstrumentOptions O;
  O.LoadDelta = Orig->base();
  auto R = instrumentCodeObject(Plan, {Hooks->Library}, O);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  auto M = loadElf(R->Elf, "instrumented");
  ASSERT_TRUE(M);
  emu::DeviceBuffer In(*Dev, 64 * 4), Out(*Dev, 64 * 4);
  emu::KernelArgs Args;
  Args.add(Out.data()).add(In.data()).add(int32_t(64));
  auto Res = M->launch("scale_add.loom", emu::LaunchConfig::linear(64, 64), Args);
  ASSERT_TRUE(bool(Res)) << llvm::toString(Res.takeError());
  ASSERT_FALSE(Res->ok());
  std::string Where = "hook fault_hook (kernel scale_add, before +0x" +
                      llvm::utohexstr(Third.address() - K->address(), true) +
                      ")";
  EXPECT_EQ(Res->FirstFault.Hook, Where);
  EXPECT_NE(Res->FirstFault.Message.find(", in " + Where), std::string::npos)
      << Res->FirstFault.Message;
  EXPECT_EQ(Res->FirstFault.Function, "scale_add.loom");
  if (getenv("LOOM_TEST_DUMP"))
    fprintf(stderr, "%s\n", Res->FirstFault.Message.c_str());
  // The device lives on.
  ScaleAddRun Again = runScaleAdd(*Dev, *Orig, "scale_add");
  EXPECT_EQ(Again.Out.size(), 200u);
}

/// exhausted_kernels.c's \p Kernel over \p N work-items in groups of 64:
/// its output, and what the virtual GPU counted into \p Counters if given.
std::vector<int> runExhausted(emu::Device &Dev, emu::Module &M,
                              llvm::StringRef Kernel, unsigned N,
                              emu::DispatchCounters *Counters = nullptr,
                              const LoomLaunchHeader *Header = nullptr,
                              uint32_t HeaderOffset = 0) {
  emu::DeviceBuffer In(Dev, N * 4), Out(Dev, N * 4);
  for (unsigned I = 0; I < N; ++I)
    In.data<int>()[I] = int(I * 37) - 1000;
  emu::KernelArgs Args;
  Args.add(Out.data());
  if (Kernel.starts_with("all_vgprs"))
    Args.add(In.data());
  else
    Args.add(int32_t(5)).add(int32_t(3));
  if (Header)
    Args.addRaw(HeaderOffset,
                llvm::ArrayRef(reinterpret_cast<const uint8_t *>(Header),
                               sizeof(*Header)));
  return launchForInts(M, Kernel, N, Args, Out, Counters);
}

// all_vgprs keeps v0..v255 live at once: no VGPR is left above the
// kernel's, and in its middle none is dead either. The clobbering hook
// before every instruction still changes nothing and counts exactly: its
// saves go to registers dead at each point, and where none is, VGPRs go to
// AGPRs the kernel leaves free.
void InstrumenterTest::checkSavesWithNoFreeRegister() {
  ASSERT_NO_FATAL_FAILURE(useFixture("exhausted_kernels.elf"));
  InstrumentedCodeObject ICO;
  auto M = instrumentAll("all_vgprs", "clobber", &ICO);
  ASSERT_TRUE(M);
  EXPECT_NE(ICO.Assembly.find("v_accvgpr_write_b32"), std::string::npos);
  emu::DispatchCounters Truth;
  std::vector<int> Want = runExhausted(*Dev, *Orig, "all_vgprs", 128, &Truth);
  resetCounts();
  EXPECT_EQ(runExhausted(*Dev, *M, "all_vgprs.loom", 128), Want);
  expectCountsEqual(Truth);
}

// loom::laneWord() is read from a VGPR the preamble sets for the wave's
// life where the kernel leaves one (scale_add: the glue copies nothing, no
// v_mbcnt at the points), and computed at each point where it leaves none
// (all_vgprs): right in every lane either way, the counts exact and the
// results unchanged.
void InstrumenterTest::checkLaneWord() {
  auto Mbcnts = [](const std::string &Asm) {
    size_t N = 0;
    for (size_t At = Asm.find("\tv_mbcnt_lo_u32_b32 v"); At != std::string::npos;
         At = Asm.find("\tv_mbcnt_lo_u32_b32 v", At + 1))
      ++N;
    return N;
  };
  {
    InstrumentedCodeObject ICO;
    std::memset(global("loom_test_events"), 0, 4 * 8);
    auto M = instrumentAll("scale_add", "count_lane_word", &ICO);
    ASSERT_TRUE(M);
    EXPECT_EQ(Mbcnts(ICO.Assembly), 1u) << "set once, in the preamble";
    expectScaleAddCounted(*M);
    EXPECT_EQ(global("loom_test_events")[2], 0u);
  }
  ASSERT_NO_FATAL_FAILURE(useFixture("exhausted_kernels.elf"));
  InstrumentedCodeObject ICO;
  auto M = instrumentAll("all_vgprs", "count_lane_word", &ICO);
  ASSERT_TRUE(M);
  EXPECT_GT(Mbcnts(ICO.Assembly), 100u) << "computed at each point";
  emu::DispatchCounters Truth;
  std::vector<int> Want = runExhausted(*Dev, *Orig, "all_vgprs", 128, &Truth);
  resetCounts();
  EXPECT_EQ(runExhausted(*Dev, *M, "all_vgprs.loom", 128), Want);
  expectCountsEqual(Truth);
  EXPECT_EQ(global("loom_test_events")[2], 0u);
}

TEST_F(InstrumenterTest, AHookWithAStackCountsExactly) { checkStackHook(); }
// A stack of no fixed size has no slot to go in: a clear error.
TEST_F(InstrumenterTest, AHookWithADynamicAllocaIsRefused) {
  InstrumentationPlan Plan(*Lifted);
  const BinaryFunction *K = Lifted->function("scale_add");
  ASSERT_NE(K, nullptr);
  ASSERT_OK(Plan.atKernelEntry(*K, "alloca_hook", {HookArg::constant(5)}));
  InstrumentOptions O;
  O.LoadDelta = Orig->base();
  auto R = instrumentCodeObject(Plan, {Hooks->Library}, O);
  ASSERT_FALSE(bool(R));
  std::string Why = llvm::toString(R.takeError());
  EXPECT_NE(Why.find("kernel scale_add, kernel entry: the hooks' stack has "
                     "no fixed size (a dynamic alloca)"),
            std::string::npos)
      << Why;
}
TEST_F(InstrumenterTest, AHookWithAStackAboveADynamicStack) {
  checkStackHookOverDynamicStack();
}
TEST_F(InstrumenterTest, SavesFindHomesWhenNoRegisterIsFree) {
  checkSavesWithNoFreeRegister();
}
TEST_F(InstrumenterTest, LaneWordInAVgprOrComputedAtThePoint) {
  checkLaneWord();
}

// The same on gfx942: architected flat scratch (the stack through
// scratch_* and the stack pointer alone), the gfx94x wait states.
class InstrumenterGfx942Test : public InstrumenterTest {
  llvm::StringRef target() const override { return "gfx942"; }
};
TEST_F(InstrumenterGfx942Test, AHookWithAStackCountsExactly) {
  checkStackHook();
}
TEST_F(InstrumenterGfx942Test, AHookWithAStackAboveADynamicStack) {
  checkStackHookOverDynamicStack();
}
TEST_F(InstrumenterGfx942Test, SavesFindHomesWhenNoRegisterIsFree) {
  checkSavesWithNoFreeRegister();
}
TEST_F(InstrumenterGfx942Test, LaneWordInAVgprOrComputedAtThePoint) {
  checkLaneWord();
}

// all_sgprs writes s101: no SGPR is left for the launch state or the wave
// counters, which live in lanes of a VGPR instead. Counters before every
// instruction (of the kernel and the functions it calls through a
// pointer), a hook returning into a counter, and the launch state at
// kernel entry: all exact, results unchanged.
TEST_F(InstrumenterTest, StateAndCountersLiveInLanesWhenSgprsRunOut) {
  ASSERT_NO_FATAL_FAILURE(useFixture("exhausted_kernels.elf"));
  InstrumentationPlan Plan(*Lifted);
  Plan.addKernel("all_sgprs");
  const BinaryFunction *K = Lifted->function("all_sgprs");
  ASSERT_NE(K, nullptr);
  unsigned Waves = Plan.waveCounter("loom_test_events", 0);
  unsigned Lanes = Plan.waveCounter("loom_test_events", 8);
  unsigned Bumps = Plan.waveCounter("loom_test_events", 24);
  for (const BinaryFunction *F : Lifted->callGraph().reachableFrom(*K))
    for (const BinaryBasicBlock &B : F->blocks())
      for (const BinaryInstruction &I : B.Instructions) {
        ASSERT_OK(Plan.countBefore(*F, I, {Waves, 1, false, {}, false}));
        if (I.Props.IsVector)
          ASSERT_OK(Plan.countBefore(*F, I, {Lanes, 1, true, {}, false}));
        ASSERT_OK(Plan.add(HookRequest::call(
            F->name().str(), HookPoint::Before, I.address(), "bump",
            {HookArg::waveCounter(Bumps), HookArg::constant(2)}, Bumps)));
      }
  ASSERT_OK(askWaveInfo(Plan, *K));
  auto R = instrument(Plan);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  const InstrumentedKernel *IK = R->kernel("all_sgprs");
  ASSERT_NE(IK, nullptr);
  EXPECT_NE(R->Assembly.find("v_readlane_b32 s0, v"), std::string::npos)
      << "counters in lanes";
  auto M = loadElf(R->Elf, "instrumented");
  ASSERT_TRUE(M);

  constexpr unsigned N = 150; // three waves, the last one partial
  emu::DispatchCounters Truth;
  std::vector<int> Want = runExhausted(*Dev, *Orig, "all_sgprs", N, &Truth);
  resetCounts();
  testutil::resetWaves(*Hooks);
  emu::DeviceBuffer Data(*Dev, 8);
  *Data.data<uint64_t>() = 0x600dcafe;
  LoomLaunchHeader H{};
  H.DispatchId = 5;
  uint32_t Grid[3] = {N, 1, 1};
  uint16_t Group[3] = {64, 1, 1};
  std::copy(Grid, Grid + 3, H.GridSize);
  std::copy(Group, Group + 3, H.WorkgroupSize);
  H.ToolCount = 1;
  H.Tools[0].Data = reinterpret_cast<uint64_t>(Data.data());
  EXPECT_EQ(runExhausted(*Dev, *M, "all_sgprs.loom", N, nullptr, &H,
                         IK->LaunchHeaderOffset),
            Want);
  const uint64_t *Words = global("loom_test_events");
  EXPECT_EQ(Words[0], Truth.WaveInstructions);
  EXPECT_EQ(Words[1], Truth.ActiveLaneInstructions);
  EXPECT_EQ(Words[3], 2 * Truth.WaveInstructions);
  EXPECT_GT(Truth.WaveInstructions, 300u);
  unsigned Bad = 0;
  auto Seen = testutil::recordedWaves(*Hooks, 5, 0x600dcafe, Bad);
  EXPECT_EQ(Seen, testutil::expectedWaves(Grid, Group));
  EXPECT_EQ(Bad, 0u);
}

// all_sgprs writes s101 and all_vgprs keeps v0..v255: once-per-wave
// counters need no SGPR, so the first counts exactly; the second has no
// VGPR pair left for them, and is left uninstrumented with the reason.
TEST_F(InstrumenterTest, OncePerWaveCountersNeedTwoFreeVgprs) {
  ASSERT_NO_FATAL_FAILURE(useFixture("exhausted_kernels.elf"));
  {
    InstrumentationPlan Plan(*Lifted);
    Plan.addKernel("all_sgprs");
    const BinaryFunction *K = Lifted->function("all_sgprs");
    ASSERT_NE(K, nullptr);
    OnceCounters O = askOnceCounters(Plan, *K);
    auto M = instrumentAndLoad(Plan);
    ASSERT_TRUE(M);
    constexpr unsigned N = 150;
    emu::DispatchCounters Truth;
    std::vector<int> Want = runExhausted(*Dev, *Orig, "all_sgprs", N, &Truth);
    resetCounts();
    EXPECT_EQ(runExhausted(*Dev, *M, "all_sgprs.loom", N), Want);
    expectOnceCounts(O, global("loom_test_waves"), Truth, "all_sgprs");
  }
  InstrumentationPlan Plan(*Lifted);
  Plan.addKernel("all_vgprs");
  const BinaryFunction *K = Lifted->function("all_vgprs");
  ASSERT_NE(K, nullptr);
  askOnceCounters(Plan, *K);
  InstrumentOptions Options;
  Options.LoadDelta = Orig->base();
  auto R = instrumentCodeObject(Plan, {Hooks->Library}, Options);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->kernel("all_vgprs"), nullptr);
  ASSERT_FALSE(R->Warnings.empty());
  EXPECT_NE(R->Warnings[0].find("no free vector registers for 2 "
                                "once-per-wave counters' lanes"),
            std::string::npos)
      << R->Warnings[0];
}

} // namespace
