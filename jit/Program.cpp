//===- jit/Program.cpp - Sources compiled, linked and loaded; kernels -----===//

#include "loom/jit/Jit.h"

#include "HsaError.h"

#include "loom/codeobj/CodeObject.h"
#include "loom/jit/Cache.h"

#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;

namespace loom::jit {

//===----------------------------------------------------------------------===//
// Sources
//===----------------------------------------------------------------------===//

Source::Source(Source &&) = default;
Source &Source::operator=(Source &&) = default;
Source::~Source() = default;

Source::Source(Kind K, std::string Name, std::vector<char> Bytes)
    : K(K), Name(std::move(Name)), Bytes(std::move(Bytes)) {}

Source Source::ir(StringRef IR, StringRef Name) {
  return Source(Kind::IR, Name.str(), {IR.begin(), IR.end()});
}

Source Source::file(StringRef Path) { return Source(Kind::File, Path.str()); }

Source Source::module(std::unique_ptr<llvm::Module> M) {
  Source S(Kind::Module, M ? M->getModuleIdentifier() : "<null module>");
  S.M = std::move(M);
  return S;
}

Source Source::assembly(StringRef Text, StringRef Name) {
  return Source(Kind::Assembly, Name.str(), {Text.begin(), Text.end()});
}

Source Source::codeObject(ObjectBytes Bytes, StringRef Name) {
  return Source(Kind::CodeObject, Name.str(), std::move(Bytes));
}

//===----------------------------------------------------------------------===//
// Building a program
//===----------------------------------------------------------------------===//

Expected<ObjectBytes> Device::compileSource(Source &S, const ProgramOptions &O,
                                            const LinkOptions &L) {
  CompileOptions C;
  C.Target = Target;
  C.OptLevel = O.OptLevel;
  if (S.K == Source::Kind::CodeObject)
    return std::move(S.Bytes);
  if (S.K == Source::Kind::Assembly) {
    // Assembly names its own target id (.amdgcn_target), which MC requires
    // to match exactly: take its features, but not another processor.
    StringRef Text(S.Bytes.data(), S.Bytes.size());
    TargetSpec AsmTarget = Target;
    size_t At = Text.find(".amdgcn_target \"");
    if (At != StringRef::npos) {
      StringRef Id = Text.substr(At + 16).split('"').first;
      auto Named = TargetSpec::fromIsaName(Id);
      if (!Named)
        return Named.takeError();
      if (Named->Processor != Target.Processor)
        return createStringError(S.Name + ": assembly for " + Id +
                                 " cannot run on " + Target.str());
      AsmTarget = *Named;
    }
    auto Object = assembleObject(Text, S.Name, AsmTarget);
    if (!Object)
      return Object.takeError();
    return linkObjects(ArrayRef(&*Object, 1), L);
  }
  if (S.K == Source::Kind::Module) {
    if (!S.M)
      return createStringError("a null llvm::Module was given");
    return compileAndLink(*S.M, C, L);
  }
  if (S.K == Source::Kind::File) {
    auto Buf = MemoryBuffer::getFile(S.Name, /*IsText=*/false,
                                     /*RequiresNullTerminator=*/false);
    if (!Buf)
      return createStringError(S.Name + ": " + Buf.getError().message());
    S.Bytes.assign((*Buf)->getBufferStart(), (*Buf)->getBufferEnd());
  }
  // IR bytes: the cache may already have them linked.
  std::optional<CodeObjectCache> Cache;
  std::string Key;
  if (!O.CacheDirectory.empty()) {
    Cache.emplace(O.CacheDirectory);
    Key = CodeObjectCache::key(S.Bytes, C, L);
    if (std::optional<ObjectBytes> Hit = Cache->lookup(Key))
      return std::move(*Hit);
  }
  LLVMContext Ctx;
  auto M = parseIR(MemoryBufferRef(StringRef(S.Bytes.data(), S.Bytes.size()),
                                   S.Name),
                   Ctx);
  if (!M)
    return M.takeError();
  auto Linked = compileAndLink(**M, C, L);
  if (Linked && Cache)
    // A cache that cannot be written costs only speed.
    consumeError(Cache->store(Key, *Linked));
  return Linked;
}

Expected<std::unique_ptr<Program>> Device::build(std::vector<Source> Sources,
                                                 const ProgramOptions &O) {
  if (Sources.empty())
    return createStringError("a program needs at least one source");
  std::unique_ptr<Program> P(new Program(*this));
  // Several modules: each may use what another defines, bound at freeze.
  LinkOptions L;
  L.AllowUndefined = Sources.size() > 1;
  std::vector<std::unique_ptr<codeobj::CodeObject>> Parsed;
  for (Source &S : Sources) {
    std::string Name = S.Name;
    auto Bytes = compileSource(S, O, L);
    if (!Bytes) {
      // Compile errors name the module already; link errors do not.
      std::string E = toString(Bytes.takeError());
      if (!StringRef(E).starts_with(Name))
        E = Name + ": " + E;
      return createStringError(E);
    }
    auto CO = codeobj::CodeObject::create(
        ArrayRef(reinterpret_cast<const uint8_t *>(Bytes->data()),
                 Bytes->size()),
        Name);
    if (!CO)
      return CO.takeError();
    Parsed.push_back(std::move(*CO));
    P->CodeObjects.push_back(std::move(*Bytes));
  }

  hsa_executable_t Exec;
  CHECK_HSA(hsa_executable_create_alt(HSA_PROFILE_FULL,
                                      HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                                      nullptr, &Exec));
  P->Executable = Exec.handle;
  for (size_t I = 0; I < P->CodeObjects.size(); ++I) {
    const ObjectBytes &B = P->CodeObjects[I];
    hsa_code_object_reader_t R;
    CHECK_HSA(hsa_code_object_reader_create_from_memory(B.data(), B.size(), &R));
    P->Readers.push_back(R.handle);
    hsa_status_t S = hsa_executable_load_agent_code_object(
        Exec, hsa_agent_t{Agent}, R, nullptr, nullptr);
    if (S != HSA_STATUS_SUCCESS)
      return hsaError(S, "loading " + Parsed[I]->name() + " "
                             "(hsa_executable_load_agent_code_object)");
  }
  if (hsa_status_t S = hsa_executable_freeze(Exec, nullptr);
      S != HSA_STATUS_SUCCESS) {
    // Name what is missing: the usual cause.
    std::string Undefined;
    for (const auto &CO : Parsed)
      for (const codeobj::UndefinedSymbol &U : CO->undefinedSymbols())
        Undefined += (Undefined.empty() ? "" : ", ") + U.Name;
    return hsaError(S, "hsa_executable_freeze" +
                           (Undefined.empty()
                                ? std::string()
                                : " (undefined symbols: " + Undefined + ")"));
  }

  for (const auto &CO : Parsed) {
    for (const codeobj::Kernel &KC : CO->kernels()) {
      const codeobj::KernelMetadata *MD = CO->metadataOf(KC);
      if (!MD)
        return createStringError(CO->name() + ": kernel '" + KC.name() +
                                 "' has no metadata");
      std::string Symbol = KC.name().str();
      auto K = std::make_unique<Kernel>(*P, Symbol, demangle(Symbol));
      hsa_executable_symbol_t Sym;
      hsa_agent_t A{Agent};
      hsa_status_t S = hsa_executable_get_symbol_by_name(
          Exec, KC.Descriptor.Name.c_str(), &A, &Sym);
      if (S != HSA_STATUS_SUCCESS)
        S = hsa_executable_get_symbol_by_name(Exec, Symbol.c_str(), &A, &Sym);
      if (S != HSA_STATUS_SUCCESS)
        return hsaError(S, "hsa_executable_get_symbol_by_name(" + Symbol + ")");
      CHECK_HSA(hsa_executable_symbol_get_info(
          Sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &K->Object));
      CHECK_HSA(hsa_executable_symbol_get_info(
          Sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE,
          &K->KernargSize));
      CHECK_HSA(hsa_executable_symbol_get_info(
          Sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE,
          &K->GroupSize));
      CHECK_HSA(hsa_executable_symbol_get_info(
          Sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE,
          &K->PrivateSize));
      K->KernargSize = std::max<uint32_t>(K->KernargSize,
                                          MD->KernargSegmentSize);
      for (const codeobj::KernelArgMetadata &A : MD->Args)
        if (!A.isHidden())
          K->Explicit.push_back({A.Name, A.TypeName, A.ValueKind,
                                 uint32_t(A.Offset), uint32_t(A.Size)});
      K->Metadata = std::make_shared<codeobj::KernelMetadata>(*MD);
      P->Kernels.push_back(std::move(K));
    }
  }
  return std::move(P);
}

Expected<std::unique_ptr<Program>> Device::compile(StringRef IR,
                                                   const ProgramOptions &O) {
  std::vector<Source> S;
  S.push_back(Source::ir(IR));
  return build(std::move(S), O);
}

Expected<std::unique_ptr<Program>>
Device::compileFile(StringRef Path, const ProgramOptions &O) {
  std::vector<Source> S;
  S.push_back(Source::file(Path));
  return build(std::move(S), O);
}

Expected<std::unique_ptr<Program>>
Device::compile(std::unique_ptr<llvm::Module> M, const ProgramOptions &O) {
  std::vector<Source> S;
  S.push_back(Source::module(std::move(M)));
  return build(std::move(S), O);
}

//===----------------------------------------------------------------------===//
// Program
//===----------------------------------------------------------------------===//

Program::~Program() {
  if (Executable)
    hsa_executable_destroy(hsa_executable_t{Executable});
  for (uint64_t R : Readers)
    hsa_code_object_reader_destroy(hsa_code_object_reader_t{R});
}

Expected<Kernel &> Program::kernel(StringRef Name) {
  // An exact symbol wins over demangled matches.
  for (auto &K : Kernels)
    if (K->Symbol == Name)
      return *K;
  SmallVector<Kernel *, 4> Matches;
  for (auto &K : Kernels)
    if (codeobj::symbolNameMatches(K->Symbol, Name))
      Matches.push_back(K.get());
  if (Matches.size() == 1)
    return *Matches.front();

  auto Describe = [](const Kernel &K) {
    return K.Demangled == K.Symbol ? K.Symbol
                                   : K.Demangled + " [" + K.Symbol + "]";
  };
  std::string List;
  if (Matches.size() > 1) {
    for (Kernel *K : Matches)
      List += "\n  " + Describe(*K);
    return createStringError("kernel name '" + Name + "' is ambiguous; it " +
                             "names:" + List);
  }
  // Near matches: names within a few edits of any spelling of a kernel.
  unsigned Limit = std::max<unsigned>(3, Name.size() / 3);
  for (auto &K : Kernels) {
    StringRef Base = StringRef(K->Demangled).split('(').first;
    unsigned D = std::min({StringRef(K->Symbol).edit_distance(Name),
                           StringRef(K->Demangled).edit_distance(Name),
                           Base.edit_distance(Name)});
    if (D <= Limit)
      List += "\n  " + Describe(*K);
  }
  if (!List.empty())
    return createStringError("no kernel named '" + Name +
                             "'; near matches:" + List);
  for (auto &K : Kernels)
    List += "\n  " + Describe(*K);
  return createStringError("no kernel named '" + Name + "'; the program has " +
                           (List.empty() ? std::string("no kernels")
                                         : "these kernels:" + List));
}

Expected<void *> Program::variable(StringRef Symbol) {
  hsa_executable_symbol_t Sym;
  hsa_agent_t A{Dev.agentHandle()};
  std::string Name = Symbol.str();
  CHECK_HSA(hsa_executable_get_symbol_by_name(hsa_executable_t{Executable},
                                              Name.c_str(), &A, &Sym));
  uint64_t Address = 0;
  CHECK_HSA(hsa_executable_symbol_get_info(
      Sym, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS, &Address));
  return reinterpret_cast<void *>(Address);
}

//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

Kernel::Kernel(Program &P, std::string Symbol, std::string Demangled)
    : Owner(&P), Symbol(std::move(Symbol)), Demangled(std::move(Demangled)) {}

Expected<Launch> Kernel::launchPacked(const LaunchOptions &O,
                                      ArrayRef<ArgValue> Args) {
  Stream &S = O.On ? *O.On : Owner->device().defaultStream();
  return S.submit(*this, O, Args);
}

} // namespace loom::jit
