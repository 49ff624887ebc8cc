//===- tests/support/MalformedInputs.h - Break fixtures on purpose ---------===//
//
// Byte-level helpers that take a well-formed fixture (AMDGPU ELF, offload
// bundle, compressed bundle, host ELF) and damage exactly one thing: a
// header field, a segment offset, a symbol value, the metadata note, a
// bundle entry. Offsets come from the ELF64 and bundle layouts (AMDGPUUsage,
// clang-offload-bundler); all fields are little-endian.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TESTS_SUPPORT_MALFORMEDINPUTS_H
#define LOOM_TESTS_SUPPORT_MALFORMEDINPUTS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace loom::test {

using Bytes = std::vector<uint8_t>;

inline Bytes readBytes(const std::string &Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!Buf)
    throw std::runtime_error(Path + ": " + Buf.getError().message());
  llvm::StringRef S = (*Buf)->getBuffer();
  return Bytes(S.begin(), S.end());
}

inline uint16_t get16(const Bytes &B, uint64_t Off) {
  return llvm::support::endian::read16le(B.data() + Off);
}
inline uint32_t get32(const Bytes &B, uint64_t Off) {
  return llvm::support::endian::read32le(B.data() + Off);
}
inline uint64_t get64(const Bytes &B, uint64_t Off) {
  return llvm::support::endian::read64le(B.data() + Off);
}
inline void put16(Bytes &B, uint64_t Off, uint16_t V) {
  llvm::support::endian::write16le(B.data() + Off, V);
}
inline void put32(Bytes &B, uint64_t Off, uint32_t V) {
  llvm::support::endian::write32le(B.data() + Off, V);
}
inline void put64(Bytes &B, uint64_t Off, uint64_t V) {
  llvm::support::endian::write64le(B.data() + Off, V);
}

/// Field offsets of the ELF64 structures.
namespace elf64 {
constexpr uint64_t EPhoff = 0x20, EShoff = 0x28, EFlags = 0x30,
                   EPhentsize = 0x36, EPhnum = 0x38, EShentsize = 0x3a,
                   EShnum = 0x3c, EShstrndx = 0x3e, EMachine = 0x12;
constexpr uint64_t PType = 0x00, POffset = 0x08, PVaddr = 0x10,
                   PFilesz = 0x20, PMemsz = 0x28, PAlign = 0x30;
constexpr uint64_t ShName = 0x00, ShType = 0x04, ShOffset = 0x18,
                   ShSize = 0x20, ShLink = 0x28, ShEntsize = 0x38;
constexpr uint64_t StName = 0x00, StInfo = 0x04, StShndx = 0x06,
                   StValue = 0x08, StSize = 0x10, SymSize = 24;
} // namespace elf64

/// File offset of program header \p I.
inline uint64_t phdr(const Bytes &B, unsigned I) {
  return get64(B, elf64::EPhoff) + uint64_t(I) * get16(B, elf64::EPhentsize);
}

/// File offset of the first program header of type \p Type.
inline std::optional<uint64_t> findPhdr(const Bytes &B, uint32_t Type) {
  for (unsigned I = 0, N = get16(B, elf64::EPhnum); I < N; ++I)
    if (get32(B, phdr(B, I) + elf64::PType) == Type)
      return phdr(B, I);
  return std::nullopt;
}

/// File offset of section header \p I.
inline uint64_t shdr(const Bytes &B, unsigned I) {
  return get64(B, elf64::EShoff) + uint64_t(I) * get16(B, elf64::EShentsize);
}

/// NUL-terminated string at \p Off.
inline std::string cstr(const Bytes &B, uint64_t Off) {
  return std::string(reinterpret_cast<const char *>(B.data() + Off));
}

/// File offset of the name (in .shstrtab) of section header \p Sh.
inline uint64_t sectionNameOffset(const Bytes &B, uint64_t Sh) {
  uint64_t StrTab = shdr(B, get16(B, elf64::EShstrndx));
  return get64(B, StrTab + elf64::ShOffset) + get32(B, Sh + elf64::ShName);
}

/// Section header of the section named \p Name.
inline std::optional<uint64_t> findSection(const Bytes &B,
                                           llvm::StringRef Name) {
  for (unsigned I = 0, N = get16(B, elf64::EShnum); I < N; ++I)
    if (cstr(B, sectionNameOffset(B, shdr(B, I))) == Name)
      return shdr(B, I);
  return std::nullopt;
}

/// Section header of the first symbol table of \p SecType (SHT_SYMTAB or
/// SHT_DYNSYM).
inline std::optional<uint64_t> findSymbolTable(const Bytes &B,
                                               uint32_t SecType) {
  for (unsigned I = 0, N = get16(B, elf64::EShnum); I < N; ++I)
    if (get32(B, shdr(B, I) + elf64::ShType) == SecType)
      return shdr(B, I);
  return std::nullopt;
}

