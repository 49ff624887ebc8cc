//===- fuzz/fuzz_metadata.cpp - libFuzzer target for Metadata::parse -------===//
//
// Feeds arbitrary bytes to the NT_AMDGPU_METADATA msgpack parser. Bad input
// must give a one-line error, never a crash or an unbounded allocation.
//
//===----------------------------------------------------------------------===//

#include "loom/codeobj/Metadata.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace llvm;
using namespace loom::codeobj;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  Expected<Metadata> MD =
      Metadata::parse(StringRef(reinterpret_cast<const char *>(Data), Size));
  if (!MD) {
    std::string Msg = toString(MD.takeError());
    if (Msg.empty() || StringRef(Msg).contains('\n')) {
      std::fprintf(stderr, "bad error message: [%s]\n", Msg.c_str());
      std::abort();
    }
    return 0;
  }
  volatile uint64_t Sink = MD->Version.size() + MD->Target.size();
  for (const KernelMetadata &K : MD->Kernels) {
    if (MD->findKernel(K.Name) == nullptr)
      std::abort();
    for (const KernelArgMetadata &A : K.Args)
      Sink += A.Offset + A.Size + A.isHidden();
  }
  (void)Sink;
  return 0;
}
