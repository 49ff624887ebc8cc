//===- tool/CodeObjects.cpp - The program's code objects and kernels ------===//

#include "CodeObjects.h"
#include "Hsa.h"

#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace loom::tool {

void CodeObjects::readerCreated(hsa_code_object_reader_t Reader,
                                ArrayRef<uint8_t> Bytes, std::string Name) {
  // Parsed now: the program may free its bytes once the reader exists.
  Source S;
  S.Name = std::move(Name);
  if (auto CO = codeobj::CodeObject::create(Bytes, S.Name))
    S.Code = std::move(*CO);
  else
    S.Error = toString(CO.takeError());
  std::lock_guard<std::mutex> L(Lock);
  Readers[Reader.handle] = std::move(S);
}

void CodeObjects::readerDestroyed(hsa_code_object_reader_t Reader) {
  std::lock_guard<std::mutex> L(Lock);
  Readers.erase(Reader.handle);
}

void CodeObjects::loaded(hsa_executable_t Exec, hsa_agent_t Agent,
                         hsa_code_object_reader_t Reader,
                         hsa_loaded_code_object_t Loaded) {
  std::lock_guard<std::mutex> L(Lock);
  auto It = Readers.find(Reader.handle);
  if (It != Readers.end())
    Loading[Exec.handle].push_back({Agent, Loaded, It->second});
}

/// Where the loader put \p Loaded, and its name.
static Error describe(hsa_loaded_code_object_t Loaded, LoadedCode &Out) {
  auto Info = hsa().Loader.hsa_ven_amd_loader_loaded_code_object_get_info;
  if (!Info)
    return createStringError(inconvertibleErrorCode(),
                             "the runtime has no hsa_ven_amd_loader 1.01 "
                             "extension (loaded code object addresses)");
  if (Error E = joinErrors(
          joinErrors(
              check(Info(Loaded,
                         HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_DELTA,
                         &Out.LoadDelta),
                    "hsa_ven_amd_loader_loaded_code_object_get_info(LOAD_"
                    "DELTA)"),
              check(Info(Loaded,
                         HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_BASE,
                         &Out.LoadBase),
                    "hsa_ven_amd_loader_loaded_code_object_get_info(LOAD_"
                    "BASE)")),
          check(Info(Loaded,
                     HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_SIZE,
                     &Out.LoadSize),
                "hsa_ven_amd_loader_loaded_code_object_get_info(LOAD_SIZE)")))
    return E;
  uint32_t Length = 0;
  if (Info(Loaded, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI_LENGTH,
           &Length) == HSA_STATUS_SUCCESS &&
      Length) {
    std::string Uri(Length + 1, '\0');
    if (Info(Loaded, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI,
             Uri.data()) == HSA_STATUS_SUCCESS) {
      Uri.resize(strnlen(Uri.c_str(), Uri.size()));
      Out.Uri = std::move(Uri);
    }
  }
  return Error::success();
}

std::vector<std::shared_ptr<LoadedCode>>
CodeObjects::frozen(hsa_executable_t Exec) {
  std::vector<Pending> List;
  {
    std::lock_guard<std::mutex> L(Lock);
    auto It = Loading.find(Exec.handle);
    if (It == Loading.end())
      return {};
    List = std::move(It->second);
    Loading.erase(It);
  }
  std::vector<std::shared_ptr<LoadedCode>> Codes;
  for (Pending &P : List) {
    if (!P.From.Code) {
      errs() << "loom-tool: cannot read code object " << P.From.Name << ": "
             << P.From.Error << " (its kernels run uninstrumented)\n";
      continue;
    }
    auto C = std::make_shared<LoadedCode>();
    C->Code = P.From.Code;
    C->Executable = Exec;
    C->Agent = P.Agent;
    if (Error E = describe(P.Loaded, *C)) {
      errs() << "loom-tool: " << P.From.Name << ": " << toString(std::move(E))
             << " (its kernels run uninstrumented)\n";
      continue;
    }
    if (C->Uri.empty())
      C->Uri = P.From.Name;
    Codes.push_back(std::move(C));
  }

  // Each kernel symbol belongs to the code object its descriptor lies in.
  std::map<uint64_t, std::shared_ptr<const KernelInfo>> Found;
  std::vector<hsa_agent_t> Agents;
  for (auto &C : Codes)
    if (llvm::none_of(
            Agents, [&](hsa_agent_t A) { return A.handle == C->Agent.handle; }))
      Agents.push_back(C->Agent);
  for (hsa_agent_t Agent : Agents) {
    Error E = forEachSymbol(
        Exec, Agent,
        [&](hsa_executable_symbol_t Sym, StringRef Name,
            hsa_symbol_kind_t Kind) -> Error {
          if (Kind != HSA_SYMBOL_KIND_KERNEL)
            return Error::success();
          uint64_t Object = 0;
          if (Error E = check(
                  hsa().Core.hsa_executable_symbol_get_info_fn(
                      Sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &Object),
                  "hsa_executable_symbol_get_info(KERNEL_OBJECT)"))
            return E;
          Name.consume_back(".kd"); // as ROCr names kernels
          for (auto &C : Codes)
            if (C->Agent.handle == Agent.handle && Object >= C->LoadBase &&
                Object < C->LoadBase + C->LoadSize && C->Code->findKernel(Name))
              Found[Object] =
                  std::make_shared<KernelInfo>(KernelInfo{Name.str(), C});
          return Error::success();
        });
    if (E)
      errs() << "loom-tool: listing the kernels of an executable: "
             << toString(std::move(E)) << " (they run uninstrumented)\n";
  }

  std::lock_guard<std::mutex> L(Lock);
  auto &Mine = KernelsOf[Exec.handle];
  for (auto &[Object, Info] : Found) {
    Kernels[Object] = std::move(Info);
    Mine.push_back(Object);
  }
  return Codes;
}

void CodeObjects::destroyed(hsa_executable_t Exec) {
  std::lock_guard<std::mutex> L(Lock);
  Loading.erase(Exec.handle);
  auto It = KernelsOf.find(Exec.handle);
  if (It == KernelsOf.end())
    return;
  for (uint64_t Object : It->second)
    Kernels.erase(Object);
  KernelsOf.erase(It);
}

std::shared_ptr<const KernelInfo>
CodeObjects::kernel(uint64_t KernelObject) const {
  std::lock_guard<std::mutex> L(Lock);
  auto It = Kernels.find(KernelObject);
  return It == Kernels.end() ? nullptr : It->second;
}

} // namespace loom::tool
