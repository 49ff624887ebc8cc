//===- emu/Takeover.cpp - Idle workers take over started work-groups ------===//

#include "Takeover.h"
#include "Clock.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace loom::emu {

namespace {

/// A thief takes a group only from a worker it runs at least this much
/// faster than (the speed estimates of a few hundred microseconds move by
/// a few percent; a move costs the thief a cold cache).
constexpr double MinSpeedup = 1.2;
/// ... and only where that saves at least this much of the group's time.
constexpr double MinGainNs = 10'000;

/// A swap needs the partner's group at least this many slices behind its
/// asker's (and, once a group's size is known, MinGainNs of gain): speed
/// estimates move, and each exchange costs both cores a cold cache.
constexpr uint64_t MinLeadSlices = 2;

/// A worker's speed in wave time slices per ns: \p Slices run between
/// \p Start and \p Now; 0 before any time has passed.
double speed(uint64_t Slices, uint64_t Start, uint64_t Now) {
  return Now > Start ? double(Slices) / double(Now - Start) : 0;
}

/// The answer that refuses.
char RefusedTag;
void *const Refused = &RefusedTag;

/// Polls: the pause instruction, and the core for others every 64 polls
/// (with more threads than cores, the worker that would answer may need it).
void relax(unsigned Polls) {
  if (Polls % 64 == 0)
    std::this_thread::yield();
  else
    __builtin_ia32_pause();
}

} // namespace

TakeoverMode takeoverMode(TakeoverMode Option) {
  static const char *Env = std::getenv("LOOM_TAKEOVERS");
  if (!Env)
    return Option;
  if (!std::strcmp(Env, "0"))
    return TakeoverMode::Off;
  if (!std::strcmp(Env, "always"))
    return TakeoverMode::Always;
  return TakeoverMode::On;
}

void Takeovers::start(unsigned N, uint64_t Groups, TakeoverMode M) {
  Mode = N > 1 ? M : TakeoverMode::Off;
  Workers = N;
  Unfinished.store(Groups, std::memory_order_relaxed);
  if (Mode != TakeoverMode::Off)
    Slots = std::make_unique<Slot[]>(N);
}

void Takeovers::awaitJoins(uint64_t MaxNs) const {
  uint64_t Start = nowNs();
  for (unsigned W = 0, Polls = 1; W < Workers; ++Polls) {
    if (Slots[W].Start.load(std::memory_order_relaxed)) {
      ++W;
      continue;
    }
    if (Polls % 64 == 0 && nowNs() - Start > MaxNs)
      return; // pool threads busy with other dispatches
    relax(Polls);
  }
}

int Takeovers::asker(unsigned W) {
  uint32_t R = Slots[W].Request.load(std::memory_order_acquire);
  return R && R != Closed ? int(R - 1) : -1;
}

void Takeovers::answer(unsigned W, unsigned Thief, void *Group) {
  Slots[Thief].Answer.store(Group ? Group : Refused, std::memory_order_release);
  Slots[W].Request.store(0, std::memory_order_relaxed);
}

void Takeovers::close(unsigned W) {
  Slots[W].Held.store(0, std::memory_order_relaxed);
  uint32_t R = Slots[W].Request.exchange(Closed, std::memory_order_acq_rel);
  if (R && R != Closed)
    Slots[R - 1].Answer.store(Refused, std::memory_order_release);
}

int Takeovers::pick(unsigned Thief, uint64_t IdleSince) const {
  if (Mode == TakeoverMode::Always) {
    for (unsigned I = 1; I < Workers; ++I) {
      unsigned V = (Thief + I) % Workers;
      if (Slots[V].Held.load(std::memory_order_relaxed))
        return int(V);
    }
    return Unfinished.load(std::memory_order_relaxed) ? -2 : -1;
  }
  const Slot &Me = Slots[Thief];
  // Speeds over the dispatch so far.
  double Mine = speed(Me.Slices.load(std::memory_order_relaxed),
                      Me.Start.load(std::memory_order_relaxed), IdleSince);
  if (Mine <= 0)
    return -1;
  uint64_t Size = GroupSize.load(std::memory_order_relaxed), Now = nowNs();
  int Best = -1;
  double BestLeftNs = 0;
  for (unsigned I = 1; I < Workers; ++I) {
    unsigned V = (Thief + I) % Workers;
    const Slot &S = Slots[V];
    uint32_t Held = S.Held.load(std::memory_order_relaxed);
    if (!Held || S.Request.load(std::memory_order_relaxed))
      continue;
    if (Held > 1)
      return int(V); // a group that waits for its owner: any core helps
    uint64_t Start = S.Start.load(std::memory_order_relaxed),
             Slices = S.Slices.load(std::memory_order_relaxed);
    double Theirs = speed(Slices, Start, Now);
    if (!Start || Theirs <= 0)
      continue;
    if (Mine < Theirs * MinSpeedup)
      continue;
    // With no group finished yet, guess the group half done.
    uint64_t Done = S.GroupSlices.load(std::memory_order_relaxed);
    double Left = Size ? double(Size > Done ? Size - Done : 0) : double(Done);
    double LeftNs = Left / Theirs;
    if (LeftNs - Left / Mine < MinGainNs || LeftNs <= BestLeftNs)
      continue;
    Best = int(V);
    BestLeftNs = LeftNs;
  }
  return Best;
}

