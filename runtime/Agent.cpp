//===- runtime/Agent.cpp - CPU and virtual-GPU agents ---------------------===//

#include "loom/runtime/Agent.h"
#include "loom/runtime/Memory.h"
#include "loom/runtime/RuntimeState.h"

#include "loom/emu/Device.h"

#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <unistd.h>

namespace loom::runtime {

namespace {
std::mutex IsaLock;
std::deque<Isa> &isas() {
  static auto *L = new std::deque<Isa>;
  return *L;
}

// Writes a NUL-padded string into a fixed-size char field.
void putString(void *Value, const std::string &S, size_t FieldSize) {
  char *Out = static_cast<char *>(Value);
  std::memset(Out, 0, FieldSize);
  std::memcpy(Out, S.data(), std::min(S.size(), FieldSize - 1));
}

template <typename T> hsa_status_t put(void *Value, T V) {
  std::memcpy(Value, &V, sizeof(T));
  return HSA_STATUS_SUCCESS;
}

std::string cpuModelName() {
  FILE *F = fopen("/proc/cpuinfo", "r");
  std::string Name = "Virtual CPU";
  if (!F)
    return Name;
  char Line[512];
  while (fgets(Line, sizeof(Line), F)) {
    if (!strncmp(Line, "model name", 10)) {
      const char *Colon = strchr(Line, ':');
      if (Colon) {
        Name = Colon + 2;
        while (!Name.empty() && (Name.back() == '\n' || Name.back() == ' '))
          Name.pop_back();
      }
      break;
    }
  }
  fclose(F);
  return Name;
}
} // namespace

namespace {
const Board Mi210 = {"AMD Instinct MI210", 0x740f, 104, 8, 64ull << 30, 1700};
const Board Mi300x = {"AMD Instinct MI300X", 0x74a1, 304, 32, 192ull << 30,
                      2100};
} // namespace

const Isa *Isa::fromName(const std::string &Name) {
  std::string Proc = Name;
  static const char Prefix[] = "amdgcn-amd-amdhsa--";
  if (Proc.rfind(Prefix, 0) == 0)
    Proc = Proc.substr(sizeof(Prefix) - 1);
  std::string Features;
  if (size_t Colon = Proc.find(':'); Colon != std::string::npos) {
    Features = Proc.substr(Colon);
    Proc = Proc.substr(0, Colon);
  }
  if (Proc != "gfx90a" && Proc != "gfx942")
    return nullptr;
  if (Features.empty())
    Features = ":sramecc+:xnack-";
  std::string Full = Prefix + Proc + Features;
  std::lock_guard<std::mutex> L(IsaLock);
  for (const Isa &I : isas())
    if (I.Name == Full)
      return &I;
  isas().push_back(Isa{Full, Proc, Proc == "gfx942" ? &Mi300x : &Mi210});
  return &isas().back();
}

const Isa *Isa::fromHandle(uint64_t Handle) {
  std::lock_guard<std::mutex> L(IsaLock);
  for (const Isa &I : isas())
    if (I.handle() == Handle)
      return &I;
  return nullptr;
}

hsa_status_t Isa::getInfo(hsa_isa_info_t Attribute, void *Value) const {
  switch (Attribute) {
  case HSA_ISA_INFO_NAME_LENGTH:
    return put<uint32_t>(Value, uint32_t(Name.size() + 1));
  case HSA_ISA_INFO_NAME:
    std::memcpy(Value, Name.c_str(), Name.size() + 1);
    return HSA_STATUS_SUCCESS;
  case HSA_ISA_INFO_CALL_CONVENTION_COUNT:
    return put<uint32_t>(Value, 1);
  case HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONT_SIZE:
    return put<uint32_t>(Value, gpu::Wavefront);
  case HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONTS_PER_COMPUTE_UNIT:
    return put<uint32_t>(Value, gpu::MaxWavesPerCu);
  case HSA_ISA_INFO_MACHINE_MODELS: {
    bool M[2] = {false, true};
    std::memcpy(Value, M, sizeof(M));
    return HSA_STATUS_SUCCESS;
  }
  case HSA_ISA_INFO_PROFILES: {
    bool P[2] = {true, false};
    std::memcpy(Value, P, sizeof(P));
    return HSA_STATUS_SUCCESS;
  }
  case HSA_ISA_INFO_DEFAULT_FLOAT_ROUNDING_MODES:
  case HSA_ISA_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES: {
    bool R[3] = {false, false, true}; // near
    std::memcpy(Value, R, sizeof(R));
    return HSA_STATUS_SUCCESS;
  }
  case HSA_ISA_INFO_FAST_F16_OPERATION:
    return put<bool>(Value, true);
  case HSA_ISA_INFO_WORKGROUP_MAX_DIM: {
    uint16_t D[3] = {1024, 1024, 1024};
    std::memcpy(Value, D, sizeof(D));
    return HSA_STATUS_SUCCESS;
  }
  case HSA_ISA_INFO_WORKGROUP_MAX_SIZE:
    return put<uint32_t>(Value, gpu::WorkgroupMax);
  case HSA_ISA_INFO_GRID_MAX_DIM:
    return put<hsa_dim3_t>(Value, {UINT32_MAX, UINT32_MAX, UINT32_MAX});
  case HSA_ISA_INFO_GRID_MAX_SIZE:
    return put<uint64_t>(Value, UINT64_MAX);
  case HSA_ISA_INFO_FBARRIER_MAX_SIZE:
    return put<uint32_t>(Value, 32);
  }
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

Agent::Agent(Kind K, unsigned Node, unsigned GpuIndex, const Isa *I)
    : TheKind(K), Node(Node), GpuIndex(GpuIndex), TheIsa(I) {}
Agent::~Agent() = default;

hsa_status_t Agent::getInfo(hsa_agent_info_t Attribute, void *Value) const {
  const bool Gpu = isGpu();
  const uint32_t Attr = uint32_t(Attribute);
  switch (Attr) {
  case HSA_AGENT_INFO_NAME:
    putString(Value, Gpu ? TheIsa->Processor : cpuModelName(), 64);
    return HSA_STATUS_SUCCESS;
  case HSA_AGENT_INFO_VENDOR_NAME:
    putString(Value, Gpu ? "AMD" : "CPU", 64);
    return HSA_STATUS_SUCCESS;
  case HSA_AGENT_INFO_FEATURE:
    return put<hsa_agent_feature_t>(
        Value, Gpu ? HSA_AGENT_FEATURE_KERNEL_DISPATCH
                   : hsa_agent_feature_t(0));
  case HSA_AGENT_INFO_MACHINE_MODEL:
    return put(Value, HSA_MACHINE_MODEL_LARGE);
  case HSA_AGENT_INFO_PROFILE:
    return put(Value, HSA_PROFILE_BASE);
  case HSA_AGENT_INFO_DEFAULT_FLOAT_ROUNDING_MODE:
    return put(Value, HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR);
  case HSA_AGENT_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES:
    return put<uint32_t>(Value, HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR);
  case HSA_AGENT_INFO_FAST_F16_OPERATION:
    return put<bool>(Value, Gpu);
  case HSA_AGENT_INFO_WAVEFRONT_SIZE:
    return put<uint32_t>(Value, Gpu ? gpu::Wavefront : 0);
  case HSA_AGENT_INFO_WORKGROUP_MAX_DIM: {
    uint16_t D[3] = {0, 0, 0};
    if (Gpu)
      D[0] = D[1] = D[2] = 1024;
    std::memcpy(Value, D, sizeof(D));
    return HSA_STATUS_SUCCESS;
  }
  case HSA_AGENT_INFO_WORKGROUP_MAX_SIZE:
    return put<uint32_t>(Value, Gpu ? gpu::WorkgroupMax : 0);
  case HSA_AGENT_INFO_GRID_MAX_DIM:
    return put<hsa_dim3_t>(Value, Gpu ? hsa_dim3_t{UINT32_MAX, UINT32_MAX,
                                                   UINT32_MAX}
                                      : hsa_dim3_t{0, 0, 0});
  case HSA_AGENT_INFO_GRID_MAX_SIZE:
    return put<uint32_t>(Value, Gpu ? UINT32_MAX : 0);
  case HSA_AGENT_INFO_FBARRIER_MAX_SIZE:
    return put<uint32_t>(Value, Gpu ? 32 : 0);
  case HSA_AGENT_INFO_QUEUES_MAX:
    return put<uint32_t>(Value, Gpu ? gpu::QueuesMax : 0);
  case HSA_AGENT_INFO_QUEUE_MIN_SIZE:
    return put<uint32_t>(Value, Gpu ? gpu::QueueMinSize : 0);
  case HSA_AGENT_INFO_QUEUE_MAX_SIZE:
    return put<uint32_t>(Value, Gpu ? gpu::QueueMaxSize : 0);
  case HSA_AGENT_INFO_QUEUE_TYPE:
    return put(Value, HSA_QUEUE_TYPE_MULTI);
  case HSA_AGENT_INFO_NODE:
  case HSA_AMD_AGENT_INFO_DRIVER_NODE_ID:
    return put<uint32_t>(Value, Node);
  case HSA_AGENT_INFO_DEVICE:
    return put(Value, Gpu ? HSA_DEVICE_TYPE_GPU : HSA_DEVICE_TYPE_CPU);
  case HSA_AGENT_INFO_CACHE_SIZE: {
    uint32_t C[4] = {0, 0, 0, 0};
    if (Gpu) {
      C[0] = gpu::L1Bytes;
      C[1] = gpu::L2Bytes;
    } else {
      C[0] = 32 * 1024;
      C[1] = 512 * 1024;
      C[2] = 16 * 1024 * 1024;
    }
    std::memcpy(Value, C, sizeof(C));
    return HSA_STATUS_SUCCESS;
  }
  case HSA_AGENT_INFO_ISA:
    return put<hsa_isa_t>(Value, {Gpu ? TheIsa->handle() : 0});
  case HSA_AGENT_INFO_EXTENSIONS: {
    uint8_t E[128] = {};
    E[HSA_EXTENSION_AMD_LOADER / 8] |= 1 << (HSA_EXTENSION_AMD_LOADER % 8);
    std::memcpy(Value, E, sizeof(E));
    return HSA_STATUS_SUCCESS;
  }
  case HSA_AGENT_INFO_VERSION_MAJOR:
    return put<uint16_t>(Value, 1);
  case HSA_AGENT_INFO_VERSION_MINOR:
    return put<uint16_t>(Value, 1);
  case HSA_AMD_AGENT_INFO_CHIP_ID:
    return put<uint32_t>(Value, Gpu ? board()->ChipId : 0);
  case HSA_AMD_AGENT_INFO_CACHELINE_SIZE:
    return put<uint32_t>(Value, Gpu ? gpu::CachelineBytes : 64);
  case HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT:
    return put<uint32_t>(Value, Gpu ? computeUnits()
                                    : uint32_t(sysconf(_SC_NPROCESSORS_ONLN)));
  case HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY:
    return put<uint32_t>(Value, Gpu ? board()->MaxClockMhz : 2000);
  case HSA_AMD_AGENT_INFO_MAX_ADDRESS_WATCH_POINTS:
    return put<uint32_t>(Value, Gpu ? 4 : 0);
  case HSA_AMD_AGENT_INFO_BDFID:
    // Bus numbers of consecutive virtual boards: 0x63:00.0, 0x64:00.0 ...
    return put<uint32_t>(Value, Gpu ? (0x63 + GpuIndex) << 8 : 0);
  case HSA_AMD_AGENT_INFO_MEMORY_WIDTH:
    return put<uint32_t>(Value, Gpu ? 4096 : 0);
  case HSA_AMD_AGENT_INFO_MEMORY_MAX_FREQUENCY:
    return put<uint32_t>(Value, Gpu ? 1600 : 0);
  case HSA_AMD_AGENT_INFO_PRODUCT_NAME:
    putString(Value,
              Gpu ? std::string("Loom virtual ") + board()->Product + " (" +
                        TheIsa->Processor + ")"
                  : cpuModelName(),
              64);
    return HSA_STATUS_SUCCESS;
  case HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU:
    return put<uint32_t>(Value, Gpu ? gpu::MaxWavesPerCu : 0);
  case HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU:
    return put<uint32_t>(Value, Gpu ? gpu::SimdsPerCu : 0);
  case HSA_AMD_AGENT_INFO_NUM_SHADER_ENGINES:
    return put<uint32_t>(Value, Gpu ? board()->ShaderEngines : 0);
  case HSA_AMD_AGENT_INFO_NUM_SHADER_ARRAYS_PER_SE:
    return put<uint32_t>(Value, Gpu ? gpu::ShaderArraysPerSe : 0);
  case HSA_AMD_AGENT_INFO_HDP_FLUSH: {
    // No HDP: device memory is host memory, nothing to flush.
    hsa_amd_hdp_flush_t H = {nullptr, nullptr};
    return put(Value, H);
  }
  case HSA_AMD_AGENT_INFO_DOMAIN:
    return put<uint32_t>(Value, 0);
  case HSA_AMD_AGENT_INFO_COOPERATIVE_QUEUES:
    return put<bool>(Value, false);
  case HSA_AMD_AGENT_INFO_UUID: {
    char Uuid[32];
    if (Gpu)
      snprintf(Uuid, sizeof(Uuid), "GPU-4c4f4f4d%08x", GpuIndex);
    else
      snprintf(Uuid, sizeof(Uuid), "CPU-XX");
    putString(Value, Uuid, 32);
    return HSA_STATUS_SUCCESS;
  }
  case HSA_AMD_AGENT_INFO_ASIC_REVISION:
    return put<uint32_t>(Value, Gpu ? 1 : 0);
  case HSA_AMD_AGENT_INFO_SVM_DIRECT_HOST_ACCESS:
    return put<bool>(Value, true);
  case HSA_AMD_AGENT_INFO_COOPERATIVE_COMPUTE_UNIT_COUNT:
    return put<uint32_t>(Value, computeUnits());
  }
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

} // namespace loom::runtime
