//===- cli/Inspect.h - `loom inspect` renderings ---------------------------===//
#ifndef LOOM_CLI_INSPECT_H
#define LOOM_CLI_INSPECT_H

#include "loom/codeobj/Input.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace loom::cli {

/// Version of the `loom inspect --json` schema (docs/inspect-json.md).
inline constexpr const char *InspectJsonSchema = "loom-inspect/1";

llvm::json::Value inspectJson(const codeobj::Input &In);
void printInspectTables(const codeobj::Input &In, llvm::raw_ostream &OS);

} // namespace loom::cli

#endif // LOOM_CLI_INSPECT_H
