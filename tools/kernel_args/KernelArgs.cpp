//===- tools/kernel_args - Every dispatch's kernel, geometry, arguments ---===//
//
// Per dispatch: the kernel, the grid and work-group sizes, the grid in
// work-groups, the hidden arguments, and each explicit argument's value,
// read as its metadata says (.offset, .size, .value_kind, .type_name):
// pointers as addresses, scalars as numbers, anything else as bytes
// (docs/tools.md).
//
//   loom instrument --tool kernel_args [--tool-arg kernel=REGEX]
//       [--tool-arg dispatch=N[-M]] [--tool-arg output=FILE] -- ./app
//
// The values are the device's: a hook at kernel entry (KernelArgsHooks.hip)
// sends the dispatch packet and the kernarg segment as the kernel received
// them (loom::dispatchPacket, loom::kernargSegment) through the channel,
// and the host decodes them with the kernel's metadata. The host's own view
// of the dispatch (the packet the program wrote, its kernarg segment) is
// kept too: where the two differ, the tool says so; where no copy could be
// made (the dispatch then runs its original code), the host's view is
// reported, marked as such.
//
//===----------------------------------------------------------------------===//

#include "KernelArgsRecord.h"
#include "ToolOptions.h"

#include "loom/codeobj/CodeObject.h"
#include "loom/instrument/LaunchHeader.h"

#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>

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

/// What one side saw of a dispatch: the packet's geometry and the kernarg
/// segment's bytes.
struct LaunchView {
  unsigned Dimensions = 0;
  uint32_t Grid[3] = {1, 1, 1};
  uint16_t WorkGroup[3] = {1, 1, 1};
  std::vector<uint8_t> Kernarg;
};

/// The most of a kernarg segment the hook sends (HIP's limit is 4 KiB).
constexpr uint32_t MaxKernargBytes = 4096;

class KernelArgs final : public Tool {
public:
  Error init(ToolContext &Ctx) override {
    Expected<ToolOptions> O = ToolOptions::parse(Ctx, "kernel_args");
    if (!O)
      return O.takeError();
    Options = std::move(*O);
    Out = Options.openOutput();
    // A dispatch sends at most 1 + 64 records: one ring of 128 holds them.
    return Ctx.openChannel({sizeof(KernelArgsRecord), 128, /*Lossy=*/false});
  }

  void codeObjectLoaded(ToolContext &, hsa_executable_t Exec,
                        const codeobj::CodeObject &CO) override {
    std::lock_guard<std::mutex> G(Lock);
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
    std::lock_guard<std::mutex> G(Lock);
    const codeobj::KernelMetadata *K = metadata(D);
    uint32_t Bytes = K ? std::min<uint64_t>(K->KernargSegmentSize,
                                            MaxKernargBytes)
                       : 0;
    Pending &P = InFlight[D.Index];
    P.Host.Dimensions = 0; // the host's packet: dimensions not kept
    std::copy(D.Grid, D.Grid + 3, P.Host.Grid);
    std::copy(D.WorkGroup, D.WorkGroup + 3, P.Host.WorkGroup);
    if (D.Kernarg)
      P.Host.Kernarg.assign(static_cast<const uint8_t *>(D.Kernarg),
                            static_cast<const uint8_t *>(D.Kernarg) + Bytes);
    uint32_t Parts = 1 + (Bytes + 63) / 64;
    P.Parts.resize(Parts);
    return DispatchChoice::instrumented().withLaunchData(
        KernelArgsLaunch{Parts, Bytes / 4});
  }

  Error instrument(ToolContext &, KernelInstrumentation &KI) override {
    return KI.plan().atKernelEntry(KI.kernel(), "kernel_args_entry", {});
  }

  void channelRecords(ToolContext &, const Dispatch &D, const void *Records,
                      size_t Count) override {
    std::lock_guard<std::mutex> G(Lock);
    auto It = InFlight.find(D.Index);
    if (It == InFlight.end())
      return;
    for (const KernelArgsRecord &R :
         ArrayRef(static_cast<const KernelArgsRecord *>(Records), Count))
      if (R.Part < It->second.Parts.size())
        It->second.Parts[R.Part].emplace(std::to_array(R.Words));
  }

