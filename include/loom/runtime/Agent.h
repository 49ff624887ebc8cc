//===- loom/runtime/Agent.h - CPU and virtual-GPU agents ------------------===//
//
// One CPU agent and N GPU agents, each GPU backed by its own emu::Device and
// described as an MI210-like board (see docs/runtime.md). An agent's handle
// is its address. ISAs are static objects, their handle their address.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_RUNTIME_AGENT_H
#define LOOM_RUNTIME_AGENT_H

#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace loom::emu {
class Device;
}

namespace loom::runtime {

class MemoryPool;

/// What varies between the boards the virtual GPU poses as.
struct Board {
  const char *Product;    ///< Marketing name.
  uint32_t ChipId;        ///< PCI device id.
  uint32_t ComputeUnits;
  uint32_t ShaderEngines;
  uint64_t VramBytes;
  uint32_t MaxClockMhz;
};

/// An instruction set an agent runs ("amdgcn-amd-amdhsa--gfx90a:...").
struct Isa {
  std::string Name;      ///< Full ISA name.
  std::string Processor; ///< "gfx90a".
  const Board *TheBoard = nullptr; ///< MI210 for gfx90a, MI300X for gfx942.
  uint64_t handle() const { return reinterpret_cast<uint64_t>(this); }
  hsa_status_t getInfo(hsa_isa_info_t Attribute, void *Value) const;
  /// The ISA named \p Name (full name or just a processor), or nullptr.
  static const Isa *fromName(const std::string &Name);
  static const Isa *fromHandle(uint64_t Handle);
};

class Agent {
public:
  enum class Kind { Cpu, Gpu };
  Agent(Kind K, unsigned Node, unsigned GpuIndex, const Isa *I);
  ~Agent();

  Kind kind() const { return TheKind; }
  bool isGpu() const { return TheKind == Kind::Gpu; }
  uint64_t handle() const { return reinterpret_cast<uint64_t>(this); }
  hsa_agent_t hsa() const { return {handle()}; }
  unsigned node() const { return Node; }
  const Isa *isa() const { return TheIsa; }
  emu::Device *device() const { return Dev.get(); }
  /// The board a GPU agent poses as (nullptr for the CPU).
  const Board *board() const { return TheIsa ? TheIsa->TheBoard : nullptr; }
  /// Compute units of a GPU agent (0 for the CPU).
  uint32_t computeUnits() const { return board() ? board()->ComputeUnits : 0; }

  hsa_status_t getInfo(hsa_agent_info_t Attribute, void *Value) const;

  /// hsa_amd_agent_iterate_memory_pools order.
  std::vector<MemoryPool *> Pools;
  /// hsa_agent_iterate_regions order (a GPU also lists system memory).
  std::vector<MemoryPool *> Regions;
  std::unique_ptr<emu::Device> Dev;

private:
  Kind TheKind;
  unsigned Node;
  unsigned GpuIndex;
  const Isa *TheIsa;
};

/// Facts common to the boards (CDNA2/CDNA3 compute units).
namespace gpu {
inline constexpr uint32_t SimdsPerCu = 4;
inline constexpr uint32_t MaxWavesPerCu = 32; // 8 per SIMD
inline constexpr uint32_t ShaderArraysPerSe = 1;
inline constexpr uint32_t Wavefront = 64;
inline constexpr uint32_t WorkgroupMax = 1024;
inline constexpr uint32_t LdsBytes = 64 * 1024;
inline constexpr uint32_t QueueMinSize = 64;
inline constexpr uint32_t QueueMaxSize = 131072;
inline constexpr uint32_t QueuesMax = 128;
inline constexpr uint32_t CachelineBytes = 128;
inline constexpr uint32_t L1Bytes = 16 * 1024;
inline constexpr uint32_t L2Bytes = 8 * 1024 * 1024;
} // namespace gpu

} // namespace loom::runtime

#endif // LOOM_RUNTIME_AGENT_H
