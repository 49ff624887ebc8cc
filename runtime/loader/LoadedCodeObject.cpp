//===- runtime/loader/LoadedCodeObject.cpp - A code object in memory ------===//

#include "loom/runtime/loader/LoadedCodeObject.h"

#include "loom/emu/Module.h"

namespace loom::loader {

// Out of line: the emu::Module must be complete to be destroyed, which
// unregisters its code and memory from the device.
LoadedCodeObject::~LoadedCodeObject() = default;

uint64_t LoadedCodeObject::loadBase() const {
  return Mod->base() + LowestVAddr;
}

uint64_t LoadedCodeObject::loadSize() const {
  return Mod->size() - LowestVAddr;
}

int64_t LoadedCodeObject::loadDelta() const {
  return static_cast<int64_t>(Mod->base());
}

} // namespace loom::loader
