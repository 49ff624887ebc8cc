/*===- stdio.h - loom run's stdio subset -------------------------*- C -*-===*
 *
 * Streams live on the host: every call below is served by loom run over
 * RPC (docs/run.md). stdin, stdout and stderr are the host process's.
 *
 *===----------------------------------------------------------------------===*/
#ifndef LOOM_STDIO_H
#define LOOM_STDIO_H

#include <stdarg.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct __loom_FILE FILE;
typedef long fpos_t;

#define stdin ((FILE *)1)
#define stdout ((FILE *)2)
#define stderr ((FILE *)3)

#define EOF (-1)
#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2
#define BUFSIZ 1024

int printf(const char *__restrict, ...) __attribute__((format(printf, 1, 2)));
int fprintf(FILE *__restrict, const char *__restrict, ...)
    __attribute__((format(printf, 2, 3)));
int vprintf(const char *__restrict, va_list);
int vfprintf(FILE *__restrict, const char *__restrict, va_list);
/* Formatted by the host as well (one RPC call each). */
int snprintf(char *__restrict, size_t, const char *__restrict, ...)
    __attribute__((format(printf, 3, 4)));
int sprintf(char *__restrict, const char *__restrict, ...)
    __attribute__((format(printf, 2, 3)));
int vsnprintf(char *__restrict, size_t, const char *__restrict, va_list);
int vsprintf(char *__restrict, const char *__restrict, va_list);

int puts(const char *);
int fputs(const char *__restrict, FILE *__restrict);
int putchar(int);
int fputc(int, FILE *);
int putc(int, FILE *);
size_t fwrite(const void *__restrict, size_t, size_t, FILE *__restrict);

int getchar(void);
int fgetc(FILE *);
int getc(FILE *);
char *fgets(char *__restrict, int, FILE *__restrict);
size_t fread(void *__restrict, size_t, size_t, FILE *__restrict);

FILE *fopen(const char *__restrict, const char *__restrict);
int fclose(FILE *);
int fflush(FILE *);
int fseek(FILE *, long, int);
long ftell(FILE *);
void rewind(FILE *);
int feof(FILE *);
int ferror(FILE *);
void clearerr(FILE *);
int remove(const char *);
int rename(const char *, const char *);

#ifdef __cplusplus
}
#endif

#endif /* LOOM_STDIO_H */
