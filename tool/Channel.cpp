//===- tool/Channel.cpp - Records from the hooks to the tools' host code --===//

#include "Channel.h"

#include "llvm/Support/MathExtras.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <pthread.h>

using namespace llvm;
using namespace loom::instrument;

namespace loom::tool {

namespace {

/// Rounds with nothing to drain, after records came, before the thread
/// sleeps (some tens of microseconds): a kernel that pushes in bursts finds
/// it awake.
constexpr unsigned SpinRounds = 64;
/// Then it polls this often (a full lossless ring waits at most about this
/// long for the host), and not at all while no dispatch with a ring runs.
constexpr std::chrono::microseconds Nap(100);

/// A short busy wait. Not sched_yield: next to the emulator's workers (or
/// any busy thread) a yielding thread gets the CPU back a time slice later,
/// which made a ring of 64 records 30 times slower; a sleeping one is
/// woken promptly.
void spinAWhile() {
  for (int I = 0; I < 64; ++I) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  }
}

/// Where the Sequence and Free words and the records lie in a ring's
/// memory: the header, then Capacity words of each, then the records (each
/// part 64-byte aligned, as Capacity >= 64).
constexpr size_t SequenceOffset = 64;
size_t freeOffset(uint32_t Capacity) {
  return SequenceOffset + sizeof(uint64_t) * size_t(Capacity);
}
size_t recordsOffset(uint32_t Capacity) {
  return freeOffset(Capacity) + sizeof(uint64_t) * size_t(Capacity);
}

// The device writes these while the host reads them: atomics (the host is
// the only writer of Consumed).
uint64_t loadAcquire(uint64_t &Word) {
  return std::atomic_ref<uint64_t>(Word).load(std::memory_order_acquire);
}
uint64_t loadRelaxed(uint64_t &Word) {
  return std::atomic_ref<uint64_t>(Word).load(std::memory_order_relaxed);
}
void storeRelease(uint64_t &Word, uint64_t V) {
  std::atomic_ref<uint64_t>(Word).store(V, std::memory_order_release);
}

/// A wave chunk's End word (LoomWaveChunk::End), which its publication
/// sets (nonzero: the cursor's low word never is).
uint32_t &endWord(const char *Chunk) {
  return *reinterpret_cast<uint32_t *>(const_cast<char *>(Chunk) +
                                       offsetof(LoomWaveChunk, End));
}

/// HostMemory::Block::Left of a ring of wave chunks of \p Capacity records
/// of \p RecordBytes (their log2s, so that no other layout reads as it)
/// whose first \p Prepared slots have their End word 0.
constexpr unsigned PreparedBits = 48;
uint64_t cleanChunks(uint32_t Capacity, uint32_t RecordBytes,
                     uint64_t Prepared) {
  return 1ull << 63 | uint64_t(Log2_32(Capacity)) << 56 |
         uint64_t(Log2_32(RecordBytes)) << PreparedBits | Prepared;
}

/// Slots a new ring of wave chunks readies at its opening (its End words
/// zeroed, a page each; the claims past them ready their own slots).
constexpr uint64_t PrepareAtOpening = 1024;

/// A slot's Free word before the host or its first claim readied it: no
/// claim's, nor a claim's + Capacity; its high word 0, so that the claim
/// makes it its own by storing the low word.
constexpr uint64_t Unprepared = 0xffffffffull;

} // namespace

