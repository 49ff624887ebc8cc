//===- cli/CoverageCommand.cpp - `loom coverage FILE...` -------------------===//

#include "Commands.h"

#include "loom/codeobj/Input.h"
#include "loom/emu/Coverage.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <map>

using namespace llvm;

namespace loom::cli {

cl::SubCommand CoverageCommand(
    "coverage", "Which operations the code objects in FILEs use, and which "
                "of them Loom's virtual GPU implements");

static cl::list<std::string> CoverageFiles(cl::Positional, cl::OneOrMore,
                                           cl::desc("FILE..."),
                                           cl::sub(CoverageCommand),
                                           cl::cat(LoomCategory));
static cl::opt<bool> CoverageJson("json", cl::desc("Print JSON"),
                                  cl::sub(CoverageCommand),
                                  cl::cat(LoomCategory));
static cl::opt<bool> CoverageMissingOnly(
    "missing", cl::desc("List only operations Loom does not implement"),
    cl::sub(CoverageCommand), cl::cat(LoomCategory));

int runCoverage() {
  std::map<std::string, uint64_t> Uses;
  // The target is the first code object's; errors about it name that one.
  std::string Processor, ProcessorFrom;
  for (const std::string &File : CoverageFiles) {
    Expected<codeobj::Input> In = codeobj::readInputFile(File);
    if (!In)
      return reportError("coverage", In.takeError());
    for (const codeobj::EmbeddedCodeObject &E : In->CodeObjects) {
      if (Processor.empty()) {
        Processor = E.Object->target().Processor;
        ProcessorFrom = E.Object->name().str();
      }
      auto Used = emu::operationsUsedBy(*E.Object);
      if (!Used)
        return reportError("coverage", codeobj::withPath(E.Object->name(),
                                                         Used.takeError()));
      for (const auto &[Op, N] : *Used)
        Uses[Op] += N;
    }
  }
  if (Processor.empty())
    Processor = "gfx90a";
  auto All = emu::targetOperations(Processor);
  if (!All)
    return reportError("coverage",
                       ProcessorFrom.empty()
                           ? All.takeError()
                           : codeobj::withPath(ProcessorFrom, All.takeError()));
  size_t ImplementedTotal = 0;
  for (const std::string &Op : *All)
    ImplementedTotal += emu::isImplemented(Op);
  size_t UsedImplemented = 0;
  for (const auto &[Op, N] : Uses)
    UsedImplemented += emu::isImplemented(Op);

  if (CoverageJson) {
    json::Array Ops;
    for (const auto &[Op, N] : Uses)
      if (!CoverageMissingOnly || !emu::isImplemented(Op))
        Ops.push_back(json::Object{{"operation", Op},
                                   {"uses", N},
                                   {"implemented", emu::isImplemented(Op)}});
    json::Value V = json::Object{
        {"processor", Processor},
        {"used", Uses.size()},
        {"used_implemented", UsedImplemented},
        {"target_operations", All->size()},
        {"target_implemented", ImplementedTotal},
        {"operations", std::move(Ops)}};
    outs() << formatv("{0:2}", V) << "\n";
    return UsedImplemented == Uses.size() ? 0 : 2;
  }
  for (const auto &[Op, N] : Uses) {
    bool Impl = emu::isImplemented(Op);
    if (CoverageMissingOnly && Impl)
      continue;
    outs() << formatv("  {0,-8} {1,8}  {2}\n", Impl ? "yes" : "MISSING", N, Op);
  }
  outs() << formatv("{0}: {1} of {2} operations used by these code objects "
                    "are implemented; {3} of {4} {0} operations overall\n",
                    Processor, UsedImplemented, Uses.size(), ImplementedTotal,
                    All->size());
  // Exit code 2 tells scripts that something used is missing.
  return UsedImplemented == Uses.size() ? 0 : 2;
}

} // namespace loom::cli
