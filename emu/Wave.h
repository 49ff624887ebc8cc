//===- emu/Wave.h - Architectural state of one wave64 ---------------------===//
//
// The state instruction handlers read and write: scalar operand space (SGPRs
// plus VCC, EXEC, M0, FLAT_SCRATCH at their hardware encodings), SCC, MODE,
// the unified 512-entry VGPR/AGPR file of gfx90a stored register-major so a
// register's 64 lanes are contiguous (vector loops vectorise), and the
// program counter as an index into the decoded code.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_EMU_WAVE_H
#define LOOM_EMU_WAVE_H

#include "Inst.h"

#include "loom/emu/Memory.h"

#include <atomic>
#include <cstdint>
#include <cstring>

namespace loom::emu {

class CodeRegion;
struct DispatchState;
struct Workgroup;
struct WorkerCounters;

inline constexpr unsigned WaveSize = 64;
inline constexpr unsigned MaxVgprs = 512; // ArchVGPRs + AGPRs, gfx90a

/// A word nobody sets: Wave::Preempt's target where no thief can ask.
inline const std::atomic<uint32_t> NeverAsked{0};

enum class WaveState : uint8_t { Running, AtBarrier, Ended, Faulted };

struct Wave {
  // --- Architectural state ---------------------------------------------
  alignas(64) uint32_t S[NumScalarSlots] = {};
  bool SCC = false;
  /// MODE hardware register (round and denorm modes, IEEE, DX10 clamp).
  uint32_t Mode = 0;
  uint32_t TrapSts = 0;
  /// First AGPR in the unified file, in registers.
  uint32_t AccumOffset = 256;
  /// [MaxVgprs][WaveSize], owned by the worker that runs the wave.
  uint32_t *V = nullptr;

  // --- Control -----------------------------------------------------------
  const CodeRegion *Region = nullptr;
  uint32_t Index = 0;     ///< current instruction in Region
  uint32_t NextIndex = 0; ///< set by handlers that branch
  WaveState State = WaveState::Running;
  /// Set by s_sleep and spin-wait detection: yield the rest of the slice.
  bool Yield = false;
  /// Spin-wait detection: memory read or written since the last taken
  /// backward branch, a mix of the addresses read (the first lane's of each
  /// load) then and in the iteration before, and how many iterations in a
  /// row only re-read the same addresses.
  bool LoadedMemory = false, StoredMemory = false;
  bool Spinning = false;
  /// The slice ended at a safe point inside it (Preempt).
  bool Preempted = false;
  uint8_t SpinCount = 0;
  uint64_t LoadedFrom = 0, LoadedBefore = 0;

  // --- Context -----------------------------------------------------------
  DispatchState *D = nullptr;
  Workgroup *WG = nullptr;
  uint8_t *Lds = nullptr;
  uint32_t LdsSize = 0;
  /// Host address of this wave's scratch (FLAT_SCRATCH after the prologue
  /// points here; see Scratch.h for the per-lane layout).
  uint64_t ScratchBase = 0;
  uint32_t ScratchBytesPerLane = 0;
  uint32_t WaveInGroup = 0;
  uint64_t WaveId = 0; ///< unique in the dispatch
  WorkerCounters *Counters = nullptr;
  /// Takeovers' safe point inside a slice (Takeover.h): the owner's request
  /// word, non-zero while a thief waits for this wave's group; the slice
  /// then ends at the next taken branch or trace. Only a one-wave group's
  /// wave points at one: where its slices end changes nothing it computes,
  /// as no other wave of its group runs in between.
  const std::atomic<uint32_t> *Preempt = &NeverAsked;
  /// Registered memory ranges this wave hit last (see rangeFor), and the
  /// serial of the dispatch they were looked up in: the next wave in this
  /// slot keeps them if it runs in the same dispatch.
  RangeCache Ranges;
  uint64_t RangesOf = 0;

  // --- Accessors -----------------------------------------------------------
  /// Notes a load from \p Addr for spin-wait detection.
  void noteLoad(uint64_t Addr) {
    LoadedMemory = true;
    LoadedFrom = (LoadedFrom ^ Addr) * 0x9e3779b97f4a7c15ull;
  }
  uint64_t read64(unsigned Idx) const {
    return uint64_t(S[Idx]) | (uint64_t(S[Idx + 1]) << 32);
  }
  void write64(unsigned Idx, uint64_t V64) {
    S[Idx] = uint32_t(V64);
    S[Idx + 1] = uint32_t(V64 >> 32);
  }
  uint64_t exec() const { return read64(SgprExecLo); }
  void setExec(uint64_t E) { write64(SgprExecLo, E); }
  uint64_t vcc() const { return read64(SgprVccLo); }
  void setVcc(uint64_t M) { write64(SgprVccLo, M); }
  uint32_t m0() const { return S[SgprM0]; }
  uint64_t flatScratch() const { return read64(SgprFlatScratchLo); }

  uint32_t *vgpr(unsigned Idx) { return V + size_t(Idx) * WaveSize; }
  const uint32_t *vgpr(unsigned Idx) const {
    return V + size_t(Idx) * WaveSize;
  }
  /// The unified-file index of operand \p Op's first register.
  unsigned vectorIndex(const Operand &Op) const {
    return Op.K == Operand::Agpr ? Op.Index + AccumOffset : Op.Index;
  }

  /// Address of the instruction being executed.
  uint64_t pc() const;
};

} // namespace loom::emu

#endif // LOOM_EMU_WAVE_H
