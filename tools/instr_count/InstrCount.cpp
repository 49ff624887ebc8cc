//===- tools/instr_count - Instructions each dispatch runs ----------------===//
//
// Per dispatch: wave-instructions (once per wave) and lane-instructions
// (vector instructions times active lanes), in all and per opcode, as the
// virtual GPU counts them (`loom exec --counters`; docs/tools.md).
//
//   loom instrument --tool instr_count [--tool-arg mode=instruction|block]
//       [--tool-arg kernel=REGEX] [--tool-arg dispatch=N[-M]]
//       [--tool-arg output=FILE] -- ./app
//
// mode=instruction (the default) puts a hook before every instruction;
// mode=block one per block and after each EXEC write in it (Counting.h).
// stderr: a line per dispatch, and one at the end; output=FILE: a JSON
// line per dispatch with the counts per opcode.
//
//===----------------------------------------------------------------------===//

#include "Counting.h"
#include "ToolOptions.h"

#include "loom/instrument/Tool.h"

#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace loom::instrument;
using namespace loom::tools;

namespace {

class InstrCount final : public CountingTool {
public:
  InstrCount() : CountingTool("instr_count", CountMode::Instruction, true) {}

  Error init(ToolContext &Ctx) override {
    if (Error E = CountingTool::init(Ctx))
      return E;
    Out = Options.openOutput();
    return Error::success();
  }

  void fini(ToolContext &) override {
    errs() << "instr_count: " << Dispatches << " dispatches counted ("
           << modeName(Mode) << " mode): " << Waves << " wave-instructions, "
           << Lanes << " lane-instructions in all\n";
  }

private:
  void counted(const Dispatch &D, const DispatchCounts &C) override {
    ++Dispatches;
    Waves += C.WaveInstructions;
    Lanes += C.LaneInstructions;
    errs() << "instr_count: dispatch " << D.Index << " " << D.Kernel << ": "
           << C.WaveInstructions << " wave-instructions, "
           << C.LaneInstructions << " lane-instructions\n";
    if (Out) {
      *Out << "{\"dispatch\":" << D.Index << ",\"kernel\":\"" << D.Kernel
           << "\",\"mode\":\"" << modeName(Mode) << "\",\"wave_instructions\":"
           << C.WaveInstructions
           << ",\"lane_instructions\":" << C.LaneInstructions
           << ",\"opcodes\":";
      writeOpcodesJson(*Out, C.Opcodes);
      *Out << "}\n";
      Out->flush();
    }
  }

  std::unique_ptr<raw_fd_ostream> Out;
  uint64_t Dispatches = 0, Waves = 0, Lanes = 0;
};

} // namespace

LOOM_TOOL(InstrCount, "instr_count")
