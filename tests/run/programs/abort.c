// Thread 3 of block 1 aborts while the other blocks spin; with "assert", a
// failed assert on thread 5 aborts.
#include <assert.h>
#include <gpuintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  unsigned Id = __gpu_thread_id_x();
  if (argc > 1 && !strcmp(argv[1], "assert")) {
    assert(Id != 5 && "lane 5 must not get here");
    return 0;
  }
  if (__gpu_block_id_x() == 1) {
    if (Id == 3) {
      fprintf(stderr, "lane 3 gives up\n");
      abort();
    }
    return 0;
  }
  for (volatile int Spin = 1; Spin;)
    ;
  return 0;
}
