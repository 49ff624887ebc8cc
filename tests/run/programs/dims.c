// Thread (0, 0, 0) of block (0, 0, 0) prints the launch's shape, as the
// program sees it through <gpuintrin.h>.
#include <gpuintrin.h>
#include <stdio.h>

int main(void) {
  if (__gpu_thread_id_x() + __gpu_thread_id_y() + __gpu_thread_id_z() +
          __gpu_block_id_x() + __gpu_block_id_y() + __gpu_block_id_z() ==
      0)
    printf("threads %u %u %u blocks %u %u %u\n", __gpu_num_threads_x(),
           __gpu_num_threads_y(), __gpu_num_threads_z(), __gpu_num_blocks_x(),
           __gpu_num_blocks_y(), __gpu_num_blocks_z());
  return 0;
}
