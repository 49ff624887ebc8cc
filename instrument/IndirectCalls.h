//===- instrument/IndirectCalls.h - Calls through pointers --*- C++ -*-===//
//
// Internal to instrument/. A call whose target comes from a register
// (s_swappc_b64 Dst, Target with Target loaded from memory, selected per
// lane, passed in), or a tail call through one (s_setpc_b64 Target in a
// device function), holds the ORIGINAL address of its callee: the
// instrumented copy keeps every function address the original code
// computes, so that pointers stored, compared or handed to the host are
// the same. At the call, the target is translated: if it is the original
// address of a function copied into this code object, the call goes to the
// copy; otherwise (another code object's function, one left uninstrumented)
// to the original, as before.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_INSTRUMENT_INDIRECTCALLS_H
#define LOOM_INSTRUMENT_INDIRECTCALLS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>

namespace loom::instrument::detail {

/// A function copied into the instrumented code object: its address in the
/// loaded original executable and its copy's symbol.
struct CopiedFunction {
  uint64_t OriginalAddress = 0;
  std::string CopySymbol;
};

/// Emits the translation of a call's target, `s_swappc_b64 s[Dst:Dst+1],
/// s[Target:Target+1]` or a tail call's, `s_setpc_b64 s[Target:Target+1]`
/// (then Dst is Target), through \p Copies: a compare chain on the target's
/// halves (grouped by high half: one code object's functions share it) that
/// leaves the copy's address (a label difference, s_getpc_b64-relative) or
/// the target itself in Dst. The caller emits the call or jump through Dst
/// after it. Dst is written by the call (or is the jump's own pair, which
/// the callee reads no argument from), so it is free before it (if it is
/// Target too, Target is read before it is overwritten); only SCC is
/// clobbered besides, which the calling convention clobbers at every call.
/// \p Label prefixes the local labels and must be unique in the assembly.
void emitTranslatedCall(llvm::raw_ostream &OS, unsigned Dst, unsigned Target,
                        llvm::ArrayRef<CopiedFunction> Copies,
                        llvm::StringRef Label);

} // namespace loom::instrument::detail

#endif // LOOM_INSTRUMENT_INDIRECTCALLS_H
