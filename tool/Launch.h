//===- tool/Launch.h - Per-launch values of an instrumented dispatch ------===//
//
// A copy whose hooks read the launch header (dispatch id, launch data,
// channel) is dispatched with a kernarg segment of its own: the original
// arguments, then at InstrumentedKernel::LaunchHeaderOffset a
// LoomLaunchHeader, then each tool's launch data. Tools[slot] of the header
// is the slot-th tool of the copy (the order of its hook libraries), with
// this dispatch's channel ring if the tool opened a channel. The segment
// and the rings live until the dispatch completes.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TOOL_LAUNCH_H
#define LOOM_TOOL_LAUNCH_H

#include "Channel.h"
#include "HostMemory.h"
#include "KernelCopies.h"

#include <hsa/hsa.h>

#include <memory>
#include <vector>

namespace loom::tool {

class Launch {
public:
  /// The kernarg segment of dispatch \p D (packet \p K) of \p Copy, with
  /// \p Data[slot] the launch data of the copy's slot-th tool, and a ring
  /// for each of its tools with a channel. Nothing is drained yet.
  static llvm::Expected<std::unique_ptr<Launch>>
  make(HostMemory &Memory, ChannelDrain &Drain, const KernelCopy &Copy,
       const hsa_kernel_dispatch_packet_t &K,
       const std::vector<std::vector<uint8_t>> &Data,
       const instrument::Dispatch &D);
  ~Launch();

  void *kernarg() const { return Kernarg.Ptr; }
  /// The dispatch is being submitted: its rings are drained from now on.
  void start();
  /// \p Tool's ring in this dispatch, or null.
  ChannelRing *ringOf(const ToolHost *Tool) const;

private:
  Launch(HostMemory &Memory, ChannelDrain &Drain)
      : Memory(Memory), Drain(Drain) {}

  HostMemory &Memory;
  ChannelDrain &Drain;
  HostMemory::Block Kernarg;
  /// By slot (null: the tool has no channel).
  std::vector<std::shared_ptr<ChannelRing>> Rings;
};

} // namespace loom::tool

#endif // LOOM_TOOL_LAUNCH_H
