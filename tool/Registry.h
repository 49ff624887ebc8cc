//===- tool/Registry.h - Tools registered by their libraries --------------===//
#ifndef LOOM_TOOL_REGISTRY_H
#define LOOM_TOOL_REGISTRY_H

#include "loom/instrument/Tool.h"

#include <mutex>
#include <string>
#include <vector>

namespace loom::tool {

struct Registration {
  std::string Name;
  instrument::ToolFactory Factory;
  const void *Anchor; ///< an address in the tool's library
};

/// Filled by LOOM_TOOL as each tool library is loaded, before its OnLoad.
struct Registry {
  std::mutex Lock;
  std::vector<Registration> Tools;
};
Registry &registry();

} // namespace loom::tool

#endif // LOOM_TOOL_REGISTRY_H
