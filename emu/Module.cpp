//===- emu/Module.cpp - Place a code object in memory and run kernels -----===//

#include "loom/emu/Module.h"

#include "loom/codeobj/Input.h"
#include "loom/codeobj/Kernarg.h"
#include "loom/emu/Retire.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <cstdlib>
#include <set>
#include <sys/mman.h>

using namespace llvm;

namespace loom::emu {

static Error fail(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}

//===----------------------------------------------------------------------===//
// DeviceBuffer
//===----------------------------------------------------------------------===//

DeviceBuffer::DeviceBuffer(Device &Dev, size_t Bytes, size_t Align)
    : Dev(&Dev), Bytes(Bytes) {
  size_t Rounded = alignTo(std::max<size_t>(Bytes, 1), Align);
  Ptr = std::aligned_alloc(Align, Rounded);
  // As operator new does: a test or bench helper has no error path.
  if (!Ptr)
    report_bad_alloc_error("DeviceBuffer: out of memory");
  std::memset(Ptr, 0, Rounded);
  Dev.memory().add(Ptr, Bytes);
}

DeviceBuffer::~DeviceBuffer() {
  if (!Ptr)
    return;
  Dev->memory().remove(Ptr);
  std::free(Ptr);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer &&O) noexcept
    : Dev(O.Dev), Ptr(O.Ptr), Bytes(O.Bytes) {
  O.Ptr = nullptr;
}

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

Module::Module(Device &Dev, std::shared_ptr<const codeobj::CodeObject> CO,
               StringRef Name)
    : Dev(Dev), CO(std::move(CO)), Name(Name.str()) {}

Module::~Module() {
  if (!Image)
    return;
  Dev.unregisterCode(Base);
  Dev.memory().remove(Base);
  // A dispatch still running may read the image (its kernel descriptor,
  // constants): the pages go once it ends.
  retireAfterDispatches([Image = Image, Bytes = alignTo(Size, 4096)] {
    munmap(Image, Bytes);
  });
}

Expected<std::unique_ptr<Module>>
Module::load(Device &Dev, std::shared_ptr<const codeobj::CodeObject> CO,
             StringRef Name) {
  std::unique_ptr<Module> M(new Module(Dev, std::move(CO), Name));
  if (Error E = M->place())
    return std::move(E);
  return std::move(M);
}

Expected<std::unique_ptr<Module>> Module::loadFile(Device &Dev,
                                                   StringRef Path) {
  Expected<codeobj::Input> In = codeobj::readInputFile(Path);
  if (!In)
    return In.takeError();
  if (In->CodeObjects.size() != 1)
    return fail(Path + ": holds " + Twine(In->CodeObjects.size()) +
                " code objects; Module::loadFile needs exactly one");
  std::shared_ptr<const codeobj::CodeObject> CO =
      std::move(In->CodeObjects[0].Object);
  auto M = load(Dev, std::move(CO), Path);
  if (!M)
    return M.takeError();
  // A lone code object can only use what it defines.
  if (Error E = (*M)->resolve([](StringRef) { return std::nullopt; }))
    return std::move(E);
  return M;
}

Error Module::place() {
  uint64_t Loaded = CO->loadedSize();
  if (Loaded == 0)
    return fail(Name + ": no loadable segments");
  // Checked before anything is allocated: a header may claim any size.
  if (Loaded > MaxImageBytes)
    return fail(formatv("{0}: its segments span {1} bytes, more than Loom's "
                        "limit of {2} for a loaded code object",
                        Name, Loaded, MaxImageBytes));
  // mmap: zero-filled pages, committed only where written (a large .bss
  // costs nothing until the kernel touches it).
  size_t Rounded = alignTo(Loaded, 4096);
  void *Map = mmap(nullptr, Rounded, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (Map == MAP_FAILED)
    return fail(formatv("{0}: cannot map {1} bytes for its image", Name,
                        Rounded));
  Image = static_cast<uint8_t *>(Map);
  Size = Loaded;
  Base = reinterpret_cast<uint64_t>(Image);
  for (const codeobj::LoadSegment &S : CO->loadSegments()) {
    // A segment of only .bss (HIP __device__ variables) has no file bytes.
    if (S.FileSize == 0)
      continue;
    Expected<ArrayRef<uint8_t>> Bytes = CO->contents(S.VAddr, S.FileSize);
    if (!Bytes)
      return Bytes.takeError();
    std::memcpy(Image + S.VAddr, Bytes->data(), Bytes->size());
  }
  // Relocations that need no symbol: the image is position independent.
  for (const codeobj::DynamicRelocation &R : CO->dynamicRelocations()) {
    if (R.Type != ELF::R_AMDGPU_RELATIVE64)
      continue;
    if (R.Offset + 8 > Size)
      return fail(Name + ": relocation outside the image");
    uint64_t V = Base + R.Addend;
    std::memcpy(Image + R.Offset, &V, 8);
  }
  Dev.memory().add(Image, Size);
  if (Error E = Dev.registerCode(CO, Base, Name)) {
    Dev.memory().remove(Image);
    return E;
  }
  return Error::success();
}

std::optional<uint64_t> Module::symbolAddress(StringRef Sym) const {
  for (const codeobj::Kernel &K : CO->kernels()) {
    if (K.Code.Name == Sym)
      return Base + K.Code.Address;
    if (K.Descriptor.Name == Sym)
      return Base + K.Descriptor.Address;
  }
  if (const codeobj::Function *F = CO->findFunction(Sym))
    return Base + F->Sym.Address;
  if (const codeobj::Variable *V = CO->findVariable(Sym))
    return Base + V->Sym.Address;
  return std::nullopt;
}

std::optional<uint64_t> Module::kernelObject(StringRef Kernel) const {
  if (const codeobj::Kernel *K = CO->findKernel(Kernel))
    return Base + K->Descriptor.Address;
  return std::nullopt;
}

Error Module::resolve(SymbolResolver Resolve) {
  std::set<std::string> Missing;
  for (const codeobj::DynamicRelocation &R : CO->dynamicRelocations()) {
    if (R.Type == ELF::R_AMDGPU_RELATIVE64 || R.Type == ELF::R_AMDGPU_NONE)
      continue;
    std::optional<uint64_t> S;
    if (!R.Symbol.empty()) {
      S = symbolAddress(R.Symbol);
      if (!S)
        S = Resolve(R.Symbol);
    }
    if (!S) {
      Missing.insert(R.Symbol.empty() ? "<no symbol>" : R.Symbol);
      continue;
    }
    uint64_t V = *S + R.Addend;
    unsigned Bytes;
    switch (R.Type) {
    case ELF::R_AMDGPU_ABS64:
      Bytes = 8;
      break;
    case ELF::R_AMDGPU_ABS32:
    case ELF::R_AMDGPU_ABS32_LO:
      Bytes = 4;
      break;
    case ELF::R_AMDGPU_ABS32_HI:
      V >>= 32;
      Bytes = 4;
      break;
    default:
      return fail(Name + ": unsupported dynamic relocation " + R.TypeName);
    }
    if (R.Offset + Bytes > Size)
      return fail(Name + ": relocation outside the image");
    std::memcpy(Image + R.Offset, &V, Bytes);
  }
  if (!Missing.empty()) {
    std::string List;
    for (const std::string &M : Missing)
      List += (List.empty() ? "" : ", ") + M;
    return fail(Name + ": undefined symbols: " + List);
  }
  Resolved = true;
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Launching
//===----------------------------------------------------------------------===//

namespace {

/// Default scratch per work-item for kernels with a dynamic stack
/// (recursion, calls to unknown functions), as HIP's default stack size.
constexpr uint32_t DefaultDynamicStack = 1024;

} // namespace

Expected<PreparedLaunch> Module::prepare(StringRef Kernel,
                                         const LaunchConfig &C,
                                         const KernelArgs &Args) const {
  if (!Resolved)
    return fail(Name + ": launch before its symbols are resolved");
  const codeobj::Kernel *K = CO->findKernel(Kernel);
  if (!K)
    return fail(Name + ": no kernel named '" + Kernel + "'");
  const codeobj::KernelMetadata *MD = CO->metadataOf(*K);
  if (!MD)
    return fail(Name + ": kernel '" + Kernel + "' has no metadata");

  uint64_t KernargSize =
      std::max<uint64_t>({MD->KernargSegmentSize, K->KD.KernargSize, 16});
  PreparedLaunch L;
  L.Kernarg.assign(KernargSize, 0);
  uint8_t *KA = L.Kernarg.data();

  size_t Explicit = 0;
  for (const codeobj::KernelArgMetadata &A : MD->Args) {
    if (A.Offset + A.Size > KernargSize)
      return fail(Name + ": argument outside the kernarg segment");
    if (A.isHidden())
      continue;
    if (Explicit >= Args.args().size())
      return fail(formatv("{0}: kernel '{1}' takes more than the {2} "
                          "arguments given",
                          Name, Kernel, Args.args().size()));
    const std::vector<uint8_t> &V = Args.args()[Explicit++];
    if (V.size() != A.Size)
      return fail(formatv("{0}: argument {1} of '{2}' is {3} bytes, "
                          "{4} given",
                          Name, Explicit - 1, Kernel, A.Size, V.size()));
    std::memcpy(KA + A.Offset, V.data(), V.size());
  }
  // Buffers Loom does not provide here (printf, hostcall, heap, queues)
  // are null.
  codeobj::HiddenArgumentValues Hidden;
  for (int D = 0; D < 3; ++D) {
    Hidden.GridItems[D] = C.Grid[D];
    Hidden.GroupItems[D] = C.Workgroup[D];
  }
  Hidden.Dimensions = C.Dimensions;
  Hidden.DynamicLdsBytes = C.DynamicLdsBytes;
  Hidden.SharedApertureBase = SharedApertureBase;
  Hidden.PrivateApertureBase = PrivateApertureBase;
  if (Error E = codeobj::writeHiddenArguments(
          *MD, Hidden, MutableArrayRef<uint8_t>(KA, KernargSize)))
    return fail(Name + ": " + toString(std::move(E)));
  if (Explicit != Args.args().size())
    return fail(formatv("{0}: kernel '{1}' takes {2} arguments, {3} given",
                        Name, Kernel, Explicit, Args.args().size()));
  for (const auto &[Offset, Bytes] : Args.raw()) {
    if (uint64_t(Offset) + Bytes.size() > KernargSize)
      return fail(formatv("{0}: {1} bytes at offset {2} of the {3}-byte "
                          "kernarg segment of '{4}'",
                          Name, Bytes.size(), Offset, KernargSize, Kernel));
    std::memcpy(KA + Offset, Bytes.data(), Bytes.size());
  }

  DispatchParams &P = L.Params;
  P.KernelObject = Base + K->Descriptor.Address;
  for (int D = 0; D < 3; ++D) {
    P.GridSize[D] = C.Grid[D];
    P.WorkgroupSize[D] = C.Workgroup[D];
  }
  P.Dimensions = C.Dimensions;
  P.GroupSegmentSize =
      static_cast<uint32_t>(MD->GroupSegmentFixedSize) + C.DynamicLdsBytes;
  P.PrivateSegmentSize =
      K->KD.PrivateSegmentFixedSize + C.ExtraPrivateBytes +
      (K->KD.Properties.UsesDynamicStack ? DefaultDynamicStack : 0);
  P.Cancel = C.Cancel;
  P.KernelName = K->name().str();
  return L;
}

Expected<DispatchResult> Module::launch(StringRef Kernel,
                                        const LaunchConfig &C,
                                        const KernelArgs &Args) {
  Expected<PreparedLaunch> L = prepare(Kernel, C, Args);
  if (!L)
    return L.takeError();
  DeviceBuffer Kernarg(Dev, alignTo(L->Kernarg.size(), 64), 64);
  std::memcpy(Kernarg.data(), L->Kernarg.data(), L->Kernarg.size());
  L->Params.Kernarg = Kernarg.address();
  return Dev.dispatch(L->Params);
}

} // namespace loom::emu
