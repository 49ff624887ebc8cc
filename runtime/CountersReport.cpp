//===- runtime/CountersReport.cpp - Ground truth of every dispatch --------===//

#include "loom/runtime/CountersReport.h"
#include "loom/runtime/MemoryTraceLine.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>

using namespace llvm;

namespace loom::runtime {

namespace {

std::FILE *openReport(const char *Env) {
  const char *Path = std::getenv(Env);
  if (!Path || !*Path)
    return nullptr;
  std::FILE *F = std::fopen(Path, "w");
  if (!F)
    std::fprintf(stderr, "Loom: cannot write %s=%s: %s\n", Env, Path,
                 std::strerror(errno));
  return F;
}

/// The memory kind of an operation, from its MC name (V_/S_ prefixes as
/// the decoder names them): what a memory instruction reaches.
StringRef memoryKind(StringRef Opcode) {
  if (Opcode.starts_with("GLOBAL_"))
    return "global";
  if (Opcode.starts_with("FLAT_"))
    return "flat";
  if (Opcode.starts_with("SCRATCH_"))
    return "scratch";
  if (Opcode.starts_with("DS_"))
    return "lds";
  if (Opcode.starts_with("BUFFER_") || Opcode.starts_with("TBUFFER_"))
    return "buffer";
  if (Opcode.starts_with("S_"))
    return "scalar";
  return "other";
}

template <typename T> json::Array triple(const T (&V)[3]) {
  return json::Array{V[0], V[1], V[2]};
}

} // namespace

CountersReport *CountersReport::get() {
  static CountersReport *Report = [] () -> CountersReport * {
    std::FILE *C = openReport("LOOM_COUNTERS");
    std::FILE *T = openReport("LOOM_MEMORY_TRACE");
    if (!C && !T)
      return nullptr;
    auto *R = new CountersReport(); // lives as long as the process
    R->Counters = C;
    R->Trace = T;
    return R;
  }();
  return Report;
}

void CountersReport::record(unsigned Node, const emu::DispatchParams &P,
                            const emu::DispatchResult &R, double Seconds) {
  const emu::DispatchCounters &C = R.Counters;
  std::lock_guard<std::mutex> G(Lock);
  uint64_t Id = Dispatches++;
  if (Counters) {
    std::string Line;
    raw_string_ostream OS(Line);
    json::OStream J(OS);
    std::map<std::string, std::pair<uint64_t, uint64_t>> ByOpcode;
    std::map<std::string, std::pair<uint64_t, uint64_t>> ByKind;
    for (const emu::InstructionCount &I : C.Instructions) {
      auto &O = ByOpcode[I.Opcode];
      O.first += I.WaveExecutions;
      O.second += I.ActiveLanes;
      if (I.IsMemory) {
        auto &K = ByKind[memoryKind(I.Opcode).str()];
        K.first += I.WaveExecutions;
        K.second += I.MemoryBytes;
      }
    }
    J.object([&] {
      J.attribute("dispatch", Id);
      J.attribute("agent", Node);
      J.attribute("kernel", R.KernelName);
      J.attribute("status", R.ok() ? "completed" : "faulted");
      J.attribute("grid", triple(P.GridSize));
      J.attribute("workgroup", triple(P.WorkgroupSize));
      J.attribute("workgroups", C.Workgroups);
      J.attribute("waves", C.Waves);
      J.attribute("wave_instructions", C.WaveInstructions);
      J.attribute("lane_instructions", C.ActiveLaneInstructions);
      J.attribute("memory_instructions", C.MemoryInstructions);
      J.attribute("memory_bytes", C.MemoryBytes);
      J.attribute("seconds", Seconds);
      J.attributeObject("opcodes", [&] {
        for (auto &[Name, N] : ByOpcode)
          J.attribute(Name, json::Array{N.first, N.second});
      });
      J.attributeObject("memory", [&] {
        for (auto &[Kind, N] : ByKind)
          J.attributeObject(Kind, [&] {
            J.attribute("instructions", N.first);
            J.attribute("bytes", N.second);
          });
      });
      J.attributeObject("blocks", [&] {
        for (const emu::InstructionCount &I : C.Instructions)
          if (I.StartsBlock)
            J.attribute(formatv("{0}+{1:x}", I.Function, I.Offset).str(),
                        I.WaveExecutions);
      });
      J.attributeArray("instructions", [&] {
        for (const emu::InstructionCount &I : C.Instructions)
          J.value(json::Object{{"code", I.Code},
                               {"function", I.Function},
                               {"offset", I.Offset},
                               {"pc", I.Pc},
                               {"opcode", I.Opcode},
                               {"waves", I.WaveExecutions},
                               {"lanes", I.ActiveLanes},
                               {"bytes", I.MemoryBytes},
                               {"memory", I.IsMemory},
                               {"block_start", I.StartsBlock}});
      });
    });
    OS << "\n";
    std::fwrite(Line.data(), 1, Line.size(), Counters);
    std::fflush(Counters);
  }
  if (Trace) {
    std::string Out;
    raw_string_ostream OS(Out);
    for (const emu::MemoryAccessRecord &A : C.Accesses) {
      json::OStream J(OS);
      J.object([&] {
        writeMemoryTraceKeys(J, {Id, A.Pc, A.WaveId, A.ExecMask, A.Space,
                                 A.IsWrite, A.IsAtomic, A.BytesPerLane,
                                 A.Addresses});
      });
      OS << "\n";
    }
    std::fwrite(Out.data(), 1, Out.size(), Trace);
    std::fflush(Trace);
  }
}

} // namespace loom::runtime
