// Reads stdin: a line with fgets, then the rest with fread; echoes both.
#include <stdio.h>
#include <string.h>

int main(void) {
  char Line[128];
  if (!fgets(Line, sizeof(Line), stdin))
    return 1;
  printf("line: %s", Line);
  char Rest[4096];
  size_t N = fread(Rest, 1, sizeof(Rest), stdin);
  int Lines = 0;
  for (size_t I = 0; I < N; ++I)
    Lines += Rest[I] == '\n';
  printf("rest: %zu bytes, %d lines, eof %d\n", N, Lines, feof(stdin) != 0);
  fwrite(Rest, 1, N, stdout);
  return fgets(Line, sizeof(Line), stdin) == 0 ? 0 : 2;
}
