// Every lane prints one line naming itself, with enough text that a torn
// line would show.
#include <gpuintrin.h>
#include <stdio.h>

int main(void) {
  unsigned Id =
      __gpu_block_id_x() * __gpu_num_threads_x() + __gpu_thread_id_x();
  printf("lane %04u block %u thread %u: the quick brown fox jumps over the "
         "lazy dog %u\n",
         Id, __gpu_block_id_x(), __gpu_thread_id_x(), Id * 7919u);
  return 0;
}
