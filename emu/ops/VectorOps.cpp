//===- emu/ops/VectorOps.cpp - VOP1, VOP2, VOP3, VOPC, VOP3P --------------===//
//
// The vector ALU: every family is written on the vop framework (Vop.h) and
// registers itself here.
//
//===----------------------------------------------------------------------===//

#include "Vop.h"

namespace loom::emu {

void registerVectorOps(HandlerTable &T) {
  registerVectorIntOps(T);
  registerVectorCompareOps(T);
  registerLaneOps(T);
  registerVectorFloatOps(T);
  registerPackedOps(T);
}

} // namespace loom::emu
