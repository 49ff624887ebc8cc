//===- tools/bb_count - Basic block execution counts and coverage ---------===//
//
// Per kernel, over the dispatches it was instrumented in: how many waves
// entered each basic block of the kernel and of the functions it calls
// (named as `loom exec --counters` names them: "function+0xoffset"), and
// the share of its blocks entered at least once (docs/tools.md). A hook at
// every block's entry counts the waves reaching it.
//
//   loom instrument --tool bb_count [--tool-arg kernel=REGEX]
//       [--tool-arg dispatch=N[-M]] [--tool-arg output=FILE]
//       [--tool-arg disasm=FILE] -- ./app
//
// stderr: a coverage line per kernel and a summary at the end; output=FILE:
// a JSON document with every block's count; disasm=FILE: each kernel and
// the functions it entered, listed as `loom disasm` lists them, with each
// block's count beside its label.
//
//===----------------------------------------------------------------------===//

#include "Counting.h"
#include "ToolOptions.h"

#include "loom/codeobj/CodeObject.h"
#include "loom/isa/Listing.h"
#include "loom/isa/McContext.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace llvm;
using namespace loom;
using namespace loom::instrument;
using namespace loom::tools;

namespace {

class BbCount final : public CountingTool {
public:
  BbCount() : CountingTool("bb_count", CountMode::BlockEntry, false) {}

  Error init(ToolContext &Ctx) override {
    if (Error E = CountingTool::init(Ctx))
      return E;
    DisasmPath = Ctx.option("disasm").value_or("");
    return Error::success();
  }

  void codeObjectLoaded(ToolContext &, hsa_executable_t Exec,
                        const codeobj::CodeObject &CO) override {
    if (DisasmPath.empty())
      return;
    // A copy for the listing at exit (the runtime's goes with its
    // executable). A kernel of one name in several code objects is listed
    // from each that ran it, with its own counts.
    Expected<std::unique_ptr<codeobj::CodeObject>> Copy =
        codeobj::CodeObject::create(CO.bytes(), CO.name());
    if (!Copy) {
      errs() << "bb_count: " << toString(Copy.takeError()) << "\n";
      return;
    }
    std::shared_ptr<const codeobj::CodeObject> Kept = std::move(*Copy);
    std::lock_guard<std::mutex> G(VersionsLock); // loads race completions
    for (const codeobj::Kernel &K : Kept->kernels()) {
      VersionOf[{Exec.handle, K.name().str()}] = Versions.size();
      Versions.push_back({K.name().str(), CO.name().str(), Kept, {}, 0});
    }
  }

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
    if (!DisasmPath.empty())
      writeListing();
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
    std::lock_guard<std::mutex> G(VersionsLock);
    auto V = VersionOf.find({D.Executable.handle, D.Kernel});
    if (V == VersionOf.end())
      return;
    Version &Ran = Versions[V->second];
    Ran.Uri = D.CodeObject; // the loader's name for it
    ++Ran.Dispatches;
    for (const auto &[Name, N] : C.Blocks)
      Ran.Blocks[Name] += N;
  }

  /// disasm=FILE: every kernel counted, from each code object that ran
  /// it, and each function with a block in its counts, a block's count
  /// ("N entries", "never entered") in its label's comment.
  void writeListing() {
    std::string Text;
    raw_string_ostream OS(Text);
    for (const std::string &Name : Order)
      for (const Version &V : Versions)
        if (V.Kernel == Name && V.Dispatches)
          listVersion(OS, V);
    std::error_code EC;
    raw_fd_ostream F(DisasmPath, EC);
    if (EC) {
      errs() << ", disasm=" << DisasmPath << ": " << EC.message();
      return;
    }
    F << Text;
    errs() << ", listing in " << DisasmPath;
  }

  /// A kernel of one code object, as counted in it.
  struct Version {
    std::string Kernel, Uri;
    std::shared_ptr<const codeobj::CodeObject> Code;
    std::map<std::string, uint64_t> Blocks;
    uint64_t Dispatches = 0;
  };

  static void listVersion(raw_ostream &OS, const Version &V) {
    const codeobj::CodeObject &CO = *V.Code;
    OS << "; kernel " << V.Kernel << ", code object " << V.Uri << ", "
       << V.Dispatches << (V.Dispatches == 1 ? " dispatch\n" : " dispatches\n");
    Expected<std::unique_ptr<isa::McContext>> MC =
        isa::McContext::create(CO.target());
    if (!MC) {
      OS << "; " << toString(MC.takeError()) << "\n\n";
      return;
    }
    isa::Disassembler D(**MC, CO);
    // The kernel first, then its callees by name.
    std::vector<std::string> Functions{V.Kernel};
    for (const auto &[Block, N] : V.Blocks) {
      StringRef Fn = StringRef(Block).rsplit('+').first;
      if (!is_contained(Functions, Fn))
        Functions.push_back(Fn.str());
    }
    for (const std::string &Fn : Functions) {
      Expected<isa::DisassembledFunction> F = D.disassemble(Fn);
      if (!F) {
        OS << "; " << Fn << ": " << toString(F.takeError()) << "\n\n";
        continue;
      }
      isa::ListingExtras X;
      X.BlockNote = [&](size_t B) -> std::string {
        auto C = V.Blocks.find(blockName(Fn, F->Blocks[B].Address - F->Address));
        if (C == V.Blocks.end())
          return "not counted";
        if (C->second == 0)
          return "never entered";
        return std::to_string(C->second) +
               (C->second == 1 ? " entry" : " entries");
      };
      isa::printListing(OS, *F, D, CO, X);
      OS << "\n";
    }
  }

  struct Coverage {
    uint64_t Dispatches = 0;
    std::map<std::string, uint64_t> Blocks;
  };
  std::map<std::string, Coverage> Kernels;
  std::vector<std::string> Order;
  std::string DisasmPath;
  /// disasm=: each kernel of each code object loaded, in load order, and
  /// the one an executable's kernel of a name is now.
  std::vector<Version> Versions;
  std::map<std::pair<uint64_t, std::string>, size_t> VersionOf;
  std::mutex VersionsLock;
};

} // namespace

LOOM_TOOL(BbCount, "bb_count")
