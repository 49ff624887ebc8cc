//===- codeobj/Input.cpp - Find the code objects in a file -----------------===//
//
// LLVM's OffloadBundle reader parses bundle headers and decompresses
// compressed bundles. It trusts some header fields (entry offsets, the
// compressed header version, the uncompressed size), so each is checked here
// before LLVM sees it: a malformed file is an error, never a crash.
//
//===----------------------------------------------------------------------===//

#include "loom/codeobj/Input.h"

#include "loom/codeobj/ErrorText.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/OffloadBundle.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;
using namespace llvm::object;

namespace loom::codeobj {

StringRef inputKindName(InputKind K) {
  switch (K) {
  case InputKind::CodeObject:
    return "code-object";
  case InputKind::OffloadBundle:
    return "offload-bundle";
  case InputKind::CompressedOffloadBundle:
    return "compressed-offload-bundle";
  case InputKind::HostBinary:
    return "host-binary";
  }
  return "unknown";
}

namespace {

constexpr StringLiteral BundleMagic = "__CLANG_OFFLOAD_BUNDLE__";
constexpr StringLiteral CompressedMagic = "CCOB";
/// Largest decompressed bundle Loom accepts; a header claiming more is
/// treated as corrupt rather than allocated.
constexpr uint64_t MaxDecompressedSize = MaxInputBytes;

Error fail(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}

/// Walks the header of the uncompressed bundle at the start of \p Bundle
/// (magic, entry count, then offset, size, id length and id of each entry)
/// and returns where it ends. LLVM's reader makes the same walk but only
/// says "parse failed"; walking first names what is wrong, and bounds the
/// entry count by the bytes present before anything is read or allocated.
Expected<uint64_t> bundleHeaderEnd(StringRef Bundle) {
  constexpr uint64_t EntryFields = 3 * sizeof(uint64_t); // offset, size, id len
  uint64_t Pos = BundleMagic.size();
  if (Bundle.size() < Pos + sizeof(uint64_t))
    return fail(formatv("truncated offload bundle header: {0} bytes leave no "
                        "room for the entry count",
                        Bundle.size()));
  uint64_t Count = support::endian::read64le(Bundle.data() + Pos);
  Pos += sizeof(uint64_t);
  if (Count > (Bundle.size() - Pos) / EntryFields)
    return fail(formatv("offload bundle header claims {0} entries, more than "
                        "its {1} bytes can describe",
                        Count, Bundle.size()));
  for (uint64_t I = 0; I < Count; ++I) {
    if (Bundle.size() - Pos < EntryFields)
      return fail(formatv("truncated offload bundle header: entry {0} of {1} "
                          "is cut off at byte {2}",
                          I, Count, Bundle.size()));
    uint64_t IdLength =
        support::endian::read64le(Bundle.data() + Pos + 2 * sizeof(uint64_t));
    Pos += EntryFields;
    if (IdLength > Bundle.size() - Pos)
      return fail(formatv("truncated offload bundle header: the id of entry "
                          "{0} ({1} bytes at byte {2}) extends past the end "
                          "({3} bytes)",
                          I, IdLength, Pos, Bundle.size()));
    Pos += IdLength;
  }
  return Pos;
}

/// True for bundle entries that hold AMDGPU code objects
/// ("hip-amdgcn-...", "hipv4-amdgcn-...", "openmp-amdgcn-...").
bool isAmdgpuEntry(StringRef Id) {
  return Id.contains("-amdgcn-amd-amdhsa");
}

class Reader {
public:
  Reader(StringRef Path, Input &Out) : Path(Path), Out(Out) {}