Expected<std::shared_ptr<ChannelRing>>
ChannelDrain::open(ToolHost &Tool, const ChannelOptions &Options,
                   const Dispatch &D) {
  size_t Records = recordsOffset(Options.Capacity);
  // Records of a power-of-two size start at a multiple of it: a wave's
  // chunk (loom::channelAppendWave) finds its start from its cursor.
  size_t Align = isPowerOf2_32(Options.RecordBytes) ? Options.RecordBytes : 1;
  Expected<HostMemory::Block> B = Memory.get(
      HostMemory::Use::Channel,
      Records + Align + size_t(Options.Capacity) * Options.RecordBytes,
      D.Agent);
  if (!B)
    return B.takeError();
  auto R = std::make_shared<ChannelRing>();
  R->Tool = &Tool;
  R->D = D;
  R->D.Instrumented = true;
  R->Memory = *B;
  // The counters and every Sequence word start at 0 (a reused block holds
  // the last dispatch's, which could pass for published records); the
  // records need not: only published ones are read.
  auto *Base = static_cast<char *>(B->Ptr);
  std::memset(Base, 0, Records);
  // Each slot takes its own index first.
  auto *Free = reinterpret_cast<uint64_t *>(Base + freeOffset(Options.Capacity));
  for (uint32_t I = 0; I < Options.Capacity; ++I)
    Free[I] = I;
  R->Ring = reinterpret_cast<LoomChannelRing *>(Base);
  R->Ring->Capacity = Options.Capacity;
  R->Ring->RecordBytes = Options.RecordBytes;
  R->Ring->Lossy = Options.Lossy;
  R->Ring->Sequence = reinterpret_cast<uint64_t>(Base + SequenceOffset);
  R->Ring->Records =
      alignTo(reinterpret_cast<uint64_t>(Base + Records), uint64_t(Align));
  R->Ring->Free = reinterpret_cast<uint64_t>(Free);
  // Wave chunks: a chunk is published once its End word is nonzero, so
  // each slot's End word is zeroed before its first claim: by the host
  // for the first slots (prepare), by the claim itself past them. The
  // drain zeroes it again as it releases the slot, so a ring's block
  // comes back with its used slots ready, and Left says how many.
  R->WaveChunks = Options.WaveChunks;
  if (Options.WaveChunks) {
    uint64_t Left = B->Left, Layout = cleanChunks(Options.Capacity,
                                                  Options.RecordBytes, 0);
    R->Prepared = Left >> PreparedBits == Layout >> PreparedBits
                      ? Left & ((1ull << PreparedBits) - 1)
                      : 0;
    for (uint64_t I = R->Prepared; I < Options.Capacity; ++I)
      Free[I] = Unprepared;
    prepare(*R);
  }
  R->Memory.Left = 0; // until finish finds every chunk released
  return R;
}

void ChannelDrain::start(std::shared_ptr<ChannelRing> R) {
  std::lock_guard<std::mutex> L(Lock);
  Active.push_back(std::move(R));
  if (!Thread.joinable()) {
    Stopping = false;
    Thread = std::thread([this] { run(); });
  }
  Wake.notify_one();
}

void ChannelDrain::prepare(ChannelRing &R) {
  LoomChannelRing &H = *R.Ring;
  auto *Free = reinterpret_cast<uint64_t *>(H.Free);
  auto *Records = reinterpret_cast<char *>(H.Records);
  for (uint64_t I = R.Prepared; I < std::min<uint64_t>(H.Capacity,
                                                       PrepareAtOpening);
       ++I) {
    endWord(Records + I * H.RecordBytes) = 0;
    Free[I] = I;
  }
  R.Prepared = std::max<uint64_t>(
      R.Prepared, std::min<uint64_t>(H.Capacity, PrepareAtOpening));
  H.Ready = uint32_t(R.Prepared);
}

uint64_t ChannelDrain::drain(ChannelRing &R) {
  LoomChannelRing &H = *R.Ring;
  uint64_t Capacity = H.Capacity, Mask = Capacity - 1;
  auto *Sequence = reinterpret_cast<uint64_t *>(H.Sequence);
  auto *Free = reinterpret_cast<uint64_t *>(H.Free);
  auto *Records = reinterpret_cast<const char *>(H.Records);
  uint64_t Consumed = H.Consumed; // written by the host only
  uint64_t Claimed = loadAcquire(H.Claimed);
  uint64_t Limit = std::min(Claimed, Consumed + Capacity);
  // The records after Consumed that are published (Sequence: claim + 1)
  // and not yet handed over (Free: claim + Capacity once they are), read
  // from the last back: a producer publishes its records in claim order,
  // so one seen published means every earlier one of it is seen too, and
  // each producer's records go to the tool in its order, though a record
  // still being written no longer holds up the ones claimed after it.
  std::vector<uint8_t> &Ready = R.Ready;
  Ready.assign(size_t(Limit - Consumed), 0);
  // A wave chunk is its claim's once the host released its slot to it
  // (Free), published once its End word is set.
  if (R.WaveChunks)
    for (uint64_t I = Limit; I-- > Consumed;)
      Ready[I - Consumed] =
          loadRelaxed(Free[I & Mask]) == I &&
          std::atomic_ref<uint32_t>(
              endWord(Records + (I & Mask) * H.RecordBytes))
                  .load(std::memory_order_acquire) != 0;
  else
    for (uint64_t I = Limit; I-- > Consumed;)
      Ready[I - Consumed] = loadRelaxed(Free[I & Mask]) != I + Capacity &&
                            loadAcquire(Sequence[I & Mask]) == I + 1;
  uint64_t Got = 0;
  for (uint64_t I = Consumed; I < Limit;) {
    if (!Ready[I - Consumed]) {
      ++I;
      continue;
    }
    // A run of them, up to the ring's end at most.
    uint64_t End = I + 1;
    while (End < Limit && (End & Mask) && Ready[End - Consumed])
      ++End;
    R.Tool->call([&](Tool &T, ToolContext &Ctx) {
      T.channelRecords(Ctx, R.D, Records + (I & Mask) * H.RecordBytes,
                       size_t(End - I));
    });
    // The tool is done with the slots: their producers' next claims may
    // take them.
    for (uint64_t C = I; C < End; ++C) {
      if (R.WaveChunks) // unpublished for its next claim
        std::atomic_ref<uint32_t>(endWord(Records + (C & Mask) * H.RecordBytes))
            .store(0, std::memory_order_relaxed);
      storeRelease(Free[C & Mask], C + Capacity);
    }
    Got += End - I;
    I = End;
  }
  while (Consumed < Limit && loadRelaxed(Free[Consumed & Mask]) == Consumed + Capacity)
    ++Consumed;
  storeRelease(H.Consumed, Consumed);
  return Got;
}

