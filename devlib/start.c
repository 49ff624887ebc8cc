//===- devlib/start.c - Program start-up: _begin, _start, _end -----------===//
//
// The three kernels loom run launches in order, each with a pointer to one
// struct loom_start_args: _begin on one lane (global constructors), _start
// on every lane (main), _end on one lane (atexit handlers, destructors).
//
//===----------------------------------------------------------------------===//

#include "loom_internal.h"

#include <gpuintrin.h>
#include <stdlib.h>

extern int main(int, char **, char **);

char **environ;

// Defined by lld around the program's .init_array and .fini_array (weak:
// a program without constructors has neither).
extern void (*__init_array_start[])(void)
    __attribute__((weak, visibility("hidden")));
extern void (*__init_array_end[])(void)
    __attribute__((weak, visibility("hidden")));
extern void (*__fini_array_start[])(void)
    __attribute__((weak, visibility("hidden")));
extern void (*__fini_array_end[])(void)
    __attribute__((weak, visibility("hidden")));

// atexit and __cxa_atexit handlers, run in reverse order of registration.
#define LOOM_ATEXIT_MAX 64
static struct {
  void (*fn)(void *);
  void *arg;
} Handlers[LOOM_ATEXIT_MAX];
static uint32_t HandlerCount;
static uint32_t ExitHandlersClaimed;
void *__dso_handle;

int __cxa_atexit(void (*Fn)(void *), void *Arg, void *Dso) {
  uint32_t I = __scoped_atomic_fetch_add(&HandlerCount, 1, __ATOMIC_RELAXED,
                                         __MEMORY_SCOPE_DEVICE);
  if (I >= LOOM_ATEXIT_MAX)
    return -1;
  Handlers[I].fn = Fn;
  Handlers[I].arg = Arg;
  return 0;
}

static void callVoid(void *Fn) { ((void (*)(void))Fn)(); }

int atexit(void (*Fn)(void)) { return __cxa_atexit(callVoid, (void *)Fn, 0); }

void loom_run_exit_handlers(void) {
  // Whoever exits first runs them, once.
  if (__scoped_atomic_exchange_n(&ExitHandlersClaimed, 1, __ATOMIC_ACQ_REL,
                                 __MEMORY_SCOPE_DEVICE))
    return;
  uint32_t N = HandlerCount < LOOM_ATEXIT_MAX ? HandlerCount : LOOM_ATEXIT_MAX;
  while (N--)
    Handlers[N].fn(Handlers[N].arg);
  uint64_t Fini = __fini_array_end - __fini_array_start;
  while (Fini--)
    __fini_array_start[Fini]();
}

static void setUp(struct loom_start_args *A) {
  __loom_rpc = (struct loom_rpc_buffer *)A->rpc;
  environ = (char **)A->envp;
}

__gpu_kernel void _begin(struct loom_start_args *A) {
  setUp(A);
  uint64_t N = __init_array_end - __init_array_start;
  for (uint64_t I = 0; I < N; ++I)
    __init_array_start[I]();
}

__gpu_kernel void _start(struct loom_start_args *A) {
  setUp(A);
  int Ret = main((int)A->argc, (char **)A->argv, (char **)A->envp);
  // As LLVM libc's start-up code: the lanes' values are OR-ed together.
  __scoped_atomic_fetch_or((int *)A->result, Ret, __ATOMIC_RELAXED,
                           __MEMORY_SCOPE_SYSTEM);
}

__gpu_kernel void _end(struct loom_start_args *A) {
  setUp(A);
  loom_run_exit_handlers();
}

void loom_lane_ids(uint64_t *Thread, uint64_t *Block) {
  *Thread = (uint64_t)__gpu_thread_id_x() |
            (uint64_t)__gpu_thread_id_y() << 21 |
            (uint64_t)__gpu_thread_id_z() << 42;
  *Block = (uint64_t)__gpu_block_id_x() | (uint64_t)__gpu_block_id_y() << 21 |
           (uint64_t)__gpu_block_id_z() << 42;
}

_Noreturn void loom_end_wave(void) {
  // The host stops the dispatch; this wave has nothing left to do.
  for (;;)
    __builtin_amdgcn_endpgm();
}

_Noreturn void exit(int Status) {
  loom_run_exit_handlers();
  uint64_t Thread, Block;
  loom_lane_ids(&Thread, &Block);
  loom_rpc_call_args(LOOM_RPC_EXIT, (uint64_t)(uint32_t)Status, Thread, Block);
  loom_end_wave();
}

_Noreturn void _Exit(int Status) {
  uint64_t Thread, Block;
  loom_lane_ids(&Thread, &Block);
  loom_rpc_call_args(LOOM_RPC_EXIT, (uint64_t)(uint32_t)Status, Thread, Block);
  loom_end_wave();
}

_Noreturn void abort(void) {
  uint64_t Thread, Block;
  loom_lane_ids(&Thread, &Block);
  loom_rpc_call_args(LOOM_RPC_ABORT, Thread, Block, 0);
  loom_end_wave();
}
