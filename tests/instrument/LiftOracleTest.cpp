//===- LiftOracleTest.cpp - The emulator checks the lifted code -----------===//
//
// This binary is the emulator's differential corpus (tests/emu/diff, every
// test of it, compiled in again) with an observer on every dispatch that
// completes. For each one it lifts the code object the kernel came from and
// checks the lifted functions against the emulator's counters, which count
// what really ran:
//
//  1. every executed instruction address is an instruction of a lifted
//     block of the function the emulator names, with the same operation,
//     in a function marked instrumentable;
//  2. the emulator's block starts and the lifted block starts agree at
//     every executed address;
//  3. every instruction of a lifted block ran as many times as the block's
//     first one: no executed control transfer enters or leaves a block in
//     its middle;
//  4. flow: the execution counts admit a flow on the lifted CFG's edges —
//     each block's count, less the waves (kernel entry) or calls (device
//     function entry) that enter it, is the sum of flows on its incoming
//     edges, and each block that does not end the function passes its count
//     on over its outgoing edges (checked as a max-flow problem). An
//     executed edge missing from the CFG breaks this unless other counts
//     happen to hide it; s_endpgm blocks of a kernel sum to its waves and
//     return blocks of a device function to its calls (where a call of
//     unknown target ran, a device function's entries are taken to be its
//     returns);
//  5. every recorded memory access agrees with the lifted instruction's
//     properties: kind (global/flat/buffer, LDS, scratch, scalar),
//     direction, atomicity, bytes per lane.
//
// A further test lifts every kernel and device function of the corpus, run
// or not, and checks that each is instrumentable and, for call-free
// kernels, that textbook liveness (every write kills) is contained in
// Loom's at every block: the EXEC rule may only keep more alive. It reports,
// without failing, how many kernels have nothing live at entry beyond the
// dispatch's initial state and the registers read before written (or the
// callee-saved registers callees save). The binary prints totals at the
// end.
//
//===----------------------------------------------------------------------===//
#include "DiffHarness.h"
#include "DispatchOracle.h"

#include "loom/codeobj/CodeObject.h"
#include "loom/instrument/BinaryContext.h"
#include "loom/instrument/DispatchAbi.h"
#include "loom/instrument/Liveness.h"
#include "loom/isa/McContext.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <chrono>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <tuple>

using namespace loom;
using namespace loom::emu;
using namespace loom::emu::difftest;
using namespace loom::instrument;
using namespace loom::instrument::test;

namespace {

//===----------------------------------------------------------------------===//
// Lifted code objects, once per file
//===----------------------------------------------------------------------===//

struct Lifted {
  std::unique_ptr<codeobj::CodeObject> CO;
  std::unique_ptr<BinaryContext> BC;
  std::optional<Liveness> Live;
};

OracleTotals &totals() {
  static OracleTotals T;
  return T;
}

std::map<std::string, std::unique_ptr<Lifted>> &liftedCache() {
  static std::map<std::string, std::unique_ptr<Lifted>> C;
  return C;
}

/// Lifts \p Path (CFG and liveness), once; null after a failure reported to
/// GoogleTest.
Lifted *lift(llvm::StringRef Path) {
  std::unique_ptr<Lifted> &Slot = liftedCache()[Path.str()];
  if (Slot)
    return Slot.get();
  auto File = llvm::MemoryBuffer::getFile(Path);
  if (!File) {
    ADD_FAILURE() << Path.str() << ": " << File.getError().message();
    return nullptr;
  }
  auto L = std::make_unique<Lifted>();
  auto CO = codeobj::CodeObject::create(
      llvm::ArrayRef<uint8_t>(
          reinterpret_cast<const uint8_t *>((*File)->getBufferStart()),
          (*File)->getBufferSize()),
      Path);
  if (!CO) {
    ADD_FAILURE() << Path.str() << ": " << llvm::toString(CO.takeError());
    return nullptr;
  }
  L->CO = std::move(*CO);
  auto BC = BinaryContext::create(*L->CO);
  if (!BC) {
    ADD_FAILURE() << Path.str() << ": lift: " << llvm::toString(BC.takeError());
    return nullptr;
  }
  L->BC = std::move(*BC);
  if (llvm::Error E = L->BC->buildCFGs()) {
    ADD_FAILURE() << Path.str() << ": CFG: " << llvm::toString(std::move(E));
    return nullptr;
  }
  auto Live = Liveness::compute(*L->BC);
  if (!Live) {
    ADD_FAILURE() << Path.str() << ": liveness: "
                  << llvm::toString(Live.takeError());
    return nullptr;
  }
  L->Live = std::move(*Live);
  Slot = std::move(L);
  return Slot.get();
}

void checkDispatch(llvm::StringRef Path, llvm::StringRef Kernel,
                   const DispatchResult &R) {
  Lifted *L = lift(Path);
  if (!L)
    return;
  OracleTotals &T = totals();
  T.KernelsRun.insert(llvm::sys::path::filename(Path).str() + ":" + Kernel.str());
  test::checkDispatch(*L->BC, Kernel, R.Counters, T);
}

class OracleEnvironment : public ::testing::Environment {
public:
  void SetUp() override {
    setLaunchObserver(checkDispatch, /*RecordMemoryAccesses=*/true);
  }
  void TearDown() override {
    const OracleTotals &T = totals();
    std::printf("[lift oracle] %s: %s\n", target().c_str(), T.str().c_str());
  }
};

[[maybe_unused]] ::testing::Environment *const Env =
    ::testing::AddGlobalTestEnvironment(new OracleEnvironment);

/// Block live-ins by the textbook rule: every write kills, every read
/// gens, nothing is live after s_endpgm. For call-free kernels.
std::vector<RegisterSet> classicLiveness(const BinaryFunction &F) {
  llvm::ArrayRef<BinaryBasicBlock> Blocks = F.blocks();
  std::vector<RegisterSet> In(Blocks.size());
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (unsigned B = Blocks.size(); B-- > 0;) {
      RegisterSet Live;
      for (unsigned S : Blocks[B].Successors)
        Live |= In[S];
      for (unsigned K = Blocks[B].Instructions.size(); K-- > 0;) {
        const InstrProperties &P = Blocks[B].Instructions[K].Props;
        Live.subtract(P.Writes);
        Live |= P.Reads;
      }
      if (Live != In[B]) {
        In[B] = Live;
        Changed = true;
      }
    }
  }
  return In;
}

