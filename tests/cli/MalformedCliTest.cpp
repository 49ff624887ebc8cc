//===- tests/cli/MalformedCliTest.cpp - `loom inspect` on bad files --------===//
//
// For a malformed file, `loom inspect` (plain and --json) must print nothing
// on stdout, exactly one line on stderr -- "loom inspect: <path>: <reason>"
// -- and exit with code 1, never die by a signal. The files are written at
// test time into the test's working directory in the build tree.
//
//===----------------------------------------------------------------------===//

#include "../support/MalformedInputs.h"
#include "../support/RunCommand.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <unistd.h>

using namespace loom::test;
using llvm::StringRef;

namespace {

std::string fixture(const std::string &Name) {
  return std::string(LOOM_FIXTURE_DIR) + "/" + Name;
}

/// Writes \p B to malformed-inputs/<Name> under the working directory.
std::string writeInput(const std::string &Name, const Bytes &B) {
  llvm::SmallString<256> Dir;
  EXPECT_FALSE(llvm::sys::fs::current_path(Dir));
  llvm::sys::path::append(Dir, "malformed-inputs");
  EXPECT_FALSE(llvm::sys::fs::create_directories(Dir));
  llvm::SmallString<256> Path(Dir);
  llvm::sys::path::append(Path, Name);
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC);
  EXPECT_FALSE(EC) << Path.str().str() << ": " << EC.message();
  OS.write(reinterpret_cast<const char *>(B.data()), B.size());
  return Path.str().str();
}

/// Runs `loom inspect [--json] Path` and checks the error contract; returns
/// the reason part of the message.
std::string expectOneLineError(const std::string &Path, bool Json) {
  std::vector<std::string> Args = {LOOM_BIN, "inspect", Path};
  if (Json)
    Args.push_back("--json");
  CommandResult R = runCommand(Args);
  SCOPED_TRACE(std::string(Json ? "--json " : "") + Path);
  EXPECT_FALSE(R.crashed()) << "loom died by a signal; stderr:\n" << R.Err;
  EXPECT_EQ(R.ExitCode, 1) << R.Err;
  EXPECT_EQ(R.Out, "");
  std::string Prefix = "loom inspect: " + Path + ": ";
  EXPECT_TRUE(StringRef(R.Err).starts_with(Prefix)) << R.Err;
  EXPECT_TRUE(StringRef(R.Err).ends_with("\n")) << R.Err;
  EXPECT_EQ(std::count(R.Err.begin(), R.Err.end(), '\n'), 1) << R.Err;
  return StringRef(R.Err).starts_with(Prefix)
             ? R.Err.substr(Prefix.size())
             : std::string();
}

void expectReason(const std::string &Path, const std::string &Reason) {
  for (bool Json : {false, true}) {
    std::string Msg = expectOneLineError(Path, Json);
    EXPECT_NE(Msg.find(Reason), std::string::npos)
        << "reason: " << Msg << "expected: " << Reason;
  }
}

// Issue 14, case 9: inputs that never end or are too large are refused
// before they are read.
TEST(InspectMalformed, NotARegularFile) {
  expectReason("/dev/zero", "not a regular file");
  llvm::SmallString<256> Dir;
  ASSERT_FALSE(llvm::sys::fs::current_path(Dir));
  expectReason(Dir.str().str(), "not a regular file");
}

TEST(InspectMalformed, LargerThanTheCap) {
  // Sparse: 1 GiB + 1 bytes that cost no disk.
  std::string Path = writeInput("huge.bin", {0x7f, 'E', 'L', 'F'});
  ASSERT_EQ(0, ::truncate(Path.c_str(), (1ll << 30) + 1));
  expectReason(Path, "more than Loom's limit of 1073741824");
  ::unlink(Path.c_str());
}

TEST(InspectMalformed, EmptyFile) {
  expectReason(writeInput("empty.bin", {}), "unrecognised file");
}

TEST(InspectMalformed, MissingFile) {
  expectReason("malformed-inputs/does-not-exist.elf", "No such file");
}

TEST(InspectMalformed, TruncatedCodeObject) {
  Bytes B = readBytes(fixture("gfx90a_v5_kernels.elf"));
  B.resize(100);
  expectOneLineError(writeInput("truncated.elf", B), false);
  B.resize(40);
  expectReason(writeInput("truncated-header.elf", B),
               "smaller than an ELF64 header");
}

TEST(InspectMalformed, WrongMachine) {
  Bytes B = readBytes(fixture("gfx90a_v5_kernels.elf"));
  put16(B, elf64::EMachine, llvm::ELF::EM_X86_64);
  expectReason(writeInput("wrong-machine.elf", B), "no .hip_fatbin section");
}

