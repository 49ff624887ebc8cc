//===- tests/tool/ToolTruth.cpp - Shipped tools against the ground truth --===//

#include "ToolTruth.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <tuple>

using namespace llvm;

namespace loom::test {

std::map<std::string, WavesLanes> opcodes(const json::Object &O) {
  std::map<std::string, WavesLanes> Out;
  for (const auto &[Name, V] : *O.getObject("opcodes")) {
    const json::Array &A = *V.getAsArray();
    Out[Name.str()] = {uint64_t(*A[0].getAsInteger()),
                       uint64_t(*A[1].getAsInteger())};
  }
  return Out;
}

std::vector<int64_t> triple(const json::Object &O, StringRef Key) {
  std::vector<int64_t> Out;
  for (const json::Value &V : *O.getArray(Key))
    Out.push_back(*V.getAsInteger());
  return Out;
}

std::vector<int64_t> blocksOf(const DispatchTruth &D) {
  std::vector<int64_t> Out;
  for (size_t I = 0; I < D.Grid.size() && I < D.Workgroup.size(); ++I)
    Out.push_back((D.Grid[I] + D.Workgroup[I] - 1) /
                  std::max<int64_t>(D.Workgroup[I], 1));
  return Out;
}

std::string tempPath(StringRef Name) {
  SmallString<128> Path;
  sys::fs::createTemporaryFile(Name, "out", Path);
  return std::string(Path);
}

/// \p Program's dispatches, as the virtual GPU counted them.
std::vector<DispatchTruth> groundTruth(const Program &P) {
  std::string Path = tempPath("tools-truth");
  std::vector<std::string> Args{LOOM_BIN, "exec", "--counters", Path, "--"};
  Args.insert(Args.end(), P.Command.begin(), P.Command.end());
  CommandResult R = runCommand(Args, P.Env);
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  std::vector<DispatchTruth> Out;
  for (const json::Value &V : jsonLines(Path)) {
    const json::Object &O = *V.getAsObject();
    DispatchTruth T;
    T.Kernel = O.getString("kernel")->str();
    T.Grid = triple(O, "grid");
    T.Workgroup = triple(O, "workgroup");
    T.Waves = *O.getInteger("wave_instructions");
    T.Lanes = *O.getInteger("lane_instructions");
    T.Opcodes = opcodes(O);
    for (const auto &[Name, N] : *O.getObject("blocks"))
      T.Blocks[Name.str()] = *N.getAsInteger();
    Out.push_back(std::move(T));
  }
  sys::fs::remove(Path);
  return Out;
}

CommandResult instrument(const Program &P, std::vector<std::string> Options) {
  std::vector<std::string> Args{LOOM_BIN, "instrument"};
  Args.insert(Args.end(), Options.begin(), Options.end());
  Args.push_back("--");
  Args.insert(Args.end(), P.Command.begin(), P.Command.end());
  return runCommand(Args, P.Env);
}

std::vector<std::string> linesStarting(StringRef Text, StringRef Prefix) {
  std::vector<std::string> Out;
  SmallVector<StringRef, 32> All;
  Text.split(All, '\n');
  for (StringRef L : All)
    if (L.starts_with(Prefix))
      Out.push_back(L.str());
  return Out;
}

/// instr_count's JSON lines for \p Program in \p Mode.
std::vector<json::Value> instrCount(const Program &P, StringRef Mode,
                                    std::vector<std::string> More) {
  std::string Path = tempPath("tools-instr-count");
  std::vector<std::string> Options{"--tool",     "instr_count",
                                   "--tool-arg", "mode=" + Mode.str(),
                                   "--tool-arg", "output=" + Path};
  Options.insert(Options.end(), More.begin(), More.end());
  CommandResult R = instrument(P, Options);
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(linesStarting(R.Err, "loom-tool:"), std::vector<std::string>())
      << R.Err;
  EXPECT_EQ(linesStarting(R.Err, "instr_count: ").size() >= 1, true);
  std::vector<json::Value> Out = jsonLines(Path);
  sys::fs::remove(Path);
  return Out;
}

/// instr_count's lines in \p Mode against \p Truth, dispatch by dispatch.
/// With every dispatch counted, a kernel's dispatches are paired in the
/// order of their counts: dispatches on several streams at once take their
/// indices in whichever order they reach the runtime, which differs from
/// run to run. Otherwise by index (a selection of a program's dispatches).
void expectInstrCountsEqualTruth(const std::vector<json::Value> &Counts,
                                 const std::vector<DispatchTruth> &Truth,
                                 bool Every) {
  auto Compare = [](const json::Object &O, const DispatchTruth &T) {
    std::string Kernel = O.getString("kernel")->str();
    ASSERT_EQ(Kernel, T.Kernel);
    EXPECT_EQ(uint64_t(*O.getInteger("lane_instructions")), T.Lanes) << Kernel;
    EXPECT_EQ(uint64_t(*O.getInteger("wave_instructions")), T.Waves) << Kernel;
    std::map<std::string, WavesLanes> Ops = opcodes(O);
    for (const auto &[Op, N] : T.Opcodes) {
      EXPECT_EQ(Ops[Op].second, N.second) << Kernel << " " << Op;
      EXPECT_EQ(Ops[Op].first, N.first) << Kernel << " " << Op;
    }
    for (const auto &[Op, N] : Ops)
      EXPECT_TRUE(T.Opcodes.count(Op)) << Kernel << " counted " << Op;
  };
  if (!Every) {
    for (const json::Value &V : Counts) {
      const json::Object &O = *V.getAsObject();
      uint64_t D = *O.getInteger("dispatch");
      ASSERT_LT(D, Truth.size());
      Compare(O, Truth[D]);
    }
    return;
  }
  ASSERT_EQ(Counts.size(), Truth.size());
  using Key = std::pair<uint64_t, uint64_t>; // (waves, lanes)
  std::map<std::string, std::vector<std::pair<Key, const json::Object *>>> Got;
  std::map<std::string, std::vector<std::pair<Key, const DispatchTruth *>>>
      Want;
  for (const json::Value &V : Counts) {
    const json::Object &O = *V.getAsObject();
    Got[O.getString("kernel")->str()].push_back(
        {{uint64_t(*O.getInteger("wave_instructions")),
          uint64_t(*O.getInteger("lane_instructions"))},
         &O});
  }
  for (const DispatchTruth &T : Truth)
    Want[T.Kernel].push_back({{T.Waves, T.Lanes}, &T});
  ASSERT_EQ(Got.size(), Want.size());
  for (auto &[Kernel, W] : Want) {
    std::vector<std::pair<Key, const json::Object *>> &G = Got[Kernel];
    ASSERT_EQ(G.size(), W.size()) << Kernel;
    auto ByKey = [](const auto &A, const auto &B) { return A.first < B.first; };
    llvm::stable_sort(G, ByKey);
    llvm::stable_sort(W, ByKey);
    for (size_t I = 0; I < W.size(); ++I)
      Compare(*G[I].second, *W[I].second);
  }
}

void expectOpcodeHistEqualsTruth(StringRef Path,
                                 const std::vector<DispatchTruth> &Truth) {
  std::map<std::string, std::map<std::string, WavesLanes>> Want, Got;
  for (const DispatchTruth &T : Truth)
    for (const auto &[Op, N] : T.Opcodes) {
      Want[T.Kernel][Op].first += N.first;
      Want[T.Kernel][Op].second += N.second;
    }
  auto Buf = MemoryBuffer::getFile(Path);
  ASSERT_TRUE(bool(Buf));
  SmallVector<StringRef, 64> Lines;
  (*Buf)->getBuffer().split(Lines, '\n', -1, false);
  ASSERT_FALSE(Lines.empty());
  EXPECT_EQ(Lines[0], "kernel,opcode,waves,lanes");
  for (StringRef L : ArrayRef(Lines).drop_front()) {
    SmallVector<StringRef, 4> F;
    L.split(F, ',');
    ASSERT_EQ(F.size(), 4u) << L.str();
    Got[F[0].str()][F[1].str()] = {std::stoull(F[2].str()),
                                   std::stoull(F[3].str())};
  }
  sys::fs::remove(Path);
  ASSERT_EQ(Got.size(), Want.size());
  for (auto &[Kernel, Ops] : Want) {
    for (auto &[Op, N] : Ops) {
      EXPECT_EQ(Got[Kernel][Op].second, N.second) << Kernel << " " << Op;
      EXPECT_EQ(Got[Kernel][Op].first, N.first) << Kernel << " " << Op;
    }
    EXPECT_EQ(Got[Kernel].size(), Ops.size()) << Kernel;
  }
}

/// bb_count's JSON blocks against the truth's block entries, per kernel.
void expectBlocksEqualTruth(const Program &P,
                            const std::vector<DispatchTruth> &Truth) {
  std::string Path = tempPath("tools-bb-count"),
              Listing = tempPath("tools-bb-listing");
  CommandResult R =
      instrument(P, {"--tool", "bb_count", "--tool-arg", "output=" + Path,
                     "--tool-arg", "disasm=" + Listing});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(linesStarting(R.Err, "loom-tool:"), std::vector<std::string>())
      << R.Err;
  std::map<std::string, std::map<std::string, uint64_t>> Want;
  for (const DispatchTruth &T : Truth)
    for (const auto &[Block, N] : T.Blocks)
      Want[T.Kernel][Block] += N;
  auto Buf = MemoryBuffer::getFile(Path);
  ASSERT_TRUE(bool(Buf)) << R.Err;
  Expected<json::Value> Doc = json::parse((*Buf)->getBuffer());
  ASSERT_TRUE(bool(Doc)) << toString(Doc.takeError());
  sys::fs::remove(Path);
  size_t Kernels = 0;
  for (const json::Value &K : *Doc->getAsObject()->getArray("kernels")) {
    const json::Object &O = *K.getAsObject();
    std::string Kernel = O.getString("kernel")->str();
    ++Kernels;
    ASSERT_TRUE(Want.count(Kernel)) << Kernel;
    const auto &Truths = Want[Kernel];
    uint64_t Entered = 0;
    for (const auto &[Block, V] : *O.getObject("blocks")) {
      uint64_t N = *V.getAsInteger();
      Entered += N != 0;
      auto It = Truths.find(Block.str());
      uint64_t T = It == Truths.end() ? 0 : It->second;
      EXPECT_EQ(N, T) << Kernel << " " << Block.str();
    }
    EXPECT_EQ(uint64_t(*O.getInteger("blocks_entered")), Entered);
    // Every block the truth saw entered is one of the tool's.
    for (const auto &[Block, N] : Truths)
      EXPECT_TRUE(O.getObject("blocks")->get(Block)) << Kernel << " " << Block;
  }
  EXPECT_EQ(Kernels, Want.size());
  expectListingEqualsTruth(Listing, Want);
  sys::fs::remove(Listing);
}

void expectKernelArgsEqualTruth(const Program &P,
                                const std::vector<DispatchTruth> &Truth) {
  std::string Path = tempPath("tools-kernel-args");
  CommandResult R =
      instrument(P, {"--tool", "kernel_args", "--tool-arg", "output=" + Path});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(linesStarting(R.Err, "loom-tool:"), std::vector<std::string>())
      << R.Err;
  EXPECT_EQ(R.Err.find("the device saw"), std::string::npos) << R.Err;
  std::vector<json::Value> Lines = jsonLines(Path);
  sys::fs::remove(Path);
  // Kernel, grid, work-group and grid in work-groups of each dispatch, in
  // any order (dispatches of several streams at once take their indices
  // in the order they reach the runtime).
  using Launch = std::tuple<std::string, std::vector<int64_t>,
                            std::vector<int64_t>, std::vector<int64_t>>;
  std::vector<Launch> Got, Want;
  for (const json::Value &L : Lines) {
    const json::Object &O = *L.getAsObject();
    EXPECT_EQ(O.getString("source")->str(), "device") << formatv("{0}", L).str();
    Got.emplace_back(O.getString("kernel")->str(), triple(O, "grid"),
                     triple(O, "workgroup"), triple(O, "blocks"));
  }
  for (const DispatchTruth &T : Truth)
    Want.emplace_back(T.Kernel, T.Grid, T.Workgroup, blocksOf(T));
  llvm::sort(Got);
  llvm::sort(Want);
  EXPECT_EQ(Got, Want);
}

void expectListingEqualsTruth(
    StringRef Path,
    const std::map<std::string, std::map<std::string, uint64_t>> &Want) {
  auto Buf = MemoryBuffer::getFile(Path);
  ASSERT_TRUE(bool(Buf)) << Path.str() << ": no listing";
  // "; kernel K, code object C, N dispatches" (a kernel of one name in
  // several code objects comes once for each, with its own counts), then
  // each function's header ("F (kernel) @ 0x1a00, ...") and its blocks'
  // labels (".LBB_0x1a20: // 2 predecessors; 16 entries"). Summed per
  // kernel as the truth is, every block's count is the truth's.
  std::string Kernel, Function;
  uint64_t FunctionAddress = 0;
  std::map<std::string, std::map<std::string, uint64_t>> Listed;
  SmallVector<StringRef, 0> Lines;
  (*Buf)->getBuffer().split(Lines, '\n');
  for (StringRef Line : Lines) {
    if (Line.consume_front("; kernel ")) {
      Kernel = Line.split(", code object ").first.str();
      ASSERT_TRUE(Want.count(Kernel)) << Path.str() << ": kernel " << Kernel;
      Listed[Kernel];
      continue;
    }
    if (size_t At = Line.find(") @ 0x"); At != StringRef::npos) {
      Function = Line.take_until([](char C) { return C == ' '; }).str();
      StringRef Address = Line.drop_front(At + 6).take_until(
          [](char C) { return C == ','; });
      EXPECT_FALSE(Address.getAsInteger(16, FunctionAddress)) << Line.str();
      continue;
    }
    if (!Line.consume_front(".LBB_0x"))
      continue;
    uint64_t Address = 0;
    ASSERT_FALSE(Line.take_until([](char C) { return C == ':'; })
                     .getAsInteger(16, Address))
        << Line.str();
    std::string Block = Function + "+0x" + utohexstr(Address - FunctionAddress,
                                                     /*LowerCase=*/true);
    uint64_t N = 0;
    // The note follows the predecessor count's "; ", or is all there is.
    StringRef Note = Line.rsplit("// ").second;
    if (size_t Semi = Note.rfind("; "); Semi != StringRef::npos)
      Note = Note.drop_front(Semi + 2);
    if (Note.consume_back(" entries") || Note.consume_back(" entry"))
      EXPECT_FALSE(Note.getAsInteger(10, N)) << Line.str();
    else
      EXPECT_EQ(Note.str(), "never entered") << Kernel << " " << Block;
    Listed[Kernel][Block] += N;
  }
  for (const auto &[K, Blocks] : Want) {
    ASSERT_TRUE(Listed.count(K)) << "no listing of " << K;
    for (const auto &[Block, N] : Blocks) {
      auto It = Listed[K].find(Block);
      EXPECT_TRUE(It != Listed[K].end()) << K << " " << Block << " not listed";
      if (It != Listed[K].end())
        EXPECT_EQ(It->second, N) << K << " " << Block;
    }
    for (const auto &[Block, N] : Listed[K])
      if (N)
        EXPECT_TRUE(Blocks.count(Block)) << K << " " << Block << ": " << N;
  }
}

MemoryTruth memoryTruth(const Program &P) {
  std::string Trace = tempPath("mem-truth"), Counters = tempPath("mem-counters");
  std::vector<std::string> Args{LOOM_BIN,   "exec",     "--memory-trace",
                                Trace,      "--counters", Counters, "--"};
  Args.insert(Args.end(), P.Command.begin(), P.Command.end());
  MemoryTruth T;
  T.Run = runCommand(Args, P.Env);
  EXPECT_EQ(T.Run.ExitCode, 0) << T.Run.Err;
  Expected<std::vector<MemoryAccess>> A = readTruthTrace(Trace, Counters);
  if (!A)
    ADD_FAILURE() << toString(A.takeError());
  else
    T.Accesses = std::move(*A);
  sys::fs::remove(Trace);
  sys::fs::remove(Counters);
  return T;
}

Traced memTrace(const Program &P, std::vector<std::string> More, bool Keep) {
  Traced T;
  T.File = tempPath("mem-trace");
  std::vector<std::string> Options{"--tool", "mem_trace", "--tool-arg",
                                   "output=" + T.File};
  Options.insert(Options.end(), More.begin(), More.end());
  T.Run = instrument(P, Options);
  EXPECT_EQ(T.Run.ExitCode, 0) << T.Run.Err;
  CommandResult Show = runCommand({LOOM_BIN, "trace", "show", T.File, "--json"});
  EXPECT_EQ(Show.ExitCode, 0) << Show.Err;
  Expected<std::vector<MemoryAccess>> A = parseMemTraceJson(Show.Out);
  if (!A)
    ADD_FAILURE() << toString(A.takeError());
  else
    T.Accesses = std::move(*A);
  if (!Keep)
    sys::fs::remove(T.File);
  return T;
}

/// The 8-byte arguments of each dispatch of a launch log (a JSON line a
/// dispatch, its "args" the bytes in hex).
DispatchBuffers launchBuffers(StringRef Path) {
  DispatchBuffers Out;
  uint64_t Dispatch = 0;
  for (const json::Value &Line : jsonLines(Path)) {
    std::vector<uint64_t> &Args = Out[Dispatch++];
    for (const json::Value &A : *Line.getAsObject()->getArray("args"))
      if (std::string Bytes = fromHex(*A.getAsString()); Bytes.size() == 8) {
        uint64_t V;
        std::memcpy(&V, Bytes.data(), 8);
        Args.push_back(V);
      }
  }
  sys::fs::remove(Path);
  return Out;
}

void expectMemTraceIsTheTruth(const Program &P, bool SameOutput,
                              StringRef LaunchLog,
                              std::vector<std::string> More) {
  std::string Logs[2];
  Program Runs[2] = {P, P};
  if (!LaunchLog.empty())
    for (int R = 0; R < 2; ++R) {
      Logs[R] = tempPath("mem-launches");
      Runs[R].Env.push_back(LaunchLog.str() + "=" + Logs[R]);
    }
  MemoryTruth Want = memoryTruth(Runs[0]);
  Traced Got = memTrace(Runs[1], std::move(More));
  ASSERT_FALSE(Want.Accesses.empty());
  if (SameOutput)
    EXPECT_EQ(Got.Run.Out, Want.Run.Out) << "the program's output changed";
  EXPECT_EQ(linesStarting(Got.Run.Err, "loom-tool:"),
            std::vector<std::string>())
      << Got.Run.Err;
  EXPECT_EQ(linesStarting(Got.Run.Err, "mem_trace: ").size() >= 1, true);
  EXPECT_EQ(Got.Accesses.size(), Want.Accesses.size());
  CompareOptions Options;
  DispatchBuffers Buffers[2];
  if (!LaunchLog.empty()) {
    for (int R = 0; R < 2; ++R)
      Buffers[R] = launchBuffers(Logs[R]);
    Options.TruthBuffers = &Buffers[0];
    Options.TracedBuffers = &Buffers[1];
  }
  for (const std::string &D :
       compareMemoryTraces(Want.Accesses, Got.Accesses, Options))
    ADD_FAILURE() << P.Command.front() << ": " << D;
}

} // namespace loom::test
