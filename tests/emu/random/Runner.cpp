//===- Runner.cpp - Running a generated file on the device and the host ---===//
#include "Runner.h"

#include "loom/emu/Module.h"

#include "llvm/Support/Error.h"

#include <dlfcn.h>

#include <bit>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <sstream>
#include <thread>

namespace loom::randtest {

using namespace loom::emu;

namespace {

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

/// splitmix64 (the same as the generator's, separately seeded).
class Rng {
public:
  explicit Rng(uint64_t Seed) : State(Seed) {}
  uint64_t next() {
    uint64_t Z = (State += 0x9e3779b97f4a7c15ull);
    Z = (Z ^ (Z >> 30)) * 0xbf58476d1ce4e5b9ull;
    Z = (Z ^ (Z >> 27)) * 0x94d049bb133111ebull;
    return Z ^ (Z >> 31);
  }
  unsigned below(unsigned N) { return N ? static_cast<unsigned>(next() % N) : 0; }
  bool chance(unsigned Percent) { return below(100) < Percent; }

private:
  uint64_t State;
};

/// \p V truncated to \p T's width and widened back the way the generated
/// code reads it (so the slot holds exactly the value the program sees).
uint64_t normalise(Type T, uint64_t V) {
  unsigned W = bitWidth(T);
  if (W == 64)
    return V;
  uint64_t Mask = (uint64_t(1) << W) - 1;
  V &= Mask;
  if (isSigned(T) && (V >> (W - 1)))
    V |= ~Mask;
  return V;
}

uint64_t randomInt(Rng &R, Type T) {
  unsigned W = bitWidth(T);
  uint64_t V;
  switch (R.below(10)) {
  case 0:
  case 1:
  case 2: // small, where loop bounds and masked indices vary
    V = static_cast<uint64_t>(static_cast<int64_t>(R.below(33)) - 16);
    break;
  case 3: {
    static const uint64_t Edges[] = {0, 1, 2, ~0ull, ~1ull};
    uint64_t SignBit = uint64_t(1) << (W - 1);
    uint64_t Picks[] = {Edges[R.below(5)], SignBit, SignBit - 1, SignBit + 1,
                        0x55555555aaaaaaaaull, 31, 32, 63, 64};
    V = Picks[R.below(std::size(Picks))];
    break;
  }
  case 4:
    V = (uint64_t(1) << R.below(W)) + static_cast<uint64_t>(static_cast<int64_t>(R.below(3)) - 1);
    break;
  case 5:
  case 6: // random magnitude, either sign
    V = R.next() >> R.below(64);
    if (R.chance(50))
      V = 0 - V;
    break;
  default:
    V = R.next();
  }
  return normalise(T, V);
}

template <typename F, typename Bits> F quieten(F X) {
  if (X != X) { // never a signalling NaN: targets quieten them differently
    Bits B = std::bit_cast<Bits>(X);
    B |= Bits(1) << (std::numeric_limits<F>::digits - 2); // the quiet bit
    return std::bit_cast<F>(B);
  }
  return X;
}

double randomReal(Rng &R, bool Single) {
  switch (R.below(10)) {
  case 0:
  case 1: // eighths: exact sums, ties when rounding to integers
    return static_cast<double>(static_cast<int>(R.below(2001)) - 1000) / 8.0;
  case 2: {
    static const double Edges[] = {0.0,     -0.0,     1.0,    -1.0,   0.5,
                                   -0.5,    1.5,      2.5,    -2.5,   INFINITY,
                                   -INFINITY, NAN,    0x1p31, -0x1p31, 0x1p32,
                                   0x1p63,  -0x1p63,  0x1p64, 16777217.0,
                                   0x1p53 + 1};
    double V = Edges[R.below(std::size(Edges))];
    return V;
  }
  case 3: { // extremes of the type: denormals, smallest normal, largest
    double Tiny = Single ? 0x1p-149 : 0x1p-1074;
    double MinNormal = Single ? 0x1p-126 : 0x1p-1022;
    double Max = Single ? 3.4028234663852886e38 : 1.7976931348623157e308;
    double Picks[] = {Tiny, MinNormal, Max, MinNormal - Tiny, Tiny * 3,
                      MinNormal * 1.5};
    double V = Picks[R.below(std::size(Picks))];
    return R.chance(50) ? -V : V;
  }
  case 4: { // any bits
    if (Single)
      return std::bit_cast<float>(static_cast<uint32_t>(R.next()));
    return std::bit_cast<double>(R.next());
  }
  default: { // moderate magnitudes
    double M = static_cast<double>(R.next() >> 11) * 0x1p-53;
    double V = std::ldexp(M, static_cast<int>(R.below(48)) - 24);
    return R.chance(50) ? -V : V;
  }
  }
}

uint64_t randomValue(Rng &R, Type T) {
  if (T == Type::F32)
    return std::bit_cast<uint32_t>(
        quieten<float, uint32_t>(static_cast<float>(randomReal(R, true))));
  if (T == Type::F64)
    return std::bit_cast<uint64_t>(
        quieten<double, uint64_t>(randomReal(R, false)));
  return randomInt(R, T);
}

struct Geometry {
  uint16_t Workgroup;
  uint32_t Grid; ///< a whole number of work-groups
  uint32_t N;    ///< work-items that compute (the rest return at once)
};

Geometry geometry(Rng &R) {
  static const uint16_t Sizes[] = {64, 128, 256};
  Geometry G;
  G.Workgroup = Sizes[R.below(3)];
  G.Grid = G.Workgroup * (2 + R.below(3));
  G.N = G.Grid - (R.chance(30) ? 1 + R.below(G.Workgroup - 1) : 0);
  return G;
}

/// Inputs of one program: In[gid * MaxParams + p] and Uni[p].
void makeInputs(Rng &R, const ProgramEntry &P, uint32_t Grid,
                std::vector<uint64_t> &In, std::vector<uint64_t> &Uni) {
  In.assign(size_t(Grid) * MaxParams, 0);
  Uni.assign(MaxParams, 0);
  for (uint32_t Param = 0; Param < P.NumParams; ++Param) {
    Type T = static_cast<Type>(P.Params[Param]);
    Uni[Param] = randomValue(R, T);
    // How lanes share values: all different, runs of equal values, or
    // mostly one value (so branches are sometimes uniform).
    unsigned Pattern = R.below(4);
    uint32_t Run = 1u << (1 + R.below(5));
    for (uint32_t G = 0; G < Grid; ++G) {
      uint64_t &Slot = In[size_t(G) * MaxParams + Param];
      if (Pattern == 1 && G % Run != 0)
        Slot = In[size_t(G - G % Run) * MaxParams + Param];
      else if (Pattern == 2 && !R.chance(10))
        Slot = Uni[Param];
      else
        Slot = randomValue(R, T);
    }
  }
}

//===----------------------------------------------------------------------===//
// Comparing and describing values
//===----------------------------------------------------------------------===//

bool sameValue(Type T, uint64_t Dev, uint64_t Ref) {
  if (T == Type::F32) {
    float A = std::bit_cast<float>(static_cast<uint32_t>(Dev));
    float B = std::bit_cast<float>(static_cast<uint32_t>(Ref));
    if (A != A && B != B && (Dev >> 32) == 0 && (Ref >> 32) == 0)
      return true;
  } else if (T == Type::F64) {
    double A = std::bit_cast<double>(Dev), B = std::bit_cast<double>(Ref);
    if (A != A && B != B)
      return true;
  }
  return Dev == Ref;
}

std::string describe(Type T, uint64_t V) {
  char Buf[96];
  unsigned W = bitWidth(T);
  uint64_t Bits = W == 64 ? V : V & ((uint64_t(1) << W) - 1);
  int HexDigits = static_cast<int>(W / 4);
  if (T == Type::F32)
    std::snprintf(Buf, sizeof Buf, "0x%08llx (%a, %.9g)", (unsigned long long)V,
                  double(std::bit_cast<float>(static_cast<uint32_t>(V))),
                  double(std::bit_cast<float>(static_cast<uint32_t>(V))));
  else if (T == Type::F64)
    std::snprintf(Buf, sizeof Buf, "0x%016llx (%a, %.17g)", (unsigned long long)V,
                  std::bit_cast<double>(V), std::bit_cast<double>(V));
  else if (isSigned(T))
    std::snprintf(Buf, sizeof Buf, "0x%0*llx (%lld)", HexDigits,
                  (unsigned long long)Bits, (long long)V);
  else
    std::snprintf(Buf, sizeof Buf, "0x%0*llx (%llu)", HexDigits,
                  (unsigned long long)Bits, (unsigned long long)Bits);
  return Buf;
}

std::string hex(uint64_t V) {
  char Buf[24];
  std::snprintf(Buf, sizeof Buf, "0x%llx", (unsigned long long)V);
  return Buf;
}

std::string signature(const ProgramEntry &P) {
  std::string S = std::string(typeName(static_cast<Type>(P.Result))) + " " +
                  P.Name + "(";
  for (uint32_t I = 0; I < P.NumParams; ++I) {
    S += (I ? ", " : "") + std::string(typeName(static_cast<Type>(P.Params[I])));
    if ((P.UniformMask >> I) & 1)
      S += " uniform";
  }
  S += ")";
  if (P.Flags & FlagNoInline)
    S += " noinline";
  return S;
}

//===----------------------------------------------------------------------===//
// Cancelling launches that do not end
//===----------------------------------------------------------------------===//

class Watchdog {
public:
  Watchdog() : Thread([this] { loop(); }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> L(M);
      Stop = true;
    }
    CV.notify_all();
    Thread.join();
  }
  const std::atomic<bool> *arm(unsigned Seconds) {
    std::lock_guard<std::mutex> L(M);
    Cancel = false;
    Fired = false;
    Deadline = std::chrono::steady_clock::now() + std::chrono::seconds(Seconds);
    Armed = true;
    CV.notify_all();
    return &Cancel;
  }
  /// Disarms; true if the deadline passed.
  bool disarm() {
    std::lock_guard<std::mutex> L(M);
    Armed = false;
    return Fired;
  }

private:
  void loop() {
    std::unique_lock<std::mutex> L(M);
    while (!Stop) {
      if (!Armed) {
        CV.wait(L);
        continue;
      }
      if (CV.wait_until(L, Deadline) == std::cv_status::timeout && Armed &&
          std::chrono::steady_clock::now() >= Deadline) {
        Cancel = true;
        Fired = true;
        Armed = false;
      }
    }
  }
  std::mutex M;
  std::condition_variable CV;
  std::chrono::steady_clock::time_point Deadline;
  bool Armed = false, Stop = false, Fired = false;
  std::atomic<bool> Cancel{false};
  std::thread Thread;
};

struct HostLibrary {
  void *Handle = nullptr;
  ~HostLibrary() {
    if (Handle)
      dlclose(Handle);
  }
};

} // namespace

