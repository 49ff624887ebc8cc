// RPC calls from divergent lanes and with payloads of different sizes per
// lane: lane i writes i * 7 bytes (continuation rounds of different
// lengths), reads back its own slice of a file (reply rounds of different
// lengths), and prints from branches and loops that only some lanes take.
#include <gpuintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  unsigned Id = __gpu_thread_id_x();
  char Buf[64 * 7 + 1];
  for (unsigned I = 0; I < Id * 7; ++I)
    Buf[I] = 'a' + (Id + I) % 26;
  Buf[Id * 7] = 0;
  if (Id % 2)
    printf("odd %u %s\n", Id, Buf);
  else
    printf("even %u %s\n", Id, Buf);
  // Lane i prints i % 4 lines from a loop: the call's lanes shrink.
  for (unsigned K = 0; K < Id % 4; ++K)
    printf("loop %u %u\n", Id, K);

  // One file per lane, written in one fwrite of Id * 7 bytes, read back.
  char Path[256];
  strcpy(Path, argv[1]);
  unsigned N = strlen(Path);
  Path[N] = '/';
  Path[N + 1] = 'a' + Id % 26;
  Path[N + 2] = 'a' + Id / 26;
  Path[N + 3] = 0;
  FILE *F = fopen(Path, "w");
  if (!F || fwrite(Buf, 1, Id * 7, F) != Id * 7 || fclose(F))
    return 1;
  char Back[64 * 7 + 1];
  F = fopen(Path, "r");
  size_t Got = fread(Back, 1, sizeof(Back), F);
  fclose(F);
  remove(Path);
  if (Got != Id * 7 || memcmp(Back, Buf, Got))
    printf("lane %u read back %u of %u bytes wrongly\n", Id, (unsigned)Got,
           Id * 7);
  return 0;
}
