//===- DiffHarness.cpp - Running corpus kernels and comparing results -----===//
#include "DiffHarness.h"

#include "llvm/Support/Error.h"

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <sstream>

namespace loom::emu::difftest {

std::string target() {
  const char *T = std::getenv("LOOM_DIFF_TARGET");
  return T && *T ? T : "gfx90a";
}

namespace {
struct Observation {
  LaunchObserver Observer;
  bool RecordMemoryAccesses = false;
  LaunchInterceptor Interceptor;
  DeviceProvider Provider;
};
Observation &observation() {
  static Observation O;
  return O;
}
} // namespace

void setLaunchObserver(LaunchObserver Observer, bool RecordMemoryAccesses) {
  observation().Observer = std::move(Observer);
  observation().RecordMemoryAccesses = RecordMemoryAccesses;
}

void setLaunchInterceptor(LaunchInterceptor Interceptor) {
  observation().Interceptor = std::move(Interceptor);
}

void setDeviceProvider(DeviceProvider Provider) {
  observation().Provider = std::move(Provider);
}

DeviceOptions deviceOptions() {
  DeviceOptions Options;
  Options.Target = target();
  Options.RecordMemoryAccesses = observation().RecordMemoryAccesses;
  return Options;
}

std::string kernelPath(llvm::StringRef Source, int Level) {
  std::string Target = target();
  return std::string(LOOM_DIFF_KERNEL_DIR) + "/" + Source.str() +
         (Target == "gfx90a" ? "" : "." + Target) + ".O" +
         std::to_string(Level) + ".elf";
}

namespace {
// Modules are destroyed before the device they are loaded on.
struct Shared {
  std::unique_ptr<Device> Owned;
  Device *Dev = nullptr;
  bool Failed = false;
  std::map<std::string, std::unique_ptr<Module>> Modules;
  std::map<const Module *, std::string> Paths;
  ~Shared() { Modules.clear(); }
};
Shared &shared() {
  static Shared S;
  return S;
}
} // namespace

Device *sharedDevice() {
  Shared &S = shared();
  if (!S.Dev && !S.Failed) {
    if (const DeviceProvider &P = observation().Provider) {
      auto D = P();
      if (!D) {
        S.Failed = true;
        ADD_FAILURE() << "no device: " << llvm::toString(D.takeError());
        return nullptr;
      }
      S.Dev = *D;
    } else {
      auto D = Device::create(deviceOptions());
      if (!D) {
        S.Failed = true;
        ADD_FAILURE() << "Device::create: " << llvm::toString(D.takeError());
        return nullptr;
      }
      S.Owned = std::move(*D);
      S.Dev = S.Owned.get();
    }
  }
  if (!S.Dev)
    ADD_FAILURE() << "no device (creating it failed earlier)";
  return S.Dev;
}

Module *loadModule(llvm::StringRef Source, int Level) {
  Device *Dev = sharedDevice();
  if (!Dev)
    return nullptr;
  std::string Path = kernelPath(Source, Level);
  auto &Slot = shared().Modules[Path];
  if (!Slot) {
    auto M = Module::loadFile(*Dev, Path);
    if (!M) {
      ADD_FAILURE() << "Module::loadFile(" << Path
                    << "): " << llvm::toString(M.takeError());
      shared().Modules.erase(Path);
      return nullptr;
    }
    Slot = std::move(*M);
    shared().Paths[Slot.get()] = Path;
  }
  return Slot.get();
}

::testing::AssertionResult launchOk(Module &M, llvm::StringRef Kernel,
                                    const LaunchConfig &Config,
                                    const KernelArgs &Args,
                                    DispatchResult *Result) {
  const LaunchInterceptor &I = observation().Interceptor;
  auto PathIt = shared().Paths.find(&M);
  auto R = I && PathIt != shared().Paths.end()
               ? I(M, PathIt->second, Kernel, Config, Args)
               : M.launch(Kernel, Config, Args);
  if (!R)
    return ::testing::AssertionFailure()
           << Kernel.str() << " in " << M.name().str()
           << ": launch failed: " << llvm::toString(R.takeError());
  if (!R->ok()) {
    const Fault &F = R->FirstFault;
    return ::testing::AssertionFailure()
           << Kernel.str() << " in " << M.name().str() << ": "
           << dispatchStatusName(R->Status).str() << " at " << F.Function
           << "+" << hex(F.Offset) << " (" << F.Instruction
           << "), address " << hex(F.Address) << ": " << F.Message;
  }
  if (const LaunchObserver &O = observation().Observer) {
    auto It = shared().Paths.find(&M);
    if (It != shared().Paths.end())
      O(It->second, Kernel, *R);
  }
  if (Result)
    *Result = std::move(*R);
  return ::testing::AssertionSuccess();
}

std::string levelName(const ::testing::TestParamInfo<int> &Info) {
  return "O" + std::to_string(Info.param);
}

std::string hex(uint64_t V) {
  std::ostringstream OS;
  OS << "0x" << std::hex << V;
  return OS.str();
}

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

uint64_t Rng::next() {
  uint64_t Z = (State += 0x9e3779b97f4a7c15ull);
  Z = (Z ^ (Z >> 30)) * 0xbf58476d1ce4e5b9ull;
  Z = (Z ^ (Z >> 27)) * 0x94d049bb133111ebull;
  return Z ^ (Z >> 31);
}

namespace {

template <typename T>
void fillPairs(std::vector<T> &A, std::vector<T> &B, size_t N,
               const std::vector<T> &Edges, Rng &R, T (*Random)(Rng &)) {
  size_t E = Edges.size();
  A.resize(N);
  B.resize(N);
  for (size_t I = 0; I < N; ++I) {
    if (I < E * E) {
      A[I] = Edges[I % E];
      B[I] = Edges[I / E];
    } else {
      A[I] = Random(R);
      B[I] = Random(R);
    }
  }
}

uint32_t randomU32(Rng &R) {
  switch (R.below(5)) {
  case 0:
    return static_cast<uint32_t>(R.range(-100, 100));
  case 1:
    return R.next32() >> R.below(32);
  case 2: {
    uint32_t P = 1u << R.below(32);
    return P + static_cast<uint32_t>(R.range(-1, 1));
  }
  default:
    return R.next32();
  }
}

uint64_t randomU64(Rng &R) {
  switch (R.below(6)) {
  case 0:
    return static_cast<uint64_t>(R.range(-100, 100));
  case 1:
    return R.next() >> R.below(64);
  case 2: {
    uint64_t P = 1ull << R.below(64);
    return P + static_cast<uint64_t>(R.range(-1, 1));
  }
  case 3: // 32-bit values: the fast paths of 64-bit division
    return R.next32();
  default:
    return R.next();
  }
}

} // namespace

U32Pairs int32Inputs(size_t N, uint64_t Seed) {
  static const std::vector<uint32_t> Edges = {
      0,          1,          2,          3,          7,          16,
      31,         32,         33,         63,         64,         0x00800000,
      0x0000ffff, 0x00010000, 0x00ffffff, 0x01000000, 0x55555555, 0xaaaaaaaa,
      0x12345678, 0x7fffffff, 0x80000000, 0x80000001, 0xfffffff9, 0xfffffffd,
      0xfffffffe, 0xffffffff};
  Rng R(Seed);
  U32Pairs P;
  fillPairs(P.A, P.B, N, Edges, R, randomU32);
  return P;
}

U64Pairs int64Inputs(size_t N, uint64_t Seed) {
  static const std::vector<uint64_t> Edges = {
      0,
      1,
      2,
      7,
      10,
      63,
      64,
      65,
      0x7fffffff,
      0x80000000,
      0xffffffff,
      0x100000000,
      0x100000001,
      0xb504f333,
      0x5555555555555555,
      0xaaaaaaaaaaaaaaaa,
      0x0123456789abcdef,
      0x7fffffffffffffff,
      0x8000000000000000,
      0x8000000000000001,
      0xffffffff80000000,
      0xfffffffffffffff6,
      0xfffffffffffffffe,
      0xffffffffffffffff};
  Rng R(Seed);
  U64Pairs P;
  fillPairs(P.A, P.B, N, Edges, R, randomU64);
  return P;
}

std::vector<float> f32EdgeValues() {
  static const uint32_t Bits[] = {
      0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x3f000000, 0x3fc00000,
      0x40200000, 0xc0200000, 0x40400000, 0x3eaaaaab, 0x40490fdb, 0x00000001,
      0x007fffff, 0x80000010, 0x00800000, 0x80800000, 0x7f7fffff, 0xff7fffff,
      0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7f800001, 0x4b000001,
      0x4effffff, 0x4f000000, 0x477fe000, 0x477ff000, 0x3f7fffff, 0x3f800001,
      0x0c000000, 0x72000000};
  std::vector<float> V;
  for (uint32_t B : Bits)
    V.push_back(diff::f32Of(B));
  return V;
}

std::vector<double> f64EdgeValues() {
  static const uint64_t Bits[] = {
      0x0000000000000000, 0x8000000000000000, 0x3ff0000000000000,
      0xbff0000000000000, 0x3fe0000000000000, 0x3ff8000000000000,
      0x4004000000000000, 0xc004000000000000, 0x4008000000000000,
      0x3fd5555555555555, 0x400921fb54442d18, 0x0000000000000001,
      0x000fffffffffffff, 0x8000000000000010, 0x0010000000000000,
      0x8010000000000000, 0x7fefffffffffffff, 0xffefffffffffffff,
      0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000000,
      0xfff8000000000001, 0x7ff0000000000001, 0x4330000000000001,
      0x41dfffffffc00000, 0x41e0000000000000, 0x43e0000000000000,
      0x3fefffffffffffff, 0x3ff0000000000001, 0x36a0000000000000,
      0x3810000000000000, 0x47efffffe0000000};
  std::vector<double> V;
  for (uint64_t B : Bits)
    V.push_back(diff::f64Of(B));
  return V;
}

std::vector<uint16_t> f16EdgeValues() {
  return {0x0000, 0x8000, 0x3c00, 0xbc00, 0x3800, 0x3e00, 0x4100, 0xc100,
          0x4200, 0x3555, 0x0001, 0x03ff, 0x8010, 0x0400, 0x8400, 0x7bff,
          0xfbff, 0x7c00, 0xfc00, 0x7e00, 0xfe01, 0x7d00, 0x3bff, 0x3c01};
}

float randomF32(Rng &R) {
  switch (R.below(4)) {
  case 0:
    return diff::f32Of(R.next32());
  case 1: // near and below the normal range
    return std::ldexp(static_cast<float>(R.range(-(1 << 24), 1 << 24)),
                      static_cast<int>(R.range(-170, -110)));
  default: // moderate magnitudes, where most arithmetic happens
    return std::ldexp(static_cast<float>(R.range(-(1 << 24), 1 << 24)),
                      static_cast<int>(R.range(-40, 16)));
  }
}

double randomF64(Rng &R) {
  switch (R.below(4)) {
  case 0:
    return diff::f64Of(R.next());
  case 1:
    return std::ldexp(static_cast<double>(static_cast<int64_t>(R.next()) >> 10),
                      static_cast<int>(R.range(-1130, -1020)));
  default:
    return std::ldexp(static_cast<double>(static_cast<int64_t>(R.next()) >> 10),
                      static_cast<int>(R.range(-80, 20)));
  }
}

uint16_t randomF16(Rng &R) {
  if (R.below(3) == 0)
    return static_cast<uint16_t>(R.next32());
  // Finite values mostly: exponent field 0..30.
  uint16_t Sign = static_cast<uint16_t>(R.below(2) << 15);
  return Sign | static_cast<uint16_t>(R.below(31) << 10) |
         static_cast<uint16_t>(R.below(1024));
}

namespace {
template <typename T, typename Triples>
Triples makeTriples(size_t N, uint64_t Seed, const std::vector<T> &Edges,
                    T (*Random)(Rng &)) {
  Rng R(Seed);
  Triples Out;
  fillPairs(Out.A, Out.B, N, Edges, R, Random);
  Out.C.resize(N);
  size_t E = Edges.size();
  for (size_t I = 0; I < N; ++I)
    Out.C[I] = I < E * E ? Edges[(I * 7 + I / E) % E] : Random(R);
  return Out;
}
} // namespace

F32Triples f32Inputs(size_t N, uint64_t Seed) {
  return makeTriples<float, F32Triples>(N, Seed, f32EdgeValues(), randomF32);
}
F64Triples f64Inputs(size_t N, uint64_t Seed) {
  return makeTriples<double, F64Triples>(N, Seed, f64EdgeValues(), randomF64);
}
F16Triples f16Inputs(size_t N, uint64_t Seed) {
  return makeTriples<uint16_t, F16Triples>(N, Seed, f16EdgeValues(), randomF16);
}

//===----------------------------------------------------------------------===//
// Comparison
//===----------------------------------------------------------------------===//

namespace {
bool nanBits(diff::OpKind K, uint64_t B) {
  switch (K) {
  case diff::KF32:
  case diff::KF32Z:
    return std::isnan(diff::f32Of(static_cast<uint32_t>(B)));
  case diff::KF64:
  case diff::KF64Z:
    return std::isnan(diff::f64Of(B));
  case diff::KF16:
  case diff::KF16Z:
    return (B & 0x7c00) == 0x7c00 && (B & 0x03ff) != 0;
  case diff::KBF16:
    return (B & 0x7f80) == 0x7f80 && (B & 0x007f) != 0;
  default:
    return false;
  }
}

// Bits that carry the value (the rest must be zero on both sides too).
uint64_t valueMask(diff::OpKind K) {
  switch (K) {
  case diff::KF32:
  case diff::KF32Z:
    return 0xffffffffull;
  case diff::KF16:
  case diff::KF16Z:
  case diff::KBF16:
    return 0xffffull;
  default:
    return ~0ull;
  }
}

uint64_t signBit(diff::OpKind K) {
  switch (K) {
  case diff::KF32Z:
    return 1ull << 31;
  case diff::KF64Z:
    return 1ull << 63;
  case diff::KF16Z:
    return 1ull << 15;
  default:
    return 0;
  }
}
} // namespace

bool sameResult(diff::OpKind Kind, uint64_t Dev, uint64_t Ref) {
  if (Dev == Ref)
    return true;
  if (Kind == diff::KInt)
    return false;
  // Bits above the value's width must agree exactly.
  uint64_t Mask = valueMask(Kind);
  if ((Dev & ~Mask) != (Ref & ~Mask))
    return false;
  if (nanBits(Kind, Dev & Mask) && nanBits(Kind, Ref & Mask))
    return true;
  // +0 and -0 for the zero-sign-agnostic kinds.
  uint64_t Sign = signBit(Kind);
  return Sign && ((Dev | Sign) & Mask) == Sign && ((Ref | Sign) & Mask) == Sign;
}

std::string formatResult(diff::OpKind Kind, uint64_t Bits) {
  double V;
  switch (Kind) {
  case diff::KF32:
  case diff::KF32Z:
    V = diff::f32Of(static_cast<uint32_t>(Bits));
    break;
  case diff::KF64:
  case diff::KF64Z:
    V = diff::f64Of(Bits);
    break;
  case diff::KF16:
  case diff::KF16Z:
    V = static_cast<float>(diff::f16Of(static_cast<uint16_t>(Bits)));
    break;
  case diff::KBF16:
    V = diff::f32Of(static_cast<uint32_t>(Bits) << 16);
    break;
  default:
    return hex(Bits);
  }
  char Buf[64];
  std::snprintf(Buf, sizeof(Buf), " (%a)", V);
  return hex(Bits) + Buf;
}

namespace {
template <typename F>
double ulpError(F Dev, long double Exact, int Digits, int MinExp) {
  if (std::isnan(Exact))
    return std::isnan(Dev) ? 0.0 : INFINITY;
  if (std::isnan(Dev))
    return INFINITY;
  if (std::isinf(Exact))
    return Dev == Exact ? 0.0 : INFINITY;
  int E = MinExp;
  if (Exact != 0)
    std::frexp(Exact, &E);
  // ulp of the exact value's binade, never below the smallest denormal.
  long double Ulp = std::ldexp(1.0L, std::max(E - Digits, MinExp - Digits));
  long double D = std::isinf(Dev)
                      ? std::ldexp(1.0L, std::numeric_limits<F>::max_exponent)
                      : static_cast<long double>(Dev);
  if (std::isinf(Dev) && Dev < 0)
    D = -D;
  return static_cast<double>(std::fabs(D - Exact) / Ulp);
}
} // namespace

double ulpErrorF32(float Dev, long double Exact) {
  return ulpError(Dev, Exact, FLT_MANT_DIG, FLT_MIN_EXP);
}
double ulpErrorF64(double Dev, long double Exact) {
  return ulpError(Dev, Exact, DBL_MANT_DIG, DBL_MIN_EXP);
}

void Mismatches::add(const std::string &Line) {
  if (Lines.size() < 12)
    Lines.push_back(Line);
  ++Count;
}

::testing::AssertionResult Mismatches::result() const {
  if (!Count)
    return ::testing::AssertionSuccess();
  auto R = ::testing::AssertionFailure();
  R << What << ": " << Count << " mismatch" << (Count == 1 ? "" : "es");
  for (const std::string &L : Lines)
    R << "\n  " << L;
  if (Count > Lines.size())
    R << "\n  ...";
  return R;
}

} // namespace loom::emu::difftest
