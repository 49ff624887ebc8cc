//===- instrument/IndirectCalls.cpp - Calls through function pointers -----===//

#include "IndirectCalls.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Format.h"

#include <map>
#include <vector>

using namespace llvm;

namespace loom::instrument::detail {

void emitTranslatedCall(raw_ostream &OS, unsigned Dst, unsigned Target,
                        ArrayRef<CopiedFunction> Copies, StringRef Label) {
  auto S = [](unsigned N) { return "s" + std::to_string(N); };
  auto Pair = [](unsigned N) {
    return "s[" + std::to_string(N) + ":" + std::to_string(N + 1) + "]";
  };
  auto Hit = [&](size_t I) { return (Label + "_hit" + Twine(I)).str(); };
  std::string Call = (Label + "_call").str();

  // Copies by the high half of their original address: one compare of it,
  // then one of the low half per copy.
  std::map<uint32_t, std::vector<size_t>> ByHigh;
  for (size_t I = 0; I < Copies.size(); ++I)
    ByHigh[Copies[I].OriginalAddress >> 32].push_back(I);
  OS << "\t; loom: call through " << Pair(Target)
     << ": to the instrumented copy of its callee, if it is one\n";
  unsigned Group = 0;
  for (auto &[High, Members] : ByHigh) {
    std::string Next = (Label + "_g" + Twine(Group++)).str();
    OS << "\ts_cmp_lg_u32 " << S(Target + 1) << ", " << format_hex(High, 10)
       << "\n\ts_cbranch_scc1 " << Next << "\n";
    for (size_t I : Members)
      OS << "\ts_cmp_eq_u32 " << S(Target) << ", "
         << format_hex(Copies[I].OriginalAddress & 0xffffffff, 10)
         << "\n\ts_cbranch_scc1 " << Hit(I) << "\n";
    OS << Next << ":\n";
  }
  // None of them: the original function (of another code object, or left
  // uninstrumented) runs.
  if (Dst != Target)
    OS << "\ts_mov_b64 " << Pair(Dst) << ", " << Pair(Target) << "\n";
  OS << "\ts_branch " << Call << "\n";
  for (size_t I = 0; I < Copies.size(); ++I) {
    std::string Pc = Hit(I) + "_pc";
    const std::string &Sym = Copies[I].CopySymbol;
    OS << Hit(I) << ":\n\ts_getpc_b64 " << Pair(Dst) << "\n" << Pc << ":\n";
    OS << "\ts_add_u32 " << S(Dst) << ", " << S(Dst) << ", (" << Sym << "-"
       << Pc << ")&4294967295\n";
    OS << "\ts_addc_u32 " << S(Dst + 1) << ", " << S(Dst + 1) << ", (" << Sym
       << "-" << Pc << ")>>32\n";
    if (I + 1 < Copies.size())
      OS << "\ts_branch " << Call << "\n";
  }
  OS << Call << ":\n";
}

} // namespace loom::instrument::detail
