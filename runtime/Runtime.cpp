//===- runtime/Runtime.cpp - The runtime instance and C++ accessors -------===//

#include "loom/runtime/Runtime.h"
#include "loom/runtime/CountersReport.h"
#include "loom/runtime/Events.h"
#include "loom/runtime/Queue.h"
#include "loom/runtime/RuntimeState.h"
#include "loom/runtime/Signal.h"

#include "loom/emu/Device.h"

#include "llvm/Support/Error.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <unistd.h>

namespace loom::runtime {

std::atomic<RuntimeState *> RuntimeState::Instance{nullptr};

namespace {
std::mutex InitLock;
unsigned InitCount = 0;

/// The unsigned value of \p Name, \p Default when unset; false (and a
/// line on stderr: hsa_init has only its status to say why) when it is not
/// a number from 0 to \p Max.
bool envUnsigned(const char *Name, unsigned Default, unsigned Max,
                 unsigned &Out) {
  const char *V = getenv(Name);
  Out = Default;
  if (!V || !*V)
    return true;
  char *End;
  errno = 0;
  unsigned long N = strtoul(V, &End, 10);
  if (*End || errno || N > Max || !isdigit(static_cast<unsigned char>(*V))) {
    fprintf(stderr, "Loom: %s=%s is not a number from 0 to %u\n", Name, V,
            Max);
    return false;
  }
  Out = unsigned(N);
  return true;
}
} // namespace

hsa_status_t Settings::fromEnvironment(Settings &S) {
  if (!envUnsigned("LOOM_GPUS", 1, 64, S.Gpus) ||
      !envUnsigned("LOOM_GPU_THREADS", 0, 1024, S.Threads) ||
      !envUnsigned("LOOM_KERNEL_TIMEOUT", 0, 1'000'000,
                   S.KernelTimeoutSeconds))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (const char *Isa = getenv("LOOM_ISA"); Isa && *Isa)
    S.Processor = Isa;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t RuntimeState::create() {
  auto State = std::make_unique<RuntimeState>();
  if (hsa_status_t S = Settings::fromEnvironment(State->Config);
      S != HSA_STATUS_SUCCESS)
    return S;
  const Isa *GpuIsa = Isa::fromName(State->Config.Processor);
  if (!GpuIsa)
    return HSA_STATUS_ERROR_INVALID_ISA_NAME;

  long Pages = sysconf(_SC_PHYS_PAGES), PageSize = sysconf(_SC_PAGESIZE);
  State->SystemMemoryBytes =
      Pages > 0 && PageSize > 0 ? uint64_t(Pages) * uint64_t(PageSize)
                                : 16ull << 30;

  auto Cpu = std::make_unique<Agent>(Agent::Kind::Cpu, 0, 0, nullptr);
  auto AddPool = [&](MemoryPool::Kind K, Agent *Owner, uint64_t Size) {
    State->Pools.push_back(std::make_unique<MemoryPool>(K, Owner, Size));
    return State->Pools.back().get();
  };
  State->SystemFine = AddPool(MemoryPool::Kind::SystemFine, Cpu.get(),
                              State->SystemMemoryBytes);
  State->SystemCoarse = AddPool(MemoryPool::Kind::SystemCoarse, Cpu.get(),
                                State->SystemMemoryBytes);
  Cpu->Pools = {State->SystemFine, State->SystemCoarse};
  Cpu->Regions = Cpu->Pools;
  State->Agents.push_back(std::move(Cpu));

  for (unsigned I = 0; I < State->Config.Gpus; ++I) {
    auto Gpu = std::make_unique<Agent>(Agent::Kind::Gpu, I + 1, I, GpuIsa);
    emu::DeviceOptions Opts;
    Opts.Target = GpuIsa->Processor;
    Opts.Threads = State->Config.Threads;
    // Counters cost time on every dispatch; only `loom exec --counters`
    // (LOOM_COUNTERS) and `--memory-trace` read them.
    CountersReport *Report = CountersReport::get();
    Opts.CollectCounters = Report != nullptr;
    Opts.RecordMemoryAccesses = Report && Report->wantsMemoryTrace();
    auto Dev = emu::Device::create(Opts);
    if (!Dev) {
      llvm::consumeError(Dev.takeError());
      return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    }
    Gpu->Dev = std::move(*Dev);
    MemoryPool *Vram =
        AddPool(MemoryPool::Kind::DeviceLocal, Gpu.get(),
                GpuIsa->TheBoard->VramBytes);
    MemoryPool *Lds =
        AddPool(MemoryPool::Kind::Group, Gpu.get(), gpu::LdsBytes);
    Gpu->Pools = {Vram, Lds};
    Gpu->Regions = {Vram, Lds, State->SystemFine, State->SystemCoarse};
    State->Agents.push_back(std::move(Gpu));
  }
  Instance.store(State.release(), std::memory_order_release);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t RuntimeState::acquire() {
  std::lock_guard<std::mutex> L(InitLock);
  if (InitCount == UINT32_MAX)
    return HSA_STATUS_ERROR_REFCOUNT_OVERFLOW;
  if (InitCount == 0)
    if (hsa_status_t S = create(); S != HSA_STATUS_SUCCESS)
      return S;
  ++InitCount;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t RuntimeState::release() {
  std::lock_guard<std::mutex> L(InitLock);
  if (InitCount == 0)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (--InitCount)
    return HSA_STATUS_SUCCESS;
  Queue::destroyAll();
  async::shutdown();
  CopyEngine::shutdown();
  SignalTable::clear();
  AllocationTable::clear();
  events::clear();
  RuntimeState *S = Instance.exchange(nullptr, std::memory_order_acq_rel);
  delete S;
  return HSA_STATUS_SUCCESS;
}

unsigned RuntimeState::references() {
  std::lock_guard<std::mutex> L(InitLock);
  return InitCount;
}

Agent *RuntimeState::agent(uint64_t Handle) const {
  for (const auto &A : Agents)
    if (A->handle() == Handle)
      return A.get();
  return nullptr;
}

MemoryPool *RuntimeState::pool(uint64_t Handle) const {
  for (const auto &P : Pools)
    if (P->handle() == Handle)
      return P.get();
  return nullptr;
}

//===--- The C++ accessors of Runtime.h -----------------------------------===//

bool isInitialized() { return RuntimeState::get() != nullptr; }

static Agent *findAgent(uint64_t Handle) {
  RuntimeState *S = RuntimeState::get();
  return S ? S->agent(Handle) : nullptr;
}

bool isAgent(uint64_t Handle) { return findAgent(Handle) != nullptr; }

bool isGpuAgent(uint64_t Handle) {
  Agent *A = findAgent(Handle);
  return A && A->isGpu();
}

emu::Device *deviceOfAgent(uint64_t Handle) {
  Agent *A = findAgent(Handle);
  return A ? A->device() : nullptr;
}

const char *processorOfAgent(uint64_t Handle) {
  Agent *A = findAgent(Handle);
  return A && A->isGpu() ? A->isa()->Processor.c_str() : "";
}

std::vector<uint64_t> gpuAgents() {
  std::vector<uint64_t> R;
  if (RuntimeState *S = RuntimeState::get())
    for (const auto &A : S->Agents)
      if (A->isGpu())
        R.push_back(A->handle());
  return R;
}

std::vector<emu::Device *> devices() {
  std::vector<emu::Device *> R;
  if (RuntimeState *S = RuntimeState::get())
    for (const auto &A : S->Agents)
      if (A->isGpu())
        R.push_back(A->device());
  return R;
}

void *allocateDeviceMemory(size_t Bytes, size_t Align, uint64_t AgentHandle) {
  RuntimeState *S = RuntimeState::get();
  if (!S || !Bytes || (Align & (Align - 1)))
    return nullptr;
  Agent *Owner = AgentHandle ? S->agent(AgentHandle) : S->cpu();
  if (!Owner)
    return nullptr;
  MemoryPool *Pool = Owner->isGpu() ? Owner->Pools.front() : S->SystemFine;
  return AllocationTable::allocate(Pool, Owner, Bytes, Align);
}

bool freeDeviceMemory(void *Ptr) { return AllocationTable::free(Ptr); }

void registerWithDevices(const void *Base, size_t Bytes) {
  registerRange(Base, Bytes);
}
void unregisterFromDevices(const void *Base) { unregisterRange(Base); }

} // namespace loom::runtime
