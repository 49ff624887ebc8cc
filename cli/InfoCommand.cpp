//===- cli/InfoCommand.cpp - loom info: the virtual GPUs and their pools --===//
//
// Loads Loom's libhsa-runtime64.so.1 and prints its agents, ISAs and memory
// pools through the HSA API, in the spirit of rocminfo.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <dlfcn.h>
#include <string>
#include <vector>

using namespace llvm;

namespace loom::cli {


cl::SubCommand InfoCommand("info",
                           "Print the agents and memory pools of Loom's HSA "
                           "runtime");

namespace {
/// The HSA entry points loom info uses, from the loaded runtime.
#define LOOM_HSA_FUNCTIONS(X)                                                  \
  X(hsa_init)                                                                  \
  X(hsa_shut_down)                                                             \
  X(hsa_status_string)                                                         \
  X(hsa_system_get_info)                                                       \
  X(hsa_iterate_agents)                                                        \
  X(hsa_agent_get_info)                                                        \
  X(hsa_agent_iterate_isas)                                                    \
  X(hsa_isa_get_info_alt)                                                      \
  X(hsa_amd_agent_iterate_memory_pools)                                        \
  X(hsa_amd_memory_pool_get_info)

struct Hsa {
#define LOOM_FN(Name) decltype(&::Name) Name = nullptr;
  LOOM_HSA_FUNCTIONS(LOOM_FN)
#undef LOOM_FN

