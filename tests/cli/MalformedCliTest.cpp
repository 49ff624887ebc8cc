//===- tests/cli/MalformedCliTest.cpp - `loom inspect` on bad files --------===//
//
// For a malformed file, `loom inspect` and `loom coverage` (plain and
// --json) must print nothing on stdout, exactly one line on stderr --
// "loom COMMAND: <path>: <reason>", control characters and bytes that are
// not UTF-8 escaped -- and exit with code 1, never die by a signal. The
// files are written at test time into the test's working directory in the
// build tree.
//
//===----------------------------------------------------------------------===//

#include "../support/MalformedInputs.h"
#include "../support/RunCommand.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
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

/// Runs `loom Command [--json] Path` and checks the error contract; returns
/// the reason part of the message. \p Shown is the path as the message
/// spells it.
std::string expectOneLineError(const std::string &Command,
                               const std::string &Path, bool Json,
                               const std::string &Shown) {
  std::vector<std::string> Args = {LOOM_BIN, Command, Path};
  if (Json)
    Args.push_back("--json");
  CommandResult R = runCommand(Args);
  SCOPED_TRACE(Command + (Json ? " --json " : " ") + Shown);
  EXPECT_FALSE(R.crashed()) << "loom died by a signal; stderr:\n" << R.Err;
  EXPECT_EQ(R.ExitCode, 1) << R.Err;
  EXPECT_EQ(R.Out, "");
  std::string Prefix = "loom " + Command + ": " + Shown + ": ";
  EXPECT_TRUE(StringRef(R.Err).starts_with(Prefix)) << R.Err;
  EXPECT_TRUE(StringRef(R.Err).ends_with("\n")) << R.Err;
  EXPECT_EQ(std::count(R.Err.begin(), R.Err.end(), '\n'), 1) << R.Err;
  EXPECT_TRUE(std::all_of(R.Err.begin(), R.Err.end() - 1, [](char C) {
    return C >= 0x20 && C < 0x7f;
  })) << R.Err;
  return StringRef(R.Err).starts_with(Prefix)
             ? R.Err.substr(Prefix.size())
             : std::string();
}

std::string expectOneLineError(const std::string &Path, bool Json) {
  return expectOneLineError("inspect", Path, Json, Path);
}

/// Both commands, plain and --json, give one line with \p Reason in it.
void expectReason(const std::string &Path, const std::string &Reason,
                  const std::string &Shown) {
  for (const char *Command : {"inspect", "coverage"})
    for (bool Json : {false, true}) {
      std::string Msg = expectOneLineError(Command, Path, Json, Shown);
      EXPECT_NE(Msg.find(Reason), std::string::npos)
          << Command << " reason: " << Msg << "expected: " << Reason;
    }
}

void expectReason(const std::string &Path, const std::string &Reason) {
  expectReason(Path, Reason, Path);
}

// Issue 14, case 9: inputs that never end or are too large are refused
// before they are read.
TEST(MalformedInput, NotARegularFile) {
  expectReason("/dev/zero", "not a regular file");
  llvm::SmallString<256> Dir;
  ASSERT_FALSE(llvm::sys::fs::current_path(Dir));
  expectReason(Dir.str().str(), "not a regular file");
}

TEST(MalformedInput, LargerThanTheCap) {
  // Sparse: 1 GiB + 1 bytes that cost no disk.
  std::string Path = writeInput("huge.bin", {0x7f, 'E', 'L', 'F'});
  ASSERT_EQ(0, ::truncate(Path.c_str(), (1ll << 30) + 1));
  expectReason(Path, "more than Loom's limit of 1073741824");
  ::unlink(Path.c_str());
}

TEST(MalformedInput, EmptyFile) {
  expectReason(writeInput("empty.bin", {}), "unrecognised file");
}

TEST(MalformedInput, MissingFile) {
  expectReason("malformed-inputs/does-not-exist.elf", "No such file");
}

TEST(MalformedInput, TruncatedCodeObject) {
  Bytes B = readBytes(fixture("gfx90a_v5_kernels.elf"));
  B.resize(100);
  expectOneLineError(writeInput("truncated.elf", B), false);
  B.resize(40);
  expectReason(writeInput("truncated-header.elf", B),
               "smaller than an ELF64 header");
}

TEST(MalformedInput, WrongMachine) {
  Bytes B = readBytes(fixture("gfx90a_v5_kernels.elf"));
  put16(B, elf64::EMachine, llvm::ELF::EM_X86_64);
  expectReason(writeInput("wrong-machine.elf", B), "no .hip_fatbin section");
}

TEST(MalformedInput, UnknownProcessor) {
  Bytes B = readBytes(fixture("gfx90a_v5_kernels.elf"));
  put32(B, elf64::EFlags, get32(B, elf64::EFlags) & ~0xffu);
  expectReason(writeInput("mach-none.elf", B), "EF_AMDGPU_MACH");
}

TEST(MalformedInput, BadAbiVersion) {
  Bytes B = readBytes(fixture("gfx90a_v5_kernels.elf"));
  B[llvm::ELF::EI_ABIVERSION] = 9;
  expectReason(writeInput("bad-abi.elf", B),
               "unsupported code object ABI version (EI_ABIVERSION 9)");
}

TEST(MalformedInput, CorruptMetadata) {
  Bytes B = readBytes(fixture("gfx90a_v5_kernels.elf"));
  std::optional<NoteLocation> Note = findMetadataNote(B);
  ASSERT_TRUE(Note);
  B[Note->Desc] = 0xc1;
  expectReason(writeInput("bad-msgpack.elf", B),
               "malformed msgpack in NT_AMDGPU_METADATA");
}

