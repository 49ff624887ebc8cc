//===- emu/TraceCache.cpp - Hot traces of a code region, compiled ---------===//

#include "TraceCache.h"

#include "CodeRegion.h"
#include "Decoder.h"
#include "Dispatch.h"
#include "Semantics.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace loom::emu {

namespace {

/// MODE bits compiled code depends on, and the value they must have: the
/// float round and denorm fields at their defaults (round to nearest even,
/// denormals kept, as the host computes) and GPR indexing off.
constexpr uint32_t JitModeMask = 0xff | ModeGprIdxEn;
constexpr uint32_t JitMode = 0xf0;

/// Handler of a cold trace's first instruction: counts (in the worker's
/// tally), compiles when the trace turns hot, and runs the instruction
/// itself.
void countTrace(Wave &W, const DecodedInst &I) {
  TraceCache &C = *W.Region->traces();
  TraceCache::Trace &T = C.at(W.Index);
  W.Counters->Traces->count(C, W.Index, T);
  T.Original(W, I);
}

/// Handler of a compiled trace's first instruction: runs the whole trace.
void runTrace(Wave &W, const DecodedInst &I) {
  TraceCache &C = *W.Region->traces();
  TraceCache::Trace &T = C.at(W.Index);
  if ((W.Mode & JitModeMask) != JitMode) [[unlikely]]
    return T.Original(W, I);
  if (W.D->Count) [[unlikely]] {
    trace::CountedTraceFn Fn = T.RunCounted.load(std::memory_order_acquire);
    if (!Fn && !(Fn = C.counted(W.Index)))
      return T.Original(W, I);
    WorkerCounters &Counters = *W.Counters;
    W.NextIndex = W.Index + Fn(W.S, W.V, &W.SCC,
                               Counters.Executions.data() + I.Id,
                               Counters.Lanes.data() + I.Id);
    return;
  }
  W.NextIndex = W.Index + T.Run(W.S, W.V, &W.SCC);
}

/// Says once per process that the trace compiler failed.
void warnOnce(llvm::Error E) {
  static std::once_flag Warned;
  std::string Msg = llvm::toString(std::move(E));
  std::call_once(Warned, [&] {
    std::fprintf(stderr, "loom: trace compiler: %s; interpreting instead\n",
                 Msg.c_str());
  });
}

/// Instructions worth a call into compiled code: at least two that do
/// something.
bool worthCompiling(const std::vector<trace::Op> &Ops) {
  size_t Work = 0;
  for (trace::Op O : Ops)
    Work += O != trace::Op::Nop;
  return Work >= 2;
}

} // namespace

TraceCache::TraceCache(DecodedInst *Insts, uint32_t Size, const Decoder &Dec,
                       uint32_t Threshold, std::string RegionName)
    : Insts(Insts), Heads(Size), Dec(Dec), Threshold(std::max(1u, Threshold)),
      RegionName(std::move(RegionName)) {}

void TraceCache::scan(uint32_t Idx, uint32_t Size) {
  while (Idx < Size) {
    std::vector<trace::Op> Ops;
    uint32_t End = Idx;
    while (End < Size) {
      const DecodedInst &I = Insts[End];
      if (End > Idx && (I.Flags & FlagStartsBlock))
        break;
      trace::Op O = I.Fn == illegalInstruction
                      ? trace::Op::None
                      : trace::classify(Dec.nameOf(I.NameId), I);
      if (O == trace::Op::None)
        break;
      Ops.push_back(O);
      ++End;
      if (trace::isBranch(O) || (I.Flags & FlagEndsBlock))
        break;
    }
    if (worthCompiling(Ops)) {
      auto T = std::make_unique<Trace>();
      // Compiling costs milliseconds per instruction of the trace, and
      // saves a fraction of its interpretation per run: whatever the
      // trace's length, it pays after hundreds of thousands of runs
      // (DeviceOptions::TraceThreshold), so short programs stay
      // interpreted.
      T->CompileAt = this->Threshold;
      // Each worker holds back at most a thousandth of the threshold (at
      // most 1,024 runs); below 2,048 (tests) it adds every run.
      T->Batch = std::clamp(this->Threshold / 1024, 1u, 1024u);
      T->Ops = std::move(Ops);
      T->Original = Insts[Idx].Fn;
      Insts[Idx].Fn = countTrace;
      Heads[Idx] = std::move(T);
    }
    Idx = End > Idx ? End : Idx + 1;
  }
}

void TraceCache::compile(uint32_t Index) {
  std::lock_guard<std::mutex> G(CompileLock);
  Trace &T = at(Index);
  DecodedInst &Head = Insts[Index];
  if (__atomic_load_n(&Head.Fn, __ATOMIC_RELAXED) != countTrace)
    return;
  auto Fn = trace::compileTrace(&Head, Index, T.Ops, name(Index));
  if (!Fn) {
    // The interpreter runs the trace as before.
    warnOnce(Fn.takeError());
    __atomic_store_n(&Head.Fn, T.Original, __ATOMIC_RELEASE);
    return;
  }
  T.Run = *Fn;
  __atomic_store_n(&Head.Fn, runTrace, __ATOMIC_RELEASE);
}

trace::CountedTraceFn TraceCache::counted(uint32_t Index) {
  std::lock_guard<std::mutex> G(CompileLock);
  Trace &T = at(Index);
  if (trace::CountedTraceFn Fn = T.RunCounted.load(std::memory_order_relaxed))
    return Fn;
  if (T.CountedFailed)
    return nullptr;
  auto Fn = trace::compileCountedTrace(&Insts[Index], Index, T.Ops, name(Index));
  if (!Fn) {
    warnOnce(Fn.takeError());
    T.CountedFailed = true;
    return nullptr;
  }
  T.RunCounted.store(*Fn, std::memory_order_release);
  return *Fn;
}

std::string TraceCache::name(uint32_t Index) const {
  return RegionName + "+0x" +
         llvm::utohexstr(Insts[Index].Address - Insts[0].Address);
}

uint32_t traceThreshold(uint32_t Option) {
  if (const char *Env = std::getenv("LOOM_TRACE_THRESHOLD"))
    return static_cast<uint32_t>(std::strtoul(Env, nullptr, 10));
  return Option;
}

} // namespace loom::emu
