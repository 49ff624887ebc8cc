//===- tests/runtime/loader/HsaApiTest.cpp - The loader through the C ABI -===//
//
// A program in the style of LLVM libc's amdhsa loader (libc/utils/gpu/
// loader/amdgpu): agents -> pools -> code object reader -> executable ->
// freeze -> symbol -> kernarg from the kernarg pool -> an AQL packet written
// by hand, published with an atomic header store -> doorbell -> wait on the
// completion signal -> results checked against the host. Every HSA call's
// status is checked where it is made, naming the step. Then the loader's
// own C surface: device functions as symbols, the AMD loader extension, and
// bad handles.
//
//===----------------------------------------------------------------------===//

#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"
#include "hsa/hsa_ven_amd_loader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

std::string fixture(const std::string &Name) {
  return std::string(LOOM_FIXTURE_DIR) + "/" + Name;
}

#define CHECK_HSA(Call, Step)                                                  \
  do {                                                                         \
    hsa_status_t S_ = (Call);                                                  \
    ASSERT_EQ(S_, HSA_STATUS_SUCCESS) << "failed: " << (Step);                 \
  } while (0)

/// Calls \p F for every agent (libc's iterate_agents).
template <typename F> hsa_status_t iterateAgents(F Fn) {
  auto CB = [](hsa_agent_t A, void *D) -> hsa_status_t {
    return (*static_cast<F *>(D))(A);
  };
  return hsa_iterate_agents(CB, &Fn);
}

template <typename F>
hsa_status_t iteratePools(hsa_agent_t Agent, F Fn) {
  auto CB = [](hsa_amd_memory_pool_t P, void *D) -> hsa_status_t {
    return (*static_cast<F *>(D))(P);
  };
  return hsa_amd_agent_iterate_memory_pools(Agent, CB, &Fn);
}

template <typename F>
hsa_status_t iterateSymbols(hsa_executable_t E, F Fn) {
  auto CB = [](hsa_executable_t, hsa_executable_symbol_t S,
               void *D) -> hsa_status_t { return (*static_cast<F *>(D))(S); };
  return hsa_executable_iterate_symbols(E, CB, &Fn);
}

std::string symbolName(hsa_executable_symbol_t S) {
  uint32_t Len = 0;
  hsa_executable_symbol_get_info(S, HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH,
                                 &Len);
  std::string Name(Len, '\0');
  hsa_executable_symbol_get_info(S, HSA_EXECUTABLE_SYMBOL_INFO_NAME,
                                 Name.data());
  return Name;
}

