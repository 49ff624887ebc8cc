//===- run/Runner.cpp - Load a GPU program and run its main ---------------===//
//
// In the style of LLVM libc's amdhsa loader: agents -> pools -> reader ->
// executable -> freeze -> kernarg -> AQL packet -> wait, every HSA status
// checked where the call is made and the failing step named. The waits are
// sliced so that exit(), abort(), a queue error and the timeout end the run
// while the dispatch is still going; destroying the queue stops it.
//
//===----------------------------------------------------------------------===//

#include "loom/run/Run.h"

#include "DeviceHeap.h"
#include "HostServices.h"
#include "RpcServer.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

using namespace llvm;

namespace loom::run {

namespace {

Error hsaError(hsa_status_t S, const Twine &Step) {
  const char *Msg = nullptr;
  if (hsa_status_string(S, &Msg) != HSA_STATUS_SUCCESS || !Msg)
    Msg = "unknown status";
  return createStringError(inconvertibleErrorCode(), "%s failed: %s",
                           Step.str().c_str(), Msg);
}

#define LOOM_HSA_TRY(Call, Step)                                               \
  if (hsa_status_t S_ = (Call); S_ != HSA_STATUS_SUCCESS)                      \
  return hsaError(S_, Step)

template <typename F> hsa_status_t iterateAgents(F Fn) {
  return hsa_iterate_agents(
      [](hsa_agent_t A, void *D) { return (*static_cast<F *>(D))(A); }, &Fn);
}

template <typename F> hsa_status_t iteratePools(hsa_agent_t Agent, F Fn) {
  return hsa_amd_agent_iterate_memory_pools(
      Agent,
      [](hsa_amd_memory_pool_t P, void *D) {
        return (*static_cast<F *>(D))(P);
      },
      &Fn);
}

/// hsa_init / hsa_shut_down, paired.
struct HsaScope {
  bool Live = false;
  ~HsaScope() {
    if (Live)
      hsa_shut_down();
  }
};

/// Everything one run holds, released in reverse order.
struct Session {
  hsa_agent_t Cpu{0};
  std::vector<hsa_agent_t> Gpus;
  hsa_agent_t Gpu{0};
  hsa_amd_memory_pool_t Kernargs{0}, Fine{0}, DeviceMem{0};
  hsa_code_object_reader_t Reader{0};
  hsa_executable_t Exe{0};
  hsa_queue_t *Queue = nullptr;
  hsa_signal_t Done{0};
  std::vector<void *> Allocations;
  uint64_t TimestampHz = 1000000000;
  uint32_t CodeObjectVersion = 5;

  /// Set by the queue's error callback (from the packet processor).
  std::atomic<hsa_status_t> QueueError{HSA_STATUS_SUCCESS};

  ~Session() {
    if (Queue)
      hsa_queue_destroy(Queue);
    if (Done.handle)
      hsa_signal_destroy(Done);
    for (void *P : Allocations)
      hsa_amd_memory_pool_free(P);
    if (Exe.handle)
      hsa_executable_destroy(Exe);
    if (Reader.handle)
      hsa_code_object_reader_destroy(Reader);
  }

  Expected<void *> allocate(hsa_amd_memory_pool_t Pool, size_t Size,
                            const char *What) {
    void *P = nullptr;
    LOOM_HSA_TRY(hsa_amd_memory_pool_allocate(Pool, Size, 0, &P),
                 Twine("allocating ") + What);
    Allocations.push_back(P);
    LOOM_HSA_TRY(hsa_amd_agents_allow_access(1, &Gpu, nullptr, P),
                 Twine("giving the GPU access to ") + What);
    std::memset(P, 0, Size);
    return P;
  }

