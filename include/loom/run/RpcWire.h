/*===- loom/run/RpcWire.h - Wire format of loom run's RPC ----*- C -*-===*
 *
 * One definition of the memory shared by the device library (devlib/) and
 * the host server (run/RpcServer.cpp); docs/run.md describes the protocol.
 * Plain C so that both clang for amdgcn and the host C++ compiler read it.
 *
 *===----------------------------------------------------------------------===*/
#ifndef LOOM_RUN_RPCWIRE_H
#define LOOM_RUN_RPCWIRE_H

#include <stdint.h>

#define LOOM_RPC_MAGIC 0x4c4f4f4d52504331ull /* "LOOMRPC1" */
#define LOOM_RPC_VERSION 1u
/* Ports a wave can take; each carries one call of up to 64 lanes. */
#define LOOM_RPC_PORTS 256u
#define LOOM_RPC_LANES 64u

/* Opcodes: LLVM libc's GPU RPC numbering ('c' << 24 | n, rpc_opcodes.h)
 * where the service is the same; Loom's own ones use base 'L'. */
#define LOOM_RPC_LIBC(n) ((uint32_t)'c' << 24 | (n))
#define LOOM_RPC_OWN(n) ((uint32_t)'L' << 24 | (n))
enum loom_rpc_opcode {
  LOOM_RPC_NOOP = LOOM_RPC_LIBC(0),
  LOOM_RPC_EXIT = LOOM_RPC_LIBC(1),
  LOOM_RPC_WRITE_TO_STREAM = LOOM_RPC_LIBC(4),
  LOOM_RPC_WRITE_TO_STDOUT_NEWLINE = LOOM_RPC_LIBC(5),
  LOOM_RPC_READ_FROM_STREAM = LOOM_RPC_LIBC(6),
  LOOM_RPC_READ_FGETS = LOOM_RPC_LIBC(7),
  LOOM_RPC_OPEN_FILE = LOOM_RPC_LIBC(8),
  LOOM_RPC_CLOSE_FILE = LOOM_RPC_LIBC(9),
  LOOM_RPC_MALLOC = LOOM_RPC_LIBC(10),
  LOOM_RPC_FREE = LOOM_RPC_LIBC(11),
  LOOM_RPC_ABORT = LOOM_RPC_LIBC(13),
  LOOM_RPC_FEOF = LOOM_RPC_LIBC(14),
  LOOM_RPC_FERROR = LOOM_RPC_LIBC(15),
  LOOM_RPC_CLEARERR = LOOM_RPC_LIBC(16),
  LOOM_RPC_FSEEK = LOOM_RPC_LIBC(17),
  LOOM_RPC_FTELL = LOOM_RPC_LIBC(18),
  LOOM_RPC_FFLUSH = LOOM_RPC_LIBC(19),
  LOOM_RPC_PRINTF_TO_STREAM = LOOM_RPC_LIBC(23),
  LOOM_RPC_REMOVE = LOOM_RPC_LIBC(27),
  LOOM_RPC_RENAME = LOOM_RPC_LIBC(28),
  LOOM_RPC_CLOCK = LOOM_RPC_OWN(1),
  LOOM_RPC_FORMAT_TO_BUFFER = LOOM_RPC_OWN(2), /* snprintf */
};

/* Stream handles as the device sees them (FILE * values); files opened
 * with fopen get handles from 4 up, chosen by the host. */
#define LOOM_RPC_STDIN 1u
#define LOOM_RPC_STDOUT 2u
#define LOOM_RPC_STDERR 3u

/* One lane's 64 bytes. A request's first round carries the arguments and
 * the first bytes of the lane's payload; the reply's first round the result
 * and the first bytes of the lane's reply data. Further rounds carry 64
 * payload bytes each while any lane of the call has bytes left. */
struct loom_rpc_request {
  uint64_t arg[3];
  uint64_t size; /* payload bytes of this lane */
  uint8_t data[32];
};
struct loom_rpc_reply {
  uint64_t result;
  uint64_t size; /* reply bytes for this lane */
  uint8_t data[48];
};
typedef union {
  struct loom_rpc_request request;
  struct loom_rpc_reply reply;
  uint8_t bytes[64];
} loom_rpc_slot;

/* A port. The device owns it while device_seq == host_seq: it fills the
 * slots, then publishes device_seq + 1 (release); the host answers by
 * storing host_seq = device_seq (release) after writing the slots. */
struct loom_rpc_port {
  uint32_t device_seq;
  uint32_t pad0[15];
  uint32_t host_seq;
  uint32_t pad1[15];
  uint64_t lane_mask; /* lanes taking part, bit i = lane i */
  uint32_t opcode;
  uint32_t pad2[13];
  loom_rpc_slot slot[LOOM_RPC_LANES];
};

/* The whole shared block, allocated by the host in fine-grained memory. */
struct loom_rpc_buffer {
  uint64_t magic;
  uint32_t version;
  uint32_t port_count;
  uint32_t pad0[12];
  uint32_t lock[LOOM_RPC_PORTS / 32]; /* device-side port locks */
  uint32_t pad1[16 - (LOOM_RPC_PORTS / 32) % 16];
  struct loom_rpc_port port[LOOM_RPC_PORTS];
};

/* The one argument of _begin, _start and _end. */
struct loom_start_args {
  uint64_t rpc;  /* struct loom_rpc_buffer * */
  uint64_t argc;
  uint64_t argv; /* char ** in device-visible memory */
  uint64_t envp;
  uint64_t result; /* int *: main's values, OR-ed together */
};

#endif /* LOOM_RUN_RPCWIRE_H */
