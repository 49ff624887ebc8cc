//===- tools/kernel_args - Every dispatch's kernel, geometry, arguments ---===//
//
// Per dispatch: the kernel, the grid and work-group sizes, and each explicit
// argument's value, read as its metadata says (.offset, .size,
// .value_kind, .type_name): pointers as addresses, scalars as numbers,
// anything else as bytes (docs/tools.md).
//
//   loom instrument --tool kernel_args [--tool-arg kernel=REGEX]
//       [--tool-arg dispatch=N[-M]] [--tool-arg output=FILE] -- ./app
//
// The arguments are read on the host, in the dispatch callback, from the
// program's kernarg segment (Dispatch::Kernarg): a hook cannot see the
// kernarg segment (hooks get the launch header's fields, not the kernel's
// own argument pointer), and it needs no instrumented copy: every dispatch
// runs its original code.
//
//===----------------------------------------------------------------------===//

#include "ToolOptions.h"

#include "loom/codeobj/CodeObject.h"

#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>
#include <map>

using namespace llvm;
using namespace loom;
using namespace loom::instrument;
using namespace loom::tools;

namespace {

/// One argument's value as JSON: a number, or a string ("0x..." for
/// pointers, hex bytes for aggregates).
json::Value argumentValue(const codeobj::KernelArgMetadata &A,
                          const uint8_t *Bytes) {
  auto Hex = [](uint64_t V) { return "0x" + utohexstr(V, true); };
  uint64_t Raw = 0;
  if (A.Size <= 8)
    std::memcpy(&Raw, Bytes, A.Size);
  StringRef Type = StringRef(A.TypeName).trim();
  bool Pointer = A.ValueKind == "global_buffer" ||
                 A.ValueKind == "dynamic_shared_pointer" ||
                 A.ValueKind == "image" || A.ValueKind == "sampler" ||
                 A.ValueKind == "pipe" || A.ValueKind == "queue" ||
                 Type.ends_with("*");
  if (Pointer && A.Size == 8)
    return Hex(Raw);
  if (Type == "float" && A.Size == 4) {
    float F;
    std::memcpy(&F, Bytes, 4);
    return double(F);
  }
  if (Type == "double" && A.Size == 8) {
    double D;
    std::memcpy(&D, Bytes, 8);
    return D;
  }
  if (Type == "bool" && A.Size == 1)
    return Raw != 0;
  bool Unsigned = Type.starts_with("unsigned") || Type.starts_with("u") ||
                  Type == "size_t";
  bool Integer = A.Size == 1 || A.Size == 2 || A.Size == 4 || A.Size == 8;
  bool Aggregate = Type.starts_with("struct") || Type.starts_with("class") ||
                   Type.starts_with("union") || Type.contains('<') ||
                   Type.contains(':');
  if (Integer && !Aggregate) {
    if (Unsigned)
      return Raw;
    int64_t S = A.Size == 1   ? int64_t(int8_t(Raw))
                : A.Size == 2 ? int64_t(int16_t(Raw))
                : A.Size == 4 ? int64_t(int32_t(Raw))
                              : int64_t(Raw);
    return S;
  }
  std::string Out = "0x";
  for (uint64_t I = A.Size; I-- > 0;) // little-endian bytes, as a number
    Out += utohexstr(Bytes[I], true, 2);
  return Out;
}

/// The parameter types of a mangled C++ kernel name ("_Z5scalePffi" ->
/// float*, float, int), for code objects whose metadata has no
/// .type_name (HIP's, unless built with debug information); empty if it
/// is not a mangled function name.
std::vector<std::string> parameterTypes(StringRef Symbol) {
  // The demangler keeps pointers into the name: it must outlive D's use.
  std::string Mangled = Symbol.str();
  ItaniumPartialDemangler D;
  if (D.partialDemangle(Mangled.c_str()) || !D.isFunction())
    return {};
  size_t Size = 0;
  char *Buf = D.getFunctionParameters(nullptr, &Size);
  if (!Buf)
    return {};
  StringRef Text(Buf);
  Text = Text.trim();
  Text.consume_front("(");
  Text.consume_back(")");
  std::vector<std::string> Out;
  int Depth = 0;
  size_t Start = 0;
  for (size_t I = 0; I <= Text.size(); ++I) {
    char C = I < Text.size() ? Text[I] : ',';
    if (C == '<' || C == '(' || C == '[')
      ++Depth;
    else if (C == '>' || C == ')' || C == ']')
      --Depth;
    else if (C == ',' && Depth == 0) {
      StringRef P = Text.slice(Start, I).trim();
      if (!P.empty())
        Out.push_back(P.str());
      Start = I + 1;
    }
  }
  std::free(Buf);
  return Out;
}

class KernelArgs final : public Tool {
public:
  Error init(ToolContext &Ctx) override {
    Expected<ToolOptions> O = ToolOptions::parse(Ctx, "kernel_args");
    if (!O)
      return O.takeError();
    Options = std::move(*O);
    Out = Options.openOutput();
    return Error::success();
  }

