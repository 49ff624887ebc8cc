//===- examples/jit_saxpy.cpp - LLVM IR in, a launched kernel out ---------===//
//
// The JIT as a user writes it: a kernel as LLVM IR text, compiled and linked
// in-process, launched by name with checked arguments, and its result
// compared with the host. Run: build/bin/jit_saxpy [N]
//
//===----------------------------------------------------------------------===//

#include "SaxpyIR.h"
#include "loom/jit/Jit.h"

#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdlib>

using namespace llvm;


static int fail(Error E) {
  errs() << "jit_saxpy: " << toString(std::move(E)) << "\n";
  return 1;
}

int main(int Argc, char **Argv) {
  int N = Argc > 1 ? std::atoi(Argv[1]) : 100000;
  auto Dev = loom::jit::Device::open();
  if (!Dev)
    return fail(Dev.takeError());

  auto T0 = std::chrono::steady_clock::now();
  auto Prog = (*Dev)->compile(loom::examples::SaxpyIR);
  if (!Prog)
    return fail(Prog.takeError());
  auto Saxpy = (*Prog)->kernel("saxpy");
  if (!Saxpy)
    return fail(Saxpy.takeError());
  double Ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - T0)
                  .count();

  auto X = (*Dev)->allocate(N * sizeof(float));
  auto Y = (*Dev)->allocate(N * sizeof(float));
  if (!X || !Y)
    return fail(joinErrors(X.takeError(), Y.takeError()));
  auto *XP = static_cast<float *>(*X), *YP = static_cast<float *>(*Y);
  for (int I = 0; I < N; ++I) {
    XP[I] = I;
    YP[I] = 1.0f;
  }
  auto L = Saxpy->launch({(uint32_t(N) + 63) / 64}, {64}, 2.0f, XP, YP, N);
  if (!L)
    return fail(L.takeError());
  if (Error E = L->wait())
    return fail(std::move(E));

  for (int I = 0; I < N; ++I)
    if (YP[I] != 2.0f * float(I) + 1.0f) {
      errs() << "jit_saxpy: y[" << I << "] = " << YP[I] << ", expected "
             << 2.0f * I + 1.0f << "\n";
      return 1;
    }
  outs() << "saxpy on " << (*Dev)->name() << " (" << (*Dev)->target().str()
         << "): IR compiled, linked and loaded in " << format("%.1f", Ms)
         << " ms; " << N << " results match the host\n";
  consumeError((*Dev)->free(XP));
  consumeError((*Dev)->free(YP));
  return 0;
}
