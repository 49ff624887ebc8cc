//===- devlib/stdio.c - Streams, served by the host over RPC -------------===//

#include "loom_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t handle(FILE *F) { return (uint64_t)(uintptr_t)F; }

size_t fwrite(const void *P, size_t Size, size_t N, FILE *F) {
  uint64_t Bytes = (uint64_t)Size * N;
  uint64_t Written = loom_rpc_call_full(LOOM_RPC_WRITE_TO_STREAM, handle(F), 0,
                                        0, P, Bytes, 0, 0, 0);
  return Size ? Written / Size : 0;
}

int fputs(const char *S, FILE *F) {
  size_t N = strlen(S);
  return fwrite(S, 1, N, F) == N ? 1 : EOF;
}

int puts(const char *S) {
  // One call writes the line and its newline, so lines never tear.
  uint64_t N = strlen(S);
  uint64_t Written = loom_rpc_call_full(LOOM_RPC_WRITE_TO_STDOUT_NEWLINE, 0, 0,
                                        0, S, N, 0, 0, 0);
  return Written == N + 1 ? 1 : EOF;
}

int fputc(int C, FILE *F) {
  unsigned char B = (unsigned char)C;
  return fwrite(&B, 1, 1, F) == 1 ? B : EOF;
}
int putc(int C, FILE *F) { return fputc(C, F); }
int putchar(int C) { return fputc(C, stdout); }

size_t fread(void *P, size_t Size, size_t N, FILE *F) {
  uint64_t Got = 0;
  uint64_t Items =
      loom_rpc_call_full(LOOM_RPC_READ_FROM_STREAM, handle(F), Size, N, 0, 0, P,
                         (uint64_t)Size * N, &Got);
  return (size_t)Items;
}

int fgetc(FILE *F) {
  unsigned char B;
  return fread(&B, 1, 1, F) == 1 ? B : EOF;
}
int getc(FILE *F) { return fgetc(F); }
int getchar(void) { return fgetc(stdin); }

char *fgets(char *S, int N, FILE *F) {
  if (N <= 0)
    return 0;
  uint64_t Got = 0;
  uint64_t Ok = loom_rpc_call_full(LOOM_RPC_READ_FGETS, handle(F), (uint64_t)N,
                                   0, 0, 0, S, (uint64_t)N, &Got);
  return Ok ? S : 0;
}

FILE *fopen(const char *Path, const char *Mode) {
  // Payload: the path and the mode, each with its NUL.
  char Buf[512];
  size_t P = strlen(Path), M = strlen(Mode);
  if (P + M + 2 > sizeof(Buf))
    return 0;
  memcpy(Buf, Path, P + 1);
  memcpy(Buf + P + 1, Mode, M + 1);
  return (FILE *)(uintptr_t)loom_rpc_call_full(LOOM_RPC_OPEN_FILE, 0, 0, 0, Buf,
                                               P + M + 2, 0, 0, 0);
}

int fclose(FILE *F) {
  return (int)loom_rpc_call_args(LOOM_RPC_CLOSE_FILE, handle(F), 0, 0);
}
int fflush(FILE *F) {
  return (int)loom_rpc_call_args(LOOM_RPC_FFLUSH, handle(F), 0, 0);
}
int fseek(FILE *F, long Off, int Whence) {
  return (int)loom_rpc_call_args(LOOM_RPC_FSEEK, handle(F), (uint64_t)Off,
                                 (uint64_t)Whence);
}
long ftell(FILE *F) {
  return (long)loom_rpc_call_args(LOOM_RPC_FTELL, handle(F), 0, 0);
}
void rewind(FILE *F) {
  fseek(F, 0, SEEK_SET);
  clearerr(F);
}
int feof(FILE *F) {
  return (int)loom_rpc_call_args(LOOM_RPC_FEOF, handle(F), 0, 0);
}
int ferror(FILE *F) {
  return (int)loom_rpc_call_args(LOOM_RPC_FERROR, handle(F), 0, 0);
}
void clearerr(FILE *F) {
  loom_rpc_call_args(LOOM_RPC_CLEARERR, handle(F), 0, 0);
}
int remove(const char *Path) {
  return (int)loom_rpc_call_full(LOOM_RPC_REMOVE, 0, 0, 0, Path,
                                 strlen(Path) + 1, 0, 0, 0);
}
int rename(const char *From, const char *To) {
  char Buf[512];
  size_t A = strlen(From), B = strlen(To);
  if (A + B + 2 > sizeof(Buf))
    return -1;
  memcpy(Buf, From, A + 1);
  memcpy(Buf + A + 1, To, B + 1);
  return (int)loom_rpc_call_full(LOOM_RPC_RENAME, 0, 0, 0, Buf, A + B + 2, 0, 0,
                                 0);
}

