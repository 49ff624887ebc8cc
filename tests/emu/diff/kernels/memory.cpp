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
