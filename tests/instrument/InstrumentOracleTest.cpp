//===- InstrumentOracleTest.cpp - The emulator checks instrumented code ---===//
//
// This binary is the emulator's differential corpus (tests/emu/diff, every
// test of it, compiled in again) with every dispatch replaced by a dispatch
// of an instrumented copy of its kernel: a hook before every instruction of
// the kernel and of the functions it calls, one that clobbers every scratch
// register of the calling convention, VCC, M0 and SCC and does an atomic
// add (test_hooks.hip, `clobber`), one that clobbers too after every
// instruction (`clobber_only`), one at every block entry that writes a
// stack frame of its own (`stack_clobber`: the hooks' stack, in a slot
// the kernel's stack must not meet), plus hooks at
// every exit and at kernel entry, where `wave_info` reads the launch state
// (work-group and wave id, lane id, the dispatch id and launch data of a
// launch header the oracle fills). So:
//
//  1. transparency: the corpus tests' own checks of results (against host
//     references) now check the instrumented code;
//  2. ground truth: per original instruction, the active lanes the hook
//     counted equal the lanes the emulator counted running its copy
//     (mapped back through the address map), and the waves it counted are
//     the emulator's less those that ran it with EXEC empty (a hook runs in
//     active lanes only); kernel entries equal the waves;
//  3. launch state: each wave saw its work-group, wave id, lanes and the
//     launch header's values, as the launch configuration implies.
//
// A kernel Loom leaves uninstrumented (a warning) runs its original code
// and is counted; the totals are printed at the end.
//
//===----------------------------------------------------------------------===//
#include "DiffHarness.h"
#include "HookTestUtil.h"

#include "loom/instrument/BinaryContext.h"
#include "loom/instrument/Instrumenter.h"
#include "loom/instrument/LaunchHeader.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>

using namespace loom;
using namespace loom::emu;
using namespace loom::emu::difftest;
using namespace loom::instrument;

