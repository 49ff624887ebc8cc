//===- tool/Hsa.cpp - The saved HSA API and small helpers over it ---------===//

#include "Hsa.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cstring>

using namespace llvm;

namespace loom::tool {

HsaApi &hsa() {
  static HsaApi Api;
  return Api;
}

void saveApi(const HsaApiTable &Table) {
  HsaApi &Api = hsa();
  // A runtime's tables may be older (shorter) than these headers' ones; the
  // size is in minor_id.
  std::memcpy(
      &Api.Core, Table.core_,
      std::min<size_t>(sizeof(CoreApiTable), Table.core_->version.minor_id));
  std::memcpy(
      &Api.Amd, Table.amd_ext_,
      std::min<size_t>(sizeof(AmdExtTable), Table.amd_ext_->version.minor_id));
  if (Api.Core.hsa_system_get_major_extension_table_fn(
          HSA_EXTENSION_AMD_LOADER, 1, sizeof(Api.Loader), &Api.Loader) !=
      HSA_STATUS_SUCCESS)
    Api.Loader = {};
}

Error check(hsa_status_t Status, StringRef Call) {
  if (Status == HSA_STATUS_SUCCESS || Status == HSA_STATUS_INFO_BREAK)
    return Error::success();
  const char *Text = nullptr;
  if (hsa().Core.hsa_status_string_fn)
    hsa().Core.hsa_status_string_fn(Status, &Text);
  return createStringError(inconvertibleErrorCode(), "%s failed: %s",
                           Call.str().c_str(),
                           Text ? Text : ("status " + utostr(Status)).c_str());
}

Expected<std::string> isaName(hsa_agent_t Agent) {
  std::string Name;
  auto Callback = [](hsa_isa_t Isa, void *Data) {
    uint32_t Length = 0;
    if (hsa().Core.hsa_isa_get_info_alt_fn(Isa, HSA_ISA_INFO_NAME_LENGTH,
                                           &Length) != HSA_STATUS_SUCCESS)
      return HSA_STATUS_ERROR;
    auto &Out = *static_cast<std::string *>(Data);
    Out.assign(Length, '\0');
    if (hsa().Core.hsa_isa_get_info_alt_fn(Isa, HSA_ISA_INFO_NAME,
                                           Out.data()) != HSA_STATUS_SUCCESS)
      return HSA_STATUS_ERROR;
    Out.resize(strnlen(Out.c_str(), Length));
    return HSA_STATUS_INFO_BREAK; // the first ISA is the agent's own
  };
  if (Error E =
          check(hsa().Core.hsa_agent_iterate_isas_fn(Agent, Callback, &Name),
                "hsa_agent_iterate_isas"))
    return std::move(E);
  if (Name.empty())
    return createStringError(inconvertibleErrorCode(), "the agent has no ISA");
  return Name;
}

Error forEachSymbol(
    hsa_executable_t Exec, hsa_agent_t Agent,
    function_ref<Error(hsa_executable_symbol_t, StringRef, hsa_symbol_kind_t)>
        Fn) {
  struct State {
    decltype(Fn) &Fn;
    Error Err = Error::success();
  } S{Fn};
  auto Callback = [](hsa_executable_t, hsa_agent_t, hsa_executable_symbol_t Sym,
                     void *Data) {
    auto &S = *static_cast<State *>(Data);
    auto Info = hsa().Core.hsa_executable_symbol_get_info_fn;
    uint32_t Length = 0;
    hsa_symbol_kind_t Kind{};
    if (Error E =
            check(Info(Sym, HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH, &Length),
                  "hsa_executable_symbol_get_info(NAME_LENGTH)")) {
      S.Err = std::move(E);
      return HSA_STATUS_ERROR;
    }
    std::string Name(Length, '\0');
    if (Error E = joinErrors(
            check(Info(Sym, HSA_EXECUTABLE_SYMBOL_INFO_NAME, Name.data()),
                  "hsa_executable_symbol_get_info(NAME)"),
            check(Info(Sym, HSA_EXECUTABLE_SYMBOL_INFO_TYPE, &Kind),
                  "hsa_executable_symbol_get_info(TYPE)"))) {
      S.Err = std::move(E);
      return HSA_STATUS_ERROR;
    }
    Name.resize(strnlen(Name.c_str(), Length));
    if (Error E = S.Fn(Sym, Name, Kind)) {
      S.Err = std::move(E);
      return HSA_STATUS_ERROR;
    }
    return HSA_STATUS_SUCCESS;
  };
  hsa_status_t Status = hsa().Core.hsa_executable_iterate_agent_symbols_fn(
      Exec, Agent, Callback, &S);
  if (S.Err)
    return std::move(S.Err);
  return check(Status, "hsa_executable_iterate_agent_symbols");
}

Expected<hsa_executable_t> loadExecutable(hsa_agent_t Agent,
                                          ArrayRef<char> Elf) {
  const CoreApiTable &Core = hsa().Core;
  hsa_profile_t Profile = HSA_PROFILE_FULL;
  if (Error E = check(
          Core.hsa_agent_get_info_fn(Agent, HSA_AGENT_INFO_PROFILE, &Profile),
          "hsa_agent_get_info(PROFILE)"))
    return std::move(E);
  hsa_executable_t Exec{};
  if (Error E = check(
          Core.hsa_executable_create_alt_fn(
              Profile, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr, &Exec),
          "hsa_executable_create_alt"))
    return std::move(E);
  hsa_code_object_reader_t Reader{};
  Error E = check(Core.hsa_code_object_reader_create_from_memory_fn(
                      Elf.data(), Elf.size(), &Reader),
                  "hsa_code_object_reader_create_from_memory");
  if (!E) {
    E = check(Core.hsa_executable_load_agent_code_object_fn(Exec, Agent, Reader,
                                                            nullptr, nullptr),
              "hsa_executable_load_agent_code_object");
    if (!E)
      E = check(Core.hsa_executable_freeze_fn(Exec, nullptr),
                "hsa_executable_freeze");
    Core.hsa_code_object_reader_destroy_fn(Reader);
  }
  if (E) {
    Core.hsa_executable_destroy_fn(Exec);
    return std::move(E);
  }
  return Exec;
}

} // namespace loom::tool
