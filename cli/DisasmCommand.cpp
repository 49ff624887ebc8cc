// PLACEHOLDER (to be replaced by the isa/ disassembler work): lets the CLI link.
#include "Commands.h"
namespace loom::cli {
llvm::cl::SubCommand DisasmCommand("disasm", "Disassemble kernels and device functions");
int runDisasm() { return 1; }
}
