//===- tool/Channel.h - Records from the hooks to the tools' host code ----===//
//
// A tool that opened a channel (ToolContext::openChannel) gets a ring in
// each instrumented dispatch whose hooks read the launch header: a
// LoomChannelRing, its Sequence words and its records, in fine-grained
// system memory (loom/instrument/LaunchHeader.h describes the protocol).
// One drain thread polls the rings of the dispatches running, hands the
// records published so far to Tool::channelRecords, straight from the
// ring, each producer's in the order it claimed them (a record still being
// written does not hold up those claimed after it), and releases each
// one's slot (Free) and every record up to the first still held
// (Consumed), which lets producers waiting on a full lossless ring go on. When the dispatch
// completes, its completion handler drains what is left (finish), before
// the tools' dispatchComplete.
//
// Each ring has a lock: the drain thread only tries it, the final drain
// takes it, so the two never hand out the same records and the thread
// never touches a ring once it is finished.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TOOL_CHANNEL_H
#define LOOM_TOOL_CHANNEL_H

#include "HostMemory.h"
#include "ToolHost.h"

#include "loom/instrument/LaunchHeader.h"

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace loom::tool {

/// One tool's ring in one dispatch.
struct ChannelRing {
  ToolHost *Tool = nullptr;
  instrument::Dispatch D; ///< given to channelRecords
  HostMemory::Block Memory;
  LoomChannelRing *Ring = nullptr; ///< at Memory.Ptr
  /// ChannelOptions::WaveChunks: each record published by its End word.
  bool WaveChunks = false;
  /// Wave chunks: the slots the host readied for their first claim (End
  /// word 0, Free their index), LoomChannelRing::Ready.
  uint64_t Prepared = 0;
  std::mutex Lock;       ///< the drain thread and the final drain
  bool Finished = false; ///< drained for the last time; Memory given back
  std::vector<uint8_t> Ready; ///< drain's: which records it may hand over
};

class ChannelDrain {
public:
  explicit ChannelDrain(HostMemory &Memory) : Memory(Memory) {}
  ~ChannelDrain() { stop(); }

  /// A zeroed ring for \p Tool's channel (opened with \p Options) in
  /// dispatch \p D, on D.Agent; not drained until start.
  llvm::Expected<std::shared_ptr<ChannelRing>>
  open(ToolHost &Tool, const instrument::ChannelOptions &Options,
       const instrument::Dispatch &D);
  /// Drains \p R from now on (its dispatch is about to be submitted).
  void start(std::shared_ptr<ChannelRing> R);
  /// After the dispatch: hands the records left to the tool, warns if a
  /// lossy ring dropped some, gives the ring's memory back; returns the
  /// records dropped (Dispatch::ChannelDropped).
  uint64_t finish(ChannelRing &R);
  /// Gives back a ring that will not be finished (never started, or its
  /// dispatch outlived the runtime), without draining it.
  void discard(ChannelRing &R);
  /// Stops the drain thread (at the runtime's end); the next start starts
  /// it again.
  void stop();

private:
  /// Readies the first slots of \p R's wave chunks for their first claims
  /// (End 0, Free[I] = I) and sets the ring's Ready; before its dispatch.
  static void prepare(ChannelRing &R);
  void run();
  /// Hands the records published after Consumed (up to Capacity ahead) to
  /// the tool and releases them; R.Lock held. Returns how many.
  uint64_t drain(ChannelRing &R);
  /// No longer drained by the thread.
  void forget(ChannelRing &R);

  HostMemory &Memory;
  std::mutex Lock; ///< Active, Stopping, Thread
  std::condition_variable Wake;
  std::vector<std::shared_ptr<ChannelRing>> Active;
  bool Stopping = false;
  std::thread Thread;
};

} // namespace loom::tool

#endif // LOOM_TOOL_CHANNEL_H
