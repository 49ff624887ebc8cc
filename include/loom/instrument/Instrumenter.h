//===- loom/instrument/Instrumenter.h - Hooks in, instrumented code out ---===//
//
// The code generator of the instrumentation (ARCHITECTURE decisions 9, 10
// and 12). A tool's requests (an InstrumentationPlan: hook calls at points of
// lifted functions) plus the hooks' LLVM bitcode go in; a new code object
// comes out, holding an instrumented copy of each requested kernel and of
// the device functions they call, ready to be loaded as a separate
// executable next to the original one.
//
// How a point is compiled:
//   - every hook call at one point (in the order asked) becomes one LLVM
//     function whose arguments are the hook arguments; the hooks are inlined
//     into it and it is compiled by the AMDGPU backend (jit::compileModule);
//   - its machine code is lifted like any other function, so the registers
//     it clobbers are known exactly;
//   - it is spliced into the instrumented copy between a prologue that
//     saves what is live there and clobbered by it (SCC, VCC, EXEC and M0
//     included) into registers the kernel never uses, and moves the hook
//     arguments into place, and an epilogue that restores them.
//
// The original code is re-emitted instruction by instruction: its encodings
// are kept, branches are re-targeted through labels, and s_getpc_b64-
// relative addresses are rewritten (to the instrumented copy of a callee, or
// to the absolute address in the original executable of anything else, so
// the instrumented code shares the original's global variables). The tool's
// device globals are likewise referenced by their absolute addresses in the
// tool's own loaded executable.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_INSTRUMENT_INSTRUMENTER_H
#define LOOM_INSTRUMENT_INSTRUMENTER_H

#include "loom/instrument/BinaryContext.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace loom::instrument {

class Liveness;

/// Where a hook runs.
enum class HookPoint : uint8_t {
  Before,      ///< before an instruction
  After,       ///< after an instruction (not a branch, return or s_endpgm);
               ///< after a load, its value is in its registers
  BlockEntry,  ///< at a basic block's entry, whichever edge reaches it
  KernelEntry, ///< once, before the kernel's first instruction
  KernelExit,  ///< before each s_endpgm of the kernel
};
llvm::StringRef hookPointName(HookPoint P);

/// One argument of a hook call. Uniform values are 32 or 64 bits; Vgpr, Agpr
/// and MemoryAddress are per lane.
class HookArg {
public:
  enum class Kind : uint8_t {
    Constant,      ///< a value fixed at instrumentation time
    Sgpr,          ///< an SGPR's value (32 bits)
    Vgpr,          ///< a VGPR's value in the hook's lane (32 bits)
    Agpr,          ///< an AGPR's value in the hook's lane (32 bits)
    Exec,          ///< EXEC (64 bits)
    Vcc,           ///< VCC (64 bits)
    Scc,           ///< SCC, 0 or 1 (32 bits)
    M0,            ///< M0 (32 bits)
    Pc,            ///< the original instruction's address (64 bits)
    InstrOffset,   ///< its byte offset in its function (32 bits)
    InstrIndex,    ///< its index in its function (32 bits)
    MemoryAddress, ///< the lane's address of a global, flat or scratch
                   ///< access (64 bits), or of an LDS access (32 bits)
    MemoryBytes,   ///< bytes the instruction accesses per lane (32 bits)
    LaneId,        ///< the lane's index in its wave, 0-63 (32 bits)
    WaveId,        ///< the wave's index in its work-group (32 bits)
    WorkgroupId,   ///< the work-group's id in dimension value() (32 bits)
    DispatchId,    ///< the launch header's dispatch id (64 bits)
    WaveCounter,   ///< a WaveCounter's value in this wave (64 bits)
    GlobalAddress, ///< a tool global's device address plus an offset, a
                   ///< constant of the copy (64 bits)
  };

