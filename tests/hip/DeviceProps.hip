//===- tests/hip/DeviceProps.hip - Device enumeration and properties -------===//
//
// hipGetDeviceCount / hipGetDeviceProperties / hipDeviceGetAttribute must
// describe Loom's agent: gfx90a, its compute units, wave64, 64 KiB of LDS.
// The expected values come from the HSA agent itself, so the test follows the
// runtime's description instead of repeating it.
//
//===----------------------------------------------------------------------===//
#include "HipTest.h"
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <cstring>
#include <vector>

namespace {
struct AgentFacts {
  char Name[64] = {};
  uint32_t ComputeUnits = 0;
  uint32_t Wavefront = 0;
  uint32_t MaxWorkGroup = 0;
  uint32_t ClockMhz = 0;
  size_t GroupSegment = 0;
};

std::vector<AgentFacts> gpuAgents() {
  std::vector<AgentFacts> Gpus;
  hsa_iterate_agents(
      [](hsa_agent_t Agent, void *Data) {
        hsa_device_type_t Type;
        hsa_agent_get_info(Agent, HSA_AGENT_INFO_DEVICE, &Type);
        if (Type != HSA_DEVICE_TYPE_GPU)
          return HSA_STATUS_SUCCESS;
        AgentFacts F;
        hsa_agent_get_info(Agent, HSA_AGENT_INFO_NAME, F.Name);
        hsa_agent_get_info(
            Agent, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT,
            &F.ComputeUnits);
        hsa_agent_get_info(Agent, HSA_AGENT_INFO_WAVEFRONT_SIZE, &F.Wavefront);
        hsa_agent_get_info(Agent, HSA_AGENT_INFO_WORKGROUP_MAX_SIZE,
                           &F.MaxWorkGroup);
        hsa_agent_get_info(
            Agent, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY,
            &F.ClockMhz);
        hsa_amd_agent_iterate_memory_pools(
            Agent,
            [](hsa_amd_memory_pool_t Pool, void *Data) {
              hsa_amd_segment_t Segment;
              hsa_amd_memory_pool_get_info(
                  Pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &Segment);
              if (Segment == HSA_AMD_SEGMENT_GROUP)
                hsa_amd_memory_pool_get_info(
                    Pool, HSA_AMD_MEMORY_POOL_INFO_SIZE,
                    &static_cast<AgentFacts *>(Data)->GroupSegment);
              return HSA_STATUS_SUCCESS;
            },
            &F);
        static_cast<std::vector<AgentFacts> *>(Data)->push_back(F);
        return HSA_STATUS_SUCCESS;
      },
      &Gpus);
  return Gpus;
}
} // namespace

int main() {
  int Count = 0;
  HIP_CHECK(hipGetDeviceCount(&Count));
  // HIP has initialised HSA by now; asking the same runtime is fine.
  EXPECT(hsa_init() == HSA_STATUS_SUCCESS, "hsa_init");
  std::vector<AgentFacts> Gpus = gpuAgents();
  EXPECT(Count == int(Gpus.size()), "%d HIP devices, %zu GPU agents", Count,
         Gpus.size());
  EXPECT(Count >= 1, "no device");

  for (int Dev = 0; Dev < Count; ++Dev) {
    const AgentFacts &A = Gpus[Dev];
    HIP_CHECK(hipSetDevice(Dev));
    int Current = -1;
    HIP_CHECK(hipGetDevice(&Current));
    EXPECT(Current == Dev, "current device %d", Current);

    hipDeviceProp_t P;
    HIP_CHECK(hipGetDeviceProperties(&P, Dev));
    std::printf("device %d: %s, gcnArchName %s, %d CUs, warp %d, LDS %zu, "
                "clock %d kHz, global %zu MiB\n",
                Dev, P.name, P.gcnArchName, P.multiProcessorCount, P.warpSize,
                P.sharedMemPerBlock, P.clockRate, P.totalGlobalMem >> 20);
    EXPECT(std::strncmp(P.gcnArchName, "gfx90a", 6) == 0, "arch %s",
           P.gcnArchName);
    EXPECT(std::strcmp(A.Name, "gfx90a") == 0, "agent name %s", A.Name);
    EXPECT(P.gcnArch == 910, "gcnArch %d", P.gcnArch);
    EXPECT(P.major == 9 && P.minor == 0, "version %d.%d", P.major, P.minor);
    EXPECT(P.multiProcessorCount == int(A.ComputeUnits), "CUs %d vs %u",
           P.multiProcessorCount, A.ComputeUnits);
    EXPECT(P.warpSize == int(A.Wavefront) && P.warpSize == 64, "warp %d",
           P.warpSize);
    EXPECT(P.maxThreadsPerBlock == int(A.MaxWorkGroup), "max threads %d",
           P.maxThreadsPerBlock);
    EXPECT(P.sharedMemPerBlock == A.GroupSegment && A.GroupSegment == 65536,
           "LDS %zu vs %zu", P.sharedMemPerBlock, A.GroupSegment);
    EXPECT(P.clockRate == int(A.ClockMhz) * 1000, "clock %d", P.clockRate);
    EXPECT(P.totalGlobalMem > 0, "no global memory");
    EXPECT(P.maxThreadsDim[0] == 1024, "maxThreadsDim %d", P.maxThreadsDim[0]);

    int Attr = 0;
    HIP_CHECK(hipDeviceGetAttribute(&Attr, hipDeviceAttributeWarpSize, Dev));
    EXPECT(Attr == 64, "warp attribute %d", Attr);
    HIP_CHECK(hipDeviceGetAttribute(
        &Attr, hipDeviceAttributeMultiprocessorCount, Dev));
    EXPECT(Attr == int(A.ComputeUnits), "CU attribute %d", Attr);

    char Name[256];
    HIP_CHECK(hipDeviceGetName(Name, sizeof(Name), Dev));
    EXPECT(std::strcmp(Name, P.name) == 0, "name %s vs %s", Name, P.name);

    size_t Free = 0, Total = 0;
    HIP_CHECK(hipMemGetInfo(&Free, &Total));
    EXPECT(Total == P.totalGlobalMem && Free <= Total, "mem %zu/%zu", Free,
           Total);
  }
  EXPECT(hipSetDevice(Count) == hipErrorInvalidDevice, "device %d accepted",
         Count);
  int Version = 0;
  HIP_CHECK(hipRuntimeGetVersion(&Version));
  EXPECT(Version > 0, "runtime version %d", Version);
  std::printf("device properties ok\n");
  return 0;
}
