// Constructors run before main on one lane, atexit handlers and destructors
// after it, in the C order; clock() and time() move forward.
#include <gpuintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int Counter;

__attribute__((constructor)) static void first(void) {
  Counter = 40;
  puts("constructor");
}
__attribute__((destructor)) static void last(void) { puts("destructor"); }
static void atExit1(void) { puts("atexit 1"); }
static void atExit2(void) { puts("atexit 2"); }

int main(void) {
  if (__gpu_thread_id_x() == 0) {
    atexit(atExit1);
    atexit(atExit2);
    clock_t C0 = clock();
    time_t T = time(0);
    struct timespec Ts;
    clock_gettime(CLOCK_MONOTONIC, &Ts);
    clock_t C1 = clock();
    printf("main sees %d on %d lanes; clock moves %d; time %s\n", Counter + 2,
           __gpu_num_threads_x(), C1 >= C0, T > 1600000000 ? "sane" : "bad");
  }
  return 0;
}