  static HookArg constant(uint32_t V) { return {Kind::Constant, V, 32}; }
  static HookArg constant64(uint64_t V) { return {Kind::Constant, V, 64}; }
  static HookArg sgpr(unsigned N) { return {Kind::Sgpr, N, 32}; }
  static HookArg vgpr(unsigned N) { return {Kind::Vgpr, N, 32}; }
  static HookArg agpr(unsigned N) { return {Kind::Agpr, N, 32}; }
  static HookArg exec() { return {Kind::Exec, 0, 64}; }
  static HookArg vcc() { return {Kind::Vcc, 0, 64}; }
  static HookArg scc() { return {Kind::Scc, 0, 32}; }
  static HookArg m0() { return {Kind::M0, 0, 32}; }
  static HookArg pc() { return {Kind::Pc, 0, 64}; }
  static HookArg instrOffset() { return {Kind::InstrOffset, 0, 32}; }
  static HookArg instrIndex() { return {Kind::InstrIndex, 0, 32}; }
  static HookArg memoryAddress() { return {Kind::MemoryAddress, 0, 64}; }
  /// The lane's address of memory instruction \p I's access, computed from
  /// its address registers as they are at the point (which may be after
  /// \p I: the caller sees to it that nothing in between wrote them). One
  /// point can so report several instructions' addresses.
  static HookArg memoryAddressOf(const BinaryInstruction &I) {
    HookArg A{Kind::MemoryAddress, 0, 64};
    A.Of = &I;
    return A;
  }
  /// memoryAddressOf(\p I) less the instruction's immediate offset, which
  /// the tool adds on the host (memoryBaseOffset): four to five
  /// instructions less at the point for a vector, LDS or scratch access
  /// with an offset. Scalar and buffer accesses keep theirs (their
  /// offset is 0 by memoryBaseOffset).
  static HookArg memoryBaseOf(const BinaryInstruction &I) {
    HookArg A = memoryAddressOf(I);
    A.WithoutOffset = true;
    return A;
  }
  static HookArg memoryBytes() { return {Kind::MemoryBytes, 0, 32}; }
  static HookArg laneId() { return {Kind::LaneId, 0, 32}; }
  static HookArg waveId() { return {Kind::WaveId, 0, 32}; }
  static HookArg workgroupId(unsigned Dim) {
    return {Kind::WorkgroupId, Dim, 32};
  }
  static HookArg dispatchId() { return {Kind::DispatchId, 0, 64}; }
  /// InstrumentationPlan::waveCounter \p N's value in this wave, as the
  /// point finds it (or as an earlier call of the point left it).
  static HookArg waveCounter(unsigned N) { return {Kind::WaveCounter, N, 64}; }
  /// The device address of the tool's global \p Global (LOOM_DEVICE in its
  /// hooks) plus \p Offset: a constant the copy knows, passed as two
  /// immediates like constant64 (the glue's two s_mov_b32), so that a hook
  /// addressing an element of an array needs no add of its own and points
  /// at different elements share their code.
  static HookArg globalAddress(llvm::StringRef Global, uint64_t Offset) {
    HookArg A{Kind::GlobalAddress, Offset, 64};
    A.Global = Global.str();
    return A;
  }

  Kind kind() const { return K; }
  /// The constant, or the register number.
  uint64_t value() const { return V; }
  /// 32 or 64 (MemoryAddress of an LDS access is passed as 64 bits too).
  unsigned bits() const { return Bits; }
  /// The instruction of memoryAddressOf, or null: the point's own.
  const BinaryInstruction *instruction() const { return Of; }
  /// memoryBaseOf: the address without the instruction's offset.
  bool withoutOffset() const { return WithoutOffset; }
  /// globalAddress: the global's name.
  llvm::StringRef global() const { return Global; }
  /// True if every lane gets the same value (passed in SGPRs).
  bool isUniform() const {
    return K != Kind::Vgpr && K != Kind::Agpr && K != Kind::MemoryAddress &&
           K != Kind::LaneId;
  }
  std::string str() const;

private:
  HookArg(Kind K, uint64_t V, unsigned Bits) : K(K), V(V), Bits(Bits) {}
  Kind K;
  uint64_t V;
  unsigned Bits;
  const BinaryInstruction *Of = nullptr;
  bool WithoutOffset = false;
  std::string Global;
};

