//===- clobber - Transparency: a register-clobbering hook everywhere ------===//
//
// A hook that overwrites every register a hook may, before and after every
// instruction (after where something runs after it), at every block entry,
// at kernel entry and at every exit. The program's results must not
// change; on stderr, per dispatch, how often each kind of point ran.
//
//===----------------------------------------------------------------------===//

#include "loom/instrument/Tool.h"

#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace loom::instrument;

namespace {

enum ClobberPoint : uint32_t { Before, After, Block, Entry, Exit };

class Clobber final : public Tool {
public:
  Error instrument(ToolContext &, KernelInstrumentation &K) override {
    InstrumentationPlan &P = K.plan();
    auto Hook = [](uint32_t Which) {
      return std::vector<HookArg>{HookArg::constant(Which)};
    };
    for (BinaryFunction *F : K.functions())
      for (const BinaryBasicBlock &B : F->blocks()) {
        if (Error E = P.atBlockEntry(*F, B, "clobber_hook", Hook(Block)))
          return E;
        for (const BinaryInstruction &I : B.Instructions) {
          if (Error E = P.before(*F, I, "clobber_hook", Hook(Before)))
            return E;
          // Refused after branches, returns and s_endpgm: nothing runs
          // there.
          consumeError(P.after(*F, I, "clobber_hook", Hook(After)));
        }
      }
    if (Error E = P.atKernelEntry(K.kernel(), "clobber_hook", Hook(Entry)))
      return E;
    return P.atKernelExit(K.kernel(), "clobber_hook", Hook(Exit));
  }

  void dispatchComplete(ToolContext &Ctx, const Dispatch &D) override {
    if (!D.Instrumented)
      return;
    uint64_t Counts[5] = {};
    if (Error E = Ctx.readGlobal(D.Agent, "ClobberCounts", Counts,
                                 sizeof(Counts))) {
      errs() << "clobber: " << toString(std::move(E)) << "\n";
      return;
    }
    uint64_t Zero[5] = {};
    consumeError(Ctx.writeGlobal(D.Agent, "ClobberCounts", Zero, sizeof(Zero)));
    errs() << "clobber: dispatch " << D.Index << " " << D.Kernel << ": before "
           << Counts[Before] << " after " << Counts[After] << " blocks "
           << Counts[Block] << " entries " << Counts[Entry] << " exits "
           << Counts[Exit] << "\n";
  }
};

} // namespace

LOOM_TOOL(Clobber, "clobber")
