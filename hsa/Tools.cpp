//===- hsa/Tools.cpp - HSA_TOOLS_LIB ---------------------------------------===//
//
// As ROCr: at the first hsa_init, every library HSA_TOOLS_LIB lists (space
// separated) is dlopen'ed and its OnLoad(table, runtime_version,
// failed_tool_count, failed_tool_names) called with the live API table; a
// tool whose OnLoad returns false, or that cannot be loaded, is counted as
// failed for the tools after it. OnUnload runs at the last hsa_shut_down,
// in reverse order, and the table is then reset to the implementations.
//
//===----------------------------------------------------------------------===//

#include "ApiTable.h"

#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <sstream>
#include <string>
#include <vector>

namespace loom::hsa {

namespace {
using OnLoadFn = bool (*)(HsaApiTable *, uint64_t, uint64_t,
                          const char *const *);
using OnUnloadFn = void (*)();

std::vector<void *> Loaded;
std::vector<std::string> Failed;
} // namespace

void loadTools() {
  const char *Env = getenv("HSA_TOOLS_LIB");
  if (!Env || !*Env)
    return;
  bool Report = getenv("HSA_TOOLS_REPORT_LOAD_FAILURE") &&
                std::string(getenv("HSA_TOOLS_REPORT_LOAD_FAILURE")) == "1";
  std::istringstream In(Env);
  std::string Name;
  while (In >> Name) {
    void *H = dlopen(Name.c_str(), RTLD_LAZY);
    if (!H) {
      if (Report)
        fprintf(stderr, "Loom: tool %s failed to load: %s\n", Name.c_str(),
                dlerror());
      Failed.push_back(Name);
      continue;
    }
    auto OnLoad = reinterpret_cast<OnLoadFn>(dlsym(H, "OnLoad"));
    if (OnLoad) {
      std::vector<const char *> Names;
      for (const std::string &F : Failed)
        Names.push_back(F.c_str());
      Names.push_back(nullptr);
      if (!OnLoad(&apiTable(), HSA_API_TABLE_MAJOR_VERSION, Failed.size(),
                  Names.data())) {
        if (Report)
          fprintf(stderr, "Loom: tool %s: OnLoad failed\n", Name.c_str());
        Failed.push_back(Name);
        dlclose(H);
        continue;
      }
    }
    Loaded.push_back(H);
  }
}

void unloadTools() {
  for (auto It = Loaded.rbegin(); It != Loaded.rend(); ++It)
    if (auto OnUnload = reinterpret_cast<OnUnloadFn>(dlsym(*It, "OnUnload")))
      OnUnload();
  // Tools stay mapped: they may have left callbacks (atexit, threads).
  Loaded.clear();
  Failed.clear();
  resetApiTable();
}

} // namespace loom::hsa
