//===- bench/InstrumentBench.cpp - Instrumentation time per kernel --------===//
//
//   build/bin/instrument_bench [CODE_OBJECT...]
//
// Every kernel of the differential corpus's gfx90a code objects (-O0..-O3;
// or of the code objects named) instrumented as a counting tool would ask:
// a hook before every instruction of the kernel and of the functions it
// calls, with its index and EXEC as arguments. Per kernel, the time of
// instrumentCodeObject (code generation, MC, lld, given the lifted code
// object), against the baseline of lifting the code object (BinaryContext
// and CFGs) measured in the same run. The first kernel also pays for
// compiling the hook (the compiled shape is kept for the process): that
// cold time is shown apart.
//
//===----------------------------------------------------------------------===//

#include "loom/codeobj/CodeObject.h"
#include "loom/instrument/BinaryContext.h"
#include "loom/instrument/Instrumenter.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <string>
#include <vector>

using namespace llvm;
using namespace loom;
using namespace loom::instrument;
using Clock = std::chrono::steady_clock;

namespace {

double ms(Clock::time_point A, Clock::time_point B) {
  return std::chrono::duration<double, std::milli>(B - A).count();
}

struct Sample {
  std::string Kernel;
  size_t Instructions = 0;
  double Ms = 0;
};

int fail(const Twine &Msg) {
  errs() << "instrument_bench: " << Msg << "\n";
  return 1;
}

} // namespace

