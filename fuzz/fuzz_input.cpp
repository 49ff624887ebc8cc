//===- fuzz/fuzz_input.cpp - libFuzzer target for readInput ----------------===//
//
// Feeds arbitrary bytes to loom::codeobj::readInput, which detects and parses
// raw AMDGPU code objects, offload bundles, compressed offload bundles and
// host ELF files with a .hip_fatbin section. Bad input must give an error
// (one line, starting with the name given), never a crash; good input must
// leave accessors that never read out of bounds.
//
//===----------------------------------------------------------------------===//

#include "loom/codeobj/Input.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace llvm;
using namespace loom::codeobj;

static constexpr const char *FuzzName = "fuzz-input.bin";

/// Aborts (so libFuzzer records the input) if an error message breaks the
/// "one line naming the file" contract.
static void checkMessage(StringRef Msg) {
  if (!Msg.starts_with(FuzzName) || Msg.contains('\n') || Msg.contains('\r') ||
      Msg.size() <= StringRef(FuzzName).size() + 2) {
    std::fprintf(stderr, "bad error message: [%.*s]\n", int(Msg.size()),
                 Msg.data());
    std::abort();
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  Expected<Input> In = readInput(ArrayRef<uint8_t>(Data, Size), FuzzName);
  if (!In) {
    checkMessage(toString(In.takeError()));
    return 0;
  }
  // Walk everything a consumer (loom inspect, the loader) would look at.
  volatile uint64_t Sink = 0;
  for (const EmbeddedCodeObject &E : In->CodeObjects) {
    const CodeObject &CO = *E.Object;
    Sink += CO.loadedSize() + CO.target().str().size() + CO.bytes().size();
    for (const Kernel &K : CO.kernels()) {
      if (const KernelMetadata *MD = CO.metadataOf(K))
        Sink += MD->Args.size() + MD->Name.size();
      Sink += K.KD.enabledUserSgprCount() + K.KD.accumOffsetInVgprs();
      if (CO.findKernel(K.name()) == nullptr)
        std::abort();
      Expected<ArrayRef<uint8_t>> Code =
          CO.contents(K.EntryAddress, K.Code.Size);
      if (Code) {
        for (uint8_t B : *Code)
          Sink += B;
      } else {
        consumeError(Code.takeError());
      }
    }
    for (const Function &F : CO.functions()) {
      Expected<ArrayRef<uint8_t>> Code = CO.contents(F.Sym.Address, F.Sym.Size);
      if (Code)
        Sink += Code->size();
      else
        consumeError(Code.takeError());
    }
    Sink += CO.variables().size() + CO.dynamicRelocations().size() +
            CO.undefinedSymbols().size() + CO.metadata().Printf.size();
  }
  for (const OtherBundleEntry &O : In->OtherEntries)
    Sink += O.Size + O.EntryId.size();
  (void)Sink;
  return 0;
}
