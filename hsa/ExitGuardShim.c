//===- hsa/ExitGuardShim.c - Stop the virtual GPU first at exit -----------===//
//
// At exit, handlers run newest first. Loom's handler that stops every
// dispatch (emu::stopAllDispatches) must run before the destructor of any
// static object a running dispatch may use, but a trace compile in flight
// constructs LLVM statics after that handler was registered; their
// destructors then ran first, under the compiling worker (a HIP program
// returning from main with a kernel running crashed). Under `loom exec`,
// once the runtime has armed its handler, the preloaded shim registers the
// handler again after every later registration, so it stays the newest.
// Running it several times is harmless.
//
//===----------------------------------------------------------------------===//
#define _GNU_SOURCE
#include <dlfcn.h>

typedef int (*CxaAtexit)(void (*)(void *), void *, void *);

static void stopAllDispatches(void *Unused) {
  (void)Unused;
  static void (*Stop)(void);
  if (!Stop)
    Stop = (void (*)(void))dlsym(RTLD_DEFAULT, "loom_hsa_stop_all_dispatches");
  if (Stop)
    Stop();
}

int __cxa_atexit(void (*Fn)(void *), void *Arg, void *Dso) {
  static CxaAtexit Real;
  static int (*Armed)(void);
  if (!Real)
    Real = (CxaAtexit)dlsym(RTLD_NEXT, "__cxa_atexit");
  int R = Real(Fn, Arg, Dso);
  if (Fn == stopAllDispatches)
    return R;
  if (!Armed)
    Armed = (int (*)(void))dlsym(RTLD_DEFAULT, "loom_hsa_exit_guard_armed");
  if (Armed && Armed())
    Real(stopAllDispatches, 0, 0);
  return R;
}
