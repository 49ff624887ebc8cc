// The probe tool's hooks: a global to read and write, a hook that does
// nothing.
#include "loom/instrument/Hooks.h"

LOOM_DEVICE unsigned long long ProbeValue;

LOOM_HOOK void probe_entry() {}
