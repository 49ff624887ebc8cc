// exit_code N: every lane returns N. exit_code N exit L: thread L of block 1
// calls exit(N) while the lanes of the other blocks spin in a loop that
// never ends on its own (run it with --blocks 3 or more).
#include <gpuintrin.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  int Code = argc > 1 ? atoi(argv[1]) : 0;
  if (argc > 3 && !strcmp(argv[2], "exit")) {
    if (__gpu_block_id_x() == 1) {
      if (__gpu_thread_id_x() == (unsigned)atoi(argv[3]))
        exit(Code);
      return 0;
    }
    for (volatile int Spin = 1; Spin;)
      ;
  }
  return Code;
}
