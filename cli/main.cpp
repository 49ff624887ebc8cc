//===- cli/main.cpp - The loom command -------------------------------------===//
//
// Every command, parsed by llvm::cl: libloom-cli.so's entry, which the
// `loom` launcher (Launcher.cpp) loads for all but well-formed `loom exec`.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "loom/codeobj/ErrorText.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace loom::cli {

cl::OptionCategory LoomCategory("loom options");

int reportError(StringRef Command, Error E) {
  // Names from a file (and the file's own name) may hold any byte: one
  // line, control characters escaped, and valid text for the terminal.
  std::string Msg = codeobj::oneLine(toString(std::move(E)));
  const UTF8 *Start = reinterpret_cast<const UTF8 *>(Msg.data());
  if (!isLegalUTF8String(&Start, Start + Msg.size())) {
    std::string Safe;
    for (unsigned char C : Msg)
      Safe += C < 0x80 ? std::string(1, char(C))
                       : "\\x" + utohexstr(C, /*LowerCase=*/true, 2);
    Msg = std::move(Safe);
  }
  errs() << "loom " << Command << ": " << Msg << "\n";
  return 1;
}

} // namespace loom::cli

extern "C" __attribute__((visibility("default"))) int
loom_cli_main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  if (argc >= 2 && StringRef(argv[1]) == "cc")
    return loom::cli::runCc(std::vector<std::string>(argv + 2, argv + argc));
  // libLLVM registers hundreds of its own options; show only Loom's.
  cl::HideUnrelatedOptions(loom::cli::LoomCategory);
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "Loom: inspect, disassemble, run and instrument AMD GPU code "
          "objects\n\n"
          "  loom inspect FILE [--json]   what a code object or HIP binary "
          "holds\n"
          "  loom disasm FILE [--kernel NAME | --function NAME]\n"
          "  loom coverage FILE...        operations used vs. emulated\n"
          "  loom info                    the virtual GPUs and their pools\n"
          "  loom exec -- APP ARGS...     run APP on Loom's HSA runtime\n"
          "  loom instrument --tool T -- APP ARGS...\n"
          "                               run APP with instrumentation tool T\n"
          "  loom trace show FILE         a mem_trace trace [--csv|--json|"
          "--summary]\n"
          "  loom run [options] PROG ARGS run a GPU program's main, with "
          "host services\n"
          "  loom cc FILES... -o PROG     build a GPU program for loom run\n"
          "\nRun 'loom <command> --help' for a command's options.\n",
          &errs()))
    return 1;
  if (loom::cli::InspectCommand)
    return loom::cli::runInspect();
  if (loom::cli::DisasmCommand)
    return loom::cli::runDisasm();
  if (loom::cli::CoverageCommand)
    return loom::cli::runCoverage();
  if (loom::cli::InfoCommand)
    return loom::cli::runInfo();
  if (loom::cli::ExecCommand)
    return loom::cli::runExec();
  if (loom::cli::InstrumentCommand)
    return loom::cli::runInstrument();
  if (loom::cli::RunCommand)
    return loom::cli::runRun();
  if (loom::cli::TraceCommand)
    return loom::cli::runTrace();
  errs() << "loom: no command given; run 'loom --help'\n";
  return 1;
}
