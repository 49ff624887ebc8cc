//===- loom/codeobj/ErrorText.h - Keep error messages on one line ---------===//
//
// Error messages quote names taken from the file (symbols, bundle entry ids)
// and LLVM's own messages, either of which may hold line breaks or other
// control characters. Loom promises one line per error, so the reason part
// of every message goes through oneLine() before it leaves the library.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_CODEOBJ_ERRORTEXT_H
#define LOOM_CODEOBJ_ERRORTEXT_H

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace loom::codeobj {

/// \p Msg with control characters spelled as C escapes (\n, \t, \x7f).
inline std::string oneLine(llvm::StringRef Msg) {
  std::string Out;
  Out.reserve(Msg.size());
  for (unsigned char C : Msg) {
    if (C == '\n')
      Out += "\\n";
    else if (C == '\r')
      Out += "\\r";
    else if (C == '\t')
      Out += "\\t";
    else if (C < 0x20 || C == 0x7f)
      Out += "\\x" + llvm::utohexstr(C, /*LowerCase=*/true, /*Width=*/2);
    else
      Out += static_cast<char>(C);
  }
  return Out;
}

} // namespace loom::codeobj

#endif // LOOM_CODEOBJ_ERRORTEXT_H