/// The immediate offset HookArg::memoryBaseOf(\p I) leaves out of the
/// address (0 for scalar and buffer accesses, which keep theirs, and for
/// an instruction whose address hooks cannot have).
int64_t memoryBaseOffset(const BinaryInstruction &I, const InstrAnalyzer &A);
/// Memory instruction \p I's offset field, as the hardware reads it (a
/// buffer access's `offset:` without its soffset, a global or scratch
/// access's sign-extended): an LDS DMA load (`buffer_load_dword ... lds`,
/// `global_load_lds_dword`) writes LDS at M0 + this + 4 x lane. 0 for an
/// instruction whose address hooks cannot have.
int64_t instructionOffset(const BinaryInstruction &I, const InstrAnalyzer &A);

struct HookCall {
  /// A hook of one of the HookLibraries (its C name, LOOM_HOOK).
  std::string Hook;
  std::vector<HookArg> Args;
  /// If set, the hook returns a 32- or 64-bit value, stored into this
  /// WaveCounter of the wave: per-wave state kept in registers from point
  /// to point (a trace buffer's cursor, a running maximum).
  std::optional<unsigned> Result;
};

/// A per-wave 64-bit counter, in the spirit of Neutrino's counting probes:
/// the instrumented kernel keeps it in two SGPRs of its own, zero when the
/// wave starts; CounterAdd requests add to it with two or three scalar
/// instructions, no memory; at each of the kernel's exits (s_endpgm) the
/// wave adds it to the 64-bit word at byte Offset of the tool global
/// Global (LOOM_DEVICE in the tool's hooks), one scalar atomic per counter,
/// unless Global is empty. Hooks read it (HookArg::waveCounter) and may set
/// it (HookCall::Result).
///
/// A counter marked OncePerWave is the tool's promise that a wave adds to it
/// at most once (its adds sit where a wave passes at most once, such as a
/// kernel's blocks outside loops), each add with Amount 1: the copy then
/// keeps it in a lane of a pair of VGPRs reserved for the wave's life (one
/// v_writelane an add, two with lanes, whatever EXEC is; no SGPR, SCC
/// untouched) and, before each s_endpgm, adds every such counter to its
/// word with one global_atomic_add_x2 per run of consecutive 8-byte words
/// (instrument/WaveRecords.h). It needs a Global, is never read by hooks,
/// and needs two VGPRs per 64 the original code leaves
/// (KernelInstrumentation::spareVgprs), or the copy fails to build.
///
/// A counter marked Narrow is the tool's promise that the wave's total
/// fits 32 bits (a loop's iterations in one wave): its adds are one
/// s_add_u32 to the low SGPR, the high one staying 0 for the flush (one
/// instruction an add instead of two). Not with OncePerWave.
///
/// A counter with Product takes no adds: at the flush its word gets the
/// product of the two narrow counters named (a loop's runs times the lanes
/// EXEC had where the loop was entered, CounterAdd::Set), two scalar
/// instructions, and it is never zeroed. SGPR counters only.
struct WaveCounter {
  std::string Global;
  uint64_t Offset = 0;
  bool OncePerWave = false;
  bool Narrow = false;
  std::optional<std::pair<unsigned, unsigned>> Product;
  /// Not zeroed when the wave starts: the tool's promise that it is set
  /// (CounterAdd::Set) before it is read, or read only in a product whose
  /// other factor is still 0 (a loop's lanes at its entry, times its runs).
  bool NoZero = false;
  /// Kept per lane, in a VGPR pair of its own (the high VGPR 0): an add,
  /// of Amount times the lanes (PerLane: the only kind it takes), is one
  /// `v_add_u32 vC, Amount, vC`, each active lane adding Amount, no SGPR,
  /// no SCC; before each s_endpgm one global_atomic_add_x2 of every lane
  /// adds them to the word. A lane's total must fit 32 bits. Needs a
  /// Global and two VGPRs (KernelInstrumentation::spareVgprs); never read
  /// by hooks.
  bool InVgpr = false;
};

