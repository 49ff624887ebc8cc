//===- tool/Launch.cpp - Per-launch values of an instrumented dispatch ----===//

#include "Launch.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

using namespace llvm;
using namespace loom::instrument;

namespace loom::tool {

// Hooks read the packet through LaunchHeader.h's copy of its layout.
static_assert(sizeof(LoomDispatchPacket) == sizeof(hsa_kernel_dispatch_packet_t));
static_assert(offsetof(LoomDispatchPacket, GridSize) ==
              offsetof(hsa_kernel_dispatch_packet_t, grid_size_x));
static_assert(offsetof(LoomDispatchPacket, KernargAddress) ==
              offsetof(hsa_kernel_dispatch_packet_t, kernarg_address));
static_assert(offsetof(LoomDispatchPacket, CompletionSignal) ==
              offsetof(hsa_kernel_dispatch_packet_t, completion_signal));

Expected<std::unique_ptr<Launch>>
Launch::make(HostMemory &Memory, ChannelDrain &Drain, const KernelCopy &Copy,
             const hsa_kernel_dispatch_packet_t &K,
             const std::vector<std::vector<uint8_t>> &Data,
             const Dispatch &D) {
  std::unique_ptr<Launch> L(new Launch(Memory, Drain));
  size_t Slots = Copy.Tools.size();
  assert(Slots <= LOOM_LAUNCH_MAX_TOOLS && Data.size() == Slots);

  // The segment: the arguments and the header (KernargSize), then each
  // tool's launch data, 16-byte aligned.
  size_t End = std::max<size_t>(Copy.KernargSize, Copy.LaunchHeaderOffset +
                                                      sizeof(LoomLaunchHeader));
  std::vector<size_t> DataAt(Slots, 0);
  for (size_t S = 0; S < Slots; ++S)
    if (!Data[S].empty()) {
      DataAt[S] = alignTo(End, 16);
      End = DataAt[S] + Data[S].size();
    }
  Expected<HostMemory::Block> B =
      Memory.get(HostMemory::Use::Kernarg, End, D.Agent);
  if (!B)
    return B.takeError();
  L->Kernarg = *B;
  auto *Base = static_cast<uint8_t *>(B->Ptr);
  // Hidden arguments and padding included, the kernel finds what the
  // program wrote; the rest of the segment is zero.
  std::memset(Base, 0, End);
  if (Copy.OriginalKernargSize && K.kernarg_address)
    std::memcpy(Base, K.kernarg_address, Copy.OriginalKernargSize);

  LoomLaunchHeader H{};
  H.DispatchId = D.Index;
  std::copy(D.Grid, D.Grid + 3, H.GridSize);
  std::copy(D.WorkGroup, D.WorkGroup + 3, H.WorkgroupSize);
  H.ToolCount = uint16_t(Slots);
  L->Rings.resize(Slots);
  for (size_t S = 0; S < Slots; ++S) {
    if (!Data[S].empty()) {
      std::memcpy(Base + DataAt[S], Data[S].data(), Data[S].size());
      H.Tools[S].Data = reinterpret_cast<uint64_t>(Base + DataAt[S]);
    }
    ToolHost &T = *Copy.Tools[S];
    if (const std::optional<ChannelOptions> &Options = T.channel()) {
      Expected<std::shared_ptr<ChannelRing>> R = Drain.open(T, *Options, D);
      if (!R)
        return createStringError(inconvertibleErrorCode(),
                                 "%s: no memory for its channel: %s",
                                 T.name().str().c_str(),
                                 toString(R.takeError()).c_str());
      L->Rings[S] = std::move(*R);
      H.Tools[S].Channel = reinterpret_cast<uint64_t>(L->Rings[S]->Ring);
    }
  }
  std::memcpy(Base + Copy.LaunchHeaderOffset, &H, sizeof(H));
  return L;
}

void Launch::start() {
  for (const std::shared_ptr<ChannelRing> &R : Rings)
    if (R)
      Drain.start(R);
}

ChannelRing *Launch::ringOf(const ToolHost *Tool) const {
  for (const std::shared_ptr<ChannelRing> &R : Rings)
    if (R && R->Tool == Tool)
      return R.get();
  return nullptr;
}

Launch::~Launch() {
  // Rings are finished by the completion handler; one that was not (never
  // started, or the runtime ended first) is only given back.
  for (const std::shared_ptr<ChannelRing> &R : Rings)
    if (R)
      Drain.discard(*R);
  Memory.put(Kernarg);
}

} // namespace loom::tool
