//===- HookTestUtil.h - Loading test hooks on the emulator ------*- C++ -*-===//
//
// What the tool runtime does for a tool, done directly on an emu::Device for
// the instrumenter tests: the hooks' bitcode compiled and loaded as the
// tool's own code object, and its globals' addresses collected.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TESTS_INSTRUMENT_HOOKTESTUTIL_H
#define LOOM_TESTS_INSTRUMENT_HOOKTESTUTIL_H

#include "loom/codeobj/CodeObject.h"
#include "loom/emu/Device.h"
#include "loom/emu/Module.h"
#include "loom/instrument/Instrumenter.h"
#include "loom/jit/Pipeline.h"

#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <set>
#include <string>

namespace loom::instrument::testutil {

/// Loads and resolves a linked code object on \p Dev.
inline llvm::Expected<std::unique_ptr<emu::Module>>
loadElf(emu::Device &Dev, llvm::ArrayRef<char> Elf, llvm::StringRef Name) {
  auto CO = codeobj::CodeObject::create(
      llvm::ArrayRef(reinterpret_cast<const uint8_t *>(Elf.data()), Elf.size()),
      Name);
  if (!CO)
    return CO.takeError();
  auto M = emu::Module::load(Dev, std::move(*CO), Name);
  if (!M)
    return M.takeError();
  if (llvm::Error E =
          (*M)->resolve([](llvm::StringRef) { return std::nullopt; }))
    return std::move(E);
  return std::move(*M);
}

struct LoadedHooks {
  std::string Bitcode;
  std::unique_ptr<emu::Module> Module;
  HookLibrary Library;

  uint64_t *global(llvm::StringRef Name) const {
    return reinterpret_cast<uint64_t *>(Library.GlobalAddresses.lookup(Name));
  }
};

inline llvm::Expected<std::unique_ptr<LoadedHooks>>
loadHooks(emu::Device &Dev, llvm::StringRef BitcodePath,
          llvm::StringRef Processor) {
  auto Buf = llvm::MemoryBuffer::getFile(BitcodePath);
  if (!Buf)
    return llvm::createStringError(BitcodePath + ": " +
                                   Buf.getError().message());
  auto H = std::make_unique<LoadedHooks>();
  H->Bitcode = (*Buf)->getBuffer().str();
  auto Elf = compileHookGlobals(H->Bitcode, "test", Processor);
  if (!Elf)
    return Elf.takeError();
  auto M = loadElf(Dev, *Elf, "hooks");
  if (!M)
    return M.takeError();
  H->Module = std::move(*M);
  H->Library.Name = "test";
  H->Library.Bitcode = H->Bitcode;
  for (const codeobj::Variable &V : H->Module->codeObject().variables())
    H->Library.GlobalAddresses[V.name()] = *H->Module->symbolAddress(V.name());
  return std::move(H);
}

/// The waves of a launch as test_hooks.hip's wave_info records them:
/// (work-group x, y, z, wave id, active lanes), work-groups cut short at
/// the grid's edge.
inline std::multiset<std::array<uint64_t, 5>>
expectedWaves(const uint32_t Grid[3], const uint16_t Group[3]) {
  std::multiset<std::array<uint64_t, 5>> W;
  uint32_t Groups[3];
  for (int D = 0; D < 3; ++D)
    Groups[D] = (Grid[D] + Group[D] - 1) / Group[D];
  for (uint32_t Z = 0; Z < Groups[2]; ++Z)
    for (uint32_t Y = 0; Y < Groups[1]; ++Y)
      for (uint32_t X = 0; X < Groups[0]; ++X) {
        uint32_t Items = std::min<uint32_t>(Group[0], Grid[0] - X * Group[0]) *
                         std::min<uint32_t>(Group[1], Grid[1] - Y * Group[1]) *
                         std::min<uint32_t>(Group[2], Grid[2] - Z * Group[2]);
        for (uint32_t Wave = 0; Wave * 64 < Items; ++Wave)
          W.insert({X, Y, Z, Wave, std::min<uint32_t>(64, Items - Wave * 64)});
      }
  return W;
}

/// What wave_info recorded, and the checks every record passes: the
/// dispatch id and launch data given, and lane ids matching EXEC's lanes.
inline std::multiset<std::array<uint64_t, 5>>
recordedWaves(const LoadedHooks &H, uint64_t DispatchId, uint64_t LaunchData,
              unsigned &Bad) {
  std::multiset<std::array<uint64_t, 5>> W;
  uint64_t Count = std::min<uint64_t>(*H.global("loom_test_wavecount"), 16384);
  const uint64_t *Info = H.global("loom_test_waveinfo");
  for (uint64_t I = 0; I < Count; ++I) {
    const uint64_t *Rec = Info + I * 8;
    W.insert({Rec[0], Rec[1], Rec[2], Rec[3], Rec[4]});
    Bad += Rec[5] != DispatchId || Rec[6] != LaunchData ||
           Rec[7] != (Rec[4] >= 64 ? ~0ull : (1ull << Rec[4]) - 1);
  }
  Bad += *H.global("loom_test_mismatch") != 0;
  return W;
}

inline void resetWaves(const LoadedHooks &H) {
  std::memset(H.global("loom_test_waveinfo"), 0, 16384 * 8 * 8);
  *H.global("loom_test_wavecount") = 0;
  *H.global("loom_test_mismatch") = 0;
}

} // namespace loom::instrument::testutil

#endif // LOOM_TESTS_INSTRUMENT_HOOKTESTUTIL_H
