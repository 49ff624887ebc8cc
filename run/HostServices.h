//===- run/HostServices.h - What loom run's RPC calls do ------*- C++ -*-===//
#ifndef LOOM_RUN_HOSTSERVICES_H
#define LOOM_RUN_HOSTSERVICES_H

#include "RpcServer.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <mutex>
#include <string>

namespace loom::run {

/// The program's ending, as requested from the device.
struct EndRequest {
  enum KindT { None, Exit, Abort } Kind = None;
  int Status = 0;
  std::string Message;
};

/// The services behind the opcodes of RpcWire.h, for one run. Called from
/// the server thread only.
class HostServices {
public:
  struct Hooks {
    FILE *In, *Out, *Err;
    /// Device memory for malloc/free (nullptr: out of memory).
    std::function<void *(uint64_t)> Allocate;
    std::function<void(void *)> Free;
  };
  explicit HostServices(Hooks H);
  ~HostServices();

  void handle(uint32_t Opcode, llvm::ArrayRef<LaneRequest> Requests,
              std::vector<LaneReply> &Replies);

  /// Set once, by the first exit() or abort() the device calls.
  bool endRequested() const { return Ended.load(std::memory_order_acquire); }
  EndRequest end() const;

private:
  FILE *stream(uint64_t Handle) const;
  void write(FILE *F, const void *Data, size_t Size);
  void requestEnd(EndRequest R);
  LaneReply serve(uint32_t Opcode, const LaneRequest &R);

  Hooks H;
  std::map<uint64_t, FILE *> Files;
  uint64_t NextHandle = 4;
  std::chrono::steady_clock::time_point Start;
  std::atomic<bool> Ended{false};
  mutable std::mutex EndLock;
  EndRequest TheEnd;
};

} // namespace loom::run

#endif // LOOM_RUN_HOSTSERVICES_H
