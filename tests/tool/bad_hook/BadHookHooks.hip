// A hook that cannot be compiled into instrumented code: it calls a
// function nothing defines.
#include "loom/instrument/Hooks.h"

extern "C" __attribute__((device)) void loom_test_undefined_function();

LOOM_HOOK void bad_hook() { loom_test_undefined_function(); }
