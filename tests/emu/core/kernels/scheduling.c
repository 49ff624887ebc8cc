// Kernels whose work-groups wait for each other: they finish only if the
// scheduler lets a waiting group's host thread run the others (time slices,
// spin-wait detection, admitting more resident groups).
#define KERNEL __attribute__((amdgpu_kernel, visibility("default")))
#define RELAXED __ATOMIC_RELAXED
#define AGENT __MEMORY_SCOPE_DEVICE

static unsigned group(void) { return __builtin_amdgcn_workgroup_id_x(); }

// Work-group 0 spins until the last work-group has set the flag.
KERNEL void wait_for_last(unsigned *flag, unsigned *out, unsigned last) {
  unsigned g = group();
  if (g == 0)
    while (!__scoped_atomic_load_n(flag, RELAXED, AGENT))
      ;
  if (g == last)
    __scoped_atomic_store_n(flag, 1u, RELAXED, AGENT);
  out[g * 64 + __builtin_amdgcn_workitem_id_x()] = g;
}

// Work-group g waits until `count` reaches the turn it is given (g, or
// last - g for `reverse`), records the count it saw, and passes the turn on.
static void take_turn(unsigned *count, unsigned *seen, unsigned turn) {
  if (__builtin_amdgcn_workitem_id_x() != 0)
    return;
  while (__scoped_atomic_load_n(count, RELAXED, AGENT) != turn)
    ;
  seen[group()] = __scoped_atomic_fetch_add(count, 1u, RELAXED, AGENT);
}

KERNEL void in_order(unsigned *count, unsigned *seen) {
  take_turn(count, seen, group());
}

KERNEL void reverse_order(unsigned *count, unsigned *seen, unsigned last) {
  take_turn(count, seen, last - group());
}
