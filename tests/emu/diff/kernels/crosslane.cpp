//===- crosslane.cpp - Cross-lane operations within one wave --------------===//
//
// ds_bpermute / ds_permute, v_readlane / v_readfirstlane, ballot and mbcnt,
// DPP (through __builtin_amdgcn_update_dpp) and ds_swizzle. Results are laid
// out structure-of-arrays: result K of work-item I at Out[K * Total + I].
// The host reference is written from the documented lane semantics.
//
//===----------------------------------------------------------------------===//
#include "Kernel.h"
#include "KernelAbi.h"

using namespace diff;

// dpp_ctrl encodings (GFX9).
enum : int {
  RowShl = 0x100,
  RowShr = 0x110,
  RowRor = 0x120,
  WaveShl1 = 0x130,
  WaveRol1 = 0x134,
  WaveShr1 = 0x138,
  WaveRor1 = 0x13c,
  RowMirror = 0x140,
  RowHalfMirror = 0x141,
  RowBcast15 = 0x142,
  RowBcast31 = 0x143,
};

template <int Ctrl, int RowMask = 0xf, int BankMask = 0xf, bool Bound = false>
DIFF_FN uint32_t dpp(uint32_t Old, uint32_t Src) {
  return (uint32_t)__builtin_amdgcn_update_dpp((int)Old, (int)Src, Ctrl,
                                               RowMask, BankMask, Bound);
}

#define DIFF_SWIZZLE(Src, Pattern)                                             \
  (uint32_t)__builtin_amdgcn_ds_swizzle((int)(Src), Pattern)

DIFF_KERNEL crosslane(uint32_t *Out, const uint32_t *In, const uint32_t *Perm,
                      uint32_t ReadLane, uint32_t Total) {
  uint32_t I = globalId();
  uint32_t L = laneId();
  uint32_t V = In[I];
  uint32_t Old = 0xa0000000u | L;
  uint32_t K = 0;
  uint32_t *O = Out + I;
#define PUT(X) O[(uint64_t)(K++) * Total] = (X)
  PUT((uint32_t)__builtin_amdgcn_ds_bpermute((int)(Perm[I] * 4), (int)V));
  PUT((uint32_t)__builtin_amdgcn_ds_permute((int)(Perm[I] * 4), (int)V));
  PUT((uint32_t)__builtin_amdgcn_readlane((int)V, (int)ReadLane));
  uint32_t First = 0xffffffffu;
  if (V & 1)
    First = (uint32_t)__builtin_amdgcn_readfirstlane((int)V);
  PUT(First);
  uint64_t Ballot = __builtin_amdgcn_ballot_w64((V & 3) == 0);
  PUT((uint32_t)Ballot);
  PUT((uint32_t)(Ballot >> 32));
  PUT(__builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u)));
  PUT(__builtin_amdgcn_mbcnt_hi((uint32_t)(Ballot >> 32),
                                __builtin_amdgcn_mbcnt_lo((uint32_t)Ballot, 0u)));
  uint64_t Exec = 0;
  if (V % 3 == 0)
    Exec = __builtin_amdgcn_read_exec();
  PUT((uint32_t)Exec);
  PUT((uint32_t)(Exec >> 32));
  // DPP: invalid source lanes keep Old unless bound_ctrl asks for zero;
  // lanes outside row_mask/bank_mask keep Old.
  PUT((dpp<0x1b>(Old, V)));          // quad_perm [3,2,1,0]
  PUT((dpp<0xb1>(Old, V)));          // quad_perm [1,0,3,2]
  PUT((dpp<RowShl + 1>(Old, V)));
  PUT((dpp<RowShl + 15>(Old, V)));
  PUT((dpp<RowShr + 1>(Old, V)));
  PUT((dpp<RowShr + 3>(Old, V)));
  PUT((dpp<RowRor + 5>(Old, V)));
  PUT((dpp<RowRor + 15>(Old, V)));
  PUT((dpp<WaveShl1>(Old, V)));
  PUT((dpp<WaveRol1>(Old, V)));
  PUT((dpp<WaveShr1>(Old, V)));
  PUT((dpp<WaveRor1>(Old, V)));
  PUT((dpp<RowMirror>(Old, V)));
  PUT((dpp<RowHalfMirror>(Old, V)));
  PUT((dpp<RowBcast15, 0xa>(Old, V)));
  PUT((dpp<RowBcast31, 0xc>(Old, V)));
  PUT((dpp<RowShr + 1, 0x6, 0x5>(Old, V)));
  PUT((dpp<RowShr + 2, 0xf, 0xf, true>(Old, V)));
  PUT((dpp<RowShl + 3, 0xf, 0xf, false>(Old, V)));
  // ds_swizzle: QDMode [3,2,1,0]; BitMode swap 16; broadcast lane 5 of each
  // 32; reverse within 8.
  PUT(DIFF_SWIZZLE(V, 0x801b));
  PUT(DIFF_SWIZZLE(V, 0x401f));
  PUT(DIFF_SWIZZLE(V, 0x00a0));
  PUT(DIFF_SWIZZLE(V, 0x1c1f));
  // Inclusive wave prefix sum the way LLVM's atomic optimizer builds it:
  // row_shr 1/2/4/8, then row_bcast15 and row_bcast31.
  uint32_t S = V;
  S += dpp<RowShr + 1>(0u, S);
  S += dpp<RowShr + 2>(0u, S);
  S += dpp<RowShr + 4>(0u, S);
  S += dpp<RowShr + 8>(0u, S);
  S += dpp<RowBcast15, 0xa>(0u, S);
  S += dpp<RowBcast31, 0xc>(0u, S);
  PUT(S);
  PUT((uint32_t)__builtin_amdgcn_readlane((int)S, 63));
  // A uniform loop of v_readlane with the lane in an SGPR.
  uint32_t Sum = 0;
  for (uint32_t Lane = 0; Lane < 64; Lane += 9)
    Sum = Sum * 31 + (uint32_t)__builtin_amdgcn_readlane((int)V, (int)Lane);
  PUT(Sum);
#undef PUT
}