/// Two narrow counters for a fold (CounterAdd::Since): Tally, added to
/// where something runs, and Mark, Tally's value at the last fold (a
/// counter with no Global: state only, one SGPR).
struct CounterFold {
  unsigned Tally = 0, Mark = 0;
};

/// Adds Amount, times EXEC's active lanes if PerLane, to a WaveCounter.
/// With Since, a fold: adds what Since.Tally gained since the last fold
/// instead of Amount (times the lanes if PerLane) and sets Since.Mark to
/// Since.Tally; seven scalar instructions (a tally's runs times the lanes
/// at the fold: a loop's lanes, counted at its exits where EXEC is the
/// same in every iteration). SGPR counters only: the copy fails to build
/// where they fall back to lanes of a VGPR.
///
/// With Set, the counter (a narrow one of no Global) is set to Amount, or
/// to EXEC's active lanes if PerLane, instead of added to: one scalar
/// instruction.
struct CounterAdd {
  unsigned Counter = 0; ///< InstrumentationPlan::waveCounter's number
  uint32_t Amount = 1;
  bool PerLane = false;
  std::optional<CounterFold> Since;
  bool Set = false;
};

struct HookRequest {
  std::string Function; ///< symbol of the kernel or device function
  HookPoint Point = HookPoint::Before;
  /// Before/After: the instruction's address; BlockEntry: the block's
  /// address (ELF virtual address in the code object). Unused for
  /// KernelEntry/KernelExit.
  uint64_t Address = 0;
  HookCall Call;
  /// Set for an add to a counter instead of a hook call (Before, After,
  /// BlockEntry). A point's adds run before its hook calls.
  std::optional<CounterAdd> Add;
  /// Before only, hook calls only: the call runs only on waves whose EXEC
  /// differs from the SGPR pair s[N:N+1] there (where the pair holds what
  /// an s_and_saveexec saved, the waves that lost lanes to it: a rare path,
  /// two scalar instructions on the common one). The test clobbers SCC,
  /// which must be dead there, or the copy fails. Such calls at one
  /// instruction form a point of their own, with one pair. ExecNonZero
  /// instead of a pair: only on waves whose EXEC is empty there (one
  /// s_cbranch_execnz on the others; SCC untouched).
  std::optional<unsigned> UnlessExecIs;
  static constexpr unsigned ExecNonZero = ~0u;
  /// With UnlessExecIs a pair: the tool's promise that the pair is never 0
  /// there. Where the instruction is an s_cbranch_execz (which a wave whose
  /// EXEC is the pair then never takes) and no other call or add is at it,
  /// the guard's s_cbranch_scc1 skips the branch too: one instruction more
  /// a wave on the common path instead of two.
  bool PairNeverZero = false;

  /// A call of \p Hook with \p Args at \p Point of \p Function (at
  /// \p Address), its result stored into wave counter \p Result if set.
  static HookRequest call(std::string Function, HookPoint Point,
                          uint64_t Address, std::string Hook,
                          std::vector<HookArg> Args,
                          std::optional<unsigned> Result = std::nullopt) {
    HookRequest R;
    R.Function = std::move(Function);
    R.Point = Point;
    R.Address = Address;
    R.Call.Hook = std::move(Hook);
    R.Call.Args = std::move(Args);
    R.Call.Result = Result;
    return R;
  }
  /// An add \p A to a wave counter at \p Point of \p Function.
  static HookRequest count(std::string Function, HookPoint Point,
                           uint64_t Address, CounterAdd A) {
    HookRequest R;
    R.Function = std::move(Function);
    R.Point = Point;
    R.Address = Address;
    R.Add = A;
    return R;
  }
};

/// What a tool asks for, for one code object. Requests are checked as they
/// are added, against the lifted functions of \p BC.
class InstrumentationPlan {
public:
  explicit InstrumentationPlan(const BinaryContext &BC) : BC(BC) {}

