//===- devlib/rpc.c - The device side of loom run's host services --------===//
//
// A call is made by the active lanes of one wave together, as in LLVM libc's
// GPU RPC: the first active lane takes a free port, every lane fills its own
// slot, and the first lane publishes the round. The wire format is
// loom/run/RpcWire.h; docs/run.md describes it.
//
//===----------------------------------------------------------------------===//

#include "loom_internal.h"

#include <gpuintrin.h>

struct loom_rpc_buffer *__loom_rpc;

static uint32_t acquire_port(void) {
  // Start at a port that depends on the wave so that waves spread out.
  uint32_t Start =
      (__gpu_block_id_x() * 7 + __gpu_block_id_y() * 13 +
       __gpu_block_id_z() * 31 + __gpu_thread_id_x() / __gpu_num_lanes() * 5) %
      LOOM_RPC_PORTS;
  for (uint32_t Try = 0;; ++Try) {
    uint32_t Port = (Start + Try) % LOOM_RPC_PORTS;
    uint32_t Bit = 1u << (Port % 32);
    uint32_t Old =
        __scoped_atomic_fetch_or(&__loom_rpc->lock[Port / 32], Bit,
                                 __ATOMIC_ACQUIRE, __MEMORY_SCOPE_DEVICE);
    if (!(Old & Bit))
      return Port;
    if (Try % LOOM_RPC_PORTS == LOOM_RPC_PORTS - 1)
      __builtin_amdgcn_s_sleep(2);
  }
}

// A whole 64-byte chunk is the common case: a fixed-size copy the backend
// turns into a few wide loads and stores.
static void copyBytes(void *Dst, const void *Src, uint64_t N) {
  if (N == 64)
    __builtin_memcpy(Dst, Src, 64);
  else
    __builtin_memcpy(Dst, Src, N);
}

loom_rpc_call loom_rpc_open(uint32_t Opcode) {
  loom_rpc_call C;
  C.mask = __gpu_lane_mask();
  uint32_t Port = 0;
  if (__gpu_is_first_in_lane(C.mask))
    Port = acquire_port();
  Port = __gpu_read_first_lane_u32(C.mask, Port);
  C.port = &__loom_rpc->port[Port];
  C.index = Port;
  if (__gpu_is_first_in_lane(C.mask)) {
    C.port->lane_mask = C.mask;
    C.port->opcode = Opcode;
  }
  return C;
}

loom_rpc_slot *loom_rpc_slot_of_lane(loom_rpc_call *C) {
  return &C->port->slot[__gpu_lane_id()];
}

void loom_rpc_round(loom_rpc_call *C) {
  uint32_t Seq = 0;
  __gpu_sync_lane(C->mask);
  if (__gpu_is_first_in_lane(C->mask)) {
    Seq = __scoped_atomic_load_n(&C->port->device_seq, __ATOMIC_RELAXED,
                                 __MEMORY_SCOPE_SYSTEM) +
          1;
    __scoped_atomic_store_n(&C->port->device_seq, Seq, __ATOMIC_RELEASE,
                            __MEMORY_SCOPE_SYSTEM);
    while (__scoped_atomic_load_n(&C->port->host_seq, __ATOMIC_ACQUIRE,
                                  __MEMORY_SCOPE_SYSTEM) != Seq)
      __builtin_amdgcn_s_sleep(1);
  }
  __gpu_sync_lane(C->mask);
  // The other lanes read the reply after the first one saw it arrive.
  __scoped_atomic_thread_fence(__ATOMIC_ACQUIRE, __MEMORY_SCOPE_SYSTEM);
}

void loom_rpc_close(loom_rpc_call *C) {
  __gpu_sync_lane(C->mask);
  if (__gpu_is_first_in_lane(C->mask))
    __scoped_atomic_fetch_and(&__loom_rpc->lock[C->index / 32],
                              ~(1u << (C->index % 32)), __ATOMIC_RELEASE,
                              __MEMORY_SCOPE_DEVICE);
}

uint64_t loom_rpc_call_full(uint32_t Opcode, uint64_t A0, uint64_t A1,
                            uint64_t A2, const void *In, uint64_t InSize,
                            void *Out, uint64_t OutCap, uint64_t *OutSize) {
  loom_rpc_call C = loom_rpc_open(Opcode);
  loom_rpc_slot *S = loom_rpc_slot_of_lane(&C);
  const uint8_t *Src = (const uint8_t *)In;
  S->request.arg[0] = A0;
  S->request.arg[1] = A1;
  S->request.arg[2] = A2;
  S->request.size = InSize;
  uint64_t Sent = InSize < 32 ? InSize : 32;
  copyBytes(S->request.data, Src, Sent);
  loom_rpc_round(&C);
  // Continuation rounds while any lane has payload left.
  while (__gpu_ballot(C.mask, Sent < InSize)) {
    uint64_t N = InSize - Sent < 64 ? InSize - Sent : 64;
    copyBytes(S->bytes, Src + Sent, N);
    Sent += N;
    loom_rpc_round(&C);
  }
  // The slot now holds the reply's first round.
  uint64_t Result = S->reply.result;
  uint64_t Size = S->reply.size;
  uint8_t *Dst = (uint8_t *)Out;
  uint64_t Got = Size < 48 ? Size : 48;
  copyBytes(Dst, S->reply.data, Got < OutCap ? Got : OutCap);
  while (__gpu_ballot(C.mask, Got < Size)) {
    loom_rpc_round(&C);
    uint64_t N = Size - Got < 64 ? Size - Got : 64;
    if (Got < OutCap)
      copyBytes(Dst + Got, S->bytes, N < OutCap - Got ? N : OutCap - Got);
    Got += N;
  }
  loom_rpc_close(&C);
  if (OutSize)
    *OutSize = Size < OutCap ? Size : OutCap;
  return Result;
}
