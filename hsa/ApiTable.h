//===- hsa/ApiTable.h - The HSA API table every export goes through -------===//
//
// Every exported hsa_* function calls through the HsaApiTable laid out as
// Debian's hsa_api_trace.h; its entries default to the implementations in
// namespace loom::hsa::impl (hsa/*.cpp, with weak "not supported" defaults
// in generated/Defaults.cpp for what is not implemented). A tool loaded
// through HSA_TOOLS_LIB receives this table and may replace entries.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_HSA_APITABLE_H
#define LOOM_HSA_APITABLE_H

#include "generated/ApiImpl.h"

#include "loom/runtime/RuntimeState.h"

namespace loom::hsa {

/// The live table (entries possibly replaced by tools).
HsaApiTable &apiTable();
/// Restores every entry to its implementation (at shut-down).
void resetApiTable();

/// The status of an unimplemented function: NOT_INITIALIZED before
/// hsa_init, \p AfterInit after.
inline hsa_status_t notSupported(hsa_status_t AfterInit) {
  return runtime::RuntimeState::get() ? AfterInit
                                      : HSA_STATUS_ERROR_NOT_INITIALIZED;
}

/// HSA_TOOLS_LIB: loads the tools (at the first hsa_init) and unloads them
/// (at the last hsa_shut_down).
void loadTools();
void unloadTools();

/// Calls \p Visit on each of \p Items in order, as the hsa_*_iterate_*
/// functions call their callback: the first status other than success
/// (HSA_STATUS_INFO_BREAK included) ends the walk and is returned.
template <class Range, class Fn>
hsa_status_t visitEach(const Range &Items, Fn &&Visit) {
  for (const auto &Item : Items)
    if (hsa_status_t S = Visit(Item); S != HSA_STATUS_SUCCESS)
      return S;
  return HSA_STATUS_SUCCESS;
}

} // namespace loom::hsa

/// The runtime instance, or return NOT_INITIALIZED from the caller.
#define LOOM_HSA_STATE(Var)                                                    \
  runtime::RuntimeState *Var = runtime::RuntimeState::get();                   \
  if (!Var)                                                                    \
    return HSA_STATUS_ERROR_NOT_INITIALIZED

#endif // LOOM_HSA_APITABLE_H
