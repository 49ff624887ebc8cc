// Device code for Module.hip, compiled by clang-22 (not hipcc) into a bare
// gfx90a code object: clang-22 --target=amdgcn-amd-amdhsa -mcpu=gfx90a
// -nogpulib. Module.hip loads it with hipModuleLoadData.
#define KERNEL __attribute__((amdgpu_kernel, visibility("default")))

// Set by the host through hipModuleGetGlobal.
__attribute__((visibility("default"))) int module_bias = 0;

static unsigned globalId(void) {
  return __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() +
         __builtin_amdgcn_workitem_id_x();
}

// out[i] = a * in[i] + b + module_bias
KERNEL void axpb(int *out, const int *in, int a, int b, int n) {
  unsigned i = globalId();
  if (i < (unsigned)n)
    out[i] = a * in[i] + b + module_bias;
}

// Sums of each work-group's slice through dynamic LDS (the launch's
// sharedMemBytes); one result per work-group.
extern __attribute__((address_space(3))) int lds[];
KERNEL void groupSums(long *out, const int *in) {
  unsigned t = __builtin_amdgcn_workitem_id_x();
  unsigned size = __builtin_amdgcn_workgroup_size_x();
  lds[t] = in[globalId()];
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  if (t == 0) {
    long s = 0;
    for (unsigned k = 0; k < size; ++k)
      s += lds[k];
    out[__builtin_amdgcn_workgroup_id_x()] = s;
  }
}
