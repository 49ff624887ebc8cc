//===- bench/JitBench.cpp - JIT latency and launch-by-symbol overhead -----===//
//
// Two numbers issue 11 asks for, each beside a baseline measured in the
// same run:
//
// 1. IR -> launchable kernel (compile, link, load, look up), in-process,
//    for a small kernel and one of about 2,000 instructions, against
//    clang-22 + ld.lld-22 run as subprocesses on the same IR (as AMDGPU.jl,
//    Taichi and TVM do) followed by the same load; and the cache-hit path.
// 2. Host overhead of a launch: an empty kernel's round trip (submit +
//    wait) through loom::kernel_ref and through jit::Kernel::launch, against
//    the same dispatch written by hand into a preallocated packet, kernarg
//    and signal.
//
// Usage: build/bin/jit_bench [repetitions]   (default 15; medians printed)
//
//===----------------------------------------------------------------------===//

#include "SaxpyIR.h"
#include "loom/codeobj/CodeObject.h"
#include "loom/isa/Disassembler.h"
#include "loom/isa/McContext.h"
#include "loom/jit/Jit.h"
#include "loom/jit/KernelRef.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace llvm;
using namespace loom::jit;

namespace {

using Clock = std::chrono::steady_clock;

template <typename T> T check(Expected<T> V, const char *What) {
  if (!V) {
    errs() << "jit_bench: " << What << ": " << toString(V.takeError()) << "\n";
    std::exit(1);
  }
  if constexpr (std::is_reference_v<T>)
    return *V;
  else
    return std::move(*V);
}

double median(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  return V[V.size() / 2];
}

template <typename F> double timeMs(F Fn) {
  auto T0 = Clock::now();
  Fn();
  return std::chrono::duration<double, std::milli>(Clock::now() - T0).count();
}


/// A straight-line kernel of about \p Ops dependent integer operations
/// (each becomes one VALU instruction; constants differ so nothing folds).
std::string largeKernel(int Ops) {
  std::string S = "define amdgpu_kernel void @big(ptr addrspace(1) %p, i32 "
                  "%s) {\n  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n"
                  "  %v0 = add i32 %tid, %s\n";
  for (int I = 0; I < Ops; ++I) {
    const char *Op = I % 3 == 0 ? "mul" : I % 3 == 1 ? "xor" : "add";
    S += "  %v" + std::to_string(I + 1) + " = " + Op + " i32 %v" +
         std::to_string(I) + ", " + std::to_string(0x9e3779b1u * (I + 7) >> 3) +
         "\n";
  }
  S += "  %q = getelementptr i32, ptr addrspace(1) %p, i32 %tid\n"
       "  store i32 %v" +
       std::to_string(Ops) +
       ", ptr addrspace(1) %q\n  ret void\n}\n"
       "declare i32 @llvm.amdgcn.workitem.id.x()\n";
  return S;
}

/// Instructions in the kernel's code, through Loom's disassembler.
size_t instructionCount(ArrayRef<char> CodeObject) {
  auto CO = check(loom::codeobj::CodeObject::create(
                      ArrayRef(reinterpret_cast<const uint8_t *>(
                                   CodeObject.data()),
                               CodeObject.size()),
                      "jit"),
                  "parse");
  auto MC = check(loom::isa::McContext::create(CO->target()), "MC");
  loom::isa::Disassembler D(*MC, *CO);
  size_t N = 0;
  for (const auto &K : CO->kernels())
    N += check(D.disassemble(K), "disassemble").Instructions.size();
  return N;
}

/// clang-22 -c then ld.lld-22 -shared as subprocesses, then the same load.
double subprocessBuild(Device &Dev, const std::string &IR) {
  static std::string Clang = [] {
    auto P = sys::findProgramByName("clang-22");
    return P ? *P : std::string("/usr/bin/clang-22");
  }();
  static std::string Lld = [] {
    auto P = sys::findProgramByName("ld.lld-22");
    return P ? *P : std::string("/usr/bin/ld.lld-22");
  }();
  SmallString<128> Ll, Obj, Co;
  sys::fs::createTemporaryFile("jit_bench", "ll", Ll);
  sys::fs::createTemporaryFile("jit_bench", "o", Obj);
  sys::fs::createTemporaryFile("jit_bench", "co", Co);
  {
    std::error_code EC;
    raw_fd_ostream OS(Ll, EC);
    OS << IR;
  }
  double Ms = timeMs([&] {
    StringRef CArgs[] = {Clang, "-c", "-x", "ir", "--target=amdgcn-amd-amdhsa",
                         "-mcpu=gfx90a", "-nogpulib", "-Wno-override-module",
                         "-O2", Ll, "-o", Obj};
    StringRef LArgs[] = {Lld, "-shared", Obj, "-o", Co};
    if (sys::ExecuteAndWait(Clang, CArgs) || sys::ExecuteAndWait(Lld, LArgs)) {
      errs() << "jit_bench: the subprocess build failed\n";
      std::exit(1);
    }
    auto Buf = MemoryBuffer::getFile(Co);
    std::vector<Source> S;
    S.push_back(Source::codeObject(
        ObjectBytes((*Buf)->getBufferStart(), (*Buf)->getBufferEnd()), Co));
    auto P = check(Dev.build(std::move(S)), "load");
    check(P->kernel(P->kernels()[0]->symbol()), "kernel");
  });
  sys::fs::remove(Ll);
  sys::fs::remove(Obj);
  sys::fs::remove(Co);
  return Ms;
}

void jitLatency(Device &Dev, int Reps) {
  std::string Big = largeKernel(1900);
  struct Case {
    const char *Name;
    std::string IR;
  } Cases[] = {{"small (saxpy)", loom::examples::SaxpyIR}, {"large", Big}};
  std::vector<Case> Breakdown;
  SmallString<128> CacheDir;
  sys::fs::createUniqueDirectory("jit_bench_cache", CacheDir);

  std::printf("JIT latency, IR text -> launchable kernel (median of %d; ms)\n",
              Reps);
  std::printf("| kernel | instructions | in-process | clang-22 + ld.lld-22 "
              "subprocesses | speed-up | cache hit |\n| --- | --- | --- | --- "
              "| --- | --- |\n");
  for (const Case &C : Cases) {
    std::vector<double> In, Sub, Hit;
    size_t Insts = 0;
    ProgramOptions Cached;
    Cached.CacheDirectory = std::string(CacheDir);
    check(Dev.compile(C.IR, Cached), "fill the cache");
    for (int R = 0; R < Reps; ++R) {
      In.push_back(timeMs([&] {
        auto P = check(Dev.compile(C.IR), "compile");
        check(P->kernel(P->kernels()[0]->symbol()), "kernel");
        if (!Insts)
          Insts = instructionCount(P->codeObjects()[0]);
      }));
      Sub.push_back(subprocessBuild(Dev, C.IR));
      Hit.push_back(timeMs([&] {
        auto P = check(Dev.compile(C.IR, Cached), "cached compile");
        check(P->kernel(P->kernels()[0]->symbol()), "kernel");
      }));
    }
    double I = median(In), S = median(Sub), H = median(Hit);
    std::printf("| %s | %zu | %.2f | %.2f | %.1fx | %.2f |\n", C.Name, Insts, I,
                S, S / I, H);
    Breakdown.push_back({C.Name, C.IR});
  }
  // Where the in-process time goes.
  std::printf("\nIn-process steps (median of %d; ms)\n| kernel | parse | "
              "optimise + codegen | link (lld) | load + look up |\n| --- | "
              "--- | --- | --- | --- |\n",
              Reps);
  for (const Case &C : Breakdown) {
    std::vector<double> Parse, Codegen, Link, Load;
    for (int R = 0; R < Reps; ++R) {
      LLVMContext Ctx;
      std::unique_ptr<Module> M;
      Parse.push_back(timeMs([&] {
        M = check(parseIR(MemoryBufferRef(C.IR, "bench.ll"), Ctx), "parse");
      }));
      CompileOptions CO;
      CO.Target = Dev.target();
      ObjectBytes Obj, Linked;
      Codegen.push_back(
          timeMs([&] { Obj = check(compileModule(*M, CO), "compile"); }));
      Link.push_back(timeMs(
          [&] { Linked = check(linkObjects(ArrayRef(&Obj, 1)), "link"); }));
      Load.push_back(timeMs([&] {
        std::vector<Source> S;
        S.push_back(Source::codeObject(std::move(Linked), "bench"));
        auto P = check(Dev.build(std::move(S)), "load");
        check(P->kernel(P->kernels()[0]->symbol()), "kernel");
      }));
    }
    std::printf("| %s | %.2f | %.2f | %.2f | %.2f |\n", C.Name, median(Parse),
                median(Codegen), median(Link), median(Load));
  }
  sys::fs::remove_directories(CacheDir);
}

void launchOverhead(Device &Dev, int Reps) {
  auto P = check(Dev.compile(R"(
define amdgpu_kernel void @empty(ptr addrspace(1) %p, i32 %n) {
  ret void
}
)"),
                 "compile the empty kernel");
  Kernel &K = check(P->kernel("empty"), "kernel");
  int *Buf = static_cast<int *>(check(Dev.allocate(64), "allocate"));

  // Baseline: the dispatch by hand, everything preallocated.
  hsa_agent_t Agent{Dev.agentHandle()};
  hsa_queue_t *Q;
  hsa_queue_create(Agent, 1024, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr,
                   UINT32_MAX, UINT32_MAX, &Q);
  hsa_signal_t Done;
  hsa_signal_create(1, 0, nullptr, &Done);
  void *KA = check(Dev.allocate(256), "kernarg");
  auto Raw = [&] {
    hsa_signal_store_relaxed(Done, 1);
    uint64_t Index = hsa_queue_add_write_index_relaxed(Q, 1);
    auto *Pk = static_cast<hsa_kernel_dispatch_packet_t *>(Q->base_address) +
               (Index & (Q->size - 1));
    Pk->workgroup_size_x = 64;
    Pk->workgroup_size_y = Pk->workgroup_size_z = 1;
    Pk->grid_size_x = 64;
    Pk->grid_size_y = Pk->grid_size_z = 1;
    Pk->private_segment_size = 0;
    Pk->group_segment_size = 0;
    Pk->kernel_object = 0;
    Pk->kernarg_address = KA;
    Pk->completion_signal = Done;
    return Pk;
  };
  loom::kernel_ref<void(int *, int)> Ref{"empty"};
  Ref.resolve();
  // The baseline's kernel object, found as kernel_ref finds it.
  loom::detail::resolved_kernel Resolved;
  loom::detail::resolve_kernel("empty", Resolved);
  uint64_t Object = Resolved.Object;
  const int N = 20000;
  std::vector<double> RawUs, RefUs, JitUs;
  auto Measure = [&](auto Fn) {
    std::vector<double> Us;
    Us.reserve(N);
    for (int I = 0; I < N; ++I) {
      auto T0 = Clock::now();
      Fn();
      Us.push_back(
          std::chrono::duration<double, std::micro>(Clock::now() - T0).count());
    }
    return median(Us);
  };
  for (int R = 0; R < std::max(3, Reps / 5); ++R) {
    RawUs.push_back(Measure([&] {
      hsa_kernel_dispatch_packet_t *Pk = Raw();
      Pk->kernel_object = Object;
      uint16_t Header =
          (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
          (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
          (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
      __atomic_store_n(reinterpret_cast<uint32_t *>(Pk),
                       Header | (1u << 16), __ATOMIC_RELEASE);
      hsa_signal_store_screlease(Q->doorbell_signal,
                                 hsa_queue_load_write_index_relaxed(Q) - 1);
      while (hsa_signal_wait_scacquire(Done, HSA_SIGNAL_CONDITION_LT, 1,
                                       UINT64_MAX, HSA_WAIT_STATE_ACTIVE) >= 1)
        ;
    }));
    RefUs.push_back(Measure([&] { Ref.launch({1}, {64}, Buf, 1).wait(); }));
    JitUs.push_back(Measure([&] {
      consumeError(check(K.launch({1}, {64}, Buf, 1), "launch").wait());
    }));
  }
  double Base = median(RawUs), RefT = median(RefUs), JitT = median(JitUs);
  std::printf("\nLaunch round trip of an empty kernel (submit + wait; median "
              "of %d launches x %zu runs; us)\n",
              N, RawUs.size());
  std::printf("| path | round trip | over the hand-written dispatch |\n| --- "
              "| --- | --- |\n");
  std::printf("| hand-written AQL dispatch (baseline) | %.2f | |\n", Base);
  std::printf("| loom::kernel_ref::launch | %.2f | %+.2f |\n", RefT,
              RefT - Base);
  std::printf("| jit::Kernel::launch | %.2f | %+.2f |\n", JitT, JitT - Base);
  hsa_signal_destroy(Done);
  hsa_queue_destroy(Q);
}

} // namespace

int main(int Argc, char **Argv) {
  int Reps = Argc > 1 ? std::atoi(Argv[1]) : 15;
  auto Dev = check(Device::open(), "open the GPU");
  jitLatency(*Dev, std::max(1, Reps));
  launchOverhead(*Dev, Reps);
  return 0;
}
