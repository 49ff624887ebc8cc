// Writes a file, reads it back with every stream call, renames and removes it.
#include <stdio.h>
#include <string.h>

#define CHECK(C)                                                               \
  do {                                                                         \
    if (!(C)) {                                                                \
      printf("FAILED line %d: %s\n", __LINE__, #C);                            \
      return 1;                                                                \
    }                                                                          \
  } while (0)

int main(int argc, char **argv) {
  const char *Path = argv[1], *Moved = argv[2];
  FILE *F = fopen(Path, "w");
  CHECK(F);
  CHECK(fputs("first line\n", F) > 0);
  CHECK(fprintf(F, "number %d and %s\n", 42, "a string") == 23);
  char Big[300];
  for (int I = 0; I < 300; ++I)
    Big[I] = 'a' + I % 26;
  CHECK(fwrite(Big, 1, 300, F) == 300);
  CHECK(fputc('\n', F) == '\n');
  CHECK(ftell(F) == 11 + 23 + 301);
  CHECK(fflush(F) == 0);
  CHECK(fclose(F) == 0);

  F = fopen(Path, "r");
  CHECK(F);
  char Line[64];
  CHECK(fgets(Line, sizeof(Line), F) == Line);
  CHECK(!strcmp(Line, "first line\n"));
  CHECK(fgets(Line, sizeof(Line), F) == Line);
  CHECK(!strcmp(Line, "number 42 and a string\n"));
  char Back[301];
  CHECK(fread(Back, 1, 301, F) == 301);
  CHECK(!memcmp(Back, Big, 300) && Back[300] == '\n');
  CHECK(!feof(F));
  CHECK(fgetc(F) == EOF);
  CHECK(feof(F));
  CHECK(!ferror(F));
  CHECK(fseek(F, 6, SEEK_SET) == 0);
  CHECK(fread(Line, 1, 4, F) == 4);
  CHECK(!memcmp(Line, "line", 4));
  CHECK(ftell(F) == 10);
  rewind(F);
  CHECK(fgetc(F) == 'f');
  CHECK(fclose(F) == 0);

  CHECK(rename(Path, Moved) == 0);
  CHECK(fopen(Path, "r") == 0);
  CHECK(remove(Moved) == 0);
  CHECK(fopen(Moved, "r") == 0);
  CHECK(fclose(stdout) == EOF); // the standard streams stay open
  puts("files: all checks passed");
  return 0;
}