  Error load(const std::string &Path) {
    void *H = dlopen(Path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!H)
      return createStringError(inconvertibleErrorCode(), "cannot load %s: %s",
                               Path.c_str(), dlerror());
#define LOOM_FN(Name)                                                          \
  if (!(Name = reinterpret_cast<decltype(Name)>(dlsym(H, #Name))))             \
    return createStringError(inconvertibleErrorCode(), "%s has no %s",         \
                             Path.c_str(), #Name);
    LOOM_HSA_FUNCTIONS(LOOM_FN)
#undef LOOM_FN
    return Error::success();
  }

  Error check(hsa_status_t S, const char *Call) {
    if (S == HSA_STATUS_SUCCESS)
      return Error::success();
    const char *Msg = "unknown status";
    hsa_status_string(S, &Msg);
    return createStringError(inconvertibleErrorCode(), "%s failed: %s", Call,
                             Msg);
  }
};

/// Collects every handle a C iteration callback reports.
template <typename Handle, typename... Args>
std::vector<Handle> collect(hsa_status_t (*Iterate)(Args..., hsa_status_t (*)(
                                                                   Handle, void *),
                                                    void *),
                            Args... A) {
  std::vector<Handle> Out;
  Iterate(
      A...,
      [](Handle H, void *Data) {
        static_cast<std::vector<Handle> *>(Data)->push_back(H);
        return HSA_STATUS_SUCCESS;
      },
      &Out);
  return Out;
}

std::string sizeText(uint64_t Bytes) {
  if (Bytes >= (1ull << 30) && Bytes % (1ull << 30) == 0)
    return std::to_string(Bytes >> 30) + " GiB";
  if (Bytes >= (1ull << 20))
    return std::to_string(Bytes >> 20) + " MiB";
  return std::to_string(Bytes >> 10) + " KiB";
}

Error printInfo(Hsa &H, raw_ostream &OS) {
  uint16_t Major = 0, Minor = 0;
  uint64_t Freq = 0;
  if (Error E = H.check(H.hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR,
                                              &Major),
                        "hsa_system_get_info"))
    return E;
  H.hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MINOR, &Minor);
  H.hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &Freq);
  OS << "HSA runtime " << Major << "." << Minor << ", timestamps at "
     << Freq / 1000000 << " MHz\n";

  auto Agents = collect<hsa_agent_t>(H.hsa_iterate_agents);
  unsigned Index = 0;
  for (hsa_agent_t A : Agents) {
    char Name[64] = {}, Product[64] = {};
    hsa_device_type_t Type;
    if (Error E = H.check(H.hsa_agent_get_info(A, HSA_AGENT_INFO_NAME, Name),
                          "hsa_agent_get_info"))
      return E;
    H.hsa_agent_get_info(A, HSA_AGENT_INFO_DEVICE, &Type);
    H.hsa_agent_get_info(
        A, hsa_agent_info_t(HSA_AMD_AGENT_INFO_PRODUCT_NAME), Product);
    bool Gpu = Type == HSA_DEVICE_TYPE_GPU;
    OS << "\nAgent " << Index++ << ": " << (Gpu ? "GPU " : "CPU ") << Name
       << " (" << Product << ")\n";
    if (Gpu) {
      uint32_t Cus = 0, Simds = 0, Wave = 0, WgMax = 0, Chip = 0, Waves = 0,
               Bdf = 0, QMin = 0, QMax = 0;
      char Uuid[32] = {};
      H.hsa_agent_get_info(A, hsa_agent_info_t(HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT), &Cus);
      H.hsa_agent_get_info(A, hsa_agent_info_t(HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU), &Simds);
      H.hsa_agent_get_info(A, hsa_agent_info_t(HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU), &Waves);
      H.hsa_agent_get_info(A, hsa_agent_info_t(HSA_AMD_AGENT_INFO_CHIP_ID), &Chip);
      H.hsa_agent_get_info(A, hsa_agent_info_t(HSA_AMD_AGENT_INFO_BDFID), &Bdf);
      H.hsa_agent_get_info(A, hsa_agent_info_t(HSA_AMD_AGENT_INFO_UUID), Uuid);
      H.hsa_agent_get_info(A, HSA_AGENT_INFO_WAVEFRONT_SIZE, &Wave);
      H.hsa_agent_get_info(A, HSA_AGENT_INFO_WORKGROUP_MAX_SIZE, &WgMax);
      H.hsa_agent_get_info(A, HSA_AGENT_INFO_QUEUE_MIN_SIZE, &QMin);
      H.hsa_agent_get_info(A, HSA_AGENT_INFO_QUEUE_MAX_SIZE, &QMax);
      OS << "  compute units " << Cus << ", " << Simds << " SIMDs/CU, "
         << Waves << " waves/CU, wavefront " << Wave << ", work-group max "
         << WgMax << "\n";
      OS << "  chip id " << format_hex(Chip, 6) << ", BDF "
         << format("%02x:%02x.%x", (Bdf >> 8) & 0xff, (Bdf >> 3) & 0x1f,
                   Bdf & 7)
         << ", uuid " << Uuid << ", queues of " << QMin << " to " << QMax
         << " packets\n";
      for (hsa_isa_t I : collect<hsa_isa_t>(H.hsa_agent_iterate_isas, A)) {
        char IsaName[128] = {};
        H.hsa_isa_get_info_alt(I, HSA_ISA_INFO_NAME, IsaName);
        OS << "  ISA " << IsaName << "\n";
      }
    }
    unsigned PoolIndex = 0;
    for (hsa_amd_memory_pool_t P : collect<hsa_amd_memory_pool_t>(
             H.hsa_amd_agent_iterate_memory_pools, A)) {
      hsa_amd_segment_t Segment;
      uint32_t Flags = 0;
      size_t Size = 0;
      bool Alloc = false;
      H.hsa_amd_memory_pool_get_info(P, HSA_AMD_MEMORY_POOL_INFO_SEGMENT,
                                     &Segment);
      H.hsa_amd_memory_pool_get_info(P, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS,
                                     &Flags);
      H.hsa_amd_memory_pool_get_info(P, HSA_AMD_MEMORY_POOL_INFO_SIZE, &Size);
      H.hsa_amd_memory_pool_get_info(
          P, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &Alloc);
      OS << "  pool " << PoolIndex++ << ": "
         << (Segment == HSA_AMD_SEGMENT_GROUP ? "GROUP" : "GLOBAL");
      if (Flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED)
        OS << ", fine-grained";
      if (Flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED)
        OS << ", coarse-grained";
      if (Flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT)
        OS << ", kernarg";
      OS << ", " << sizeText(Size) << (Alloc ? "" : ", not allocatable")
         << "\n";
    }
  }
  return Error::success();
}
} // namespace

int runInfo() {
  std::string Dir = loomLibraryDir();
  if (Dir.empty())
    return reportError("info", createStringError(
                                   inconvertibleErrorCode(),
                                   "cannot find libhsa-runtime64.so.1 (set "
                                   "LOOM_LIB_DIR)"));
  Hsa H;
  if (Error E = H.load(Dir + "/libhsa-runtime64.so.1"))
    return reportError("info", std::move(E));
  if (Error E = H.check(H.hsa_init(), "hsa_init"))
    return reportError("info", std::move(E));
  Error E = printInfo(H, outs());
  H.hsa_shut_down();
  if (E)
    return reportError("info", std::move(E));
  return 0;
}

} // namespace loom::cli