//===----------------------------------------------------------------------===//
// printf: the host formats. The device sends the format string and then,
// for each conversion in order, 8 bytes for a number or a pointer, or the
// NUL-terminated bytes of a %s argument (docs/run.md, "printf").
//===----------------------------------------------------------------------===//

// Calls that pack into this much use the stack; longer ones a malloc'ed
// buffer (one more RPC call each way).
#define LOOM_PRINTF_BUFFER 1024

// Counts every byte; stores those that fit.
typedef struct {
  char *Buf;
  uint64_t Len, Cap;
} Packer;

static void putBytes(Packer *P, const void *Src, uint64_t N) {
  if (P->Len < P->Cap)
    __builtin_memcpy(P->Buf + P->Len, Src,
                     N < P->Cap - P->Len ? N : P->Cap - P->Len);
  P->Len += N;
}
static void put64(Packer *P, uint64_t V) { putBytes(P, &V, 8); }

/// Packs a call into P.Buf; returns the bytes the whole call needs. A call cut
/// short by P's capacity is still a prefix the host reads correctly.
static uint64_t pack(Packer P, const char *Fmt, va_list Ap) {
  putBytes(&P, Fmt, strlen(Fmt) + 1);
  const char *F = Fmt;
  while (*F) {
    if (*F++ != '%')
      continue;
    if (*F == '%') {
      ++F;
      continue;
    }
    while (*F && strchr("-+ #0'", *F))
      ++F;
    if (*F == '*') {
      put64(&P, (uint64_t)(int64_t)va_arg(Ap, int));
      ++F;
    } else {
      while (*F >= '0' && *F <= '9')
        ++F;
    }
    if (*F == '.') {
      ++F;
      if (*F == '*') {
        put64(&P, (uint64_t)(int64_t)va_arg(Ap, int));
        ++F;
      } else {
        while (*F >= '0' && *F <= '9')
          ++F;
      }
    }
    // Length: 0 none, 1 hh/h, 2 l/j/z/t (64-bit), 3 ll, 4 L.
    int Len = 0;
    if (*F == 'h') {
      Len = 1;
      F += F[1] == 'h' ? 2 : 1;
    } else if (*F == 'l') {
      Len = F[1] == 'l' ? 3 : 2;
      F += F[1] == 'l' ? 2 : 1;
    } else if (*F == 'j' || *F == 'z' || *F == 't') {
      Len = 2;
      ++F;
    } else if (*F == 'L') {
      Len = 4;
      ++F;
    }
    char Conv = *F;
    if (!Conv)
      break;
    ++F;
    switch (Conv) {
    case 'd':
    case 'i':
      put64(&P, Len >= 2 ? (uint64_t)va_arg(Ap, long long)
                         : (uint64_t)(int64_t)va_arg(Ap, int));
      break;
    case 'u':
    case 'o':
    case 'x':
    case 'X':
      put64(&P, Len >= 2 ? (uint64_t)va_arg(Ap, unsigned long long)
                         : (uint64_t)va_arg(Ap, unsigned));
      break;
    case 'c':
      put64(&P, (uint64_t)(int64_t)va_arg(Ap, int));
      break;
    case 'f':
    case 'F':
    case 'e':
    case 'E':
    case 'g':
    case 'G':
    case 'a':
    case 'A': {
      double D = va_arg(Ap, double);
      uint64_t Bits;
      memcpy(&Bits, &D, 8);
      put64(&P, Bits);
      break;
    }
    case 'p':
    case 'n':
      put64(&P, (uint64_t)(uintptr_t)va_arg(Ap, void *));
      break;
    case 's': {
      const char *S = va_arg(Ap, const char *);
      putBytes(&P, S ? S : "(null)", strlen(S ? S : "(null)") + 1);
      break;
    }
    default:
      // Unknown conversion: the host prints the rest literally.
      return P.Len;
    }
  }
  return P.Len;
}

