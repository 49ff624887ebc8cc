//===- tool/Hsa.h - The HSA API as it was before the tool runtime ---------===//
//
// The tool runtime wraps entries of the live API table. The exported hsa_*
// functions of both runtimes (Loom's, ROCr's) call through that table, so
// the runtime's own calls go through the functions saved here, never the
// exports, or they would come back through its wrappers.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TOOL_HSA_H
#define LOOM_TOOL_HSA_H

#include "llvm/ADT/FunctionExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <hsa/hsa.h>
#include <hsa/hsa_api_trace.h>
#include <hsa/hsa_ext_amd.h>
#include <hsa/hsa_ven_amd_loader.h>

#include <string>

namespace loom::tool {

struct HsaApi {
  CoreApiTable Core{};
  AmdExtTable Amd{};
  /// hsa_ven_amd_loader 1.01 (loaded code objects); null entries if absent.
  hsa_ven_amd_loader_1_01_pfn_t Loader{};
};

/// The saved functions; filled once, by the first OnLoad.
HsaApi &hsa();
/// Copies the table's current entries into hsa().
void saveApi(const HsaApiTable &Table);

/// Success, or an error naming the call: "hsa_executable_freeze failed:
/// HSA_STATUS_ERROR_...: <runtime's text>".
llvm::Error check(hsa_status_t Status, llvm::StringRef Call);

/// The agent's ISA name ("amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-").
llvm::Expected<std::string> isaName(hsa_agent_t Agent);

/// Each symbol of \p Exec on \p Agent, with its name and kind.
llvm::Error forEachSymbol(
    hsa_executable_t Exec, hsa_agent_t Agent,
    llvm::function_ref<llvm::Error(
        hsa_executable_symbol_t, llvm::StringRef Name, hsa_symbol_kind_t Kind)>
        Fn);

/// Loads a code object into a new executable for \p Agent, frozen.
llvm::Expected<hsa_executable_t> loadExecutable(hsa_agent_t Agent,
                                                llvm::ArrayRef<char> Elf);

} // namespace loom::tool

#endif // LOOM_TOOL_HSA_H