  void dispatchComplete(ToolContext &, const Dispatch &D) override {
    std::lock_guard<std::mutex> G(Lock);
    auto It = InFlight.find(D.Index);
    if (It == InFlight.end())
      return;
    Pending P = std::move(It->second);
    InFlight.erase(It);
    ++Dispatches;
    std::optional<LaunchView> Device = deviceView(P);
    std::string Note;
    if (!D.Instrumented)
      Note = "read on the host: the dispatch ran its original code";
    else if (!Device)
      Note = "read on the host: the kernel's first wave sent no record";
    else
      compare(D, *Device, P.Host);
    report(D, Device ? *Device : P.Host, Device ? "device" : "host", Note);
  }

  void fini(ToolContext &) override {
    errs() << "kernel_args: " << Dispatches << " dispatches";
    if (DeviceRead != Dispatches)
      errs() << " (" << Dispatches - DeviceRead << " read on the host)";
    if (Differ)
      errs() << ", " << Differ << " where the device saw other values";
    if (Out)
      errs() << ", JSON lines in " << Options.output();
    errs() << "\n";
  }

private:
  struct Pending {
    LaunchView Host;
    /// Part 0: the packet; part N: kernarg bytes [64 (N - 1), 64 N).
    std::vector<std::optional<std::array<uint32_t, 16>>> Parts;
  };

  const codeobj::KernelMetadata *metadata(const Dispatch &D) const {
    auto It = Kernels.find({D.Executable.handle, D.Kernel});
    return It == Kernels.end() ? nullptr : &It->second;
  }

  /// Argument \p A's value in \p Kernarg, if it is at most 8 bytes and
  /// inside it (little-endian, zero-extended).
  static std::optional<uint64_t> scalarAt(const codeobj::KernelArgMetadata &A,
                                          ArrayRef<uint8_t> Kernarg) {
    if (A.Size > 8 || A.Offset + A.Size > Kernarg.size())
      return std::nullopt;
    uint64_t Raw = 0;
    std::memcpy(&Raw, Kernarg.data() + A.Offset, A.Size);
    return Raw;
  }

  /// The dispatch as the first wave read it, if every part arrived.
  static std::optional<LaunchView> deviceView(const Pending &P) {
    if (P.Parts.empty() ||
        any_of(P.Parts, [](const auto &Part) { return !Part; }))
      return std::nullopt;
    LoomDispatchPacket Packet;
    std::memcpy(&Packet, P.Parts[0]->data(), sizeof(Packet));
    LaunchView V;
    V.Dimensions = Packet.Setup & 3;
    std::copy(Packet.GridSize, Packet.GridSize + 3, V.Grid);
    std::copy(Packet.WorkgroupSize, Packet.WorkgroupSize + 3, V.WorkGroup);
    for (size_t Part = 1; Part < P.Parts.size(); ++Part) {
      const auto *Bytes = reinterpret_cast<const uint8_t *>(P.Parts[Part]->data());
      V.Kernarg.insert(V.Kernarg.end(), Bytes, Bytes + 64);
    }
    V.Kernarg.resize(P.Host.Kernarg.size());
    return V;
  }

  /// Says where the device saw another launch than the program asked for.
  void compare(const Dispatch &D, const LaunchView &Device,
               const LaunchView &Host) {
    std::string Why;
    if (!std::equal(Device.Grid, Device.Grid + 3, Host.Grid) ||
        !std::equal(Device.WorkGroup, Device.WorkGroup + 3, Host.WorkGroup))
      Why = "another grid or work-group size";
    else if (Device.Kernarg != Host.Kernarg)
      Why = "other kernarg bytes";
    else
      return;
    ++Differ;
    errs() << "kernel_args: dispatch " << D.Index << " " << D.Kernel
           << ": the device saw " << Why << " than the program set\n";
  }

