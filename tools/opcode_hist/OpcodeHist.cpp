//===- tools/opcode_hist - Executed opcodes per kernel --------------------===//
//
// Per kernel, over the dispatches it was instrumented in: how many times
// each opcode ran, per wave and per active lane (vector instructions), as
// `loom exec --counters` names and counts them (docs/tools.md). At the
// end: a table per kernel on stderr, most executed first, and with
// output=FILE the same as CSV (kernel,opcode,waves,lanes).
//
//   loom instrument --tool opcode_hist [--tool-arg mode=block|instruction]
//       [--tool-arg kernel=REGEX] [--tool-arg dispatch=N[-M]]
//       [--tool-arg output=FILE] -- ./app
//
// mode=block (the default here) counts with a hook per block and after
// each EXEC write (Counting.h); mode=instruction before every instruction.
//
//===----------------------------------------------------------------------===//

#include "Counting.h"
#include "ToolOptions.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace llvm;
using namespace loom::instrument;
using namespace loom::tools;

namespace {

class OpcodeHist final : public CountingTool {
public:
  OpcodeHist() : CountingTool("opcode_hist", CountMode::Block, true) {}

  void fini(ToolContext &) override {
    std::unique_ptr<raw_fd_ostream> Csv = Options.openOutput();
    if (Csv)
      *Csv << "kernel,opcode,waves,lanes\n";
    uint64_t Dispatches = 0;
    for (const std::string &Name : Order) {
      const Histogram &H = Kernels[Name];
      Dispatches += H.Dispatches;
      std::vector<std::pair<std::string, WavesLanes>> Rows(H.Opcodes.begin(),
                                                           H.Opcodes.end());
      std::sort(Rows.begin(), Rows.end(), [](auto &A, auto &B) {
        return A.second.first != B.second.first
                   ? A.second.first > B.second.first
                   : A.first < B.first;
      });
      uint64_t Waves = 0, Lanes = 0;
      for (auto &[Op, N] : Rows) {
        Waves += N.first;
        Lanes += N.second;
      }
      errs() << "opcode_hist: " << Name << " (" << H.Dispatches
             << (H.Dispatches == 1 ? " dispatch)\n" : " dispatches)\n");
      errs() << format("opcode_hist:   %-28s %12s %6s %14s\n", "opcode",
                       "waves", "%", "lanes");
      for (auto &[Op, N] : Rows) {
        errs() << format("opcode_hist:   %-28s %12llu %6.2f %14llu\n",
                         Op.c_str(), (unsigned long long)N.first,
                         Waves ? 100.0 * N.first / Waves : 0.0,
                         (unsigned long long)N.second);
        if (Csv)
          *Csv << Name << "," << Op << "," << N.first << "," << N.second
               << "\n";
      }
      errs() << format("opcode_hist:   %-28s %12llu %6.2f %14llu\n", "total",
                       (unsigned long long)Waves, 100.0,
                       (unsigned long long)Lanes);
    }
    errs() << "opcode_hist: " << Order.size() << " kernels, " << Dispatches
           << " dispatches counted (" << modeName(Mode) << " mode)";
    if (Csv)
      errs() << ", CSV in " << Options.output();
    errs() << "\n";
  }

private:
  void counted(const Dispatch &D, const DispatchCounts &C) override {
    auto [It, New] = Kernels.try_emplace(D.Kernel);
    if (New)
      Order.push_back(D.Kernel);
    ++It->second.Dispatches;
    for (const auto &[Name, N] : C.Opcodes) {
      It->second.Opcodes[Name].first += N.first;
      It->second.Opcodes[Name].second += N.second;
    }
  }

  struct Histogram {
    uint64_t Dispatches = 0;
    std::map<std::string, WavesLanes> Opcodes;
  };
  std::map<std::string, Histogram> Kernels;
  std::vector<std::string> Order; ///< kernels, as first counted
};

} // namespace

LOOM_TOOL(OpcodeHist, "opcode_hist")
