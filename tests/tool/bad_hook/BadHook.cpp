//===- bad_hook - A tool whose hooks cannot be compiled -------------------===//
//
// Every dispatch asks for instrumented code with bad_hook at kernel entry;
// the hooks do not link, so each kernel must run its original code, with
// one message naming the tool and the kernel.
//
//===----------------------------------------------------------------------===//

#include "loom/instrument/Tool.h"

using namespace llvm;
using namespace loom::instrument;

namespace {
class BadHook final : public Tool {
  Error instrument(ToolContext &, KernelInstrumentation &K) override {
    return K.plan().atKernelEntry(K.kernel(), "bad_hook");
  }
};
} // namespace

LOOM_TOOL(BadHook, "bad_hook")
