//===- tests/codeobj/MalformedInputTest.cpp - Bad input is an error ---------===//
//
// Every fixture, damaged one way at a time (truncated, wrong header fields,
// offsets past the end, corrupt metadata, bad bundles), must make readInput
// return an error -- never crash -- whose message is one line, starts with
// the name the caller gave, and names the reason.
//
//===----------------------------------------------------------------------===//

#include "../support/MalformedInputs.h"

#include "loom/codeobj/Input.h"
#include "loom/codeobj/Metadata.h"

#include "llvm/Support/Compression.h"
#include "llvm/Support/MD5.h"

#include <gtest/gtest.h>

#include <random>

using namespace loom::codeobj;
using namespace loom::test;
using llvm::StringRef;

namespace {

constexpr const char *Name = "bad-input.bin";

std::string fixture(const std::string &File) {
  return std::string(LOOM_FIXTURE_DIR) + "/" + File;
}

/// The error readInput gives for \p B, or "" (plus a test failure) if it
/// accepts it. Checks the message contract on the way.
std::string errorOf(const Bytes &B) {
  llvm::Expected<Input> In = readInput(B, Name);
  if (In) {
    ADD_FAILURE() << "accepted a malformed input of " << B.size() << " bytes";
    return "";
  }
  std::string Msg = llvm::toString(In.takeError());
  EXPECT_TRUE(StringRef(Msg).starts_with(Name)) << Msg;
  EXPECT_EQ(Msg.find('\n'), std::string::npos) << Msg;
  EXPECT_EQ(Msg.find('\r'), std::string::npos) << Msg;
  EXPECT_GT(Msg.size(), std::string(Name).size() + 2) << Msg;
  return Msg;
}

#define EXPECT_REASON(Bytes, Reason)                                           \
  do {                                                                         \
    std::string Msg_ = errorOf(Bytes);                                         \
    EXPECT_NE(Msg_.find(Reason), std::string::npos)                            \
        << "message: " << Msg_ << "\nexpected reason: " << (Reason);           \
  } while (0)

/// readInput on \p B either succeeds or fails with a well-formed message.
void expectNoCrash(const Bytes &B) {
  llvm::Expected<Input> In = readInput(B, Name);
  if (In)
    return;
  std::string Msg = llvm::toString(In.takeError());
  EXPECT_TRUE(StringRef(Msg).starts_with(Name)) << Msg;
  EXPECT_EQ(Msg.find('\n'), std::string::npos) << Msg;
}

/// Lengths to cut a file of \p Size bytes at: every length up to 128, every
/// 64th after, and a few random ones (fixed seed).
std::vector<size_t> truncationLengths(size_t Size) {
  std::vector<size_t> L;
  for (size_t N = 0; N <= 128 && N < Size; ++N)
    L.push_back(N);
  for (size_t N = 192; N < Size; N += 64)
    L.push_back(N);
  std::mt19937_64 Rng(Size);
  for (int I = 0; I < 16 && Size > 1; ++I)
    L.push_back(Rng() % Size);
  L.push_back(Size - 1);
  return L;
}

class Truncated : public ::testing::TestWithParam<const char *> {};

TEST_P(Truncated, EveryPrefixIsAnError) {
  Bytes Full = readBytes(fixture(GetParam()));
  ASSERT_TRUE(static_cast<bool>(readInput(Full, Name)))
      << "the untouched fixture must be accepted";
  for (size_t N : truncationLengths(Full.size())) {
    SCOPED_TRACE("truncated to " + std::to_string(N) + " of " +
                 std::to_string(Full.size()) + " bytes");
    Bytes B(Full.begin(), Full.begin() + N);
    std::string Msg = errorOf(B);
    if (N < 4)
      EXPECT_NE(Msg.find("unrecognised file"), std::string::npos) << Msg;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, Truncated,
    ::testing::Values("gfx90a_v5_kernels.elf", "gfx90a_v4_kernels.elf",
                      "ocl_kernels.elf", "xco_caller.elf",
                      "bundle_plain.hipfb", "bundle_compressed.hipfb"));

TEST(MalformedElf, TruncatedHeader) {
  Bytes B = readBytes(fixture("gfx90a_v5_kernels.elf"));
  B.resize(40);
  EXPECT_REASON(B, "smaller than an ELF64 header");
}

TEST(MalformedElf, TruncatedHostBinary) {
  Bytes Full = readBytes(fixture("hip_two_kernels"));
  // Every 512th length keeps this quick; the code-object fixtures above
  // cover every byte of the header.
  for (size_t N = 0; N < Full.size(); N += N < 128 ? 1 : 512) {
    SCOPED_TRACE("truncated to " + std::to_string(N));
    expectNoCrash(Bytes(Full.begin(), Full.begin() + N));
  }
}

TEST(MalformedElf, WrongMachine) {
  Bytes B = readBytes(fixture("gfx90a_v5_kernels.elf"));
  put16(B, elf64::EMachine, llvm::ELF::EM_X86_64);
  // Not AMDGPU, so it is read as a host binary, which has no .hip_fatbin.
  EXPECT_REASON(B, "e_machine 62, not EM_AMDGPU");
  EXPECT_REASON(B, "no .hip_fatbin section");
}

TEST(MalformedElf, WrongMachineInsideABundle) {
  Bytes CO = readBytes(fixture("gfx90a_v5_kernels.elf"));
  put16(CO, elf64::EMachine, llvm::ELF::EM_X86_64);
  Bytes B = bundle::make({{"hipv4-amdgcn-amd-amdhsa--gfx90a", CO}});
  EXPECT_REASON(B, "e_machine is 62, not EM_AMDGPU");
  EXPECT_REASON(B, "#offset=4096: ");
}

TEST(MalformedElf, WrongClass) {
  Bytes B = readBytes(fixture("gfx90a_v5_kernels.elf"));
  B[llvm::ELF::EI_CLASS] = llvm::ELF::ELFCLASS32;
  EXPECT_REASON(B, "not a 64-bit little-endian ELF file");
}

TEST(MalformedElf, WrongEndianness) {
  Bytes B = readBytes(fixture("gfx90a_v5_kernels.elf"));
  B[llvm::ELF::EI_DATA] = llvm::ELF::ELFDATA2MSB;
  EXPECT_REASON(B, "not a 64-bit little-endian ELF file");
}

TEST(MalformedElf, BadAbiVersion) {
  Bytes B = readBytes(fixture("gfx90a_v5_kernels.elf"));
  B[llvm::ELF::EI_ABIVERSION] = 9;
  EXPECT_REASON(B, "unsupported code object ABI version (EI_ABIVERSION 9)");
}

TEST(MalformedElf, BadOsAbi) {
  Bytes B = readBytes(fixture("gfx90a_v5_kernels.elf"));
  B[llvm::ELF::EI_OSABI] = llvm::ELF::ELFOSABI_LINUX;
  EXPECT_REASON(B, "not ELFOSABI_AMDGPU_HSA");
}

TEST(MalformedElf, ProcessorOutsideLLVMsTable) {
  // LLVM's EF_AMDGPU_MACH table ends in llvm_unreachable: Loom must stop
  // these before it (found by fuzz_input).
  for (uint32_t Mach : {0x00u, 0x10u, 0x27u, 0x5bu, 0x7fu, 0xffu}) {
    SCOPED_TRACE("EF_AMDGPU_MACH " + std::to_string(Mach));
    Bytes B = readBytes(fixture("gfx90a_v5_kernels.elf"));
    put32(B, elf64::EFlags, (get32(B, elf64::EFlags) & ~0xffu) | Mach);
    EXPECT_REASON(B, "EF_AMDGPU_MACH");
  }
}

TEST(MalformedElf, LoadSegmentOffsetPastEnd) {
  Bytes B = readBytes(fixture("gfx90a_v5_kernels.elf"));
  std::optional<uint64_t> Ph = findPhdr(B, llvm::ELF::PT_LOAD);
  ASSERT_TRUE(Ph);
  put64(B, *Ph + elf64::POffset, B.size() + 0x1000);
  EXPECT_REASON(B, "PT_LOAD segment");
  EXPECT_REASON(B, "extends past the end of the file");
}

TEST(MalformedElf, LoadSegmentSizePastEnd) {
  Bytes B = readBytes(fixture("gfx90a_v5_kernels.elf"));
  std::optional<uint64_t> Ph = findPhdr(B, llvm::ELF::PT_LOAD);
  ASSERT_TRUE(Ph);
  put64(B, *Ph + elf64::PFilesz, ~uint64_t(0) - 8);
  put64(B, *Ph + elf64::PMemsz, ~uint64_t(0) - 8);
  EXPECT_REASON(B, "extends past the end of the file");
}

TEST(MalformedElf, ProgramHeadersPastEnd) {
  Bytes B = readBytes(fixture("gfx90a_v5_kernels.elf"));
  put64(B, elf64::EPhoff, B.size() - 8);
  errorOf(B);
}

TEST(MalformedElf, SectionHeadersPastEnd) {
  Bytes B = readBytes(fixture("gfx90a_v5_kernels.elf"));
  put64(B, elf64::EShoff, ~uint64_t(0) - 0x100);
  errorOf(B);
}

TEST(MalformedElf, KernelDescriptorOutsideTheImage) {
  Bytes B = readBytes(fixture("gfx90a_v5_kernels.elf"));
  std::vector<uint64_t> KDs = findSymbols(
      B, llvm::ELF::SHT_SYMTAB, [](StringRef N) { return N.ends_with(".kd"); });
  ASSERT_FALSE(KDs.empty());
  put64(B, KDs[0] + elf64::StValue, 0x7fff0000);
  EXPECT_REASON(B, "kernel descriptor");
  EXPECT_REASON(B, "are not in the file image of any PT_LOAD segment");
}

TEST(MalformedElf, KernelDescriptorStraddlingTheImageEnd) {
  Bytes B = readBytes(fixture("gfx90a_v5_kernels.elf"));
  std::vector<uint64_t> KDs = findSymbols(
      B, llvm::ELF::SHT_SYMTAB, [](StringRef N) { return N.ends_with(".kd"); });
  ASSERT_FALSE(KDs.empty());
  // 8 bytes before the end of the first PT_LOAD's file image.
  std::optional<uint64_t> Ph = findPhdr(B, llvm::ELF::PT_LOAD);
  ASSERT_TRUE(Ph);
  put64(B, KDs[0] + elf64::StValue,
        get64(B, *Ph + elf64::PVaddr) + get64(B, *Ph + elf64::PFilesz) - 8);
  EXPECT_REASON(B, "are not in the file image of any PT_LOAD segment");
}

TEST(MalformedElf, KernelDescriptorWithWrongSize) {
  Bytes B = readBytes(fixture("gfx90a_v5_kernels.elf"));
  std::vector<uint64_t> KDs = findSymbols(
      B, llvm::ELF::SHT_SYMTAB, [](StringRef N) { return N.ends_with(".kd"); });
  ASSERT_FALSE(KDs.empty());
  put64(B, KDs[0] + elf64::StSize, 1 << 20);
  EXPECT_REASON(B, "has size 1048576, not 64");
}

TEST(MalformedElf, SymbolNameOffsetPastStringTable) {
  Bytes B = readBytes(fixture("gfx90a_v5_kernels.elf"));
  std::vector<uint64_t> Syms = findSymbols(
      B, llvm::ELF::SHT_SYMTAB, [](StringRef N) { return !N.empty(); });
  ASSERT_FALSE(Syms.empty());
  put32(B, Syms[0] + elf64::StName, 0x7fffffff);
  errorOf(B);
}

TEST(MalformedElf, SymbolInNonexistentSection) {
  Bytes B = readBytes(fixture("gfx90a_v5_kernels.elf"));
  std::vector<uint64_t> KDs = findSymbols(
      B, llvm::ELF::SHT_SYMTAB, [](StringRef N) { return N.ends_with(".kd"); });
  ASSERT_FALSE(KDs.empty());
  put16(B, KDs[0] + elf64::StShndx, 0xfeee);
  errorOf(B);
}

TEST(MalformedMetadata, FirstByteIsNotMsgpack) {
  Bytes B = readBytes(fixture("gfx90a_v5_kernels.elf"));
  std::optional<NoteLocation> Note = findMetadataNote(B);
  ASSERT_TRUE(Note);
  B[Note->Desc] = 0xc1; // the one byte msgpack never uses
  EXPECT_REASON(B, "malformed msgpack in NT_AMDGPU_METADATA");
}

TEST(MalformedMetadata, FlippedBytesNeverCrash) {
  Bytes Orig = readBytes(fixture("gfx90a_v5_kernels.elf"));
  std::optional<NoteLocation> Note = findMetadataNote(Orig);
  ASSERT_TRUE(Note);
  std::mt19937 Rng(42);
  unsigned Errors = 0;
  for (int I = 0; I < 300; ++I) {
    Bytes B = Orig;
    for (int J = 0; J < 1 + I % 4; ++J)
      B[Note->Desc + Rng() % Note->DescSize] ^= uint8_t(1 + Rng() % 255);
    llvm::Expected<Input> In = readInput(B, Name);
    if (In)
      continue;
    ++Errors;
    std::string Msg = llvm::toString(In.takeError());
    EXPECT_TRUE(StringRef(Msg).starts_with(Name)) << Msg;
    EXPECT_EQ(Msg.find('\n'), std::string::npos) << Msg;
    EXPECT_TRUE(StringRef(Msg).contains_insensitive("metadata")) << Msg;
  }
  EXPECT_GT(Errors, 0u);
}

TEST(MalformedMetadata, TruncatedByNoteSize) {
  Bytes Orig = readBytes(fixture("gfx90a_v5_kernels.elf"));
  std::optional<NoteLocation> Note = findMetadataNote(Orig);
  ASSERT_TRUE(Note);
  for (uint32_t Size : {0u, 1u, 7u, Note->DescSize / 2, Note->DescSize - 1}) {
    SCOPED_TRACE("descsz " + std::to_string(Size));
    Bytes B = Orig;
    put32(B, Note->Header + 4, Size);
    EXPECT_REASON(B, "malformed msgpack in NT_AMDGPU_METADATA");
  }
}

TEST(MalformedMetadata, NoteSizePastSegment) {
  Bytes B = readBytes(fixture("gfx90a_v5_kernels.elf"));
  std::optional<NoteLocation> Note = findMetadataNote(B);
  ASSERT_TRUE(Note);
  put32(B, Note->Header + 4, 0xfffffff0);
  errorOf(B);
}

/// A string literal with its embedded NULs, without the terminating one.
template <size_t N> StringRef blob(const char (&S)[N]) {
  return StringRef(S, N - 1);
}

TEST(MalformedMetadata, MapKeysThatAreMaps) {
  // {{}: 105, {}: ...}: msgpack::Document orders map keys with an operator<
  // that reaches llvm_unreachable for two map keys (found by fuzz_metadata).
  llvm::Expected<Metadata> MD = Metadata::parse(blob("\x83\x83\x69\x83"));
  ASSERT_FALSE(static_cast<bool>(MD));
  EXPECT_NE(llvm::toString(MD.takeError()).find("map key is an array or a map"),
            std::string::npos);
  // {[]: 1, []: 2}
  MD = Metadata::parse(blob("\x82\x90\x01\x90\x02"));
  ASSERT_FALSE(static_cast<bool>(MD));
  llvm::consumeError(MD.takeError());
}

TEST(MalformedMetadata, HugeArrayAndMapHeadersDoNotAllocate) {
  // array32 / map32 headers claiming 4G entries, followed by almost nothing.
  for (StringRef Blob :
       {blob("\x81\xae" "amdhsa.version" "\xdd\xff\xff\xff\xff\x01\x02"),
        blob("\xdf\xff\xff\xff\xff\xa1" "x" "\x01"),
        blob("\x81\xae" "amdhsa.kernels" "\xdd\xff\xff\xff\xff\x80")}) {
    llvm::Expected<Metadata> MD = Metadata::parse(Blob);
    ASSERT_FALSE(static_cast<bool>(MD));
    std::string Msg = llvm::toString(MD.takeError());
    EXPECT_NE(Msg.find("malformed msgpack"), std::string::npos) << Msg;
  }
}

TEST(MalformedMetadata, WrongTypesNameTheKey) {
  // {"amdhsa.version": "x"}
  llvm::Expected<Metadata> MD =
      Metadata::parse(blob("\x81\xae" "amdhsa.version" "\xa1" "x"));
  ASSERT_FALSE(static_cast<bool>(MD));
  EXPECT_EQ(llvm::toString(MD.takeError()),
            "metadata amdhsa.version: expected an array");
}

TEST(MalformedBundle, EntryOffsetPastEnd) {
  Bytes B = readBytes(fixture("bundle_plain.hipfb"));
  std::vector<bundle::Entry> E = bundle::entries(B);
  ASSERT_EQ(E.size(), 3u);
  put64(B, E[1].Header, B.size() + 16);
  EXPECT_REASON(B, "offload bundle entry 'hipv4-amdgcn-amd-amdhsa--gfx90a'");
  EXPECT_REASON(B, "extends past the end of its bundle");
}

TEST(MalformedBundle, EntrySizePastEnd) {
  Bytes B = readBytes(fixture("bundle_plain.hipfb"));
  std::vector<bundle::Entry> E = bundle::entries(B);
  ASSERT_EQ(E.size(), 3u);
  put64(B, E[2].Header + 8, ~uint64_t(0));
  EXPECT_REASON(B, "extends past the end of its bundle");
}

TEST(MalformedBundle, HugeEntryCount) {
  Bytes B = readBytes(fixture("bundle_plain.hipfb"));
  put64(B, bundle::Count, uint64_t(1) << 60);
  EXPECT_REASON(B, "offload bundle header claims 1152921504606846976 entries");
}

TEST(MalformedBundle, EntryCountOneTooMany) {
  Bytes B = readBytes(fixture("bundle_plain.hipfb"));
  put64(B, bundle::Count, 4);
  EXPECT_REASON(B, "truncated offload bundle header");
}

TEST(MalformedBundle, HugeIdLength) {
  Bytes B = readBytes(fixture("bundle_plain.hipfb"));
  std::vector<bundle::Entry> E = bundle::entries(B);
  put64(B, E[0].Header + 16, ~uint64_t(0) - 3);
  EXPECT_REASON(B, "extends past the end");
}

TEST(MalformedBundle, OverlappingEntries) {
  Bytes B = readBytes(fixture("bundle_plain.hipfb"));
  std::vector<bundle::Entry> E = bundle::entries(B);
  ASSERT_EQ(E.size(), 3u);
  put64(B, E[2].Header, E[1].Offset);
  put64(B, E[2].Header + 8, E[1].Size);
  EXPECT_REASON(B, "overlap");
}

TEST(MalformedBundle, EntryIdWithLineBreaksStaysOneLine) {
  Bytes CO = readBytes(fixture("gfx90a_v5_kernels.elf"));
  Bytes B = bundle::make({{"hipv4-amdgcn-amd-amdhsa--gfx90a\nsecond line", CO}});
  std::vector<bundle::Entry> E = bundle::entries(B);
  put64(B, E[0].Header + 8, B.size());
  EXPECT_REASON(B, "gfx90a\\nsecond line");
}

TEST(MalformedBundle, EmbeddedCodeObjectErrorNamesItsOffset) {
  Bytes CO = readBytes(fixture("gfx90a_v5_kernels.elf"));
  CO[llvm::ELF::EI_ABIVERSION] = 0; // code object v2
  Bytes B = bundle::make({{"host-x86_64-unknown-linux-gnu-", {}},
                          {"hipv4-amdgcn-amd-amdhsa--gfx90a", CO}});
  EXPECT_REASON(B, std::string(Name) + "#offset=4096: unsupported code object "
                                       "ABI version");
}

TEST(MalformedBundle, JustTheMagic) {
  Bytes B(24);
  std::memcpy(B.data(), "__CLANG_OFFLOAD_BUNDLE__", 24);
  EXPECT_REASON(B, "no room for the entry count");
}

class CompressedBundle : public ::testing::Test {
protected:
  void SetUp() override {
    B = readBytes(fixture("bundle_compressed.hipfb"));
    ASSERT_EQ(get16(B, ccob::Version), 3u) << "expected a version 3 header";
  }
  Bytes B;
};

TEST_F(CompressedBundle, UnknownVersion) {
  for (uint16_t V : {0, 4, 7, 0xffff}) {
    SCOPED_TRACE("version " + std::to_string(V));
    Bytes C = B;
    put16(C, ccob::Version, V);
    EXPECT_REASON(C, "compressed offload bundle version " + std::to_string(V) +
                         " is not supported");
  }
}

TEST_F(CompressedBundle, UnknownMethod) {
  put16(B, ccob::Method, 9);
  EXPECT_REASON(B, "unknown compressing method");
}

TEST_F(CompressedBundle, BadHash) {
  put64(B, ccob::HashV3, get64(B, ccob::HashV3) ^ 1);
  EXPECT_REASON(B, "hash does not match");
}

TEST_F(CompressedBundle, HugeUncompressedSize) {
  put64(B, ccob::UncompressedSizeV3, uint64_t(1) << 40);
  EXPECT_REASON(B, "claims 1099511627776 uncompressed bytes");
}

TEST_F(CompressedBundle, WrongUncompressedSize) {
  put64(B, ccob::UncompressedSizeV3, get64(B, ccob::UncompressedSizeV3) - 1);
  EXPECT_REASON(B, "cannot decompress offload bundle");
}

TEST_F(CompressedBundle, FileSizePastEnd) {
  put64(B, ccob::FileSizeV3, B.size() + 1);
  EXPECT_REASON(B, "only " + std::to_string(B.size()) + " are present");
}

TEST_F(CompressedBundle, FileSizeInsideHeader) {
  put64(B, ccob::FileSizeV3, 12);
  errorOf(B);
}

TEST_F(CompressedBundle, CorruptPayload) {
  for (size_t I = ccob::HeaderSizeV3; I < B.size(); I += 97) {
    Bytes C = B;
    C[I] ^= 0x5a;
    SCOPED_TRACE("byte " + std::to_string(I));
    errorOf(C);
  }
}

/// A version 3 compressed bundle of \p Inner (zlib), with a correct hash.
Bytes compressV3(const Bytes &Inner) {
  llvm::SmallVector<uint8_t, 0> Packed;
  llvm::compression::zlib::compress(Inner, Packed);
  Bytes C(ccob::HeaderSizeV3);
  std::memcpy(C.data(), "CCOB", 4);
  put16(C, ccob::Version, 3);
  put16(C, ccob::Method, uint16_t(llvm::compression::Format::Zlib));
  put64(C, ccob::FileSizeV3, ccob::HeaderSizeV3 + Packed.size());
  put64(C, ccob::UncompressedSizeV3, Inner.size());
  put64(C, ccob::HashV3, llvm::MD5::hash(Inner).low());
  C.insert(C.end(), Packed.begin(), Packed.end());
  return C;
}

TEST(CompressedBundleContents, BadBundleInside) {
  if (!llvm::compression::zlib::isAvailable())
    GTEST_SKIP() << "LLVM built without zlib";
  Bytes Inner = readBytes(fixture("bundle_plain.hipfb"));
  ASSERT_TRUE(static_cast<bool>(readInput(compressV3(Inner), Name)))
      << "the test's own compressed bundle must be accepted";
  // Decompresses fine, hash matches, but the bundle inside is bad: the
  // bundle checks still apply to the decompressed bytes.
  put64(Inner, bundle::Count, 1000);
  EXPECT_REASON(compressV3(Inner), "offload bundle header claims 1000 entries");
}

TEST(CompressedBundleContents, NotABundleInside) {
  if (!llvm::compression::zlib::isAvailable())
    GTEST_SKIP() << "LLVM built without zlib";
  Bytes Inner = readBytes(fixture("gfx90a_v5_kernels.elf"));
  EXPECT_REASON(compressV3(Inner), "decompressed offload bundle has no bundle "
                                   "header");
}

TEST(CompressedBundleContents, CompressedInsideCompressed) {
  if (!llvm::compression::zlib::isAvailable())
    GTEST_SKIP() << "LLVM built without zlib";
  Bytes Inner = readBytes(fixture("bundle_compressed.hipfb"));
  EXPECT_REASON(compressV3(Inner), "decompressed offload bundle has no bundle "
                                   "header");
}

TEST(MalformedHostBinary, NoHipFatbin) {
  Bytes B = readBytes(fixture("hip_two_kernels"));
  std::optional<uint64_t> Sec = findSection(B, ".hip_fatbin");
  ASSERT_TRUE(Sec);
  B[sectionNameOffset(B, *Sec) + 10] = 'X'; // ".hip_fatbiX"
  EXPECT_REASON(B, "no .hip_fatbin section");
}

TEST(MalformedHostBinary, FatbinOffsetPastEnd) {
  Bytes B = readBytes(fixture("hip_two_kernels"));
  std::optional<uint64_t> Sec = findSection(B, ".hip_fatbin");
  ASSERT_TRUE(Sec);
  put64(B, *Sec + elf64::ShOffset, B.size() - 16);
  EXPECT_REASON(B, ".hip_fatbin");
}

TEST(MalformedHostBinary, FatbinWithoutABundle) {
  Bytes B = readBytes(fixture("hip_two_kernels"));
  std::optional<uint64_t> Sec = findSection(B, ".hip_fatbin");
  ASSERT_TRUE(Sec);
  B[get64(B, *Sec + elf64::ShOffset)] = 'x';
  EXPECT_REASON(B, ".hip_fatbin does not start with an offload bundle");
}

TEST(MalformedHostBinary, BundleInsideFatbinWithHugeEntryCount) {
  Bytes B = readBytes(fixture("hip_two_kernels"));
  std::optional<uint64_t> Sec = findSection(B, ".hip_fatbin");
  ASSERT_TRUE(Sec);
  uint64_t Off = get64(B, *Sec + elf64::ShOffset);
  put64(B, Off + bundle::Count, ~uint64_t(0));
  EXPECT_REASON(B, "entries, more than");
}

TEST(MalformedInput, UnrecognisedBytes) {
  EXPECT_REASON(Bytes{}, "unrecognised file");
  EXPECT_REASON(Bytes({'C', 'C', 'O'}), "unrecognised file");
  Bytes Text(100, 'a');
  EXPECT_REASON(Text, "unrecognised file");
}

TEST(MalformedInput, MissingFile) {
  llvm::Expected<Input> In = readInputFile("/nonexistent/loom-test.elf");
  ASSERT_FALSE(static_cast<bool>(In));
  std::string Msg = llvm::toString(In.takeError());
  EXPECT_TRUE(StringRef(Msg).starts_with("/nonexistent/loom-test.elf: "))
      << Msg;
}

} // namespace
