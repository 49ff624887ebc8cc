//===- channel - A tool that sends records through the channel ------------===//
//
// For ToolTest.cpp: its hooks push a record per lane at kernel entry and
// per lane before each global memory instruction (ChannelRecord.h); the
// host side writes every record it receives to a file, which the test
// checks against what it computes from the dispatches. Options:
//   out=PATH      where the records go (one line each, see below)
//   capacity=N    the ring's records (default 64: it wraps, producers wait)
//   record_bytes=N  ChannelOptions::RecordBytes (default the record's size)
//   lossy=1       a lossy ring
//   chunks=1      ChannelOptions::WaveChunks (only for openChannel's checks)
//   data=1        launch data: 0xC0FFEE00 + the dispatch index
//   memory=0      no hooks at memory instructions
//   slow=US       sleep US microseconds in each channelRecords (a slow host)
//   twice=1, late=1  open the channel a second time in init, or in dispatch
// The file: per dispatch "D <index> <kernel> grid <x> workgroup <x> args
// <three kernarg words>", "I <pc>" per memory instruction instrumented,
// then "E <index> <dispatch id> <group> <wave> <lane> <data>" and
// "M <index> <pc> <address>" per record (index: the Dispatch given to
// channelRecords), "C <index> instrumented <0|1> dropped <n> received <n>
// calls <n> data_sum <n>" at dispatchComplete.
//
//===----------------------------------------------------------------------===//

#include "ChannelRecord.h"

#include "loom/instrument/Tool.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <map>
#include <thread>

using namespace llvm;
using namespace loom::instrument;

namespace {

class ChannelTool final : public Tool {
public:
  Error init(ToolContext &Ctx) override {
    std::string Path = Ctx.option("out", "");
    if (!Path.empty()) {
      std::error_code EC;
      Out = std::make_unique<raw_fd_ostream>(Path, EC);
      if (EC)
        return createStringError(EC, "out=%s: %s", Path.c_str(),
                                 EC.message().c_str());
    }
    Data = Ctx.option("data", "0") == "1";
    Memory = Ctx.option("memory", "1") == "1";
    Late = Ctx.option("late", "0") == "1";
    SlowUs = std::stoul(Ctx.option("slow", "0"));
    ChannelOptions O;
    O.RecordBytes =
        std::stoul(Ctx.option("record_bytes", std::to_string(sizeof(ChannelRecord))));
    O.Capacity = std::stoul(Ctx.option("capacity", "64"));
    O.Lossy = Ctx.option("lossy", "0") == "1";
    O.WaveChunks = Ctx.option("chunks", "0") == "1";
    if (Late)
      return Error::success();
    if (Error E = Ctx.openChannel(O))
      return E;
    if (Ctx.option("twice", "0") == "1")
      if (Error E = Ctx.openChannel(O))
        errs() << "channel: second open: " << toString(std::move(E)) << "\n";
    return Error::success();
  }

  DispatchChoice dispatch(ToolContext &Ctx, const Dispatch &D) override {
    if (Late)
      if (Error E = Ctx.openChannel({sizeof(ChannelRecord), 64, false}))
        errs() << "channel: late open: " << toString(std::move(E)) << "\n";
    Started[D.Index] = std::chrono::steady_clock::now();
    if (Out) {
      const auto *Args = static_cast<const uint64_t *>(D.Kernarg);
      *Out << "D " << D.Index << " " << D.Kernel << " grid " << D.Grid[0]
           << " workgroup " << D.WorkGroup[0] << " args";
      for (int I = 0; I < 3; ++I)
        *Out << " " << format_hex(Args ? Args[I] : 0, 18);
      *Out << "\n";
    }
    DispatchChoice C = DispatchChoice::instrumented();
    if (Data)
      C.withLaunchData(uint64_t(0xC0FFEE00 + D.Index));
    return C;
  }

  Error instrument(ToolContext &, KernelInstrumentation &K) override {
    if (Error E = K.plan().atKernelEntry(K.kernel(), "channel_entry"))
      return E;
    if (!Memory)
      return Error::success();
    for (BinaryFunction *F : K.functions())
      for (const BinaryBasicBlock &B : F->blocks())
        for (const BinaryInstruction &I : B.Instructions) {
          if (I.Props.Memory != MemoryKind::Global)
            continue;
          if (Out)
            *Out << "I " << format_hex(I.address(), 18) << "\n";
          if (Error E = K.plan().before(
                  *F, I, "channel_memory",
                  {HookArg::pc(), HookArg::memoryAddress()}))
            return E;
        }
    return Error::success();
  }

  void channelRecords(ToolContext &, const Dispatch &D, const void *Records,
                      size_t Count) override {
    if (SlowUs)
      std::this_thread::sleep_for(std::chrono::microseconds(SlowUs));
    Received[D.Index] += Count;
    ++Calls[D.Index];
    if (!Out)
      return;
    const auto *R = static_cast<const ChannelRecord *>(Records);
    for (size_t I = 0; I < Count; ++I, ++R)
      if (R->Kind == ChannelEntry)
        *Out << "E " << D.Index << " " << R->X << " " << R->WorkGroup << " "
             << R->Wave << " " << R->Lane << " " << format_hex(R->Y, 18)
             << "\n";
      else
        *Out << "M " << D.Index << " " << format_hex(R->X, 18) << " "
             << format_hex(R->Y, 18) << "\n";
  }

  void dispatchComplete(ToolContext &Ctx, const Dispatch &D) override {
    uint64_t Sum = 0;
    if (D.Instrumented) {
      Expected<uint64_t> S = Ctx.read<uint64_t>(D.Agent, "LaunchDataSum");
      Sum = S ? *S : ~0ull;
      if (!S)
        errs() << "channel: " << toString(S.takeError()) << "\n";
      uint64_t Zero = 0;
      consumeError(
          Ctx.writeGlobal(D.Agent, "LaunchDataSum", &Zero, sizeof(Zero)));
    }
    double Us = std::chrono::duration<double, std::micro>(
                    std::chrono::steady_clock::now() - Started[D.Index])
                    .count();
    errs() << "channel: dispatch " << D.Index << " " << D.Kernel << ": "
           << Received[D.Index] << " records in " << Calls[D.Index]
           << " calls, " << D.ChannelDropped << " dropped, "
           << format("%.0f", Us) << " us\n";
    if (Out) {
      *Out << "C " << D.Index << " instrumented " << D.Instrumented
           << " dropped " << D.ChannelDropped << " received "
           << Received[D.Index] << " calls " << Calls[D.Index] << " data_sum "
           << Sum << "\n";
      Out->flush();
    }
  }

private:
  std::unique_ptr<raw_fd_ostream> Out;
  bool Data = false, Memory = true, Late = false;
  unsigned long SlowUs = 0;
  std::map<uint64_t, uint64_t> Received, Calls;
  std::map<uint64_t, std::chrono::steady_clock::time_point> Started;
};

} // namespace

LOOM_TOOL(ChannelTool, "channel")
