// Kernels for the emulator's throughput benchmarks (bench/EmuBench.cpp).
// Each does a fixed amount of work per work-item so that wave-instructions
// per dispatch are known from one counted run.
#define KERNEL __attribute__((amdgpu_kernel, visibility("default")))

typedef _Float16 half8 __attribute__((ext_vector_type(4)));
typedef float float16v __attribute__((ext_vector_type(16)));

static inline unsigned gid(void) {
  return __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() +
         __builtin_amdgcn_workitem_id_x();
}

// FMA-bound: eight independent v_fmac_f32 chains per iteration (pinned
// with inline asm so the loop is 8 FMAs plus 3 scalar loop instructions).
#define FMAC(acc) asm volatile("v_fmac_f32 %0, %1, %2" : "+v"(acc) : "v"(x), "v"(y))
KERNEL void fma_loop(float *out, int iters) {
  float x = gid() * 1e-6f, y = 0.999f;
  float a0 = 0, a1 = 1, a2 = 2, a3 = 3, a4 = 4, a5 = 5, a6 = 6, a7 = 7;
  for (int i = 0; i < iters; ++i) {
    FMAC(a0); FMAC(a1); FMAC(a2); FMAC(a3);
    FMAC(a4); FMAC(a5); FMAC(a6); FMAC(a7);
  }
  out[gid()] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}

// Memory stream: y = a * x + y over large arrays.
KERNEL void stream(float *y, const float *x, float a, int n) {
  unsigned stride = __builtin_amdgcn_workgroup_size_x() * 1024u;
  for (unsigned i = gid(); i < (unsigned)n; i += stride)
    y[i] = a * x[i] + y[i];
}

__attribute__((address_space(3), loader_uninitialized)) unsigned tile[256];

// LDS and barriers: each round writes LDS, synchronises, reads a neighbour.
KERNEL void lds_barrier(unsigned *out, int rounds) {

  unsigned l = __builtin_amdgcn_workitem_id_x(), v = l;
  for (int r = 0; r < rounds; ++r) {
    tile[l] = v;
    __builtin_amdgcn_s_barrier();
    v += tile[(l + 1) & 255];
    __builtin_amdgcn_s_barrier();
  }
  out[gid()] = v;
}

// Branchy, divergent: lanes take different paths every iteration.
static inline unsigned divergent_work(int iters) {
  unsigned x = gid() * 2654435761u + 1;
  for (int i = 0; i < iters; ++i) {
    if (x & 1)
      x = x * 3 + 1;
    else if (x & 2)
      x ^= x >> 3;
    else
      x = (x >> 1) + 7;
  }
  return x;
}

KERNEL void branchy(unsigned *out, int iters) { out[gid()] = divergent_work(iters); }

// Spin-wait: branchy's work in every work-group; with `wait`, work-group 0
// first spins on a flag that the last work-group sets when it is done (and
// resets it for the next dispatch). Without spin-wait detection work-group
// 0 would burn its time slices while the others run.
KERNEL void spin_wait(unsigned *out, unsigned *flag, int iters, int wait) {
  unsigned g = __builtin_amdgcn_workgroup_id_x();
  unsigned last = __builtin_amdgcn_grid_size_x() / __builtin_amdgcn_workgroup_size_x() - 1;
  if (wait && g == 0) {
    while (!__scoped_atomic_load_n(flag, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE))
      ;
    __scoped_atomic_store_n(flag, 0u, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);
  }
  out[gid()] = divergent_work(iters);
  if (wait && g == last)
    __scoped_atomic_store_n(flag, 1u, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);
}

// MFMA: a chain of 32x32x8 f16 matrix multiply-accumulates.
KERNEL void mfma_loop(float *out, int iters) {
  half8 a = {1, 2, 3, 4}, b = {0.5, 0.25, 0.125, 1};
  float16v acc = {0};
  for (int i = 0; i < iters; ++i)
    acc = __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, acc, 0, 0, 0);
  float s = 0;
  for (int i = 0; i < 16; ++i)
    s += acc[i];
  out[gid()] = s;
}

// Nothing: the dispatch round trip of the HSA runtime (bench/HsaBench.cpp).
KERNEL void empty(void) {}
