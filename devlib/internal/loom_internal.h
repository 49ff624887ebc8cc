/*===- loom_internal.h - Device library internals ---------------*- C -*-===*
 *
 * Shared by the files of devlib/; not part of the program's interface.
 *
 *===----------------------------------------------------------------------===*/
#ifndef LOOM_INTERNAL_H
#define LOOM_INTERNAL_H

#include "loom/run/RpcWire.h"

#include <stddef.h>
#include <stdint.h>

extern struct loom_rpc_buffer *__loom_rpc;

typedef struct {
  struct loom_rpc_port *port;
  uint32_t index;
  uint64_t mask;
} loom_rpc_call;

loom_rpc_call loom_rpc_open(uint32_t Opcode);
loom_rpc_slot *loom_rpc_slot_of_lane(loom_rpc_call *C);
void loom_rpc_round(loom_rpc_call *C);
void loom_rpc_close(loom_rpc_call *C);

/* One whole call: arguments and InSize payload bytes from this lane, a
 * result and up to OutCap reply bytes (*OutSize receives the count) back. */
uint64_t loom_rpc_call_full(uint32_t Opcode, uint64_t A0, uint64_t A1,
                            uint64_t A2, const void *In, uint64_t InSize,
                            void *Out, uint64_t OutCap, uint64_t *OutSize);

static inline uint64_t loom_rpc_call_args(uint32_t Opcode, uint64_t A0,
                                          uint64_t A1, uint64_t A2) {
  return loom_rpc_call_full(Opcode, A0, A1, A2, 0, 0, 0, 0, 0);
}

/* The thread and block ids of this lane, for messages. */
void loom_lane_ids(uint64_t *Thread, uint64_t *Block);

_Noreturn void loom_end_wave(void);
void loom_run_exit_handlers(void);

#endif /* LOOM_INTERNAL_H */
