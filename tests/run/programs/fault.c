// Lane 9 writes through a pointer that points nowhere.
#include <gpuintrin.h>
#include <stdint.h>

int main(void) {
  if (__gpu_thread_id_x() == 9) {
    volatile int *Nowhere = (volatile int *)(uintptr_t)0xdead0000;
    *Nowhere = 1;
  }
  return 0;
}