/// File offset of the name of symbol \p Sym of symbol table \p SymTab.
inline uint64_t symbolNameOffset(const Bytes &B, uint64_t SymTab,
                                 uint64_t Sym) {
  uint64_t Str = get64(B, shdr(B, get32(B, SymTab + elf64::ShLink)) +
                              elf64::ShOffset);
  return Str + get32(B, Sym + elf64::StName);
}

/// File offsets of the entries of the first symbol table of \p SecType
/// (SHT_SYMTAB or SHT_DYNSYM) whose name satisfies \p Match.
template <typename Pred>
std::vector<uint64_t> findSymbols(const Bytes &B, uint32_t SecType,
                                  Pred Match) {
  std::vector<uint64_t> Out;
  std::optional<uint64_t> Sh = findSymbolTable(B, SecType);
  if (!Sh)
    return Out;
  uint64_t Off = get64(B, *Sh + elf64::ShOffset);
  uint64_t Count = get64(B, *Sh + elf64::ShSize) / elf64::SymSize;
  for (uint64_t S = 1; S < Count; ++S) {
    uint64_t Sym = Off + S * elf64::SymSize;
    if (Match(llvm::StringRef(cstr(B, symbolNameOffset(B, *Sh, Sym)))))
      Out.push_back(Sym);
  }
  return Out;
}

/// Where the NT_AMDGPU_METADATA note is: its header and its descriptor.
struct NoteLocation {
  uint64_t Header = 0; // namesz, descsz, type
  uint64_t Desc = 0;
  uint32_t DescSize = 0;
};

inline std::optional<NoteLocation> findMetadataNote(const Bytes &B) {
  std::optional<uint64_t> Ph = findPhdr(B, llvm::ELF::PT_NOTE);
  if (!Ph)
    return std::nullopt;
  uint64_t Pos = get64(B, *Ph + elf64::POffset);
  uint64_t End = Pos + get64(B, *Ph + elf64::PFilesz);
  while (Pos + 12 <= End) {
    uint32_t NameSz = get32(B, Pos), DescSz = get32(B, Pos + 4),
             Type = get32(B, Pos + 8);
    uint64_t Desc = Pos + 12 + ((NameSz + 3) & ~3u);
    if (Type == llvm::ELF::NT_AMDGPU_METADATA &&
        cstr(B, Pos + 12) == "AMDGPU")
      return NoteLocation{Pos, Desc, DescSz};
    Pos = Desc + ((DescSz + 3) & ~uint64_t(3));
  }
  return std::nullopt;
}

/// Uncompressed clang offload bundle: "__CLANG_OFFLOAD_BUNDLE__", a 64-bit
/// entry count, then per entry 64-bit offset, size and id length, and the id.
namespace bundle {
constexpr uint64_t Count = 24, FirstEntry = 32;

struct Entry {
  uint64_t Header; // file offset of the entry's offset field
  uint64_t Offset, Size;
  std::string Id;
};

inline std::vector<Entry> entries(const Bytes &B) {
  std::vector<Entry> Out;
  uint64_t Pos = FirstEntry;
  for (uint64_t I = 0, N = get64(B, Count); I < N; ++I) {
    uint64_t IdLen = get64(B, Pos + 16);
    Out.push_back({Pos, get64(B, Pos), get64(B, Pos + 8),
                   std::string(B.begin() + Pos + 24,
                               B.begin() + Pos + 24 + IdLen)});
    Pos += 24 + IdLen;
  }
  return Out;
}

/// Builds a bundle of \p Objects (id, bytes), laid out as the bundler does.
inline Bytes make(const std::vector<std::pair<std::string, Bytes>> &Objects) {
  uint64_t HeaderSize = FirstEntry;
  for (auto &[Id, Data] : Objects)
    HeaderSize += 24 + Id.size();
  Bytes B(HeaderSize);
  std::memcpy(B.data(), "__CLANG_OFFLOAD_BUNDLE__", 24);
  put64(B, Count, Objects.size());
  uint64_t Pos = FirstEntry;
  for (auto &[Id, Data] : Objects) {
    uint64_t Off = (B.size() + 4095) & ~uint64_t(4095);
    put64(B, Pos, Data.empty() ? 0 : Off);
    put64(B, Pos + 8, Data.size());
    put64(B, Pos + 16, Id.size());
    std::memcpy(B.data() + Pos + 24, Id.data(), Id.size());
    Pos += 24 + Id.size();
    if (!Data.empty()) {
      B.resize(Off);
      B.insert(B.end(), Data.begin(), Data.end());
    }
  }
  return B;
}
} // namespace bundle

/// Compressed bundle ("CCOB") header, version 3: magic, version (16 bits),
/// method (16 bits), total file size, uncompressed size, truncated MD5.
namespace ccob {
constexpr uint64_t Version = 4, Method = 6, FileSizeV3 = 8,
                   UncompressedSizeV3 = 16, HashV3 = 24, HeaderSizeV3 = 32;
} // namespace ccob

} // namespace loom::test

#endif // LOOM_TESTS_SUPPORT_MALFORMEDINPUTS_H
