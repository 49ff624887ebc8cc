//===- emu/DispatchProfile.cpp - Where a dispatch's wall time goes --------===//

#include "DispatchProfile.h"
#include "Clock.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

namespace loom::emu {

namespace {

/// Sums over a kernel's dispatches (ns, or counts).
struct Totals {
  uint64_t Dispatches = 0, Gaps = 0, Workers = 0;
  double Wall = 0, Gap = 0, Setup = 0, Wake = 0, JoinMean = 0, JoinMax = 0,
         Missing = 0, Spread = 0, CloseWait = 0, Finish = 0, Busy = 0,
         Group = 0, Groups = 0, Longest = 0;
};

struct Table {
  std::mutex Lock;
  std::map<std::string, Totals> Kernels;

  ~Table() {
    if (Kernels.empty())
      return;
    std::fprintf(stderr,
                 "loom: dispatch profile (LOOM_DISPATCH_PROFILE), means per "
                 "dispatch in us:\n"
                 "%-24s %10s %7s %8s %6s %6s %6s %6s %6s %6s %6s %6s %5s "
                 "%7s %7s\n",
                 "kernel/workers", "dispatches", "workers", "wall", "gap", "setup",
                 "wake", "join", "join<", "spread", "close", "end", "busy",
                 "group", "longest");
    for (auto &[Name, T] : Kernels) {
      double N = double(T.Dispatches), Us = 1e-3;
      std::fprintf(
          stderr,
          "%-24.24s %10llu %7.1f %8.1f %6.1f %6.1f %6.1f %6.1f %6.1f %6.1f "
          "%6.1f %6.1f %5.2f %7.1f %7.1f\n",
          Name.c_str(), (unsigned long long)T.Dispatches,
          double(T.Workers) / N, T.Wall / N * Us,
          T.Gaps ? T.Gap / double(T.Gaps) * Us : 0.0, T.Setup / N * Us,
          T.Wake / N * Us, T.JoinMean / N * Us, T.JoinMax / N * Us,
          T.Spread / N * Us, T.CloseWait / N * Us, T.Finish / N * Us,
          T.Busy / N, T.Groups ? T.Group / T.Groups * Us : 0.0,
          T.Longest / N * Us);
      if (T.Missing)
        std::fprintf(stderr, "%-24.24s   workers that found it over: %.2f "
                             "per dispatch\n",
                     "", T.Missing / N);
    }
    std::fprintf(
        stderr,
        "(gap: from the previous dispatch's end on the same thread; setup: "
        "to waking the pool; wake: the wake-up call; join / join<: pool "
        "workers' start after it, mean / latest; spread: first to last "
        "worker's end; close: last worker's end to the dispatching thread "
        "seeing it; end: to return; busy: share of workers x wall in "
        "work-groups; group / longest: a work-group's time, mean / the "
        "longest of a dispatch)\n");
  }
};

Table &table() {
  static Table T;
  return T;
}

} // namespace

bool DispatchProfile::enabled() {
  static const bool On = [] {
    const char *Env = std::getenv("LOOM_DISPATCH_PROFILE");
    return Env && std::string(Env) == "1";
  }();
  return On;
}

DispatchProfile::DispatchProfile() : Start(nowNs()) {}

void DispatchProfile::finish(llvm::StringRef Kernel) {
  uint64_t End = nowNs();
  thread_local uint64_t LastEnd = 0;
  uint64_t Gap = LastEnd ? Start - LastEnd : 0;
  LastEnd = End;
  if (!Posted)
    Post = Posted = Start;
  if (!Closed)
    Closed = End;
  double JoinSum = 0, JoinMax = 0, Busy = 0, Group = 0, Longest = 0;
  uint64_t FirstDone = UINT64_MAX, LastDone = 0, Joined = 0, Groups = 0;
  for (size_t I = 0; I < Workers.size(); ++I) {
    const Worker &W = Workers[I];
    if (!W.Join)
      continue;
    if (I) { // pool workers
      double J = double(W.Join) - double(Post);
      JoinSum += J;
      JoinMax = std::max(JoinMax, J);
      ++Joined;
    }
    FirstDone = std::min(FirstDone, W.Done);
    LastDone = std::max(LastDone, W.Done);
    Busy += double(W.GroupNs);
    Group += double(W.GroupNs);
    Groups += W.Groups;
    Longest = std::max(Longest, double(W.LongestGroupNs));
  }
  double Wall = double(End - Start);
  std::lock_guard<std::mutex> G(table().Lock);
  Totals &T =
      table().Kernels[Kernel.str() + "/" + std::to_string(Workers.size())];
  ++T.Dispatches;
  T.Workers += Workers.size();
  T.Wall += Wall;
  // Gaps longer than 10 ms are the program's own pauses, not a loop.
  if (Gap && Gap < 10'000'000) {
    T.Gap += double(Gap);
    ++T.Gaps;
  }
  T.Setup += double(Post - Start);
  T.Wake += double(Posted - Post);
  T.JoinMean += Joined ? JoinSum / double(Joined) : 0;
  T.JoinMax += JoinMax;
  T.Missing += double(Workers.size() - 1 - Joined);
  if (LastDone) {
    T.Spread += double(LastDone - FirstDone);
    T.CloseWait += double(Closed - std::min(Closed, LastDone));
  }
  T.Finish += double(End - Closed);
  T.Busy += Wall > 0 ? Busy / (Wall * double(Workers.size())) : 0;
  T.Group += Group;
  T.Groups += double(Groups);
  T.Longest += Longest;
}

} // namespace loom::emu
