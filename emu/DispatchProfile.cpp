//===- emu/DispatchProfile.cpp - Where a dispatch's wall time goes --------===//

#include "DispatchProfile.h"
#include "Clock.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

namespace loom::emu {

namespace {

/// One dispatch's measures, in the order of the printed columns (µs, or a
/// share for Busy).
enum Column {
  Wall, Gap, Setup, Wake, JoinMean, JoinMax, Spread, CloseWait, Finish,
  Busy, Group, Longest, Takes, TakeWait, NumColumns
};
using Row = std::array<double, NumColumns>;

struct Kernel {
  std::vector<Row> Rows;
  uint64_t Missing = 0; ///< pool workers that came after the end
};

/// The median of column \p C over \p Rows (NaN marks "not measured").
double median(std::vector<Row> &Rows, Column C) {
  std::vector<double> Xs;
  for (const Row &R : Rows)
    if (R[C] == R[C])
      Xs.push_back(R[C]);
  if (Xs.empty())
    return 0;
  std::nth_element(Xs.begin(), Xs.begin() + Xs.size() / 2, Xs.end());
  return Xs[Xs.size() / 2];
}

struct Table {
  std::mutex Lock;
  std::map<std::string, Kernel> Kernels;

  ~Table() {
    if (Kernels.empty())
      return;
    std::fprintf(stderr,
                 "loom: dispatch profile (LOOM_DISPATCH_PROFILE), medians "
                 "per dispatch in us:\n"
                 "%-24s %10s %8s %6s %6s %6s %6s %6s %6s %6s %6s %5s %7s "
                 "%7s %5s %6s\n",
                 "kernel/workers", "dispatches", "wall", "gap", "setup",
                 "wake", "join", "join<", "spread", "close", "end", "busy",
                 "group", "longest", "takes", "taken");
    for (auto &[Name, K] : Kernels) {
      double M[NumColumns];
      for (int C = 0; C < NumColumns; ++C)
        M[C] = median(K.Rows, Column(C));
      std::fprintf(stderr,
                   "%-24.24s %10zu %8.1f %6.1f %6.1f %6.1f %6.1f %6.1f %6.1f "
                   "%6.1f %6.1f %5.2f %7.1f %7.1f %5.1f %6.1f\n",
                   Name.c_str(), K.Rows.size(), M[Wall], M[Gap], M[Setup],
                   M[Wake], M[JoinMean], M[JoinMax], M[Spread], M[CloseWait],
                   M[Finish], M[Busy], M[Group], M[Longest], M[Takes],
                   M[TakeWait]);
      if (K.Missing)
        std::fprintf(stderr,
                     "%-24.24s   pool workers that found it over: %.2f per "
                     "dispatch\n",
                     "", double(K.Missing) / double(K.Rows.size()));
    }
    std::fprintf(
        stderr,
        "(gap: from the previous dispatch's end on the same thread; setup: "
        "to waking the pool; wake: the wake-up call; join / join<: pool "
        "workers' start after it, mean / latest; spread: first to last "
        "worker's end; close: last worker's end to the dispatching thread "
        "seeing it; end: to return; busy: share of workers x wall in "
        "work-groups; group / longest: a work-group's time, mean / the "
        "longest of the dispatch; takes: started groups idle workers took "
        "over; taken: a taker's wait for the group, mean)\n");
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

void DispatchProfile::finish(llvm::StringRef Name) {
  uint64_t End = nowNs();
  thread_local uint64_t LastEnd = 0;
  double Us = 1e-3, None = __builtin_nan("");
  Row R;
  R.fill(None);
  R[Wall] = double(End - Start) * Us;
  // Gaps longer than 10 ms are the program's own pauses, not a loop.
  if (LastEnd && Start - LastEnd < 10'000'000)
    R[Gap] = double(Start - LastEnd) * Us;
  LastEnd = End;
  if (!Posted)
    Post = Posted = Start;
  if (!Closed)
    Closed = End;
  R[Setup] = double(Post - Start) * Us;
  R[Wake] = double(Posted - Post) * Us;
  R[Finish] = double(End - Closed) * Us;
  double JoinSum = 0, LatestJoin = 0, GroupSum = 0, LongestGroup = 0;
  uint64_t FirstDone = UINT64_MAX, LastDone = 0, Joined = 0, Groups = 0;
  uint64_t Taken = 0, TakeNs = 0;
  for (size_t I = 0; I < Workers.size(); ++I) {
    const Worker &W = Workers[I];
    if (!W.Join)
      continue;
    if (I) { // pool workers
      double J = double(W.Join) - double(Post);
      JoinSum += J;
      LatestJoin = std::max(LatestJoin, J);
      ++Joined;
    }
    FirstDone = std::min(FirstDone, W.Done);
    LastDone = std::max(LastDone, W.Done);
    GroupSum += double(W.GroupNs);
    Groups += W.Groups;
    LongestGroup = std::max(LongestGroup, double(W.LongestGroupNs));
    Taken += W.Takeovers;
    TakeNs += W.TakeoverWaitNs;
  }
  R[Takes] = double(Taken);
  if (Taken)
    R[TakeWait] = double(TakeNs) / double(Taken) * Us;
  if (Joined) {
    R[JoinMean] = JoinSum / double(Joined) * Us;
    R[JoinMax] = LatestJoin * Us;
  }
  if (LastDone) {
    R[Spread] = double(LastDone - FirstDone) * Us;
    R[CloseWait] = double(Closed - std::min(Closed, LastDone)) * Us;
  }
  R[Busy] = GroupSum / (double(End - Start) * double(Workers.size()));
  if (Groups) {
    R[Group] = GroupSum / double(Groups) * Us;
    R[Longest] = LongestGroup * Us;
  }
  std::lock_guard<std::mutex> G(table().Lock);
  Kernel &K =
      table().Kernels[Name.str() + "/" + std::to_string(Workers.size())];
  K.Rows.push_back(R);
  K.Missing += Workers.size() - 1 - Joined;
}

} // namespace loom::emu
