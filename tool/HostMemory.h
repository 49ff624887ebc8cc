//===- tool/HostMemory.h - Memory the host and the agents share -----------===//
//
// What the runtime hands instrumented dispatches: kernarg segments (with
// the launch header) and channel rings. Both come from the HSA runtime's
// system memory pools, found through the standard API: kernargs from the
// pool flagged KERNARG_INIT (where ROCr and Loom put every kernarg
// segment), rings from a fine-grained one (host and agent see each other's
// stores while the kernel runs). On Loom every pool is host memory; on ROCm
// these are the CPU agent's pools, made accessible to the kernel's agent
// where they are not by default.
//
// Allocating through the HSA runtime is slow on ROCm (an mmap and a driver
// call), so blocks are kept for reuse, by (use, agent, size).
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TOOL_HOSTMEMORY_H
#define LOOM_TOOL_HOSTMEMORY_H

#include "llvm/Support/Error.h"

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace loom::tool {

class HostMemory {
public:
  enum class Use : uint8_t { Kernarg, Channel };

  struct Block {
    void *Ptr = nullptr;
    size_t Bytes = 0; ///< as allocated: at least what was asked
    Use For = Use::Kernarg;
    hsa_agent_t Agent{};
    /// What the block's last user said of what it left in it (put), for
    /// the next (0 for a new block): a channel ring of wave chunks whose
    /// End words are all 0, say (ChannelDrain).
    uint64_t Left = 0;
    explicit operator bool() const { return Ptr; }
  };

  /// A block of at least \p Bytes that \p Agent can read and write, not
  /// zeroed (a reused block holds what its last user left, as Left says).
  llvm::Expected<Block> get(Use For, size_t Bytes, hsa_agent_t Agent);
  /// Gives \p B back, for reuse.
  void put(Block B);
  /// Frees the blocks kept for reuse and forgets the pools (at the
  /// runtime's end: a later hsa_init may bring other pools).
  void clear();

private:
  struct Pools {
    std::optional<hsa_amd_memory_pool_t> Kernarg, Fine;
    size_t Granule = 4096;
  };
  /// The system pools, looked up once; Lock held.
  const Pools &pools();
  llvm::Expected<Block> allocate(Use For, size_t Bytes, hsa_agent_t Agent);

  std::mutex Lock;
  std::optional<Pools> Found;
  /// By (use, agent, bytes): each block and its Left.
  std::map<std::tuple<Use, uint64_t, size_t>,
           std::vector<std::pair<void *, uint64_t>>>
      Free;
};

} // namespace loom::tool

#endif // LOOM_TOOL_HOSTMEMORY_H
