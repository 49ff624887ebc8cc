//===- InstrPropertiesTest.cpp - Properties of one instruction per family -===//
//
// The props function of lift_cases.s holds one instruction of each family;
// each one's registers, memory access and kind come from LLVM's MC tables
// and opcode names.
//
//===----------------------------------------------------------------------===//
#include "LiftTestUtil.h"

#include "loom/instrument/Instrumenter.h"

using namespace loom::instrument;
using namespace loom::instrument::test;

namespace {

class InstrProperties : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    Lifted = new std::optional<LiftedFile>(liftFile(LOOM_LIFT_CASES));
  }
  static void TearDownTestSuite() { delete Lifted; }

  /// The instruction of props whose text starts with \p Text.
  const loom::instrument::InstrProperties &props(llvm::StringRef Text) {
    static const loom::instrument::InstrProperties None;
    if (!*Lifted)
      return None;
    for (const BinaryBasicBlock &B : (*Lifted)->fn("props").blocks())
      for (const BinaryInstruction &I : B.Instructions)
        if (llvm::StringRef(I.Info.Text).starts_with(Text))
          return I.Props;
    ADD_FAILURE() << "no instruction " << Text.str();
    return None;
  }

  static std::optional<LiftedFile> *Lifted;
};
std::optional<LiftedFile> *InstrProperties::Lifted;

RegisterSet regs(std::initializer_list<unsigned> Sgprs,
                 std::initializer_list<unsigned> Vgprs = {}) {
  RegisterSet S;
  for (unsigned N : Sgprs)
    S.addSgprs(N);
  for (unsigned N : Vgprs)
    S.addVgprs(N);
  return S;
}

TEST_F(InstrProperties, Valu) {
  const auto &P = props("v_add_f32_e32 v1, v2, v3");
  EXPECT_TRUE(P.IsVector);
  EXPECT_EQ(P.Reads, regs({}, {2, 3}).addExec().add(SpecialReg::Mode));
  EXPECT_EQ(P.Writes, regs({}, {1}));
  EXPECT_FALSE(P.isMemory());
  EXPECT_EQ(P.Flow, loom::isa::ControlFlow::None);
}

TEST_F(InstrProperties, SaluWritesScc) {
  const auto &P = props("s_add_u32 s1, s2, s3");
  EXPECT_FALSE(P.IsVector);
  EXPECT_EQ(P.Reads, regs({2, 3}));
  EXPECT_EQ(P.Writes, regs({1}).add(SpecialReg::Scc));
}

TEST_F(InstrProperties, ScalarLoad) {
  const auto &P = props("s_load_dwordx2");
  EXPECT_FALSE(P.IsVector);
  EXPECT_EQ(P.Memory, MemoryKind::Scalar);
  EXPECT_EQ(P.Direction, MemoryDirection::Load);
  EXPECT_EQ(P.AccessBytes, 8u);
  EXPECT_EQ(P.Reads, regs({6, 7}));
  EXPECT_EQ(P.Writes, regs({4, 5}));
}

TEST_F(InstrProperties, GlobalLoadStoreAtomics) {
  const auto &Load = props("global_load_dword ");
  EXPECT_EQ(Load.Memory, MemoryKind::Global);
  EXPECT_EQ(Load.Direction, MemoryDirection::Load);
  EXPECT_EQ(Load.AccessBytes, 4u);
  EXPECT_EQ(Load.Writes, regs({}, {1}));
  EXPECT_EQ(Load.Reads, regs({}, {2, 3}).addExec());

  const auto &Store = props("global_store_dwordx4");
  EXPECT_EQ(Store.Direction, MemoryDirection::Store);
  EXPECT_EQ(Store.AccessBytes, 16u);
  EXPECT_TRUE(Store.Writes.empty());
  EXPECT_EQ(Store.Reads, regs({}, {2, 3, 4, 5, 6, 7}).addExec());

  const auto &Rtn = props("global_atomic_add v1");
  EXPECT_EQ(Rtn.Direction, MemoryDirection::Atomic);
  EXPECT_TRUE(Rtn.AtomicReturns);
  EXPECT_EQ(Rtn.AccessBytes, 4u);

  const auto &X2 = props("global_atomic_add_x2");
  EXPECT_EQ(X2.Direction, MemoryDirection::Atomic);
  EXPECT_FALSE(X2.AtomicReturns);
  EXPECT_EQ(X2.AccessBytes, 8u);
}