int main(int Argc, char **Argv) {
  std::vector<std::string> Files;
  for (int I = 1; I < Argc; ++I)
    Files.push_back(Argv[I]);
  if (Files.empty())
    for (const char *Name : {"amdgcn_builtins", "atomics", "control", "convert",
                             "counters", "crosslane", "dispatch", "faults",
                             "float_ops", "int_ops", "mfma",
                             "lds", "memory", "wave"})
      for (int O = 0; O <= 3; ++O) {
        std::string F = std::string(LOOM_DIFF_DIR) + "/" + Name + ".O" +
                        std::to_string(O) + ".elf";
        if (sys::fs::exists(F))
          Files.push_back(F);
      }

  auto Bitcode = MemoryBuffer::getFile(LOOM_TEST_HOOKS_BC);
  if (!Bitcode)
    return fail(Twine(LOOM_TEST_HOOKS_BC) + ": " + Bitcode.getError().message());
  // The globals' addresses only become constants in the code: any will do.
  HookLibrary Hooks;
  Hooks.Name = "bench";
  Hooks.Bitcode = (*Bitcode)->getBuffer();
  {
    auto Elf = compileHookGlobals(Hooks.Bitcode, "bench", "gfx90a");
    if (!Elf)
      return fail(toString(Elf.takeError()));
    auto CO = codeobj::CodeObject::create(
        ArrayRef(reinterpret_cast<const uint8_t *>(Elf->data()), Elf->size()),
        "hooks");
    if (!CO)
      return fail(toString(CO.takeError()));
    for (const codeobj::Variable &V : (*CO)->variables())
      Hooks.GlobalAddresses[V.name()] = 0x7f0000000000 + V.Sym.Address;
  }

  std::vector<Sample> Samples;
  std::vector<double> LiftMs;
  double ColdMs = -1;
  unsigned Left = 0;
  std::map<std::string, unsigned> Why; // left out, by reason
  // Wait states padded for the hardware's hazards at seams (WaitStates.h),
  // over the kernels instrumented and their instructions.
  uint64_t Nops = 0, NopWaitStates = 0, HookedInstructions = 0;
  for (const std::string &File : Files) {
    auto Buf = MemoryBuffer::getFile(File);
    if (!Buf)
      return fail(File + ": " + Buf.getError().message());
    auto CO = codeobj::CodeObject::create(
        ArrayRef(reinterpret_cast<const uint8_t *>((*Buf)->getBufferStart()),
                 (*Buf)->getBufferSize()),
        File);
    if (!CO)
      return fail(toString(CO.takeError()));
    auto T0 = Clock::now();
    auto BC = BinaryContext::create(**CO);
    if (!BC)
      return fail(toString(BC.takeError()));
    if (Error E = (*BC)->buildCFGs())
      return fail(toString(std::move(E)));
    LiftMs.push_back(ms(T0, Clock::now()));

    for (const codeobj::Kernel &K : (*CO)->kernels()) {
      BinaryFunction *F = (*BC)->function(K.name());
      if (!F)
        continue;
      InstrumentationPlan Plan(**BC);
      Plan.addKernel(K.name());
      unsigned Index = 0;
      for (const BinaryFunction *G : (*BC)->callGraph().reachableFrom(*F))
        for (const BinaryBasicBlock &B : G->blocks())
          for (const BinaryInstruction &I : B.Instructions)
            if (Error E = Plan.before(*G, I, "count",
                                      {HookArg::constant(Index++),
                                       HookArg::exec()}))
              return fail(toString(std::move(E)));
      auto T1 = Clock::now();
      auto R = instrumentCodeObject(Plan, {Hooks}, {});
      double Ms = ms(T1, Clock::now());
      if (!R)
        return fail(File + ": " + K.name() + ": " + toString(R.takeError()));
      if (!R->kernel(K.name())) {
        ++Left;
        if (getenv("LOOM_BENCH_VERBOSE"))
          for (const std::string &W : R->Warnings)
            errs() << File << ": " << W << "\n";
        for (const std::string &W : R->Warnings) {
          // "kernel K runs uninstrumented: F: reason (details)"
          if (!StringRef(W).starts_with(("kernel " + K.name() + " ").str()))
            continue;
          StringRef Reason = StringRef(W).split(": ").second;
          if (Reason.contains(": "))
            Reason = Reason.split(": ").second;
          ++Why[Reason.split(" (").first.str()];
        }
        continue;
      }
      Nops += R->HazardNops;
      NopWaitStates += R->HazardWaitStates;
      HookedInstructions += Index;
      if (ColdMs < 0) {
        ColdMs = Ms; // compiled the hook
        continue;
      }
      Samples.push_back({sys::path::filename(File).str() + ":" + K.name().str(),
                         Index, Ms});
    }
  }
  if (Samples.empty())
    return fail("no kernel instrumented");

  auto ByMs = Samples;
  llvm::sort(ByMs, [](auto &A, auto &B) { return A.Ms < B.Ms; });
  std::vector<double> Small;
  for (const Sample &S : Samples)
    if (S.Instructions < 2000)
      Small.push_back(S.Ms);
  llvm::sort(Small);
  llvm::sort(LiftMs);
  double Lift = LiftMs[LiftMs.size() / 2];
  const Sample &Median = ByMs[ByMs.size() / 2], &Worst = ByMs.back();
  outs() << format("kernels instrumented: %zu (+1 cold, %u left out)\n",
                   Samples.size(), Left)
         << format("cold (first kernel, compiles the hook): %.1f ms\n", ColdMs)
         << format("median: %.1f ms (%zu instructions)\n", Median.Ms,
                   Median.Instructions)
         << format("median under 2,000 instructions: %.1f ms (%zu kernels)\n",
                   Small[Small.size() / 2], Small.size())
         << format("worst: %.1f ms (%zu instructions, %s)\n", Worst.Ms,
                   Worst.Instructions, Worst.Kernel.c_str())
         << format("baseline, lifting a code object (median of %zu): %.1f ms; "
                   "median kernel / baseline: %.2fx\n",
                   LiftMs.size(), Lift, Median.Ms / Lift);
  outs() << format("hazard padding: %llu s_nop (%llu wait states) for %llu "
                   "hooked instructions\n",
                   (unsigned long long)Nops, (unsigned long long)NopWaitStates,
                   (unsigned long long)HookedInstructions);
  for (auto &[Reason, N] : Why)
    outs() << format("left out: %u x %s\n", N, Reason.c_str());
  return 0;
}
