//===- dispatch.cpp - Work-item and work-group ids of a 3-D dispatch ------===//
//
// Reads everything the dispatch ABI gives a kernel about where it runs:
// packed work-item ids (v0 on gfx90a), work-group id SGPRs, the work-group
// size (hidden_group_size_*), the grid size from the dispatch packet, and the
// hidden arguments that describe partial work-groups (hidden_block_count_*:
// full groups only; hidden_remainder_*: size of the partial group or 0).
//
//===----------------------------------------------------------------------===//
#include "Kernel.h"
#include "KernelAbi.h"

using diff::DispatchFields;

// Wx/Wy/Wz: the full work-group size; GridX/GridY: the grid size, to place
// each work-item's record at its linear global index.
DIFF_KERNEL dispatch_ids(uint32_t *Out, uint32_t Wx, uint32_t Wy, uint32_t Wz,
                         uint32_t GridX, uint32_t GridY) {
  uint32_t Tx = __builtin_amdgcn_workitem_id_x();
  uint32_t Ty = __builtin_amdgcn_workitem_id_y();
  uint32_t Tz = __builtin_amdgcn_workitem_id_z();
  uint32_t Gx = __builtin_amdgcn_workgroup_id_x();
  uint32_t Gy = __builtin_amdgcn_workgroup_id_y();
  uint32_t Gz = __builtin_amdgcn_workgroup_id_z();
  uint64_t X = (uint64_t)Gx * Wx + Tx, Y = (uint64_t)Gy * Wy + Ty,
           Z = (uint64_t)Gz * Wz + Tz;
  uint32_t *P = Out + DispatchFields * (X + GridX * (Y + GridY * Z));
  P[0] = Tx;
  P[1] = Ty;
  P[2] = Tz;
  P[3] = Gx;
  P[4] = Gy;
  P[5] = Gz;
  P[6] = __builtin_amdgcn_workgroup_size_x();
  P[7] = __builtin_amdgcn_workgroup_size_y();
  P[8] = __builtin_amdgcn_workgroup_size_z();
  P[9] = __builtin_amdgcn_grid_size_x();
  P[10] = __builtin_amdgcn_grid_size_y();
  P[11] = __builtin_amdgcn_grid_size_z();
  typedef const uint32_t __attribute__((address_space(4))) *Words;
  typedef const uint16_t __attribute__((address_space(4))) *Halves;
  auto Implicit = (const uint8_t __attribute__((address_space(4))) *)
      __builtin_amdgcn_implicitarg_ptr();
  for (int D = 0; D < 3; ++D) {
    P[12 + D] = *(Words)(Implicit + 4 * D);
    P[15 + D] = *(Halves)(Implicit + 18 + 2 * D);
  }
}