TEST(InspectMalformed, UnknownProcessor) {
  Bytes B = readBytes(fixture("gfx90a_v5_kernels.elf"));
  put32(B, elf64::EFlags, get32(B, elf64::EFlags) & ~0xffu);
  expectReason(writeInput("mach-none.elf", B), "EF_AMDGPU_MACH");
}

TEST(InspectMalformed, BadAbiVersion) {
  Bytes B = readBytes(fixture("gfx90a_v5_kernels.elf"));
  B[llvm::ELF::EI_ABIVERSION] = 9;
  expectReason(writeInput("bad-abi.elf", B),
               "unsupported code object ABI version (EI_ABIVERSION 9)");
}

TEST(InspectMalformed, CorruptMetadata) {
  Bytes B = readBytes(fixture("gfx90a_v5_kernels.elf"));
  std::optional<NoteLocation> Note = findMetadataNote(B);
  ASSERT_TRUE(Note);
  B[Note->Desc] = 0xc1;
  expectReason(writeInput("bad-msgpack.elf", B),
               "malformed msgpack in NT_AMDGPU_METADATA");
}

TEST(InspectMalformed, KernelDescriptorOutsideImage) {
  Bytes B = readBytes(fixture("gfx90a_v5_kernels.elf"));
  std::vector<uint64_t> KDs = findSymbols(
      B, llvm::ELF::SHT_SYMTAB, [](StringRef N) { return N.ends_with(".kd"); });
  ASSERT_FALSE(KDs.empty());
  put64(B, KDs[0] + elf64::StValue, 0x7fff0000);
  expectReason(writeInput("kd-outside.elf", B), "kernel descriptor");
}

TEST(InspectMalformed, BundleWithHugeEntryCount) {
  Bytes B = readBytes(fixture("bundle_plain.hipfb"));
  put64(B, bundle::Count, ~uint64_t(0));
  expectReason(writeInput("huge-count.hipfb", B), "entries, more than");
}

TEST(InspectMalformed, BundleEntryPastEnd) {
  Bytes B = readBytes(fixture("bundle_plain.hipfb"));
  std::vector<bundle::Entry> E = bundle::entries(B);
  ASSERT_EQ(E.size(), 3u);
  put64(B, E[1].Header, B.size());
  expectReason(writeInput("entry-past-end.hipfb", B),
               "extends past the end of its bundle");
}

TEST(InspectMalformed, BundleEntryIdWithLineBreak) {
  Bytes CO = readBytes(fixture("gfx90a_v5_kernels.elf"));
  Bytes B = bundle::make({{"hipv4-amdgcn-amd-amdhsa--gfx90a\nline 2", CO}});
  put64(B, bundle::entries(B)[0].Header + 8, B.size());
  expectReason(writeInput("id-newline.hipfb", B), "gfx90a\\nline 2");
}

TEST(InspectMalformed, CompressedBundleBadVersion) {
  Bytes B = readBytes(fixture("bundle_compressed.hipfb"));
  put16(B, ccob::Version, 7);
  expectReason(writeInput("ccob-version.hipfb", B),
               "compressed offload bundle version 7 is not supported");
}

TEST(InspectMalformed, CompressedBundleHugeSize) {
  Bytes B = readBytes(fixture("bundle_compressed.hipfb"));
  ASSERT_EQ(get16(B, ccob::Version), 3u);
  put64(B, ccob::UncompressedSizeV3, uint64_t(1) << 40);
  expectReason(writeInput("ccob-huge.hipfb", B), "uncompressed bytes");
}

TEST(InspectMalformed, CompressedBundleBadHash) {
  Bytes B = readBytes(fixture("bundle_compressed.hipfb"));
  ASSERT_EQ(get16(B, ccob::Version), 3u);
  put64(B, ccob::HashV3, ~get64(B, ccob::HashV3));
  expectReason(writeInput("ccob-hash.hipfb", B), "hash does not match");
}

TEST(InspectMalformed, HostBinaryWithoutFatbin) {
  Bytes B = readBytes(fixture("hip_two_kernels"));
  std::optional<uint64_t> Sec = findSection(B, ".hip_fatbin");
  ASSERT_TRUE(Sec);
  B[sectionNameOffset(B, *Sec) + 10] = 'X';
  expectReason(writeInput("no-fatbin", B), "no .hip_fatbin section");
}

TEST(InspectMalformed, EveryTruncationOfABundleIsOneLine) {
  // Coarser than tests/codeobj (each run starts a process): every 499th
  // length of the plain bundle.
  Bytes Full = readBytes(fixture("bundle_plain.hipfb"));
  for (size_t N = 0; N < Full.size(); N += 499)
    expectOneLineError(
        writeInput("bundle-prefix.hipfb", Bytes(Full.begin(),
                                                Full.begin() + N)),
        false);
}

} // namespace
