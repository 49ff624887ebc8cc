//===- HsaDispatch.cpp - The corpus dispatched through Loom's HSA runtime -===//
//
// Linked into emu_diff_hsa (not emu_diff_tests): every test of the corpus
// runs as it does in emu_diff_tests, but each launch goes through Loom's
// libhsa-runtime64 as a client's would: the code object is loaded into an
// HSA executable (code object reader, load, freeze), and the kernel runs
// from an AQL dispatch packet on an HSA queue. So an HSA tool library
// (HSA_TOOLS_LIB, `loom instrument --tool T`) sees every dispatch, and
// `loom exec --counters` counts them (docs/tools.md, "The differential
// corpus under the tools").
//
// Buffers stay the corpus's DeviceBuffers: the binary's device is the one
// behind the runtime's GPU agent (loom_hsa_device_of_agent), so memory it
// registers is memory that agent's kernels reach. The kernarg segment is
// built by emu::Module::prepare, as emu_diff_tests builds it, and copied
// to the runtime's kernarg pool.
//
// With LOOM_DIFF_LAUNCH_LOG=FILE, each dispatch's kernel, grid, work-group
// and explicit argument bytes are written to FILE as a JSON line: what the
// test set, for checking what kernel_args reports.
//
//===----------------------------------------------------------------------===//

#include "DiffHarness.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

// Loom's own entry point (hsa/LoomPrivate.cpp, version LOOM_PRIVATE_1).
extern "C" void *loom_hsa_device_of_agent(uint64_t AgentHandle);

using namespace llvm;

namespace loom::emu::difftest {
namespace {

Error hsaError(hsa_status_t S, const Twine &Call) {
  const char *Text = nullptr;
  hsa_status_string(S, &Text);
  return createStringError(inconvertibleErrorCode(), "%s: %s",
                           Call.str().c_str(), Text ? Text : "unknown status");
}

/// Error::success() if \p S is HSA_STATUS_SUCCESS, else names \p Call.
Error check(hsa_status_t S, const Twine &Call) {
  return S == HSA_STATUS_SUCCESS ? Error::success() : hsaError(S, Call);
}

/// The kernels of one code object file, loaded into an HSA executable.
struct Executable {
  /// The code object's bytes, which the reader reads from while it lives.
  std::unique_ptr<MemoryBuffer> Bytes;
  hsa_code_object_reader_t Reader{};
  hsa_executable_t Exec{};
  std::map<std::string, uint64_t> KernelObjects;
};

class HsaCorpus {
public:
  static HsaCorpus &get() {
    static HsaCorpus C;
    return C;
  }

  Expected<Device *> device() {
    if (Error E = init())
      return std::move(E);
    return static_cast<Device *>(loom_hsa_device_of_agent(Gpu.handle));
  }

  Expected<DispatchResult> launch(Module &M, StringRef Path, StringRef Kernel,
                                  const LaunchConfig &Config,
                                  const KernelArgs &Args);

private:
  Error init();
  Expected<uint64_t> kernelObject(StringRef Path, StringRef Kernel);
  void logLaunch(StringRef Kernel, const LaunchConfig &C,
                 const KernelArgs &Args);

  static void queueError(hsa_status_t S, hsa_queue_t *, void *Data) {
    static_cast<HsaCorpus *>(Data)->QueueStatus.store(S);
  }

