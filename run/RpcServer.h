//===- run/RpcServer.h - The host side of loom run's RPC ------*- C++ -*-===//
//
// A thread that watches every port of the shared loom_rpc_buffer while the
// program runs and serves each call it finds (docs/run.md, "Wire format").
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_RUN_RPCSERVER_H
#define LOOM_RUN_RPCSERVER_H

#include "loom/run/RpcWire.h"

#include "llvm/ADT/ArrayRef.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

namespace loom::run {

/// One lane's part of a call, as the server received it.
struct LaneRequest {
  unsigned Lane = 0;
  uint64_t Arg[3] = {0, 0, 0};
  std::vector<uint8_t> Payload;
};

/// One lane's answer.
struct LaneReply {
  uint64_t Result = 0;
  std::vector<uint8_t> Data;
};

/// Serves one call: the requests of its lanes, in lane order, in; a reply
/// per request out.
using CallHandler =
    std::function<void(uint32_t Opcode, llvm::ArrayRef<LaneRequest> Requests,
                       std::vector<LaneReply> &Replies)>;

class RpcServer {
public:
  RpcServer(loom_rpc_buffer &Buffer, CallHandler Handler);
  ~RpcServer();

  void start();
  /// Stops the thread; a call in progress is abandoned.
  void stop();

  uint64_t calls() const { return Calls.load(std::memory_order_relaxed); }
  uint64_t rounds() const { return Rounds.load(std::memory_order_relaxed); }
  uint64_t laneCalls() const {
    return LaneCalls.load(std::memory_order_relaxed);
  }

private:
  void loop();
  void serve(loom_rpc_port &Port);
  /// Answers the round the device published last.
  void answer(loom_rpc_port &Port);
  /// Waits for the device's next round; false if the server is stopping.
  bool awaitRound(loom_rpc_port &Port);

  loom_rpc_buffer &Buffer;
  CallHandler Handler;
  std::thread Thread;
  std::atomic<bool> Stopping{false};
  std::atomic<uint64_t> Calls{0}, Rounds{0}, LaneCalls{0};
};

} // namespace loom::run

#endif // LOOM_RUN_RPCSERVER_H