void ChannelDrain::run() {
  pthread_setname_np(pthread_self(), "loom-channel");
  unsigned Idle = 0;
  std::unique_lock<std::mutex> L(Lock);
  while (!Stopping) {
    if (Active.empty()) {
      Wake.wait(L, [&] { return Stopping || !Active.empty(); });
      Idle = 0;
      continue;
    }
    std::vector<std::shared_ptr<ChannelRing>> Rings = Active;
    L.unlock();
    uint64_t Got = 0;
    for (const std::shared_ptr<ChannelRing> &R : Rings) {
      // A ring being finished is the completion handler's.
      std::unique_lock<std::mutex> RL(R->Lock, std::try_to_lock);
      if (RL.owns_lock() && !R->Finished)
        Got += drain(*R);
    }
    Rings.clear();
    L.lock();
    if (Got) {
      Idle = 0;
    } else if (++Idle < SpinRounds) {
      L.unlock();
      spinAWhile();
      L.lock();
    } else {
      Wake.wait_for(L, Nap); // a new ring or stop wakes it sooner
    }
  }
}

uint64_t ChannelDrain::finish(ChannelRing &R) {
  uint64_t Claimed, Consumed, Dropped;
  {
    std::lock_guard<std::mutex> RL(R.Lock);
    if (R.Finished)
      return 0;
    while (drain(R)) // a pass reaches at most Capacity records ahead
      ;
    Claimed = loadAcquire(R.Ring->Claimed);
    Consumed = R.Ring->Consumed;
    Dropped = loadAcquire(R.Ring->Dropped);
    R.Finished = true;
    // Every claimed chunk released: the End words of every slot readied
    // or claimed 0 again.
    if (R.WaveChunks && Claimed == Consumed)
      R.Memory.Left = cleanChunks(
          R.Ring->Capacity, R.Ring->RecordBytes,
          std::max<uint64_t>(R.Prepared,
                             std::min<uint64_t>(Claimed, R.Ring->Capacity)));
    Memory.put(R.Memory);
    R.Ring = nullptr;
  }
  forget(R);
  std::string Where = R.Tool->name().str() + ": " + R.D.Kernel + " dispatch " +
                      std::to_string(R.D.Index);
  if (Dropped)
    errs() << "loom-tool: " << Where << ": the channel dropped " << Dropped
           << " of " << Dropped + Consumed
           << " records (its lossy ring was full)\n";
  // Only if the dispatch ended before its hooks wrote what they claimed.
  if (Claimed != Consumed)
    errs() << "loom-tool: " << Where << ": " << Claimed - Consumed
           << " channel records were claimed but never written\n";
  return Dropped;
}

void ChannelDrain::discard(ChannelRing &R) {
  {
    std::lock_guard<std::mutex> RL(R.Lock);
    if (R.Finished)
      return;
    R.Finished = true;
    Memory.put(R.Memory);
    R.Ring = nullptr;
  }
  forget(R);
}

void ChannelDrain::forget(ChannelRing &R) {
  std::lock_guard<std::mutex> L(Lock);
  auto It = std::find_if(Active.begin(), Active.end(),
                         [&](const auto &A) { return A.get() == &R; });
  if (It != Active.end())
    Active.erase(It);
}

void ChannelDrain::stop() {
  std::thread T;
  {
    std::lock_guard<std::mutex> L(Lock);
    Stopping = true;
    T.swap(Thread);
  }
  Wake.notify_all();
  if (T.joinable())
    T.join();
  std::lock_guard<std::mutex> L(Lock);
  Active.clear(); // dispatches that never completed: their rings stay lost
}

} // namespace loom::tool
