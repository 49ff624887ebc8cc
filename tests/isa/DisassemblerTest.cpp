//===- tests/isa/DisassemblerTest.cpp - Disassembly against llvm-objdump --===//
//
// Every instruction of every function in the fixtures must have the address
// and text llvm-objdump-22 prints for the same bytes. Blocks and resolved
// targets are checked against facts of the fixture sources
// (tests/fixtures/kernels.c, xco_caller.c, xco_callee.c).
//
//===----------------------------------------------------------------------===//

#include "loom/isa/Disassembler.h"
#include "loom/codeobj/Input.h"
#include "loom/isa/McContext.h"

#include "../support/RunCommand.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

using namespace loom;
using namespace loom::isa;
using namespace llvm;

namespace {

std::string fixture(const std::string &Name) {
  return std::string(LOOM_FIXTURE_DIR) + "/" + Name;
}

/// Address -> instruction text, from llvm-objdump's default output for one
/// code object. Lines look like
///   "\ts_cbranch_scc1 13         // 00000000191C: BF85000D <k+0x54>".
std::map<uint64_t, std::string> objdumpTexts(ArrayRef<uint8_t> CodeObject) {
  std::map<uint64_t, std::string> Out;
  SmallString<128> Path;
  int FD;
  if (std::error_code EC =
          sys::fs::createTemporaryFile("loom-isa-test", "elf", FD, Path)) {
    ADD_FAILURE() << EC.message();
    return Out;
  }
  {
    raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS.write(reinterpret_cast<const char *>(CodeObject.data()),
             CodeObject.size());
  }
  test::CommandResult R =
      test::runCommand({LOOM_LLVM_OBJDUMP, "-d", std::string(Path)});
  sys::fs::remove(Path);
  EXPECT_EQ(R.ExitCode, 0) << R.Err;

  SmallVector<StringRef, 0> Lines;
  StringRef(R.Out).split(Lines, '\n');
  for (StringRef L : Lines) {
    if (!L.consume_front("\t"))
      continue;
    EXPECT_FALSE(L.starts_with("\t...")) << "objdump skipped zeros";
    // The text ends where objdump's "// <12 hex digits>:" comment starts.
    for (size_t Pos = L.find("// "); Pos != StringRef::npos;
         Pos = L.find("// ", Pos + 1)) {
      StringRef Addr = L.substr(Pos + 3, 12);
      uint64_t A;
      if (L.size() > Pos + 15 && L[Pos + 15] == ':' &&
          !Addr.getAsInteger(16, A)) {
        Out[A] = L.take_front(Pos).rtrim().str();
        break;
      }
    }
  }
  return Out;
}

struct Loaded {
  codeobj::Input In;
  std::vector<std::unique_ptr<McContext>> Contexts; // per code object
};

Loaded load(const std::string &Path) {
  Loaded L;
  Expected<codeobj::Input> In = codeobj::readInputFile(Path);
  if (!In) {
    ADD_FAILURE() << toString(In.takeError());
    return L;
  }
  L.In = std::move(*In);
  for (const codeobj::EmbeddedCodeObject &E : L.In.CodeObjects) {
    Expected<std::unique_ptr<McContext>> MC =
        McContext::create(E.Object->target());
    if (!MC) {
      ADD_FAILURE() << toString(MC.takeError());
      return Loaded();
    }
    L.Contexts.push_back(std::move(*MC));
  }
  return L;
}

std::vector<DisassembledFunction>
disassembleAll(McContext &MC, const codeobj::CodeObject &CO) {
  Disassembler D(MC, CO);
  Expected<std::vector<DisassembledFunction>> All = D.disassembleAll();
  if (!All) {
    ADD_FAILURE() << toString(All.takeError());
    return {};
  }
  return std::move(*All);
}

/// Blocks partition the instructions; leaders are exactly the entry, the
/// direct branch targets and the instructions after block ends; edges are
/// symmetric.
void expectWellFormedBlocks(const DisassembledFunction &F) {
  SCOPED_TRACE(F.Name);
  ASSERT_FALSE(F.Blocks.empty());
  std::set<uint64_t> Leaders = {F.Address};
  for (size_t K = 0; K != F.Instructions.size(); ++K) {
    const Instruction &I = F.Instructions[K];
    if (I.endsBlock() && K + 1 != F.Instructions.size())
      Leaders.insert(F.Instructions[K + 1].Address);
    if (I.Target &&
        (I.Flow == ControlFlow::Branch || I.Flow == ControlFlow::CondBranch) &&
        F.instructionAt(*I.Target))
      Leaders.insert(*I.Target);
  }
  std::set<uint64_t> Starts;
  size_t Next = 0;
  for (size_t BI = 0; BI != F.Blocks.size(); ++BI) {
    const BasicBlock &B = F.Blocks[BI];
    EXPECT_EQ(B.FirstInstruction, Next);
    ASSERT_GT(B.NumInstructions, 0u);
    Next += B.NumInstructions;
    ASSERT_LE(Next, F.Instructions.size());
    EXPECT_EQ(B.Address, F.Instructions[B.FirstInstruction].Address);
    EXPECT_EQ(B.EndAddress, F.Instructions[Next - 1].endAddress());
    Starts.insert(B.Address);
    for (size_t S : B.Successors) {
      ASSERT_LT(S, F.Blocks.size());
      EXPECT_EQ(llvm::count(F.Blocks[S].Predecessors, BI), 1)
          << BI << "->" << S;
    }
    for (size_t P : B.Predecessors) {
      ASSERT_LT(P, F.Blocks.size());
      EXPECT_EQ(llvm::count(F.Blocks[P].Successors, BI), 1) << P << "->" << BI;
    }
  }
  EXPECT_EQ(Next, F.Instructions.size());
  EXPECT_EQ(Starts, Leaders);
}

//===----------------------------------------------------------------------===//
// Text and addresses against llvm-objdump, for every fixture
//===----------------------------------------------------------------------===//

class MatchesObjdump : public testing::TestWithParam<const char *> {};

TEST_P(MatchesObjdump, EveryInstructionOfEveryFunction) {
  std::string Path = fixture(GetParam());
  if (!sys::fs::exists(Path))
    GTEST_SKIP() << Path << " was not built";
  Loaded L = load(Path);
  ASSERT_FALSE(L.In.CodeObjects.empty());
  for (size_t C = 0; C != L.In.CodeObjects.size(); ++C) {
    const codeobj::CodeObject &CO = *L.In.CodeObjects[C].Object;
    SCOPED_TRACE(CO.name().str());
    std::map<uint64_t, std::string> Ref = objdumpTexts(CO.bytes());
    ASSERT_FALSE(Ref.empty());
    std::vector<DisassembledFunction> Fns = disassembleAll(*L.Contexts[C], CO);
    EXPECT_EQ(Fns.size(), CO.kernels().size() + CO.functions().size());
    for (const DisassembledFunction &F : Fns) {
      SCOPED_TRACE(F.Name);
      ASSERT_FALSE(F.Instructions.empty());
      uint64_t End = F.Address + F.Size;
      size_t RefCount =
          std::distance(Ref.lower_bound(F.Address), Ref.lower_bound(End));
      EXPECT_EQ(F.Instructions.size(), RefCount);
      uint64_t Expect = F.Address;
      for (const Instruction &I : F.Instructions) {
        EXPECT_EQ(I.Address, Expect);
        Expect = I.endAddress();
        auto It = Ref.find(I.Address);
        ASSERT_NE(It, Ref.end())
            << "no objdump line at 0x" << utohexstr(I.Address);
        EXPECT_EQ(I.Text, It->second) << "at 0x" << utohexstr(I.Address);
        EXPECT_TRUE(I.Valid) << I.Text;
        EXPECT_FALSE(I.OpcodeName.empty());
      }
      EXPECT_EQ(Expect, End);
      expectWellFormedBlocks(F);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, MatchesObjdump,
    testing::Values("gfx90a_v5_kernels.elf", "gfx90a_v4_kernels.elf",
                    "gfx942_v5_kernels.elf", "gfx90a_v5_xnack_off.elf",
                    "gfx90a_v6_kernels.elf", "xco_caller.elf", "xco_callee.elf",
                    "ocl_kernels.elf", "bundle_plain.hipfb", "hip_two_kernels"),
    [](const testing::TestParamInfo<const char *> &P) {
      std::string S = P.param;
      for (char &C : S)
        if (!isAlnum(C))
          C = '_';
      return S;
    });

//===----------------------------------------------------------------------===//
// Facts of the fixture sources
//===----------------------------------------------------------------------===//

struct OneObject {
  Loaded L;
  std::unique_ptr<Disassembler> D;
  const codeobj::CodeObject *CO = nullptr;

  explicit OneObject(const std::string &Name) : L(load(fixture(Name))) {
    if (L.In.CodeObjects.size() != 1) {
      ADD_FAILURE() << Name << ": expected one code object";
      return;
    }
    CO = L.In.CodeObjects[0].Object.get();
    D = std::make_unique<Disassembler>(*L.Contexts[0], *CO);
  }

  DisassembledFunction get(StringRef Name) {
    if (!D)
      return {};
    Expected<DisassembledFunction> F = D->disassemble(Name);
    if (!F) {
      ADD_FAILURE() << toString(F.takeError());
      return {};
    }
    return std::move(*F);
  }
};

std::vector<const Instruction *> withFlow(const DisassembledFunction &F,
                                          ControlFlow Flow) {
  std::vector<const Instruction *> Out;
  for (const Instruction &I : F.Instructions)
    if (I.Flow == Flow)
      Out.push_back(&I);
  return Out;
}

TEST(Disassembler, LoopHasABackEdgeAndBlocksSplitAtBranches) {
  for (const char *Name : {"gfx90a_v5_kernels.elf", "gfx942_v5_kernels.elf"}) {
    SCOPED_TRACE(Name);
    OneObject O(Name);
    // helper_sum: for (i = 0; i < n; ++i) s += p[i];
    DisassembledFunction F = O.get("helper_sum");
    ASSERT_FALSE(F.Instructions.empty());
    EXPECT_EQ(F.Kind, FunctionKind::Function);
    EXPECT_GE(F.Blocks.size(), 3u);
    bool BackEdge = false;
    for (size_t BI = 0; BI != F.Blocks.size(); ++BI)
      for (size_t S : F.Blocks[BI].Successors)
        if (S <= BI) {
          BackEdge = true;
          // The loop header is reached from before the loop and from its
          // own latch.
          EXPECT_GE(F.Blocks[S].Predecessors.size(), 2u);
          const BasicBlock &Latch = F.Blocks[BI];
          const Instruction &Last = F.Instructions[Latch.FirstInstruction +
                                                   Latch.NumInstructions - 1];
          EXPECT_EQ(Last.Flow, ControlFlow::CondBranch) << Last.Text;
          ASSERT_TRUE(Last.Target);
          EXPECT_EQ(*Last.Target, F.Blocks[S].Address);
          EXPECT_EQ(Last.Source, TargetSource::Immediate);
          EXPECT_EQ(Last.TargetName,
                    "helper_sum+0x" + utohexstr(*Last.Target - F.Address,
                                                /*LowerCase=*/true));
        }
    EXPECT_TRUE(BackEdge);
    // A device function ends by returning through s[30:31].
    EXPECT_EQ(F.Instructions.back().Flow, ControlFlow::Return);
    EXPECT_EQ(F.Instructions.back().Text, "s_setpc_b64 s[30:31]");

    // scale_add: if (i < n) ... : the entry block branches around the body.
    DisassembledFunction K = O.get("scale_add");
    EXPECT_EQ(K.Kind, FunctionKind::Kernel);
    ASSERT_GE(K.Blocks.size(), 2u);
    EXPECT_EQ(K.Blocks[0].Successors.size(), 2u);
    EXPECT_EQ(K.Instructions.back().Flow, ControlFlow::EndProgram);
    EXPECT_EQ(K.Blocks[0].Predecessors.size(), 0u);
  }
}

TEST(Disassembler, CallsAreSymbolizedAsTheirCallees) {
  for (const char *Name : {"gfx90a_v5_kernels.elf", "gfx90a_v4_kernels.elf",
                           "gfx942_v5_kernels.elf"}) {
    SCOPED_TRACE(Name);
    OneObject O(Name);
    ASSERT_NE(O.CO, nullptr);
    // call_chain calls helper_mul, helper_sum and helper_fib.
    DisassembledFunction F = O.get("call_chain");
    std::set<std::string> Callees;
    for (const Instruction *I : withFlow(F, ControlFlow::Call)) {
      Callees.insert(I->TargetName);
      ASSERT_TRUE(I->Target) << I->Text;
      const codeobj::Function *Callee = O.CO->findFunction(I->TargetName);
      ASSERT_NE(Callee, nullptr) << I->TargetName;
      EXPECT_EQ(*I->Target, Callee->Sym.Address);
      EXPECT_EQ(I->Source, TargetSource::PcRelative);
      EXPECT_TRUE(StringRef(I->Text).starts_with("s_swappc_b64 s[30:31], "))
          << I->Text;
    }
    EXPECT_EQ(Callees, (std::set<std::string>{"helper_mul", "helper_sum",
                                              "helper_fib"}));

    // helper_fib calls itself.
    DisassembledFunction Fib = O.get("helper_fib");
    std::vector<const Instruction *> Calls = withFlow(Fib, ControlFlow::Call);
    ASSERT_FALSE(Calls.empty());
    for (const Instruction *I : Calls)
      EXPECT_EQ(I->TargetName, "helper_fib");

    // scale_add reads the globals gscale and table through PC-relative
    // addresses.
    DisassembledFunction K = O.get("scale_add");
    Disassembler &D = *O.D;
    std::set<std::string> Globals;
    for (const Instruction &I : K.Instructions)
      if (I.ComputedAddress)
        Globals.insert(D.symbolize(*I.ComputedAddress));
    EXPECT_TRUE(Globals.count("gscale")) << llvm::join(Globals, ", ");
    EXPECT_TRUE(Globals.count("table")) << llvm::join(Globals, ", ");
  }
}

TEST(Disassembler, CrossCodeObjectCallGoesThroughTheGot) {
  // xco_caller leaves xco_shared_add undefined: the target is the symbol its
  // GOT entry's relocation names, with no address in this code object.
  {
    OneObject O("xco_caller.elf");
    DisassembledFunction F = O.get("xco_caller");
    std::vector<const Instruction *> Calls = withFlow(F, ControlFlow::Call);
    ASSERT_EQ(Calls.size(), 1u);
    EXPECT_EQ(Calls[0]->TargetName, "xco_shared_add");
    EXPECT_EQ(Calls[0]->Source, TargetSource::Got);
    EXPECT_FALSE(Calls[0]->Target);
  }
  // xco_callee defines the preemptible xco_shared_add and calls it through
  // its own GOT entry: the relocation resolves to the local definition.
  {
    OneObject O("xco_callee.elf");
    ASSERT_NE(O.CO, nullptr);
    DisassembledFunction F = O.get("xco_callee_kernel");
    std::vector<const Instruction *> Calls = withFlow(F, ControlFlow::Call);
    ASSERT_EQ(Calls.size(), 1u);
    EXPECT_EQ(Calls[0]->TargetName, "xco_shared_add");
    const codeobj::Function *Callee = O.CO->findFunction("xco_shared_add");
    ASSERT_NE(Callee, nullptr);
    ASSERT_TRUE(Calls[0]->Target);
    EXPECT_EQ(*Calls[0]->Target, Callee->Sym.Address);
  }
}

TEST(Disassembler, UnknownNameIsAnError) {
  OneObject O("gfx90a_v5_kernels.elf");
  ASSERT_TRUE(O.D);
  Expected<DisassembledFunction> F = O.D->disassemble("no_such_function");
  ASSERT_FALSE(F);
  EXPECT_NE(toString(F.takeError()).find("no_such_function"),
            std::string::npos);
}

TEST(Disassembler, WrongTargetContextIsAnError) {
  OneObject O("gfx90a_v5_kernels.elf");
  ASSERT_NE(O.CO, nullptr);
  std::unique_ptr<McContext> MC = cantFail(McContext::create("gfx942"));
  Disassembler D(*MC, *O.CO);
  Expected<DisassembledFunction> F = D.disassemble("scale_add");
  ASSERT_FALSE(F);
  EXPECT_NE(toString(F.takeError()).find("gfx90a"), std::string::npos);
}

//===----------------------------------------------------------------------===//
// Bytes that decode to nothing
//===----------------------------------------------------------------------===//

TEST(Disassembler, UndecodableBytesBecomeDataAndDecodingGoesOn) {
  // tests/isa/undecodable.s
  std::unique_ptr<McContext> MC = cantFail(McContext::create("gfx90a"));
  const uint8_t Bytes[] = {
      0x00, 0x00, 0x80, 0xbf, // s_nop 0
      0xef, 0xbe, 0xad, 0xde, // .long 0xdeadbeef
      0xff, 0xff, 0xff, 0xff, // .long 0xffffffff
      0x01, 0x00, 0x84, 0xbf, // s_cbranch_scc0 1
      0x01, 0x00, 0x80, 0xbf, // s_nop 1
      0x1e, 0x1d, 0x80, 0xbe, // s_setpc_b64 s[30:31]
      0x01, 0x02,             // .byte 0x01, 0x02
  };
  std::vector<Instruction> Insts = decodeInstructions(*MC, Bytes, 0x1000);
  std::vector<std::string> Texts;
  std::vector<bool> Valid;
  for (const Instruction &I : Insts) {
    Texts.push_back(I.Text);
    Valid.push_back(I.Valid);
  }
  EXPECT_EQ(Texts, (std::vector<std::string>{
                       "s_nop 0", ".long 0xdeadbeef", ".long 0xffffffff",
                       "s_cbranch_scc0 1", "s_nop 1", "s_setpc_b64 s[30:31]",
                       ".byte 0x01, 0x02"}));
  EXPECT_EQ(Valid,
            (std::vector<bool>{true, false, false, true, true, true, false}));
  ASSERT_EQ(Insts.size(), 7u);
  EXPECT_EQ(Insts[6].size(), 2u);
  EXPECT_EQ(Insts[3].Flow, ControlFlow::CondBranch);
  ASSERT_TRUE(Insts[3].Target);
  EXPECT_EQ(*Insts[3].Target, 0x1014u);

  std::vector<BasicBlock> Blocks = buildBasicBlocks(Insts);
  std::vector<uint64_t> Starts;
  for (const BasicBlock &B : Blocks)
    Starts.push_back(B.Address);
  // Entry; after the conditional branch; its target; after s_setpc_b64.
  EXPECT_EQ(Starts, (std::vector<uint64_t>{0x1000, 0x1010, 0x1014, 0x1018}));
}

TEST(Disassembler, BytesThatCrashLlvmBecomeData) {
  enableCrashRecovery();
  std::unique_ptr<McContext> MC = cantFail(McContext::create("gfx90a"));
  // llvm-objdump-22 and llvm-mc-22 die on both: the printer on an SDWA
  // word with reserved sel values, the decoder on an MTBUF word.
  const uint8_t Bytes[] = {
      0xf9, 0xfc, 0x63, 0x07, 0xf1, 0x1c, 0xf4, 0x27, // SDWA, sel 7
      0x8c, 0xe7, 0xda, 0xe9, 0xa8, 0x11, 0x4f, 0xff, // MTBUF
      0x00, 0x00, 0x81, 0xbf,                         // s_endpgm
  };
  std::vector<Instruction> Insts = decodeInstructions(*MC, Bytes, 0);
  ASSERT_FALSE(Insts.empty());
  uint64_t Expect = 0;
  for (const Instruction &I : Insts) {
    EXPECT_EQ(I.Address, Expect);
    Expect = I.endAddress();
  }
  EXPECT_EQ(Expect, sizeof(Bytes));
  EXPECT_EQ(Insts.back().Text, "s_endpgm");
  EXPECT_EQ(Insts.back().Flow, ControlFlow::EndProgram);
}

TEST(Disassembler, RandomBytesNeverCrashAndAreFullyCovered) {
  // LLVM 22 itself crashes on some of these bytes.
  enableCrashRecovery();
  for (const char *CPU : {"gfx90a", "gfx942"}) {
    SCOPED_TRACE(CPU);
    std::unique_ptr<McContext> MC = cantFail(McContext::create(CPU));
    std::vector<uint8_t> Bytes(64 * 1024 + 3);
    uint64_t X = 0x9e3779b97f4a7c15ull; // xorshift: the same bytes every run
    for (uint8_t &B : Bytes) {
      X ^= X << 13, X ^= X >> 7, X ^= X << 17;
      B = static_cast<uint8_t>(X);
    }
    std::vector<Instruction> Insts = decodeInstructions(*MC, Bytes, 0x10000);
    uint64_t Expect = 0x10000;
    size_t Valid = 0;
    for (const Instruction &I : Insts) {
      ASSERT_EQ(I.Address, Expect);
      ASSERT_GT(I.size(), 0u);
      ASSERT_FALSE(I.Text.empty());
      Expect = I.endAddress();
      Valid += I.Valid;
    }
    EXPECT_EQ(Expect, 0x10000 + Bytes.size());
    EXPECT_GT(Valid, 0u);
    std::vector<BasicBlock> Blocks = buildBasicBlocks(Insts);
    size_t Covered = 0;
    for (const BasicBlock &B : Blocks)
      Covered += B.NumInstructions;
    EXPECT_EQ(Covered, Insts.size());
  }
}

// The whole pipeline (register tracking, GOT lookups, blocks) on random code
// in a real code object's functions.
TEST(Disassembler, RandomCodeInRealFunctionsNeverCrashes) {
  enableCrashRecovery();
  Loaded L = load(fixture("gfx90a_v5_kernels.elf"));
  ASSERT_EQ(L.In.CodeObjects.size(), 1u);
  const codeobj::CodeObject &Orig = *L.In.CodeObjects[0].Object;
  std::vector<uint8_t> Bytes(Orig.bytes().begin(), Orig.bytes().end());
  uint64_t X = 0x2545f4914f6cdd1dull;
  auto Scramble = [&](const codeobj::SymbolInfo &S) {
    for (const codeobj::LoadSegment &Seg : Orig.loadSegments())
      if (S.Address >= Seg.VAddr &&
          S.Address + S.Size <= Seg.VAddr + Seg.FileSize)
        for (uint64_t K = 0; K != S.Size; ++K) {
          X ^= X << 13, X ^= X >> 7, X ^= X << 17;
          Bytes[Seg.FileOffset + (S.Address - Seg.VAddr) + K] =
              static_cast<uint8_t>(X);
        }
  };
  for (const codeobj::Kernel &K : Orig.kernels())
    Scramble(K.Code);
  for (const codeobj::Function &F : Orig.functions())
    Scramble(F.Sym);
  Expected<std::unique_ptr<codeobj::CodeObject>> CO =
      codeobj::CodeObject::create(Bytes, "scrambled");
  ASSERT_TRUE(bool(CO)) << toString(CO.takeError());
  std::vector<DisassembledFunction> Fns = disassembleAll(*L.Contexts[0], **CO);
  EXPECT_EQ(Fns.size(), Orig.kernels().size() + Orig.functions().size());
  for (const DisassembledFunction &F : Fns) {
    uint64_t Expect = F.Address;
    for (const Instruction &I : F.Instructions) {
      ASSERT_EQ(I.Address, Expect);
      Expect = I.endAddress();
    }
    EXPECT_EQ(Expect, F.Address + F.Size);
    expectWellFormedBlocks(F);
  }
}

TEST(Disassembler, UndecodableFunctionMatchesObjdump) {
  Expected<codeobj::Input> In = codeobj::readInputFile(LOOM_ISA_UNDECODABLE);
  if (!In)
    GTEST_SKIP() << "codeobj rejects the hand-written object: "
                 << toString(In.takeError());
  ASSERT_EQ(In->CodeObjects.size(), 1u);
  const codeobj::CodeObject &CO = *In->CodeObjects[0].Object;
  std::unique_ptr<McContext> MC = cantFail(McContext::create(CO.target()));
  Disassembler D(*MC, CO);
  Expected<DisassembledFunction> F = D.disassemble("undecodable");
  ASSERT_TRUE(bool(F)) << toString(F.takeError());
  std::map<uint64_t, std::string> Ref = objdumpTexts(CO.bytes());
  ASSERT_EQ(F->Instructions.size(), 7u);
  for (const Instruction &I : F->Instructions)
    EXPECT_EQ(I.Text, Ref[I.Address]) << "at 0x" << utohexstr(I.Address);
  EXPECT_EQ(F->Instructions[5].Flow, ControlFlow::Return);
}

} // namespace