  Error findAgentsAndPools();
  Error load(MemoryBufferRef Code);
  Expected<uint64_t> kernel(const char *Name, uint32_t &KernargSize,
                            uint32_t &PrivateSize, uint32_t &GroupSize);
};

Error Session::findAgentsAndPools() {
  LOOM_HSA_TRY(iterateAgents([&](hsa_agent_t A) {
                 hsa_device_type_t T;
                 hsa_status_t S =
                     hsa_agent_get_info(A, HSA_AGENT_INFO_DEVICE, &T);
                 if (S != HSA_STATUS_SUCCESS)
                   return S;
                 if (T == HSA_DEVICE_TYPE_GPU)
                   Gpus.push_back(A);
                 if (T == HSA_DEVICE_TYPE_CPU && !Cpu.handle)
                   Cpu = A;
                 return HSA_STATUS_SUCCESS;
               }),
               "iterating the agents");
  if (Gpus.empty())
    return createStringError(inconvertibleErrorCode(),
                             "the HSA runtime has no GPU agent");
  if (!Cpu.handle)
    return createStringError(inconvertibleErrorCode(),
                             "the HSA runtime has no CPU agent");
  LOOM_HSA_TRY(
      iteratePools(
          Cpu,
          [&](hsa_amd_memory_pool_t P) {
            uint32_t Flags = 0;
            hsa_status_t S = hsa_amd_memory_pool_get_info(
                P, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &Flags);
            if (S != HSA_STATUS_SUCCESS)
              return S;
            if ((Flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) &&
                !Kernargs.handle)
              Kernargs = P;
            if ((Flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED) &&
                !Fine.handle)
              Fine = P;
            return HSA_STATUS_SUCCESS;
          }),
      "iterating the CPU agent's memory pools");
  if (!Kernargs.handle || !Fine.handle)
    return createStringError(inconvertibleErrorCode(),
                             "the CPU agent has no kernarg or fine-grained "
                             "memory pool");
  uint64_t Hz = 0;
  LOOM_HSA_TRY(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &Hz),
               "reading the timestamp frequency");
  if (Hz)
    TimestampHz = Hz;
  return Error::success();
}

Error Session::load(MemoryBufferRef Code) {
  LOOM_HSA_TRY(hsa_code_object_reader_create_from_memory(
                   Code.getBufferStart(), Code.getBufferSize(), &Reader),
               "creating the code object reader");
  // The first GPU agent that takes the code object runs it.
  hsa_status_t Last = HSA_STATUS_ERROR_INVALID_AGENT;
  for (hsa_agent_t A : Gpus) {
    hsa_executable_t E;
    LOOM_HSA_TRY(
        hsa_executable_create_alt(
            HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, "", &E),
        "creating the executable");
    Last = hsa_executable_load_agent_code_object(E, A, Reader, "", nullptr);
    if (Last == HSA_STATUS_SUCCESS) {
      Exe = E;
      Gpu = A;
      break;
    }
    hsa_executable_destroy(E);
  }
  if (!Exe.handle) {
    char Name[64] = {};
    hsa_agent_get_info(Gpus.front(), HSA_AGENT_INFO_NAME, Name);
    std::string Built = "another processor";
    if (auto P = codeObjectProcessor(Code); P && !P->empty())
      Built = *P;
    else if (!P)
      consumeError(P.takeError());
    const char *Status = nullptr;
    if (hsa_status_string(Last, &Status) != HSA_STATUS_SUCCESS || !Status)
      Status = "unknown status";
    return createStringError(inconvertibleErrorCode(),
                             "no GPU agent loads the code object (built for "
                             "%s; the GPU is %s; loom run --isa chooses the "
                             "virtual GPU's): %s",
                             Built.c_str(), Name, Status);
  }
  LOOM_HSA_TRY(hsa_executable_freeze(Exe, ""), "freezing the executable");
  // Device memory for malloc: the GPU's own coarse-grained global pool.
  LOOM_HSA_TRY(
      iteratePools(
          Gpu,
          [&](hsa_amd_memory_pool_t P) {
            hsa_amd_segment_t Seg;
            bool Alloc = false;
            hsa_amd_memory_pool_get_info(P, HSA_AMD_MEMORY_POOL_INFO_SEGMENT,
                                         &Seg);
            hsa_amd_memory_pool_get_info(
                P, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &Alloc);
            if (Seg == HSA_AMD_SEGMENT_GLOBAL && Alloc && !DeviceMem.handle)
              DeviceMem = P;
            return HSA_STATUS_SUCCESS;
          }),
      "iterating the GPU agent's memory pools");
  if (!DeviceMem.handle)
    DeviceMem = Fine;
  return Error::success();
}

Expected<uint64_t> Session::kernel(const char *Name, uint32_t &KernargSize,
                                   uint32_t &PrivateSize, uint32_t &GroupSize) {
  hsa_executable_symbol_t Sym;
  std::string Symbol = std::string(Name) + ".kd";
  if (hsa_executable_get_symbol_by_name(Exe, Symbol.c_str(), &Gpu, &Sym) !=
      HSA_STATUS_SUCCESS)
    return 0;
  uint64_t Object = 0;
  LOOM_HSA_TRY(hsa_executable_symbol_get_info(
                   Sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &Object),
               Twine("reading the kernel object of ") + Name);
  LOOM_HSA_TRY(hsa_executable_symbol_get_info(
                   Sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE,
                   &KernargSize),
               Twine("reading the kernarg size of ") + Name);
  LOOM_HSA_TRY(hsa_executable_symbol_get_info(
                   Sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE,
                   &PrivateSize),
               Twine("reading the private segment size of ") + Name);
  LOOM_HSA_TRY(hsa_executable_symbol_get_info(
                   Sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE,
                   &GroupSize),
               Twine("reading the group segment size of ") + Name);
  return Object;
}

/// Stack for each work-item when the program's is dynamic (calls through
/// pointers, recursion, varargs): what LLVM libc's loader gives too.
constexpr uint32_t DefaultStackBytes = 16 * 1024;

/// How one kernel's dispatch ended.
enum class Ending { Completed, EndRequested, QueueError, TimedOut };

struct Launcher {
  Session &S;
  HostServices &Services;
  std::chrono::steady_clock::time_point Deadline;
  bool HasDeadline;

