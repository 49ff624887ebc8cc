//===- tool/ToolHost.cpp - One loaded tool: its options, hooks and globals ===//

#include "ToolHost.h"
#include "Hsa.h"

#include "loom/instrument/LaunchHeader.h"
#include "loom/jit/Pipeline.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/MathExtras.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <dlfcn.h>

using namespace llvm;
using namespace loom::instrument;

namespace loom::tool {

ToolOptions ToolOptions::parse(StringRef Text,
                               function_ref<void(StringRef)> Warn) {
  ToolOptions O;
  SmallVector<StringRef, 8> Words;
  SplitString(Text, Words); // at any whitespace
  for (StringRef W : Words) {
    auto [Key, Value] = W.split('=');
    if (Key.empty() || Key.size() == W.size()) {
      Warn("LOOM_TOOL_ARGS: '" + W.str() +
           "' is not NAME=VALUE or TOOL:NAME=VALUE; ignored");
      continue;
    }
    auto [Tool, Name] =
        Key.contains(':') ? Key.split(':') : std::pair(StringRef(), Key);
    O.Values[Tool.str()][Name.str()] = Value.str();
  }
  return O;
}

std::optional<std::string> ToolOptions::get(StringRef Tool,
                                            StringRef Name) const {
  for (StringRef Scope : {Tool, StringRef()}) {
    auto T = Values.find(Scope);
    if (T == Values.end())
      continue;
    if (auto V = T->second.find(Name); V != T->second.end())
      return V->second;
  }
  return std::nullopt;
}

std::optional<std::string> ToolHost::option(StringRef Option) const {
  return Options.get(Name, Option);
}

Expected<StringRef> ToolHost::bitcodeFor(StringRef Processor) {
  // The tool's own library, not the first one in the process that defines
  // the symbol (every tool defines it).
  if (Library.empty())
    return createStringError(inconvertibleErrorCode(),
                             "cannot tell which library registered the tool");
  void *Handle = dlopen(Library.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (!Handle)
    return createStringError(inconvertibleErrorCode(),
                             "cannot find the tool's library %s: %s",
                             Library.c_str(), dlerror());
  std::string Symbol = "__loom_tool_hooks_" + Processor.str();
  auto *Data = static_cast<const char *>(dlsym(Handle, Symbol.c_str()));
  auto *Size =
      static_cast<const uint64_t *>(dlsym(Handle, (Symbol + "_size").c_str()));
  auto *Targets =
      static_cast<const char *>(dlsym(Handle, "__loom_tool_hook_targets"));
  dlclose(Handle); // it stays loaded: the runtime holds it
  if (!Data || !Size)
    return createStringError(
        inconvertibleErrorCode(),
        "%s has no hooks for %s (built for: %s; loom_add_tool's TARGETS "
        "chooses)",
        Library.c_str(), Processor.str().c_str(),
        Targets && *Targets ? Targets : "none");
  return StringRef(Data, *Size);
}

Error ToolHost::loadHooks(hsa_agent_t Agent, AgentHooks &H) {
  Expected<std::string> Isa = isaName(Agent);
  if (!Isa)
    return Isa.takeError();
  Expected<jit::TargetSpec> Target = jit::TargetSpec::fromIsaName(*Isa);
  if (!Target)
    return Target.takeError();
  Expected<StringRef> Bitcode = bitcodeFor(Target->Processor);
  if (!Bitcode)
    return Bitcode.takeError();

  Expected<std::vector<char>> Elf =
      instrument::compileHookGlobals(*Bitcode, Name, Target->Processor);
  if (!Elf)
    return Elf.takeError();
  Expected<hsa_executable_t> Exec = loadExecutable(Agent, *Elf);
  if (!Exec)
    return Exec.takeError();
  H.Exec = *Exec;
  H.Library.Name = Name;
  H.Library.Bitcode = *Bitcode;
  return forEachSymbol(
      *Exec, Agent,
      [&](hsa_executable_symbol_t Sym, StringRef Global,
          hsa_symbol_kind_t Kind) -> Error {
        if (Kind != HSA_SYMBOL_KIND_VARIABLE)
          return Error::success();
        uint64_t Address = 0;
        uint32_t Size = 0;
        auto Info = hsa().Core.hsa_executable_symbol_get_info_fn;
        if (Error E = joinErrors(
                check(Info(Sym, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS,
                           &Address),
                      "hsa_executable_symbol_get_info(VARIABLE_ADDRESS)"),
                check(
                    Info(Sym, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE, &Size),
                    "hsa_executable_symbol_get_info(VARIABLE_SIZE)")))
          return E;
        H.Library.GlobalAddresses[Global] = Address;
        H.Sizes[Global] = Size;
        return Error::success();
      });
}

Expected<ToolHost::AgentHooks &> ToolHost::agentHooks(hsa_agent_t Agent) {
  auto [It, New] = PerAgent.try_emplace(Agent.handle);
  AgentHooks &H = It->second;
  if (New)
    if (Error E = loadHooks(Agent, H))
      H.Error = toString(std::move(E));
  if (!H.Error.empty())
    return createStringError(inconvertibleErrorCode(), "hooks: %s",
                             H.Error.c_str());
  return H;
}

Expected<const HookLibrary &> ToolHost::hooks(hsa_agent_t Agent) {
  std::lock_guard<std::mutex> L(Lock);
  Expected<AgentHooks &> H = agentHooks(Agent);
  if (!H)
    return H.takeError();
  return H->Library; // never changes once made
}

void ToolHost::unloadHooks() {
  std::lock_guard<std::mutex> L(Lock);
  for (auto &[Agent, H] : PerAgent)
    if (H.Exec.handle)
      hsa().Core.hsa_executable_destroy_fn(H.Exec);
  PerAgent.clear();
}

Expected<uint64_t> ToolHost::sizedGlobal(hsa_agent_t Agent, StringRef Global,
                                         size_t Bytes) {
  std::lock_guard<std::mutex> L(Lock);
  Expected<AgentHooks &> H = agentHooks(Agent);
  if (!H)
    return H.takeError();
  auto It = H->Library.GlobalAddresses.find(Global);
  if (It == H->Library.GlobalAddresses.end())
    return createStringError(inconvertibleErrorCode(),
                             "the hooks define no global '%s' (LOOM_DEVICE, "
                             "at global scope)",
                             Global.str().c_str());
  uint64_t Size = H->Sizes.lookup(Global);
  if (Bytes > Size)
    return createStringError(
        inconvertibleErrorCode(), "global '%s' has %llu bytes, not %zu",
        Global.str().c_str(), (unsigned long long)Size, Bytes);
  return It->second;
}

Expected<uint64_t> ToolHost::globalAddress(hsa_agent_t Agent,
                                           StringRef Global) {
  return sizedGlobal(Agent, Global, 0);
}

Error ToolHost::readGlobal(hsa_agent_t Agent, StringRef Global,
                           uint64_t Offset, void *Out, size_t Bytes) {
  Expected<uint64_t> Address = sizedGlobal(Agent, Global, Offset + Bytes);
  if (!Address)
    return Address.takeError();
  return check(hsa().Core.hsa_memory_copy_fn(
                   Out, reinterpret_cast<const void *>(*Address + Offset),
                   Bytes),
               "hsa_memory_copy");
}

Error ToolHost::writeGlobal(hsa_agent_t Agent, StringRef Global,
                            uint64_t Offset, const void *In, size_t Bytes) {
  Expected<uint64_t> Address = sizedGlobal(Agent, Global, Offset + Bytes);
  if (!Address)
    return Address.takeError();
  return check(hsa().Core.hsa_memory_copy_fn(
                   reinterpret_cast<void *>(*Address + Offset), In, Bytes),
               "hsa_memory_copy");
}

Error ToolHost::openChannel(const instrument::ChannelOptions &Options) {
  auto Refuse = [&](const Twine &Why) {
    return createStringError(inconvertibleErrorCode(),
                             "openChannel: " + Why.str());
  };
  // Every dispatch's rings are laid out alike, from the options of init.
  if (Initialized)
    return Refuse("a tool opens its channel in init, not later");
  if (Channel)
    return Refuse("the tool's channel is already open (one per tool)");
  if (Options.RecordBytes == 0 || Options.RecordBytes % 4)
    return Refuse("RecordBytes is " + Twine(Options.RecordBytes) +
                  ": records are whole 4-byte words, at least one");
  // A wave claims a slot per active lane at once; each lane then waits
  // for its own slot to be free, so the ring must hold a whole wave.
  if (Options.Capacity < 64 || !isPowerOf2_32(Options.Capacity))
    return Refuse("Capacity is " + Twine(Options.Capacity) +
                  ": it must be a power of two, at least 64 (a wave)");
  if (uint64_t(Options.Capacity) * Options.RecordBytes > (1ull << 32))
    return Refuse("a ring of " + Twine(Options.Capacity) + " records of " +
                  Twine(Options.RecordBytes) +
                  " bytes is more than 4 GiB a dispatch");
  if (Options.WaveChunks &&
      (Options.Lossy || !isPowerOf2_32(Options.RecordBytes) ||
       Options.RecordBytes < 2 * sizeof(LoomWaveChunk)))
    return Refuse("a ring of wave chunks is lossless, its records a power of "
                  "two of bytes, at least " +
                  Twine(2 * sizeof(LoomWaveChunk)));
  Channel = Options;
  return Error::success();
}

} // namespace loom::tool