int Takeovers::swapPartner(unsigned W, uint64_t Done) const {
  if (Mode == TakeoverMode::Always) {
    for (unsigned I = 1; I < Workers; ++I) {
      unsigned V = (W + I) % Workers;
      if (Slots[V].Held.load(std::memory_order_relaxed) == 1 &&
          !Slots[V].Request.load(std::memory_order_relaxed))
        return int(V);
    }
    return -1;
  }
  const Slot &Me = Slots[W];
  uint64_t Now = nowNs();
  double Mine = speed(Me.Slices.load(std::memory_order_relaxed),
                      Me.Start.load(std::memory_order_relaxed), Now);
  if (Mine <= 0)
    return -1;
  // Time to run \p Slices more of a group of the last finished one's size.
  uint64_t Size = GroupSize.load(std::memory_order_relaxed);
  auto Left = [&](uint64_t Ran, double Speed) {
    return double(Size > Ran ? Size - Ran : 0) / Speed;
  };
  int Best = -1;
  uint64_t BestDone = Done;
  for (unsigned I = 1; I < Workers; ++I) {
    unsigned V = (W + I) % Workers;
    const Slot &S = Slots[V];
    if (S.Held.load(std::memory_order_relaxed) != 1 ||
        S.Request.load(std::memory_order_relaxed))
      continue;
    uint64_t Start = S.Start.load(std::memory_order_relaxed),
             Slices = S.Slices.load(std::memory_order_relaxed),
             Theirs = S.GroupSlices.load(std::memory_order_relaxed);
    if (!Start || Now <= Start || Slices < MinLeadSlices ||
        Theirs + MinLeadSlices > Done || Theirs >= BestDone)
      continue;
    double Speed = speed(Slices, Start, Now);
    if (Mine < Speed * MinSpeedup)
      continue;
    // The later of the two ends, now and after the exchange.
    if (Size && Left(Theirs, Speed) -
                        std::max(Left(Theirs, Mine), Left(Done, Speed)) <
                    MinGainNs)
      continue;
    Best = int(V);
    BestDone = Theirs;
  }
  return Best;
}

void *Takeovers::swap(unsigned W, unsigned Partner, uint64_t &WaitNs) {
  if (!ask(W, Partner))
    return nullptr;
  uint64_t Asked = nowNs();
  void *Group = await(W);
  WaitNs = nowNs() - Asked;
  if (Group)
    Swapped.fetch_add(1, std::memory_order_relaxed);
  return Group;
}

void *Takeovers::take(unsigned Thief, uint64_t IdleSince,
                      const std::atomic<bool> &Stop, bool Wait,
                      uint64_t &WaitNs) {
  for (unsigned Polls = 1; !Stop.load(std::memory_order_relaxed); ++Polls) {
    if (int T = asker(Thief); T >= 0)
      answer(Thief, unsigned(T), nullptr);
    int V = pick(Thief, IdleSince);
    if (V == -1 || (V == -2 && !Wait))
      return nullptr;
    if (V < 0 || !ask(Thief, unsigned(V))) {
      relax(Polls);
      continue;
    }
    uint64_t Asked = nowNs();
    void *Group = await(Thief);
    WaitNs = nowNs() - Asked;
    if (Group) {
      Taken.fetch_add(1, std::memory_order_relaxed);
      return Group;
    }
  }
  return nullptr;
}

bool Takeovers::ask(unsigned Thief, unsigned Victim) {
  Slots[Thief].Answer.store(nullptr, std::memory_order_relaxed);
  uint32_t Open = 0;
  // Release: the victim sees the thief's Spare and cleared Answer.
  return Slots[Victim].Request.compare_exchange_strong(
      Open, Thief + 1, std::memory_order_acq_rel, std::memory_order_relaxed);
}

void *Takeovers::await(unsigned Thief) {
  for (unsigned Polls = 1;; ++Polls) {
    if (void *A = Slots[Thief].Answer.load(std::memory_order_acquire))
      return A == Refused ? nullptr : A;
    // A thief that asked this one saw it busy a moment ago.
    if (int T = asker(Thief); T >= 0)
      answer(Thief, unsigned(T), nullptr);
    relax(Polls);
  }
}

} // namespace loom::emu
