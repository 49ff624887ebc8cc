// MFMA through clang's builtins, for MatrixTest.cpp. Each kernel is one
// wave that loads row-major matrices into registers as AMD documents the
// gfx90a layouts (the equations of ROCm's amd_matrix_instruction_calculator,
// written here independently of the emulator), runs one MFMA and stores D
// row-major, so the host can check D = A * B + C directly.
#define KERNEL __attribute__((amdgpu_kernel, visibility("default")))

typedef float f32x4 __attribute__((ext_vector_type(4)));
typedef float f32x16 __attribute__((ext_vector_type(16)));
typedef float f32x32 __attribute__((ext_vector_type(32)));
typedef int i32x16 __attribute__((ext_vector_type(16)));
typedef double f64x4 __attribute__((ext_vector_type(4)));
typedef _Float16 f16x4 __attribute__((ext_vector_type(4)));
typedef short i16x4 __attribute__((ext_vector_type(4)));

static unsigned lane(void) { return __builtin_amdgcn_workitem_id_x(); }

// 32x32 results (one block): register r, lane L holds
// D[8 * (r / 4) + 4 * (L / 32) + r % 4][L % 32].
static unsigned row32(unsigned R, unsigned L) {
  return 8 * (R / 4) + 4 * (L / 32) + R % 4;
}
// 16x16 results (one block): register r, lane L holds D[4 * (L / 16) + r][L % 16].
static unsigned row16(unsigned R, unsigned L) { return 4 * (L / 16) + R; }

// A 32x8, B 8x32: lane L holds A[L % 32][4 * (L / 32) + e] and
// B[4 * (L / 32) + e][L % 32] in half e of its register pair.
KERNEL void mm_32x32x8f16(const _Float16 *A, const _Float16 *B,
                          const float *C, float *D) {
  unsigned L = lane(), K0 = 4 * (L / 32);
  f16x4 a, b;
  f32x16 acc;
  for (int e = 0; e < 4; ++e) {
    a[e] = A[(L % 32) * 8 + K0 + e];
    b[e] = B[(K0 + e) * 32 + L % 32];
  }
  for (int r = 0; r < 16; ++r)
    acc[r] = C[row32(r, L) * 32 + L % 32];
  acc = __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, acc, 0, 0, 0);
  for (int r = 0; r < 16; ++r)
    D[row32(r, L) * 32 + L % 32] = acc[r];
}

// A 16x16, B 16x16: lane L holds k = 4 * (L / 16) + e of row/column L % 16.
KERNEL void mm_16x16x16f16(const _Float16 *A, const _Float16 *B,
                           const float *C, float *D) {
  unsigned L = lane(), K0 = 4 * (L / 16);
  f16x4 a, b;
  f32x4 acc;
  for (int e = 0; e < 4; ++e) {
    a[e] = A[(L % 16) * 16 + K0 + e];
    b[e] = B[(K0 + e) * 16 + L % 16];
  }
  for (int r = 0; r < 4; ++r)
    acc[r] = C[row16(r, L) * 16 + L % 16];
  acc = __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, acc, 0, 0, 0);
  for (int r = 0; r < 4; ++r)
    D[row16(r, L) * 16 + L % 16] = acc[r];
}

// A 32x2, B 2x32: lane L holds k = L / 32 of row/column L % 32.
KERNEL void mm_32x32x2f32(const float *A, const float *B, const float *C,
                          float *D) {
  unsigned L = lane();
  f32x16 acc;
  for (int r = 0; r < 16; ++r)
    acc[r] = C[row32(r, L) * 32 + L % 32];
  acc = __builtin_amdgcn_mfma_f32_32x32x2f32(A[(L % 32) * 2 + L / 32],
                                             B[(L / 32) * 32 + L % 32], acc, 0,
                                             0, 0);
  for (int r = 0; r < 16; ++r)
    D[row32(r, L) * 32 + L % 32] = acc[r];
}

// A 16x4, B 4x16: lane L holds k = L / 16 of row/column L % 16.
KERNEL void mm_16x16x4f32(const float *A, const float *B, const float *C,
                          float *D) {
  unsigned L = lane();
  f32x4 acc;
  for (int r = 0; r < 4; ++r)
    acc[r] = C[row16(r, L) * 16 + L % 16];
  acc = __builtin_amdgcn_mfma_f32_16x16x4f32(A[(L % 16) * 4 + L / 16],
                                             B[(L / 16) * 16 + L % 16], acc, 0,
                                             0, 0);
  for (int r = 0; r < 4; ++r)
    D[row16(r, L) * 16 + L % 16] = acc[r];
}

