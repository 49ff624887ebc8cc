//===- cli/InspectCommand.cpp - `loom inspect FILE [--json]` ---------------===//

#include "Commands.h"
#include "Inspect.h"

#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace loom::codeobj;

namespace loom::cli {

cl::SubCommand InspectCommand(
    "inspect", "Show the code objects in a file: targets, kernels with their "
               "descriptors and arguments, device functions, variables, "
               "relocations");

static cl::opt<std::string> InspectFile(cl::Positional, cl::Required,
                                        cl::desc("FILE"),
                                        cl::sub(InspectCommand), cl::cat(LoomCategory));
static cl::opt<bool> InspectAsJson(
    "json", cl::desc("Print JSON (schema: docs/inspect-json.md)"),
    cl::sub(InspectCommand), cl::cat(LoomCategory));

namespace {

std::string hex(uint64_t V) { return formatv("{0:x}", V).str(); }

/// "name" or "name (demangled)".
std::string displayName(StringRef Name) {
  std::string D = demangle(Name);
  return D == Name ? Name.str() : (Name + "  [" + D + "]").str();
}

void printSymbols(raw_ostream &OS, StringRef Title, ArrayRef<SymbolInfo> Syms) {
  OS << "\n" << Title << " (" << Syms.size() << ")\n";
  if (Syms.empty())
    return;
  OS << formatv("  {0,-18} {1,8} {2,-8} {3,-10} {4,-10} {5}\n", "address",
                "size", "binding", "visibility", "section", "name");
  for (const SymbolInfo &S : Syms)
    OS << formatv("  {0,-18} {1,8} {2,-8} {3,-10} {4,-10} {5}\n",
                  hex(S.Address), S.Size, bindingName(S.Binding),
                  visibilityName(S.Visibility), S.Section,
                  displayName(S.Name));
}

void printKernel(raw_ostream &OS, const CodeObject &CO, const Kernel &K) {
  const KernelDescriptor &D = K.KD;
  OS << "\n  kernel " << displayName(K.name()) << "\n";
  OS << formatv("    entry {0} ({1} bytes), descriptor {2} at {3}, "
                "entry offset {4}\n",
                hex(K.EntryAddress), K.Code.Size, K.Descriptor.Name,
                hex(K.Descriptor.Address), D.KernelCodeEntryByteOffset);
  OS << formatv("    segments: kernarg {0} bytes, group {1}, private {2}\n",
                D.KernargSize, D.GroupSegmentFixedSize,
                D.PrivateSegmentFixedSize);
  OS << formatv("    rsrc1 {0:x8}: vgpr granules {1}, sgpr granules {2}, "
                "float round {3}/{4}, denorm {5}/{6}, ieee {7}, dx10 clamp {8}\n",
                D.ComputePgmRsrc1, D.Rsrc1.GranulatedWorkitemVgprCount,
                D.Rsrc1.GranulatedWavefrontSgprCount, D.Rsrc1.FloatRoundMode32,
                D.Rsrc1.FloatRoundMode16_64, D.Rsrc1.FloatDenormMode32,
                D.Rsrc1.FloatDenormMode16_64, D.Rsrc1.EnableIeeeMode,
                D.Rsrc1.EnableDx10Clamp);
  OS << formatv("    rsrc2 {0:x8}: user sgprs {1}, private segment {2}, "
                "workgroup id x/y/z {3}/{4}/{5}, workgroup info {6}, "
                "workitem id vgprs {7}, lds granules {8}\n",
                D.ComputePgmRsrc2, D.Rsrc2.UserSgprCount,
                D.Rsrc2.EnablePrivateSegment, D.Rsrc2.EnableSgprWorkgroupIdX,
                D.Rsrc2.EnableSgprWorkgroupIdY, D.Rsrc2.EnableSgprWorkgroupIdZ,
                D.Rsrc2.EnableSgprWorkgroupInfo, D.Rsrc2.EnableVgprWorkitemId,
                D.Rsrc2.GranulatedLdsSize);
  OS << formatv("    rsrc3 {0:x8}: accum_offset {1} (AGPRs from v{2}), "
                "tg_split {3}\n",
                D.ComputePgmRsrc3, D.Rsrc3.AccumOffset, D.accumOffsetInVgprs(),
                D.Rsrc3.TgSplit);
  const KernelCodeProperties &P = D.Properties;
  std::string Props;
  auto Add = [&](bool On, StringRef Name) {
    if (On)
      Props += (Props.empty() ? "" : ", ") + Name.str();
  };
  Add(P.EnableSgprPrivateSegmentBuffer, "private_segment_buffer");
  Add(P.EnableSgprDispatchPtr, "dispatch_ptr");
  Add(P.EnableSgprQueuePtr, "queue_ptr");
  Add(P.EnableSgprKernargSegmentPtr, "kernarg_segment_ptr");
  Add(P.EnableSgprDispatchId, "dispatch_id");
  Add(P.EnableSgprFlatScratchInit, "flat_scratch_init");
  Add(P.EnableSgprPrivateSegmentSize, "private_segment_size");
  Add(P.EnableWavefrontSize32, "wavefront_size32");
  Add(P.UsesDynamicStack, "uses_dynamic_stack");
  OS << formatv("    kernel_code_properties {0:x4}: {1}\n",
                D.KernelCodePropertiesRaw, Props.empty() ? "none" : Props);

  const KernelMetadata *M = CO.metadataOf(K);
  if (!M) {
    OS << "    (no metadata entry)\n";
    return;
  }
  OS << formatv("    registers: sgpr {0}, vgpr {1}, agpr {2}; spills: sgpr "
                "{3}, vgpr {4}; wavefront {5}\n",
                M->SgprCount, M->VgprCount, M->AgprCount, M->SgprSpillCount,
                M->VgprSpillCount, M->WavefrontSize);
  OS << formatv("    kernarg segment {0} bytes, align {1}; max flat "
                "workgroup {2}; uniform work-group size {3}; dynamic stack "
                "{4}\n",
                M->KernargSegmentSize, M->KernargSegmentAlign,
                M->MaxFlatWorkgroupSize,
                M->UniformWorkgroupSize ? (*M->UniformWorkgroupSize ? "yes" : "no")
                                        : "-",
                M->UsesDynamicStack ? (*M->UsesDynamicStack ? "yes" : "no")
                                    : "-");
  OS << formatv("    arguments ({0}):\n", M->Args.size());
  OS << formatv("      {0,6} {1,5}  {2,-28} {3,-9} {4,-11} {5}\n", "offset",
                "size", "value kind", "addrspace", "access", "name : type");
  for (const KernelArgMetadata &A : M->Args) {
    std::string Access = A.Access.empty() ? A.ActualAccess : A.Access;
    std::string NameType = A.Name;
    if (!A.TypeName.empty())
      NameType += " : " + A.TypeName;
    OS << formatv("      {0,6} {1,5}  {2,-28} {3,-9} {4,-11} {5}\n", A.Offset,
                  A.Size, A.ValueKind,
                  A.AddressSpace.empty() ? "-" : A.AddressSpace,
                  Access.empty() ? "-" : Access, NameType);
  }
}

} // namespace

void printInspectTables(const Input &In, raw_ostream &OS) {
  OS << In.Path << ": " << inputKindName(In.Kind) << ", "
     << In.CodeObjects.size() << " AMDGPU code object"
     << (In.CodeObjects.size() == 1 ? "" : "s") << "\n";
  for (const OtherBundleEntry &O : In.OtherEntries)
    OS << formatv("  other bundle entry {0} (offset {1}, {2} bytes)\n",
                  O.EntryId, hex(O.FileOffset), O.Size);
  size_t Index = 0;
  for (const EmbeddedCodeObject &E : In.CodeObjects) {
    const CodeObject &CO = *E.Object;
    OS << "\n== code object " << ++Index << " of " << In.CodeObjects.size();
    if (!E.EntryId.empty())
      OS << ": " << E.EntryId;
    OS << formatv(" (file offset {0}, {1} bytes)\n", hex(E.FileOffset),
                  CO.bytes().size());
    const TargetId &T = CO.target();
    OS << formatv("target      {0} (xnack {1}, sramecc {2})\n", T.str(),
                  featureSettingName(T.Xnack), featureSettingName(T.Sramecc));
    OS << formatv("abi         code object v{0}, e_flags {1:x}, loaded size "
                  "{2} bytes\n",
                  CO.abiVersion(), CO.elfFlags(), CO.loadedSize());

    OS << "\nKernels (" << CO.kernels().size() << ")\n";
    for (const Kernel &K : CO.kernels())
      printKernel(OS, CO, K);

    std::vector<SymbolInfo> Funcs, Vars;
    for (const Function &F : CO.functions())
      Funcs.push_back(F.Sym);
    for (const Variable &V : CO.variables())
      Vars.push_back(V.Sym);
    printSymbols(OS, "Device functions", Funcs);
    printSymbols(OS, "Variables", Vars);

    OS << "\nDynamic relocations (" << CO.dynamicRelocations().size() << ")\n";
    for (const DynamicRelocation &R : CO.dynamicRelocations())
      OS << formatv("  {0,-18} {1,-22} {2} {3:+0;-0}\n", hex(R.Offset),
                    R.TypeName, R.Symbol.empty() ? "-" : R.Symbol, R.Addend);
    OS << "\nUndefined symbols (" << CO.undefinedSymbols().size() << ")\n";
    for (const UndefinedSymbol &U : CO.undefinedSymbols())
      OS << formatv("  {0,-8} {1,-8} {2}\n", bindingName(U.Binding),
                    U.IsFunction ? "function" : "other", U.Name);
    if (!CO.metadata().Printf.empty()) {
      OS << "\nPrintf formats (" << CO.metadata().Printf.size() << ")\n";
      for (const std::string &P : CO.metadata().Printf)
        OS << "  " << P << "\n";
    }
  }
}

int runInspect() {
  Expected<Input> In = readInputFile(InspectFile);
  if (!In)
    return reportError("inspect", In.takeError());
  if (InspectAsJson)
    outs() << formatv("{0:2}", inspectJson(*In)) << "\n";
  else
    printInspectTables(*In, outs());
  return 0;
}

} // namespace loom::cli