  /// Parses the uncompressed bundle at the start of \p Bundle. Its code
  /// objects are reported at file offset \p BaseOffset + entry offset.
  /// Returns the bundle's extent: the end of its header or of its last
  /// entry, whichever is later.
  Expected<uint64_t> readBundle(StringRef Bundle, uint64_t BaseOffset) {
    Expected<uint64_t> HeaderEnd = bundleHeaderEnd(Bundle);
    if (!HeaderEnd)
      return fail(formatv("malformed offload bundle at offset {0}: {1}",
                          BaseOffset, toString(HeaderEnd.takeError())));
    MemoryBufferRef Ref(Bundle, Path);
    auto FatBin = OffloadBundleFatBin::create(Ref, /*SectionOffset=*/0, Path);
    if (!FatBin)
      return fail(formatv("malformed offload bundle at offset {0}: {1}",
                          BaseOffset, toString(FatBin.takeError())));
    SmallVector<OffloadBundleEntry> Entries = (*FatBin)->getEntries();
    uint64_t Extent = *HeaderEnd;
    // Code objects are copied out of their entries, so entries that overlap
    // could make a small file cost memory quadratic in its size. A bundler
    // never writes them.
    std::vector<const OffloadBundleEntry *> CodeEntries;
    for (const OffloadBundleEntry &E : Entries) {
      if (E.Offset > Bundle.size() || E.Size > Bundle.size() - E.Offset)
        return fail(formatv("offload bundle entry '{0}' (offset {1}, size "
                            "{2}) extends past the end of its bundle ({3} "
                            "bytes)",
                            E.ID, E.Offset, E.Size, Bundle.size()));
      Extent = std::max(Extent, E.Offset + E.Size);
      if (isAmdgpuEntry(E.ID) && E.Size != 0)
        CodeEntries.push_back(&E);
    }
    llvm::sort(CodeEntries, [](const OffloadBundleEntry *A,
                               const OffloadBundleEntry *B) {
      return A->Offset < B->Offset;
    });
    for (size_t I = 1; I < CodeEntries.size(); ++I) {
      const OffloadBundleEntry &A = *CodeEntries[I - 1], &B = *CodeEntries[I];
      if (B.Offset < A.Offset + A.Size)
        return fail(formatv("offload bundle entries '{0}' (offset {1}, size "
                            "{2}) and '{3}' (offset {4}) overlap",
                            A.ID, A.Offset, A.Size, B.ID, B.Offset));
    }
    for (const OffloadBundleEntry &E : Entries) {
      uint64_t FileOffset = BaseOffset + E.Offset;
      if (!isAmdgpuEntry(E.ID) || E.Size == 0) {
        Out.OtherEntries.push_back({E.ID, FileOffset, E.Size});
        continue;
      }
      ArrayRef<uint8_t> Bytes = arrayRefFromStringRef(
          Bundle.substr(E.Offset, E.Size));
      std::string Name = formatv("{0}#offset={1}", Path, FileOffset).str();
      auto CO = CodeObject::create(Bytes, Name);
      if (!CO)
        return CO.takeError();
      Out.CodeObjects.push_back({E.ID, FileOffset, std::move(*CO)});
    }
    return Extent;
  }

  /// Validates the header fields LLVM's decompressor trusts, decompresses,
  /// checks the stored hash and reads the bundle inside.
  Expected<uint64_t> readCompressedBundle(StringRef Blob, uint64_t BaseOffset) {
    if (Blob.size() < 8)
      return fail("truncated compressed offload bundle header");
    uint16_t Version = support::endian::read16le(Blob.data() + 4);
    if (Version < 1 || Version > 3)
      return fail(formatv("compressed offload bundle version {0} is not "
                          "supported (1 to 3 are)",
                          Version));
    auto Header = CompressedOffloadBundle::CompressedBundleHeader::tryParse(Blob);
    if (!Header)
      return fail("malformed compressed offload bundle: " +
                  toString(Header.takeError()));
    if (Header->UncompressedFileSize > MaxDecompressedSize)
      return fail(formatv("compressed offload bundle claims {0} uncompressed "
                          "bytes (more than Loom's limit of {1})",
                          Header->UncompressedFileSize, MaxDecompressedSize));
    uint64_t Extent = Blob.size();
    if (Header->FileSize) {
      if (*Header->FileSize > Blob.size())
        return fail(formatv("compressed offload bundle claims {0} bytes but "
                            "only {1} are present",
                            *Header->FileSize, Blob.size()));
      Extent = *Header->FileSize;
    }
    auto Input = MemoryBuffer::getMemBuffer(Blob.take_front(Extent), Path,
                                            /*RequiresNullTerminator=*/false);
    auto Decompressed = CompressedOffloadBundle::decompress(*Input);
    if (!Decompressed)
      return fail("cannot decompress offload bundle: " +
                  toString(Decompressed.takeError()));
    StringRef Contents = (*Decompressed)->getBuffer();
    MD5::MD5Result Hash = MD5::hash(arrayRefFromStringRef(Contents));
    if (Hash.low() != Header->Hash)
      return fail("compressed offload bundle's hash does not match its "
                  "decompressed contents");
    if (!Contents.starts_with(BundleMagic))
      return fail("decompressed offload bundle has no bundle header");
    // Offsets inside a compressed bundle refer to its decompressed bytes.
    if (Expected<uint64_t> Inner = readBundle(Contents, 0); !Inner)
      return Inner.takeError();
    return Extent;
  }

  /// Reads every bundle (compressed or not) stored back to back, with
  /// padding, in a .hip_fatbin section.
  Error readBundleSequence(StringRef Section, uint64_t SectionOffset) {
    uint64_t Pos = 0;
    while (Pos < Section.size()) {
      StringRef Rest = Section.drop_front(Pos);
      Expected<uint64_t> Extent =
          Rest.starts_with(CompressedMagic)
              ? readCompressedBundle(Rest, SectionOffset + Pos)
              : readBundle(Rest, SectionOffset + Pos);
      if (!Extent)
        return Extent.takeError();
      // The next bundle starts at the next magic after this one's extent.
      uint64_t From = std::max<uint64_t>(*Extent, 4);
      size_t NextPlain = Rest.find(BundleMagic, From);
      size_t NextCompressed = Rest.find(CompressedMagic, From);
      size_t Next = std::min(NextPlain, NextCompressed);
      if (Next == StringRef::npos)
        break;
      Pos += Next;
    }
    return Error::success();
  }

