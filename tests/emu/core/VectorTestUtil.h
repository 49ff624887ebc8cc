//===- tests/emu/core/VectorTestUtil.h - Harness for VALU tests -*- C++ -*-===//
//
// Runs the one-instruction kernels of kernels/vector_int.c, vector_compare.c
// and lane.c on operand sets full of edge cases, with EXEC fully and
// partially set, and compares every lane with a host reference (inactive
// lanes must keep their old value).
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TESTS_EMU_CORE_VECTORTESTUTIL_H
#define LOOM_TESTS_EMU_CORE_VECTORTESTUTIL_H

#include "loom/emu/Module.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace loom::emu::test {

/// Work-items per launch: enough for every pair of edge values in (A, B).
inline constexpr unsigned NumItems = 1024;
inline constexpr unsigned NumWaves = NumItems / 64;
/// EXEC masks each kernel runs with: all lanes, then a ragged subset.
inline constexpr uint64_t TestMasks[] = {~0ull, 0x8000'0001'f0f0'5a5bull};

inline const std::vector<uint32_t> &edgeValues() {
  static const std::vector<uint32_t> E = {
      0,          1,          2,          7,          15,         16,
      17,         31,         32,         33,         63,         64,
      65,         0x7f,       0x80,       0xff,       0x100,      0x7fff,
      0x8000,     0xffff,     0x10000,    0x7fffff,   0x800000,   0xffffff,
      0x1000000,  0x7fffffff, 0x80000000, 0x80000001, 0xfffffffe, 0xffffffff,
      0xdeadbeef, 0x0c0d0e0f};
  return E;
}

inline uint32_t mix32(uint64_t X) {
  X ^= X >> 33;
  X *= 0xff51afd7ed558ccdull;
  X ^= X >> 33;
  X *= 0xc4ceb9fe1a85ec53ull;
  X ^= X >> 33;
  return uint32_t(X);
}

/// Operand \p Which (0, 1, 2, 3 = old) of work-item \p I: A and B run
/// through every pair of edge values, the rest mixes edges, small numbers
/// and random words.
inline uint32_t operand(unsigned Which, unsigned I) {
  const auto &E = edgeValues();
  unsigned N = unsigned(E.size());
  if (Which == 0 && I < N * N)
    return E[I % N];
  if (Which == 1 && I < N * N)
    return E[(I / N) % N];
  uint32_t H = mix32(uint64_t(Which) << 32 | I);
  switch (H % 4) {
  case 0:
    return E[(H >> 8) % N];
  case 1:
    return (H >> 8) % 70;
  default:
    return mix32(H);
  }
}

inline uint64_t operand64(unsigned Which, unsigned I) {
  return uint64_t(operand(Which, I)) << 32 | operand(Which + 4, I);
}

inline bool active(uint64_t Mask, unsigned I) { return (Mask >> (I % 64)) & 1; }

/// A module loaded once per test suite.
class KernelFile {
public:
  explicit KernelFile(const std::string &Name) {
    auto D = Device::create();
    if (!D) {
      Error = llvm::toString(D.takeError());
      return;
    }
    Dev = std::move(*D);
    auto M =
        Module::loadFile(*Dev, std::string(LOOM_EMU_CORE_DIR) + "/" + Name);
    if (!M) {
      Error = llvm::toString(M.takeError());
      return;
    }
    Mod = std::move(*M);
  }
  /// Launches \p Kernel over NumItems work-items in groups of one wave.
  bool run(llvm::StringRef Kernel, const KernelArgs &A) {
    if (!Mod) {
      ADD_FAILURE() << "module not loaded: " << Error;
      return false;
    }
    auto R = Mod->launch(Kernel, LaunchConfig::linear(NumItems, 64), A);
    if (!R) {
      ADD_FAILURE() << Kernel.str() << ": " << llvm::toString(R.takeError());
      return false;
    }
    if (!R->ok()) {
      ADD_FAILURE() << Kernel.str() << ": " << R->FirstFault.Message;
      return false;
    }
    return true;
  }
  Device &device() { return *Dev; }

private:
  std::unique_ptr<Device> Dev;
  std::unique_ptr<Module> Mod;
  std::string Error;
};

/// Inputs of the 32-bit kernels, filled from operand().
struct Buffers32 {
  DeviceBuffer Out, A, B, C;
  explicit Buffers32(Device &D)
      : Out(D, NumItems * 4), A(D, NumItems * 4), B(D, NumItems * 4),
        C(D, NumItems * 4) {
    for (unsigned I = 0; I < NumItems; ++I) {
      A.data<uint32_t>()[I] = operand(0, I);
      B.data<uint32_t>()[I] = operand(1, I);
      C.data<uint32_t>()[I] = operand(2, I);
      Out.data<uint32_t>()[I] = operand(3, I);
    }
  }
  uint32_t a(unsigned I) const { return A.data<uint32_t>()[I]; }
  uint32_t b(unsigned I) const { return B.data<uint32_t>()[I]; }
  uint32_t c(unsigned I) const { return C.data<uint32_t>()[I]; }
  uint32_t out(unsigned I) const { return Out.data<uint32_t>()[I]; }
};

} // namespace loom::emu::test

#endif // LOOM_TESTS_EMU_CORE_VECTORTESTUTIL_H
