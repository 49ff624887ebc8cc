/*===- stdlib.h - loom run's stdlib subset -----------------------*- C -*-===*
 *
 * malloc and free take device memory from the host (RPC); exit and abort
 * end the whole program from any lane.
 *
 *===----------------------------------------------------------------------===*/
#ifndef LOOM_STDLIB_H
#define LOOM_STDLIB_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
#define RAND_MAX 2147483647

typedef struct {
  int quot, rem;
} div_t;

void *malloc(size_t);
void *calloc(size_t, size_t);
void *realloc(void *, size_t);
void free(void *);

_Noreturn void exit(int);
_Noreturn void _Exit(int);
_Noreturn void abort(void);
int atexit(void (*)(void));

char *getenv(const char *);

int atoi(const char *);
long atol(const char *);
long long atoll(const char *);
long strtol(const char *__restrict, char **__restrict, int);
long long strtoll(const char *__restrict, char **__restrict, int);
unsigned long strtoul(const char *__restrict, char **__restrict, int);
unsigned long long strtoull(const char *__restrict, char **__restrict, int);

int abs(int);
long labs(long);
long long llabs(long long);

/* One sequence shared by all lanes. */
int rand(void);
void srand(unsigned);

void qsort(void *, size_t, size_t, int (*)(const void *, const void *));

#ifdef __cplusplus
}
#endif

#endif /* LOOM_STDLIB_H */
