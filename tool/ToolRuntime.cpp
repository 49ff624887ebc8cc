//===- tool/ToolRuntime.cpp - OnLoad, OnUnload and the API wrappers -------===//

#include "ToolRuntime.h"
#include "Hsa.h"
#include "Registry.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;
using namespace loom::instrument;

namespace loom::tool {

Registry &registry() {
  static auto *R = new Registry; // never destroyed: tools may outlive exit
  return *R;
}

ToolRuntime &ToolRuntime::get() {
  static auto *R = new ToolRuntime;
  return *R;
}

namespace {

//===--- The wrappers -----------------------------------------------------===//

hsa_status_t queueCreate(hsa_agent_t Agent, uint32_t Size,
                         hsa_queue_type32_t Type,
                         void (*Callback)(hsa_status_t, hsa_queue_t *, void *),
                         void *Data, uint32_t PrivateSize, uint32_t GroupSize,
                         hsa_queue_t **Queue) {
  return ToolRuntime::get().createQueue(Agent, Size, Type, Callback, Data,
                                        PrivateSize, GroupSize, Queue);
}

hsa_status_t queueDestroy(hsa_queue_t *Queue) {
  hsa_status_t S = hsa().Core.hsa_queue_destroy_fn(Queue);
  if (S == HSA_STATUS_SUCCESS)
    ToolRuntime::get().queueDestroyed(Queue);
  return S;
}

hsa_status_t readerFromMemory(const void *Bytes, size_t Size,
                              hsa_code_object_reader_t *Reader) {
  hsa_status_t S = hsa().Core.hsa_code_object_reader_create_from_memory_fn(
      Bytes, Size, Reader);
  if (S == HSA_STATUS_SUCCESS)
    ToolRuntime::get().Objects.readerCreated(
        *Reader, ArrayRef(static_cast<const uint8_t *>(Bytes), Size),
        formatv("memory@{0}", Bytes).str());
  return S;
}

hsa_status_t readerFromFile(hsa_file_t File, hsa_code_object_reader_t *Reader) {
  hsa_status_t S =
      hsa().Core.hsa_code_object_reader_create_from_file_fn(File, Reader);
  if (S != HSA_STATUS_SUCCESS)
    return S;
  // As the runtime does: the whole file, whatever its offset.
  std::string Name = "fd " + std::to_string(File);
  char Path[4096];
  ssize_t N = readlink(("/proc/self/fd/" + std::to_string(File)).c_str(), Path,
                       sizeof(Path) - 1);
  if (N > 0)
    Name.assign(Path, N);
  struct stat St;
  std::vector<uint8_t> Bytes;
  if (fstat(File, &St) == 0 && St.st_size > 0) {
    Bytes.resize(St.st_size);
    if (pread(File, Bytes.data(), Bytes.size(), 0) != St.st_size)
      Bytes.clear();
  }
  ToolRuntime::get().Objects.readerCreated(*Reader, Bytes, Name);
  return S;
}

hsa_status_t readerDestroy(hsa_code_object_reader_t Reader) {
  hsa_status_t S = hsa().Core.hsa_code_object_reader_destroy_fn(Reader);
  if (S == HSA_STATUS_SUCCESS)
    ToolRuntime::get().Objects.readerDestroyed(Reader);
  return S;
}

hsa_status_t loadAgentCodeObject(hsa_executable_t Exec, hsa_agent_t Agent,
                                 hsa_code_object_reader_t Reader,
                                 const char *Options,
                                 hsa_loaded_code_object_t *Loaded) {
  hsa_loaded_code_object_t Mine{};
  hsa_status_t S = hsa().Core.hsa_executable_load_agent_code_object_fn(
      Exec, Agent, Reader, Options, &Mine);
  if (S != HSA_STATUS_SUCCESS)
    return S;
  if (Loaded)
    *Loaded = Mine;
  ToolRuntime::get().Objects.loaded(Exec, Agent, Reader, Mine);
  return S;
}

hsa_status_t executableFreeze(hsa_executable_t Exec, const char *Options) {
  hsa_status_t S = hsa().Core.hsa_executable_freeze_fn(Exec, Options);
  if (S != HSA_STATUS_SUCCESS)
    return S;
  ToolRuntime &R = ToolRuntime::get();
  auto Codes = R.Objects.frozen(Exec);
  if (R.active())
    for (auto &T : R.Tools)
      T->call([&](Tool &Tl, ToolContext &Ctx) {
        for (auto &C : Codes)
          Tl.codeObjectLoaded(Ctx, Exec, *C->Code);
        Tl.executableFrozen(Ctx, Exec);
      });
  return S;
}

hsa_status_t executableDestroy(hsa_executable_t Exec) {
  ToolRuntime &R = ToolRuntime::get();
  R.Objects.destroyed(Exec);
  if (R.Copies)
    R.Copies->forget(Exec);
  return hsa().Core.hsa_executable_destroy_fn(Exec);
}

void atExit() { ToolRuntime::get().unload(); }

} // namespace

//===--- Life -------------------------------------------------------------===//

void ToolRuntime::installWrappers(HsaApiTable &Table) {
  CoreApiTable &Core = *Table.core_;
  Core.hsa_queue_create_fn = queueCreate;
  Core.hsa_queue_destroy_fn = queueDestroy;
  Core.hsa_code_object_reader_create_from_memory_fn = readerFromMemory;
  Core.hsa_code_object_reader_create_from_file_fn = readerFromFile;
  Core.hsa_code_object_reader_destroy_fn = readerDestroy;
  Core.hsa_executable_load_agent_code_object_fn = loadAgentCodeObject;
  Core.hsa_executable_freeze_fn = executableFreeze;
  Core.hsa_executable_destroy_fn = executableDestroy;
}

void ToolRuntime::startTools() {
  std::vector<Registration> New;
  {
    Registry &Reg = registry();
    std::lock_guard<std::mutex> L(Reg.Lock);
    New.assign(Reg.Tools.begin() + Started, Reg.Tools.end());
    Started = Reg.Tools.size();
  }
  for (Registration &Reg : New) {
    Dl_info Info{};
    std::string Library =
        dladdr(Reg.Anchor, &Info) && Info.dli_fname ? Info.dli_fname : "";
    std::unique_ptr<Tool> Instance = Reg.Factory();
    if (!Instance) {
      errs() << "loom-tool: " << Reg.Name << ": its factory made no tool\n";
      continue;
    }
    auto Host = std::make_unique<ToolHost>(Reg.Name, std::move(Instance),
                                           Library, *Options);
    if (Error E =
            Host->call([](Tool &T, ToolContext &Ctx) { return T.init(Ctx); })) {
      errs() << "loom-tool: " << Reg.Name
             << ": init failed: " << toString(std::move(E))
             << " (the tool is not used)\n";
      continue;
    }
    Host->initialized();
    Tools.push_back(std::move(Host));
  }
}

bool ToolRuntime::load(HsaApiTable *Table) {
  std::lock_guard<std::mutex> L(LoadLock);
  if (!Active.load()) {
    // The entries wrapped and used must exist in the runtime's tables.
    size_t CoreNeeds =
        offsetof(CoreApiTable, hsa_executable_load_agent_code_object_fn) +
        sizeof(void *);
    size_t AmdNeeds =
        offsetof(AmdExtTable, hsa_amd_queue_intercept_register_fn) +
        sizeof(void *);
    if (!Table || !Table->core_ || !Table->amd_ext_ ||
        Table->core_->version.minor_id < CoreNeeds ||
        Table->amd_ext_->version.minor_id < AmdNeeds) {
      errs() << "loom-tool: the HSA runtime's API table is older than this "
                "tool runtime needs; tools are not loaded\n";
      return false;
    }
    saveApi(*Table);
    installWrappers(*Table);
    const char *Args = getenv("LOOM_TOOL_ARGS");
    Options = std::make_unique<ToolOptions>(
        ToolOptions::parse(Args ? Args : "", [](StringRef W) {
          errs() << "loom-tool: " << W << "\n";
        }));
    const char *Dump = getenv("LOOM_TOOL_DUMP");
    const char *Timing = getenv("LOOM_TOOL_TIMING");
    Copies = std::make_unique<KernelCopies>(Dump ? Dump : "",
                                            Timing ? Timing : "");
    static bool AtExitSet = false;
    if (!AtExitSet)
      AtExitSet = atexit(atExit) == 0;
    Active.store(true, std::memory_order_release);
  }
  startTools();
  return true;
}

void ToolRuntime::drain() {
  std::unique_lock<std::mutex> L(InFlightLock);
  // Bounded: a program may exit with a kernel still running.
  if (!Drained.wait_for(L, std::chrono::seconds(10),
                        [&] { return InFlight == 0; }))
    errs() << "loom-tool: " << InFlight
           << " dispatches did not complete; the tools do not see them\n";
}

void ToolRuntime::unload() {
  std::lock_guard<std::mutex> L(LoadLock);
  if (!Active.exchange(false))
    return;
  drain();
  // Before fini: the thread calls into the tools.
  Channels.stop();
  for (auto &T : Tools)
    T->call([](Tool &Tl, ToolContext &Ctx) { Tl.fini(Ctx); });
  Copies->clear();
  for (auto &T : Tools)
    T->unloadHooks();
  Memory.clear();
  // Queues stay: the runtime may still pass their packets (through).
  Tools.clear();
  Started = 0;
}

} // namespace loom::tool

/// Called by the HSA runtime for each library of HSA_TOOLS_LIB linked with
/// this one: the first call installs the wrappers, each starts the tools
/// registered since.
extern "C" __attribute__((visibility("default"))) bool
OnLoad(HsaApiTable *Table, uint64_t RuntimeVersion, uint64_t FailedToolCount,
       const char *const *FailedToolNames) {
  return loom::tool::ToolRuntime::get().load(Table);
}

/// Called at the last hsa_shut_down, once per tool library.
extern "C" __attribute__((visibility("default"))) void OnUnload() {
  loom::tool::ToolRuntime::get().unload();
}