TEST_F(InstrProperties, FlatScratchLdsBuffer) {
  const auto &Flat = props("flat_load_dword");
  EXPECT_EQ(Flat.Memory, MemoryKind::Flat);
  EXPECT_TRUE(Flat.Reads.has(SpecialReg::FlatScratchLo));
  const auto &FlatShort = props("flat_store_short");
  EXPECT_EQ(FlatShort.Direction, MemoryDirection::Store);
  EXPECT_EQ(FlatShort.AccessBytes, 2u);

  const auto &Scratch = props("scratch_load_dword");
  EXPECT_EQ(Scratch.Memory, MemoryKind::Scratch);
  EXPECT_EQ(Scratch.AccessBytes, 4u);

  const auto &Read = props("ds_read_b32");
  EXPECT_EQ(Read.Memory, MemoryKind::Lds);
  EXPECT_EQ(Read.Direction, MemoryDirection::Load);
  EXPECT_EQ(Read.AccessBytes, 4u);
  const auto &Write2 = props("ds_write2_b32");
  EXPECT_EQ(Write2.Direction, MemoryDirection::Store);
  EXPECT_EQ(Write2.AccessBytes, 4u);
  EXPECT_EQ(Write2.AccessesPerLane, 2u);
  const auto &Add = props("ds_add_rtn_u32");
  EXPECT_EQ(Add.Direction, MemoryDirection::Atomic);
  EXPECT_TRUE(Add.AtomicReturns);

  const auto &BufLoad = props("buffer_load_dword");
  EXPECT_EQ(BufLoad.Memory, MemoryKind::Buffer);
  EXPECT_EQ(BufLoad.Direction, MemoryDirection::Load);
  EXPECT_TRUE(BufLoad.Reads.contains(regs({0, 1, 2, 3})));
  const auto &BufAtomic = props("buffer_atomic_add");
  EXPECT_EQ(BufAtomic.Direction, MemoryDirection::Atomic);
  EXPECT_TRUE(BufAtomic.AtomicReturns);
  const auto &BufByte = props("buffer_store_byte");
  EXPECT_EQ(BufByte.Direction, MemoryDirection::Store);
  EXPECT_EQ(BufByte.AccessBytes, 1u);
  // LDS DMA: a load of memory whose dwords go to LDS at M0 (MC marks it a
  // store as well; it has no data operand).
  for (auto [Text, Kind] :
       {std::pair("buffer_load_dword v5", MemoryKind::Buffer),
        std::pair("global_load_dword v[6:7]", MemoryKind::Global)}) {
    const auto &Dma = props(Text);
    EXPECT_EQ(Dma.Memory, Kind) << Text;
    EXPECT_EQ(Dma.Direction, MemoryDirection::Load) << Text;
    EXPECT_EQ(Dma.AccessBytes, 4u) << Text;
    EXPECT_TRUE(Dma.LdsDma) << Text;
    EXPECT_TRUE(Dma.Reads.has(SpecialReg::M0)) << Text;
  }
  EXPECT_FALSE(props("buffer_load_dword v1").LdsDma);
}

TEST_F(InstrProperties, SpecialRegisters) {
  const auto &Cmp = props("v_cmp_lt_f32_e32");
  EXPECT_EQ(Cmp.Writes, RegisterSet().addVcc());
  const auto &M0 = props("s_mov_b32 m0, s1");
  EXPECT_EQ(M0.Writes, RegisterSet().add(SpecialReg::M0));
  const auto &Save = props("s_and_saveexec_b64");
  EXPECT_TRUE(Save.writesExec());
  EXPECT_EQ(Save.Reads, RegisterSet().addExec().addVcc());
  EXPECT_EQ(Save.Writes,
            regs({8, 9}).addExec().add(SpecialReg::Scc));
  const auto &Mfma = props("v_mfma_f32_4x4x1f32");
  RegisterSet Acc;
  Acc.addAgprs(0, 4);
  EXPECT_EQ(Mfma.Writes, Acc);
  EXPECT_TRUE(Mfma.Reads.contains(Acc));
}

TEST_F(InstrProperties, PartialWritesAndCrossLaneReads) {
  const auto &WriteLane = props("v_writelane_b32");
  EXPECT_EQ(WriteLane.PartialWrites, regs({}, {1}));
  const auto &D16 = props("global_load_short_d16_hi");
  EXPECT_EQ(D16.PartialWrites, regs({}, {1}));
  EXPECT_EQ(D16.AccessBytes, 2u);
  const auto &ReadLane = props("v_readlane_b32");
  EXPECT_TRUE(ReadLane.ReadsOtherLanes);
  EXPECT_EQ(ReadLane.Writes, regs({2}));
  EXPECT_TRUE(props("v_add_f32_e32").PartialWrites.empty());
  // A 16-bit result may keep the register's other half; a 32-bit one
  // made from 16-bit sources does not.
  EXPECT_EQ(props("v_add_f16_e32").PartialWrites, regs({}, {1}));
  EXPECT_TRUE(props("v_cvt_f32_f16_e32").PartialWrites.empty());
}

