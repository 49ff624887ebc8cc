// Shared by the counting tools' host code and their hooks (CountHooks.hip):
// how many counter slots (each two 64-bit words: waves, lanes) the device
// array LoomCounts holds, per agent. Kernels get slots as they are
// instrumented; a kernel that does not fit runs its original code, with a
// message.
#ifndef LOOM_TOOLS_COMMON_COUNTSLOTS_H
#define LOOM_TOOLS_COMMON_COUNTSLOTS_H
#define LOOM_COUNT_SLOTS 65536
#endif