//===----------------------------------------------------------------------===//
// Every function of the corpus, run or not
//===----------------------------------------------------------------------===//

TEST(LiftOracle, WholeCorpusLiftsAndEntryLivenessFitsTheAbi) {
  std::vector<std::string> Paths;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(LOOM_DIFF_KERNEL_DIR, EC), End;
       It != End && !EC; It.increment(EC)) {
    llvm::StringRef Name = llvm::sys::path::filename(It->path());
    if (!Name.ends_with(".elf"))
      continue;
    // <src>.O<n>.elf is gfx90a; <src>.<target>.O<n>.elf the others.
    llvm::SmallVector<llvm::StringRef, 4> Parts;
    Name.split(Parts, '.');
    std::string Target = Parts.size() == 4 ? Parts[1].str() : "gfx90a";
    if (Target == target())
      Paths.push_back(It->path());
  }
  llvm::sort(Paths);
  ASSERT_FALSE(Paths.empty()) << "no corpus in " << LOOM_DIFF_KERNEL_DIR;

  size_t Functions = 0, Kernels = 0, Instrumentable = 0, Blocks = 0,
         Instructions = 0, Calls = 0, CallFree = 0, PreciseEntry = 0;
  std::vector<std::string> Imprecise;
  struct Timing {
    double LiftMs, LivenessMs;
    size_t Instructions;
    std::string File;
  };
  std::vector<Timing> Times;
  for (const std::string &Path : Paths) {
    Lifted *L = lift(Path);
    ASSERT_TRUE(L);
    {
      // Time a fresh lift of the whole code object: decode, CFGs and call
      // graph, then liveness.
      auto T0 = std::chrono::steady_clock::now();
      auto Fresh = BinaryContext::create(*L->CO);
      ASSERT_TRUE(static_cast<bool>(Fresh));
      ASSERT_FALSE(static_cast<bool>((*Fresh)->buildCFGs()));
      auto T1 = std::chrono::steady_clock::now();
      auto FreshLive = Liveness::compute(**Fresh);
      ASSERT_TRUE(static_cast<bool>(FreshLive));
      auto T2 = std::chrono::steady_clock::now();
      size_t N = 0;
      for (const BinaryFunction &F : (*Fresh)->functions())
        N += F.numInstructions();
      Times.push_back({std::chrono::duration<double, std::milli>(T1 - T0).count(),
                       std::chrono::duration<double, std::milli>(T2 - T1).count(),
                       N, llvm::sys::path::filename(Path).str()});
    }
    Calls += L->BC->callGraph().sites().size();
    RegisterSet CalleeSaved = callconv::clobberedRegisters();
    {
      RegisterSet All;
      All.addSgprs(0, RegisterSet::NumSgprs)
          .addVgprs(0, RegisterSet::NumVgprs)
          .addAgprs(0, RegisterSet::NumAgprs);
      CalleeSaved = All.subtract(CalleeSaved);
    }
    for (const BinaryFunction &F : L->BC->functions()) {
      ++Functions;
      Blocks += F.blocks().size();
      Instructions += F.numInstructions();
      if (F.isInstrumentable())
        ++Instrumentable;
      EXPECT_TRUE(F.isInstrumentable())
          << Path << ": " << F.name().str() << ": "
          << F.notInstrumentableReason().str();
      if (!F.isKernel())
        continue;
      ++Kernels;
      const codeobj::Kernel *K = L->CO->findKernel(F.name());
      ASSERT_TRUE(K);
      RegisterSet Allowed =
          initialRegisters(K->KD, L->BC->mc().processor());
      // MC lists FLAT_SCRATCH as read by every flat instruction, in case
      // the address is private; kernels that use no scratch leave it unset.
      Allowed.add(SpecialReg::FlatScratchLo).add(SpecialReg::FlatScratchHi);
      const FunctionLiveness &FL = *L->Live->of(F);
      bool Calls = !L->BC->callGraph().callsFrom(F).empty();
      if (!Calls) {
        // Classical liveness (every write kills, no EXEC rule) must be
        // contained in Loom's at every instruction: the EXEC rule only
        // keeps more alive.
        ++CallFree;
        std::vector<RegisterSet> ClassicIn = classicLiveness(F);
        for (unsigned B = 0; B != F.blocks().size(); ++B) {
          const RegisterSet &Live = ClassicIn[B];
          EXPECT_TRUE(FL.liveIn(B).contains(Live))
              << Path << ": " << F.name().str() << " block " << B
              << ": classical liveness has " << Live.str() << ", Loom's "
              << FL.liveIn(B).str();
        }
        // Precision: what is live at entry beyond the dispatch's initial
        // state and what classical liveness already finds read before
        // written there (compilers read undefined registers, e.g. a
        // v_cndmask merging into an uninitialised array).
        RegisterSet Extra = FL.entryLiveIn();
        Extra.subtract(Allowed);
        Extra.subtract(ClassicIn[0]);
        if (Extra.empty())
          ++PreciseEntry;
        else
          Imprecise.push_back(llvm::sys::path::filename(Path).str() + ":" +
                              F.name().str() + " " + Extra.str());
      } else {
        // Kernels that call: callees read the callee-saved registers they
        // save, and pass-through registers join in.
        RegisterSet Extra = FL.entryLiveIn();
        Extra.subtract(Allowed);
        Extra.subtract(CalleeSaved);
        if (Extra.empty())
          ++PreciseEntry;
        else
          Imprecise.push_back(llvm::sys::path::filename(Path).str() + ":" +
                              F.name().str() + " " + Extra.str());
      }
    }
  }
  std::printf("[lift oracle] %s: %zu code objects, %zu functions (%zu "
              "kernels, %zu of them call-free), %zu instrumentable, %zu blocks, "
              "%zu instructions, %zu call sites; entry liveness within the "
              "dispatch ABI plus undefined reads (callee-saved registers for "
              "kernels that call) in %zu of %zu kernels\n",
              target().c_str(), Paths.size(), Functions, Kernels, CallFree,
              Instrumentable, Blocks, Instructions, Calls, PreciseEntry,
              Kernels);
  for (const std::string &S : Imprecise)
    std::printf("[lift oracle]   entry liveness beyond that: %s\n", S.c_str());
  llvm::sort(Times, [](const Timing &A, const Timing &B) {
    return A.LiftMs + A.LivenessMs < B.LiftMs + B.LivenessMs;
  });
  const Timing &Median = Times[Times.size() / 2], &Worst = Times.back();
  std::printf("[lift oracle] %s: time per code object (lift + CFG, then "
              "liveness): median %.1f + %.1f ms (%s, %zu instructions), worst "
              "%.1f + %.1f ms (%s, %zu instructions)\n",
              target().c_str(), Median.LiftMs, Median.LivenessMs,
              Median.File.c_str(), Median.Instructions, Worst.LiftMs,
              Worst.LivenessMs, Worst.File.c_str(), Worst.Instructions);
}

} // namespace
