// Every lane allocates blocks of its own sizes, fills them with its own
// pattern, checks them after all are live, frees them; prints the failures.
#include <gpuintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCKS 8

int main(void) {
  unsigned Id =
      __gpu_block_id_x() * __gpu_num_threads_x() + __gpu_thread_id_x();
  unsigned char *P[BLOCKS];
  int Bad = 0;
  for (int Round = 0; Round < 4; ++Round) {
    for (int I = 0; I < BLOCKS; ++I) {
      size_t Size = 8 + (Id * 131 + I * 17 + Round * 7) % 2000;
      P[I] = malloc(Size);
      if (!P[I]) {
        ++Bad;
        continue;
      }
      memset(P[I], (Id + I) & 0xff, Size);
      P[I][Size - 1] = (unsigned char)(Id >> 3);
    }
    for (int I = 0; I < BLOCKS; ++I) {
      size_t Size = 8 + (Id * 131 + I * 17 + Round * 7) % 2000;
      if (!P[I])
        continue;
      for (size_t B = 0; B + 1 < Size; ++B)
        Bad += P[I][B] != ((Id + I) & 0xff);
      Bad += P[I][Size - 1] != (unsigned char)(Id >> 3);
      free(P[I]);
    }
  }
  char *S = strdup("realloc grows");
  S = realloc(S, 4096);
  Bad += strcmp(S, "realloc grows") != 0;
  free(S);
  int *Z = calloc(100, sizeof(int));
  for (int I = 0; I < 100; ++I)
    Bad += Z[I] != 0;
  free(Z);
  if (Bad)
    printf("lane %u: %d bad bytes or failed allocations\n", Id, Bad);
  return Bad != 0;
}
