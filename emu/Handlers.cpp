//===- emu/Handlers.cpp - The table of implemented operations -------------===//

#include "Semantics.h"

namespace loom::emu {

const HandlerTable &handlers() {
  static const HandlerTable Table = [] {
    HandlerTable T;
    registerScalarOps(T);
    registerScalarMemoryOps(T);
    registerVectorOps(T);
    registerMemoryOps(T);
    registerMatrixOps(T);
    return T;
  }();
  return Table;
}

} // namespace loom::emu
