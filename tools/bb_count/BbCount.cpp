//===- tools/bb_count - Basic block execution counts and coverage ---------===//
//
// Per kernel, over the dispatches it was instrumented in: how many waves
// entered each basic block of the kernel and of the functions it calls
// (named as `loom exec --counters` names them: "function+0xoffset"), and
// the share of its blocks entered at least once (docs/tools.md). A hook at
// every block's entry counts the waves reaching it.
//
//   loom instrument --tool bb_count [--tool-arg kernel=REGEX]
//       [--tool-arg dispatch=N[-M]] [--tool-arg output=FILE] -- ./app
//
// stderr: a coverage line per kernel and a summary at the end; output=FILE:
// a JSON document with every block's count.
//
//===----------------------------------------------------------------------===//

#include "Counting.h"
#include "ToolOptions.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace loom::instrument;
using namespace loom::tools;

namespace {

class BbCount final : public CountingTool {
public:
  BbCount() : CountingTool("bb_count", CountMode::BlockEntry, false) {}

  void fini(ToolContext &) override {
    json::Array Out;
    uint64_t AllBlocks = 0, AllEntered = 0;
    for (const std::string &Name : Order) {
      const Coverage &K = Kernels[Name];
      uint64_t Entered = 0, Entries = 0;
      json::Object Blocks;
      for (const auto &[Block, N] : K.Blocks) {
        Entered += N != 0;
        Entries += N;
        Blocks[Block] = N;
      }
      AllBlocks += K.Blocks.size();
      AllEntered += Entered;
      double Percent = K.Blocks.empty() ? 0 : 100.0 * Entered / K.Blocks.size();
      errs() << "bb_count: " << Name << ": " << Entered << " of "
             << K.Blocks.size() << " blocks entered ("
             << format("%.1f", Percent) << "%), " << Entries
             << " block entries in " << K.Dispatches
             << (K.Dispatches == 1 ? " dispatch\n" : " dispatches\n");
      Out.push_back(json::Object{{"kernel", Name},
                                 {"dispatches", K.Dispatches},
                                 {"blocks_total", K.Blocks.size()},
                                 {"blocks_entered", Entered},
                                 {"coverage", Percent / 100},
                                 {"block_entries", Entries},
                                 {"blocks", std::move(Blocks)}});
    }
    errs() << "bb_count: " << Order.size() << " kernels, " << AllEntered
           << " of " << AllBlocks << " blocks entered";
    if (std::unique_ptr<raw_fd_ostream> F = Options.openOutput()) {
      *F << formatv("{0:2}", json::Value(json::Object{{"kernels", std::move(Out)}}))
         << "\n";
      errs() << ", JSON in " << Options.output();
    }
    errs() << "\n";
  }

private:
  void counted(const Dispatch &D, const DispatchCounts &C) override {
    auto [It, New] = Kernels.try_emplace(D.Kernel);
    if (New)
      Order.push_back(D.Kernel);
    ++It->second.Dispatches;
    for (const auto &[Name, N] : C.Blocks)
      It->second.Blocks[Name] += N;
  }

  struct Coverage {
    uint64_t Dispatches = 0;
    std::map<std::string, uint64_t> Blocks;
  };
  std::map<std::string, Coverage> Kernels;
  std::vector<std::string> Order;
};

} // namespace

LOOM_TOOL(BbCount, "bb_count")
