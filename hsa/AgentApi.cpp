//===- hsa/AgentApi.cpp - Agents, ISAs, caches, wavefronts ----------------===//

#include "ApiTable.h"

#include <cstring>

using namespace loom;
using namespace loom::runtime;

namespace {
struct Cache {
  const char *Name;
  uint8_t Level;
  uint32_t Size;
  uint64_t handle() const { return reinterpret_cast<uint64_t>(this); }
};
const Cache GpuCaches[] = {{"L1", 1, gpu::L1Bytes}, {"L2", 2, gpu::L2Bytes}};
const Cache CpuCaches[] = {
    {"L1", 1, 32 * 1024}, {"L2", 2, 512 * 1024}, {"L3", 3, 16 * 1024 * 1024}};

const Cache *findCache(uint64_t H) {
  for (const Cache &C : GpuCaches)
    if (C.handle() == H)
      return &C;
  for (const Cache &C : CpuCaches)
    if (C.handle() == H)
      return &C;
  return nullptr;
}

// The one wavefront size of every ISA.
const int TheWavefront = 64;
uint64_t wavefrontHandle() { return reinterpret_cast<uint64_t>(&TheWavefront); }
} // namespace

namespace loom::hsa::impl {

hsa_status_t hsa_iterate_agents(hsa_status_t (*Callback)(hsa_agent_t, void *),
                                void *Data) {
  LOOM_HSA_STATE(State);
  if (!Callback)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return visitEach(State->Agents,
                   [&](const auto &A) { return Callback(A->hsa(), Data); });
}

hsa_status_t hsa_agent_get_info(hsa_agent_t AgentH, hsa_agent_info_t Attribute,
                                void *Value) {
  LOOM_HSA_STATE(State);
  Agent *A = State->agent(AgentH.handle);
  if (!A)
    return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!Value)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return A->getInfo(Attribute, Value);
}

hsa_status_t hsa_agent_get_exception_policies(hsa_agent_t AgentH,
                                              hsa_profile_t Profile,
                                              uint16_t *Mask) {
  LOOM_HSA_STATE(State);
  if (!State->agent(AgentH.handle))
    return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!Mask || (Profile != HSA_PROFILE_BASE && Profile != HSA_PROFILE_FULL))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *Mask = 0;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_agent_iterate_caches(hsa_agent_t AgentH,
                                      hsa_status_t (*Callback)(hsa_cache_t,
                                                               void *),
                                      void *Data) {
  LOOM_HSA_STATE(State);
  Agent *A = State->agent(AgentH.handle);
  if (!A)
    return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!Callback)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  auto Visit = [&](const Cache &C) { return Callback({C.handle()}, Data); };
  return A->isGpu() ? visitEach(GpuCaches, Visit) : visitEach(CpuCaches, Visit);
}

hsa_status_t hsa_cache_get_info(hsa_cache_t CacheH, hsa_cache_info_t Attribute,
                                void *Value) {
  LOOM_HSA_STATE(State);
  const Cache *C = findCache(CacheH.handle);
  if (!C)
    return HSA_STATUS_ERROR_INVALID_CACHE;
  if (!Value)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  switch (Attribute) {
  case HSA_CACHE_INFO_NAME_LENGTH:
    *static_cast<uint32_t *>(Value) = uint32_t(strlen(C->Name));
    return HSA_STATUS_SUCCESS;
  case HSA_CACHE_INFO_NAME:
    memcpy(Value, C->Name, strlen(C->Name) + 1);
    return HSA_STATUS_SUCCESS;
  case HSA_CACHE_INFO_LEVEL:
    *static_cast<uint8_t *>(Value) = C->Level;
    return HSA_STATUS_SUCCESS;
  case HSA_CACHE_INFO_SIZE:
    *static_cast<uint32_t *>(Value) = C->Size;
    return HSA_STATUS_SUCCESS;
  }
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

//===--- ISAs -------------------------------------------------------------===//

hsa_status_t hsa_agent_iterate_isas(hsa_agent_t AgentH,
                                    hsa_status_t (*Callback)(hsa_isa_t,
                                                             void *),
                                    void *Data) {
  LOOM_HSA_STATE(State);
  Agent *A = State->agent(AgentH.handle);
  if (!A)
    return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!Callback)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (!A->isa())
    return HSA_STATUS_SUCCESS; // the CPU agent runs no HSA ISA
  return Callback({A->isa()->handle()}, Data);
}

