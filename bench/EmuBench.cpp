//===- bench/EmuBench.cpp - Virtual GPU throughput ------------------------===//
//
// Emulated wave-instructions per second for six kernel shapes, on one
// worker thread and on all of them. The wave-instructions of a dispatch
// come from one counted run; timed runs have counters off. After the
// benchmarks, a table gives each kernel's rate, the scaling of N threads
// over one thread measured in the same run, and the ratio to the target
// (200 M wave-instructions per second per core). A native baseline in the
// same run, the host doing fma_loop's FMAs itself, shows how close the
// emulator is to what the machine can do; each kernel also runs on one
// thread with the trace compiler off (the interpreter alone).
//
//===----------------------------------------------------------------------===//

#include "loom/emu/Module.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sys/resource.h>
#include <thread>
#include <vector>

using namespace loom::emu;

namespace {

constexpr double TargetPerCore = 200e6;

struct Shape {
  const char *Name;
  const char *Kernel;
  uint32_t Grid;       // work-items
  uint16_t Workgroup;
  int Param;           // iterations / rounds / n
  size_t OutBytes;
  int Wait = -1;       // spin_wait's last argument; -1: no such argument
};

// Sizes give each dispatch tens of milliseconds of work on one thread.
const Shape Shapes[] = {
    {"fma_loop", "fma_loop", 64 * 64, 64, 2000, 64 * 64 * 4},
    {"stream", "stream", 256 * 1024, 256, 1 << 21, (1 << 21) * 4},
    {"lds_barrier", "lds_barrier", 256 * 32, 256, 200, 256 * 32 * 4},
    // lds_barrier's groups eight times over: with 16 per thread on 16
    // threads, the threads share them out whatever each core's speed. It
    // shows what of lds_barrier's gap to N x one thread is its two rounds
    // of groups (docs/performance.md, 16 cores); lds_barrier stays the
    // shape that counts.
    {"lds_barrier_wide", "lds_barrier", 256 * 256, 256, 200, 256 * 256 * 4},
    {"branchy", "branchy", 64 * 64, 64, 1000, 64 * 64 * 4},
    {"mfma_loop", "mfma_loop", 64 * 16, 64, 1000, 64 * 16 * 4},
};

/// The spin-wait pair: the same work with work-group 0 spinning until the
/// last group ends, and without; the summary compares their dispatch times.
const Shape SpinShapes[] = {
    {"spin_wait", "spin_wait", 64 * 64, 64, 1000, 64 * 64 * 4, 1},
    {"no_wait", "spin_wait", 64 * 64, 64, 1000, 64 * 64 * 4, 0},
};

/// The baseline: what the host itself needs for the work of fma_loop's
/// eight v_fmac_f32, done natively on the same register layout (64 lanes
/// of a register contiguous, in a wave's 128 KiB file), with nothing
/// emulated. One "wave-instruction" here is one 64-lane FMA.
__attribute__((noinline, target("avx2,fma"))) void
nativeFmac(float *D, const float *A, const float *B) {
  for (unsigned L = 0; L < 64; ++L)
    D[L] = __builtin_fmaf(A[L], B[L], D[L]);
}

void nativeFma(benchmark::State &State) {
  std::vector<float> File(512 * 64, 0.5f);
  uint64_t Done = 0;
  for (auto _ : State) {
    for (unsigned I = 0; I < 100000; ++I)
      for (unsigned K = 0; K < 8; ++K)
        nativeFmac(&File[(2 + K) * 64], &File[0], &File[64]);
    Done += 800000;
    benchmark::DoNotOptimize(File.data());
  }
  State.counters["wave_insts_per_s"] =
      benchmark::Counter(double(Done), benchmark::Counter::kIsRate);
  State.counters["threads"] = 1;
}

unsigned allThreads() { return std::max(1u, std::thread::hardware_concurrency()); }

/// The thread counts each kernel runs with: 1 and all cores, or the list in
/// LOOM_BENCH_THREADS ("1,2,4,8,16") for a scaling curve.
std::vector<unsigned> threadCounts() {
  std::vector<unsigned> Counts;
  if (const char *Env = std::getenv("LOOM_BENCH_THREADS")) {
    for (const char *P = Env; *P;) {
      char *End;
      unsigned long N = std::strtoul(P, &End, 10);
      if (End == P)
        break;
      if (N)
        Counts.push_back(unsigned(N));
      P = *End ? End + 1 : End;
    }
  }
  if (Counts.empty()) {
    Counts.push_back(1);
    if (allThreads() > 1)
      Counts.push_back(allThreads());
  }
  return Counts;
}

/// Process CPU time (all threads), seconds.
double cpuSeconds() {
  rusage U;
  getrusage(RUSAGE_SELF, &U);
  return double(U.ru_utime.tv_sec + U.ru_stime.tv_sec) +
         double(U.ru_utime.tv_usec + U.ru_stime.tv_usec) * 1e-6;
}

void runShape(benchmark::State &State, const Shape &S, unsigned Threads,
              bool Compile) {
  DeviceOptions Opts;
  Opts.Threads = Threads;
  Opts.CollectCounters = false;
  // Steady state: traces compile after 1,000 runs, within the untimed
  // warm-up below (the default, 500,000, is for whole programs: a trace of
  // stream would compile only after ~120 dispatches).
  Opts.TraceThreshold = Compile ? 1'000 : 0;
  auto Dev = Device::create(Opts);
  DeviceOptions CountOpts = Opts;
  CountOpts.CollectCounters = true;
  auto Counting = Device::create(CountOpts);
  if (!Dev || !Counting) {
    State.SkipWithError("cannot create device");
    return;
  }
  std::string Path = std::string(LOOM_BENCH_DIR) + "/throughput.elf";
  auto M = Module::loadFile(**Dev, Path);
  auto MC = Module::loadFile(**Counting, Path);
  if (!M || !MC) {
    State.SkipWithError("cannot load throughput.elf");
    return;
  }
  DeviceBuffer Out(**Dev, S.OutBytes), In(**Dev, S.OutBytes);
  DeviceBuffer OutC(**Counting, S.OutBytes), InC(**Counting, S.OutBytes);
  auto Args = [&](DeviceBuffer &O, DeviceBuffer &I) {
    KernelArgs A;
    A.add(O.address());
    if (std::string(S.Kernel) == "stream")
      A.add(I.address()).add(2.0f);
    if (S.Wait >= 0) // I holds the flag
      A.add(I.address());
    A.add(S.Param);
    if (S.Wait >= 0)
      A.add(S.Wait);
    return A;
  };
  LaunchConfig C = LaunchConfig::linear(S.Grid, S.Workgroup);
  auto Counted = (*MC)->launch(S.Kernel, C, Args(OutC, InC));
  if (!Counted || !Counted->ok()) {
    State.SkipWithError(Counted ? Counted->FirstFault.Message.c_str()
                                : "launch failed");
    if (!Counted)
      llvm::consumeError(Counted.takeError());
    return;
  }
  uint64_t WaveInsts = Counted->Counters.WaveInstructions;
  KernelArgs A = Args(Out, In);
  // Untimed runs until no trace compiles any more: hot traces get compiled
  // here (the compile time is in the summary's trace-compiler line), the
  // timed runs see steady state.
  auto Traces = [] {
    TraceCompilerStats J = traceCompilerStats();
    return J.Compiled + J.Reused; // reused: another device compiled it
  };
  for (int K = 0; K < 16; ++K) {
    uint64_t Before = Traces();
    if (auto Warm = (*M)->launch(S.Kernel, C, A); !Warm)
      llvm::consumeError(Warm.takeError());
    if (K > 0 && Traces() == Before)
      break;
  }
  double Cpu0 = cpuSeconds();
  auto Wall0 = std::chrono::steady_clock::now();
  for (auto _ : State) {
    auto R = (*M)->launch(S.Kernel, C, A);
    if (!R || !R->ok()) {
      State.SkipWithError("dispatch failed");
      if (!R)
        llvm::consumeError(R.takeError());
      return;
    }
  }
  // Cores busy on average while timed: below the thread count, threads
  // waited (wake-ups, the dispatch's tail); at it, they ran slower.
  State.counters["cpus"] =
      (cpuSeconds() - Cpu0) /
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Wall0)
          .count();
  State.counters["wave_insts"] = double(WaveInsts);
  State.counters["groups"] = double(S.Grid / S.Workgroup);
  State.counters["wave_insts_per_s"] = benchmark::Counter(
      double(WaveInsts) * State.iterations(), benchmark::Counter::kIsRate);
  State.counters["threads"] = Threads;
  State.counters["interpreter"] = !Compile;
  State.counters["s_per_dispatch"] = benchmark::Counter(
      double(State.iterations()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

/// Registers \p S on each of threadCounts().
void registerThreads(const Shape &S) {
  for (unsigned T : threadCounts()) {
    std::string Name = std::string(S.Name) + "/threads:" + std::to_string(T);
    benchmark::RegisterBenchmark(
        Name.c_str(),
        [&S, T](benchmark::State &St) { runShape(St, S, T, /*Compile=*/true); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->MinTime(0.5);
  }
}

void registerAll() {
  benchmark::RegisterBenchmark("native_fma/threads:1", nativeFma)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime()
      ->MinTime(0.5);
  for (const Shape &S : Shapes) {
    // The baseline: the same kernel with the trace compiler off.
    std::string Base = std::string(S.Name) + "/interpreter/threads:1";
    benchmark::RegisterBenchmark(
        Base.c_str(),
        [&S](benchmark::State &St) { runShape(St, S, 1, /*Compile=*/false); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->MinTime(0.5);
    registerThreads(S);
  }
  for (const Shape &S : SpinShapes)
    registerThreads(S);
}

/// Collects each benchmark's rate so the summary can compare them.
class SummaryReporter : public benchmark::ConsoleReporter {
public:
  void ReportRuns(const std::vector<Run> &Runs) override {
    ConsoleReporter::ReportRuns(Runs);
    for (const Run &R : Runs) {
      auto It = R.counters.find("wave_insts_per_s");
      // With --benchmark_repetitions the summary takes the last repetition;
      // the aggregates (mean, stddev, ...) are not rates of one run.
      if (It == R.counters.end() || R.error_occurred ||
          R.run_type == Run::RT_Aggregate)
        continue;
      std::string Name = R.benchmark_name();
      std::string Kernel = Name.substr(0, Name.find('/'));
      unsigned Threads = static_cast<unsigned>(R.counters.at("threads").value);
      auto Interp = R.counters.find("interpreter");
      if (Interp != R.counters.end() && Interp->second.value)
        Threads = 0; // the interpreter-only baseline
      // Counter values are already rates after finalisation.
      Measured[{Kernel, Threads}] = It->second.value;
      if (auto T = R.counters.find("s_per_dispatch"); T != R.counters.end())
        Millis[{Kernel, Threads}] = 1e3 * T->second.value;
      if (auto C = R.counters.find("cpus"); C != R.counters.end())
        Cpus[{Kernel, Threads}] = C->second.value;
    }
  }
  std::map<std::pair<std::string, unsigned>, double> Measured, Millis, Cpus;
};

} // namespace

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  registerAll();
  SummaryReporter Reporter;
  benchmark::RunSpecifiedBenchmarks(&Reporter);
  std::vector<unsigned> Counts = threadCounts();
  unsigned N = *std::max_element(Counts.begin(), Counts.end());
  std::printf("\n%-16s %14s %14s %10s %12s %16s %9s\n", "kernel",
              "1 thread", (std::to_string(N) + " threads").c_str(), "scaling",
              "vs target", "interpreter", "speed-up");
  for (const Shape &S : Shapes) {
    auto Rate = [&](unsigned T) {
      auto It = Reporter.Measured.find({S.Name, T});
      return It == Reporter.Measured.end() ? 0.0 : It->second;
    };
    double One = Rate(1), All = Rate(N), Interp = Rate(0);
    if (!One)
      continue;
    std::printf("%-16s %11.1f M/s %11.1f M/s %9.2fx %11.2fx %12.1f M/s %8.2fx\n",
                S.Name, One / 1e6, All / 1e6, All / One, One / TargetPerCore,
                Interp / 1e6, Interp ? One / Interp : 0.0);
  }
  if (Counts.size() > 2) {
    // The scaling curve: rate over the 1-thread rate, and the cores the
    // process kept busy (cpus) at each thread count.
    std::printf("\nscaling (rate / 1-thread rate, cores busy):\n%-16s",
                "kernel");
    for (unsigned T : Counts)
      std::printf(" %16u", T);
    std::printf("\n");
    for (const Shape &S : Shapes) {
      auto One = Reporter.Measured.find({S.Name, 1});
      if (One == Reporter.Measured.end())
        continue;
      std::printf("%-16s", S.Name);
      for (unsigned T : Counts)
        std::printf(" %7.2fx (%4.1f)",
                    Reporter.Measured[{S.Name, T}] / One->second,
                    Reporter.Cpus[{S.Name, T}]);
      std::printf("\n");
    }
  }
  auto Native = Reporter.Measured.find({"native_fma", 1});
  auto Fma = Reporter.Measured.find({"fma_loop", 1});
  if (Native != Reporter.Measured.end() && Fma != Reporter.Measured.end())
    std::printf("native_fma       %11.1f M/s   (the host's own 64-lane FMA rate on "
                "the same register layout; fma_loop runs at %.2fx of it)\n",
                Native->second / 1e6, Fma->second / Native->second);
  std::printf("(rates in emulated wave-instructions per second; scaling = "
              "%u threads / 1 thread; vs target = 1 thread / 200 M;\n"
              " interpreter = 1 thread with the trace compiler off, "
              "speed-up = 1 thread / interpreter)\n", N);
  for (unsigned T : {1u, N}) {
    auto Spin = Reporter.Millis.find({"spin_wait", T});
    auto Plain = Reporter.Millis.find({"no_wait", T});
    if (Spin != Reporter.Millis.end() && Plain != Reporter.Millis.end())
      std::printf("spin_wait    %u thread%s: %.2f ms per dispatch with work-group 0 "
                  "spinning until the last ends, %.2f ms without: %.2fx\n",
                  T, T == 1 ? "" : "s", Spin->second, Plain->second,
                  Spin->second / Plain->second);
    if (N == 1)
      break;
  }
  TraceCompilerStats J = traceCompilerStats();
  std::printf("trace compiler: %llu traces compiled in %.1f ms, %llu reused\n",
              static_cast<unsigned long long>(J.Compiled), J.Seconds * 1e3,
              static_cast<unsigned long long>(J.Reused));
  benchmark::Shutdown();
  return 0;
}