  Expected<Ending> launch(const char *Name, uint64_t Object,
                          uint32_t KernargSize, uint32_t PrivateSize,
                          uint32_t GroupSize, const uint32_t Threads[3],
                          const uint32_t Blocks[3], uint64_t ArgsPointer);
};

Expected<Ending> Launcher::launch(const char *Name, uint64_t Object,
                                  uint32_t KernargSize, uint32_t PrivateSize,
                                  uint32_t GroupSize, const uint32_t Threads[3],
                                  const uint32_t Blocks[3],
                                  uint64_t ArgsPointer) {
  // Kernarg: the one explicit pointer, then the hidden arguments of code
  // object v5 (AMDGPUUsage, "Code Object V5 Metadata": block counts, group
  // sizes, remainders, grid dimensions).
  uint32_t Size = std::max<uint32_t>(KernargSize, 256);
  auto KernargOr = S.allocate(S.Kernargs, Size, "the kernarg segment");
  if (!KernargOr)
    return KernargOr.takeError();
  auto *K = static_cast<uint8_t *>(*KernargOr);
  std::memcpy(K, &ArgsPointer, 8);
  unsigned Dims = (Threads[2] > 1 || Blocks[2] > 1)   ? 3
                  : (Threads[1] > 1 || Blocks[1] > 1) ? 2
                                                      : 1;
  if (S.CodeObjectVersion >= 5) {
    uint8_t *Hidden = K + 8;
    for (int I = 0; I < 3; ++I) {
      uint32_t Count = Blocks[I];
      uint16_t Group = uint16_t(Threads[I]), Zero = 0;
      std::memcpy(Hidden + 4 * I, &Count, 4);
      std::memcpy(Hidden + 12 + 2 * I, &Group, 2);
      std::memcpy(Hidden + 18 + 2 * I, &Zero, 2);
    }
    uint16_t D = Dims;
    std::memcpy(Hidden + 64, &D, 2);
  }

  uint64_t Index = hsa_queue_add_write_index_relaxed(S.Queue, 1);
  auto *Packet =
      static_cast<hsa_kernel_dispatch_packet_t *>(S.Queue->base_address) +
      (Index & (S.Queue->size - 1));
  std::memset(reinterpret_cast<uint8_t *>(Packet) + 4, 0, sizeof(*Packet) - 4);
  Packet->setup = uint16_t(Dims << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
  Packet->workgroup_size_x = uint16_t(Threads[0]);
  Packet->workgroup_size_y = uint16_t(Threads[1]);
  Packet->workgroup_size_z = uint16_t(Threads[2]);
  Packet->grid_size_x = Threads[0] * Blocks[0];
  Packet->grid_size_y = Threads[1] * Blocks[1];
  Packet->grid_size_z = Threads[2] * Blocks[2];
  Packet->private_segment_size = std::max(PrivateSize, DefaultStackBytes);
  Packet->group_segment_size = GroupSize;
  Packet->kernel_object = Object;
  Packet->kernarg_address = K;
  hsa_signal_store_relaxed(S.Done, 1);
  Packet->completion_signal = S.Done;
  uint16_t Header =
      (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
      (1 << HSA_PACKET_HEADER_BARRIER) |
      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
  __atomic_store_n(reinterpret_cast<uint32_t *>(Packet),
                   uint32_t(Header) | uint32_t(Packet->setup) << 16,
                   __ATOMIC_RELEASE);
  hsa_signal_store_screlease(S.Queue->doorbell_signal, Index);

  // Wait in slices of 10 ms so that an ending requested some other way
  // is seen while the kernel still runs.
  const uint64_t Slice = S.TimestampHz / 100;
  for (;;) {
    if (hsa_signal_wait_scacquire(S.Done, HSA_SIGNAL_CONDITION_LT, 1, Slice,
                                  HSA_WAIT_STATE_BLOCKED) == 0)
      return Ending::Completed;
    if (Services.endRequested())
      return Ending::EndRequested;
    if (S.QueueError.load() != HSA_STATUS_SUCCESS)
      return Ending::QueueError;
    if (HasDeadline && std::chrono::steady_clock::now() >= Deadline)
      return Ending::TimedOut;
  }
}

Error checkCodeObject(MemoryBufferRef Code) {
  StringRef B = Code.getBuffer();
  if (B.size() < sizeof(ELF::Elf64_Ehdr) || !B.starts_with("\x7f"
                                                           "ELF"))
    return createStringError(inconvertibleErrorCode(),
                             "not an AMDGPU code object (no ELF header)");
  const auto *H = reinterpret_cast<const ELF::Elf64_Ehdr *>(B.data());
  if (H->e_ident[ELF::EI_CLASS] != ELF::ELFCLASS64 ||
      H->e_ident[ELF::EI_DATA] != ELF::ELFDATA2LSB ||
      support::endian::read16le(&H->e_machine) != ELF::EM_AMDGPU)
    return createStringError(inconvertibleErrorCode(),
                             "not an AMDGPU code object (an ELF file for "
                             "another machine)");
  return Error::success();
}

} // namespace

Expected<std::string> codeObjectProcessor(MemoryBufferRef Code) {
  if (Error E = checkCodeObject(Code))
    return std::move(E);
  const auto *H =
      reinterpret_cast<const ELF::Elf64_Ehdr *>(Code.getBufferStart());
  switch (H->e_flags & ELF::EF_AMDGPU_MACH) {
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX90A:
    return std::string("gfx90a");
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX942:
    return std::string("gfx942");
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX908:
    return std::string("gfx908");
  }
  return std::string();
}

Expected<RunResult> runProgram(MemoryBufferRef CodeObject,
                               const RunOptions &Options, RunStats *Stats) {
  if (Error E = checkCodeObject(CodeObject))
    return std::move(E);
  for (int I = 0; I < 3; ++I)
    if (!Options.Threads[I] || !Options.Blocks[I] || Options.Threads[I] > 1024)
      return createStringError(inconvertibleErrorCode(),
                               "threads per block must be 1 to 1024 and "
                               "blocks at least 1 in every dimension");
  if (uint64_t(Options.Threads[0]) * Options.Threads[1] * Options.Threads[2] >
      1024)
    return createStringError(inconvertibleErrorCode(),
                             "a block holds at most 1024 threads");

  HsaScope Hsa;
  LOOM_HSA_TRY(hsa_init(), "initialising the HSA runtime (hsa_init)");
  Hsa.Live = true;
  Session S;
  uint8_t AbiVersion = uint8_t(CodeObject.getBufferStart()[ELF::EI_ABIVERSION]);
  S.CodeObjectVersion = AbiVersion >= ELF::ELFABIVERSION_AMDGPU_HSA_V5 ? 5 : 4;
  if (Error E = S.findAgentsAndPools())
    return std::move(E);
  if (Error E = S.load(CodeObject))
    return std::move(E);

  uint32_t KS[3] = {}, PS[3] = {}, GS[3] = {};
  uint64_t Objects[3];
  const char *Names[3] = {"_begin", "_start", "_end"};
  for (int I = 0; I < 3; ++I) {
    auto O = S.kernel(Names[I], KS[I], PS[I], GS[I]);
    if (!O)
      return O.takeError();
    Objects[I] = *O;
  }
  if (!Objects[1])
    return createStringError(inconvertibleErrorCode(),
                             "the code object has no _start kernel (build "
                             "GPU programs with 'loom cc')");

  // The RPC buffer and the arguments, in memory both sides reach.
  auto RpcOr = S.allocate(S.Fine, sizeof(loom_rpc_buffer), "the RPC buffer");
  if (!RpcOr)
    return RpcOr.takeError();
  auto *Rpc = static_cast<loom_rpc_buffer *>(*RpcOr);
  Rpc->magic = LOOM_RPC_MAGIC;
  Rpc->version = LOOM_RPC_VERSION;
  Rpc->port_count = LOOM_RPC_PORTS;

  auto Strings = [&](const std::vector<std::string> &V,
                     const char *What) -> Expected<uint64_t> {
    size_t Bytes = (V.size() + 1) * sizeof(uint64_t);
    for (const std::string &Str : V)
      Bytes += Str.size() + 1;
    auto P = S.allocate(S.Fine, Bytes, What);
    if (!P)
      return P.takeError();
    auto *Table = static_cast<uint64_t *>(*P);
    char *Text = reinterpret_cast<char *>(Table + V.size() + 1);
    for (size_t I = 0; I < V.size(); ++I) {
      Table[I] = reinterpret_cast<uint64_t>(Text);
      std::memcpy(Text, V[I].c_str(), V[I].size() + 1);
      Text += V[I].size() + 1;
    }
    return reinterpret_cast<uint64_t>(Table);
  };
  auto Argv = Strings(Options.Args, "argv");
  if (!Argv)
    return Argv.takeError();
  auto Envp = Strings(Options.Env, "envp");
  if (!Envp)
    return Envp.takeError();
  auto StartOr =
      S.allocate(S.Fine, sizeof(loom_start_args) + 8, "the start arguments");
  if (!StartOr)
    return StartOr.takeError();
  auto *Start = static_cast<loom_start_args *>(*StartOr);
  int32_t *MainResult = reinterpret_cast<int32_t *>(Start + 1);
  Start->rpc = reinterpret_cast<uint64_t>(Rpc);
  Start->argc = Options.Args.size();
  Start->argv = *Argv;
  Start->envp = *Envp;
  Start->result = reinterpret_cast<uint64_t>(MainResult);

  LOOM_HSA_TRY(hsa_signal_create(1, 0, nullptr, &S.Done),
               "creating the completion signal");
  LOOM_HSA_TRY(
      hsa_queue_create(
          S.Gpu, 64, HSA_QUEUE_TYPE_MULTI,
          [](hsa_status_t Status, hsa_queue_t *, void *Data) {
            hsa_status_t Expected = HSA_STATUS_SUCCESS;
            static_cast<Session *>(Data)->QueueError.compare_exchange_strong(
                Expected, Status);
          },
          &S, UINT32_MAX, UINT32_MAX, &S.Queue),
      "creating the queue");

  // malloc/free from chunks of the GPU's memory; blocks the program never
  // freed go with the heap.
  hsa_amd_memory_pool_t DeviceMem = S.DeviceMem;
  hsa_agent_t Gpu = S.Gpu;
  DeviceHeap Heap(
      [&](uint64_t Size) -> void * {
        void *P = nullptr;
        if (hsa_amd_memory_pool_allocate(DeviceMem, Size, 0, &P) !=
            HSA_STATUS_SUCCESS)
          return nullptr;
        if (hsa_amd_agents_allow_access(1, &Gpu, nullptr, P) !=
            HSA_STATUS_SUCCESS) {
          hsa_amd_memory_pool_free(P);
          return nullptr;
        }
        return P;
      },
      [](void *P) { hsa_amd_memory_pool_free(P); });
  HostServices Services({Options.In, Options.Out, Options.Err,
                         [&](uint64_t Size) { return Heap.allocate(Size); },
                         [&](void *P) { Heap.free(P); }});
  RpcServer Server(*Rpc, [&](uint32_t Op, ArrayRef<LaneRequest> Req,
                             std::vector<LaneReply> &Rep) {
    Services.handle(Op, Req, Rep);
  });
  Server.start();

  Launcher L{
      S, Services,
      std::chrono::steady_clock::now() +
          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
              std::chrono::duration<double>(Options.TimeoutSeconds)),
      Options.TimeoutSeconds > 0};
  const uint32_t One[3] = {1, 1, 1};
  RunResult Result;
  Ending End = Ending::Completed;
  uint64_t StartArg = reinterpret_cast<uint64_t>(Start);
  for (int I = 0; I < 3 && End == Ending::Completed; ++I) {
    // exit() from a wave whose dispatch then completed still ends the run.
    if (Services.endRequested()) {
      End = Ending::EndRequested;
      break;
    }
    if (!Objects[I])
      continue;
    bool Main = I == 1;
    auto E = L.launch(Names[I], Objects[I], KS[I], PS[I], GS[I],
                      Main ? Options.Threads : One, Main ? Options.Blocks : One,
                      StartArg);
    if (!E) {
      Server.stop();
      return E.takeError();
    }
    End = *E;
  }
  // A dispatch still running is stopped with its queue, before the server.
  hsa_queue_destroy(S.Queue);
  S.Queue = nullptr;
  Server.stop();
  if (End == Ending::Completed && Services.endRequested())
    End = Ending::EndRequested;
  std::fflush(Options.Out);
  std::fflush(Options.Err);

  switch (End) {
  case Ending::Completed:
    Result.ExitCode = __atomic_load_n(MainResult, __ATOMIC_ACQUIRE);
    break;
  case Ending::EndRequested: {
    EndRequest R = Services.end();
    Result.Kind =
        R.Kind == EndRequest::Abort ? RunResult::Aborted : RunResult::Exited;
    Result.ExitCode = R.Status;
    Result.Message = R.Message;
    break;
  }
  case Ending::QueueError: {
    const char *Msg = nullptr;
    hsa_status_t St = S.QueueError.load();
    if (hsa_status_string(St, &Msg) != HSA_STATUS_SUCCESS || !Msg)
      Msg = "unknown status";
    Result.Kind = RunResult::Faulted;
    Result.Message = std::string("the GPU stopped the program: ") + Msg;
    break;
  }
  case Ending::TimedOut:
    Result.Kind = RunResult::TimedOut;
    raw_string_ostream(Result.Message)
        << "the program did not end within "
        << format("%g", Options.TimeoutSeconds) << " s; stopped";
    break;
  }
  if (Stats) {
    Stats->Calls = Server.calls();
    Stats->Rounds = Server.rounds();
    Stats->LaneCalls = Server.laneCalls();
  }
  return Result;
}

} // namespace loom::run
