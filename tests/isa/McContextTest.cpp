//===- tests/isa/McContextTest.cpp - MC objects for one target ------------===//

#include "loom/isa/McContext.h"
#include "loom/codeobj/Input.h"
#include "loom/isa/Disassembler.h"

#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"

#include <gtest/gtest.h>

using namespace loom;
using namespace loom::isa;
using namespace llvm;

namespace {

/// Empty if \p E is success, else its message (consuming it either way).
std::string errorText(Error E) { return E ? toString(std::move(E)) : ""; }

TEST(McContext, KnownProcessors) {
  for (const char *CPU : {"gfx90a", "gfx942", "gfx908", "gfx1030"}) {
    Expected<std::unique_ptr<McContext>> MC = McContext::create(CPU);
    ASSERT_TRUE(bool(MC)) << CPU << ": " << toString(MC.takeError());
    EXPECT_EQ((*MC)->processor(), CPU);
    EXPECT_EQ((*MC)->subtargetInfo().getCPU(), CPU);
    EXPECT_GT((*MC)->instrInfo().getNumOpcodes(), 1000u);
  }
}

TEST(McContext, UnknownProcessorIsAnError) {
  Expected<std::unique_ptr<McContext>> MC = McContext::create("gfx9999");
  ASSERT_FALSE(bool(MC));
  EXPECT_EQ(toString(MC.takeError()), "unknown AMDGPU processor 'gfx9999'");

  codeobj::TargetId NoProcessor;
  Expected<std::unique_ptr<McContext>> MC2 = McContext::create(NoProcessor);
  ASSERT_FALSE(bool(MC2));
  EXPECT_EQ(toString(MC2.takeError()), "code object names no processor");
}

TEST(McContext, TargetIdFeatures) {
  codeobj::TargetId T;
  T.Processor = "gfx90a";
  EXPECT_EQ(featureString(T), "");
  T.Xnack = codeobj::FeatureSetting::On;
  T.Sramecc = codeobj::FeatureSetting::Off;
  EXPECT_EQ(featureString(T), "+xnack,-sramecc");
  T.Xnack = codeobj::FeatureSetting::Any;
  EXPECT_EQ(featureString(T), "-sramecc");

  T.Xnack = codeobj::FeatureSetting::On;
  std::unique_ptr<McContext> MC = cantFail(McContext::create(T));
  EXPECT_EQ(MC->features(), "+xnack,-sramecc");
  EXPECT_TRUE(MC->subtargetInfo().checkFeatures("+xnack,-sramecc"));
}

TEST(McContext, OpcodeNamesWithoutEncodingSuffix) {
  EXPECT_EQ(stripEncodingSuffix("S_ADD_U32_vi"), "S_ADD_U32");
  EXPECT_EQ(stripEncodingSuffix("V_ADD_F32_e32_vi"), "V_ADD_F32_e32");
  EXPECT_EQ(stripEncodingSuffix("S_GETPC_B64_gfx6_gfx7"), "S_GETPC_B64");
  EXPECT_EQ(stripEncodingSuffix("V_MOV_B32_e32_gfx10"), "V_MOV_B32_e32");
  EXPECT_EQ(stripEncodingSuffix("S_NOP"), "S_NOP");
}

TEST(McContext, DecodePrintEncodeOneInstruction) {
  std::unique_ptr<McContext> MC = cantFail(McContext::create("gfx90a"));
  // s_swappc_b64 s[30:31], s[4:5]
  const uint8_t Bytes[] = {0x04, 0x1e, 0x9e, 0xbe};
  MCInst Inst;
  McContext::DecodeResult R = MC->decode(Bytes, 0x1000, Inst);
  ASSERT_TRUE(R.Valid);
  EXPECT_EQ(R.Size, 4u);
  EXPECT_EQ(MC->opcodeName(Inst.getOpcode()), "S_SWAPPC_B64_vi");
  EXPECT_EQ(MC->opcodeBaseName(Inst.getOpcode()), "S_SWAPPC_B64");
  EXPECT_EQ(MC->print(Inst, 0x1000), "s_swappc_b64 s[30:31], s[4:5]");
  ASSERT_EQ(Inst.getNumOperands(), 2u);
  EXPECT_EQ(MC->sgprIndices(Inst.getOperand(0).getReg().id()),
            (SmallVector<unsigned, 4>{30, 31}));
  EXPECT_EQ(MC->sgprIndices(Inst.getOperand(1).getReg().id()),
            (SmallVector<unsigned, 4>{4, 5}));

  SmallVector<char, 8> Enc;
  ASSERT_EQ(errorText(MC->encode(Inst, Enc)), "");
  EXPECT_EQ(ArrayRef<char>(Enc),
            ArrayRef<char>(reinterpret_cast<const char *>(Bytes), 4));

  MCInst Bad;
  const uint8_t Garbage[] = {0xff, 0xff, 0xff, 0xff};
  R = MC->decode(Garbage, 0, Bad);
  EXPECT_FALSE(R.Valid);
  EXPECT_EQ(R.Size, 4u);
}

// What the instrumentation layer will rely on: decoding then encoding gives
// back the original bytes.
TEST(McContext, FixtureInstructionsReencodeToTheirBytes) {
  for (const char *Name : {"gfx90a_v5_kernels.elf", "gfx942_v5_kernels.elf"}) {
    SCOPED_TRACE(Name);
    Expected<codeobj::Input> In =
        codeobj::readInputFile(std::string(LOOM_FIXTURE_DIR) + "/" + Name);
    ASSERT_TRUE(bool(In)) << toString(In.takeError());
    const codeobj::CodeObject &CO = *In->CodeObjects.at(0).Object;
    std::unique_ptr<McContext> MC = cantFail(McContext::create(CO.target()));
    Disassembler D(*MC, CO);
    std::vector<DisassembledFunction> Fns = cantFail(D.disassembleAll());
    size_t Checked = 0;
    for (const DisassembledFunction &F : Fns)
      for (const Instruction &I : F.Instructions) {
        MCInst Inst;
        ASSERT_TRUE(MC->decode(I.Bytes, I.Address, Inst).Valid);
        SmallVector<char, 16> Enc;
        ASSERT_EQ(errorText(MC->encode(Inst, Enc)), "") << I.Text;
        EXPECT_EQ(ArrayRef<char>(Enc),
                  ArrayRef<char>(reinterpret_cast<const char *>(I.Bytes.data()),
                                 I.Bytes.size()))
            << I.Text;
        ++Checked;
      }
    EXPECT_GT(Checked, 50u);
  }
}

} // namespace