// 16 blocks of 4x4x1: A[b][i] at lane 4b + i, B[b][j] at lane 4b + j;
// D[b][i][j] in register i, lane 4b + j. Matrices are [block][row][col].
KERNEL void mm_4x4x1f32(const float *A, const float *B, const float *C,
                        float *D) {
  unsigned L = lane(), Blk = L / 4;
  f32x4 acc;
  for (int r = 0; r < 4; ++r)
    acc[r] = C[Blk * 16 + r * 4 + L % 4];
  acc = __builtin_amdgcn_mfma_f32_4x4x1f32(A[L], B[L], acc, 0, 0, 0);
  for (int r = 0; r < 4; ++r)
    D[Blk * 16 + r * 4 + L % 4] = acc[r];
}

// A 32x8, B 8x32 of int8: byte e of lane L holds k = 4 * (L / 32) + e.
KERNEL void mm_32x32x8i8(const signed char *A, const signed char *B,
                         const int *C, int *D) {
  unsigned L = lane(), K0 = 4 * (L / 32);
  unsigned a = 0, b = 0;
  i32x16 acc;
  for (int e = 0; e < 4; ++e) {
    a |= (unsigned)(unsigned char)A[(L % 32) * 8 + K0 + e] << (8 * e);
    b |= (unsigned)(unsigned char)B[(K0 + e) * 32 + L % 32] << (8 * e);
  }
  for (int r = 0; r < 16; ++r)
    acc[r] = C[row32(r, L) * 32 + L % 32];
  acc = __builtin_amdgcn_mfma_i32_32x32x8i8((int)a, (int)b, acc, 0, 0, 0);
  for (int r = 0; r < 16; ++r)
    D[row32(r, L) * 32 + L % 32] = acc[r];
}

// Two blocks of 32x32x4 bf16 (raw bits): lane 32b + i holds k = 0..3 of row
// (column) i of block b; D[b] is in registers 16b..16b+15, laid out as a
// one-block 32x32 result.
KERNEL void mm_32x32x4bf16_1k(const unsigned short *A, const unsigned short *B,
                              const float *C, float *D) {
  unsigned L = lane(), Blk = L / 32;
  i16x4 a, b;
  f32x32 acc;
  for (int e = 0; e < 4; ++e) {
    a[e] = (short)A[Blk * 128 + (L % 32) * 4 + e];
    b[e] = (short)B[Blk * 128 + e * 32 + L % 32];
  }
  for (int r = 0; r < 32; ++r)
    acc[r] = C[(r / 16) * 1024 + row32(r % 16, L) * 32 + L % 32];
  acc = __builtin_amdgcn_mfma_f32_32x32x4bf16_1k(a, b, acc, 0, 0, 0);
  for (int r = 0; r < 32; ++r)
    D[(r / 16) * 1024 + row32(r % 16, L) * 32 + L % 32] = acc[r];
}

// A 16x4, B 4x16 of f64: lane L holds k = L / 16 of row/column L % 16;
// D register pair r, lane L holds D[4r + L / 16][L % 16].
KERNEL void mm_16x16x4f64(const double *A, const double *B, const double *C,
                          double *D) {
  unsigned L = lane();
  f64x4 acc;
  for (int r = 0; r < 4; ++r)
    acc[r] = C[(4 * r + L / 16) * 16 + L % 16];
  acc = __builtin_amdgcn_mfma_f64_16x16x4f64(A[(L % 16) * 4 + L / 16],
                                             B[(L / 16) * 16 + L % 16], acc, 0,
                                             0, 0);
  for (int r = 0; r < 4; ++r)
    D[(4 * r + L / 16) * 16 + L % 16] = acc[r];
}

// Four blocks of 4x4x4 f64: A[b][i][k] at lane 4b + 16k + i, B[b][k][j] at
// lane 4b + 16k + j, D[b][i][j] at lane 16i + 4b + j.
KERNEL void mm_4x4x4f64(const double *A, const double *B, const double *C,
                        double *D) {
  unsigned L = lane(), Blk = (L / 4) % 4, X = L % 4, Y = L / 16;
  double acc = C[Blk * 16 + Y * 4 + X];
  acc = __builtin_amdgcn_mfma_f64_4x4x4f64(A[Blk * 16 + X * 4 + Y],
                                           B[Blk * 16 + Y * 4 + X], acc, 0, 0,
                                           0);
  D[Blk * 16 + Y * 4 + X] = acc;
}
