/*===- time.h - loom run's clock subset --------------------------*- C -*-===*
 *
 * The host's clocks, read over RPC: time(), clock() (the host process's
 * monotonic time since the program started, in microseconds) and
 * clock_gettime() for CLOCK_REALTIME and CLOCK_MONOTONIC.
 *
 *===----------------------------------------------------------------------===*/
#ifndef LOOM_TIME_H
#define LOOM_TIME_H

#ifdef __cplusplus
extern "C" {
#endif

typedef long time_t;
typedef long clock_t;
typedef int clockid_t;
struct timespec {
  time_t tv_sec;
  long tv_nsec;
};

#define CLOCKS_PER_SEC 1000000l
#define CLOCK_REALTIME 0
#define CLOCK_MONOTONIC 1

time_t time(time_t *);
clock_t clock(void);
int clock_gettime(clockid_t, struct timespec *);

#ifdef __cplusplus
}
#endif

#endif /* LOOM_TIME_H */
