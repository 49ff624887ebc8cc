//===- emu/ops/VectorCompareOps.cpp - Integer VOPC compares ---------------===//
//
// v_cmp_{f,lt,eq,le,gt,ne,ge,t}_{i16,u16,i32,u32,i64,u64} and their v_cmpx
// forms. The vop framework writes the mask (inactive lanes 0) to VCC or the
// named SGPR pair, and v_cmpx's to EXEC as well.
//
//===----------------------------------------------------------------------===//

#include "Vop.h"

#include <string>

namespace loom::emu {
namespace {

enum class Pred { F, LT, EQ, LE, GT, NE, GE, T };

template <Pred P, class T> bool cmp(T A, T B) {
  switch (P) {
  case Pred::F:
    return false;
  case Pred::LT:
    return A < B;
  case Pred::EQ:
    return A == B;
  case Pred::LE:
    return A <= B;
  case Pred::GT:
    return A > B;
  case Pred::NE:
    return A != B;
  case Pred::GE:
    return A >= B;
  case Pred::T:
    return true;
  }
  return false;
}

template <class T, Pred... Ps>
void addCompares(HandlerTable &Tb, const char *Type) {
  static const char *const Names[] = {"F",  "LT", "EQ", "LE",
                                      "GT", "NE", "GE", "T"};
  (Tb.add(std::string("V_CMP_") + Names[int(Ps)] + "_" + Type,
          vop::handler<cmp<Ps, T>, vop::Compare>, FlagVector),
   ...);
  (Tb.add(std::string("V_CMPX_") + Names[int(Ps)] + "_" + Type,
          vop::handler<cmp<Ps, T>, vop::Compare | vop::CompareX>, FlagVector),
   ...);
}

template <class T> void addType(HandlerTable &Tb, const char *Type) {
  addCompares<T, Pred::F, Pred::LT, Pred::EQ, Pred::LE, Pred::GT, Pred::NE,
              Pred::GE, Pred::T>(Tb, Type);
}

} // namespace

void registerVectorCompareOps(HandlerTable &T) {
  addType<int16_t>(T, "I16");
  addType<uint16_t>(T, "U16");
  addType<int32_t>(T, "I32");
  addType<uint32_t>(T, "U32");
  addType<int64_t>(T, "I64");
  addType<uint64_t>(T, "U64");
}

} // namespace loom::emu
