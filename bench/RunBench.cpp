//===- bench/RunBench.cpp - loom run: start-up and RPC round trips --------===//
//
//   build/bin/run_bench [--runs N]
//
// 1. `loom run hello` wall time, the whole process (median of N runs).
// 2. RPC round trips per second through loom::run::runProgram, with 1 lane
//    and with 1,024 lanes (16 waves, each round trip serving 64 lanes):
//    the time of a run making K calls per lane less that of a run making
//    none, over the round trips the server counted.
//
//===----------------------------------------------------------------------===//

#include "loom/run/Run.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

using namespace llvm;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::time_point A, Clock::time_point B) {
  return std::chrono::duration<double>(B - A).count();
}

double median(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  return V[V.size() / 2];
}

struct RpcRun {
  double Seconds = 0;
  loom::run::RunStats Stats;
};

RpcRun runCalls(MemoryBufferRef Code, unsigned Threads, unsigned Blocks,
                int Calls, FILE *Null) {
  loom::run::RunOptions O;
  O.Threads[0] = Threads;
  O.Blocks[0] = Blocks;
  O.Args = {"rpc_roundtrip", std::to_string(Calls)};
  O.Out = Null;
  RpcRun R;
  auto T0 = Clock::now();
  auto Result = loom::run::runProgram(Code, O, &R.Stats);
  R.Seconds = seconds(T0, Clock::now());
  if (!Result || Result->Kind != loom::run::RunResult::Exited ||
      Result->ExitCode) {
    errs() << "run_bench: rpc_roundtrip failed: "
           << (Result ? Result->Message : toString(Result.takeError())) << "\n";
    exit(1);
  }
  return R;
}

} // namespace

int main(int argc, char **argv) {
  int Runs = 20;
  for (int I = 1; I + 1 < argc; ++I)
    if (!std::strcmp(argv[I], "--runs"))
      Runs = std::max(1, atoi(argv[I + 1]));

  // 1. loom run hello, as a user runs it.
  std::vector<double> Wall;
  std::vector<StringRef> Args = {LOOM_BIN, "run",
                                 LOOM_BENCH_RUN_DIR "/bench_run_hello"};
  std::optional<StringRef> Redirects[] = {std::nullopt, StringRef("/dev/null"),
                                          std::nullopt};
  for (int I = 0; I < Runs; ++I) {
    auto T0 = Clock::now();
    int Rc = sys::ExecuteAndWait(LOOM_BIN, Args, std::nullopt, Redirects);
    Wall.push_back(seconds(T0, Clock::now()));
    if (Rc != 0) {
      errs() << "run_bench: loom run hello exited with " << Rc << "\n";
      return 1;
    }
  }
  outs() << format("loom run hello: median %.1f ms, min %.1f ms (%d runs)\n",
                   median(Wall) * 1e3,
                   *std::min_element(Wall.begin(), Wall.end()) * 1e3, Runs);

  // 2. RPC round trips.
  auto Code =
      MemoryBuffer::getFile(LOOM_BENCH_RUN_DIR "/bench_run_rpc_roundtrip");
  if (!Code) {
    errs() << "run_bench: no rpc_roundtrip program\n";
    return 1;
  }
  FILE *Null = fopen("/dev/null", "w");
  struct Case {
    const char *Name;
    unsigned Threads, Blocks;
    int Calls;
  } Cases[] = {{"1 lane", 1, 1, 20000}, {"1,024 lanes", 256, 4, 2000}};
  double LaneRate[2] = {}, RoundRate[2] = {};
  for (const Case &C : Cases) {
    std::vector<double> Base, Full;
    RpcRun Last;
    for (int I = 0; I < 3; ++I) {
      Base.push_back(
          runCalls((*Code)->getMemBufferRef(), C.Threads, C.Blocks, 0, Null)
              .Seconds);
      Last = runCalls((*Code)->getMemBufferRef(), C.Threads, C.Blocks, C.Calls,
                      Null);
      Full.push_back(Last.Seconds);
    }
    double T = median(Full) - median(Base);
    outs() << format("RPC, %-11s: %d calls per lane, %llu round trips in "
                     "%.3f s: %.0f round trips/s, %.0f lane calls/s, "
                     "%.2f us per round trip\n",
                     C.Name, C.Calls, (unsigned long long)Last.Stats.Rounds, T,
                     Last.Stats.Rounds / T, Last.Stats.LaneCalls / T,
                     T / Last.Stats.Rounds * 1e6);
    size_t I = &C - Cases;
    LaneRate[I] = Last.Stats.LaneCalls / T;
    RoundRate[I] = Last.Stats.Rounds / T;
  }
  outs() << format("1,024 lanes vs 1 lane: %.1fx the lane calls per second, "
                   "%.2fx the round trips per second\n",
                   LaneRate[1] / LaneRate[0], RoundRate[1] / RoundRate[0]);
  fclose(Null);
  return 0;
}