  void report(const Dispatch &D, const LaunchView &V, StringRef Source,
              StringRef Note) {
    DeviceRead += Source == "device";
    const codeobj::KernelMetadata *K = metadata(D);
    auto Hidden = [&](StringRef Kind) -> std::optional<uint64_t> {
      if (K)
        for (const codeobj::KernelArgMetadata &A : K->Args)
          if (A.ValueKind == Kind)
            return scalarAt(A, V.Kernarg);
      return std::nullopt;
    };
    // The grid in work-groups as the kernel computes gridDim: in code
    // object v5, hidden_block_count_* (the full groups) plus one where
    // hidden_remainder_* says a partial group follows; else the packet's
    // sizes rounded up.
    uint64_t Blocks[3];
    for (unsigned I = 0; I < 3; ++I) {
      std::string Axis(1, char('x' + I));
      std::optional<uint64_t> Full = Hidden("hidden_block_count_" + Axis),
                              Partial = Hidden("hidden_remainder_" + Axis);
      uint32_t W = V.WorkGroup[I] ? V.WorkGroup[I] : 1;
      Blocks[I] = Full ? *Full + (Partial.value_or(0) != 0)
                       : (uint64_t(V.Grid[I]) + W - 1) / W;
    }

    json::Array Args;
    json::Object HiddenArgs;
    std::string Line;
    raw_string_ostream OS(Line);
    OS << "kernel_args: dispatch " << D.Index << " " << D.Kernel << " grid ["
       << V.Grid[0] << "," << V.Grid[1] << "," << V.Grid[2] << "] workgroup ["
       << V.WorkGroup[0] << "," << V.WorkGroup[1] << "," << V.WorkGroup[2]
       << "] blocks [" << Blocks[0] << "," << Blocks[1] << "," << Blocks[2]
       << "]";
    if (!K) {
      OS << ": no metadata";
    } else {
      unsigned N = 0;
      for (const codeobj::KernelArgMetadata &A : K->Args) {
        if (A.isHidden()) {
          std::optional<uint64_t> Raw = scalarAt(A, V.Kernarg);
          if (Raw && A.ValueKind != "hidden_none")
            HiddenArgs[A.ValueKind] =
                A.Size == 8 ? json::Value("0x" + utohexstr(*Raw, true))
                            : json::Value(*Raw);
          continue;
        }
        std::string Name = A.Name.empty() ? "arg" + std::to_string(N) : A.Name;
        ++N;
        json::Value Value = nullptr;
        if (A.Offset + A.Size <= V.Kernarg.size())
          Value = argumentValue(A, V.Kernarg.data() + A.Offset);
        OS << (N == 1 ? ": " : ", ") << Name << "=";
        if (auto Str = Value.getAsString())
          OS << *Str;
        else
          OS << Value;
        if (!A.TypeName.empty())
          OS << " (" << A.TypeName << ")";
        Args.push_back(json::Object{{"name", Name},
                                    {"type", A.TypeName},
                                    {"value_kind", A.ValueKind},
                                    {"offset", A.Offset},
                                    {"size", A.Size},
                                    {"value", std::move(Value)}});
      }
    }
    if (!Note.empty())
      OS << " (" << Note << ")";
    errs() << Line << "\n";
    if (!Out)
      return;
    json::Object Row{
        {"dispatch", D.Index},
        {"kernel", D.Kernel},
        {"source", Source},
        {"grid", json::Array{V.Grid[0], V.Grid[1], V.Grid[2]}},
        {"workgroup",
         json::Array{V.WorkGroup[0], V.WorkGroup[1], V.WorkGroup[2]}},
        {"blocks", json::Array{Blocks[0], Blocks[1], Blocks[2]}},
        {"args", std::move(Args)},
        {"hidden", std::move(HiddenArgs)}};
    if (V.Dimensions)
      Row["dimensions"] = V.Dimensions;
    *Out << json::Value(std::move(Row)) << "\n";
    Out->flush();
  }

  ToolOptions Options;
  std::mutex Lock; // the runtime calls from its threads
  std::map<std::pair<uint64_t, std::string>, codeobj::KernelMetadata> Kernels;
  std::map<uint64_t, Pending> InFlight;
  std::unique_ptr<raw_fd_ostream> Out;
  uint64_t Dispatches = 0, DeviceRead = 0, Differ = 0;
};

} // namespace

LOOM_TOOL(KernelArgs, "kernel_args")
