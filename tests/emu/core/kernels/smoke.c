// Tiny kernels for the emulator's own tests: each exercises the dispatch
// ABI (kernarg pointer, work-group and work-item ids) with few opcodes.
#define KERNEL __attribute__((amdgpu_kernel, visibility("default")))

// out[i] = i for every work-item i of a 1-D grid.
KERNEL void write_ids(unsigned *out) {
  unsigned i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
  out[i] = i;
}

// out[i] = in[i] << 2.
KERNEL void shift_copy(unsigned *out, const unsigned *in) {
  unsigned i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
  out[i] = in[i] << 2;
}

// Stores through a pointer given as an argument: a wild one faults.
KERNEL void store_to(unsigned *p) { p[__builtin_amdgcn_workitem_id_x()] = 1; }

KERNEL void trap_now(unsigned *p) { __builtin_trap(); }