std::string FileReport::summary(unsigned MaxShown) const {
  if (!Error.empty())
    return Error;
  std::string S = std::to_string(Failures.size()) + " of " +
                  std::to_string(Programs) + " programs failed";
  for (unsigned I = 0; I < Failures.size() && I < MaxShown; ++I)
    S += "\n\n" + Failures[I].Message;
  if (Failures.size() > MaxShown)
    S += "\n\n(" + std::to_string(Failures.size() - MaxShown) +
         " more failures not shown)";
  return S;
}

FileReport runFile(Device &Dev, const FileUnderTest &F,
                   const RunOptions &Options) {
  FileReport Rep;
  // The host reference.
  HostLibrary Lib;
  Lib.Handle = dlopen(F.Paths.Host.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!Lib.Handle) {
    Rep.Error = "dlopen " + F.Paths.Host + ": " + dlerror();
    return Rep;
  }
  auto *Version = static_cast<const uint32_t *>(dlsym(Lib.Handle, "loom_rand_version"));
  auto *Count = static_cast<const uint32_t *>(dlsym(Lib.Handle, "loom_rand_count"));
  auto *Entries = static_cast<const ProgramEntry *>(dlsym(Lib.Handle, "loom_rand_programs"));
  auto *Seed = static_cast<const uint64_t *>(dlsym(Lib.Handle, "loom_rand_seed"));
  auto *Size = static_cast<const uint32_t *>(dlsym(Lib.Handle, "loom_rand_size"));
  auto Run = reinterpret_cast<RunFn>(dlsym(Lib.Handle, "loom_rand_run"));
  if (!Version || !Count || !Entries || !Seed || !Size || !Run ||
      *Version != ProtocolVersion) {
    Rep.Error = F.Paths.Host +
                " is not a random-program host object of protocol version " +
                std::to_string(ProtocolVersion);
    return Rep;
  }
  // The file's own seed: the inputs of a program depend on it and on the
  // program's number only, so a file cut down with --only gets the same.
  const std::string Where = "seed " + std::to_string(*Seed) +
                            (*Size != 1 ? " size " + std::to_string(*Size)
                                        : std::string()) +
                            " -O" + std::to_string(F.Level);

  // The device code.
  auto Mod = Module::loadFile(Dev, F.Paths.Elf);
  if (!Mod) {
    Rep.Error = Where + ": Module::loadFile(" + F.Paths.Elf +
                "): " + llvm::toString(Mod.takeError());
    return Rep;
  }

  unsigned Timeout = Options.TimeoutSeconds;
  if (const char *T = std::getenv("LOOM_RANDOM_TIMEOUT"))
    Timeout = static_cast<unsigned>(std::strtoul(T, nullptr, 0));
  Watchdog Dog;

  Rep.Programs = *Count;
  for (uint32_t Index = 0; Index < *Count; ++Index) {
    const ProgramEntry &P = Entries[Index];
    // Program k is named f_<k>; its kernel is prog_<k>.
    unsigned K = static_cast<unsigned>(std::strtoul(P.Name + 2, nullptr, 10));
    std::string Kernel = "prog_" + std::to_string(K);
    std::string Head = Where + ", program " + std::to_string(K) + " (" +
                       signature(P) + ", kernel " + Kernel + ")";
    auto Fail = [&](std::string Msg) {
      Msg += "\n  source: " + F.Paths.Source + " (device " + F.Paths.Elf + ")";
      Msg += "\n  minimise: loom_randgen --seed " + std::to_string(*Seed) +
             " --programs " + std::to_string(K + 1) + " --size " +
             std::to_string(*Size) + " --only " + std::to_string(K) +
             " -o f.cpp; edit f.cpp; LOOM_RANDOM_REPLAY=f.cpp LOOM_RANDOM_OPT=" +
             std::to_string(F.Level) +
             " emu_random_tests --gtest_filter=RandomReplay.*";
      if (F.Generated && K < F.Generated->Programs.size())
        Msg += "\n  program and its callees:\n" +
               F.Generated->programWithCallees(K);
      Rep.Failures.push_back({K, std::move(Msg)});
    };

    Rng R(*Seed * 0x9e3779b97f4a7c15ull + K * 0x632be59bd9b4e019ull + 1);
    Geometry G = geometry(R);
    std::vector<uint64_t> In, Uni;
    makeInputs(R, P, G.Grid, In, Uni);

    DeviceBuffer InBuf(Dev, In.size() * 8), UniBuf(Dev, Uni.size() * 8),
        OutBuf(Dev, size_t(G.Grid) * 8);
    std::memcpy(InBuf.data(), In.data(), In.size() * 8);
    std::memcpy(UniBuf.data(), Uni.data(), Uni.size() * 8);
    // A pattern no program result is likely to equal: unwritten results show.
    std::fill_n(OutBuf.data<uint64_t>(), G.Grid, 0xdeadbeefcafef00dull);

    LaunchConfig C = LaunchConfig::linear(G.Grid, G.Workgroup);
    C.Cancel = Dog.arm(Timeout);
    auto Res = (*Mod)->launch(Kernel, C,
                              KernelArgs()
                                  .add(InBuf.address())
                                  .add(UniBuf.address())
                                  .add(OutBuf.address())
                                  .add(G.N)
                                  .add(static_cast<uint32_t>(G.Workgroup)));
    bool TimedOut = Dog.disarm();
    if (!Res) {
      Fail(Head + ": launch failed: " + llvm::toString(Res.takeError()));
      continue;
    }
    if (!Res->ok()) {
      const Fault &Ft = Res->FirstFault;
      Fail(Head + ": " + dispatchStatusName(Res->Status).str() +
           (TimedOut ? " after " + std::to_string(Timeout) + " s (a hang?)"
                     : std::string()) +
           " at " + Ft.Function + "+" + hex(Ft.Offset) + " (" +
           Ft.Instruction + "), address " + hex(Ft.Address) + ": " +
           Ft.Message);
      continue;
    }

    std::vector<uint64_t> Ref(G.Grid, 0xdeadbeefcafef00dull);
    Run(Index, In.data(), Uni.data(), Ref.data(), G.N);
    const uint64_t *Out = OutBuf.data<uint64_t>();
    Type RT = static_cast<Type>(P.Result);
    uint32_t Bad = 0, First = 0;
    for (uint32_t I = 0; I < G.N; ++I)
      if (!sameValue(RT, Out[I], Ref[I]) && Bad++ == 0)
        First = I;
    for (uint32_t I = G.N; I < G.Grid; ++I)
      if (Out[I] != 0xdeadbeefcafef00dull && Bad++ == 0)
        First = I;
    if (!Bad) {
      ++Rep.Passed;
      continue;
    }
    std::ostringstream OS;
    OS << Head << ": " << Bad << " of " << G.N
       << " work-items differ (grid " << G.Grid << ", work-group "
       << G.Workgroup << ")\n  first at work-item " << First << " (work-group "
       << First / G.Workgroup << ", lane " << First % 64 << " of wave "
       << (First % G.Workgroup) / 64 << "): device "
       << describe(RT, Out[First]) << ", host " << describe(RT, Ref[First])
       << "\n  inputs:";
    for (uint32_t I = 0; I < P.NumParams; ++I) {
      bool U = (P.UniformMask >> I) & 1;
      uint64_t V = U ? Uni[I] : In[size_t(First) * MaxParams + I];
      OS << " p" << I << "=" << describe(static_cast<Type>(P.Params[I]), V)
         << (U ? " (uniform)" : "");
    }
    Fail(OS.str());
  }
  return Rep;
}

} // namespace loom::randtest
