// Thread 73 of block 1 (wave 1, lane 9) writes through a pointer that
// points nowhere.
#include <gpuintrin.h>
#include <stdint.h>

int main(void) {
  if (__gpu_block_id_x() == 1 && __gpu_thread_id_x() == 73) {
    volatile int *Nowhere = (volatile int *)(uintptr_t)0xdead0000;
    *Nowhere = 1;
  }
  return 0;
}