TEST_F(InstrProperties, RegistersIndexedByM0) {
  RegisterSet From10, From20;
  From10.addVgprs(10, 246);
  From20.addSgprs(20, 108);
  const auto &Src = props("v_mov_b32_e32 v26, v10");
  EXPECT_TRUE(Src.Reads.contains(From10)) << Src.Reads.str();
  EXPECT_TRUE(Src.Reads.has(SpecialReg::M0));
  EXPECT_TRUE(Src.PartialWrites.empty());
  const auto &Dst = props("v_mov_b32_e32 v27, v11");
  EXPECT_EQ(Dst.PartialWrites, regs({}, {27}));
  EXPECT_FALSE(Dst.Reads.hasVgpr(12));
  const auto &Rel = props("s_movrels_b32");
  EXPECT_TRUE(Rel.Reads.contains(From20)) << Rel.Reads.str();
  EXPECT_TRUE(Rel.Reads.has(SpecialReg::M0));
}

TEST_F(InstrProperties, ControlBarrierWaitcnt) {
  EXPECT_TRUE(props("s_barrier").IsBarrier);
  EXPECT_TRUE(props("s_waitcnt").IsWaitcnt);
  EXPECT_FALSE(props("s_barrier").isMemory());
  EXPECT_TRUE(props("s_setpc_b64 s[30:31]").isReturn());
}

TEST(InstrPropertiesNames, AccessBytes) {
  EXPECT_EQ(accessBytesFromName("GLOBAL_LOAD_UBYTE"), 1u);
  EXPECT_EQ(accessBytesFromName("BUFFER_LOAD_DWORDX3"), 12u);
  EXPECT_EQ(accessBytesFromName("DS_READ2ST64_B64"), 8u);
  EXPECT_EQ(accessBytesFromName("FLAT_ATOMIC_CMPSWAP_X2"), 8u);
  EXPECT_EQ(accessBytesFromName("GLOBAL_ATOMIC_PK_ADD_F16"), 4u);
  EXPECT_EQ(accessBytesFromName("BUFFER_LOAD_FORMAT_XYZW"), 16u);
  EXPECT_EQ(accessBytesFromName("S_LOAD_DWORDX16"), 64u);
  EXPECT_EQ(accessBytesFromName("BUFFER_WBINVL1"), 0u);
}

/// \p Offset (memoryBaseOffset, instructionOffset) of each memory
/// instruction of lift_cases.s's base_offsets.
std::vector<int64_t> baseOffsetsBy(int64_t (*Offset)(const BinaryInstruction &,
                                                     const InstrAnalyzer &)) {
  std::optional<LiftedFile> L = liftFile(LOOM_LIFT_CASES);
  EXPECT_TRUE(L);
  std::vector<int64_t> Offsets;
  if (!L)
    return Offsets;
  const InstrAnalyzer &A = L->BC->analyzer();
  for (const BinaryBasicBlock &B : L->fn("base_offsets").blocks())
    for (const BinaryInstruction &I : B.Instructions)
      if (I.Props.isMemory())
        Offsets.push_back(Offset(I, A));
  return Offsets;
}

// The offset HookArg::memoryBaseOf leaves out, for the host to add: a
// vector, LDS or scratch access's immediate offset as the address takes
// it (scaled for ds_read2, 64 times more for its ST64 form); none for
// scalar and buffer accesses, which keep theirs.
TEST(MemoryBaseOffset, VectorLdsAndScratchOffsetsLeftOut) {
  EXPECT_EQ(baseOffsetsBy(memoryBaseOffset),
            (std::vector<int64_t>{256, -4, 16, -8, 12, 12, 256, 0, 0, 0, 0,
                                  -16}));
}

// instructionOffset: the offset field alone, as the hardware reads it (an
// LDS DMA load's LDS address is M0 + it + 4 x lane): unscaled for
// ds_read2, a buffer's without its soffset, sign-extended for global.
TEST(MemoryBaseOffset, InstructionOffsetIsTheField) {
  EXPECT_EQ(baseOffsetsBy(instructionOffset),
            (std::vector<int64_t>{256, -4, 16, -8, 12, 3, 1, 0, 16, 8, 12,
                                  -16}));
}

} // namespace