  llvm::Error before(const BinaryFunction &F, const BinaryInstruction &I,
                     llvm::StringRef Hook, std::vector<HookArg> Args = {});
  llvm::Error after(const BinaryFunction &F, const BinaryInstruction &I,
                    llvm::StringRef Hook, std::vector<HookArg> Args = {});
  llvm::Error atBlockEntry(const BinaryFunction &F, const BinaryBasicBlock &B,
                           llvm::StringRef Hook,
                           std::vector<HookArg> Args = {});
  llvm::Error atKernelEntry(const BinaryFunction &Kernel, llvm::StringRef Hook,
                            std::vector<HookArg> Args = {});
  llvm::Error atKernelExit(const BinaryFunction &Kernel, llvm::StringRef Hook,
                           std::vector<HookArg> Args = {});
  /// before(), the call running only where EXEC differs from s[Pair:Pair+1]
  /// (HookRequest::UnlessExecIs).
  /// \p PairNeverZero: HookRequest::PairNeverZero.
  llvm::Error beforeUnlessExecIs(const BinaryFunction &F,
                                 const BinaryInstruction &I, unsigned Pair,
                                 llvm::StringRef Hook,
                                 std::vector<HookArg> Args = {},
                                 bool PairNeverZero = false);
  /// The general form of the five above.
  llvm::Error add(HookRequest R);

  /// A new WaveCounter, its number. SGPRs are scarce: a kernel gets the
  /// counters that fit above its own registers (KernelInstrumentation::
  /// spareSgprs says how many), or its copy fails to build.
  unsigned waveCounter(llvm::StringRef Global, uint64_t Offset,
                       bool OncePerWave = false, bool Narrow = false) {
    Counters.push_back(
        {Global.str(), Offset, OncePerWave, Narrow, {}, false, false});
    return Counters.size() - 1;
  }
  /// A counter flushed as counter \p A times counter \p B (both narrow).
  unsigned productCounter(llvm::StringRef Global, uint64_t Offset, unsigned A,
                          unsigned B) {
    Counters.push_back(
        {Global.str(), Offset, false, false, std::make_pair(A, B), false,
         false});
    return Counters.size() - 1;
  }
  /// Adds to a counter at a point: before \p I or at \p B's entry.
  llvm::Error countBefore(const BinaryFunction &F, const BinaryInstruction &I,
                          CounterAdd A);
  llvm::Error countAtBlockEntry(const BinaryFunction &F,
                                const BinaryBasicBlock &B, CounterAdd A);
  llvm::ArrayRef<WaveCounter> counters() const { return Counters; }
  WaveCounter &counter(unsigned N) { return Counters[N]; }

  /// Kernels to copy even with no hook in them (so a dispatch of each can be
  /// redirected). If none is named, every kernel with a hook, or calling a
  /// function with one, is copied; if some are, those alone.
  void addKernel(llvm::StringRef Kernel) { Kernels.push_back(Kernel.str()); }

  const BinaryContext &context() const { return BC; }
  llvm::ArrayRef<HookRequest> requests() const { return Requests; }
  llvm::ArrayRef<std::string> kernels() const { return Kernels; }

private:
  const BinaryContext &BC;
  std::vector<HookRequest> Requests;
  std::vector<std::string> Kernels;
  std::vector<WaveCounter> Counters;
};

/// One tool's hooks for one target: LLVM bitcode (clang-22 output, or older
/// bitcode LLVM 22 reads), and where the tool's loaded executable put each
/// of its global variables.
struct HookLibrary {
  std::string Name; ///< the tool's, for messages
  llvm::StringRef Bitcode;
  llvm::StringMap<uint64_t> GlobalAddresses;
};