namespace {

constexpr unsigned MaxIndex = 65536;

struct InstrumentedKernelCopy {
  std::unique_ptr<Module> M;
  std::string Symbol;
  std::vector<std::pair<uint64_t, uint64_t>> AddressMap;
  /// Hook index of each original instruction address.
  std::map<uint64_t, unsigned> IndexOf;
  uint32_t LaunchHeaderOffset = 0;
};

struct Totals {
  unsigned Dispatches = 0, Uninstrumented = 0, Instructions = 0;
  unsigned HazardNops = 0, HazardWaitStates = 0; // of the copies made
  double Seconds = 0, WorstSeconds = 0;
  size_t WorstSize = 0;
  std::vector<std::string> Warnings;
  std::vector<std::pair<double, size_t>> PerKernel; // seconds, instructions
  ~Totals() {
    llvm::sort(PerKernel);
    double Median = PerKernel.empty() ? 0 : PerKernel[PerKernel.size() / 2].first;
    size_t MedianSize =
        PerKernel.empty() ? 0 : PerKernel[PerKernel.size() / 2].second;
    fprintf(stderr,
            "instrument oracle: %u dispatches instrumented, %u left "
            "uninstrumented; %u instruction hooks checked; instrumentation "
            "of %zu kernels %.1f s in all, median %.1f ms (%zu instructions), "
            "worst %.2f s (%zu instructions); hazard padding %u s_nop "
            "(%u wait states)\n",
            Dispatches, Uninstrumented, Instructions, PerKernel.size(), Seconds,
            Median * 1000, MedianSize, WorstSeconds, WorstSize, HazardNops,
            HazardWaitStates);
    for (const std::string &W : Warnings)
      fprintf(stderr, "  %s\n", W.c_str());
  }
};

class Oracle {
public:
  llvm::Expected<DispatchResult> launch(Module &M, llvm::StringRef Path,
                                        llvm::StringRef Kernel,
                                        const LaunchConfig &Config,
                                        const KernelArgs &Args) {
    if (!Hooks) {
      auto H = testutil::loadHooks(*sharedDevice(), LOOM_TEST_HOOKS_BC,
                                   target());
      if (!H)
        return H.takeError();
      Hooks = std::move(*H);
    }
    auto Key = std::make_pair(Path.str(), Kernel.str());
    auto It = Copies.find(Key);
    if (It == Copies.end()) {
      auto C = instrument(M, Kernel);
      if (!C)
        return C.takeError();
      It = Copies.emplace(Key, std::move(*C)).first;
    }
    InstrumentedKernelCopy *Copy = It->second.get();
    if (!Copy) {
      ++T.Uninstrumented;
      return M.launch(Kernel, Config, Args);
    }
    uint64_t *Waves = Hooks->global("loom_test_waves");
    uint64_t *Lanes = Hooks->global("loom_test_lanes");
    uint64_t *Events = Hooks->global("loom_test_events");
    std::memset(Waves, 0, MaxIndex * 8);
    std::memset(Lanes, 0, MaxIndex * 8);
    std::memset(Events, 0, 4 * 8);
    testutil::resetWaves(*Hooks);
    if (!LaunchData)
      LaunchData = std::make_unique<DeviceBuffer>(*sharedDevice(), 8);
    uint64_t Data = 0x5eed0000 + T.Dispatches;
    *LaunchData->data<uint64_t>() = Data;
    LoomLaunchHeader H{};
    H.DispatchId = T.Dispatches;
    std::copy(Config.Grid, Config.Grid + 3, H.GridSize);
    std::copy(Config.Workgroup, Config.Workgroup + 3, H.WorkgroupSize);
    H.ToolCount = 1;
    H.Tools[0].Data = LaunchData->address();
    KernelArgs WithHeader = Args;
    WithHeader.addRaw(Copy->LaunchHeaderOffset,
                      llvm::ArrayRef(reinterpret_cast<const uint8_t *>(&H),
                                     sizeof(H)));
    auto R = Copy->M->launch(Copy->Symbol, Config, WithHeader);
    if (!R || !R->ok())
      return R;
    check(*Copy, *R, Waves, Lanes, Events, Kernel);
    unsigned Bad = 0;
    auto Seen = testutil::recordedWaves(*Hooks, T.Dispatches, Data, Bad);
    if (*Hooks->global("loom_test_wavecount") <= 16384)
      EXPECT_EQ(Seen, testutil::expectedWaves(Config.Grid, Config.Workgroup))
          << Kernel.str() << ": the waves' launch state";
    EXPECT_EQ(Bad, 0u) << Kernel.str() << ": the waves' launch state";
    ++T.Dispatches;
    return R;
  }

private:
  llvm::Expected<std::unique_ptr<InstrumentedKernelCopy>>
  instrument(Module &M, llvm::StringRef Kernel) {
    auto Start = std::chrono::steady_clock::now();
    auto BC = BinaryContext::create(M.codeObject());
    if (!BC)
      return BC.takeError();
    if (llvm::Error E = (*BC)->buildCFGs())
      return std::move(E);
    BinaryFunction *K = (*BC)->function(Kernel);
    if (!K)
      return llvm::createStringError("no kernel " + Kernel.str());

    auto Copy = std::make_unique<InstrumentedKernelCopy>();
    InstrumentationPlan Plan(**BC);
    Plan.addKernel(Kernel);
    unsigned Next = 0;
    for (const BinaryFunction *F : (*BC)->callGraph().reachableFrom(*K))
      for (const BinaryBasicBlock &B : F->blocks()) {
        if (llvm::Error E = Plan.atBlockEntry(*F, B, "stack_clobber"))
          return std::move(E);
        for (const BinaryInstruction &I : B.Instructions) {
          if (Next == MaxIndex)
            return llvm::createStringError("too many instructions");
          Copy->IndexOf[I.address()] = Next;
          if (llvm::Error E = Plan.before(
                  *F, I, "clobber",
                  {HookArg::constant(Next++), HookArg::exec()}))
            return std::move(E);
          // Refused where nothing runs after (branches, s_endpgm).
          llvm::consumeError(Plan.after(*F, I, "clobber_only"));
        }
      }
    if (llvm::Error E = Plan.atKernelEntry(*K, "event", {HookArg::constant(0)}))
      return std::move(E);
    if (llvm::Error E = Plan.atKernelEntry(
            *K, "wave_info",
            {HookArg::exec(), HookArg::laneId(), HookArg::waveId(),
             HookArg::workgroupId(0), HookArg::dispatchId()}))
      return std::move(E);
    if (llvm::Error E = Plan.atKernelExit(*K, "event", {HookArg::constant(1)}))
      return std::move(E);
    InstrumentOptions O;
    O.LoadDelta = M.base();
    auto R = instrumentCodeObject(Plan, {Hooks->Library}, O);
    if (!R)
      return R.takeError();
    double Seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - Start)
                         .count();
    T.Seconds += Seconds;
    T.PerKernel.emplace_back(Seconds, Next);
    if (Seconds > T.WorstSeconds) {
      T.WorstSeconds = Seconds;
      T.WorstSize = Next;
    }
    for (const std::string &W : R->Warnings)
      T.Warnings.push_back(M.name().str() + ": " + W);
    T.HazardNops += R->HazardNops;
    T.HazardWaitStates += R->HazardWaitStates;
    const InstrumentedKernel *IK = R->kernel(Kernel);
    if (!IK)
      return nullptr; // runs uninstrumented
    auto Loaded = testutil::loadElf(*sharedDevice(), R->Elf,
                                    M.name().str() + ".instrumented");
    if (!Loaded)
      return Loaded.takeError();
    Copy->M = std::move(*Loaded);
    Copy->Symbol = IK->Symbol;
    Copy->LaunchHeaderOffset = IK->LaunchHeaderOffset;
    Copy->AddressMap = std::move(R->AddressMap);
    return std::move(Copy);
  }

