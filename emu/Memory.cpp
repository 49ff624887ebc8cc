//===- emu/Memory.cpp - Registered device memory --------------------------===//

#include "loom/emu/Memory.h"

#include <algorithm>
#include <map>

namespace loom::emu {

/// Disjoint intervals sorted by base: the union of the registrations, each
/// byte with the union of the rights granted to it.
struct MemoryMap::Snapshot {
  std::vector<MemoryRange> Intervals;

  const MemoryRange *lookup(uint64_t Addr) const {
    auto It = std::upper_bound(
        Intervals.begin(), Intervals.end(), Addr,
        [](uint64_t A, const MemoryRange &R) { return A < R.Base; });
    if (It == Intervals.begin())
      return nullptr;
    --It;
    return Addr - It->Base < It->Size ? &*It : nullptr;
  }
};

MemoryMap::MemoryMap() { publish(); }

MemoryMap::~MemoryMap() { delete Current.load(); }

void MemoryMap::publish() {
  // Sweep the boundaries: +rights where a range starts, -rights where it
  // ends; counts per right tell whether any range still grants it.
  std::map<uint64_t, std::pair<int, int>> Delta; // read, write
  for (const MemoryRange &R : Ranges) {
    if (!R.Size)
      continue;
    uint64_t End = R.Base + R.Size < R.Base ? ~0ull : R.Base + R.Size;
    auto &S = Delta[R.Base];
    auto &E = Delta[End];
    if (R.Access & AccessRead)
      ++S.first, --E.first;
    if (R.Access & AccessWrite)
      ++S.second, --E.second;
  }
  auto *Next = new Snapshot();
  int Read = 0, Write = 0;
  uint64_t Start = 0;
  uint8_t Access = 0;
  for (auto &[Point, D] : Delta) {
    if (Access && Point > Start) {
      if (!Next->Intervals.empty() &&
          Next->Intervals.back().Base + Next->Intervals.back().Size == Start &&
          Next->Intervals.back().Access == Access)
        Next->Intervals.back().Size += Point - Start;
      else
        Next->Intervals.push_back({Start, Point - Start, Access});
    }
    Read += D.first;
    Write += D.second;
    Access = (Read > 0 ? AccessRead : 0) | (Write > 0 ? AccessWrite : 0);
    Start = Point;
  }
  const Snapshot *Old = Current.exchange(Next);
  if (Old)
    Retired.emplace_back(Old);
  // A reader announces itself before loading Current, so once none is
  // announced after the exchange, no one holds a retired snapshot.
  if (noReaders())
    Retired.clear();
}

bool MemoryMap::noReaders() const {
  for (const ReaderCount &R : Readers)
    if (R.N.load() != 0)
      return false;
  return true;
}

namespace {
/// This thread's reader count: threads spread over the slots in the order
/// they first look up.
unsigned readerSlot(unsigned Slots) {
  static std::atomic<unsigned> NextThread{0};
  thread_local unsigned Slot =
      NextThread.fetch_add(1, std::memory_order_relaxed);
  return Slot % Slots;
}
} // namespace

void MemoryMap::add(uint64_t Base, uint64_t Size, uint8_t Access) {
  std::lock_guard<std::mutex> G(Lock);
  Ranges.push_back({Base, Size, Access});
  publish();
}

void MemoryMap::add(const void *Base, uint64_t Size, uint8_t Access) {
  add(reinterpret_cast<uint64_t>(Base), Size, Access);
}

bool MemoryMap::remove(uint64_t Base) {
  std::lock_guard<std::mutex> G(Lock);
  for (size_t I = Ranges.size(); I-- > 0;)
    if (Ranges[I].Base == Base) {
      Ranges.erase(Ranges.begin() + I);
      publish();
      return true;
    }
  return false;
}

bool MemoryMap::check(uint64_t Addr, uint64_t Bytes, uint8_t Access) const {
  MemoryRange R;
  return find(Addr, R) && R.contains(Addr, Bytes) &&
         (R.Access & Access) == Access;
}

bool MemoryMap::find(uint64_t Addr, MemoryRange &Out) const {
  std::atomic<int> &Count = Readers[readerSlot(ReaderSlots)].N;
  Count.fetch_add(1);
  const MemoryRange *R = Current.load()->lookup(Addr);
  bool Found = R != nullptr;
  if (Found)
    Out = *R;
  Count.fetch_sub(1);
  return Found;
}

void MemoryMap::reclaim() {
  std::lock_guard<std::mutex> G(Lock);
  if (noReaders())
    Retired.clear();
}

} // namespace loom::emu