struct InstrumentOptions {
  /// Loaded address = ELF virtual address + LoadDelta, for the original
  /// code object (the base of its loaded code object).
  uint64_t LoadDelta = 0;
  /// Optimisation level the hooks are compiled at.
  unsigned OptLevel = 2;
  /// Threads the new shapes of point are compiled on at once (each
  /// compiled whole by one of them, as it would be alone); 0: one per
  /// core, or LOOM_COMPILE_THREADS.
  unsigned CompileThreads = 0;
  /// Appended to the names of the instrumented copies (kernel "k" becomes
  /// "k" + Suffix); distinct configurations of one code object use distinct
  /// suffixes so their executables never clash.
  std::string Suffix = ".loom";
  /// The liveness of the plan's context, where the caller has computed it
  /// already (a tool runtime, for its tools' KernelInstrumentation); null:
  /// computed here.
  const Liveness *Live = nullptr;
};

struct InstrumentedKernel {
  std::string Original; ///< kernel symbol in the original code object
  std::string Symbol;   ///< its instrumented copy's kernel symbol
  /// What a dispatch of the copy needs (the packet's fields are raised to
  /// at least these).
  uint32_t PrivateSegmentSize = 0;
  uint32_t GroupSegmentSize = 0;
  /// Bytes per lane the hooks' stack takes at the top of the private
  /// segment (0 if they need none): a dispatch gives the copy the
  /// packet's private_segment_size plus these, so that the original code
  /// keeps all it had (docs/instrument.md, "The hooks' stack").
  uint32_t StackSlotSize = 0;
  uint32_t KernargSize = 0; ///< the launch header included, if it needs one
  /// Whether its hooks read the launch header (loom/instrument/
  /// LaunchHeader.h): a dispatch must then pass a kernarg segment of
  /// KernargSize bytes, the original arguments followed, at
  /// LaunchHeaderOffset, by a filled LoomLaunchHeader, whose Tools[i] are
  /// those of the i-th HookLibrary given to instrumentCodeObject.
  bool UsesLaunchHeader = false;
  uint32_t LaunchHeaderOffset = 0;
};

struct InstrumentedCodeObject {
  std::vector<char> Elf; ///< a linked code object, for the HSA loader
  std::vector<InstrumentedKernel> Kernels;
  /// Functions left uninstrumented, each with the reason: a kernel that
  /// cannot be lifted soundly or whose points cannot be compiled runs its
  /// original code; the tool is told.
  std::vector<std::string> Warnings;
  /// Assembly the code object was assembled from (for `loom instrument
  /// --dump` and for errors).
  std::string Assembly;
  /// (address in Elf, original address) of every copied original
  /// instruction, by the first: faults and counters in instrumented code
  /// map back to the original code through it.
  std::vector<std::pair<uint64_t, uint64_t>> AddressMap;
  /// s_nop instructions inserted, and the wait states they give, where the
  /// hardware's software-managed hazards (loom/instrument/WaitStates.h)
  /// meet at the seams of inserted code.
  unsigned HazardNops = 0, HazardWaitStates = 0;

  const InstrumentedKernel *kernel(llvm::StringRef Original) const;
};

/// The code object a tool's hooks keep their data in: the global variables
/// of hook bitcode \p Bitcode alone, compiled for \p Processor. Loaded once
/// per agent, it is where the hooks' LOOM_DEVICE globals live
/// (HookLibrary::GlobalAddresses); the hooks' code goes into the
/// instrumented copies only.
llvm::Expected<std::vector<char>> compileHookGlobals(llvm::StringRef Bitcode,
                                                     llvm::StringRef Name,
                                                     llvm::StringRef Processor);

/// Instruments the code object \p BC lifted (its CFGs built) as \p Plan
/// asks. An error only if nothing usable comes out (bad hooks, a hook that
/// does not exist or takes other arguments, a link failure); a kernel that
/// cannot be instrumented is a warning and is left out of the result.
llvm::Expected<InstrumentedCodeObject>
instrumentCodeObject(const InstrumentationPlan &Plan,
                     llvm::ArrayRef<HookLibrary> Hooks,
                     const InstrumentOptions &Options);

} // namespace loom::instrument

#endif // LOOM_INSTRUMENT_INSTRUMENTER_H
