//===- devlib/time.c - The host's clocks over RPC ------------------------===//

#include "loom_internal.h"

#include <time.h>

int clock_gettime(clockid_t Id, struct timespec *Ts) {
  if (Id != CLOCK_REALTIME && Id != CLOCK_MONOTONIC)
    return -1;
  uint64_t Ns = loom_rpc_call_args(LOOM_RPC_CLOCK, (uint64_t)Id, 0, 0);
  Ts->tv_sec = (time_t)(Ns / 1000000000ull);
  Ts->tv_nsec = (long)(Ns % 1000000000ull);
  return 0;
}

time_t time(time_t *T) {
  struct timespec Ts;
  clock_gettime(CLOCK_REALTIME, &Ts);
  if (T)
    *T = Ts.tv_sec;
  return Ts.tv_sec;
}

clock_t clock(void) {
  // Clock 2: the host's monotonic time since the program started.
  return (clock_t)(loom_rpc_call_args(LOOM_RPC_CLOCK, 2, 0, 0) / 1000);
}
