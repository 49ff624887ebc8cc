//===- hsa/System.cpp - Init, shut-down, system info, extensions ----------===//

#include "ApiTable.h"

#include "loom/runtime/Signal.h"

#include <cstring>
#include <mutex>

using namespace loom;
using namespace loom::runtime;

namespace loom::hsa::impl {

// hsa_init and hsa_shut_down run one at a time: the first loads the tools,
// the last unloads them and the loader's objects before the devices go.
static std::recursive_mutex InitShutDownLock;

void shutDownLoader(); // hsa/LoaderApi.cpp

hsa_status_t hsa_init() {
  std::lock_guard<std::recursive_mutex> L(InitShutDownLock);
  bool First = RuntimeState::references() == 0;
  hsa_status_t S = RuntimeState::acquire();
  if (S == HSA_STATUS_SUCCESS && First)
    loadTools();
  return S;
}

hsa_status_t hsa_shut_down() {
  std::lock_guard<std::recursive_mutex> L(InitShutDownLock);
  unsigned Refs = RuntimeState::references();
  if (Refs == 0)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (Refs == 1) {
    // As ROCr: tools first (they may still call the API), then what the
    // program loaded and never destroyed, then the runtime itself.
    unloadTools();
    shutDownLoader();
  }
  return RuntimeState::release();
}

hsa_status_t hsa_system_get_info(hsa_system_info_t Attribute, void *Value) {
  LOOM_HSA_STATE(State);
  if (!Value)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  switch (uint32_t(Attribute)) {
  case HSA_SYSTEM_INFO_VERSION_MAJOR:
    *static_cast<uint16_t *>(Value) = 1;
    return HSA_STATUS_SUCCESS;
  case HSA_SYSTEM_INFO_VERSION_MINOR:
    *static_cast<uint16_t *>(Value) = 1;
    return HSA_STATUS_SUCCESS;
  case HSA_SYSTEM_INFO_TIMESTAMP:
    *static_cast<uint64_t *>(Value) = nowTicks();
    return HSA_STATUS_SUCCESS;
  case HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY:
    *static_cast<uint64_t *>(Value) = 1000000000ull;
    return HSA_STATUS_SUCCESS;
  case HSA_SYSTEM_INFO_SIGNAL_MAX_WAIT:
    *static_cast<uint64_t *>(Value) = UINT64_MAX;
    return HSA_STATUS_SUCCESS;
  case HSA_SYSTEM_INFO_ENDIANNESS:
    *static_cast<hsa_endianness_t *>(Value) = HSA_ENDIANNESS_LITTLE;
    return HSA_STATUS_SUCCESS;
  case HSA_SYSTEM_INFO_MACHINE_MODEL:
    *static_cast<hsa_machine_model_t *>(Value) = HSA_MACHINE_MODEL_LARGE;
    return HSA_STATUS_SUCCESS;
  case HSA_SYSTEM_INFO_EXTENSIONS: {
    auto *Bits = static_cast<uint8_t *>(Value);
    std::memset(Bits, 0, 128);
    Bits[HSA_EXTENSION_AMD_LOADER / 8] |= 1 << (HSA_EXTENSION_AMD_LOADER % 8);
    return HSA_STATUS_SUCCESS;
  }
  case HSA_AMD_SYSTEM_INFO_BUILD_VERSION:
    *static_cast<const char **>(Value) = "Loom 1.0 (virtual gfx90a)";
    return HSA_STATUS_SUCCESS;
  case HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED:
    *static_cast<bool *>(Value) = true;
    return HSA_STATUS_SUCCESS;
  case HSA_AMD_SYSTEM_INFO_SVM_ACCESSIBLE_BY_DEFAULT:
    *static_cast<bool *>(Value) = false;
    return HSA_STATUS_SUCCESS;
  }
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

static bool knownExtension(uint16_t E) {
  return E <= HSA_EXTENSION_STD_LAST ||
         (E >= HSA_EXTENSION_AMD_PROFILER && E <= HSA_EXTENSION_AMD_AQLPROFILE);
}

hsa_status_t hsa_extension_get_name(uint16_t Extension, const char **Name) {
  LOOM_HSA_STATE(State);
  if (!Name)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  switch (Extension) {
  case HSA_EXTENSION_FINALIZER:
    *Name = "HSA_EXTENSION_FINALIZER";
    return HSA_STATUS_SUCCESS;
  case HSA_EXTENSION_IMAGES:
    *Name = "HSA_EXTENSION_IMAGES";
    return HSA_STATUS_SUCCESS;
  case HSA_EXTENSION_PERFORMANCE_COUNTERS:
    *Name = "HSA_EXTENSION_PERFORMANCE_COUNTERS";
    return HSA_STATUS_SUCCESS;
  case HSA_EXTENSION_PROFILING_EVENTS:
    *Name = "HSA_EXTENSION_PROFILING_EVENTS";
    return HSA_STATUS_SUCCESS;
  case HSA_EXTENSION_AMD_PROFILER:
    *Name = "HSA_EXTENSION_AMD_PROFILER";
    return HSA_STATUS_SUCCESS;
  case HSA_EXTENSION_AMD_LOADER:
    *Name = "HSA_EXTENSION_AMD_LOADER";
    return HSA_STATUS_SUCCESS;
  case HSA_EXTENSION_AMD_AQLPROFILE:
    *Name = "HSA_EXTENSION_AMD_AQLPROFILE";
    return HSA_STATUS_SUCCESS;
  }
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

hsa_status_t hsa_system_extension_supported(uint16_t Extension,
                                            uint16_t VersionMajor,
                                            uint16_t VersionMinor,
                                            bool *Result) {
  LOOM_HSA_STATE(State);
  if (!Result || !knownExtension(Extension))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *Result = Extension == HSA_EXTENSION_AMD_LOADER && VersionMajor == 1 &&
            VersionMinor <= 3;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_system_major_extension_supported(uint16_t Extension,
                                                  uint16_t VersionMajor,
                                                  uint16_t *VersionMinor,
                                                  bool *Result) {
  LOOM_HSA_STATE(State);
  if (!Result || !VersionMinor || !knownExtension(Extension))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *Result = Extension == HSA_EXTENSION_AMD_LOADER && VersionMajor == 1;
  if (*Result)
    *VersionMinor = 3;
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t loaderTable(size_t Length, void *Table) {
  hsa_ven_amd_loader_1_03_pfn_t Full;
  Full.hsa_ven_amd_loader_query_host_address =
      impl::hsa_ven_amd_loader_query_host_address;
  Full.hsa_ven_amd_loader_query_segment_descriptors =
      impl::hsa_ven_amd_loader_query_segment_descriptors;
  Full.hsa_ven_amd_loader_query_executable =
      impl::hsa_ven_amd_loader_query_executable;
  Full.hsa_ven_amd_loader_executable_iterate_loaded_code_objects =
      impl::hsa_ven_amd_loader_executable_iterate_loaded_code_objects;
  Full.hsa_ven_amd_loader_loaded_code_object_get_info =
      impl::hsa_ven_amd_loader_loaded_code_object_get_info;
  Full.hsa_ven_amd_loader_code_object_reader_create_from_file_with_offset_size =
      impl::hsa_ven_amd_loader_code_object_reader_create_from_file_with_offset_size;
  Full.hsa_ven_amd_loader_iterate_executables =
      impl::hsa_ven_amd_loader_iterate_executables;
  // Each version's table is a prefix of the next one's.
  std::memcpy(Table, &Full, std::min(Length, sizeof(Full)));
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_system_get_major_extension_table(uint16_t Extension,
                                                  uint16_t VersionMajor,
                                                  size_t TableLength,
                                                  void *Table) {
  LOOM_HSA_STATE(State);
  if (!Table || !TableLength)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (Extension == HSA_EXTENSION_AMD_LOADER && VersionMajor == 1)
    return loaderTable(TableLength, Table);
  // Images, finalizer, profiler, aqlprofile: not provided.
  return HSA_STATUS_ERROR;
}

hsa_status_t hsa_system_get_extension_table(uint16_t Extension,
                                            uint16_t VersionMajor,
                                            uint16_t VersionMinor,
                                            void *Table) {
  LOOM_HSA_STATE(State);
  if (!Table)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (Extension == HSA_EXTENSION_AMD_LOADER && VersionMajor == 1) {
    size_t Sizes[] = {sizeof(hsa_ven_amd_loader_1_00_pfn_t),
                      sizeof(hsa_ven_amd_loader_1_01_pfn_t),
                      sizeof(hsa_ven_amd_loader_1_02_pfn_t),
                      sizeof(hsa_ven_amd_loader_1_03_pfn_t)};
    return loaderTable(Sizes[std::min<uint16_t>(VersionMinor, 3)], Table);
  }
  return HSA_STATUS_ERROR;
}

hsa_status_t hsa_agent_extension_supported(uint16_t Extension,
                                           hsa_agent_t Agent,
                                           uint16_t VersionMajor,
                                           uint16_t VersionMinor,
                                           bool *Result) {
  LOOM_HSA_STATE(State);
  if (!State->agent(Agent.handle))
    return HSA_STATUS_ERROR_INVALID_AGENT;
  return impl::hsa_system_extension_supported(Extension, VersionMajor, VersionMinor,
                                        Result);
}

hsa_status_t hsa_agent_major_extension_supported(uint16_t Extension,
                                                 hsa_agent_t Agent,
                                                 uint16_t VersionMajor,
                                                 uint16_t *VersionMinor,
                                                 bool *Result) {
  LOOM_HSA_STATE(State);
  if (!State->agent(Agent.handle))
    return HSA_STATUS_ERROR_INVALID_AGENT;
  return impl::hsa_system_major_extension_supported(Extension, VersionMajor,
                                              VersionMinor, Result);
}

hsa_status_t hsa_status_string(hsa_status_t Status, const char **String) {
  // Works before hsa_init too: it is how clients report hsa_init failing.
  if (!String)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  const char *S = nullptr;
  switch (uint32_t(Status)) {
#define CASE(Name, Text)                                                       \
  case Name:                                                                   \
    S = #Name ": " Text;                                                       \
    break;
    CASE(HSA_STATUS_SUCCESS, "The function has been executed successfully.")
    CASE(HSA_STATUS_INFO_BREAK, "A traversal over a list of elements has been "
                                "interrupted by the application.")
    CASE(HSA_STATUS_ERROR, "A generic error has occurred.")
    CASE(HSA_STATUS_ERROR_INVALID_ARGUMENT, "One of the actual arguments does "
                                            "not meet a precondition.")
    CASE(HSA_STATUS_ERROR_INVALID_QUEUE_CREATION,
         "The requested queue creation is not valid.")
    CASE(HSA_STATUS_ERROR_INVALID_ALLOCATION,
         "The requested allocation is not valid.")
    CASE(HSA_STATUS_ERROR_INVALID_AGENT, "The agent is invalid.")
    CASE(HSA_STATUS_ERROR_INVALID_REGION, "The memory region is invalid.")
    CASE(HSA_STATUS_ERROR_INVALID_SIGNAL, "The signal is invalid.")
    CASE(HSA_STATUS_ERROR_INVALID_QUEUE, "The queue is invalid.")
    CASE(HSA_STATUS_ERROR_OUT_OF_RESOURCES,
         "The runtime failed to allocate the necessary resources.")
    CASE(HSA_STATUS_ERROR_INVALID_PACKET_FORMAT,
         "The AQL packet is malformed.")
    CASE(HSA_STATUS_ERROR_RESOURCE_FREE,
         "An error has been detected while releasing a resource.")
    CASE(HSA_STATUS_ERROR_NOT_INITIALIZED,
         "An API other than hsa_init has been invoked while the reference "
         "count of the HSA runtime is zero.")
    CASE(HSA_STATUS_ERROR_REFCOUNT_OVERFLOW,
         "The maximum reference count for the object has been reached.")
    CASE(HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS,
         "The arguments passed to a functions are not compatible.")
    CASE(HSA_STATUS_ERROR_INVALID_INDEX, "The index is invalid.")
    CASE(HSA_STATUS_ERROR_INVALID_ISA, "The instruction set architecture is "
                                       "invalid.")
    CASE(HSA_STATUS_ERROR_INVALID_ISA_NAME,
         "The instruction set architecture name is invalid.")
    CASE(HSA_STATUS_ERROR_INVALID_CODE_OBJECT, "The code object is invalid.")
    CASE(HSA_STATUS_ERROR_INVALID_EXECUTABLE, "The executable is invalid.")
    CASE(HSA_STATUS_ERROR_FROZEN_EXECUTABLE, "The executable is frozen.")
    CASE(HSA_STATUS_ERROR_INVALID_SYMBOL_NAME,
         "There is no symbol with the given name.")
    CASE(HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED,
         "The variable is already defined.")
    CASE(HSA_STATUS_ERROR_VARIABLE_UNDEFINED, "The variable is undefined.")
    CASE(HSA_STATUS_ERROR_EXCEPTION,
         "An HSAIL operation resulted in a hardware exception.")
    CASE(HSA_STATUS_ERROR_INVALID_CODE_SYMBOL, "The code object symbol is "
                                               "invalid.")
    CASE(HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL,
         "The executable symbol is invalid.")
    CASE(HSA_STATUS_ERROR_INVALID_FILE, "The file descriptor is invalid.")
    CASE(HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER,
         "The code object reader is invalid.")
    CASE(HSA_STATUS_ERROR_INVALID_CACHE, "The cache is invalid.")
    CASE(HSA_STATUS_ERROR_INVALID_WAVEFRONT, "The wavefront is invalid.")
    CASE(HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP, "The signal group is invalid.")
    CASE(HSA_STATUS_ERROR_INVALID_RUNTIME_STATE,
         "The HSA runtime is not in the configured state.")
    CASE(HSA_STATUS_ERROR_FATAL, "The queue received an error that may "
                                 "require process termination.")
    CASE(HSA_STATUS_ERROR_INVALID_MEMORY_POOL, "The memory pool is invalid.")
    CASE(HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION,
         "The agent accessed memory beyond the maximum legal address.")
    CASE(HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION,
         "The agent executed an invalid shader instruction.")
    CASE(HSA_STATUS_ERROR_MEMORY_FAULT,
         "The agent attempted to access an inaccessible address.")
    CASE(HSA_STATUS_CU_MASK_REDUCED,
         "The CU mask was successfully set but the mask attempted to enable "
         "a CU which was never enabled for the process.")
    CASE(HSA_EXT_STATUS_ERROR_IMAGE_FORMAT_UNSUPPORTED,
         "Image format is not supported.")
    CASE(HSA_EXT_STATUS_ERROR_IMAGE_SIZE_UNSUPPORTED,
         "Image size is not supported.")
    CASE(HSA_EXT_STATUS_ERROR_IMAGE_PITCH_UNSUPPORTED,
         "Image pitch is not supported or invalid.")
    CASE(HSA_EXT_STATUS_ERROR_SAMPLER_DESCRIPTOR_UNSUPPORTED,
         "Sampler descriptor is not supported or invalid.")
#undef CASE
  }
  if (!S)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *String = S;
  return HSA_STATUS_SUCCESS;
}

} // namespace loom::hsa::impl

// The debugger's rendezvous with loaded code objects (ROCr exports it; a
// debugger finds it by name). No debugger attaches to the virtual GPU, so it
// stays empty.
#include <link.h>
extern "C" HSA_API_EXPORT struct r_debug _amdgpu_r_debug = {};
