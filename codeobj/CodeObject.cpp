//===- codeobj/CodeObject.cpp - Parse one AMDGPU ELF code object ----------===//
//
// LLVM's ELFFile does the ELF decoding and its own bounds checks; this file
// adds the AMDGPU meaning (kernels = `name` + `name.kd` + metadata entry,
// device functions, variables) and checks every offset Loom later follows.
//
//===----------------------------------------------------------------------===//

#include "loom/codeobj/CodeObject.h"

#include "loom/codeobj/ErrorText.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Object/ELF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>

using namespace llvm;
using namespace llvm::object;

namespace loom::codeobj {

using ELFT = ELF64LE;
using Elf = ELFFile<ELFT>;

StringRef bindingName(SymbolBinding B) {
  switch (B) {
  case SymbolBinding::Local:
    return "local";
  case SymbolBinding::Global:
    return "global";
  case SymbolBinding::Weak:
    return "weak";
  }
  return "unknown";
}

StringRef visibilityName(SymbolVisibility V) {
  switch (V) {
  case SymbolVisibility::Default:
    return "default";
  case SymbolVisibility::Internal:
    return "internal";
  case SymbolVisibility::Hidden:
    return "hidden";
  case SymbolVisibility::Protected:
    return "protected";
  }
  return "unknown";
}

namespace {

Error fail(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}

SymbolBinding toBinding(uint8_t B) {
  switch (B) {
  case ELF::STB_GLOBAL:
  case ELF::STB_GNU_UNIQUE:
    return SymbolBinding::Global;
  case ELF::STB_WEAK:
    return SymbolBinding::Weak;
  default:
    return SymbolBinding::Local;
  }
}

SymbolVisibility toVisibility(uint8_t V) {
  switch (V) {
  case ELF::STV_INTERNAL:
    return SymbolVisibility::Internal;
  case ELF::STV_HIDDEN:
    return SymbolVisibility::Hidden;
  case ELF::STV_PROTECTED:
    return SymbolVisibility::Protected;
  default:
    return SymbolVisibility::Default;
  }
}

/// Code object ABI version (4, 5, 6) from e_ident[EI_ABIVERSION].
Expected<unsigned> abiVersionOf(uint8_t EIAbiVersion) {
  switch (EIAbiVersion) {
  case ELF::ELFABIVERSION_AMDGPU_HSA_V3:
    return 3;
  case ELF::ELFABIVERSION_AMDGPU_HSA_V4:
    return 4;
  case ELF::ELFABIVERSION_AMDGPU_HSA_V5:
    return 5;
  case ELF::ELFABIVERSION_AMDGPU_HSA_V6:
    return 6;
  default:
    return fail("unsupported code object ABI version (EI_ABIVERSION " +
                Twine(unsigned(EIAbiVersion)) +
                "); Loom reads code objects v3 to v6");
  }
}

} // namespace

Expected<std::unique_ptr<CodeObject>> CodeObject::create(ArrayRef<uint8_t> Bytes,
                                                         StringRef Name) {
  std::unique_ptr<CodeObject> CO(new CodeObject());
  CO->Name = Name.str();
  CO->Bytes.assign(Bytes.begin(), Bytes.end());
  if (Error E = CO->parse())
    return createStringError(inconvertibleErrorCode(),
                             Name + ": " + oneLine(toString(std::move(E))));
  return std::move(CO);
}

Error CodeObject::parse() {
  StringRef Data(reinterpret_cast<const char *>(Bytes.data()), Bytes.size());
  if (Data.size() < sizeof(ELFT::Ehdr))
    return fail("truncated: " + Twine(Data.size()) +
                " bytes is smaller than an ELF64 header");
  if (!Data.starts_with(ELF::ElfMagic))
    return fail("not an ELF file (bad magic)");
  const uint8_t *Ident = Bytes.data();
  if (Ident[ELF::EI_CLASS] != ELF::ELFCLASS64 ||
      Ident[ELF::EI_DATA] != ELF::ELFDATA2LSB)
    return fail("not a 64-bit little-endian ELF file");

  Expected<Elf> FileOrErr = Elf::create(Data);
  if (!FileOrErr)
    return FileOrErr.takeError();
  const Elf &File = *FileOrErr;
  const ELFT::Ehdr &Hdr = File.getHeader();

  if (Hdr.e_machine != ELF::EM_AMDGPU)
    return fail("e_machine is " + Twine(Hdr.e_machine) +
                ", not EM_AMDGPU (" + Twine(ELF::EM_AMDGPU) + ")");
  if (Ident[ELF::EI_OSABI] != ELF::ELFOSABI_AMDGPU_HSA)
    return fail("EI_OSABI is " + Twine(unsigned(Ident[ELF::EI_OSABI])) +
                ", not ELFOSABI_AMDGPU_HSA");
  Expected<unsigned> Abi = abiVersionOf(Ident[ELF::EI_ABIVERSION]);
  if (!Abi)
    return Abi.takeError();
  AbiVersion = *Abi;
  ElfFlags = Hdr.e_flags;

  // The processor name comes from LLVM's table of EF_AMDGPU_MACH values.
  // That table (ELFObjectFileBase::getAMDGPUCPUName) ends in
  // llvm_unreachable for values outside it, so only AMDGCN values reach it;
  // unassigned values inside the AMDGCN range give an empty name.
  unsigned Mach = ElfFlags & ELF::EF_AMDGPU_MACH;
  if (Mach < ELF::EF_AMDGPU_MACH_AMDGCN_FIRST ||
      Mach > ELF::EF_AMDGPU_MACH_AMDGCN_LAST)
    return fail(formatv("e_flags names no AMDGCN processor (EF_AMDGPU_MACH "
                        "{0:x})",
                        Mach)
                    .str());
  {
    MemoryBufferRef Ref(Data, Name);
    Expected<ELFObjectFile<ELFT>> Obj = ELFObjectFile<ELFT>::create(Ref);
    if (!Obj)
      return Obj.takeError();
    std::optional<StringRef> CPU = Obj->tryGetCPUName();
    if (!CPU || CPU->empty())
      return fail(formatv("unknown processor in e_flags (EF_AMDGPU_MACH {0:x})",
                          ElfFlags & ELF::EF_AMDGPU_MACH)
                      .str());
    Target = TargetId::fromElf(*CPU, ElfFlags, AbiVersion);
  }

  // Loaded image.
  Expected<Elf::Elf_Phdr_Range> Phdrs = File.program_headers();
  if (!Phdrs)
    return Phdrs.takeError();
  for (const ELFT::Phdr &P : *Phdrs) {
    if (P.p_type != ELF::PT_LOAD)
      continue;
    if (P.p_offset > Data.size() || P.p_filesz > Data.size() - P.p_offset)
      return fail(formatv("PT_LOAD segment at offset {0:x} with file size "
                          "{1:x} extends past the end of the file ({2:x})",
                          uint64_t(P.p_offset), uint64_t(P.p_filesz),
                          Data.size())
                      .str());
    if (P.p_memsz < P.p_filesz)
      return fail(formatv("PT_LOAD segment at vaddr {0:x} has memory size "
                          "smaller than file size",
                          uint64_t(P.p_vaddr))
                      .str());
    if (P.p_vaddr + P.p_memsz < P.p_vaddr)
      return fail(formatv("PT_LOAD segment at vaddr {0:x} wraps around",
                          uint64_t(P.p_vaddr))
                      .str());
    Segments.push_back({P.p_vaddr, P.p_memsz, P.p_offset, P.p_filesz,
                        static_cast<uint32_t>(P.p_flags)});
  }

  // Metadata note, found through the program headers as a loader does.
  for (const ELFT::Phdr &P : *Phdrs) {
    if (P.p_type != ELF::PT_NOTE)
      continue;
    Error Err = Error::success();
    for (const ELFT::Note &N : File.notes(P, Err)) {
      if (N.getName() != "AMDGPU" ||
          N.getType() != ELF::NT_AMDGPU_METADATA)
        continue;
      ArrayRef<uint8_t> Desc = N.getDesc(P.p_align);
      Expected<Metadata> Parsed = Metadata::parse(
          StringRef(reinterpret_cast<const char *>(Desc.data()), Desc.size()));
      if (!Parsed) {
        consumeError(std::move(Err)); // still Error::success() here
        return Parsed.takeError();
      }
      MD = std::move(*Parsed);
      MetadataNote.assign(reinterpret_cast<const char *>(Desc.data()),
                          Desc.size());
    }
    if (Err)
      return Err;
  }

  // Symbols: .symtab when present (it has the local device functions),
  // otherwise .dynsym. Undefined symbols come from .dynsym.
  Expected<Elf::Elf_Shdr_Range> Sections = File.sections();
  if (!Sections)
    return Sections.takeError();
  const ELFT::Shdr *SymTab = nullptr, *DynSym = nullptr;
  for (const ELFT::Shdr &S : *Sections) {
    if (S.sh_type == ELF::SHT_SYMTAB)
      SymTab = &S;
    else if (S.sh_type == ELF::SHT_DYNSYM)
      DynSym = &S;
  }

  auto ReadSymbols = [&](const ELFT::Shdr *Table,
                         std::vector<std::pair<SymbolInfo, uint8_t>> &Defined,
                         bool CollectUndefs) -> Error {
    if (!Table)
      return Error::success();
    Expected<Elf::Elf_Sym_Range> Syms = File.symbols(Table);
    if (!Syms)
      return Syms.takeError();
    Expected<StringRef> StrTab = File.getStringTableForSymtab(*Table);
    if (!StrTab)
      return StrTab.takeError();
    for (const ELFT::Sym &S : drop_begin(*Syms)) {
      Expected<StringRef> SymName = S.getName(*StrTab);
      if (!SymName)
        return SymName.takeError();
      uint8_t Type = S.getType();
      if (S.st_shndx == ELF::SHN_UNDEF) {
        if (CollectUndefs && !SymName->empty())
          Undefs.push_back({SymName->str(), toBinding(S.getBinding()),
                            Type == ELF::STT_FUNC});
        continue;
      }
      if (Type != ELF::STT_FUNC && Type != ELF::STT_OBJECT &&
          Type != ELF::STT_AMDGPU_HSA_KERNEL &&
          !(Type == ELF::STT_NOTYPE && S.st_size))
        continue;
      SymbolInfo Info;
      Info.Name = SymName->str();
      Info.Address = S.st_value;
      Info.Size = S.st_size;
      Info.Binding = toBinding(S.getBinding());
      Info.Visibility = toVisibility(S.getVisibility());
      if (S.st_shndx < ELF::SHN_LORESERVE) {
        Expected<const ELFT::Shdr *> Sec = File.getSection(S.st_shndx);
        if (!Sec)
          return Sec.takeError();
        Expected<StringRef> SecName = File.getSectionName(**Sec);
        if (!SecName)
          return SecName.takeError();
        Info.Section = SecName->str();
      }
      Defined.push_back({std::move(Info), Type});
    }
    return Error::success();
  };

  std::vector<std::pair<SymbolInfo, uint8_t>> Defined, DynDefined;
  if (Error E = ReadSymbols(SymTab, Defined, /*CollectUndefs=*/false))
    return E;
  if (Error E = ReadSymbols(DynSym, DynDefined, /*CollectUndefs=*/true))
    return E;
  if (!SymTab)
    Defined = std::move(DynDefined);

  // Kernels: a `name.kd` descriptor object plus its `name` entry function.
  std::map<std::string, const SymbolInfo *> FuncsByName;
  for (auto &[Info, Type] : Defined)
    if (Type == ELF::STT_FUNC || Type == ELF::STT_AMDGPU_HSA_KERNEL)
      FuncsByName[Info.Name] = &Info;
  std::map<std::string, bool> KernelCode;
  // Metadata entry of each descriptor symbol (the last one, if repeated).
  std::map<std::string, size_t> MetadataBySymbol;
  for (size_t I = 0; I < MD.Kernels.size(); ++I)
    MetadataBySymbol[MD.Kernels[I].Symbol] = I;
  for (auto &[Info, Type] : Defined) {
    if (Type != ELF::STT_OBJECT || !StringRef(Info.Name).ends_with(".kd"))
      continue;
    if (Info.Size != KernelDescriptor::Size)
      return fail(formatv("kernel descriptor {0} has size {1}, not {2}",
                          Info.Name, Info.Size, KernelDescriptor::Size)
                      .str());
    Expected<ArrayRef<uint8_t>> KDBytes =
        contents(Info.Address, KernelDescriptor::Size);
    if (!KDBytes)
      return fail("kernel descriptor " + Info.Name + ": " +
                  toString(KDBytes.takeError()));
    Kernel K;
    K.Descriptor = Info;
    K.KD = KernelDescriptor::decode(KDBytes->data());
    K.EntryAddress = Info.Address + K.KD.KernelCodeEntryByteOffset;
    std::string CodeName = StringRef(Info.Name).drop_back(3).str();
    if (auto It = FuncsByName.find(CodeName); It != FuncsByName.end()) {
      K.Code = *It->second;
      KernelCode[CodeName] = true;
    } else {
      // Stripped entry symbol: describe the code by the descriptor alone.
      K.Code.Name = CodeName;
      K.Code.Address = K.EntryAddress;
      K.Code.Binding = Info.Binding;
      K.Code.Visibility = Info.Visibility;
    }
    if (auto It = MetadataBySymbol.find(Info.Name);
        It != MetadataBySymbol.end())
      K.MetadataIndex = It->second;
    Kernels.push_back(std::move(K));
  }
  for (auto &[Info, Type] : Defined) {
    if (Type == ELF::STT_FUNC || Type == ELF::STT_AMDGPU_HSA_KERNEL) {
      if (!KernelCode.count(Info.Name))
        Functions.push_back({Info});
    } else if (Type == ELF::STT_OBJECT &&
               !StringRef(Info.Name).ends_with(".kd")) {
      Variables.push_back({Info});
    } else if (Type == ELF::STT_NOTYPE) {
      Labels.push_back(Info);
    }
  }
  auto ByAddress = [](const auto &A, const auto &B) {
    return std::tie(A.Address, A.Name) < std::tie(B.Address, B.Name);
  };
  llvm::sort(Kernels, [&](const Kernel &A, const Kernel &B) {
    return ByAddress(A.Code, B.Code);
  });
  llvm::sort(Functions, [&](const Function &A, const Function &B) {
    return ByAddress(A.Sym, B.Sym);
  });
  llvm::sort(Labels, ByAddress);
  llvm::sort(Variables, [&](const Variable &A, const Variable &B) {
    return ByAddress(A.Sym, B.Sym);
  });

  // Dynamic relocations (.rela.dyn), with symbol names from .dynsym.
  for (const ELFT::Shdr &S : *Sections) {
    if (S.sh_type != ELF::SHT_RELA || !(S.sh_flags & ELF::SHF_ALLOC))
      continue;
    Expected<Elf::Elf_Rela_Range> Relas = File.relas(S);
    if (!Relas)
      return Relas.takeError();
    // sh_link only matters if a relocation names a symbol: a bad one is an
    // error then, and ignored otherwise.
    const ELFT::Shdr *LinkedSymTab = nullptr;
    std::string LinkError;
    if (Expected<const ELFT::Shdr *> L = File.getSection(S.sh_link))
      LinkedSymTab = *L;
    else
      LinkError = toString(L.takeError());
    for (const ELFT::Rela &R : *Relas) {
      DynamicRelocation DR;
      DR.Offset = R.r_offset;
      DR.Type = R.getType(/*isMips64EL=*/false);
      DR.TypeName = getELFRelocationTypeName(ELF::EM_AMDGPU, DR.Type).str();
      DR.Addend = R.r_addend;
      uint32_t SymIdx = R.getSymbol(/*isMips64EL=*/false);
      if (SymIdx != 0) {
        if (!LinkedSymTab)
          return fail("dynamic relocation section links to no symbol "
                      "table: " + LinkError);
        Expected<const ELFT::Sym *> Sym =
            File.getRelocationSymbol(R, LinkedSymTab);
        if (!Sym)
          return Sym.takeError();
        Expected<StringRef> StrTab =
            File.getStringTableForSymtab(*LinkedSymTab);
        if (!StrTab)
          return StrTab.takeError();
        Expected<StringRef> SymName = (*Sym)->getName(*StrTab);
        if (!SymName)
          return SymName.takeError();
        DR.Symbol = SymName->str();
      }
      DynRelocs.push_back(std::move(DR));
    }
  }
  return Error::success();
}

Expected<ArrayRef<uint8_t>> CodeObject::contents(uint64_t VAddr,
                                                 uint64_t Size) const {
  for (const LoadSegment &S : Segments) {
    if (VAddr < S.VAddr || VAddr - S.VAddr >= S.FileSize)
      continue;
    uint64_t Off = VAddr - S.VAddr;
    if (Size > S.FileSize - Off)
      break;
    return ArrayRef<uint8_t>(Bytes).slice(S.FileOffset + Off, Size);
  }
  return fail(formatv("bytes [{0:x}, {0:x} + {1:x}) are not in the file "
                      "image of any PT_LOAD segment",
                      VAddr, Size)
                  .str());
}

uint64_t CodeObject::loadedSize() const {
  uint64_t End = 0;
  for (const LoadSegment &S : Segments)
    End = std::max(End, S.VAddr + S.MemSize);
  return End;
}

const Kernel *CodeObject::findKernel(StringRef N) const {
  for (const Kernel &K : Kernels)
    if (K.Code.Name == N || K.Descriptor.Name == N)
      return &K;
  return nullptr;
}

const Function *CodeObject::findFunction(StringRef N) const {
  for (const Function &F : Functions)
    if (F.Sym.Name == N)
      return &F;
  return nullptr;
}

const Variable *CodeObject::findVariable(StringRef N) const {
  for (const Variable &V : Variables)
    if (V.Sym.Name == N)
      return &V;
  return nullptr;
}

const KernelMetadata *CodeObject::metadataOf(const Kernel &K) const {
  return K.MetadataIndex ? &MD.Kernels[*K.MetadataIndex] : nullptr;
}

bool symbolNameMatches(StringRef Symbol, StringRef Name) {
  if (Symbol == Name)
    return true;
  std::string D = demangle(Symbol);
  if (D == Symbol)
    return false;
  return D == Name || StringRef(D).split('(').first == Name;
}

} // namespace loom::codeobj
