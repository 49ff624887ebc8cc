//===- HipLiftOracleTest.cpp - The HIP test programs check the lifted code -===//
//
// The lifting oracle of the differential corpus (LiftOracleTest.cpp), on
// the HIP test programs: each runs under `loom exec --counters
// --memory-trace`, and every completed dispatch is checked against the
// lifted code object its kernel came from (DispatchOracle.h): executed
// instructions are lifted ones, block starts agree, no executed edge is
// missing from the CFG (the flow check), memory accesses fit the lifted
// properties. The code objects are those the program embeds and, for
// hip_module, those it loads from the test directory; a dispatch is matched
// to the one whose instructions it ran. HIP's own blit kernels
// (__amd_rocclr_*), which HIP compiles in memory when it starts, are
// counted and left out. Programs not built are skipped.
//
//===----------------------------------------------------------------------===//
#include "DispatchOracle.h"
#include "../support/JsonLines.h"
#include "../support/RunCommand.h"

#include "loom/codeobj/Input.h"
#include "loom/instrument/Liveness.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>

using namespace llvm;
using namespace loom;
using namespace loom::instrument;
using namespace loom::instrument::test;
using loom::test::CommandResult;
using loom::test::jsonLines;
using loom::test::runCommand;

namespace {

struct LiftedObject {
  std::string Name;
  std::unique_ptr<codeobj::CodeObject> CO;
  std::unique_ptr<BinaryContext> BC;
};

/// Every code object of \p Program, and the .co files beside it.
std::vector<LiftedObject> liftProgram(StringRef Program) {
  std::vector<std::string> Files{Program.str()};
  std::error_code EC;
  for (sys::fs::directory_iterator It(LOOM_HIP_TEST_DIR, EC), End;
       It != End && !EC; It.increment(EC))
    if (StringRef(It->path()).ends_with(".co"))
      Files.push_back(It->path());
  std::vector<LiftedObject> Out;
  for (const std::string &File : Files) {
    auto In = codeobj::readInputFile(File);
    if (!In) {
      consumeError(In.takeError());
      continue;
    }
    for (codeobj::EmbeddedCodeObject &E : In->CodeObjects) {
      LiftedObject L;
      L.Name = sys::path::filename(File).str() + "#" + E.EntryId;
      auto BC = BinaryContext::create(*E.Object);
      if (!BC) {
        ADD_FAILURE() << L.Name << ": " << toString(BC.takeError());
        continue;
      }
      if (Error Err = (*BC)->buildCFGs()) {
        ADD_FAILURE() << L.Name << ": " << toString(std::move(Err));
        continue;
      }
      L.CO = std::move(E.Object);
      L.BC = std::move(*BC);
      Out.push_back(std::move(L));
    }
  }
  return Out;
}

uint8_t spaceCode(StringRef S) {
  return StringSwitch<uint8_t>(S)
      .Case("global", 0)
      .Case("lds", 1)
      .Case("scratch", 2)
      .Case("scalar", 3)
      .Default(0xff);
}

/// The dispatches of a `--counters` file, with the accesses of a
/// `--memory-trace` file, keyed by dispatch number; (kernel, counters).
std::map<int64_t, std::pair<std::string, emu::DispatchCounters>>
readCounters(StringRef CountersPath, StringRef TracePath) {
  std::map<int64_t, std::pair<std::string, emu::DispatchCounters>> Out;
  for (const json::Value &V : jsonLines(CountersPath)) {
    const json::Object &O = *V.getAsObject();
    if (O.getString("status") != "completed")
      continue; // counts stop at a fault
    auto &[Kernel, C] = Out[*O.getInteger("dispatch")];
    Kernel = O.getString("kernel")->str();
    C.Waves = *O.getInteger("waves");
    for (const json::Value &IV : *O.getArray("instructions")) {
      const json::Object &I = *IV.getAsObject();
      emu::InstructionCount IC;
      IC.Function = I.getString("function")->str();
      IC.Offset = *I.getInteger("offset");
      IC.Pc = uint64_t(*I.getInteger("pc"));
      IC.Opcode = I.getString("opcode")->str();
      IC.WaveExecutions = *I.getInteger("waves");
      IC.ActiveLanes = *I.getInteger("lanes");
      IC.MemoryBytes = *I.getInteger("bytes");
      IC.IsMemory = *I.getBoolean("memory");
      IC.StartsBlock = *I.getBoolean("block_start");
      C.Instructions.push_back(std::move(IC));
    }
  }
  for (const json::Value &V : jsonLines(TracePath)) {
    const json::Object &O = *V.getAsObject();
    auto It = Out.find(*O.getInteger("dispatch"));
    if (It == Out.end())
      continue;
    emu::MemoryAccessRecord A;
    A.Pc = uint64_t(*O.getInteger("pc"));
    A.Space = spaceCode(*O.getString("space"));
    A.IsWrite = O.getString("direction") == "write";
    A.IsAtomic = *O.getBoolean("atomic");
    A.BytesPerLane = *O.getInteger("bytes_per_lane");
    It->second.second.Accesses.push_back(std::move(A));
  }
  return Out;
}

/// Whether every instruction \p C ran is one of \p BC's, with its operation.
bool ranFrom(BinaryContext &BC, const emu::DispatchCounters &C) {
  for (const emu::InstructionCount &IC : C.Instructions) {
    BinaryFunction *F = BC.function(IC.Function);
    const BinaryInstruction *I =
        F ? F->instructionAt(F->address() + IC.Offset) : nullptr;
    if (!I || !BC.mc().opcodeBaseName(I->Inst.getOpcode()).starts_with(IC.Opcode))
      return false;
  }
  return true;
}

class HipLiftOracle : public ::testing::TestWithParam<const char *> {};

TEST_P(HipLiftOracle, EveryDispatchFitsTheLiftedCode) {
  std::string Program = std::string(LOOM_HIP_TEST_DIR) + "/hip_" + GetParam();
  if (!sys::fs::can_execute(Program))
    GTEST_SKIP() << Program << " was not built";
  SmallString<128> Counters, Trace;
  ASSERT_FALSE(sys::fs::createTemporaryFile("hip-oracle", "jsonl", Counters));
  ASSERT_FALSE(sys::fs::createTemporaryFile("hip-oracle", "jsonl", Trace));
  std::vector<std::string> Command{LOOM_BIN, "exec", "--counters",
                                   Counters.str().str(), "--memory-trace",
                                   Trace.str().str(), "--", Program};
  if (StringRef(GetParam()) == "module") // the code object it loads
    Command.push_back(std::string(LOOM_HIP_TEST_DIR) + "/hip_module_v4.co");
  CommandResult R = runCommand(Command);
  ASSERT_EQ(R.ExitCode, 0) << R.Out << R.Err;
  auto Dispatches = readCounters(Counters, Trace);
  sys::fs::remove(Counters);
  sys::fs::remove(Trace);
  ASSERT_FALSE(Dispatches.empty()) << "no dispatch completed";

  std::vector<LiftedObject> Objects = liftProgram(Program);
  OracleTotals T;
  unsigned RuntimeKernels = 0;
  for (auto &[Id, KC] : Dispatches) {
    auto &[Kernel, C] = KC;
    LiftedObject *From = nullptr;
    for (LiftedObject &L : Objects)
      if (L.BC->function(Kernel) && ranFrom(*L.BC, C)) {
        From = &L;
        break;
      }
    if (!From && StringRef(Kernel).starts_with("__amd_rocclr_")) {
      ++RuntimeKernels; // HIP's blit kernels, compiled when HIP starts
      continue;
    }
    if (!From) {
      ADD_FAILURE() << "dispatch " << Id << " of " << Kernel
                    << " ran code no lifted code object has";
      continue;
    }
    SCOPED_TRACE("dispatch " + std::to_string(Id) + " of " + Kernel + " (" +
                 From->Name + ")");
    T.KernelsRun.insert(From->Name + ":" + Kernel);
    checkDispatch(*From->BC, Kernel, C, T);
  }
  std::printf("[hip lift oracle] %s: %s; %u dispatches of HIP's own blit "
              "kernels not checked (built in memory)\n",
              GetParam(), T.str().c_str(), RuntimeKernels);
}

// Every HIP test program that runs kernels to completion (fault and
// hardening fault on purpose; device_props runs none).
INSTANTIATE_TEST_SUITE_P(
    Programs, HipLiftOracle,
    ::testing::Values("clang22_launch", "clang22_symbols", "clang22_wave",
                      "cooperative_groups", "device_malloc", "device_printf",
                      "function_pointers", "kernel_ref", "launch", "memory",
                      "module",
                      "shared_atomics", "streams_events", "symbols",
                      "wave_intrinsics"));

} // namespace