/// Packs the call and makes it with opcode Op: from the stack when it fits,
/// else from a malloc'ed buffer (cut to the stack's size if malloc fails).
static uint64_t packAndCall(uint32_t Op, uint64_t Arg, const char *Fmt,
                            va_list Ap, char *Out, uint64_t OutCap) {
  char Buf[LOOM_PRINTF_BUFFER];
  va_list Again;
  va_copy(Again, Ap);
  Packer P = {Buf, 0, sizeof(Buf)};
  uint64_t Need = pack(P, Fmt, Ap);
  char *Data = Buf, *Heap = 0;
  uint64_t Len = Need < sizeof(Buf) ? Need : sizeof(Buf);
  if (Need > sizeof(Buf) && (Heap = (char *)malloc(Need))) {
    Packer H = {Heap, 0, Need};
    pack(H, Fmt, Again);
    Data = Heap;
    Len = Need;
  }
  va_end(Again);
  uint64_t R = loom_rpc_call_full(Op, Arg, 0, 0, Data, Len, Out, OutCap, 0);
  free(Heap);
  return R;
}

int vfprintf(FILE *Stream, const char *Fmt, va_list Ap) {
  return (int)packAndCall(LOOM_RPC_PRINTF_TO_STREAM, handle(Stream), Fmt, Ap, 0,
                          0);
}

int vprintf(const char *Fmt, va_list Ap) { return vfprintf(stdout, Fmt, Ap); }

int vsnprintf(char *Buf, size_t N, const char *Fmt, va_list Ap) {
  // Formatted on the host too; the text comes back cut to N - 1 bytes and
  // its NUL.
  return (int)packAndCall(LOOM_RPC_FORMAT_TO_BUFFER, N, Fmt, Ap, Buf, N);
}

int vsprintf(char *Buf, const char *Fmt, va_list Ap) {
  return vsnprintf(Buf, (size_t)-1 >> 1, Fmt, Ap);
}

int snprintf(char *Buf, size_t N, const char *Fmt, ...) {
  va_list Ap;
  va_start(Ap, Fmt);
  int R = vsnprintf(Buf, N, Fmt, Ap);
  va_end(Ap);
  return R;
}

int sprintf(char *Buf, const char *Fmt, ...) {
  va_list Ap;
  va_start(Ap, Fmt);
  int R = vsprintf(Buf, Fmt, Ap);
  va_end(Ap);
  return R;
}

int fprintf(FILE *Stream, const char *Fmt, ...) {
  va_list Ap;
  va_start(Ap, Fmt);
  int R = vfprintf(Stream, Fmt, Ap);
  va_end(Ap);
  return R;
}

int printf(const char *Fmt, ...) {
  va_list Ap;
  va_start(Ap, Fmt);
  int R = vfprintf(stdout, Fmt, Ap);
  va_end(Ap);
  return R;
}

_Noreturn void __loom_assert_fail(const char *Expr, const char *File, int Line,
                                  const char *Func) {
  fprintf(stderr, "%s:%d: %s: Assertion `%s' failed.\n", File, Line, Func,
          Expr);
  abort();
}
