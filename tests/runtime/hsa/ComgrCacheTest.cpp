//===- tests/runtime/hsa/ComgrCacheTest.cpp - comgr's compile cache -------===//
//
// Loom's libamd_comgr.so.2 (hsa/ComgrCache.cpp), opened as ROCclr opens
// comgr, compiles OpenCL C through the real comgr: a repeated action is
// served from the cache with the same bytes, a damaged entry is rebuilt,
// and actions that may read files, failed actions and "off" leave no entry.
//
//===----------------------------------------------------------------------===//
#include <amd_comgr.h>

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <dlfcn.h>
#include <fstream>
#include <string>
#include <vector>

using namespace llvm;

namespace {

/// Functions of the library under test, by the header's prototypes.
struct Comgr {
  void *Handle = nullptr;
#define LOOM_COMGR_FN(Name) decltype(&::Name) Name = nullptr;
#define LOOM_COMGR_FNS(X)                                                      \
  X(amd_comgr_create_data)                                                     \
  X(amd_comgr_set_data)                                                        \
  X(amd_comgr_set_data_name)                                                   \
  X(amd_comgr_release_data)                                                    \
  X(amd_comgr_create_data_set)                                                 \
  X(amd_comgr_destroy_data_set)                                                \
  X(amd_comgr_data_set_add)                                                    \
  X(amd_comgr_action_data_count)                                               \
  X(amd_comgr_action_data_get_data)                                            \
  X(amd_comgr_get_data)                                                        \
  X(amd_comgr_create_action_info)                                              \
  X(amd_comgr_destroy_action_info)                                             \
  X(amd_comgr_action_info_set_isa_name)                                        \
  X(amd_comgr_action_info_set_language)                                        \
  X(amd_comgr_action_info_set_option_list)                                     \
  X(amd_comgr_do_action)
  LOOM_COMGR_FNS(LOOM_COMGR_FN)
};

class ComgrCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    C.Handle = dlopen(LOOM_COMGR_CACHE_LIB, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(C.Handle, nullptr) << dlerror();
    ASSERT_NE(dlsym(C.Handle, "loom_comgr_cache"), nullptr)
        << "opened the real comgr, not Loom's";
#define LOOM_COMGR_SYM(Name)                                                   \
  C.Name = reinterpret_cast<decltype(C.Name)>(dlsym(C.Handle, #Name));         \
  ASSERT_NE(C.Name, nullptr) << #Name;
    LOOM_COMGR_FNS(LOOM_COMGR_SYM)
    ASSERT_FALSE(sys::fs::createUniqueDirectory("loom-comgr-cache", Dir));
    setenv("LOOM_COMGR_CACHE", Dir.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("LOOM_COMGR_CACHE");
    sys::fs::remove_directories(Dir);
  }

  /// The cache's entries: path and size.
  std::vector<std::pair<std::string, uint64_t>> entries() {
    std::vector<std::pair<std::string, uint64_t>> Out;
    std::error_code EC;
    for (sys::fs::directory_iterator I(Dir, EC), E; I != E && !EC;
         I.increment(EC)) {
      uint64_t Size = 0;
      sys::fs::file_size(I->path(), Size);
      Out.emplace_back(I->path(), Size);
    }
    std::sort(Out.begin(), Out.end());
    return Out;
  }

  /// Runs \p Kind on \p Input; the bytes of the result's first object of
  /// \p Want, or the action's failure.
  amd_comgr_status_t run(amd_comgr_action_kind_t Kind,
                         amd_comgr_data_set_t Input, amd_comgr_data_kind_t Want,
                         std::vector<const char *> Options,
                         amd_comgr_data_set_t &Result, std::string &Bytes) {
    amd_comgr_action_info_t Info;
    EXPECT_EQ(C.amd_comgr_create_action_info(&Info), AMD_COMGR_STATUS_SUCCESS);
    C.amd_comgr_action_info_set_isa_name(Info, "amdgcn-amd-amdhsa--gfx90a");
    C.amd_comgr_action_info_set_language(Info, AMD_COMGR_LANGUAGE_OPENCL_1_2);
    C.amd_comgr_action_info_set_option_list(Info, Options.data(),
                                            Options.size());
    C.amd_comgr_create_data_set(&Result);
    amd_comgr_status_t S = C.amd_comgr_do_action(Kind, Info, Input, Result);
    C.amd_comgr_destroy_action_info(Info);
    size_t Count = 0;
    if (S == AMD_COMGR_STATUS_SUCCESS &&
        C.amd_comgr_action_data_count(Result, Want, &Count) ==
            AMD_COMGR_STATUS_SUCCESS &&
        Count) {
      amd_comgr_data_t Data;
      C.amd_comgr_action_data_get_data(Result, Want, 0, &Data);
      size_t Size = 0;
      C.amd_comgr_get_data(Data, &Size, nullptr);
      Bytes.assign(Size, '\0');
      C.amd_comgr_get_data(Data, &Size, Bytes.data());
      C.amd_comgr_release_data(Data);
    }
    return S;
  }

  /// OpenCL C \p Source to a relocatable object, as ROCclr's blit build
  /// does it (source to bitcode, bitcode to code).
  amd_comgr_status_t compile(const std::string &Source, std::string &Object,
                             std::vector<const char *> Options = {"-O2"}) {
    amd_comgr_data_t Src;
    C.amd_comgr_create_data(AMD_COMGR_DATA_KIND_SOURCE, &Src);
    C.amd_comgr_set_data(Src, Source.size(), Source.data());
    C.amd_comgr_set_data_name(Src, "kernel.cl");
    amd_comgr_data_set_t In, Bc, Reloc;
    C.amd_comgr_create_data_set(&In);
    C.amd_comgr_data_set_add(In, Src);
    C.amd_comgr_release_data(Src);
    std::string Bitcode;
    amd_comgr_status_t S = run(AMD_COMGR_ACTION_COMPILE_SOURCE_TO_BC, In,
                               AMD_COMGR_DATA_KIND_BC, Options, Bc, Bitcode);
    if (S == AMD_COMGR_STATUS_SUCCESS) {
      S = run(AMD_COMGR_ACTION_CODEGEN_BC_TO_RELOCATABLE, Bc,
              AMD_COMGR_DATA_KIND_RELOCATABLE, {"-O2"}, Reloc, Object);
      C.amd_comgr_destroy_data_set(Reloc);
    }
    C.amd_comgr_destroy_data_set(Bc);
    C.amd_comgr_destroy_data_set(In);
    return S;
  }

  Comgr C;
  SmallString<128> Dir;
  const std::string Kernel =
      "kernel void fill(global int *P, int V) { P[V] = V + 1; }\n";
};

TEST_F(ComgrCacheTest, RepeatedActionsAreServedFromTheCache) {
  setenv("LOOM_COMGR_CACHE_LOG", "1", 1);
  std::string First, Second;
  testing::internal::CaptureStderr();
  ASSERT_EQ(compile(Kernel, First), AMD_COMGR_STATUS_SUCCESS);
  std::string Log = testing::internal::GetCapturedStderr();
  EXPECT_NE(Log.find("miss"), std::string::npos) << Log;
  EXPECT_EQ(Log.find("hit"), std::string::npos) << Log;
  auto Entries = entries();
  EXPECT_EQ(Entries.size(), 2u); // source to bitcode, bitcode to code
  ASSERT_FALSE(First.empty());
  EXPECT_EQ(First.compare(0, 4,
                          "\x7f"
                          "ELF"),
            0);

  testing::internal::CaptureStderr();
  ASSERT_EQ(compile(Kernel, Second), AMD_COMGR_STATUS_SUCCESS);
  Log = testing::internal::GetCapturedStderr();
  unsetenv("LOOM_COMGR_CACHE_LOG");
  EXPECT_EQ(Log.find("miss"), std::string::npos) << Log;
  EXPECT_NE(Log.find("hit"), std::string::npos) << Log;
  EXPECT_EQ(First, Second);
  EXPECT_EQ(entries(), Entries);

  // Another kernel is another entry, not the first one's result.
  std::string Other;
  ASSERT_EQ(compile("kernel void k(global int *P) { *P = 7; }\n", Other),
            AMD_COMGR_STATUS_SUCCESS);
  EXPECT_NE(Other, First);
  EXPECT_EQ(entries().size(), 4u);
}

TEST_F(ComgrCacheTest, TheCacheGivesWhatComgrGives) {
  std::string Uncached, Cached, Hit;
  setenv("LOOM_COMGR_CACHE", "off", 1);
  ASSERT_EQ(compile(Kernel, Uncached), AMD_COMGR_STATUS_SUCCESS);
  setenv("LOOM_COMGR_CACHE", Dir.c_str(), 1);
  ASSERT_EQ(compile(Kernel, Cached), AMD_COMGR_STATUS_SUCCESS);
  ASSERT_EQ(compile(Kernel, Hit), AMD_COMGR_STATUS_SUCCESS);
  EXPECT_EQ(Uncached, Cached);
  EXPECT_EQ(Uncached, Hit);
}

TEST_F(ComgrCacheTest, DamagedEntriesAreRebuilt) {
  std::string First, Again;
  setenv("LOOM_COMGR_CACHE_LOG", "1", 1);
  testing::internal::CaptureStderr();
  ASSERT_EQ(compile(Kernel, First), AMD_COMGR_STATUS_SUCCESS);
  std::string Log = testing::internal::GetCapturedStderr();
  // Each step's entry, by the log's "miss NAME (action N".
  auto entryOf = [&](const char *Action) {
    size_t At = Log.find(Action);
    EXPECT_NE(At, std::string::npos) << Log;
    size_t Miss = Log.rfind("miss ", At);
    SmallString<128> Path(Dir);
    sys::path::append(Path, Log.substr(Miss + 5, 32));
    return std::string(Path);
  };
  std::string SourceStep = entryOf("(action 2,"),
              CodeStep = entryOf("(action 6,");
  auto read = [](const std::string &Path) {
    std::ifstream F(Path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(F)), {});
  };
  std::string Code = read(CodeStep), Source = read(SourceStep);
  ASSERT_FALSE(Code.empty());
  ASSERT_FALSE(Source.empty());

  // A byte changed in the middle of the code step's entry: the source step
  // hits, the code step runs again and its entry is whole again.
  std::string Flipped = Code;
  Flipped[Flipped.size() / 2] ^= 0x5a;
  std::ofstream(CodeStep, std::ios::binary | std::ios::trunc) << Flipped;
  testing::internal::CaptureStderr();
  ASSERT_EQ(compile(Kernel, Again), AMD_COMGR_STATUS_SUCCESS);
  Log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(First, Again);
  EXPECT_NE(Log.find("damaged entry " + CodeStep.substr(CodeStep.size() - 32)),
            std::string::npos)
      << Log;
  EXPECT_EQ(read(CodeStep), Code);

  // The source step's entry cut short: it runs again, rewritten whole.
  std::ofstream(SourceStep, std::ios::binary | std::ios::trunc)
      << Source.substr(0, Source.size() / 2);
  testing::internal::CaptureStderr();
  ASSERT_EQ(compile(Kernel, Again), AMD_COMGR_STATUS_SUCCESS);
  Log = testing::internal::GetCapturedStderr();
  unsetenv("LOOM_COMGR_CACHE_LOG");
  EXPECT_EQ(First, Again);
  EXPECT_EQ(Log.find("hit " + SourceStep.substr(SourceStep.size() - 32)),
            std::string::npos)
      << Log;
  EXPECT_EQ(read(SourceStep).size(), Source.size());
}

TEST_F(ComgrCacheTest, ActionsThatMayReadFilesAreNotCached) {
  SmallString<128> Include(Dir);
  sys::path::append(Include, "inc");
  std::string Object;
  setenv("LOOM_COMGR_CACHE_LOG", "1", 1);
  testing::internal::CaptureStderr();
  EXPECT_EQ(compile(Kernel, Object, {"-O2", "-I", Include.c_str()}),
            AMD_COMGR_STATUS_SUCCESS);
  EXPECT_EQ(compile(Kernel, Object, {"-O2", "-Xclang", "-include-pch"}),
            AMD_COMGR_STATUS_ERROR); // no file named: comgr's own failure
  EXPECT_EQ(compile("#if 0\n#include \"absent.h\"\n#endif\n" + Kernel, Object),
            AMD_COMGR_STATUS_SUCCESS);
  std::string Log = testing::internal::GetCapturedStderr();
  unsetenv("LOOM_COMGR_CACHE_LOG");
  // Each source step ran uncached, saying why.
  EXPECT_NE(Log.find("action 2 not cached: option -I"), std::string::npos)
      << Log;
  EXPECT_NE(Log.find("action 2 not cached: option -include-pch"),
            std::string::npos)
      << Log;
  EXPECT_NE(Log.find("action 2 not cached: #include in kernel.cl"),
            std::string::npos)
      << Log;
  EXPECT_EQ(Log.find("(action 2,"), std::string::npos) << Log;
}

TEST_F(ComgrCacheTest, FailuresAndOffLeaveNoEntries) {
  std::string Object;
  EXPECT_NE(compile("kernel void broken( {\n", Object),
            AMD_COMGR_STATUS_SUCCESS);
  EXPECT_TRUE(entries().empty());
  setenv("LOOM_COMGR_CACHE", "off", 1);
  ASSERT_EQ(compile(Kernel, Object), AMD_COMGR_STATUS_SUCCESS);
  EXPECT_TRUE(entries().empty());
}

} // namespace
