//===- runtime/loader/Executable.cpp - An HSA executable ------------------===//
//
// Loading places the image through emu::Module (which registers memory and
// code with the virtual GPU) and turns the code object's kernels, device
// functions and variables into symbols. Freezing binds what is left
// undefined through resolveFor(), the executable's symbol namespace.
//
//===----------------------------------------------------------------------===//

#include "loom/runtime/loader/Executable.h"

#include "loom/emu/Module.h"
#include "loom/runtime/loader/LoaderError.h"
#include "loom/runtime/loader/Registry.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELF.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <set>

using namespace llvm;

namespace loom::loader {

namespace {

/// Alignment and flags of each allocated section, for variable symbols.
struct SectionFacts {
  uint64_t Align = 0;
  bool Writable = true;
};

StringMap<SectionFacts> sectionFacts(const codeobj::CodeObject &CO) {
  StringMap<SectionFacts> Out;
  StringRef Data(reinterpret_cast<const char *>(CO.bytes().data()),
                 CO.bytes().size());
  // The code object parsed already; a failure here only loses alignments.
  Expected<object::ELF64LEFile> File = object::ELF64LEFile::create(Data);
  if (!File) {
    consumeError(File.takeError());
    return Out;
  }
  auto Sections = File->sections();
  if (!Sections) {
    consumeError(Sections.takeError());
    return Out;
  }
  for (const auto &S : *Sections) {
    Expected<StringRef> Name = File->getSectionName(S);
    if (!Name) {
      consumeError(Name.takeError());
      continue;
    }
    Out[*Name] = {S.sh_addralign, (S.sh_flags & ELF::SHF_WRITE) != 0};
  }
  return Out;
}

/// ELF-global and visible outside the code object: may satisfy another code
/// object's undefined symbol.
bool isExported(const codeobj::SymbolInfo &S) {
  return S.Binding != codeobj::SymbolBinding::Local &&
         (S.Visibility == codeobj::SymbolVisibility::Default ||
          S.Visibility == codeobj::SymbolVisibility::Protected);
}

std::string joinNames(const std::set<std::string> &Names) {
  std::string Out;
  for (const std::string &N : Names)
    Out += (Out.empty() ? "" : ", ") + N;
  return Out;
}

} // namespace

std::unique_ptr<Executable> Executable::create(Profile P,
                                               FloatRoundingMode Mode) {
  std::unique_ptr<Executable> E(new Executable(P, Mode));
  Registry::instance().addExecutable(E.get());
  return E;
}

Executable::Executable(Profile P, FloatRoundingMode Mode)
    : Prof(P), Rounding(Mode) {}

Executable::~Executable() {
  Registry &R = Registry::instance();
  R.removeExecutable(this);
  std::unique_lock<std::shared_mutex> G(Lock);
  for (const auto &S : Symbols)
    R.removeSymbol(S.get());
  for (const auto &L : Code)
    R.removeLoadedCodeObject(L.get());
  ProgramByName.clear();
  AgentByName.clear();
  Symbols.clear();
  // Unloads each image: its code and memory leave the device.
  Code.clear();
}

ExecutableState Executable::state() const {
  std::shared_lock<std::shared_mutex> G(Lock);
  return State;
}

Expected<const LoadedCodeObject &>
Executable::loadAgentCodeObject(const LoaderAgent &Agent,
                                const CodeObjectReader &Reader) {
  return load(Agent, Reader, LoadedCodeObjectKind::Agent);
}

Expected<const LoadedCodeObject &>
Executable::loadProgramCodeObject(const LoaderAgent &RunsOn,
                                  const CodeObjectReader &Reader) {
  return load(RunsOn, Reader, LoadedCodeObjectKind::Program);
}

Expected<const LoadedCodeObject &>
Executable::load(const LoaderAgent &Agent, const CodeObjectReader &Reader,
                 LoadedCodeObjectKind Kind) {
  if (!Agent.Device)
    return loaderError(LoaderErrc::InvalidAgent,
                       "load code object: the agent has no device");
  std::unique_lock<std::shared_mutex> G(Lock);
  if (State == ExecutableState::Frozen)
    return loaderError(LoaderErrc::FrozenExecutable,
                       "load code object: the executable is frozen");
  Expected<const CodeObjectReader::Entry &> Entry = Reader.select(Agent.Isa);
  if (!Entry)
    return Entry.takeError();

  std::unique_ptr<LoadedCodeObject> L(new LoadedCodeObject());
  L->Owner = this;
  L->Kind = Kind;
  if (Kind == LoadedCodeObjectKind::Agent)
    L->AgentHandle = Agent.Handle;
  L->Dev = Agent.Device;
  L->CO = Entry->Object;
  L->Uri = Reader.uri(*Entry);
  L->Storage = Reader.storage();
  L->StorageFd = Reader.fd();
  L->StorageSize = L->CO->bytes().size();
  L->StorageBase =
      Reader.storage() == ReaderStorage::Memory
          ? reinterpret_cast<uint64_t>(Reader.memoryBase()) + Entry->Offset
          : reinterpret_cast<uint64_t>(L->CO->bytes().data());
  L->Order = Code.size();
  std::string Base = Reader.path().empty()
                         ? formatv("memory@{0:x}", L->StorageBase).str()
                         : sys::path::filename(Reader.path()).str();
  L->Name = Entry->EntryId.empty() ? Base : Base + "#" + Entry->EntryId;
  const codeobj::CodeObject &CO = *L->CO;
  if (!CO.loadSegments().empty()) {
    const codeobj::LoadSegment *Low = &CO.loadSegments()[0];
    for (const codeobj::LoadSegment &S : CO.loadSegments())
      if (S.VAddr < Low->VAddr)
        Low = &S;
    L->LowestVAddr = Low->VAddr;
    L->FirstSegmentOffset = Low->FileOffset;
  }

  Expected<std::unique_ptr<emu::Module>> M =
      emu::Module::load(*Agent.Device, L->CO, L->Name);
  if (!M)
    return loaderError(LoaderErrc::InvalidCodeObject,
                       "load code object: " + toString(M.takeError()));
  L->Mod = std::move(*M);
  uint64_t ImageBase = L->Mod->base();

  // The code object's definitions, as symbols.
  std::optional<uint64_t> SymAgent = L->AgentHandle;
  VariableAllocation Alloc = Kind == LoadedCodeObjectKind::Agent
                                 ? VariableAllocation::Agent
                                 : VariableAllocation::Program;
  std::vector<std::pair<std::unique_ptr<Symbol>, bool>> New;
  auto Make = [&](SymbolKind K, const codeobj::SymbolInfo &Info,
                  std::string Name) {
    auto S = std::make_unique<Symbol>();
    S->Kind = K;
    S->Name = std::move(Name);
    bool Exported = isExported(Info);
    S->Linkage = Exported ? SymbolLinkage::Program : SymbolLinkage::Module;
    if (!Exported)
      S->ModuleName = L->Name;
    S->Agent = SymAgent;
    S->Address = ImageBase + Info.Address;
    S->Size = Info.Size;
    S->Allocation = Alloc;
    S->Owner = this;
    S->Code = L.get();
    return std::make_pair(std::move(S), Exported);
  };
  for (const codeobj::Kernel &K : CO.kernels()) {
    auto P = Make(SymbolKind::Kernel, K.Descriptor, K.Descriptor.Name);
    Symbol &S = *P.first;
    S.Size = codeobj::KernelDescriptor::Size;
    S.Alignment = 64;
    S.GroupSegmentSize = K.KD.GroupSegmentFixedSize;
    S.PrivateSegmentSize = K.KD.PrivateSegmentFixedSize;
    S.KernargSegmentSize = K.KD.KernargSize;
    S.KernargSegmentAlignment = 16;
    S.DynamicCallStack = K.KD.Properties.UsesDynamicStack;
    S.WavefrontSize = K.KD.Properties.EnableWavefrontSize32 ? 32 : 64;
    if (const codeobj::KernelMetadata *MD = CO.metadataOf(K)) {
      S.KernargSegmentSize = std::max<uint64_t>(S.KernargSegmentSize,
                                                MD->KernargSegmentSize);
      // HSA requires at least 16 for the kernarg segment.
      S.KernargSegmentAlignment =
          std::max<uint64_t>(16, MD->KernargSegmentAlign);
      if (MD->UsesDynamicStack.value_or(false))
        S.DynamicCallStack = true;
      if (MD->WavefrontSize)
        S.WavefrontSize = MD->WavefrontSize;
    }
    New.push_back(std::move(P));
  }
  for (const codeobj::Function &F : CO.functions())
    New.push_back(Make(SymbolKind::IndirectFunction, F.Sym, F.Sym.Name));
  StringMap<SectionFacts> Sections = sectionFacts(CO);
  for (const codeobj::Variable &V : CO.variables()) {
    auto P = Make(SymbolKind::Variable, V.Sym, V.Sym.Name);
    auto It = Sections.find(V.Sym.Section);
    if (It != Sections.end()) {
      P.first->Alignment = It->second.Align;
      P.first->IsConst = !It->second.Writable;
    }
    New.push_back(std::move(P));
  }

  // Refuse a second global definition before changing anything.
  std::set<std::string> Clashes;
  for (auto &[S, Exported] : New) {
    if (!Exported)
      continue;
    const Symbol *Old = findLocked(S->Name, S->Agent);
    bool SameSpace = Old && Old->Agent == S->Agent;
    if (SameSpace && Old->Linkage == SymbolLinkage::Program)
      Clashes.insert(S->Name);
  }
  if (!Clashes.empty())
    return loaderError(LoaderErrc::VariableAlreadyDefined,
                       "load code object: " + L->Name +
                           " defines symbols the executable already has: " +
                           joinNames(Clashes));

  for (auto &[S, Exported] : New)
    if (Error E = addSymbol(std::move(S), Exported))
      return std::move(E); // cannot happen after the check above
  Registry::instance().addLoadedCodeObject(L.get());
  Code.push_back(std::move(L));
  return *Code.back();
}

Error Executable::addSymbol(std::unique_ptr<Symbol> S, bool Global) {
  const Symbol *P = S.get();
  if (S->Agent) {
    auto Key = std::make_pair(S->Name, *S->Agent);
    auto It = AgentByName.find(Key);
    if (It == AgentByName.end())
      AgentByName.emplace(Key, P);
    else if (It->second->Linkage == SymbolLinkage::Module && Global)
      It->second = P; // a global name hides local ones
    else if (Global)
      return loaderError(LoaderErrc::VariableAlreadyDefined,
                         "symbol '" + S->Name + "' is already defined");
  } else {
    auto It = ProgramByName.find(S->Name);
    if (It == ProgramByName.end())
      ProgramByName.emplace(S->Name, P);
    else if (It->second->Linkage == SymbolLinkage::Module && Global)
      It->second = P;
    else if (Global)
      return loaderError(LoaderErrc::VariableAlreadyDefined,
                         "symbol '" + S->Name + "' is already defined");
  }
  Registry::instance().addSymbol(P);
  Symbols.push_back(std::move(S));
  return Error::success();
}

Error Executable::defineHostVariable(StringRef Name,
                                     std::unique_ptr<Symbol> S) {
  if (Name.empty())
    return loaderError(LoaderErrc::InvalidArgument,
                       "define variable: empty name");
  std::unique_lock<std::shared_mutex> G(Lock);
  if (State == ExecutableState::Frozen)
    return loaderError(LoaderErrc::FrozenExecutable,
                       "define variable '" + Name +
                           "': the executable is frozen");
  S->Kind = SymbolKind::Variable;
  S->Name = Name.str();
  S->Linkage = SymbolLinkage::Program;
  S->HostDefined = true;
  S->Owner = this;
  return addSymbol(std::move(S), /*Global=*/true);
}

Error Executable::defineProgramVariable(StringRef Name, uint64_t Address) {
  auto S = std::make_unique<Symbol>();
  S->Allocation = VariableAllocation::Program;
  S->Segment = VariableSegment::Global;
  S->Address = Address;
  return defineHostVariable(Name, std::move(S));
}

Error Executable::defineAgentVariable(StringRef Name, const LoaderAgent &Agent,
                                      VariableSegment Segment,
                                      uint64_t Address) {
  auto S = std::make_unique<Symbol>();
  S->Allocation = VariableAllocation::Agent;
  S->Agent = Agent.Handle;
  S->Segment = Segment;
  S->IsConst = Segment == VariableSegment::Readonly;
  S->Address = Address;
  return defineHostVariable(Name, std::move(S));
}

std::optional<uint64_t> Executable::resolveFor(const LoadedCodeObject &L,
                                               StringRef Name) const {
  auto Usable = [&](const Symbol *S) {
    return S && S->Linkage == SymbolLinkage::Program && S->Code != &L;
  };
  if (L.agent()) {
    auto It = AgentByName.find({Name.str(), *L.agent()});
    if (It != AgentByName.end() && Usable(It->second))
      return It->second->Address;
  }
  auto It = ProgramByName.find(Name.str());
  if (It != ProgramByName.end() && Usable(It->second))
    return It->second->Address;
  if (!L.agent()) {
    // Program code runs on a device too: it may use definitions loaded
    // for an agent of that device.
    for (const auto &[Key, S] : AgentByName)
      if (Key.first == Name && Usable(S) && S->Code &&
          &S->Code->device() == &L.device())
        return S->Address;
  }
  // An undefined weak symbol is null, as in any ELF loader.
  for (const codeobj::UndefinedSymbol &U : L.codeObject().undefinedSymbols())
    if (U.Name == Name && U.Binding == codeobj::SymbolBinding::Weak)
      return 0;
  return std::nullopt;
}

std::vector<std::string>
Executable::unresolved(const LoadedCodeObject &L) const {
  std::set<std::string> Missing;
  for (const codeobj::DynamicRelocation &R :
       L.codeObject().dynamicRelocations()) {
    if (R.Symbol.empty() || R.Type == ELF::R_AMDGPU_RELATIVE64 ||
        R.Type == ELF::R_AMDGPU_NONE)
      continue;
    if (!L.module().symbolAddress(R.Symbol) && !resolveFor(L, R.Symbol))
      Missing.insert(R.Symbol);
  }
  return {Missing.begin(), Missing.end()};
}

Error Executable::freeze() {
  std::unique_lock<std::shared_mutex> G(Lock);
  if (State == ExecutableState::Frozen)
    return loaderError(LoaderErrc::FrozenExecutable,
                       "freeze: the executable is already frozen");
  std::set<std::string> Missing;
  for (const auto &L : Code) {
    if (L->module().isResolved())
      continue;
    std::set<std::string> Mine;
    Error E = L->module().resolve([&](StringRef Name) {
      std::optional<uint64_t> A = resolveFor(*L, Name);
      if (!A)
        Mine.insert(Name.str());
      return A;
    });
    if (!E)
      continue;
    if (Mine.empty())
      return loaderError(LoaderErrc::InvalidCodeObject,
                         "freeze: " + toString(std::move(E)));
    consumeError(std::move(E));
    for (const std::string &N : Mine)
      Missing.insert(N + " (used by " + L->name().str() + ")");
  }
  if (!Missing.empty())
    return loaderError(LoaderErrc::VariableUndefined,
                       "freeze: undefined symbols: " + joinNames(Missing));
  State = ExecutableState::Frozen;
  return Error::success();
}

Error Executable::validate() const {
  std::shared_lock<std::shared_mutex> G(Lock);
  if (State == ExecutableState::Frozen)
    return Error::success();
  std::set<std::string> Missing;
  for (const auto &L : Code)
    for (const std::string &N : unresolved(*L))
      Missing.insert(N + " (used by " + L->name().str() + ")");
  if (!Missing.empty())
    return loaderError(LoaderErrc::VariableUndefined,
                       "validate: undefined symbols: " + joinNames(Missing));
  return Error::success();
}

std::vector<const Symbol *> Executable::symbols() const {
  std::shared_lock<std::shared_mutex> G(Lock);
  std::vector<const Symbol *> Out;
  for (const auto &S : Symbols)
    if (!S->Agent)
      Out.push_back(S.get());
  for (const auto &S : Symbols)
    if (S->Agent)
      Out.push_back(S.get());
  return Out;
}

std::vector<const Symbol *> Executable::agentSymbols(uint64_t Agent) const {
  std::shared_lock<std::shared_mutex> G(Lock);
  std::vector<const Symbol *> Out;
  for (const auto &S : Symbols)
    if (S->Agent == Agent)
      Out.push_back(S.get());
  return Out;
}

std::vector<const Symbol *> Executable::programSymbols() const {
  std::shared_lock<std::shared_mutex> G(Lock);
  std::vector<const Symbol *> Out;
  for (const auto &S : Symbols)
    if (!S->Agent)
      Out.push_back(S.get());
  return Out;
}

const Symbol *Executable::findLocked(StringRef Name,
                                     std::optional<uint64_t> Agent) const {
  if (Agent) {
    auto It = AgentByName.find({Name.str(), *Agent});
    if (It != AgentByName.end())
      return It->second;
  }
  auto It = ProgramByName.find(Name.str());
  if (It != ProgramByName.end())
    return It->second;
  if (Agent)
    return nullptr;
  const Symbol *Only = nullptr;
  for (const auto &[Key, S] : AgentByName) {
    if (Key.first != Name)
      continue;
    if (Only)
      return nullptr; // one per agent: ambiguous without an agent
    Only = S;
  }
  return Only;
}

const Symbol *Executable::findSymbol(StringRef Name,
                                     std::optional<uint64_t> Agent) const {
  std::shared_lock<std::shared_mutex> G(Lock);
  return findLocked(Name, Agent);
}

std::vector<const LoadedCodeObject *> Executable::loadedCodeObjects() const {
  std::shared_lock<std::shared_mutex> G(Lock);
  std::vector<const LoadedCodeObject *> Out;
  for (const auto &L : Code)
    Out.push_back(L.get());
  return Out;
}

const LoadedCodeObject *Executable::loadedCodeObjectAt(uint64_t Address) const {
  std::shared_lock<std::shared_mutex> G(Lock);
  for (const auto &L : Code)
    if (L->contains(Address))
      return L.get();
  return nullptr;
}

} // namespace loom::loader
