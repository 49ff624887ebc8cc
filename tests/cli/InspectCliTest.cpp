//===- tests/cli/InspectCliTest.cpp - `loom inspect` against llvm-readobj ==//
//
// `loom inspect --json` must agree with LLVM's own reader (llvm-readobj-22)
// on every symbol and dynamic relocation, and with the fixture sources on
// the facts only the metadata knows.
//
//===----------------------------------------------------------------------===//

#include "../support/RunCommand.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

using namespace loom::test;
using namespace llvm;

namespace {

std::string fixture(const std::string &Name) {
  return std::string(LOOM_FIXTURE_DIR) + "/" + Name;
}

json::Value parseJsonOrFail(const std::string &Text) {
  Expected<json::Value> V = json::parse(Text);
  if (!V) {
    ADD_FAILURE() << toString(V.takeError()) << "\n" << Text.substr(0, 400);
    return nullptr;
  }
  return std::move(*V);
}

json::Value inspectJson(const std::string &File) {
  CommandResult R = runCommand({LOOM_BIN, "inspect", "--json", File});
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  return parseJsonOrFail(R.Out);
}

struct SymbolFact {
  uint64_t Value, Size;
  std::string Binding, Type, Section;
  bool operator==(const SymbolFact &O) const {
    return std::tie(Value, Size, Binding, Type, Section) ==
           std::tie(O.Value, O.Size, O.Binding, O.Type, O.Section);
  }
};

std::ostream &operator<<(std::ostream &OS, const SymbolFact &S) {
  return OS << "{value " << S.Value << ", size " << S.Size << ", "
            << S.Binding << ", " << S.Type << ", " << S.Section << "}";
}

/// Function and object symbols of .symtab as llvm-readobj-22 sees them.
std::map<std::string, SymbolFact> readobjSymbols(const std::string &File) {
  CommandResult R = runCommand(
      {LOOM_LLVM_READOBJ, "--elf-output-style=JSON", "--symbols", File});
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  json::Value V = parseJsonOrFail(R.Out);
  std::map<std::string, SymbolFact> Out;
  const json::Array *Files = V.getAsArray();
  if (!Files || Files->empty())
    return Out;
  for (const json::Value &Entry : *(*Files)[0].getAsObject()->getArray("Symbols")) {
    const json::Object &S = *Entry.getAsObject()->getObject("Symbol");
    std::string Type = S.getObject("Type")->getString("Name")->str();
    if (Type != "Function" && Type != "Object")
      continue;
    std::string Name = S.getObject("Name")->getString("Name")->str();
    Out[Name] = {static_cast<uint64_t>(*S.getInteger("Value")),
                 static_cast<uint64_t>(*S.getInteger("Size")),
                 S.getObject("Binding")->getString("Name")->lower(),
                 Type == "Function" ? "function" : "object",
                 S.getObject("Section")->getString("Name")->str()};
  }
  return Out;
}

/// The same facts from `loom inspect --json`: kernels (entry and
/// descriptor), device functions, variables.
std::map<std::string, SymbolFact> loomSymbols(const json::Object &CO) {
  std::map<std::string, SymbolFact> Out;
  auto Add = [&](const json::Object &S, const std::string &Type) {
    Out[S.getString("name")->str()] = {
        static_cast<uint64_t>(*S.getInteger("address")),
        static_cast<uint64_t>(*S.getInteger("size")),
        S.getString("binding")->str(), Type, S.getString("section")->str()};
  };
  for (const json::Value &K : *CO.getArray("kernels")) {
    const json::Object &KO = *K.getAsObject();
    Add(KO, "function");
    const json::Object &D = *KO.getObject("descriptor");
    Out[D.getString("symbol")->str()] = {
        static_cast<uint64_t>(*D.getInteger("address")), 64,
        KO.getString("binding")->str(), "object", ".rodata"};
  }
  for (const json::Value &F : *CO.getArray("functions"))
    Add(*F.getAsObject(), "function");
  for (const json::Value &V : *CO.getArray("variables"))
    Add(*V.getAsObject(), "object");
  return Out;
}

const char *const RawFixtures[] = {
    "gfx90a_v5_kernels.elf", "gfx90a_v4_kernels.elf", "gfx942_v5_kernels.elf",
    "gfx90a_v6_kernels.elf", "gfx90a_v5_xnack_off.elf", "xco_caller.elf",
    "xco_callee.elf",        "ocl_kernels.elf"};

TEST(InspectCli, SymbolsAgreeWithLlvmReadobj) {
  for (const char *Name : RawFixtures) {
    SCOPED_TRACE(Name);
    json::Value V = inspectJson(fixture(Name));
    const json::Object *Root = V.getAsObject();
    ASSERT_NE(Root, nullptr);
    EXPECT_EQ(*Root->getString("schema"), "loom-inspect/1");
    EXPECT_EQ(*Root->getString("kind"), "code-object");
    const json::Array *Objects = Root->getArray("code_objects");
    ASSERT_TRUE(Objects && Objects->size() == 1);
    std::map<std::string, SymbolFact> Loom =
        loomSymbols(*(*Objects)[0].getAsObject());
    std::map<std::string, SymbolFact> Readobj = readobjSymbols(fixture(Name));
    EXPECT_FALSE(Readobj.empty());
    // The descriptor symbols are .rodata objects, kernel bindings match the
    // entry's; both views must list the same names with the same facts.
    EXPECT_EQ(Loom.size(), Readobj.size());
    for (const auto &[SymName, Fact] : Readobj) {
      auto It = Loom.find(SymName);
      if (It == Loom.end()) {
        ADD_FAILURE() << "loom inspect misses " << SymName;
        continue;
      }
      EXPECT_EQ(It->second, Fact) << SymName;
    }
  }
}

TEST(InspectCli, DynamicRelocationsAgreeWithLlvmReadelf) {
  for (const char *Name : RawFixtures) {
    SCOPED_TRACE(Name);
    // llvm-readelf's text: "Offset Info Type SymValue SymName + Addend".
    CommandResult R =
        runCommand({LOOM_LLVM_READELF, "--dyn-relocations", fixture(Name)});
    ASSERT_EQ(R.ExitCode, 0) << R.Err;
    std::multiset<std::string> Expected, Actual;
    SmallVector<StringRef> Lines;
    StringRef(R.Out).split(Lines, '\n');
    for (StringRef Line : Lines) {
      SmallVector<StringRef> F;
      Line.split(F, ' ', -1, /*KeepEmpty=*/false);
      if (F.size() < 3 || !F[2].starts_with("R_AMDGPU"))
        continue;
      uint64_t Offset;
      ASSERT_FALSE(F[0].getAsInteger(16, Offset)) << Line.str();
      std::string Sym = F.size() >= 5 ? F[4].str() : "";
      Expected.insert(std::to_string(Offset) + " " + F[2].str() + " " + Sym);
    }
    json::Value V = inspectJson(fixture(Name));
    const json::Object &CO =
        *(*V.getAsObject()->getArray("code_objects"))[0].getAsObject();
    for (const json::Value &Rel : *CO.getArray("dynamic_relocations")) {
      const json::Object &O = *Rel.getAsObject();
      Actual.insert(std::to_string(*O.getInteger("offset")) + " " +
                    O.getString("type_name")->str() + " " +
                    O.getString("symbol")->str());
    }
    EXPECT_EQ(Actual, Expected);
  }
}

TEST(InspectCli, KernelArgumentsFromTheHipProgram) {
  json::Value V = inspectJson(fixture("hip_two_kernels"));
  const json::Object &Root = *V.getAsObject();
  EXPECT_EQ(*Root.getString("kind"), "host-binary");
  const json::Array &Objects = *Root.getArray("code_objects");
  ASSERT_EQ(Objects.size(), 1u);
  const json::Object &CO = *Objects[0].getAsObject();
  EXPECT_EQ(*CO.getString("entry_id"), "hipv4-amdgcn-amd-amdhsa--gfx90a");
  EXPECT_EQ(*CO.getObject("target")->getString("processor"), "gfx90a");
  std::map<std::string, const json::Object *> Kernels;
  for (const json::Value &K : *CO.getArray("kernels"))
    Kernels[K.getAsObject()->getString("name")->str()] = K.getAsObject();
  ASSERT_EQ(Kernels.size(), 2u);
  ASSERT_TRUE(Kernels.count("_Z5saxpyfPKfPfi"));
  const json::Object &Saxpy = *Kernels["_Z5saxpyfPKfPfi"];
  EXPECT_EQ(*Saxpy.getString("demangled"),
            "saxpy(float, float const*, float*, int)");
  std::vector<std::pair<int64_t, int64_t>> Args;
  for (const json::Value &A :
       *Saxpy.getObject("metadata")->getArray("args"))
    if (!*A.getAsObject()->getBoolean("hidden"))
      Args.push_back({*A.getAsObject()->getInteger("offset"),
                      *A.getAsObject()->getInteger("size")});
  EXPECT_EQ(Args, (std::vector<std::pair<int64_t, int64_t>>{
                      {0, 4}, {8, 8}, {16, 8}, {24, 4}}));
  ASSERT_TRUE(Kernels.count("_Z9histogramPKhPji"));
  EXPECT_EQ(*Kernels["_Z9histogramPKhPji"]
                 ->getObject("descriptor")
                 ->getInteger("group_segment_fixed_size"),
            1024);
}

TEST(InspectCli, TablesNameEveryKernelFunctionAndVariable) {
  CommandResult R =
      runCommand({LOOM_BIN, "inspect", fixture("gfx90a_v5_kernels.elf")});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  for (const char *Expected :
       {"target      gfx90a", "code object v5", "kernel scale_add",
        "kernel call_chain", "kernel mixed_args", "helper_mul", "helper_sum",
        "helper_fib", "table", "gscale", "lut", "counter",
        "hidden_block_count_x", "Device functions (3)", "Variables (4)"})
    EXPECT_NE(R.Out.find(Expected), std::string::npos) << Expected;
}

TEST(InspectCli, HelpAndUsageErrors) {
  CommandResult Help = runCommand({LOOM_BIN, "inspect", "--help"});
  EXPECT_EQ(Help.ExitCode, 0);
  EXPECT_NE(Help.Out.find("--json"), std::string::npos);
  // LLVM's own options stay hidden.
  EXPECT_EQ(Help.Out.find("--amdgpu"), std::string::npos);

  CommandResult Top = runCommand({LOOM_BIN, "--help"});
  EXPECT_EQ(Top.ExitCode, 0);
  EXPECT_NE(Top.Out.find("inspect"), std::string::npos);
  EXPECT_NE(Top.Out.find("disasm"), std::string::npos);

  CommandResult None = runCommand({LOOM_BIN});
  EXPECT_EQ(None.ExitCode, 1);
  EXPECT_FALSE(None.Err.empty());

  CommandResult Missing =
      runCommand({LOOM_BIN, "inspect", "/nonexistent/loom-file"});
  EXPECT_EQ(Missing.ExitCode, 1);
  EXPECT_EQ(Missing.Err,
            "loom inspect: /nonexistent/loom-file: No such file or directory\n");
  EXPECT_TRUE(Missing.Out.empty());
}

} // namespace
