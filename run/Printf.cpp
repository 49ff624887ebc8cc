//===- run/Printf.cpp - printf formatted on the host ----------------------===//
//
// Walks the format exactly as the device packer does and hands each
// conversion, rebuilt with its width and precision, to the host's snprintf.
//
//===----------------------------------------------------------------------===//

#include "Printf.h"

#include <cstdio>
#include <cstring>

namespace loom::run {

namespace {
class Reader {
public:
  explicit Reader(llvm::ArrayRef<uint8_t> Bytes) : Bytes(Bytes) {}
  bool next64(uint64_t &V) {
    if (Pos + 8 > Bytes.size())
      return false;
    std::memcpy(&V, Bytes.data() + Pos, 8);
    Pos += 8;
    return true;
  }
  bool nextString(std::string &S) {
    if (Pos >= Bytes.size())
      return false;
    const uint8_t *Start = Bytes.data() + Pos;
    const void *End = std::memchr(Start, 0, Bytes.size() - Pos);
    size_t N =
        End ? static_cast<const uint8_t *>(End) - Start : Bytes.size() - Pos;
    S.assign(reinterpret_cast<const char *>(Start), N);
    Pos += N + (End ? 1 : 0);
    return true;
  }
  size_t Pos = 0;

private:
  llvm::ArrayRef<uint8_t> Bytes;
};

template <typename... T>
void append(std::string &Out, const std::string &Spec, T... V) {
  int N = std::snprintf(nullptr, 0, Spec.c_str(), V...);
  if (N <= 0)
    return;
  size_t Old = Out.size();
  Out.resize(Old + N + 1);
  std::snprintf(Out.data() + Old, N + 1, Spec.c_str(), V...);
  Out.resize(Old + N);
}
} // namespace

std::string formatPrintf(llvm::ArrayRef<uint8_t> Packed) {
  Reader R(Packed);
  std::string Fmt;
  if (!R.nextString(Fmt))
    return {};
  std::string Out;
  const char *F = Fmt.c_str();
  while (*F) {
    if (*F != '%') {
      Out += *F++;
      continue;
    }
    const char *Start = F++;
    if (*F == '%') {
      Out += '%';
      ++F;
      continue;
    }
    std::string Spec = "%";
    while (*F && std::strchr("-+ #0'", *F))
      Spec += *F++;
    uint64_t V = 0;
    if (*F == '*') {
      if (!R.next64(V))
        return Out;
      Spec += std::to_string(int64_t(V));
      ++F;
    } else {
      while (*F >= '0' && *F <= '9')
        Spec += *F++;
    }
    if (*F == '.') {
      Spec += *F++;
      if (*F == '*') {
        if (!R.next64(V))
          return Out;
        Spec += std::to_string(int64_t(V) < 0 ? 0 : int64_t(V));
        ++F;
      } else {
        while (*F >= '0' && *F <= '9')
          Spec += *F++;
      }
    }
    // Length modifiers: the value arrives as 64 bits; hh/h keep their
    // meaning (snprintf truncates), the rest become ll.
    std::string Length;
    if (*F == 'h') {
      Length = F[1] == 'h' ? "hh" : "h";
      F += Length.size();
    } else if (*F == 'l') {
      F += F[1] == 'l' ? 2 : 1;
      Length = "ll";
    } else if (*F == 'j' || *F == 'z' || *F == 't') {
      ++F;
      Length = "ll";
    } else if (*F == 'L') {
      ++F;
    }
    char Conv = *F;
    if (!Conv) {
      Out += Start;
      return Out;
    }
    ++F;
    switch (Conv) {
    case 'd':
    case 'i':
      if (!R.next64(V))
        return Out;
      if (Length == "ll")
        append(Out, Spec + "ll" + Conv, (long long)V);
      else
        append(Out, Spec + Length + Conv, int(V));
      break;
    case 'u':
    case 'o':
    case 'x':
    case 'X':
      if (!R.next64(V))
        return Out;
      if (Length == "ll")
        append(Out, Spec + "ll" + Conv, (unsigned long long)V);
      else
        append(Out, Spec + Length + Conv, unsigned(V));
      break;
    case 'c':
      if (!R.next64(V))
        return Out;
      append(Out, Spec + 'c', int(V));
      break;
    case 'f':
    case 'F':
    case 'e':
    case 'E':
    case 'g':
    case 'G':
    case 'a':
    case 'A': {
      if (!R.next64(V))
        return Out;
      double D;
      std::memcpy(&D, &V, 8);
      append(Out, Spec + Conv, D);
      break;
    }
    case 'p':
      if (!R.next64(V))
        return Out;
      append(Out, Spec + 'p', reinterpret_cast<void *>(V));
      break;
    case 'n':
      // Writing back a count is not supported; the pointer is skipped.
      R.next64(V);
      break;
    case 's': {
      std::string S;
      if (!R.nextString(S))
        return Out;
      append(Out, Spec + 's', S.c_str());
      break;
    }
    default:
      // The device stopped packing here: the rest goes out as written.
      Out += Start;
      return Out;
    }
  }
  return Out;
}

} // namespace loom::run