struct HsaApiTest : ::testing::Test {
  static void SetUpTestSuite() { ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS); }
  static void TearDownTestSuite() { hsa_shut_down(); }

  void SetUp() override {
    // Agents: the first GPU and the CPU.
    CHECK_HSA(iterateAgents([&](hsa_agent_t A) {
                hsa_device_type_t T;
                hsa_status_t S =
                    hsa_agent_get_info(A, HSA_AGENT_INFO_DEVICE, &T);
                if (S != HSA_STATUS_SUCCESS)
                  return S;
                if (T == HSA_DEVICE_TYPE_GPU && !Gpu.handle)
                  Gpu = A;
                if (T == HSA_DEVICE_TYPE_CPU && !Cpu.handle)
                  Cpu = A;
                return HSA_STATUS_SUCCESS;
              }),
              "iterating agents");
    ASSERT_NE(Gpu.handle, 0u) << "no GPU agent";
    ASSERT_NE(Cpu.handle, 0u) << "no CPU agent";
    // Pools: the kernarg pool and a fine-grained pool for buffers.
    CHECK_HSA(iteratePools(Cpu,
                           [&](hsa_amd_memory_pool_t P) {
                             uint32_t Flags = 0;
                             hsa_amd_memory_pool_get_info(
                                 P, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS,
                                 &Flags);
                             if ((Flags &
                                  HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) &&
                                 !Kernargs.handle)
                               Kernargs = P;
                             if ((Flags &
                                  HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED) &&
                                 !Fine.handle)
                               Fine = P;
                             return HSA_STATUS_SUCCESS;
                           }),
              "iterating the CPU agent's memory pools");
    ASSERT_NE(Kernargs.handle, 0u) << "no kernarg pool";
    ASSERT_NE(Fine.handle, 0u) << "no fine-grained pool";
  }

  /// A reader from the fixture's file (the descriptor stays open until
  /// the test ends, as a program would keep it).
  hsa_code_object_reader_t reader(const std::string &Name) {
    int Fd = ::open(fixture(Name).c_str(), O_RDONLY);
    EXPECT_GE(Fd, 0) << Name;
    Fds.push_back(Fd);
    hsa_code_object_reader_t R{0};
    EXPECT_EQ(hsa_code_object_reader_create_from_file(Fd, &R),
              HSA_STATUS_SUCCESS)
        << "creating a reader for " << Name;
    Readers.push_back(R);
    return R;
  }

  void TearDown() override {
    for (hsa_code_object_reader_t R : Readers)
      EXPECT_EQ(hsa_code_object_reader_destroy(R), HSA_STATUS_SUCCESS);
    for (int Fd : Fds)
      ::close(Fd);
  }

  /// Runs kernel \p K (explicit arguments \p Args, copied to the start of
  /// the kernarg segment) on \p Items work-items, libc-loader style.
  void launch(hsa_executable_symbol_t K, const void *Args, size_t ArgBytes,
              uint32_t Items) {
    uint64_t KernelObject = 0;
    uint32_t KernargSize = 0, KernargAlign = 0, Group = 0, Private = 0;
    CHECK_HSA(hsa_executable_symbol_get_info(
                  K, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &KernelObject),
              "getting the kernel object");
    CHECK_HSA(hsa_executable_symbol_get_info(
                  K, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE,
                  &KernargSize),
              "getting the kernarg segment size");
    CHECK_HSA(hsa_executable_symbol_get_info(
                  K, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT,
                  &KernargAlign),
              "getting the kernarg segment alignment");
    CHECK_HSA(hsa_executable_symbol_get_info(
                  K, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE,
                  &Group),
              "getting the group segment size");
    CHECK_HSA(hsa_executable_symbol_get_info(
                  K, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE,
                  &Private),
              "getting the private segment size");
    ASSERT_GE(KernargAlign, 16u);
    ASSERT_GE(KernargSize, ArgBytes);

    void *Kernarg = nullptr;
    CHECK_HSA(hsa_amd_memory_pool_allocate(Kernargs, KernargSize, 0, &Kernarg),
              "allocating the kernarg segment");
    CHECK_HSA(hsa_amd_agents_allow_access(1, &Gpu, nullptr, Kernarg),
              "allowing the GPU to read the kernargs");
    std::memset(Kernarg, 0, KernargSize);
    std::memcpy(Kernarg, Args, ArgBytes);

    hsa_queue_t *Queue = nullptr;
    CHECK_HSA(hsa_queue_create(Gpu, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr,
                               UINT32_MAX, UINT32_MAX, &Queue),
              "creating the queue");
    hsa_signal_t Done;
    CHECK_HSA(hsa_signal_create(1, 0, nullptr, &Done),
              "creating the completion signal");

    uint64_t Index = hsa_queue_add_write_index_relaxed(Queue, 1);
    auto *Packet = static_cast<hsa_kernel_dispatch_packet_t *>(Queue->base_address) +
                   (Index & (Queue->size - 1));
    std::memset(reinterpret_cast<uint8_t *>(Packet) + 4, 0,
                sizeof(*Packet) - 4);
    Packet->setup = 1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS;
    Packet->workgroup_size_x = static_cast<uint16_t>(Items < 64 ? Items : 64);
    Packet->workgroup_size_y = 1;
    Packet->workgroup_size_z = 1;
    Packet->grid_size_x = Items;
    Packet->grid_size_y = 1;
    Packet->grid_size_z = 1;
    Packet->private_segment_size = Private;
    Packet->group_segment_size = Group;
    Packet->kernel_object = KernelObject;
    Packet->kernarg_address = Kernarg;
    Packet->completion_signal = Done;
    uint16_t Header =
        (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
        (1 << HSA_PACKET_HEADER_BARRIER) |
        (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
        (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
    uint32_t HeaderAndSetup = Header | (uint32_t(Packet->setup) << 16);
    __atomic_store_n(reinterpret_cast<uint32_t *>(Packet), HeaderAndSetup,
                     __ATOMIC_RELEASE);
    hsa_signal_store_screlease(Queue->doorbell_signal, Index);

    hsa_signal_value_t V = hsa_signal_wait_scacquire(
        Done, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, HSA_WAIT_STATE_BLOCKED);
    EXPECT_EQ(V, 0) << "the completion signal did not reach 0";

    CHECK_HSA(hsa_signal_destroy(Done), "destroying the signal");
    CHECK_HSA(hsa_queue_destroy(Queue), "destroying the queue");
    CHECK_HSA(hsa_amd_memory_pool_free(Kernarg), "freeing the kernargs");
  }

  hsa_agent_t Gpu{0}, Cpu{0};
  hsa_amd_memory_pool_t Kernargs{0}, Fine{0};
  std::vector<hsa_code_object_reader_t> Readers;
  std::vector<int> Fds;
};

// The cross-code-object call, through the C API end to end.
TEST_F(HsaApiTest, CrossCodeObjectCallLibcStyle) {
  hsa_executable_t Exe;
  CHECK_HSA(hsa_executable_create_alt(HSA_PROFILE_FULL,
                                      HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                                      "", &Exe),
            "creating the executable");
  hsa_loaded_code_object_t Caller, Callee;
  CHECK_HSA(hsa_executable_load_agent_code_object(
                Exe, Gpu, reader("xco_caller.elf"), "", &Caller),
            "loading the caller");
  // The callee is not loaded yet: freeze names what is missing.
  uint32_t Valid = 0;
  CHECK_HSA(hsa_executable_validate(Exe, &Valid), "validating");
  EXPECT_EQ(Valid, uint32_t(HSA_STATUS_ERROR_VARIABLE_UNDEFINED));
  EXPECT_EQ(hsa_executable_freeze(Exe, ""), HSA_STATUS_ERROR_VARIABLE_UNDEFINED);
  CHECK_HSA(hsa_executable_load_agent_code_object(
                Exe, Gpu, reader("xco_callee.elf"), "", &Callee),
            "loading the callee");
  CHECK_HSA(hsa_executable_validate(Exe, &Valid), "validating");
  EXPECT_EQ(Valid, 0u);
  CHECK_HSA(hsa_executable_freeze(Exe, ""), "freezing");
  hsa_executable_state_t State;
  CHECK_HSA(hsa_executable_get_info(Exe, HSA_EXECUTABLE_INFO_STATE, &State),
            "getting the state");
  EXPECT_EQ(State, HSA_EXECUTABLE_STATE_FROZEN);

  hsa_executable_symbol_t Kernel;
  CHECK_HSA(hsa_executable_get_symbol_by_name(Exe, "xco_caller.kd", &Gpu,
                                              &Kernel),
            "finding xco_caller.kd");
  hsa_symbol_kind_t Kind;
  CHECK_HSA(hsa_executable_symbol_get_info(Kernel,
                                           HSA_EXECUTABLE_SYMBOL_INFO_TYPE,
                                           &Kind),
            "getting the kind");
  EXPECT_EQ(Kind, HSA_SYMBOL_KIND_KERNEL);

  int *Out = nullptr;
  CHECK_HSA(hsa_amd_memory_pool_allocate(Fine, 64 * sizeof(int), 0,
                                         reinterpret_cast<void **>(&Out)),
            "allocating the output");
  CHECK_HSA(hsa_amd_agents_allow_access(1, &Gpu, nullptr, Out),
            "allowing the GPU to write the output");
  struct {
    int *Out;
    int A, B;
  } Args = {Out, 21, -5};
  launch(Kernel, &Args, sizeof(Args), 64);
  // xco_callee.c: xco_shared_add(a, b) = a + 2b; xco_shared_value = 100.
  for (int I = 0; I < 64; ++I)
    EXPECT_EQ(Out[I], 21 + 2 * -5 + 100) << I;

  // The loader extension knows where the kernel lives.
  uint64_t KernelObject = 0;
  hsa_executable_symbol_get_info(
      Kernel, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &KernelObject);
  hsa_executable_t Found{0};
  CHECK_HSA(hsa_ven_amd_loader_query_executable(
                reinterpret_cast<const void *>(KernelObject), &Found),
            "querying the executable of the kernel object");
  EXPECT_EQ(Found.handle, Exe.handle);

  CHECK_HSA(hsa_amd_memory_pool_free(Out), "freeing the output");
  CHECK_HSA(hsa_executable_destroy(Exe), "destroying the executable");
  EXPECT_EQ(hsa_executable_destroy(Exe), HSA_STATUS_ERROR_INVALID_EXECUTABLE);
  EXPECT_EQ(hsa_ven_amd_loader_query_executable(
                reinterpret_cast<const void *>(KernelObject), &Found),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

// Device functions are symbols, by iteration and by name.
TEST_F(HsaApiTest, DeviceFunctionSymbols) {
  hsa_executable_t Exe;
  CHECK_HSA(hsa_executable_create_alt(HSA_PROFILE_FULL,
                                      HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                                      "", &Exe),
            "creating the executable");
  CHECK_HSA(hsa_executable_load_agent_code_object(
                Exe, Gpu, reader("gfx90a_v5_kernels.elf"), "", nullptr),
            "loading the kernels");
  CHECK_HSA(hsa_executable_freeze(Exe, ""), "freezing");

  std::vector<std::string> Functions, Kernels;
  CHECK_HSA(iterateSymbols(Exe,
                           [&](hsa_executable_symbol_t S) {
                             hsa_symbol_kind_t K;
                             hsa_executable_symbol_get_info(
                                 S, HSA_EXECUTABLE_SYMBOL_INFO_TYPE, &K);
                             if (K == HSA_SYMBOL_KIND_INDIRECT_FUNCTION)
                               Functions.push_back(symbolName(S));
                             if (K == HSA_SYMBOL_KIND_KERNEL)
                               Kernels.push_back(symbolName(S));
                             return HSA_STATUS_SUCCESS;
                           }),
            "iterating symbols");
  // kernels.c: helper_mul, helper_sum (static), helper_fib; three kernels.
  for (const char *F : {"helper_mul", "helper_sum", "helper_fib"})
    EXPECT_NE(std::find(Functions.begin(), Functions.end(), F),
              Functions.end())
        << F;
  for (const char *K : {"scale_add.kd", "call_chain.kd", "mixed_args.kd"})
    EXPECT_NE(std::find(Kernels.begin(), Kernels.end(), K), Kernels.end())
        << K;

  hsa_executable_symbol_t Fib;
  CHECK_HSA(hsa_executable_get_symbol_by_name(Exe, "helper_fib", &Gpu, &Fib),
            "finding helper_fib");
  uint64_t Object = 0, Address = 0;
  CHECK_HSA(hsa_executable_symbol_get_info(
                Fib, HSA_EXECUTABLE_SYMBOL_INFO_INDIRECT_FUNCTION_OBJECT,
                &Object),
            "getting the function object");
  CHECK_HSA(hsa_executable_symbol_get_info(
                Fib, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS, &Address),
            "getting the function address");
  EXPECT_NE(Object, 0u);
  EXPECT_EQ(Object, Address);
  hsa_agent_t Agent{0};
  hsa_executable_symbol_get_info(Fib, HSA_EXECUTABLE_SYMBOL_INFO_AGENT,
                                 &Agent);
  EXPECT_EQ(Agent.handle, Gpu.handle);
  // The function lives inside the loaded image.
  bool Inside = false;
  auto CB = [](hsa_executable_t, hsa_loaded_code_object_t L,
               void *D) -> hsa_status_t {
    auto *P = static_cast<std::pair<uint64_t, bool *> *>(D);
    uint64_t Base = 0, Size = 0;
    hsa_ven_amd_loader_loaded_code_object_get_info(
        L, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_BASE, &Base);
    hsa_ven_amd_loader_loaded_code_object_get_info(
        L, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_SIZE, &Size);
    *P->second |= P->first >= Base && P->first < Base + Size;
    return HSA_STATUS_SUCCESS;
  };
  std::pair<uint64_t, bool *> Data{Object, &Inside};
  CHECK_HSA(hsa_ven_amd_loader_executable_iterate_loaded_code_objects(Exe, CB,
                                                                       &Data),
            "iterating loaded code objects");
  EXPECT_TRUE(Inside);
  // Kernel attributes do not apply to a function.
  uint32_t Size = 0;
  EXPECT_EQ(hsa_executable_symbol_get_info(
                Fib, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE,
                &Size),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK_HSA(hsa_executable_destroy(Exe), "destroying the executable");
}

TEST_F(HsaApiTest, LoadedCodeObjectInfoAndSegments) {
  std::vector<char> Bytes;
  {
    int Fd = ::open(fixture("xco_callee.elf").c_str(), O_RDONLY);
    ASSERT_GE(Fd, 0);
    char Buf[4096];
    ssize_t N;
    while ((N = ::read(Fd, Buf, sizeof(Buf))) > 0)
      Bytes.insert(Bytes.end(), Buf, Buf + N);
    ::close(Fd);
  }
  hsa_code_object_reader_t R;
  CHECK_HSA(hsa_code_object_reader_create_from_memory(Bytes.data(),
                                                      Bytes.size(), &R),
            "creating a memory reader");
  hsa_executable_t Exe;
  CHECK_HSA(hsa_executable_create_alt(HSA_PROFILE_FULL,
                                      HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR, "",
                                      &Exe),
            "creating the executable");
  hsa_loaded_code_object_t L;
  CHECK_HSA(hsa_executable_load_agent_code_object(Exe, Gpu, R, "", &L),
            "loading");
  CHECK_HSA(hsa_executable_freeze(Exe, ""), "freezing");

  hsa_executable_t Owner;
  uint32_t Kind = 0, Storage = 0, UriLength = 0;
  uint64_t MemBase = 0, MemSize = 0, Base = 0, Size = 0;
  int64_t Delta = 0;
  auto Get = [&](hsa_ven_amd_loader_loaded_code_object_info_t A, void *V) {
    return hsa_ven_amd_loader_loaded_code_object_get_info(L, A, V);
  };
  CHECK_HSA(Get(HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_EXECUTABLE, &Owner),
            "executable");
  EXPECT_EQ(Owner.handle, Exe.handle);
  CHECK_HSA(Get(HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_KIND, &Kind), "kind");
  EXPECT_EQ(Kind, uint32_t(HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_KIND_AGENT));
  CHECK_HSA(Get(HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_TYPE,
                &Storage),
            "storage type");
  EXPECT_EQ(Storage, uint32_t(HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_MEMORY));
  CHECK_HSA(Get(HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_MEMORY_BASE,
                &MemBase),
            "memory base");
  CHECK_HSA(Get(HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_MEMORY_SIZE,
                &MemSize),
            "memory size");
  EXPECT_EQ(MemBase, reinterpret_cast<uint64_t>(Bytes.data()));
  EXPECT_EQ(MemSize, Bytes.size());
  int Fd = 0;
  EXPECT_EQ(Get(HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_FILE,
                &Fd),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK_HSA(Get(HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_BASE, &Base),
            "load base");
  CHECK_HSA(Get(HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_SIZE, &Size),
            "load size");
  CHECK_HSA(Get(HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_DELTA, &Delta),
            "load delta");
  EXPECT_NE(Base, 0u);
  EXPECT_GT(Size, 0u);
  EXPECT_EQ(uint64_t(Delta), Base); // image starts at ELF address 0
  CHECK_HSA(Get(HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI_LENGTH,
                &UriLength),
            "URI length");
  std::string Uri(UriLength + 1, '\0');
  CHECK_HSA(Get(HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI, Uri.data()),
            "URI");
  Uri.resize(UriLength);
  char Expected[128];
  std::snprintf(Expected, sizeof(Expected), "memory://%d#offset=0x%llx&size=%zu",
                int(::getpid()), (unsigned long long)MemBase, Bytes.size());
  EXPECT_EQ(Uri, Expected);

  // Host address of a device address inside the image: the same address.
  const void *Host = nullptr;
  CHECK_HSA(hsa_ven_amd_loader_query_host_address(
                reinterpret_cast<const void *>(Base + 16), &Host),
            "querying a host address");
  EXPECT_EQ(reinterpret_cast<uint64_t>(Host), Base + 16);
  int Local = 0;
  EXPECT_EQ(hsa_ven_amd_loader_query_host_address(&Local, &Host),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);

  // Segment descriptors: ask for the count, then for exactly that many.
  size_t Count = 0;
  CHECK_HSA(hsa_ven_amd_loader_query_segment_descriptors(nullptr, &Count),
            "counting segments");
  ASSERT_GE(Count, 1u);
  std::vector<hsa_ven_amd_loader_segment_descriptor_t> Segs(Count);
  size_t Wrong = Count + 1;
  EXPECT_EQ(hsa_ven_amd_loader_query_segment_descriptors(Segs.data(), &Wrong),
            HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
  CHECK_HSA(hsa_ven_amd_loader_query_segment_descriptors(Segs.data(), &Count),
            "listing segments");
  bool Seen = false;
  for (const auto &S : Segs)
    if (S.executable.handle == Exe.handle) {
      Seen = true;
      EXPECT_EQ(reinterpret_cast<uint64_t>(S.segment_base), Base);
      EXPECT_EQ(S.segment_size, Size);
      EXPECT_EQ(S.agent.handle, Gpu.handle);
      EXPECT_EQ(std::memcmp(S.code_object_storage_base, Bytes.data(), 64), 0);
    }
  EXPECT_TRUE(Seen);

  // Iterating executables finds it.
  auto CB = [](hsa_executable_t E, void *D) -> hsa_status_t {
    auto *P = static_cast<std::pair<uint64_t, int> *>(D);
    P->second += E.handle == P->first;
    return HSA_STATUS_SUCCESS;
  };
  std::pair<uint64_t, int> Data{Exe.handle, 0};
  CHECK_HSA(hsa_ven_amd_loader_iterate_executables(CB, &Data),
            "iterating executables");
  EXPECT_EQ(Data.second, 1);

  CHECK_HSA(hsa_executable_destroy(Exe), "destroying");
  CHECK_HSA(hsa_code_object_reader_destroy(R), "destroying the reader");
}

TEST_F(HsaApiTest, MisuseGetsTheDocumentedStatus) {
  hsa_executable_t Bogus{0xdead0000};
  hsa_executable_symbol_t BogusSym{0xdead0000};
  hsa_code_object_reader_t BogusReader{0xdead0000};
  hsa_loaded_code_object_t BogusLoaded{0xdead0000};
  uint32_t U = 0;
  EXPECT_EQ(hsa_executable_freeze(Bogus, ""), HSA_STATUS_ERROR_INVALID_EXECUTABLE);
  EXPECT_EQ(hsa_executable_get_info(Bogus, HSA_EXECUTABLE_INFO_STATE, &U),
            HSA_STATUS_ERROR_INVALID_EXECUTABLE);
  EXPECT_EQ(hsa_executable_symbol_get_info(
                BogusSym, HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH, &U),
            HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL);
  EXPECT_EQ(hsa_code_object_reader_destroy(BogusReader),
            HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER);
  EXPECT_EQ(hsa_ven_amd_loader_loaded_code_object_get_info(
                BogusLoaded, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_KIND, &U),
            HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  EXPECT_EQ(hsa_code_object_reader_create_from_memory(nullptr, 10, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  hsa_code_object_reader_t R;
  EXPECT_EQ(hsa_code_object_reader_create_from_memory(nullptr, 10, &R),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_code_object_reader_create_from_file(-1, &R),
            HSA_STATUS_ERROR_INVALID_FILE);

  hsa_executable_t Exe;
  CHECK_HSA(hsa_executable_create_alt(HSA_PROFILE_FULL,
                                      HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                                      "", &Exe),
            "creating the executable");
  // Garbage bytes: the reader is made, the load refuses them.
  static const char Junk[] = "definitely not ELF";
  CHECK_HSA(hsa_code_object_reader_create_from_memory(Junk, sizeof(Junk), &R),
            "creating a reader over junk");
  EXPECT_EQ(hsa_executable_load_agent_code_object(Exe, Gpu, R, "", nullptr),
            HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  CHECK_HSA(hsa_code_object_reader_destroy(R), "destroying the junk reader");
  EXPECT_EQ(hsa_code_object_reader_destroy(R),
            HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER);
  // The wrong processor, and a CPU agent.
  EXPECT_EQ(hsa_executable_load_agent_code_object(
                Exe, Gpu, reader("gfx942_v5_kernels.elf"), "", nullptr),
            HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
  EXPECT_EQ(hsa_executable_load_agent_code_object(
                Exe, Cpu, reader("xco_callee.elf"), "", nullptr),
            HSA_STATUS_ERROR_INVALID_AGENT);
  hsa_executable_symbol_t S;
  EXPECT_EQ(hsa_executable_get_symbol_by_name(Exe, "nope.kd", &Gpu, &S),
            HSA_STATUS_ERROR_INVALID_SYMBOL_NAME);
  EXPECT_EQ(hsa_executable_get_symbol_by_name(Exe, nullptr, &Gpu, &S),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  int Var = 0;
  CHECK_HSA(hsa_executable_agent_global_variable_define(Exe, Gpu, "v", &Var),
            "defining v");
  EXPECT_EQ(hsa_executable_agent_global_variable_define(Exe, Gpu, "v", &Var),
            HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED);
  CHECK_HSA(hsa_executable_freeze(Exe, ""), "freezing");
  EXPECT_EQ(hsa_executable_freeze(Exe, ""), HSA_STATUS_ERROR_FROZEN_EXECUTABLE);
  EXPECT_EQ(hsa_executable_global_variable_define(Exe, "w", &Var),
            HSA_STATUS_ERROR_FROZEN_EXECUTABLE);
  EXPECT_EQ(hsa_executable_load_agent_code_object(
                Exe, Gpu, reader("xco_callee.elf"), "", nullptr),
            HSA_STATUS_ERROR_FROZEN_EXECUTABLE);
  EXPECT_EQ(hsa_executable_get_info(Exe, hsa_executable_info_t(99), &U),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK_HSA(hsa_executable_destroy(Exe), "destroying");
  EXPECT_EQ(hsa_executable_freeze(Exe, ""), HSA_STATUS_ERROR_INVALID_EXECUTABLE);
}

} // namespace
