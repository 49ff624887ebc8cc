//===- probe - A tool that reports every callback the tool runtime makes --===//
//
// On stderr, one "probe: ..." line per callback, for ToolTest.cpp to check:
// options, the order and number of callbacks, and its global's round trip
// through writeGlobal/readGlobal. Options: instrument=1 asks for
// instrumented code (a hook at each kernel entry), else original code.
//
//===----------------------------------------------------------------------===//

#include "loom/instrument/Tool.h"

#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace loom::instrument;

namespace {

class Probe final : public Tool {
public:
  Error init(ToolContext &Ctx) override {
    Instrument = Ctx.option("instrument", "0") == "1";
    errs() << "probe: init greeting=" << Ctx.option("greeting", "none")
           << " shared=" << Ctx.option("shared", "none") << "\n";
    return Error::success();
  }

  void codeObjectLoaded(ToolContext &, hsa_executable_t,
                        const loom::codeobj::CodeObject &CO) override {
    ++CodeObjects;
  }
  void executableFrozen(ToolContext &, hsa_executable_t) override { ++Frozen; }

  DispatchChoice dispatch(ToolContext &Ctx, const Dispatch &D) override {
    errs() << "probe: dispatch " << D.Index << " " << D.Kernel << " grid "
           << D.Grid[0] << " workgroup " << D.WorkGroup[0] << "\n";
    if (D.Index == 0) {
      uint64_t In = 0x1234;
      Error E = Ctx.writeGlobal(D.Agent, "ProbeValue", &In, sizeof(In));
      Expected<uint64_t> Out = E ? Expected<uint64_t>(std::move(E))
                                 : Ctx.read<uint64_t>(D.Agent, "ProbeValue");
      if (Out)
        errs() << "probe: global round trip " << *Out << "\n";
      else
        errs() << "probe: global error " << toString(Out.takeError()) << "\n";
      Expected<uint64_t> Missing = Ctx.globalAddress(D.Agent, "NoSuchGlobal");
      errs() << "probe: missing global: "
             << (Missing ? "found?" : toString(Missing.takeError())) << "\n";
    }
    return Instrument ? DispatchChoice::instrumented()
                      : DispatchChoice::original();
  }

  Error instrument(ToolContext &, KernelInstrumentation &K) override {
    errs() << "probe: instrument " << K.kernel().name() << " ("
           << K.functions().size() << " functions)\n";
    return K.plan().atKernelEntry(K.kernel(), "probe_entry");
  }

  void dispatchComplete(ToolContext &, const Dispatch &D) override {
    ++Completed;
    errs() << "probe: complete " << D.Index << " instrumented "
           << D.Instrumented << "\n";
  }

  void fini(ToolContext &) override {
    errs() << "probe: fini code_objects " << CodeObjects << " frozen " << Frozen
           << " completed " << Completed << "\n";
  }

private:
  bool Instrument = false;
  unsigned CodeObjects = 0, Frozen = 0, Completed = 0;
};

} // namespace

LOOM_TOOL(Probe, "probe")
