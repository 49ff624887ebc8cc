// Shared by the counting tools' host code and their hooks (CountHooks.hip):
// how many counter slots (each two 64-bit words: waves, lanes) the device
// array LoomCounts holds, per agent. Kernels get slots as they are
// instrumented; a kernel that does not fit runs its original code, with a
// message.
#ifndef LOOM_TOOLS_COMMON_COUNTSLOTS_H
#define LOOM_TOOLS_COMMON_COUNTSLOTS_H
#define LOOM_COUNT_SLOTS 65536
// A point a wave passes at most once per dispatch (a kernel's blocks outside
// loops, an `if (i < n)`'s losses) adds its wave and its lanes to one word
// with one atomic: (waves << LOOM_COUNT_WAVE_SHIFT) | lanes. Exact while
// the dispatch has fewer than 2^(64 - LOOM_COUNT_WAVE_SHIFT) = 2^29 waves
// (their lanes, at most 64 a wave, then fit the low 35 bits); a larger
// dispatch runs uninstrumented (Counting.h, Counter::choose).
#define LOOM_COUNT_WAVE_SHIFT 35
#endif
