//===- hsa/LoaderApi.cpp - The loader's C ABI -------------------------------===//
//
// hsa_code_object_reader_*, hsa_executable_*, hsa_executable_symbol_*, the
// deprecated hsa_code_object_* entry points, and the AMD loader extension
// (hsa_ven_amd_loader_*), over the C++ loader in runtime/loader (see
// docs/loader.md). Handles are object addresses, as in ROCr, and every one is
// checked against the loader's Registry before use. Callbacks run outside
// every loader lock, so they may call back into the loader.
//
//===----------------------------------------------------------------------===//

#include "ApiTable.h"

#include "loom/emu/Device.h"
#include "loom/runtime/Runtime.h"
#include "loom/runtime/loader/Executable.h"
#include "loom/runtime/loader/LoaderError.h"
#include "loom/runtime/loader/Registry.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>

using namespace loom;
using namespace loom::loader;

namespace loom::hsa::impl {

namespace {

hsa_status_t statusOf(LoaderErrc C) {
  switch (C) {
  case LoaderErrc::InvalidArgument:
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  case LoaderErrc::InvalidCodeObject:
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  case LoaderErrc::InvalidCodeObjectReader:
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER;
  case LoaderErrc::InvalidFile:
    return HSA_STATUS_ERROR_INVALID_FILE;
  case LoaderErrc::IncompatibleIsa:
    return HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS;
  case LoaderErrc::InvalidAgent:
    return HSA_STATUS_ERROR_INVALID_AGENT;
  case LoaderErrc::InvalidExecutable:
    return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  case LoaderErrc::FrozenExecutable:
    return HSA_STATUS_ERROR_FROZEN_EXECUTABLE;
  case LoaderErrc::VariableAlreadyDefined:
    return HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED;
  case LoaderErrc::VariableUndefined:
    return HSA_STATUS_ERROR_VARIABLE_UNDEFINED;
  case LoaderErrc::InvalidSymbolName:
    return HSA_STATUS_ERROR_INVALID_SYMBOL_NAME;
  case LoaderErrc::OutOfResources:
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  case LoaderErrc::Failure:
    return HSA_STATUS_ERROR;
  }
  return HSA_STATUS_ERROR;
}

/// The status of a loader failure. The message (what failed, which
/// symbols) goes to stderr when LOOM_LOADER_LOG is set: the C ABI has no
/// other way to carry it.
hsa_status_t fail(llvm::Error E) {
  auto [Code, Message] = takeLoaderError(std::move(E));
  static const bool Log = std::getenv("LOOM_LOADER_LOG") != nullptr;
  if (Log)
    llvm::errs() << "loom loader: " << Message << "\n";
  return statusOf(Code);
}

Executable *executableOf(hsa_executable_t E) {
  auto *P = reinterpret_cast<Executable *>(E.handle);
  return E.handle && Registry::instance().isExecutable(P) ? P : nullptr;
}

const Symbol *symbolOf(hsa_executable_symbol_t S) {
  auto *P = reinterpret_cast<const Symbol *>(S.handle);
  return S.handle && Registry::instance().isSymbol(P) ? P : nullptr;
}

const LoadedCodeObject *loadedOf(hsa_loaded_code_object_t L) {
  auto *P = reinterpret_cast<const LoadedCodeObject *>(L.handle);
  return L.handle && Registry::instance().isLoadedCodeObject(P) ? P : nullptr;
}

CodeObjectReader *readerOf(hsa_code_object_reader_t R) {
  auto *P = reinterpret_cast<CodeObjectReader *>(R.handle);
  return R.handle && Registry::instance().isReader(P) ? P : nullptr;
}

/// The loader's view of a GPU agent; none for CPU agents and bad handles.
std::optional<LoaderAgent> agentOf(uint64_t Handle) {
  emu::Device *D = runtime::deviceOfAgent(Handle);
  if (!D)
    return std::nullopt;
  return LoaderAgent::forDevice(*D, Handle);
}

hsa_executable_t handleOf(const Executable *E) {
  return {reinterpret_cast<uint64_t>(E)};
}
hsa_executable_symbol_t handleOf(const Symbol *S) {
  return {reinterpret_cast<uint64_t>(S)};
}
hsa_loaded_code_object_t handleOf(const LoadedCodeObject *L) {
  return {reinterpret_cast<uint64_t>(L)};
}

template <typename T> void put(void *Value, T V) {
  std::memcpy(Value, &V, sizeof(T));
}

/// What the program created through the C API and has not destroyed, for
/// shutDownLoader().
std::mutex OwnedLock;
std::set<loader::Executable *> &cExecutables() {
  static auto *S = new std::set<loader::Executable *>();
  return *S;
}
std::set<CodeObjectReader *> &cReaders() {
  static auto *S = new std::set<CodeObjectReader *>();
  return *S;
}

hsa_status_t newReader(llvm::Expected<std::unique_ptr<CodeObjectReader>> R,
                       hsa_code_object_reader_t *Out) {
  if (!R)
    return fail(R.takeError());
  CodeObjectReader *P = R->release();
  Registry::instance().addReader(P);
  {
    std::lock_guard<std::mutex> G(OwnedLock);
    cReaders().insert(P);
  }
  Out->handle = reinterpret_cast<uint64_t>(P);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t createExecutable(hsa_profile_t Prof,
                              hsa_default_float_rounding_mode_t Mode,
                              hsa_executable_t *Out) {
  if (!Out || (Prof != HSA_PROFILE_BASE && Prof != HSA_PROFILE_FULL) ||
      uint32_t(Mode) > HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  std::unique_ptr<Executable> E =
      Executable::create(Profile(Prof), FloatRoundingMode(Mode));
  std::lock_guard<std::mutex> G(OwnedLock);
  cExecutables().insert(E.get());
  *Out = handleOf(E.release());
  return HSA_STATUS_SUCCESS;
}

hsa_status_t loadedResult(llvm::Expected<const LoadedCodeObject &> L,
                          hsa_loaded_code_object_t *Out) {
  if (!L)
    return fail(L.takeError());
  if (Out)
    *Out = handleOf(&*L);
  return HSA_STATUS_SUCCESS;
}

/// The agent program code objects run on: the first GPU agent.
std::optional<LoaderAgent> programAgent() {
  std::vector<uint64_t> Gpus = runtime::gpuAgents();
  if (Gpus.empty())
    return std::nullopt;
  return agentOf(Gpus.front());
}

template <typename Callback>
hsa_status_t eachSymbol(const std::vector<const Symbol *> &Symbols,
                        Callback &&CB) {
  for (const Symbol *S : Symbols)
    if (hsa_status_t St = CB(S); St != HSA_STATUS_SUCCESS)
      return St;
  return HSA_STATUS_SUCCESS;
}

/// Legacy hsa_code_object_t handles (hsa_code_object_deserialize): readers
/// the program owns through the deprecated API.
std::mutex LegacyLock;
std::set<uint64_t> &legacyCodeObjects() {
  static std::set<uint64_t> *S = new std::set<uint64_t>();
  return *S;
}
CodeObjectReader *legacyOf(hsa_code_object_t C) {
  std::lock_guard<std::mutex> G(LegacyLock);
  return legacyCodeObjects().count(C.handle)
             ? reinterpret_cast<CodeObjectReader *>(C.handle)
             : nullptr;
}

} // namespace

/// Destroys every executable, reader and code object the program created
/// through the C API and did not destroy: their images live in device
/// memory, so they must go before the devices do. hsa_shut_down of the
/// last reference calls it (declare it there; it is not part of the ABI).
void shutDownLoader() {
  std::set<loader::Executable *> Executables;
  std::set<CodeObjectReader *> Readers;
  std::set<uint64_t> Legacy;
  {
    std::lock_guard<std::mutex> G(OwnedLock);
    Executables.swap(cExecutables());
    Readers.swap(cReaders());
  }
  {
    std::lock_guard<std::mutex> G(LegacyLock);
    Legacy.swap(legacyCodeObjects());
  }
  for (loader::Executable *E : Executables)
    delete E;
  for (CodeObjectReader *R : Readers) {
    Registry::instance().removeReader(R);
    delete R;
  }
  for (uint64_t H : Legacy)
    delete reinterpret_cast<CodeObjectReader *>(H);
}

//===----------------------------------------------------------------------===//
// Code object readers
//===----------------------------------------------------------------------===//

hsa_status_t
hsa_code_object_reader_create_from_file(hsa_file_t File,
                                        hsa_code_object_reader_t *Reader) {
  LOOM_HSA_STATE(State);
  if (!Reader)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return newReader(CodeObjectReader::fromFile(File), Reader);
}

hsa_status_t hsa_ven_amd_loader_code_object_reader_create_from_file_with_offset_size(
    hsa_file_t File, size_t Offset, size_t Size,
    hsa_code_object_reader_t *Reader) {
  LOOM_HSA_STATE(State);
  if (!Reader || Size == 0)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return newReader(CodeObjectReader::fromFile(File, Offset, Size), Reader);
}

hsa_status_t
hsa_code_object_reader_create_from_memory(const void *CodeObject, size_t Size,
                                          hsa_code_object_reader_t *Reader) {
  LOOM_HSA_STATE(State);
  if (!Reader)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return newReader(CodeObjectReader::fromMemory(CodeObject, Size), Reader);
}

hsa_status_t hsa_code_object_reader_destroy(hsa_code_object_reader_t Reader) {
  LOOM_HSA_STATE(State);
  CodeObjectReader *R = readerOf(Reader);
  if (!R)
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER;
  Registry::instance().removeReader(R);
  {
    std::lock_guard<std::mutex> G(OwnedLock);
    cReaders().erase(R);
  }
  delete R;
  return HSA_STATUS_SUCCESS;
}

//===----------------------------------------------------------------------===//
// Executables
//===----------------------------------------------------------------------===//

hsa_status_t hsa_executable_create(hsa_profile_t Prof,
                                   hsa_executable_state_t ExecState,
                                   const char *Options,
                                   hsa_executable_t *Executable) {
  LOOM_HSA_STATE(State);
  // A new executable is unfrozen whatever was asked, as in ROCr.
  return createExecutable(Prof, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                          Executable);
}

hsa_status_t
hsa_executable_create_alt(hsa_profile_t Prof,
                          hsa_default_float_rounding_mode_t Mode,
                          const char *Options, hsa_executable_t *Executable) {
  LOOM_HSA_STATE(State);
  return createExecutable(Prof, Mode, Executable);
}

hsa_status_t hsa_executable_destroy(hsa_executable_t Executable) {
  LOOM_HSA_STATE(State);
  loader::Executable *E = executableOf(Executable);
  if (!E)
    return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  {
    std::lock_guard<std::mutex> G(OwnedLock);
    cExecutables().erase(E);
  }
  delete E;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_executable_load_agent_code_object(
    hsa_executable_t Executable, hsa_agent_t Agent,
    hsa_code_object_reader_t Reader, const char *Options,
    hsa_loaded_code_object_t *Loaded) {
  LOOM_HSA_STATE(State);
  loader::Executable *E = executableOf(Executable);
  if (!E)
    return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  CodeObjectReader *R = readerOf(Reader);
  if (!R)
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER;
  std::optional<LoaderAgent> A = agentOf(Agent.handle);
  if (!A)
    return HSA_STATUS_ERROR_INVALID_AGENT;
  return loadedResult(E->loadAgentCodeObject(*A, *R), Loaded);
}

hsa_status_t hsa_executable_load_program_code_object(
    hsa_executable_t Executable, hsa_code_object_reader_t Reader,
    const char *Options, hsa_loaded_code_object_t *Loaded) {
  LOOM_HSA_STATE(State);
  loader::Executable *E = executableOf(Executable);
  if (!E)
    return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  CodeObjectReader *R = readerOf(Reader);
  if (!R)
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER;
  std::optional<LoaderAgent> A = programAgent();
  if (!A)
    return HSA_STATUS_ERROR_INVALID_AGENT;
  return loadedResult(E->loadProgramCodeObject(*A, *R), Loaded);
}

hsa_status_t hsa_executable_global_variable_define(hsa_executable_t Executable,
                                                   const char *Name,
                                                   void *Address) {
  LOOM_HSA_STATE(State);
  loader::Executable *E = executableOf(Executable);
  if (!E)
    return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (!Name)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (llvm::Error Err =
          E->defineProgramVariable(Name, reinterpret_cast<uint64_t>(Address)))
    return fail(std::move(Err));
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t defineAgentVariable(hsa_executable_t Executable,
                                        hsa_agent_t Agent, const char *Name,
                                        void *Address,
                                        VariableSegment Segment) {
  loader::Executable *E = executableOf(Executable);
  if (!E)
    return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  std::optional<LoaderAgent> A = agentOf(Agent.handle);
  if (!A)
    return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!Name)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (llvm::Error Err = E->defineAgentVariable(
          Name, *A, Segment, reinterpret_cast<uint64_t>(Address)))
    return fail(std::move(Err));
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_executable_agent_global_variable_define(
    hsa_executable_t Executable, hsa_agent_t Agent, const char *Name,
    void *Address) {
  LOOM_HSA_STATE(State);
  return defineAgentVariable(Executable, Agent, Name, Address,
                             VariableSegment::Global);
}

hsa_status_t hsa_executable_readonly_variable_define(
    hsa_executable_t Executable, hsa_agent_t Agent, const char *Name,
    void *Address) {
  LOOM_HSA_STATE(State);
  return defineAgentVariable(Executable, Agent, Name, Address,
                             VariableSegment::Readonly);
}

hsa_status_t hsa_executable_freeze(hsa_executable_t Executable,
                                   const char *Options) {
  LOOM_HSA_STATE(State);
  loader::Executable *E = executableOf(Executable);
  if (!E)
    return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (llvm::Error Err = E->freeze())
    return fail(std::move(Err));
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_executable_validate_alt(hsa_executable_t Executable,
                                         const char *Options,
                                         uint32_t *Result) {
  LOOM_HSA_STATE(State);
  loader::Executable *E = executableOf(Executable);
  if (!E)
    return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (!Result)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  llvm::Error Err = E->validate();
  // 0 means valid; otherwise the status freezing would give.
  *Result = Err ? uint32_t(fail(std::move(Err))) : 0;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_executable_validate(hsa_executable_t Executable,
                                     uint32_t *Result) {
  return impl::hsa_executable_validate_alt(Executable, nullptr, Result);
}

hsa_status_t hsa_executable_get_info(hsa_executable_t Executable,
                                     hsa_executable_info_t Attribute,
                                     void *Value) {
  LOOM_HSA_STATE(State);
  loader::Executable *E = executableOf(Executable);
  if (!E)
    return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (!Value)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  switch (Attribute) {
  case HSA_EXECUTABLE_INFO_PROFILE:
    put(Value, hsa_profile_t(E->profile()));
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_INFO_STATE:
    put(Value, hsa_executable_state_t(E->state()));
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_INFO_DEFAULT_FLOAT_ROUNDING_MODE:
    put(Value, hsa_default_float_rounding_mode_t(E->defaultFloatRoundingMode()));
    return HSA_STATUS_SUCCESS;
  }
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

//===----------------------------------------------------------------------===//
// Symbols
//===----------------------------------------------------------------------===//

hsa_status_t hsa_executable_get_symbol_by_name(hsa_executable_t Executable,
                                               const char *Name,
                                               const hsa_agent_t *Agent,
                                               hsa_executable_symbol_t *Symbol) {
  LOOM_HSA_STATE(State);
  loader::Executable *E = executableOf(Executable);
  if (!E)
    return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (!Name || !Symbol)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  std::optional<uint64_t> A;
  if (Agent) {
    if (!runtime::isAgent(Agent->handle))
      return HSA_STATUS_ERROR_INVALID_AGENT;
    A = Agent->handle;
  }
  const loader::Symbol *S = E->findSymbol(Name, A);
  if (!S)
    return HSA_STATUS_ERROR_INVALID_SYMBOL_NAME;
  *Symbol = handleOf(S);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_executable_get_symbol(hsa_executable_t Executable,
                                       const char *ModuleName,
                                       const char *Name, hsa_agent_t Agent,
                                       int32_t CallConvention,
                                       hsa_executable_symbol_t *Symbol) {
  // Module linkage names are not qualified in Loom's namespace (see
  // docs/loader.md): the module name only matters for HSAIL programs.
  return impl::hsa_executable_get_symbol_by_name(Executable, Name,
                                           Agent.handle ? &Agent : nullptr,
                                           Symbol);
}

hsa_status_t hsa_executable_symbol_get_info(hsa_executable_symbol_t Handle,
                                            hsa_executable_symbol_info_t Attribute,
                                            void *Value) {
  LOOM_HSA_STATE(State);
  const loader::Symbol *S = symbolOf(Handle);
  if (!S)
    return HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL;
  if (!Value)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  bool IsKernel = S->Kind == SymbolKind::Kernel;
  bool IsVariable = S->Kind == SymbolKind::Variable;
  bool IsFunction = S->Kind == SymbolKind::IndirectFunction;
  switch (Attribute) {
  case HSA_EXECUTABLE_SYMBOL_INFO_TYPE:
    put(Value, hsa_symbol_kind_t(S->Kind));
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH:
    put(Value, uint32_t(S->Name.size()));
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_NAME:
    // Exactly NAME_LENGTH characters, no terminator, as HSA specifies.
    std::memcpy(Value, S->Name.data(), S->Name.size());
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_MODULE_NAME_LENGTH:
    put(Value, uint32_t(S->ModuleName.size()));
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_MODULE_NAME:
    std::memcpy(Value, S->ModuleName.data(), S->ModuleName.size());
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_AGENT:
    put(Value, hsa_agent_t{S->Agent.value_or(0)});
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS:
  case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT:
    // ROCr answers the address for any kind; so does Loom.
    put(Value, uint64_t(S->Address));
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_LINKAGE:
    put(Value, hsa_symbol_linkage_t(S->Linkage));
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_IS_DEFINITION:
    put(Value, bool(S->IsDefinition));
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_CALL_CONVENTION:
  case HSA_EXECUTABLE_SYMBOL_INFO_INDIRECT_FUNCTION_CALL_CONVENTION:
    put(Value, uint32_t(0));
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ALLOCATION:
    if (!IsVariable)
      break;
    put(Value, hsa_variable_allocation_t(S->Allocation));
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SEGMENT:
    if (!IsVariable)
      break;
    put(Value, hsa_variable_segment_t(S->Segment));
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ALIGNMENT:
    if (!IsVariable)
      break;
    put(Value, uint32_t(S->Alignment));
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE:
    if (!IsVariable)
      break;
    put(Value, uint32_t(S->Size));
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_IS_CONST:
    if (!IsVariable)
      break;
    put(Value, bool(S->IsConst));
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE:
    if (!IsKernel)
      break;
    put(Value, uint32_t(S->KernargSegmentSize));
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT:
    if (!IsKernel)
      break;
    put(Value, uint32_t(S->KernargSegmentAlignment));
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE:
    if (!IsKernel)
      break;
    put(Value, uint32_t(S->GroupSegmentSize));
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE:
    if (!IsKernel)
      break;
    put(Value, uint32_t(S->PrivateSegmentSize));
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_DYNAMIC_CALLSTACK:
    if (!IsKernel)
      break;
    put(Value, bool(S->DynamicCallStack));
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_INDIRECT_FUNCTION_OBJECT:
    if (!IsFunction)
      break;
    put(Value, uint64_t(S->Address));
    return HSA_STATUS_SUCCESS;
  }
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

hsa_status_t hsa_executable_iterate_symbols(
    hsa_executable_t Executable,
    hsa_status_t (*Callback)(hsa_executable_t, hsa_executable_symbol_t, void *),
    void *Data) {
  LOOM_HSA_STATE(State);
  loader::Executable *E = executableOf(Executable);
  if (!E)
    return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (!Callback)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return eachSymbol(E->symbols(), [&](const loader::Symbol *S) {
    return Callback(Executable, handleOf(S), Data);
  });
}

hsa_status_t hsa_executable_iterate_agent_symbols(
    hsa_executable_t Executable, hsa_agent_t Agent,
    hsa_status_t (*Callback)(hsa_executable_t, hsa_agent_t,
                             hsa_executable_symbol_t, void *),
    void *Data) {
  LOOM_HSA_STATE(State);
  loader::Executable *E = executableOf(Executable);
  if (!E)
    return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (!runtime::isAgent(Agent.handle))
    return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!Callback)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return eachSymbol(E->agentSymbols(Agent.handle),
                    [&](const loader::Symbol *S) {
                      return Callback(Executable, Agent, handleOf(S), Data);
                    });
}

hsa_status_t hsa_executable_iterate_program_symbols(
    hsa_executable_t Executable,
    hsa_status_t (*Callback)(hsa_executable_t, hsa_executable_symbol_t, void *),
    void *Data) {
  LOOM_HSA_STATE(State);
  loader::Executable *E = executableOf(Executable);
  if (!E)
    return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (!Callback)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return eachSymbol(E->programSymbols(), [&](const loader::Symbol *S) {
    return Callback(Executable, handleOf(S), Data);
  });
}

//===----------------------------------------------------------------------===//
// Deprecated code objects (HSA 1.0): a deserialized code object is a reader
//===----------------------------------------------------------------------===//

hsa_status_t hsa_code_object_deserialize(void *Serialized, size_t Size,
                                         const char *Options,
                                         hsa_code_object_t *CodeObject) {
  LOOM_HSA_STATE(State);
  if (!Serialized || !Size || !CodeObject)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  auto R = CodeObjectReader::fromMemory(Serialized, Size);
  if (!R)
    return fail(R.takeError());
  if (llvm::Error Err = (*R)->check())
    return fail(std::move(Err));
  CodeObjectReader *P = R->release();
  std::lock_guard<std::mutex> G(LegacyLock);
  legacyCodeObjects().insert(reinterpret_cast<uint64_t>(P));
  CodeObject->handle = reinterpret_cast<uint64_t>(P);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_code_object_serialize(
    hsa_code_object_t CodeObject,
    hsa_status_t (*Alloc)(size_t, hsa_callback_data_t, void **),
    hsa_callback_data_t CallbackData, const char *Options, void **Serialized,
    size_t *SerializedSize) {
  LOOM_HSA_STATE(State);
  CodeObjectReader *R = legacyOf(CodeObject);
  if (!R)
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  if (!Alloc || !Serialized || !SerializedSize)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  void *Buffer = nullptr;
  if (hsa_status_t St = Alloc(R->size(), CallbackData, &Buffer);
      St != HSA_STATUS_SUCCESS)
    return St;
  if (!Buffer)
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  std::memcpy(Buffer, R->bytes().data(), R->size());
  *Serialized = Buffer;
  *SerializedSize = R->size();
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_code_object_destroy(hsa_code_object_t CodeObject) {
  LOOM_HSA_STATE(State);
  CodeObjectReader *R = legacyOf(CodeObject);
  if (!R)
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  {
    std::lock_guard<std::mutex> G(LegacyLock);
    legacyCodeObjects().erase(CodeObject.handle);
  }
  delete R;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_code_object_get_info(hsa_code_object_t CodeObject,
                                      hsa_code_object_info_t Attribute,
                                      void *Value) {
  LOOM_HSA_STATE(State);
  CodeObjectReader *R = legacyOf(CodeObject);
  if (!R)
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  if (!Value)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  const codeobj::CodeObject &CO = *R->entries().front().Object;
  switch (Attribute) {
  case HSA_CODE_OBJECT_INFO_VERSION: {
    // A character array of 64, as ROCr fills it: "major.minor".
    char Version[64] = {};
    std::snprintf(Version, sizeof(Version), "%u.0", CO.abiVersion() - 2);
    std::memcpy(Value, Version, sizeof(Version));
    return HSA_STATUS_SUCCESS;
  }
  case HSA_CODE_OBJECT_INFO_TYPE:
    put(Value, HSA_CODE_OBJECT_TYPE_PROGRAM);
    return HSA_STATUS_SUCCESS;
  case HSA_CODE_OBJECT_INFO_MACHINE_MODEL:
    put(Value, HSA_MACHINE_MODEL_LARGE);
    return HSA_STATUS_SUCCESS;
  case HSA_CODE_OBJECT_INFO_PROFILE:
    put(Value, HSA_PROFILE_BASE);
    return HSA_STATUS_SUCCESS;
  case HSA_CODE_OBJECT_INFO_DEFAULT_FLOAT_ROUNDING_MODE:
    put(Value, HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR);
    return HSA_STATUS_SUCCESS;
  case HSA_CODE_OBJECT_INFO_ISA:
    // ISA handles belong to the runtime core, which exposes no lookup by
    // name to the loader yet.
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

hsa_status_t hsa_executable_load_code_object(hsa_executable_t Executable,
                                             hsa_agent_t Agent,
                                             hsa_code_object_t CodeObject,
                                             const char *Options) {
  LOOM_HSA_STATE(State);
  loader::Executable *E = executableOf(Executable);
  if (!E)
    return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  CodeObjectReader *R = legacyOf(CodeObject);
  if (!R)
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  std::optional<LoaderAgent> A =
      Agent.handle ? agentOf(Agent.handle) : programAgent();
  if (!A)
    return HSA_STATUS_ERROR_INVALID_AGENT;
  return loadedResult(Agent.handle ? E->loadAgentCodeObject(*A, *R)
                                   : E->loadProgramCodeObject(*A, *R),
                      nullptr);
}

// Code symbols of an unloaded code object exist for HSAIL finalization,
// which Loom does not offer: a valid code object answers HSA_STATUS_ERROR
// (as an unimplemented function), a bad handle the documented status.
hsa_status_t hsa_code_object_get_symbol(hsa_code_object_t CodeObject,
                                        const char *Name,
                                        hsa_code_symbol_t *Symbol) {
  LOOM_HSA_STATE(State);
  if (!legacyOf(CodeObject))
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  if (!Name || !Symbol)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return HSA_STATUS_ERROR;
}

hsa_status_t hsa_code_object_get_symbol_from_name(hsa_code_object_t CodeObject,
                                                  const char *ModuleName,
                                                  const char *Name,
                                                  hsa_code_symbol_t *Symbol) {
  return impl::hsa_code_object_get_symbol(CodeObject, Name, Symbol);
}

hsa_status_t hsa_code_object_iterate_symbols(
    hsa_code_object_t CodeObject,
    hsa_status_t (*Callback)(hsa_code_object_t, hsa_code_symbol_t, void *),
    void *Data) {
  LOOM_HSA_STATE(State);
  if (!legacyOf(CodeObject))
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  if (!Callback)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return HSA_STATUS_ERROR;
}

hsa_status_t hsa_code_symbol_get_info(hsa_code_symbol_t Symbol,
                                      hsa_code_symbol_info_t Attribute,
                                      void *Value) {
  LOOM_HSA_STATE(State);
  // No code symbol is ever handed out.
  return HSA_STATUS_ERROR_INVALID_CODE_SYMBOL;
}

//===----------------------------------------------------------------------===//
// The AMD loader extension
//===----------------------------------------------------------------------===//

hsa_status_t hsa_ven_amd_loader_query_host_address(const void *DeviceAddress,
                                                   const void **HostAddress) {
  LOOM_HSA_STATE(State);
  if (!DeviceAddress || !HostAddress)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  std::optional<uint64_t> H = Registry::instance().hostAddress(
      reinterpret_cast<uint64_t>(DeviceAddress));
  if (!H)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *HostAddress = reinterpret_cast<const void *>(*H);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_ven_amd_loader_query_segment_descriptors(
    hsa_ven_amd_loader_segment_descriptor_t *Descriptors, size_t *Count) {
  LOOM_HSA_STATE(State);
  // ROCr's protocol: ask with 0 for the count, then with exactly that many.
  if (!Count || (*Count == 0 && Descriptors) || (*Count != 0 && !Descriptors))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  std::vector<SegmentDescriptor> All = Registry::instance().segmentDescriptors();
  if (*Count == 0) {
    *Count = All.size();
    return HSA_STATUS_SUCCESS;
  }
  if (*Count != All.size())
    return HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS;
  for (size_t I = 0; I < All.size(); ++I) {
    const SegmentDescriptor &D = All[I];
    hsa_ven_amd_loader_segment_descriptor_t &Out = Descriptors[I];
    Out.agent = {D.Agent.value_or(0)};
    Out.executable = handleOf(D.Exec);
    Out.code_object_storage_type = HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_MEMORY;
    Out.code_object_storage_base = D.StorageBase;
    Out.code_object_storage_size = D.StorageSize;
    Out.code_object_storage_offset = D.StorageOffset;
    Out.segment_base = reinterpret_cast<const void *>(D.SegmentBase);
    Out.segment_size = D.SegmentSize;
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_ven_amd_loader_query_executable(const void *DeviceAddress,
                                                 hsa_executable_t *Executable) {
  LOOM_HSA_STATE(State);
  if (!DeviceAddress || !Executable)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  loader::Executable *E = Registry::instance().executableAt(
      reinterpret_cast<uint64_t>(DeviceAddress));
  if (!E)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *Executable = handleOf(E);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_ven_amd_loader_iterate_executables(
    hsa_status_t (*Callback)(hsa_executable_t, void *), void *Data) {
  LOOM_HSA_STATE(State);
  if (!Callback)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return visitEach(Registry::instance().executables(),
                   [&](loader::Executable *E) {
                     return Callback(handleOf(E), Data);
                   });
}

hsa_status_t hsa_ven_amd_loader_executable_iterate_loaded_code_objects(
    hsa_executable_t Executable,
    hsa_status_t (*Callback)(hsa_executable_t, hsa_loaded_code_object_t,
                             void *),
    void *Data) {
  LOOM_HSA_STATE(State);
  loader::Executable *E = executableOf(Executable);
  if (!E)
    return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (!Callback)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return visitEach(E->loadedCodeObjects(), [&](const LoadedCodeObject *L) {
    return Callback(Executable, handleOf(L), Data);
  });
}

hsa_status_t hsa_ven_amd_loader_loaded_code_object_get_info(
    hsa_loaded_code_object_t Handle,
    hsa_ven_amd_loader_loaded_code_object_info_t Attribute, void *Value) {
  LOOM_HSA_STATE(State);
  const LoadedCodeObject *L = loadedOf(Handle);
  if (!L)
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  if (!Value)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  bool File = L->storage() == ReaderStorage::File;
  switch (Attribute) {
  case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_EXECUTABLE:
    put(Value, handleOf(&L->executable()));
    return HSA_STATUS_SUCCESS;
  case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_KIND:
    put(Value, uint32_t(L->kind()));
    return HSA_STATUS_SUCCESS;
  case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_AGENT:
    put(Value, hsa_agent_t{L->agent().value_or(0)});
    return HSA_STATUS_SUCCESS;
  case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_TYPE:
    put(Value, uint32_t(File ? HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_FILE
                             : HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_MEMORY));
    return HSA_STATUS_SUCCESS;
  case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_MEMORY_BASE:
    put(Value, uint64_t(L->storageMemoryBase()));
    return HSA_STATUS_SUCCESS;
  case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_MEMORY_SIZE:
    put(Value, uint64_t(L->storageMemorySize()));
    return HSA_STATUS_SUCCESS;
  case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_FILE:
    if (!File)
      return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    put(Value, int(L->storageFile()));
    return HSA_STATUS_SUCCESS;
  case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_DELTA:
    put(Value, int64_t(L->loadDelta()));
    return HSA_STATUS_SUCCESS;
  case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_BASE:
    put(Value, uint64_t(L->loadBase()));
    return HSA_STATUS_SUCCESS;
  case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_SIZE:
    put(Value, uint64_t(L->loadSize()));
    return HSA_STATUS_SUCCESS;
  case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI_LENGTH:
    put(Value, uint32_t(L->uri().size()));
    return HSA_STATUS_SUCCESS;
  case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI: {
    std::string Uri = L->uri();
    std::memcpy(Value, Uri.c_str(), Uri.size() + 1);
    return HSA_STATUS_SUCCESS;
  }
  }
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

} // namespace loom::hsa::impl