TEST(MalformedInput, KernelDescriptorOutsideImage) {
  Bytes B = readBytes(fixture("gfx90a_v5_kernels.elf"));
  std::vector<uint64_t> KDs = findSymbols(
      B, llvm::ELF::SHT_SYMTAB, [](StringRef N) { return N.ends_with(".kd"); });
  ASSERT_FALSE(KDs.empty());
  put64(B, KDs[0] + elf64::StValue, 0x7fff0000);
  expectReason(writeInput("kd-outside.elf", B), "kernel descriptor");
}

TEST(MalformedInput, BundleWithHugeEntryCount) {
  Bytes B = readBytes(fixture("bundle_plain.hipfb"));
  put64(B, bundle::Count, ~uint64_t(0));
  expectReason(writeInput("huge-count.hipfb", B), "entries, more than");
}

TEST(MalformedInput, BundleEntryPastEnd) {
  Bytes B = readBytes(fixture("bundle_plain.hipfb"));
  std::vector<bundle::Entry> E = bundle::entries(B);
  ASSERT_EQ(E.size(), 3u);
  put64(B, E[1].Header, B.size());
  expectReason(writeInput("entry-past-end.hipfb", B),
               "extends past the end of its bundle");
}

TEST(MalformedInput, BundleEntryIdWithLineBreak) {
  Bytes CO = readBytes(fixture("gfx90a_v5_kernels.elf"));
  Bytes B = bundle::make({{"hipv4-amdgcn-amd-amdhsa--gfx90a\nline 2", CO}});
  put64(B, bundle::entries(B)[0].Header + 8, B.size());
  expectReason(writeInput("id-newline.hipfb", B), "gfx90a\\nline 2");
}

TEST(MalformedInput, CompressedBundleBadVersion) {
  Bytes B = readBytes(fixture("bundle_compressed.hipfb"));
  put16(B, ccob::Version, 7);
  expectReason(writeInput("ccob-version.hipfb", B),
               "compressed offload bundle version 7 is not supported");
}

TEST(MalformedInput, CompressedBundleHugeSize) {
  Bytes B = readBytes(fixture("bundle_compressed.hipfb"));
  ASSERT_EQ(get16(B, ccob::Version), 3u);
  put64(B, ccob::UncompressedSizeV3, uint64_t(1) << 40);
  expectReason(writeInput("ccob-huge.hipfb", B), "uncompressed bytes");
}

TEST(MalformedInput, CompressedBundleBadHash) {
  Bytes B = readBytes(fixture("bundle_compressed.hipfb"));
  ASSERT_EQ(get16(B, ccob::Version), 3u);
  put64(B, ccob::HashV3, ~get64(B, ccob::HashV3));
  expectReason(writeInput("ccob-hash.hipfb", B), "hash does not match");
}

TEST(MalformedInput, HostBinaryWithoutFatbin) {
  Bytes B = readBytes(fixture("hip_two_kernels"));
  std::optional<uint64_t> Sec = findSection(B, ".hip_fatbin");
  ASSERT_TRUE(Sec);
  B[sectionNameOffset(B, *Sec) + 10] = 'X';
  expectReason(writeInput("no-fatbin", B), "no .hip_fatbin section");
}

TEST(MalformedInput, EveryTruncationOfABundleIsOneLine) {
  // Coarser than tests/codeobj (each run starts a process): every 499th
  // length of the plain bundle.
  Bytes Full = readBytes(fixture("bundle_plain.hipfb"));
  for (size_t N = 0; N < Full.size(); N += 499)
    expectOneLineError(
        writeInput("bundle-prefix.hipfb", Bytes(Full.begin(),
                                                Full.begin() + N)),
        false);
}

// The file's own name: control characters and bytes that are not UTF-8
// are escaped, so the message stays one line of text.
TEST(MalformedInput, FileNameIsEscaped) {
  Bytes B = readBytes(fixture("gfx90a_v5_kernels.elf"));
  B.resize(40);
  std::string Path = writeInput("esc\x1b[31m\nname\xff.elf", B);
  std::string Shown =
      Path.substr(0, Path.rfind('/') + 1) + "esc\\x1b[31m\\nname\\xff.elf";
  expectReason(Path, "smaller than an ELF64 header", Shown);
}

// Errors only `loom coverage` meets (it disassembles every function) name
// the file too, and escape the names they quote from it.
TEST(CoverageMalformed, FunctionOutsideTheImage) {
  Bytes B = readBytes(fixture("gfx90a_v5_kernels.elf"));
  std::vector<uint64_t> Syms = findSymbols(
      B, llvm::ELF::SHT_SYMTAB, [](StringRef N) { return N == "helper_sum"; });
  ASSERT_EQ(Syms.size(), 1u);
  put64(B, Syms[0] + elf64::StSize, 0x7fffffff);
  uint64_t Name =
      symbolNameOffset(B, *findSymbolTable(B, llvm::ELF::SHT_SYMTAB), Syms[0]);
  B[Name + 1] = 0x1b; // "h\x1b\xffper_sum"
  B[Name + 2] = 0xff;
  std::string Path = writeInput("function-outside.elf", B);
  std::string Start =
      "0x" + llvm::utohexstr(get64(B, Syms[0] + elf64::StValue), true);
  for (bool Json : {false, true})
    EXPECT_EQ(expectOneLineError("coverage", Path, Json, Path),
              "function h\\x1b\\xffper_sum: bytes [" + Start + ", " + Start +
                  " + 0x7fffffff) are not in the file image of any PT_LOAD "
                  "segment\n");
}

} // namespace
