//===- emu/ops/ScalarControlOps.cpp - Program control, hardware registers -===//
//
// SOPP and the program-counter, call, hardware-register and GPR-indexing
// operations of SOP1/SOPC/SOPK.
//
// Hardware registers (s_getreg/s_setreg) are modelled as gfx9 defines them:
// MODE is Wave::Mode (the float helpers read it, so s_setreg really changes
// rounding and denormal handling); STATUS is assembled from the wave (SCC,
// EXECZ, VCCZ, ...; only SCC is writable); TRAPSTS is Wave::TrapSts; HW_ID
// places the wave on a virtual chip (see hwId); SH_MEM_BASES holds the
// apertures of Device.h. Writes to read-only registers are ignored.
//
// GPR indexing (s_set_gpr_idx_*) is architectural state only: MODE bit 27
// (GPR_IDX_EN) enables it, M0[7:0] is the index and M0[15:12] selects the
// operands (src0, src1, src2, dst) it applies to. Vector instructions honour
// it; these handlers only set it.
//
//===----------------------------------------------------------------------===//

#include "../Semantics.h"

#include <algorithm>
#include <string>

namespace loom::emu {
namespace {

// --- Program control (SOPP) -------------------------------------------------

void sEndpgm(Wave &W, const DecodedInst &) { W.State = WaveState::Ended; }
// Hints, performance and debug controls, cache invalidations: nothing to do
// for an emulator whose memory operations complete at once (so s_waitcnt
// never waits either).
void sNop(Wave &, const DecodedInst &) {}
void sBarrier(Wave &W, const DecodedInst &) {
  W.State = WaveState::AtBarrier;
  W.Yield = true;
}
void sSleep(Wave &W, const DecodedInst &) { W.Yield = true; }
void sBranch(Wave &W, const DecodedInst &I) { W.NextIndex = I.Target; }

template <bool (*Cond)(const Wave &)>
void sCbranch(Wave &W, const DecodedInst &I) {
  if (Cond(W))
    W.NextIndex = I.Target;
}
bool scc0(const Wave &W) { return !W.SCC; }
bool scc1(const Wave &W) { return W.SCC; }
bool vccz(const Wave &W) { return W.vcc() == 0; }
bool vccnz(const Wave &W) { return W.vcc() != 0; }
bool execz(const Wave &W) { return W.exec() == 0; }
bool execnz(const Wave &W) { return W.exec() != 0; }
// s_cbranch_cdbg*: no debugger ever sets the conditional-debug bits.
bool never(const Wave &) { return false; }

void sTrap(Wave &W, const DecodedInst &I) {
  raiseFault(W, DispatchStatus::Trap, 0, false,
             "s_trap " + std::to_string(I.Imm[0] & 0xff));
}
/// s_sethalt 1 and s_sendmsghalt stop the wave for good: nothing resumes
/// a halted wave without a debugger, so the dispatch ends with a trap.
void sSethalt(Wave &W, const DecodedInst &I) {
  if (I.Imm[0] & 1)
    raiseFault(W, DispatchStatus::Trap, 0, false,
               "s_sethalt: the wave halted itself");
}
void sSendmsghalt(Wave &W, const DecodedInst &I) {
  raiseFault(W, DispatchStatus::Trap, 0, false,
             "s_sendmsghalt " + std::to_string(I.Imm[0] & 0xffff) +
                 ": the wave halted itself");
}

// --- Program counter (SOP1, SOPK) --------------------------------------------

void sGetpcB64(Wave &W, const DecodedInst &I) {
  writeScalar64(W, I.Dst[0], I.nextAddress());
}
void sSetpcB64(Wave &W, const DecodedInst &I) {
  jumpTo(W, readScalar64(W, I.Src[0]));
}
void sSwappcB64(Wave &W, const DecodedInst &I) {
  uint64_t Target = readScalar64(W, I.Src[0]);
  writeScalar64(W, I.Dst[0], I.nextAddress());
  jumpTo(W, Target);
}
/// s_call_b64 sdst, label: sdst = address of the next instruction.
void sCallB64(Wave &W, const DecodedInst &I) {
  writeScalar64(W, I.Dst[0], I.nextAddress());
  W.NextIndex = I.Target;
}

// --- GPR indexing -----------------------------------------------------------

constexpr uint32_t M0GprIdxIndex = 0xffu, M0GprIdxMode = 0xfu << 12;

void setM0Bits(Wave &W, uint32_t Mask, uint32_t Bits) {
  W.S[SgprM0] = (W.S[SgprM0] & ~Mask) | (Bits & Mask);
}
/// s_set_gpr_idx_on ssrc, imask.
void sSetGprIdxOn(Wave &W, const DecodedInst &I) {
  setM0Bits(W, M0GprIdxIndex | M0GprIdxMode,
            readScalar32(W, I.Src[0]) | (uint32_t(I.Imm[0]) << 12));
  W.Mode |= ModeGprIdxEn;
}
void sSetGprIdxOff(Wave &W, const DecodedInst &) { W.Mode &= ~ModeGprIdxEn; }
void sSetGprIdxMode(Wave &W, const DecodedInst &I) {
  setM0Bits(W, M0GprIdxMode, uint32_t(I.Imm[0]) << 12);
}
void sSetGprIdxIdx(Wave &W, const DecodedInst &I) {
  setM0Bits(W, M0GprIdxIndex, readScalar32(W, I.Src[0]));
}

// --- Hardware registers -----------------------------------------------------

enum HwRegId : unsigned {
  HwMode = 1,
  HwStatus = 2,
  HwTrapSts = 3,
  HwHwId = 4,
  HwGprAlloc = 5,
  HwLdsAlloc = 6,
  HwIbSts = 7,
  HwShMemBases = 15,
  // 16-19: TBA/TMA, 0 (no trap handler).
  // 20-22 are gfx10's FLAT_SCR_LO/HI and XNACK_MASK; gfx9 has them as
  // SGPRs, which these read for code that asks.
  HwFlatScrLo = 20,
  HwFlatScrHi = 21,
  HwXnackMask = 22,
};

// STATUS bits (gfx9).
enum : uint32_t {
  StatusScc = 1u << 0,
  StatusSpiPrioShift = 1,
  StatusExecz = 1u << 9,
  StatusVccz = 1u << 10,
  StatusInTg = 1u << 11,
  StatusValid = 1u << 16,
};

/// Where a wave runs on the virtual chip, as HW_ID reports it: work-group G
/// on compute unit G % 16 of shader engine (G / 16) % 4, as thread-group
/// slot (G / 64) % 16; the group's wave N on SIMD N % 4, wave slot N / 4;
/// compute micro engine 1. Waves of one work-group share a CU, as they
/// share its LDS.
uint32_t hwId(const Wave &W) {
  uint64_t Group = W.WaveId / std::max(1u, W.D->WavesPerGroup);
  uint32_t N = W.WaveInGroup;
  return ((N / 4) & 0xf) |             // WAVE_ID  3:0
         ((N % 4) << 4) |              // SIMD_ID  5:4
         uint32_t(Group % 16) << 8 |   // CU_ID   11:8
         uint32_t(Group / 16 % 4) << 13 | // SE_ID 14:13
         uint32_t(Group / 64 % 16) << 16 | // TG_ID 19:16
         1u << 30;                     // ME_ID   31:30
}

uint32_t readHwReg(const Wave &W, unsigned Id) {
  const codeobj::KernelDescriptor &KD = W.D->KD;
  switch (Id) {
  case HwMode:
    return W.Mode;
  case HwStatus:
    return (W.SCC ? StatusScc : 0) |
           (KD.Rsrc1.Priority & 3) << StatusSpiPrioShift |
           (W.exec() == 0 ? StatusExecz : 0) |
           (W.vcc() == 0 ? StatusVccz : 0) |
           (W.D->WavesPerGroup > 1 ? StatusInTg : 0) | StatusValid;
  case HwTrapSts:
    return W.TrapSts;
  case HwHwId:
    return hwId(W);
  case HwGprAlloc:
    // VGPR_SIZE 13:8 (granules of 8 on gfx90a, as the descriptor's),
    // SGPR_SIZE 27:24 (granules of 16; the descriptor counts eights).
    return (KD.Rsrc1.GranulatedWorkitemVgprCount & 0x3f) << 8 |
           ((KD.Rsrc1.GranulatedWavefrontSgprCount / 2) & 0xf) << 24;
  case HwLdsAlloc:
    return ((W.LdsSize + 255) / 256 & 0x1ff) << 12; // LDS_SIZE, 64 dwords
  case HwIbSts:
    return 0; // nothing is ever outstanding
  case HwShMemBases:
    return uint32_t(SharedApertureBase >> 48) << 16 |
           uint32_t(PrivateApertureBase >> 48);
  case HwFlatScrLo:
    return W.S[SgprFlatScratchLo];
  case HwFlatScrHi:
    return W.S[SgprFlatScratchHi];
  case HwXnackMask:
    return W.S[SgprXnackMaskLo];
  default:
    return 0;
  }
}

void writeHwReg(Wave &W, unsigned Id, uint32_t Value, uint32_t Mask) {
  switch (Id) {
  case HwMode:
    W.Mode = (W.Mode & ~Mask) | (Value & Mask);
    break;
  case HwStatus:
    if (Mask & StatusScc)
      W.SCC = Value & StatusScc;
    break;
  case HwTrapSts:
    W.TrapSts = (W.TrapSts & ~Mask) | (Value & Mask);
    break;
  default:
    break; // read-only, or not modelled
  }
}

/// The hwreg(id, offset, size) operand: id 5:0, offset 10:6, size-1 15:11.
struct HwRegField {
  unsigned Id, Offset;
  uint32_t Mask; // of the field's bits, unshifted
  explicit HwRegField(int64_t Simm16)
      : Id(Simm16 & 0x3f), Offset((Simm16 >> 6) & 0x1f),
        Mask(uint32_t(~0ull >> (64 - (((Simm16 >> 11) & 0x1f) + 1)))) {}
};

void sGetregB32(Wave &W, const DecodedInst &I) {
  HwRegField F(I.Imm[0]);
  writeScalar32(W, I.Dst[0], (readHwReg(W, F.Id) >> F.Offset) & F.Mask);
}
/// s_setreg_b32 (value in Src[0], field in Imm[0]) and s_setreg_imm32_b32
/// (value in Imm[0], field in Imm[1]).
template <bool Imm32> void sSetreg(Wave &W, const DecodedInst &I) {
  HwRegField F(I.Imm[Imm32 ? 1 : 0]);
  uint32_t V = Imm32 ? uint32_t(I.Imm[0]) : readScalar32(W, I.Src[0]);
  writeHwReg(W, F.Id, V << F.Offset, F.Mask << F.Offset);
}

} // namespace

void registerScalarControlOps(HandlerTable &T) {
  // SOPP
  T.add("S_ENDPGM", sEndpgm, FlagEndsBlock);
  T.add("S_ENDPGM_SAVED", sEndpgm, FlagEndsBlock);
  T.add("S_ENDPGM_ORDERED_PS_DONE", sEndpgm, FlagEndsBlock);
  for (const char *Name :
       {"S_NOP", "S_WAITCNT", "S_SETPRIO", "S_SENDMSG", "S_ICACHE_INV",
        "S_INCPERFLEVEL", "S_DECPERFLEVEL", "S_SETKILL", "S_WAKEUP",
        "S_TTRACEDATA"})
    T.add(Name, sNop);
  T.add("S_BARRIER", sBarrier);
  T.add("S_SLEEP", sSleep);
  // Branches; LLVM also names each "..._pad_s_nop" (the same encoding).
  struct {
    const char *Name;
    Handler Fn;
  } Branches[] = {{"S_BRANCH", sBranch},
                  {"S_CBRANCH_SCC0", sCbranch<scc0>},
                  {"S_CBRANCH_SCC1", sCbranch<scc1>},
                  {"S_CBRANCH_VCCZ", sCbranch<vccz>},
                  {"S_CBRANCH_VCCNZ", sCbranch<vccnz>},
                  {"S_CBRANCH_EXECZ", sCbranch<execz>},
                  {"S_CBRANCH_EXECNZ", sCbranch<execnz>},
                  {"S_CBRANCH_CDBGSYS", sCbranch<never>},
                  {"S_CBRANCH_CDBGUSER", sCbranch<never>},
                  {"S_CBRANCH_CDBGSYS_OR_USER", sCbranch<never>},
                  {"S_CBRANCH_CDBGSYS_AND_USER", sCbranch<never>}};
  for (const auto &B : Branches) {
    T.add(B.Name, B.Fn, FlagEndsBlock);
    T.add(std::string(B.Name) + "_pad_s_nop", B.Fn, FlagEndsBlock);
  }
  T.add("S_TRAP", sTrap, FlagEndsBlock);
  T.add("S_SETHALT", sSethalt);
  T.add("S_SENDMSGHALT", sSendmsghalt);
  T.add("S_SET_GPR_IDX_OFF", sSetGprIdxOff);
  T.add("S_SET_GPR_IDX_MODE", sSetGprIdxMode);

  // SOP1, SOPC, SOPK
  T.add("S_GETPC_B64", sGetpcB64);
  T.add("S_SETPC_B64", sSetpcB64, FlagEndsBlock);
  T.add("S_SWAPPC_B64", sSwappcB64);
  T.add("S_CALL_B64", sCallB64);
  T.add("S_SET_GPR_IDX_IDX", sSetGprIdxIdx);
  T.add("S_SET_GPR_IDX_ON", sSetGprIdxOn);
  T.add("S_GETREG_B32", sGetregB32);
  T.add("S_SETREG_B32", sSetreg<false>);
  T.add("S_SETREG_IMM32_B32", sSetreg<true>);
}

} // namespace loom::emu
