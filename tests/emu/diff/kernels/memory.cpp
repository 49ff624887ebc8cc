//===- memory.cpp - 64-bit pointer arithmetic and struct copies -----------===//
#include "Kernel.h"
#include "MemoryOps.h"

using namespace diff;

DIFF_KERNEL pointer_ops(uint64_t *Out, const uint8_t *Base, uint64_t Size,
                        uint32_t N) {
  uint32_t I = globalId();
  if (I < N)
    pointerOps(Base, Size, I, Out + (uint64_t)I * PointerOpCount);
}

DIFF_KERNEL pointer_store(uint8_t *Base, uint64_t Size, const uint32_t *Values,
                          uint32_t N) {
  uint32_t I = globalId();
  if (I < N)
    pointerStore(Base, Size, I, Values[I]);
}

DIFF_KERNEL walk_list(uint32_t *Out, Node *const *Heads, uint32_t Steps,
                      uint32_t N) {
  uint32_t I = globalId();
  if (I < N)
    Out[I] = walkList(Heads[I], Steps + (I & 7));
}

DIFF_KERNEL record_copy(Record *Out, const Record *In, uint32_t N) {
  uint32_t I = globalId();
  if (I < N)
    Out[I] = mixRecord(In[N - 1 - I], I);
}

DIFF_KERNEL big_copy(Big *Out, const Big *In, uint32_t N) {
  uint32_t I = globalId();
  if (I < N)
    bigCopy(&Out[I], &In[(I * 5) % N], I);
}

// clang has no builtin for a structured buffer load: LLVM's intrinsic.
extern "C" uint32_t structBufferLoad(__amdgpu_buffer_rsrc_t Rsrc,
                                     uint32_t Index, uint32_t Offset,
                                     uint32_t SOffset, uint32_t Aux) __asm(
    "llvm.amdgcn.struct.ptr.buffer.load.i32");

// MUBUF range checking: through V#s of Records bytes, loads of lanes out of
// range read 0 and their stores are dropped. Raw buffers check the offset
// (offen; with the offset field; with an inline soffset, which the check
// leaves out; a dwordx2 per dword), a structured one (stride 8) the index.
DIFF_KERNEL buffer_ranges(uint32_t *Out, const uint32_t *In,
                          uint32_t Records) {
  typedef uint32_t Pair __attribute__((ext_vector_type(2)));
  uint32_t I = globalId();
  uint32_t *From = const_cast<uint32_t *>(In);
  __amdgpu_buffer_rsrc_t Raw =
      __builtin_amdgcn_make_buffer_rsrc(From, 0, Records, 0x00027000);
  __amdgpu_buffer_rsrc_t Structured =
      __builtin_amdgcn_make_buffer_rsrc(From, 8, Records / 8, 0x00027000);
  __amdgpu_buffer_rsrc_t Into =
      __builtin_amdgcn_make_buffer_rsrc(Out, 0, Records, 0x00027000);
  uint32_t A = __builtin_amdgcn_raw_buffer_load_b32(Raw, I * 4, 0, 0);
  uint32_t B = __builtin_amdgcn_raw_buffer_load_b32(Raw, I * 4 + 12, 0, 0);
  uint32_t C = __builtin_amdgcn_raw_buffer_load_b32(Raw, I * 4, 8, 0);
  Pair D = __builtin_amdgcn_raw_buffer_load_b64(Raw, I * 8, 0, 0);
  uint32_t E = structBufferLoad(Structured, I, 4, 0, 0);
  __builtin_amdgcn_raw_buffer_store_b32(A * 3 + (B ^ C) + D.x * 5 + D.y + E * 7,
                                        Into, I * 4, 0, 0);
}
