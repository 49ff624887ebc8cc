//===- run/RpcServer.cpp - The host side of loom run's RPC ----------------===//

#include "RpcServer.h"

#include <algorithm>
#include <cstring>
#include <sched.h>
#include <unistd.h>

namespace loom::run {

namespace {
uint32_t loadAcquire(const uint32_t &V) {
  return __atomic_load_n(&V, __ATOMIC_ACQUIRE);
}
/// Continuation rounds needed to move \p Size bytes when the first round
/// carries \p First of them.
uint64_t moreRounds(uint64_t Size, uint64_t First) {
  return Size <= First ? 0 : (Size - First + 63) / 64;
}
} // namespace

RpcServer::RpcServer(loom_rpc_buffer &Buffer, CallHandler Handler)
    : Buffer(Buffer), Handler(std::move(Handler)) {}

RpcServer::~RpcServer() { stop(); }

void RpcServer::start() {
  Stopping.store(false);
  Thread = std::thread([this] { loop(); });
}

void RpcServer::stop() {
  Stopping.store(true);
  if (Thread.joinable())
    Thread.join();
}

void RpcServer::loop() {
  // Spin while calls keep coming (round trips cost microseconds then);
  // back off to short sleeps when the program is quiet.
  unsigned Idle = 0;
  while (!Stopping.load(std::memory_order_relaxed)) {
    bool Served = false;
    for (uint32_t I = 0; I < LOOM_RPC_PORTS; ++I) {
      loom_rpc_port &P = Buffer.port[I];
      if (loadAcquire(P.device_seq) != P.host_seq) {
        serve(P);
        Served = true;
      }
    }
    if (Served)
      Idle = 0;
    else if (++Idle < 2000)
      sched_yield();
    else
      usleep(50);
  }
}

void RpcServer::answer(loom_rpc_port &Port) {
  Rounds.fetch_add(1, std::memory_order_relaxed);
  __atomic_store_n(&Port.host_seq, Port.device_seq, __ATOMIC_RELEASE);
}

bool RpcServer::awaitRound(loom_rpc_port &Port) {
  unsigned Spins = 0;
  while (loadAcquire(Port.device_seq) == Port.host_seq) {
    if (Stopping.load(std::memory_order_relaxed))
      return false;
    if (++Spins > 1000)
      sched_yield();
  }
  return true;
}

void RpcServer::serve(loom_rpc_port &Port) {
  uint64_t Mask = Port.lane_mask;
  uint32_t Opcode = Port.opcode;
  std::vector<LaneRequest> Requests;
  std::vector<uint64_t> Sizes;
  uint64_t MoreRounds = 0;
  for (unsigned L = 0; L < LOOM_RPC_LANES; ++L) {
    if (!(Mask >> L & 1))
      continue;
    const loom_rpc_request &R = Port.slot[L].request;
    LaneRequest Req;
    Req.Lane = L;
    std::copy(R.arg, R.arg + 3, Req.Arg);
    uint64_t First = std::min<uint64_t>(R.size, sizeof(R.data));
    // A size is the device's word: reserve a little, grow as bytes come.
    Req.Payload.reserve(std::min<uint64_t>(R.size, 1 << 16));
    Req.Payload.assign(R.data, R.data + First);
    MoreRounds = std::max(MoreRounds, moreRounds(R.size, sizeof(R.data)));
    Sizes.push_back(R.size);
    Requests.push_back(std::move(Req));
  }
  for (uint64_t Round = 0; Round < MoreRounds; ++Round) {
    answer(Port);
    if (!awaitRound(Port))
      return;
    for (size_t I = 0; I < Requests.size(); ++I) {
      std::vector<uint8_t> &P = Requests[I].Payload;
      uint64_t N = std::min<uint64_t>(Sizes[I] - P.size(), 64);
      const uint8_t *Src = Port.slot[Requests[I].Lane].bytes;
      P.insert(P.end(), Src, Src + N);
    }
  }

  std::vector<LaneReply> Replies(Requests.size());
  Handler(Opcode, Requests, Replies);
  Calls.fetch_add(1, std::memory_order_relaxed);
  LaneCalls.fetch_add(Requests.size(), std::memory_order_relaxed);

  uint64_t ReplyRounds = 0;
  for (size_t I = 0; I < Requests.size(); ++I) {
    loom_rpc_reply &R = Port.slot[Requests[I].Lane].reply;
    const std::vector<uint8_t> &D = Replies[I].Data;
    R.result = Replies[I].Result;
    R.size = D.size();
    std::memcpy(R.data, D.data(), std::min(D.size(), sizeof(R.data)));
    ReplyRounds = std::max(ReplyRounds, moreRounds(D.size(), sizeof(R.data)));
  }
  answer(Port);
  for (uint64_t Round = 0; Round < ReplyRounds; ++Round) {
    if (!awaitRound(Port))
      return;
    uint64_t Offset = sizeof(loom_rpc_reply::data) + Round * 64;
    for (size_t I = 0; I < Requests.size(); ++I) {
      const std::vector<uint8_t> &D = Replies[I].Data;
      if (Offset < D.size())
        std::memcpy(Port.slot[Requests[I].Lane].bytes, D.data() + Offset,
                    std::min<uint64_t>(D.size() - Offset, 64));
    }
    answer(Port);
  }
}

} // namespace loom::run