  Error readHostBinary(StringRef Data) {
    auto Obj = ObjectFile::createELFObjectFile(MemoryBufferRef(Data, Path));
    if (!Obj)
      return fail("malformed host ELF: " + toString(Obj.takeError()));
    bool Found = false;
    for (const SectionRef &Sec : (*Obj)->sections()) {
      Expected<StringRef> Name = Sec.getName();
      if (!Name)
        return Name.takeError();
      if (*Name != ".hip_fatbin")
        continue;
      Found = true;
      Expected<StringRef> Contents = Sec.getContents();
      if (!Contents)
        return fail(".hip_fatbin: " + toString(Contents.takeError()));
      if (Contents->empty())
        continue;
      if (!Contents->starts_with(BundleMagic) &&
          !Contents->starts_with(CompressedMagic))
        return fail(".hip_fatbin does not start with an offload bundle");
      uint64_t Offset = ELFSectionRef(Sec).getOffset();
      if (Error E = readBundleSequence(*Contents, Offset))
        return E;
    }
    if (!Found)
      return fail(formatv("host ELF (e_machine {0}, not EM_AMDGPU) has no "
                          ".hip_fatbin section (no embedded AMDGPU code "
                          "objects)",
                          cast<ELFObjectFileBase>(**Obj).getEMachine()));
    return Error::success();
  }

  Error read(StringRef Data) {
    if (Data.starts_with(ELF::ElfMagic)) {
      if (Data.size() < sizeof(ELF64LE::Ehdr))
        return fail(formatv("truncated: {0} bytes is smaller than an ELF64 "
                            "header",
                            Data.size()));
      uint16_t Machine =
          support::endian::read16le(Data.data() + offsetof(ELF64LE::Ehdr,
                                                           e_machine));
      if (Machine == ELF::EM_AMDGPU) {
        Out.Kind = InputKind::CodeObject;
        auto CO = CodeObject::create(arrayRefFromStringRef(Data), Path);
        if (!CO)
          return CO.takeError();
        Out.CodeObjects.push_back({"", 0, std::move(*CO)});
        return Error::success();
      }
      Out.Kind = InputKind::HostBinary;
      return readHostBinary(Data);
    }
    if (Data.starts_with(BundleMagic)) {
      Out.Kind = InputKind::OffloadBundle;
      return readBundle(Data, 0).takeError();
    }
    if (Data.starts_with(CompressedMagic)) {
      Out.Kind = InputKind::CompressedOffloadBundle;
      return readCompressedBundle(Data, 0).takeError();
    }
    return fail("unrecognised file: not an ELF file, an offload bundle or a "
                "compressed offload bundle");
  }

private:
  std::string Path;
  Input &Out;
};

} // namespace

Error withPath(StringRef Path, Error E) {
  std::string Msg = toString(std::move(E));
  if (StringRef(Msg).starts_with(Path))
    return fail(Path + oneLine(StringRef(Msg).drop_front(Path.size())));
  return fail(Path + ": " + oneLine(Msg));
}

Expected<Input> readInput(ArrayRef<uint8_t> Bytes, StringRef Name) {
  if (Bytes.size() > MaxInputBytes)
    return fail(formatv("{0}: {1} bytes, more than Loom's limit of {2} for an "
                        "input",
                        Name, Bytes.size(), MaxInputBytes));
  Input In;
  In.Path = Name.str();
  Reader R(Name, In);
  if (Error E = R.read(toStringRef(Bytes)))
    return withPath(Name, std::move(E));
  return std::move(In);
}

Expected<Input> readInputFile(StringRef Path) {
  // Checked before reading: /dev/zero or a FIFO never ends, and a sparse
  // file of many GiB would be read whole.
  sys::fs::file_status St;
  if (std::error_code EC = sys::fs::status(Path, St))
    return fail(Path + ": " + EC.message());
  if (St.type() != sys::fs::file_type::regular_file)
    return fail(Path + ": not a regular file");
  if (St.getSize() > MaxInputBytes)
    return fail(formatv("{0}: {1} bytes, more than Loom's limit of {2} for an "
                        "input",
                        Path, St.getSize(), MaxInputBytes));
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false);
  if (!Buf)
    return fail(Path + ": " + Buf.getError().message());
  return readInput(arrayRefFromStringRef((*Buf)->getBuffer()), Path);
}

} // namespace loom::codeobj
