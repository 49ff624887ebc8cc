//===- tests/codeobj/CodeObjectTest.cpp - Facts known from fixture sources ===//
//
// Every expectation here is written in the fixture sources
// (tests/fixtures/*.c, *.cl, hip/*.hip): kernel names, argument offsets and
// sizes, device functions, variable sizes, cross-object references.
//
//===----------------------------------------------------------------------===//

#include "loom/codeobj/Input.h"

#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

using namespace loom::codeobj;

namespace {

std::string fixture(const std::string &Name) {
  return std::string(LOOM_FIXTURE_DIR) + "/" + Name;
}

Input read(const std::string &Name) {
  auto In = readInputFile(fixture(Name));
  if (!In) {
    ADD_FAILURE() << llvm::toString(In.takeError());
    return Input();
  }
  return std::move(*In);
}

const CodeObject &only(const Input &In) {
  EXPECT_EQ(In.CodeObjects.size(), 1u);
  return *In.CodeObjects.at(0).Object;
}

struct ArgFact {
  uint64_t Offset, Size;
  const char *ValueKind;
};

void expectArgs(const CodeObject &CO, llvm::StringRef KernelName,
                std::vector<ArgFact> Expected) {
  const Kernel *K = CO.findKernel(KernelName);
  ASSERT_NE(K, nullptr) << KernelName.str();
  const KernelMetadata *M = CO.metadataOf(*K);
  ASSERT_NE(M, nullptr) << KernelName.str();
  ASSERT_GE(M->Args.size(), Expected.size()) << KernelName.str();
  for (size_t I = 0; I < Expected.size(); ++I) {
    SCOPED_TRACE(KernelName.str() + " arg " + std::to_string(I));
    EXPECT_EQ(M->Args[I].Offset, Expected[I].Offset);
    EXPECT_EQ(M->Args[I].Size, Expected[I].Size);
    EXPECT_EQ(M->Args[I].ValueKind, Expected[I].ValueKind);
  }
}

TEST(CodeObject, KernelsFunctionsAndVariablesOfTheCFixture) {
  for (const char *Name :
       {"gfx90a_v5_kernels.elf", "gfx90a_v4_kernels.elf",
        "gfx942_v5_kernels.elf", "gfx90a_v6_kernels.elf"}) {
    SCOPED_TRACE(Name);
    Input In = read(Name);
    EXPECT_EQ(In.Kind, InputKind::CodeObject);
    const CodeObject &CO = only(In);

    std::vector<std::string> Kernels;
    for (const Kernel &K : CO.kernels())
      Kernels.push_back(K.name().str());
    EXPECT_EQ(Kernels, (std::vector<std::string>{"scale_add", "call_chain",
                                                 "mixed_args"}));
    expectArgs(CO, "scale_add",
               {{0, 8, "global_buffer"}, {8, 8, "global_buffer"},
                {16, 4, "by_value"}});
    expectArgs(CO, "call_chain",
               {{0, 8, "global_buffer"}, {8, 4, "by_value"},
                {12, 4, "by_value"}});
    expectArgs(CO, "mixed_args",
               {{0, 8, "global_buffer"}, {8, 1, "by_value"},
                {10, 2, "by_value"}, {16, 8, "by_value"}});

    // Device functions are symbols: the two non-static helpers and the
    // static one, all local (the default visibility on amdgcn is hidden).
    for (const char *F : {"helper_mul", "helper_sum", "helper_fib"}) {
      const Function *Fn = CO.findFunction(F);
      ASSERT_NE(Fn, nullptr) << F;
      EXPECT_GT(Fn->Sym.Size, 0u) << F;
      EXPECT_EQ(Fn->Sym.Section, ".text") << F;
    }
    EXPECT_EQ(CO.findFunction("scale_add"), nullptr)
        << "kernel entries are kernels, not device functions";

    struct VarFact {
      const char *Name;
      uint64_t Size;
      SymbolBinding Binding;
    };
    for (VarFact V : {VarFact{"table", 256, SymbolBinding::Local},
                      VarFact{"gscale", 4, SymbolBinding::Local},
                      VarFact{"lut", 32, SymbolBinding::Local},
                      VarFact{"counter", 8, SymbolBinding::Global}}) {
      const Variable *Var = CO.findVariable(V.Name);
      ASSERT_NE(Var, nullptr) << V.Name;
      EXPECT_EQ(Var->Sym.Size, V.Size) << V.Name;
      EXPECT_EQ(Var->Sym.Binding, V.Binding) << V.Name;
    }
    // Declared visibility("default"); the others are hidden.
    EXPECT_EQ(CO.findVariable("counter")->Sym.Visibility,
              SymbolVisibility::Default);
    EXPECT_EQ(CO.findVariable("table")->Sym.Visibility,
              SymbolVisibility::Hidden);
    EXPECT_EQ(CO.findVariable("scale_add.kd"), nullptr)
        << "descriptors belong to their kernel";
    EXPECT_TRUE(CO.undefinedSymbols().empty());
  }
}

TEST(CodeObject, TargetAndAbiVersionFromTheElfHeader) {
  struct Fact {
    const char *File;
    const char *Id;
    unsigned Abi;
    FeatureSetting Xnack, Sramecc;
  };
  for (Fact F : {Fact{"gfx90a_v5_kernels.elf", "gfx90a", 5, FeatureSetting::Any,
                      FeatureSetting::Any},
                 Fact{"gfx90a_v4_kernels.elf", "gfx90a", 4, FeatureSetting::Any,
                      FeatureSetting::Any},
                 Fact{"gfx90a_v6_kernels.elf", "gfx90a", 6, FeatureSetting::Any,
                      FeatureSetting::Any},
                 Fact{"gfx942_v5_kernels.elf", "gfx942", 5, FeatureSetting::Any,
                      FeatureSetting::Any},
                 Fact{"gfx90a_v5_xnack_off.elf", "gfx90a:sramecc+:xnack-", 5,
                      FeatureSetting::Off, FeatureSetting::On}}) {
    SCOPED_TRACE(F.File);
    Input In = read(F.File);
    const CodeObject &CO = only(In);
    EXPECT_EQ(CO.target().str(), F.Id);
    EXPECT_EQ(CO.abiVersion(), F.Abi);
    EXPECT_EQ(CO.target().Xnack, F.Xnack);
    EXPECT_EQ(CO.target().Sramecc, F.Sramecc);
    EXPECT_EQ(CO.metadata().Target,
              "amdgcn-amd-amdhsa--" + std::string(F.Id));
  }
}

TEST(CodeObject, DescriptorAgreesWithMetadataAndSymbols) {
  Input In = read("gfx90a_v5_kernels.elf");
  const CodeObject &CO = only(In);
  for (const Kernel &K : CO.kernels()) {
    SCOPED_TRACE(K.name().str());
    const KernelMetadata *M = CO.metadataOf(K);
    ASSERT_NE(M, nullptr);
    EXPECT_EQ(K.Descriptor.Name, K.name().str() + ".kd");
    EXPECT_EQ(M->Symbol, K.Descriptor.Name);
    // The entry offset in the descriptor leads to the kernel's symbol.
    EXPECT_EQ(K.EntryAddress, K.Code.Address);
    EXPECT_EQ(K.KD.KernargSize, M->KernargSegmentSize);
    EXPECT_EQ(K.KD.GroupSegmentFixedSize, M->GroupSegmentFixedSize);
    EXPECT_EQ(K.KD.PrivateSegmentFixedSize, M->PrivateSegmentFixedSize);
    EXPECT_EQ(M->WavefrontSize, 64u);
    EXPECT_TRUE(K.KD.Properties.EnableSgprKernargSegmentPtr);
    EXPECT_FALSE(K.KD.Properties.EnableWavefrontSize32);
    // User SGPR count in rsrc2 is what the enabled properties add up to.
    EXPECT_EQ(K.KD.Rsrc2.UserSgprCount, K.KD.enabledUserSgprCount());
    // Work-group id X is always enabled for a kernel that reads it.
    EXPECT_TRUE(K.KD.Rsrc2.EnableSgprWorkgroupIdX);
    // AGPRs start after the ArchVGPRs the kernel uses.
    EXPECT_GE(K.KD.accumOffsetInVgprs(), M->VgprCount - M->AgprCount);
  }
  // call_chain recurses (helper_fib), so it needs a scratch stack.
  const Kernel *Call = CO.findKernel("call_chain");
  ASSERT_NE(Call, nullptr);
  EXPECT_TRUE(Call->KD.Rsrc2.EnablePrivateSegment);
  EXPECT_TRUE(Call->KD.Properties.UsesDynamicStack);
  EXPECT_EQ(CO.metadataOf(*Call)->UsesDynamicStack, true);
}

TEST(CodeObject, HiddenArgumentsDependOnTheAbiVersion) {
  // mixed_args reads the work-group size. v5 finds it in the implicit
  // arguments, which start with the block counts (AMDGPUUsage "Code Object
  // V5 Metadata"); v4 reads the dispatch packet and has no hidden args.
  auto FirstHidden = [](const char *File) {
    Input In = read(File);
    const CodeObject &CO = only(In);
    const KernelMetadata *M = CO.metadataOf(*CO.findKernel("mixed_args"));
    for (const KernelArgMetadata &A : M->Args)
      if (A.isHidden())
        return std::make_pair(A.ValueKind, A.Offset);
    return std::make_pair(std::string(), uint64_t(0));
  };
  EXPECT_EQ(FirstHidden("gfx90a_v5_kernels.elf"),
            std::make_pair(std::string("hidden_block_count_x"), uint64_t(24)));
  EXPECT_EQ(FirstHidden("gfx90a_v4_kernels.elf").first, "");
  Input V4 = read("gfx90a_v4_kernels.elf");
  EXPECT_TRUE(only(V4).findKernel("mixed_args")->KD.Properties.EnableSgprDispatchPtr);
}

TEST(CodeObject, CrossCodeObjectReferencesAreUndefinedSymbolsAndRelocations) {
  Input Caller = read("xco_caller.elf");
  const CodeObject &CO = only(Caller);
  std::vector<std::string> Undefs;
  for (const UndefinedSymbol &U : CO.undefinedSymbols())
    Undefs.push_back(U.Name);
  EXPECT_EQ(Undefs, (std::vector<std::string>{"xco_shared_add",
                                              "xco_shared_value"}));
  std::vector<std::pair<std::string, std::string>> Relocs;
  for (const DynamicRelocation &R : CO.dynamicRelocations())
    Relocs.push_back({R.TypeName, R.Symbol});
  EXPECT_EQ(Relocs,
            (std::vector<std::pair<std::string, std::string>>{
                {"R_AMDGPU_ABS64", "xco_shared_add"},
                {"R_AMDGPU_ABS64", "xco_shared_value"}}));

  Input Callee = read("xco_callee.elf");
  const CodeObject &Def = only(Callee);
  const Function *Add = Def.findFunction("xco_shared_add");
  ASSERT_NE(Add, nullptr);
  EXPECT_EQ(Add->Sym.Binding, SymbolBinding::Global);
  const Variable *Value = Def.findVariable("xco_shared_value");
  ASSERT_NE(Value, nullptr);
  EXPECT_EQ(Value->Sym.Size, 4u);
  EXPECT_NE(Def.findKernel("xco_callee_kernel"), nullptr);
}

TEST(CodeObject, OpenCLMetadataHasNamesTypesAccessAndPrintf) {
  Input In = read("ocl_kernels.elf");
  const CodeObject &CO = only(In);
  const Kernel *Add = CO.findKernel("ocl_vector_add");
  ASSERT_NE(Add, nullptr);
  const KernelMetadata *M = CO.metadataOf(*Add);
  ASSERT_NE(M, nullptr);
  EXPECT_EQ(M->LanguageName, "OpenCL C");
  std::vector<std::string> Names, Types;
  for (const KernelArgMetadata &A : M->Args) {
    Names.push_back(A.Name);
    Types.push_back(A.TypeName);
  }
  EXPECT_EQ(Names, (std::vector<std::string>{"a", "b", "c", "n"}));
  EXPECT_EQ(Types,
            (std::vector<std::string>{"float*", "float*", "float*", "int"}));
  EXPECT_EQ(M->Args[0].AddressSpace, "global");
  EXPECT_TRUE(M->Args[0].IsConst);
  EXPECT_TRUE(M->Args[0].IsRestrict);
  EXPECT_FALSE(M->Args[2].IsConst);

  const KernelMetadata *R = CO.metadataOf(*CO.findKernel("ocl_reduce"));
  ASSERT_NE(R, nullptr);
  EXPECT_EQ(R->GroupSegmentFixedSize, 256u); // __local int fixed[64]
  EXPECT_EQ(R->Args[2].ValueKind, "dynamic_shared_pointer");
  EXPECT_EQ(R->Args[2].AddressSpace, "local");
  ASSERT_EQ(CO.metadata().Printf.size(), 1u);
  EXPECT_NE(CO.metadata().Printf[0].find("group %d sum %d"), std::string::npos);
}

TEST(Input, BundlesYieldTheCodeObjectsTheyWereMadeFrom) {
  auto Bytes = [](const std::string &Name) {
    auto Buf = llvm::MemoryBuffer::getFile(fixture(Name));
    EXPECT_TRUE(bool(Buf));
    return Buf ? (*Buf)->getBuffer().str() : std::string();
  };
  const std::string Gfx90a = Bytes("gfx90a_v5_kernels.elf");
  const std::string Gfx942 = Bytes("gfx942_v5_kernels.elf");
  for (auto [File, Kind] :
       {std::make_pair("bundle_plain.hipfb", InputKind::OffloadBundle),
        std::make_pair("bundle_compressed.hipfb",
                       InputKind::CompressedOffloadBundle)}) {
    SCOPED_TRACE(File);
    Input In = read(File);
    EXPECT_EQ(In.Kind, Kind);
    ASSERT_EQ(In.CodeObjects.size(), 2u);
    EXPECT_EQ(In.CodeObjects[0].EntryId, "hipv4-amdgcn-amd-amdhsa--gfx90a");
    EXPECT_EQ(In.CodeObjects[1].EntryId, "hipv4-amdgcn-amd-amdhsa--gfx942");
    auto Str = [](const CodeObject &CO) {
      return std::string(reinterpret_cast<const char *>(CO.bytes().data()),
                         CO.bytes().size());
    };
    EXPECT_EQ(Str(*In.CodeObjects[0].Object), Gfx90a);
    EXPECT_EQ(Str(*In.CodeObjects[1].Object), Gfx942);
    ASSERT_EQ(In.OtherEntries.size(), 1u);
    EXPECT_EQ(In.OtherEntries[0].EntryId, "host-x86_64-unknown-linux-gnu-");
  }
}

TEST(Input, HipHostBinaryYieldsItsEmbeddedCodeObject) {
  Input In = read("hip_two_kernels");
  EXPECT_EQ(In.Kind, InputKind::HostBinary);
  ASSERT_EQ(In.CodeObjects.size(), 1u);
  EXPECT_EQ(In.CodeObjects[0].EntryId, "hipv4-amdgcn-amd-amdhsa--gfx90a");
  const CodeObject &CO = *In.CodeObjects[0].Object;
  EXPECT_EQ(CO.target().Processor, "gfx90a");
  EXPECT_NE(CO.findKernel("_Z5saxpyfPKfPfi"), nullptr);
  EXPECT_NE(CO.findKernel("_Z9histogramPKhPji"), nullptr);
  // saxpy(float a, const float *x, float *y, int n)
  expectArgs(CO, "_Z5saxpyfPKfPfi",
             {{0, 4, "by_value"}, {8, 8, "global_buffer"},
              {16, 8, "global_buffer"}, {24, 4, "by_value"}});
  // __shared__ unsigned local[256]
  EXPECT_EQ(CO.findKernel("_Z9histogramPKhPji")->KD.GroupSegmentFixedSize,
            1024u);
  // The embedded object starts on its page in .hip_fatbin, in the file.
  EXPECT_NE(In.CodeObjects[0].FileOffset, 0u);
}

} // namespace
