//===- tests/runtime/loader/ReaderTest.cpp - Code object readers, ISAs ----===//

#include "LoaderTestUtil.h"

#include "loom/runtime/loader/Agent.h"

#include "llvm/Support/FormatVariadic.h"

#include <fcntl.h>
#include <unistd.h>

using namespace loom;
using namespace loom::loader;
using namespace loom::loader::test;

namespace {

using ReaderTest = LoaderFixture;

TEST(TargetIdTest, ParsesProcessorAndFeatures) {
  auto T = parseTargetId("amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-");
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  EXPECT_EQ(T->Processor, "gfx90a");
  EXPECT_EQ(T->Sramecc, codeobj::FeatureSetting::On);
  EXPECT_EQ(T->Xnack, codeobj::FeatureSetting::Off);
  EXPECT_EQ(T->str(), "gfx90a:sramecc+:xnack-");

  auto Plain = parseTargetId("gfx942");
  ASSERT_TRUE(bool(Plain));
  EXPECT_EQ(Plain->Xnack, codeobj::FeatureSetting::Any);

  EXPECT_EQ(kindOf(parseTargetId("x86_64")), LoaderErrc::InvalidArgument);
  EXPECT_EQ(kindOf(parseTargetId("gfx90a:xnack")), LoaderErrc::InvalidArgument);
  EXPECT_EQ(kindOf(parseTargetId("gfx90a:tgsplit+")),
            LoaderErrc::InvalidArgument);
}

TEST(TargetIdTest, CompatibilityFollowsTargetIdRules) {
  auto Agent = *parseTargetId("gfx90a:sramecc+:xnack-");
  EXPECT_FALSE(bool(checkIsaCompatible(*parseTargetId("gfx90a"), Agent)));
  EXPECT_FALSE(
      bool(checkIsaCompatible(*parseTargetId("gfx90a:xnack-"), Agent)));
  EXPECT_FALSE(bool(
      checkIsaCompatible(*parseTargetId("gfx90a:sramecc+:xnack-"), Agent)));
  std::string Msg;
  EXPECT_EQ(kindOf(checkIsaCompatible(*parseTargetId("gfx90a:xnack+"), Agent),
                   &Msg),
            LoaderErrc::IncompatibleIsa);
  EXPECT_NE(Msg.find("xnack"), std::string::npos) << Msg;
  EXPECT_EQ(kindOf(checkIsaCompatible(*parseTargetId("gfx90a:sramecc-"), Agent),
                   &Msg),
            LoaderErrc::IncompatibleIsa);
  EXPECT_NE(Msg.find("sramecc"), std::string::npos) << Msg;
  EXPECT_EQ(kindOf(checkIsaCompatible(*parseTargetId("gfx942"), Agent), &Msg),
            LoaderErrc::IncompatibleIsa);
  EXPECT_NE(Msg.find("processor"), std::string::npos) << Msg;
  // The exact match scores above the "any" one.
  EXPECT_GT(isaMatchScore(*parseTargetId("gfx90a:sramecc+:xnack-"), Agent),
            isaMatchScore(*parseTargetId("gfx90a"), Agent));
}

TEST_F(ReaderTest, AgentIsaDefaultsToTheDeviceMode) {
  EXPECT_EQ(Agent.Isa.str(), "gfx90a:sramecc+:xnack-");
  EXPECT_EQ(Agent.Device, Dev.get());
}

TEST_F(ReaderTest, MemoryReaderRejectsNullAndEmpty) {
  uint8_t Byte = 0;
  EXPECT_EQ(kindOf(CodeObjectReader::fromMemory(nullptr, 16)),
            LoaderErrc::InvalidArgument);
  EXPECT_EQ(kindOf(CodeObjectReader::fromMemory(&Byte, 0)),
            LoaderErrc::InvalidArgument);
}

TEST_F(ReaderTest, MemoryReaderCopiesTheBytes) {
  std::vector<uint8_t> Bytes = fileBytes(fixture("gfx90a_v5_kernels.elf"));
  ASSERT_FALSE(Bytes.empty());
  auto R = CodeObjectReader::fromMemory(Bytes.data(), Bytes.size());
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_FALSE(bool((*R)->check()));
  EXPECT_EQ((*R)->storage(), ReaderStorage::Memory);
  EXPECT_EQ((*R)->memoryBase(), Bytes.data());
  EXPECT_EQ((*R)->size(), Bytes.size());
  // The caller's buffer may go away before the load.
  const void *Where = Bytes.data();
  std::fill(Bytes.begin(), Bytes.end(), 0xAB);
  Bytes.clear();
  Bytes.shrink_to_fit();
  auto E = Executable::create();
  auto L = E->loadAgentCodeObject(Agent, **R);
  ASSERT_TRUE(bool(L)) << llvm::toString(L.takeError());
  EXPECT_EQ(L->storage(), ReaderStorage::Memory);
  EXPECT_EQ(L->storageMemoryBase(), reinterpret_cast<uint64_t>(Where));
  EXPECT_EQ(L->storageMemorySize(), (*R)->size());
  EXPECT_EQ(L->uri(), "memory://" + std::to_string(::getpid()) + "#offset=" +
                          llvm::formatv("{0:x}", reinterpret_cast<uint64_t>(Where))
                              .str() +
                          "&size=" + std::to_string((*R)->size()));
}

TEST_F(ReaderTest, GarbageIsAnInvalidCodeObjectAtLoad) {
  const char Junk[] = "this is not a code object, not even an ELF file";
  auto R = CodeObjectReader::fromMemory(Junk, sizeof(Junk));
  ASSERT_TRUE(bool(R)) << "creation accepts any bytes, as ROCr does";
  std::string Msg;
  EXPECT_EQ(kindOf((*R)->check(), &Msg), LoaderErrc::InvalidCodeObject);
  auto E = Executable::create();
  EXPECT_EQ(kindOf(E->loadAgentCodeObject(Agent, **R), &Msg),
            LoaderErrc::InvalidCodeObject);
  EXPECT_FALSE(Msg.empty());
  EXPECT_TRUE(E->loadedCodeObjects().empty());
  EXPECT_TRUE(E->symbols().empty());
}

TEST_F(ReaderTest, TruncatedCodeObjectIsInvalid) {
  std::vector<uint8_t> Bytes = fileBytes(fixture("gfx90a_v5_kernels.elf"));
  ASSERT_GT(Bytes.size(), 2000u);
  for (size_t Cut : {size_t(10), size_t(100), Bytes.size() / 2}) {
    auto R = CodeObjectReader::fromMemory(Bytes.data(), Cut);
    ASSERT_TRUE(bool(R));
    auto E = Executable::create();
    std::string Msg;
    EXPECT_EQ(kindOf(E->loadAgentCodeObject(Agent, **R), &Msg),
              LoaderErrc::InvalidCodeObject)
        << "cut at " << Cut;
    EXPECT_FALSE(Msg.empty());
  }
}

TEST_F(ReaderTest, HostElfIsNotACodeObject) {
  auto R = CodeObjectReader::fromPath("/proc/self/exe");
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  std::string Msg;
  EXPECT_EQ(kindOf((*R)->check(), &Msg), LoaderErrc::InvalidCodeObject);
  auto E = Executable::create();
  EXPECT_EQ(kindOf(E->loadAgentCodeObject(Agent, **R)),
            LoaderErrc::InvalidCodeObject);
}

TEST_F(ReaderTest, FileReaderReportsTheFileUri) {
  std::string Path = fixture("gfx90a_v5_kernels.elf");
  int Fd = ::open(Path.c_str(), O_RDONLY);
  ASSERT_GE(Fd, 0);
  auto R = CodeObjectReader::fromFile(Fd);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ((*R)->storage(), ReaderStorage::File);
  EXPECT_EQ((*R)->fd(), Fd);
  EXPECT_EQ((*R)->path(), Path);
  EXPECT_EQ((*R)->size(), fileBytes(Path).size());
  auto E = Executable::create();
  auto L = E->loadAgentCodeObject(Agent, **R);
  ASSERT_TRUE(bool(L)) << llvm::toString(L.takeError());
  EXPECT_EQ(L->storage(), ReaderStorage::File);
  EXPECT_EQ(L->storageFile(), Fd);
  EXPECT_EQ(L->uri(), "file://" + Path + "#offset=0&size=" +
                          std::to_string((*R)->size()));
  ::close(Fd);
}

TEST_F(ReaderTest, FileReaderWithOffsetAndSize) {
  // A code object embedded at offset 100 of a bigger file.
  std::vector<uint8_t> Co = fileBytes(fixture("xco_callee.elf"));
  ASSERT_FALSE(Co.empty());
  char Tmp[] = "/tmp/loom-loader-XXXXXX";
  int Fd = ::mkstemp(Tmp);
  ASSERT_GE(Fd, 0);
  std::vector<uint8_t> File(100, 0x5a);
  File.insert(File.end(), Co.begin(), Co.end());
  File.insert(File.end(), 50, 0x5a);
  ASSERT_EQ(::write(Fd, File.data(), File.size()), ssize_t(File.size()));
  auto R = CodeObjectReader::fromFile(Fd, 100, Co.size());
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_FALSE(bool((*R)->check()));
  auto E = Executable::create();
  auto L = E->loadAgentCodeObject(Agent, **R);
  ASSERT_TRUE(bool(L)) << llvm::toString(L.takeError());
  EXPECT_EQ(L->uri(), "file://" + std::string(Tmp) + "#offset=100&size=" +
                          std::to_string(Co.size()));
  // Asking for more than the file has is an invalid file.
  EXPECT_EQ(kindOf(CodeObjectReader::fromFile(Fd, 100, File.size())),
            LoaderErrc::InvalidFile);
  ::close(Fd);
  ::unlink(Tmp);
}

TEST_F(ReaderTest, BadFileDescriptorIsAnInvalidFile) {
  EXPECT_EQ(kindOf(CodeObjectReader::fromFile(-1)), LoaderErrc::InvalidFile);
  EXPECT_EQ(kindOf(CodeObjectReader::fromFile(987654)),
            LoaderErrc::InvalidFile);
  EXPECT_EQ(kindOf(CodeObjectReader::fromPath("/nonexistent/loom.co")),
            LoaderErrc::InvalidFile);
  int Dir = ::open("/tmp", O_RDONLY | O_DIRECTORY);
  ASSERT_GE(Dir, 0);
  EXPECT_EQ(kindOf(CodeObjectReader::fromFile(Dir)), LoaderErrc::InvalidFile);
  ::close(Dir);
}

TEST_F(ReaderTest, WrongProcessorIsIncompatible) {
  auto R = reader("gfx942_v5_kernels.elf");
  auto E = Executable::create();
  std::string Msg;
  EXPECT_EQ(kindOf(E->loadAgentCodeObject(Agent, *R), &Msg),
            LoaderErrc::IncompatibleIsa);
  EXPECT_NE(Msg.find("gfx942"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("gfx90a"), std::string::npos) << Msg;
}

TEST_F(ReaderTest, XnackModeMustMatch) {
  auto E = Executable::create();
  std::string Msg;
  auto On = reader("loader_xnack_on.elf");
  EXPECT_EQ(kindOf(E->loadAgentCodeObject(Agent, *On), &Msg),
            LoaderErrc::IncompatibleIsa);
  EXPECT_NE(Msg.find("xnack"), std::string::npos) << Msg;
  auto Off = reader("gfx90a_v5_xnack_off.elf");
  EXPECT_TRUE(bool(E->loadAgentCodeObject(Agent, *Off)));

  // An agent running with xnack on takes the xnack+ build.
  LoaderAgent XnackOn = Agent;
  XnackOn.Handle = 0x2000;
  XnackOn.Isa.Xnack = codeobj::FeatureSetting::On;
  auto E2 = Executable::create();
  EXPECT_TRUE(bool(E2->loadAgentCodeObject(XnackOn, *On)));
}

TEST_F(ReaderTest, BundlesPickTheAgentsEntry) {
  for (const char *Name : {"bundle_plain.hipfb", "bundle_compressed.hipfb"}) {
    SCOPED_TRACE(Name);
    auto R = reader(Name);
    ASSERT_TRUE(R);
    ASSERT_EQ(R->entries().size(), 2u);
    auto E = Executable::create();
    auto L = E->loadAgentCodeObject(Agent, *R);
    ASSERT_TRUE(bool(L)) << llvm::toString(L.takeError());
    EXPECT_EQ(L->codeObject().target().Processor, "gfx90a");
    EXPECT_NE(L->name().find("gfx90a"), llvm::StringRef::npos);
    EXPECT_NE(E->findSymbol("scale_add.kd", Agent.Handle), nullptr);
  }
  // An agent of an ISA no entry has.
  auto R = reader("bundle_plain.hipfb");
  LoaderAgent Other = Agent;
  Other.Isa.Processor = "gfx908";
  auto E = Executable::create();
  std::string Msg;
  EXPECT_EQ(kindOf(E->loadAgentCodeObject(Other, *R), &Msg),
            LoaderErrc::IncompatibleIsa);
  EXPECT_NE(Msg.find("gfx942"), std::string::npos) << Msg;
}

} // namespace