  void check(const InstrumentedKernelCopy &C, const DispatchResult &R,
             const uint64_t *Waves, const uint64_t *Lanes,
             const uint64_t *Events, llvm::StringRef Kernel) {
    // The emulator's counts of each copied original instruction.
    std::map<uint64_t, std::pair<uint64_t, uint64_t>> Truth; // waves, lanes
    uint64_t Base = C.M->base();
    for (const InstructionCount &IC : R.Counters.Instructions) {
      auto It = std::lower_bound(
          C.AddressMap.begin(), C.AddressMap.end(),
          std::make_pair(IC.Pc - Base, uint64_t(0)));
      if (It == C.AddressMap.end() || It->first != IC.Pc - Base)
        continue; // inserted code
      auto &[W, L] = Truth[It->second];
      W += IC.WaveExecutions;
      L += IC.ActiveLanes;
    }
    for (auto [Address, Index] : C.IndexOf) {
      auto [W, L] = Truth.count(Address) ? Truth[Address]
                                         : std::pair<uint64_t, uint64_t>();
      ++T.Instructions;
      EXPECT_LE(Waves[Index], W) << Kernel.str() << " at 0x" << std::hex
                                 << Address;
      if (L)
        EXPECT_EQ(Lanes[Index], L) << Kernel.str() << " at 0x" << std::hex
                                   << Address;
      if (W && !Waves[Index])
        EXPECT_EQ(Lanes[Index], 0u);
    }
    EXPECT_EQ(Events[0], R.Counters.Waves) << Kernel.str() << ": kernel entries";
    EXPECT_LE(Events[1], R.Counters.Waves) << Kernel.str() << ": kernel exits";
    EXPECT_GT(Events[1], 0u) << Kernel.str() << ": kernel exits";
  }

  std::unique_ptr<testutil::LoadedHooks> Hooks;
  std::unique_ptr<DeviceBuffer> LaunchData; // the tool's, per launch
  std::map<std::pair<std::string, std::string>,
           std::unique_ptr<InstrumentedKernelCopy>>
      Copies;
  Totals T;
};

Oracle *TheOracle = nullptr;

/// Prints the totals once the tests are done.
class OracleReport : public ::testing::Environment {
public:
  void TearDown() override { delete TheOracle; TheOracle = nullptr; }
};

struct Install {
  Install() {
    TheOracle = new Oracle;
    ::testing::AddGlobalTestEnvironment(new OracleReport);
    setLaunchInterceptor([](Module &M, llvm::StringRef Path,
                            llvm::StringRef Kernel, const LaunchConfig &Config,
                            const KernelArgs &Args) {
      return TheOracle->launch(M, Path, Kernel, Config, Args);
    });
  }
} Installed;

} // namespace

int main(int Argc, char **Argv) {
  ::testing::InitGoogleTest(&Argc, Argv);
  // The corpus's Counters suite checks what the virtual GPU counts of the
  // original code; an instrumented copy runs more. Left out unless a
  // filter (--gtest_filter or GTEST_FILTER) says otherwise. Set here, not in
  // a static initialiser, which may run before gtest's own flag is built.
  if (GTEST_FLAG_GET(filter) == "*")
    GTEST_FLAG_SET(filter, "-Counters.*");
  return RUN_ALL_TESTS();
}