hsa_status_t hsa_isa_from_name(const char *Name, hsa_isa_t *IsaOut) {
  LOOM_HSA_STATE(State);
  if (!Name || !IsaOut)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  const Isa *I = Isa::fromName(Name);
  if (!I || std::string(Name).rfind("amdgcn-amd-amdhsa--", 0) != 0)
    return HSA_STATUS_ERROR_INVALID_ISA_NAME;
  IsaOut->handle = I->handle();
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_isa_get_info_alt(hsa_isa_t IsaH, hsa_isa_info_t Attribute,
                                  void *Value) {
  LOOM_HSA_STATE(State);
  const Isa *I = Isa::fromHandle(IsaH.handle);
  if (!I)
    return HSA_STATUS_ERROR_INVALID_ISA;
  if (!Value)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return I->getInfo(Attribute, Value);
}

hsa_status_t hsa_isa_get_info(hsa_isa_t IsaH, hsa_isa_info_t Attribute,
                              uint32_t Index, void *Value) {
  LOOM_HSA_STATE(State);
  if (Index != 0)
    return HSA_STATUS_ERROR_INVALID_INDEX;
  return impl::hsa_isa_get_info_alt(IsaH, Attribute, Value);
}

hsa_status_t hsa_isa_compatible(hsa_isa_t CodeObjectIsa, hsa_isa_t AgentIsa,
                                bool *Result) {
  LOOM_HSA_STATE(State);
  const Isa *C = Isa::fromHandle(CodeObjectIsa.handle);
  const Isa *A = Isa::fromHandle(AgentIsa.handle);
  if (!C || !A)
    return HSA_STATUS_ERROR_INVALID_ISA;
  if (!Result)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *Result = C->Processor == A->Processor;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_isa_get_exception_policies(hsa_isa_t IsaH,
                                            hsa_profile_t Profile,
                                            uint16_t *Mask) {
  LOOM_HSA_STATE(State);
  if (!Isa::fromHandle(IsaH.handle))
    return HSA_STATUS_ERROR_INVALID_ISA;
  if (!Mask || (Profile != HSA_PROFILE_BASE && Profile != HSA_PROFILE_FULL))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *Mask = 0;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_isa_get_round_method(hsa_isa_t IsaH, hsa_fp_type_t FpType,
                                      hsa_flush_mode_t FlushMode,
                                      hsa_round_method_t *RoundMethod) {
  LOOM_HSA_STATE(State);
  if (!Isa::fromHandle(IsaH.handle))
    return HSA_STATUS_ERROR_INVALID_ISA;
  if (!RoundMethod)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *RoundMethod = HSA_ROUND_METHOD_SINGLE;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_isa_iterate_wavefronts(hsa_isa_t IsaH,
                                        hsa_status_t (*Callback)(
                                            hsa_wavefront_t, void *),
                                        void *Data) {
  LOOM_HSA_STATE(State);
  if (!Isa::fromHandle(IsaH.handle))
    return HSA_STATUS_ERROR_INVALID_ISA;
  if (!Callback)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return Callback({wavefrontHandle()}, Data);
}

hsa_status_t hsa_wavefront_get_info(hsa_wavefront_t W,
                                    hsa_wavefront_info_t Attribute,
                                    void *Value) {
  LOOM_HSA_STATE(State);
  if (W.handle != wavefrontHandle())
    return HSA_STATUS_ERROR_INVALID_WAVEFRONT;
  if (!Value || Attribute != HSA_WAVEFRONT_INFO_SIZE)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *static_cast<uint32_t *>(Value) = TheWavefront;
  return HSA_STATUS_SUCCESS;
}

} // namespace loom::hsa::impl
