//===- lds.cpp - LDS with barriers across the waves of a work-group -------===//
//
// Work-groups of 256 work-items (four waves), so every barrier orders the
// LDS accesses of different waves.
//
//===----------------------------------------------------------------------===//
#include "Kernel.h"

inline constexpr uint32_t Group = 256;

DIFF_FN uint32_t groupGlobalId() {
  return __builtin_amdgcn_workgroup_id_x() * Group + __builtin_amdgcn_workitem_id_x();
}

DIFF_LDS static uint32_t Tile[Group];
DIFF_LDS static uint32_t Scan[2][Group];

// Tree reduction: one sum per work-group.
DIFF_KERNEL lds_reduce(uint32_t *Out, const uint32_t *In) {
  uint32_t T = laneId();
  Tile[T] = In[groupGlobalId()];
  syncGroup();
  for (uint32_t S = Group / 2; S > 0; S >>= 1) {
    if (T < S)
      Tile[T] += Tile[T + S];
    syncGroup();
  }
  if (T == 0)
    Out[__builtin_amdgcn_workgroup_id_x()] = Tile[0];
}

// Hillis-Steele inclusive scan, double-buffered.
DIFF_KERNEL lds_scan(uint32_t *Out, const uint32_t *In) {
  uint32_t T = laneId();
  uint32_t P = 0;
  Scan[0][T] = In[groupGlobalId()];
  syncGroup();
  for (uint32_t Off = 1; Off < Group; Off <<= 1) {
    uint32_t V = Scan[P][T];
    if (T >= Off)
      V += Scan[P][T - Off];
    Scan[1 - P][T] = V;
    P = 1 - P;
    syncGroup();
  }
  Out[groupGlobalId()] = Scan[P][T];
}

DIFF_KERNEL lds_reverse(uint32_t *Out, const uint32_t *In) {
  uint32_t T = laneId();
  Tile[T] = In[groupGlobalId()];
  syncGroup();
  Out[groupGlobalId()] = Tile[Group - 1 - T] ^ T;
}

// 16x16 work-groups: a tile transpose through LDS, rows padded to 17 words.
DIFF_LDS static float Tile2D[16][17];

DIFF_KERNEL lds_transpose(float *Out, const float *In, uint32_t Width) {
  uint32_t X = __builtin_amdgcn_workitem_id_x(), Y = __builtin_amdgcn_workitem_id_y();
  uint32_t Bx = __builtin_amdgcn_workgroup_id_x() * 16;
  uint32_t By = __builtin_amdgcn_workgroup_id_y() * 16;
  Tile2D[Y][X] = In[(uint64_t)(By + Y) * Width + Bx + X];
  syncGroup();
  Out[(uint64_t)(Bx + Y) * Width + By + X] = Tile2D[X][Y];
}

// Dynamic LDS (LaunchConfig::DynamicLdsBytes) lies after the static LDS.
extern __attribute__((address_space(3))) uint32_t DynamicLds[];

DIFF_KERNEL lds_dynamic(uint32_t *Out, const uint32_t *In, uint32_t Count) {
  uint32_t T = laneId();
  Tile[T] = T * 7;
  for (uint32_t K = T; K < Count; K += Group)
    DynamicLds[K] = In[K] * 3;
  syncGroup();
  uint32_t S = 0;
  for (uint32_t K = T; K < Count; K += Group)
    S += DynamicLds[Count - 1 - K];
  Out[groupGlobalId()] = S + Tile[(T + 1) % Group];
}

DIFF_LDS static uint8_t Bytes[Group];
DIFF_LDS static uint16_t Shorts[Group];
DIFF_LDS static uint64_t Quads[Group];
DIFF_LDS static double Doubles[Group];

// 8/16/64-bit LDS accesses and sign extension.
DIFF_KERNEL lds_widths(uint64_t *Out, const uint64_t *In) {
  uint32_t T = laneId();
  uint64_t V = In[groupGlobalId()];
  Bytes[T] = (uint8_t)V;
  Shorts[T] = (uint16_t)(V >> 8);
  Quads[T] = V * 0x9e3779b97f4a7c15ull;
  Doubles[T] = (double)(uint32_t)V * 0.25;
  syncGroup();
  uint64_t R = Bytes[(T + 3) % Group];
  R += (uint64_t)(int64_t)(int8_t)Bytes[(T + 5) % Group] << 8;
  R ^= (uint64_t)(int64_t)(int16_t)Shorts[(T + 17) % Group] << 16;
  R += Quads[(T + 64) % Group];
  R ^= diff::bitsOf(Doubles[(T * 3) % Group]);
  Out[groupGlobalId()] = R;
}

// LDS DMA: loads whose dwords go straight to LDS, lane L's to M0 + 4 L (the
// wave's 64 words): buffer_load_dword ... lds through a V# of In's first
// half, and global_load ... lds (global_load_lds_dword on gfx942) from its
// second half. Count: the work-items of the grid.
DIFF_KERNEL lds_dma(uint32_t *Out, const uint32_t *In, uint32_t Count) {
  uint32_t T = laneId(), I = groupGlobalId();
  uint32_t Wave = uint32_t(__builtin_amdgcn_readfirstlane(T)) / 64;
  __amdgpu_buffer_rsrc_t R = __builtin_amdgcn_make_buffer_rsrc(
      const_cast<uint32_t *>(In), 0, Count * 4, 0x00027000);
  __builtin_amdgcn_raw_ptr_buffer_load_lds(
      R, (__attribute__((address_space(3))) void *)&Tile[Wave * 64], 4, I * 4,
      0, 0, 0);
  __builtin_amdgcn_global_load_lds(
      (__attribute__((address_space(1))) void *)(In + Count + I),
      (__attribute__((address_space(3))) void *)&Scan[0][Wave * 64], 4, 0, 0);
  __builtin_amdgcn_s_waitcnt(0); // the DMA's LDS writes are in vmcnt
  syncGroup();
  Out[I] = Tile[(T + 65) % Group] * 3 + Scan[0][(T + 130) % Group];
}
