//===- counters.cpp - A straight-line kernel for the counter check --------===//
#include "Kernel.h"

// No branch and no call at any optimisation level: every wave runs every
// instruction exactly once (the test checks this in the disassembly).
DIFF_KERNEL straight_line(float *Out, const float *In) {
  uint32_t I = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
  Out[I] = In[I] * 3.0f + 1.0f;
}
