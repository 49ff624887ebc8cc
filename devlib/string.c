//===- devlib/string.c - <string.h> --------------------------------------===//
//
// Byte loops: the AMDGPU backend expands memcpy/memset intrinsics inline, so
// these never call themselves.
//
//===----------------------------------------------------------------------===//

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void *memcpy(void *__restrict D, const void *__restrict S, size_t N) {
  __builtin_memcpy(D, S, N);
  return D;
}
void *memmove(void *D, const void *S, size_t N) {
  __builtin_memmove(D, S, N);
  return D;
}
void *memset(void *D, int C, size_t N) {
  __builtin_memset(D, C, N);
  return D;
}
int memcmp(const void *A, const void *B, size_t N) {
  const unsigned char *X = A, *Y = B;
  for (size_t I = 0; I < N; ++I)
    if (X[I] != Y[I])
      return X[I] - Y[I];
  return 0;
}
void *memchr(const void *P, int C, size_t N) {
  const unsigned char *X = P;
  for (size_t I = 0; I < N; ++I)
    if (X[I] == (unsigned char)C)
      return (void *)(X + I);
  return 0;
}
size_t strlen(const char *S) {
  size_t N = 0;
  while (S[N])
    ++N;
  return N;
}
size_t strnlen(const char *S, size_t Max) {
  size_t N = 0;
  while (N < Max && S[N])
    ++N;
  return N;
}
int strcmp(const char *A, const char *B) {
  while (*A && *A == *B)
    ++A, ++B;
  return (unsigned char)*A - (unsigned char)*B;
}
int strncmp(const char *A, const char *B, size_t N) {
  for (; N; --N, ++A, ++B)
    if (*A != *B || !*A)
      return (unsigned char)*A - (unsigned char)*B;
  return 0;
}
char *strcpy(char *__restrict D, const char *__restrict S) {
  char *R = D;
  while ((*D++ = *S++))
    ;
  return R;
}
char *strncpy(char *__restrict D, const char *__restrict S, size_t N) {
  size_t I = 0;
  for (; I < N && S[I]; ++I)
    D[I] = S[I];
  for (; I < N; ++I)
    D[I] = 0;
  return D;
}
char *strcat(char *__restrict D, const char *__restrict S) {
  strcpy(D + strlen(D), S);
  return D;
}
char *strncat(char *__restrict D, const char *__restrict S, size_t N) {
  char *E = D + strlen(D);
  size_t I = 0;
  for (; I < N && S[I]; ++I)
    E[I] = S[I];
  E[I] = 0;
  return D;
}
char *strchr(const char *S, int C) {
  for (;; ++S) {
    if (*S == (char)C)
      return (char *)S;
    if (!*S)
      return 0;
  }
}
char *strrchr(const char *S, int C) {
  const char *Last = 0;
  for (;; ++S) {
    if (*S == (char)C)
      Last = S;
    if (!*S)
      return (char *)Last;
  }
}
char *strstr(const char *H, const char *N) {
  size_t L = strlen(N);
  for (; *H; ++H)
    if (!strncmp(H, N, L))
      return (char *)H;
  return L ? 0 : (char *)H;
}
char *strdup(const char *S) {
  size_t N = strlen(S) + 1;
  char *D = malloc(N);
  if (D)
    memcpy(D, S, N);
  return D;
}
