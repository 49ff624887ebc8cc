//===- fuzz/extract_metadata_seeds.cpp - msgpack seeds from code objects ---===//
//
// extract_metadata_seeds OUTDIR FILE...
// Writes the descriptor of every NT_AMDGPU_METADATA note of each AMDGPU ELF
// FILE to OUTDIR/<file name>.msgpack (numbered if there are several), so
// fuzz_metadata starts from the metadata of real code objects. Files that are
// not AMDGPU ELF files are skipped. Build-time helper, not instrumented.
//
//===----------------------------------------------------------------------===//

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELF.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace llvm::object;

int main(int argc, char **argv) {
  if (argc < 2) {
    errs() << "usage: extract_metadata_seeds OUTDIR FILE...\n";
    return 1;
  }
  StringRef OutDir = argv[1];
  for (int I = 2; I < argc; ++I) {
    auto Buf = MemoryBuffer::getFile(argv[I], /*IsText=*/false,
                                     /*RequiresNullTerminator=*/false);
    if (!Buf) {
      errs() << argv[I] << ": " << Buf.getError().message() << "\n";
      return 1;
    }
    Expected<ELF64LEFile> File = ELF64LEFile::create((*Buf)->getBuffer());
    if (!File) {
      consumeError(File.takeError());
      continue;
    }
    if (File->getHeader().e_machine != ELF::EM_AMDGPU)
      continue;
    Expected<ELF64LEFile::Elf_Phdr_Range> Phdrs = File->program_headers();
    if (!Phdrs) {
      consumeError(Phdrs.takeError());
      continue;
    }
    unsigned N = 0;
    for (const ELF64LE::Phdr &P : *Phdrs) {
      if (P.p_type != ELF::PT_NOTE)
        continue;
      Error Err = Error::success();
      for (const ELF64LE::Note &Note : File->notes(P, Err)) {
        if (Note.getName() != "AMDGPU" ||
            Note.getType() != ELF::NT_AMDGPU_METADATA)
          continue;
        SmallString<256> Out(OutDir);
        sys::path::append(Out, sys::path::filename(argv[I]));
        if (N++)
          Out += "." + std::to_string(N);
        Out += ".msgpack";
        std::error_code EC;
        raw_fd_ostream OS(Out, EC);
        if (EC) {
          errs() << Out << ": " << EC.message() << "\n";
          return 1;
        }
        ArrayRef<uint8_t> Desc = Note.getDesc(P.p_align);
        OS.write(reinterpret_cast<const char *>(Desc.data()), Desc.size());
      }
      if (Err)
        consumeError(std::move(Err));
    }
  }
  return 0;
}
