//===- loom/runtime/Runtime.h - The HSA runtime's objects, for C++ users --===//
//
// The small C++ surface of the runtime that other parts of Loom (the loader
// in runtime/loader and hsa/LoaderApi.cpp, the CLI, tests) use without going
// through the C API: which agents exist, the virtual GPU behind a GPU agent,
// and memory every virtual GPU can reach. Handles are the HSA handles
// (hsa_agent_t::handle etc.). Everything here is valid between hsa_init and
// the matching hsa_shut_down.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_RUNTIME_RUNTIME_H
#define LOOM_RUNTIME_RUNTIME_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace loom::emu {
class Device;
}

namespace loom::runtime {

/// True between the first hsa_init and the last hsa_shut_down.
bool isInitialized();

/// True if \p AgentHandle is a live GPU agent (CPU agents: false).
bool isGpuAgent(uint64_t AgentHandle);
/// True if \p AgentHandle is a live agent of any kind.
bool isAgent(uint64_t AgentHandle);
/// The virtual GPU behind a GPU agent; nullptr for any other handle.
emu::Device *deviceOfAgent(uint64_t AgentHandle);
/// The processor of a GPU agent's ISA ("gfx90a"); "" for other handles.
const char *processorOfAgent(uint64_t AgentHandle);
/// Handles of every GPU agent, in hsa_iterate_agents order.
std::vector<uint64_t> gpuAgents();
/// Every virtual GPU (in agent order).
std::vector<emu::Device *> devices();

/// Memory for loaded code and globals: \p Bytes at \p Align (a power of
/// two), zero-filled, registered with every virtual GPU's memory map and
/// known to hsa_amd_pointer_info as owned by \p AgentHandle (0: the CPU
/// agent). nullptr if out of memory or not initialized.
void *allocateDeviceMemory(size_t Bytes, size_t Align = 4096,
                           uint64_t AgentHandle = 0);
/// Frees memory from allocateDeviceMemory (or any runtime allocation).
/// False if \p Ptr is not the base of a live allocation.
bool freeDeviceMemory(void *Ptr);

/// Registers / unregisters a host range with every virtual GPU (for memory
/// the runtime did not allocate, e.g. code images placed by emu::Module).
void registerWithDevices(const void *Base, size_t Bytes);
void unregisterFromDevices(const void *Base);

} // namespace loom::runtime

#endif // LOOM_RUNTIME_RUNTIME_H
