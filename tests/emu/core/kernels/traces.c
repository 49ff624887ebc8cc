// Kernels for the trace compiler's tests (TraceCompilerTest.cpp): loops hot enough
// to be compiled, whose bodies mix the operations it handles.
#define KERNEL __attribute__((amdgpu_kernel, visibility("default")))

static inline unsigned gid(void) {
  return __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() +
         __builtin_amdgcn_workitem_id_x();
}

// Integer and float ALU work, compares, 64-bit carries and divergent
// branches in one loop.
KERNEL void mix(unsigned *out_u, float *out_f, const unsigned *in, int iters) {
  unsigned g = gid();
  unsigned x = in[g], y = x * 2654435761u + 12345u;
  float f = (float)(x & 1023u) * 0.25f, h = 1.5f;
  unsigned long long acc = x;
  for (int i = 0; i < iters; ++i) {
    if (x & 1u)
      x = x * 3u + 1u;
    else if (x & 2u)
      x ^= x >> 3;
    else
      x = (x >> 1) + 7u;
    y = (y << 3) | (y >> 29);
    y -= x;
    acc += (unsigned long long)y * 7u;
    if ((int)y < (int)x)
      f = f * 0.999f + h;
    else
      f = f - 0.5f * h;
    h = __builtin_fmaf(h, 1.0001f, -0.0001f);
  }
  out_u[2 * g] = x ^ (unsigned)acc;
  out_u[2 * g + 1] = (unsigned)(acc >> 32) + y;
  out_f[g] = f + h;
}

// f32 denormals flushed (MODE.FP_DENORM, set with s_setreg): the compiled
// code keeps denormals as the host does, so these traces must stay
// interpreted.
KERNEL void flush_denormals(float *out, const float *in, int iters) {
  // hwreg(HW_REG_MODE, 4, 2) = 0: f32 denormals flushed on input and output.
  __builtin_amdgcn_s_setreg(1 | (4 << 6) | ((2 - 1) << 11), 0);
  unsigned g = gid();
  float s = in[g], t = in[g] * 0.75f;
  for (int i = 0; i < iters; ++i) {
    s = s * 1.0625f + 1e-41f;
    t = t * 0.5f + s;
  }
  out[g] = s + t;
}

// copysign is v_bfi_b32 with a constant mask: the pattern LLVM 22.1's
// AVX-512 backend miscompiled (TraceCompiler.cpp); the lanes alternate signs.
KERNEL void copy_signs(float *out, const float *a, const float *b, int iters) {
  unsigned g = gid();
  float x = a[g], y = b[g];
  for (int i = 0; i < iters; ++i) {
    x = __builtin_copysignf(x, y) * 1.0009765625f;
    y = __builtin_copysignf(y, -x);
  }
  out[g] = x + y;
}

// Collatz steps on 64-bit values: at -O2, v_mad_u64_u32 and v_pk_mov_b32
// with op_sel (the loop of bench/programs/Divergence), each lane leaving the
// loop at its own iteration.
KERNEL void collatz64(unsigned *out, unsigned long start, int limit) {
  unsigned g = gid();
  unsigned long x = start + g;
  int steps = 0;
  while (x != 1 && steps < limit) {
    x = (x & 1) ? 3 * x + 1 : x >> 1;
    ++steps;
  }
  out[2 * g] = (unsigned)steps;
  out[2 * g + 1] = (unsigned)(x >> 17) ^ (unsigned)x;
}
