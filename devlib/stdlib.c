//===- devlib/stdlib.c - malloc over RPC, numbers, environment -----------===//

#include "loom_internal.h"

#include <stdlib.h>
#include <string.h>

// Each block starts with its size, for realloc; the host sees the block.
#define HEADER 16

void *malloc(size_t N) {
  uint64_t P = loom_rpc_call_args(LOOM_RPC_MALLOC, (uint64_t)N + HEADER, 0, 0);
  if (!P)
    return 0;
  *(uint64_t *)(uintptr_t)P = N;
  return (void *)(uintptr_t)(P + HEADER);
}

void free(void *P) {
  if (P)
    loom_rpc_call_args(LOOM_RPC_FREE, (uint64_t)(uintptr_t)P - HEADER, 0, 0);
}

void *calloc(size_t N, size_t Size) {
  if (Size && N > (size_t)-1 / Size)
    return 0;
  void *P = malloc(N * Size);
  if (P)
    memset(P, 0, N * Size);
  return P;
}

void *realloc(void *Old, size_t N) {
  if (!Old)
    return malloc(N);
  uint64_t OldSize = *(uint64_t *)((char *)Old - HEADER);
  void *P = malloc(N);
  if (P) {
    memcpy(P, Old, OldSize < N ? OldSize : N);
    free(Old);
  }
  return P;
}

extern char **environ;

char *getenv(const char *Name) {
  size_t N = strlen(Name);
  for (char **E = environ; E && *E; ++E)
    if (!strncmp(*E, Name, N) && (*E)[N] == '=')
      return *E + N + 1;
  return 0;
}

static int digitOf(char C) {
  if (C >= '0' && C <= '9')
    return C - '0';
  if (C >= 'a' && C <= 'z')
    return C - 'a' + 10;
  if (C >= 'A' && C <= 'Z')
    return C - 'A' + 10;
  return 99;
}

unsigned long long strtoull(const char *S, char **End, int Base) {
  const char *P = S;
  while (*P == ' ' || (*P >= '\t' && *P <= '\r'))
    ++P;
  int Neg = 0;
  if (*P == '+' || *P == '-')
    Neg = *P++ == '-';
  if ((Base == 0 || Base == 16) && P[0] == '0' &&
      (P[1] == 'x' || P[1] == 'X')) {
    P += 2;
    Base = 16;
  } else if (Base == 0) {
    Base = P[0] == '0' ? 8 : 10;
  }
  unsigned long long V = 0;
  const char *Start = P;
  for (int D; (D = digitOf(*P)) < Base; ++P)
    V = V * Base + D;
  if (End)
    *End = (char *)(P == Start ? S : P);
  return Neg ? -V : V;
}

long long strtoll(const char *S, char **End, int Base) {
  return (long long)strtoull(S, End, Base);
}
long strtol(const char *S, char **End, int Base) {
  return (long)strtoull(S, End, Base);
}
unsigned long strtoul(const char *S, char **End, int Base) {
  return (unsigned long)strtoull(S, End, Base);
}
int atoi(const char *S) { return (int)strtol(S, 0, 10); }
long atol(const char *S) { return strtol(S, 0, 10); }
long long atoll(const char *S) { return strtoll(S, 0, 10); }

int abs(int V) { return V < 0 ? -V : V; }
long labs(long V) { return V < 0 ? -V : V; }
long long llabs(long long V) { return V < 0 ? -V : V; }

// One sequence for the whole program, drawn from atomically.
static unsigned long long Seed = 1, Draws;
int rand(void) {
  unsigned long long N = __scoped_atomic_fetch_add(&Draws, 1, __ATOMIC_RELAXED,
                                                   __MEMORY_SCOPE_DEVICE);
  unsigned long long X = (Seed + N) * 0x9e3779b97f4a7c15ull;
  X ^= X >> 29;
  X *= 0xbf58476d1ce4e5b9ull;
  X ^= X >> 32;
  return (int)(X & 0x7fffffff);
}
void srand(unsigned S) {
  Seed = S;
  Draws = 0;
}

void qsort(void *Base, size_t N, size_t Size,
           int (*Cmp)(const void *, const void *)) {
  // Insertion sort: small arrays, no recursion, no allocation.
  char *B = (char *)Base;
  char Tmp[256];
  if (Size > sizeof(Tmp))
    return;
  for (size_t I = 1; I < N; ++I) {
    memcpy(Tmp, B + I * Size, Size);
    size_t J = I;
    while (J > 0 && Cmp(B + (J - 1) * Size, Tmp) > 0) {
      memcpy(B + J * Size, B + (J - 1) * Size, Size);
      --J;
    }
    memcpy(B + J * Size, Tmp, Size);
  }
}
