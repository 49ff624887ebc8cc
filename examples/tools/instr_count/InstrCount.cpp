//===- example_instr_count - Counts the instructions each dispatch runs ---===//
//
// A hook before every instruction of the kernel and of the functions it
// calls adds 1 per wave, and EXEC's lanes for a vector instruction, to two
// device counters; after each instrumented dispatch the tool prints them
// (on stderr, so the program's own output is left alone) and zeroes them.
//
//   loom instrument --tool example_instr_count [--tool-arg dispatch=N] -- ./app
//
// dispatch=N instruments only the N-th dispatch of the process (from 0).
//
//===----------------------------------------------------------------------===//

#include "loom/instrument/Tool.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace loom::instrument;

namespace {

class InstrCount final : public Tool {
public:
  Error init(ToolContext &Ctx) override {
    if (auto N = Ctx.option("dispatch")) {
      uint64_t Index;
      if (!to_integer(*N, Index))
        return createStringError(inconvertibleErrorCode(),
                                 "dispatch=%s: not a number", N->c_str());
      Only = Index;
    }
    return Error::success();
  }

  DispatchChoice dispatch(ToolContext &, const Dispatch &D) override {
    if (Only && D.Index != *Only)
      return DispatchChoice::original();
    return DispatchChoice::instrumented();
  }

  Error instrument(ToolContext &, KernelInstrumentation &K) override {
    for (BinaryFunction *F : K.functions())
      for (const BinaryBasicBlock &B : F->blocks())
        for (const BinaryInstruction &I : B.Instructions)
          if (Error E = K.plan().before(
                  *F, I, "instr_count",
                  {HookArg::exec(), HookArg::constant(I.Props.IsVector)}))
            return E;
    return Error::success();
  }

  void dispatchComplete(ToolContext &Ctx, const Dispatch &D) override {
    if (!D.Instrumented)
      return;
    uint64_t Counts[2] = {};
    const char *Names[2] = {"WaveInstructions", "LaneInstructions"};
    for (int I = 0; I < 2; ++I) {
      // Read, then zeroed for the next dispatch: the tool runtime holds the
      // queue until dispatchComplete returns.
      Error E = Ctx.readGlobal(D.Agent, Names[I], &Counts[I], 8);
      if (!E)
        E = Ctx.writeGlobal(D.Agent, Names[I], &Zero, 8);
      if (E) {
        errs() << "example_instr_count: " << toString(std::move(E)) << "\n";
        return;
      }
    }
    errs() << "example_instr_count: dispatch " << D.Index << " " << D.Kernel << ": "
           << Counts[0] << " wave-instructions, " << Counts[1]
           << " lane-instructions\n";
  }

private:
  std::optional<uint64_t> Only;
  static constexpr uint64_t Zero = 0;
};

} // namespace

LOOM_TOOL(InstrCount, "example_instr_count")