  void codeObjectLoaded(ToolContext &, hsa_executable_t Exec,
                        const codeobj::CodeObject &CO) override {
    for (const codeobj::KernelMetadata &K : CO.metadata().Kernels) {
      codeobj::KernelMetadata &Kept = Kernels[{Exec.handle, K.Name}] = K;
      // Without .type_name, the types from the mangled name.
      std::vector<std::string> Types = parameterTypes(K.Name);
      size_t Explicit = 0;
      for (const codeobj::KernelArgMetadata &A : K.Args)
        Explicit += !A.isHidden();
      if (Types.size() != Explicit)
        continue;
      size_t I = 0;
      for (codeobj::KernelArgMetadata &A : Kept.Args)
        if (!A.isHidden()) {
          if (A.TypeName.empty())
            A.TypeName = Types[I];
          ++I;
        }
    }
  }

  DispatchChoice dispatch(ToolContext &, const Dispatch &D) override {
    if (!Options.wants(D))
      return DispatchChoice::original();
    ++Dispatches;
    json::Array Args;
    std::string Line;
    raw_string_ostream OS(Line);
    OS << "kernel_args: dispatch " << D.Index << " " << D.Kernel << " grid ["
       << D.Grid[0] << "," << D.Grid[1] << "," << D.Grid[2] << "] workgroup ["
       << D.WorkGroup[0] << "," << D.WorkGroup[1] << "," << D.WorkGroup[2]
       << "]";
    auto It = Kernels.find({D.Executable.handle, D.Kernel});
    if (It == Kernels.end()) {
      OS << ": no metadata";
    } else {
      const codeobj::KernelMetadata &K = It->second;
      const auto *Kernarg = static_cast<const uint8_t *>(D.Kernarg);
      unsigned N = 0;
      for (const codeobj::KernelArgMetadata &A : K.Args) {
        if (A.isHidden())
          continue;
        std::string Name = A.Name.empty() ? "arg" + std::to_string(N) : A.Name;
        ++N;
        json::Value V = nullptr;
        if (Kernarg && A.Offset + A.Size <= K.KernargSegmentSize)
          V = argumentValue(A, Kernarg + A.Offset);
        OS << (N == 1 ? ": " : ", ") << Name << "=";
        if (auto Str = V.getAsString())
          OS << *Str;
        else
          OS << V;
        if (!A.TypeName.empty())
          OS << " (" << A.TypeName << ")";
        Args.push_back(json::Object{{"name", Name},
                                    {"type", A.TypeName},
                                    {"value_kind", A.ValueKind},
                                    {"offset", A.Offset},
                                    {"size", A.Size},
                                    {"value", std::move(V)}});
      }
    }
    errs() << Line << "\n";
    if (Out) {
      *Out << json::Value(json::Object{
                  {"dispatch", D.Index},
                  {"kernel", D.Kernel},
                  {"grid", json::Array{D.Grid[0], D.Grid[1], D.Grid[2]}},
                  {"workgroup", json::Array{D.WorkGroup[0], D.WorkGroup[1],
                                            D.WorkGroup[2]}},
                  {"args", std::move(Args)}})
           << "\n";
      Out->flush();
    }
    return DispatchChoice::original();
  }

  Error instrument(ToolContext &, KernelInstrumentation &) override {
    return Error::success(); // never asked: every dispatch runs original code
  }

  void fini(ToolContext &) override {
    errs() << "kernel_args: " << Dispatches << " dispatches";
    if (Out)
      errs() << ", JSON lines in " << Options.output();
    errs() << "\n";
  }

private:
  ToolOptions Options;
  std::map<std::pair<uint64_t, std::string>, codeobj::KernelMetadata> Kernels;
  std::unique_ptr<raw_fd_ostream> Out;
  uint64_t Dispatches = 0;
};

} // namespace

LOOM_TOOL(KernelArgs, "kernel_args")