  bool Initialized = false;
  hsa_agent_t Gpu{};
  hsa_amd_memory_pool_t Kernarg{};
  hsa_queue_t *Queue = nullptr;
  std::atomic<hsa_status_t> QueueStatus{HSA_STATUS_SUCCESS};
  std::map<std::string, Executable> Executables;
  std::FILE *LaunchLog = nullptr;
};

Error HsaCorpus::init() {
  if (Initialized)
    return Error::success();
  // The runtime's agent is the corpus's target.
  if (target() != "gfx90a")
    setenv("LOOM_ISA", target().c_str(), /*overwrite=*/0);
  if (Error E = check(hsa_init(), "hsa_init"))
    return E;
  // The GPU agent, and the kernarg pool (a system pool, as in ROCr).
  auto Agents = [](hsa_agent_t A, void *Data) {
    hsa_device_type_t T;
    hsa_agent_get_info(A, HSA_AGENT_INFO_DEVICE, &T);
    auto &Self = *static_cast<HsaCorpus *>(Data);
    if (T == HSA_DEVICE_TYPE_GPU && !Self.Gpu.handle)
      Self.Gpu = A;
    if (T == HSA_DEVICE_TYPE_CPU)
      hsa_amd_agent_iterate_memory_pools(
          A,
          [](hsa_amd_memory_pool_t P, void *Data) {
            uint32_t Flags = 0;
            hsa_amd_memory_pool_get_info(
                P, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &Flags);
            if (Flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT)
              *static_cast<hsa_amd_memory_pool_t *>(Data) = P;
            return HSA_STATUS_SUCCESS;
          },
          &Self.Kernarg);
    return HSA_STATUS_SUCCESS;
  };
  if (Error E = check(hsa_iterate_agents(Agents, this), "hsa_iterate_agents"))
    return E;
  if (!Gpu.handle || !Kernarg.handle)
    return createStringError(inconvertibleErrorCode(),
                             "the HSA runtime has no GPU agent or no kernarg "
                             "pool");
  if (Error E = check(hsa_queue_create(Gpu, 64, HSA_QUEUE_TYPE_SINGLE,
                                       queueError, this, UINT32_MAX,
                                       UINT32_MAX, &Queue),
                      "hsa_queue_create"))
    return E;
  if (const char *Log = std::getenv("LOOM_DIFF_LAUNCH_LOG"); Log && *Log) {
    LaunchLog = std::fopen(Log, "w");
    if (!LaunchLog)
      return createStringError(inconvertibleErrorCode(),
                               "cannot write LOOM_DIFF_LAUNCH_LOG=%s", Log);
  }
  Initialized = true;
  return Error::success();
}

/// Loads the code object file \p Path into \p X for \p Gpu, frozen.
Error loadExecutable(Executable &X, hsa_agent_t Gpu, StringRef Path) {
  auto Bytes = MemoryBuffer::getFile(Path);
  if (!Bytes)
    return createStringError(Bytes.getError(), "%s: %s", Path.str().c_str(),
                             Bytes.getError().message().c_str());
  X.Bytes = std::move(*Bytes);
  StringRef Data = X.Bytes->getBuffer();
  if (Error E = check(hsa_code_object_reader_create_from_memory(
                          Data.data(), Data.size(), &X.Reader),
                      "hsa_code_object_reader_create_from_memory(" + Path +
                          ")"))
    return E;
  if (Error E = check(hsa_executable_create_alt(
                          HSA_PROFILE_FULL,
                          HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr,
                          &X.Exec),
                      "hsa_executable_create_alt"))
    return E;
  if (Error E = check(hsa_executable_load_agent_code_object(
                          X.Exec, Gpu, X.Reader, nullptr, nullptr),
                      "hsa_executable_load_agent_code_object(" + Path + ")"))
    return E;
  return check(hsa_executable_freeze(X.Exec, nullptr),
               "hsa_executable_freeze(" + Path + ")");
}

Expected<uint64_t> HsaCorpus::kernelObject(StringRef Path, StringRef Kernel) {
  auto It = Executables.find(Path.str());
  if (It == Executables.end()) {
    // Entries live until the process ends, and the bytes with them; one
    // that failed to load is not kept.
    It = Executables.try_emplace(Path.str()).first;
    if (Error E = loadExecutable(It->second, Gpu, Path)) {
      if (It->second.Exec.handle)
        hsa_executable_destroy(It->second.Exec);
      if (It->second.Reader.handle)
        hsa_code_object_reader_destroy(It->second.Reader);
      Executables.erase(It);
      return std::move(E);
    }
  }
  Executable &X = It->second;
  auto K = X.KernelObjects.find(Kernel.str());
  if (K != X.KernelObjects.end())
    return K->second;
  hsa_executable_symbol_t Sym;
  std::string Name = (Kernel + ".kd").str();
  if (Error E = check(
          hsa_executable_get_symbol_by_name(X.Exec, Name.c_str(), &Gpu, &Sym),
          "hsa_executable_get_symbol_by_name(" + Name + ")"))
    return std::move(E);
  uint64_t Object = 0;
  if (Error E = check(hsa_executable_symbol_get_info(
                          Sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT,
                          &Object),
                      "hsa_executable_symbol_get_info(KERNEL_OBJECT)"))
    return std::move(E);
  X.KernelObjects[Kernel.str()] = Object;
  return Object;
}

void HsaCorpus::logLaunch(StringRef Kernel, const LaunchConfig &C,
                          const KernelArgs &Args) {
  if (!LaunchLog)
    return;
  json::Array Bytes;
  for (const std::vector<uint8_t> &A : Args.args())
    Bytes.push_back(toHex(A, /*LowerCase=*/true));
  json::Object Line{
      {"kernel", Kernel},
      {"grid", json::Array{C.Grid[0], C.Grid[1], C.Grid[2]}},
      {"workgroup",
       json::Array{C.Workgroup[0], C.Workgroup[1], C.Workgroup[2]}},
      {"args", std::move(Bytes)}};
  std::string Text;
  raw_string_ostream(Text) << json::Value(std::move(Line)) << "\n";
  std::fputs(Text.c_str(), LaunchLog);
  std::fflush(LaunchLog);
}

Expected<DispatchResult> HsaCorpus::launch(Module &M, StringRef Path,
                                           StringRef Kernel,
                                           const LaunchConfig &Config,
                                           const KernelArgs &Args) {
  if (Error E = init())
    return std::move(E);
  Expected<PreparedLaunch> L = M.prepare(Kernel, Config, Args);
  if (!L)
    return L.takeError();
  Expected<uint64_t> Object = kernelObject(Path, Kernel);
  if (!Object)
    return Object.takeError();

  void *KA = nullptr;
  if (Error E = check(hsa_amd_memory_pool_allocate(Kernarg, L->Kernarg.size(),
                                                   0, &KA),
                      "hsa_amd_memory_pool_allocate(kernarg)"))
    return std::move(E);
  std::memcpy(KA, L->Kernarg.data(), L->Kernarg.size());
  hsa_signal_t Done;
  if (Error E = check(hsa_signal_create(1, 0, nullptr, &Done),
                      "hsa_signal_create")) {
    hsa_amd_memory_pool_free(KA);
    return std::move(E);
  }
  logLaunch(Kernel, Config, Args);

  const DispatchParams &P = L->Params;
  hsa_kernel_dispatch_packet_t Packet{};
  Packet.setup = P.Dimensions << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS;
  Packet.workgroup_size_x = P.WorkgroupSize[0];
  Packet.workgroup_size_y = P.WorkgroupSize[1];
  Packet.workgroup_size_z = P.WorkgroupSize[2];
  Packet.grid_size_x = P.GridSize[0];
  Packet.grid_size_y = P.GridSize[1];
  Packet.grid_size_z = P.GridSize[2];
  Packet.private_segment_size = P.PrivateSegmentSize;
  Packet.group_segment_size = P.GroupSegmentSize;
  Packet.kernel_object = *Object;
  Packet.kernarg_address = KA;
  Packet.completion_signal = Done;
  uint16_t Header =
      HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE |
      HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE |
      HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE;

  // Reserve a slot, write the body, publish the header, ring the doorbell.
  uint64_t Index = hsa_queue_add_write_index_scacq_screl(Queue, 1);
  while (Index - hsa_queue_load_read_index_scacquire(Queue) >= Queue->size)
    ;
  auto *Slot = static_cast<uint8_t *>(Queue->base_address) +
               (Index & (Queue->size - 1)) * 64;
  std::memcpy(Slot + 4, reinterpret_cast<uint8_t *>(&Packet) + 4, 60);
  __atomic_store_n(reinterpret_cast<uint32_t *>(Slot),
                   uint32_t(Header) | uint32_t(Packet.setup) << 16,
                   __ATOMIC_RELEASE);
  hsa_signal_store_screlease(Queue->doorbell_signal, int64_t(Index));

  // A dispatch that faults never completes its signal: the queue's error
  // callback ends the wait instead.
  while (hsa_signal_wait_scacquire(Done, HSA_SIGNAL_CONDITION_LT, 1,
                                   100'000'000, HSA_WAIT_STATE_BLOCKED) >= 1)
    if (QueueStatus.load() != HSA_STATUS_SUCCESS)
      break;
  hsa_status_t Status = QueueStatus.load();
  if (Status == HSA_STATUS_SUCCESS) {
    hsa_signal_destroy(Done);
    hsa_amd_memory_pool_free(KA);
  }
  DispatchResult R;
  R.KernelName = P.KernelName;
  if (Status != HSA_STATUS_SUCCESS) {
    // The queue is gone with its packet; the kernarg segment and signal
    // are left to the process's end. The rest of the corpus gets a new
    // queue.
    R.Status = R.FirstFault.Status = DispatchStatus::InvalidDispatch;
    R.FirstFault.Message = toString(hsaError(Status, "the HSA queue failed"));
    hsa_queue_destroy(Queue);
    QueueStatus.store(HSA_STATUS_SUCCESS);
    if (Error E = check(hsa_queue_create(Gpu, 64, HSA_QUEUE_TYPE_SINGLE,
                                         queueError, this, UINT32_MAX,
                                         UINT32_MAX, &Queue),
                        "hsa_queue_create"))
      return std::move(E);
  }
  return R;
}

// Installed before any test runs: the harness asks for its device and
// hands every launch here.
[[maybe_unused]] const bool Installed = [] {
  setDeviceProvider([] { return HsaCorpus::get().device(); });
  setLaunchInterceptor([](Module &M, StringRef Path, StringRef Kernel,
                          const LaunchConfig &Config, const KernelArgs &Args) {
    return HsaCorpus::get().launch(M, Path, Kernel, Config, Args);
  });
  return true;
}();

} // namespace
} // namespace loom::emu::difftest
