//===- tools/mem_trace - Every memory access of every wave ----------------===//
//
// Before memory instructions, a hook sends one record per wave through
// the lossless channel: EXEC and each active lane's address, for up to
// four instructions whose addresses the point still has (MemTraceRecord.h).
// The host turns records into accesses as
// `loom exec --memory-trace` records them — flat accesses resolved to
// their segment by the apertures of the dispatch's queue, a ds_read2 or
// ds_write2 as its two accesses, a scalar access as one address — and
// writes them to a binary trace file (TraceFile.h) that `loom trace show`
// reads (docs/tools.md).
//
//   loom instrument --tool mem_trace [--tool-arg output=FILE]
//       [--tool-arg kernel=REGEX] [--tool-arg dispatch=N[-M]]
//       [--tool-arg capacity=CHUNKS] -- ./app
//
// Buffer accesses through the stack's resource (s[0:3]) are private
// offsets (space scratch), the others global addresses, both as the
// framework computes them from the V#. An LDS DMA load (buffer_load_dword
// ... lds, global_load_lds_dword) is two accesses, as the virtual GPU
// records it: the global read, then the LDS write at M0 + the
// instruction's offset + 4 x lane (its record carries M0).
//
//===----------------------------------------------------------------------===//

#include "MemTraceRecord.h"
#include "ToolOptions.h"
#include "TraceFile.h"

#include "loom/instrument/DispatchAbi.h"
#include "loom/instrument/LaunchHeader.h"
#include "loom/instrument/Tool.h"
#include "loom/isa/McContext.h"

#include "llvm/Support/raw_ostream.h"

#include <hsa/amd_hsa_queue.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <map>

using namespace llvm;
using namespace loom::instrument;
using namespace loom::tools;
using namespace loom::trace;

namespace {

/// The instruction kinds of the file, from the instruction's properties.
InstrKind instrKind(MemoryKind K) {
  switch (K) {
  case MemoryKind::Flat: return InstrKind::Flat;
  case MemoryKind::Scratch: return InstrKind::Scratch;
  case MemoryKind::Lds: return InstrKind::Lds;
  case MemoryKind::Scalar: return InstrKind::Scalar;
  case MemoryKind::Buffer: return InstrKind::Buffer;
  default: return InstrKind::Global;
  }
}

/// Whether \p I, named \p Name, in a kernel that has a stack, is a buffer
/// access of the stack: through
/// the private segment buffer, s[0:3] by the calling convention, in the
/// OFFEN or OFFSET form (how clang's code for gfx90a reaches the stack).
/// Its address, from the V# as the hardware forms it, is then the lane's
/// private offset: vaddr (OFFEN) + the instruction's offset, without
/// soffset, as the virtual GPU records it. Not where the hardware sets up
/// flat scratch (gfx94x): no private segment V# is passed there, and a
/// V# in s[0:3] is the program's own.
bool isStackBuffer(const BinaryInstruction &I, const InstrAnalyzer &A,
                   StringRef Name) {
  if (I.Props.Memory != MemoryKind::Buffer ||
      !(Name.ends_with("_OFFEN") || Name.ends_with("_OFFSET")) ||
      hasArchitectedFlatScratch(A.mc().processor()))
    return false;
  RegisterSet Private;
  Private.addSgprs(0, 4);
  for (const MCOperand &O : I.Inst)
    if (O.isReg() && A.unitsOf(O.getReg().id()) == Private)
      return true;
  return false;
}

/// Why \p Name's accesses cannot be traced, or "" if they can: hooks get
/// the address of every vector, LDS, scalar and buffer access
/// (HookArg::memoryAddressOf).
StringRef untraceable(const InstrProperties &P, StringRef Name) {
  if (!P.isMemory() || !P.AccessBytes)
    return "no memory access of a known size";
  switch (P.Memory) {
  case MemoryKind::Scalar:
    for (StringRef S : {"S_LOAD", "S_STORE", "S_ATOMIC", "S_BUFFER_"})
      if (Name.starts_with(S))
        return "";
    return "its address is not available to hooks";
  case MemoryKind::Lds:
    // No memory access (permutes), or no address operand.
    for (StringRef S : {"PERMUTE", "SWIZZLE", "GWS", "APPEND", "CONSUME",
                        "ORDERED", "ADDTID", "NOP"})
      if (Name.contains(S))
        return "no address operand";
    return "";
  default:
    if (P.LdsDma && P.AccessBytes != 4)
      return "an LDS DMA load of less than a dword";
    return "";
  }
}

/// How a record holds an instruction's addresses: 64 bits a lane, 32 bits
/// a lane (LDS and scratch offsets), or the one scalar address after the
/// header.
enum class Width : uint8_t { Wide, Narrow, Scalar };
Width widthOf(MemoryKind K) {
  if (K == MemoryKind::Scalar)
    return Width::Scalar;
  return K == MemoryKind::Lds || K == MemoryKind::Scratch ? Width::Narrow
                                                          : Width::Wide;
}

struct Site {
  TraceSite Info;
  /// ds_read2/ds_write2: the second access's offset from the first.
  std::optional<int64_t> Second;
  /// What the record's addresses lack: the instruction's immediate offset
  /// (HookArg::memoryBaseOf, the host adds it).
  int64_t Offset = 0;
  /// A buffer access of the stack: its addresses are private offsets.
  bool Stack = false;
  /// The instructions of a record that starts here (a record's header
  /// names its first site); 0 if none starts here.
  unsigned Group = 0;
  /// How a record holds its addresses.
  Width W = Width::Wide;
  /// An LDS DMA load's LDS write (the site after its global read's): the
  /// instruction's offset, which M0 (the record's scalar) and 4 x lane
  /// are added to.
  std::optional<int64_t> LdsDma;
};

struct DispatchInfo {
  uint32_t SharedHi = 0, PrivateHi = 0; // apertures' high halves
  uint32_t Grid[3] = {1, 1, 1};
  uint32_t WorkGroup[3] = {1, 1, 1};
  uint64_t NumGroups[2] = {1, 1};
  uint32_t WavesPerGroup = 1;
  uint32_t Index = 0; ///< the dispatch's, as the trace numbers it
  uint64_t Accesses = 0;

  /// The wave's index in the dispatch, as the virtual GPU numbers it (work-
  /// groups in flat order, each with room for a whole group's waves), from
  /// its work-group and its lane 0's packed work-item id.
  uint32_t wave(const MemTraceWave &H) const {
    uint32_t Size[2];
    for (int D = 0; D < 2; ++D) // smaller at the grid's edge
      Size[D] = std::min(WorkGroup[D], Grid[D] - H.Group[D] * WorkGroup[D]);
    uint32_t X = H.WorkItem & 1023, Y = (H.WorkItem >> 10) & 1023,
             Z = (H.WorkItem >> 20) & 1023;
    uint64_t Group =
        H.Group[0] + NumGroups[0] * (H.Group[1] + NumGroups[1] * H.Group[2]);
    return uint32_t(Group * WavesPerGroup +
                    (X + Size[0] * (Y + Size[1] * Z)) / 64);
  }
};

class MemTrace final : public Tool {
public:
  Error init(ToolContext &Ctx) override {
    Expected<ToolOptions> O = ToolOptions::parse(Ctx, "mem_trace");
    if (!O)
      return O.takeError();
    Options = std::move(*O);
    // Chunks of MEM_TRACE_CHUNK bytes: 128 MiB of address space, touched as
    // used. Waves at barriers publish part-filled chunks, and with fewer
    // of them barrier-heavy kernels spin waiting for room (lds_scan with
    // 256 64 KiB chunks: 105x the instructions against 11x; blockScan of
    // the realistic set with 2048: 735 M against 415 M with these).
    uint32_t Capacity = 8192;
    if (Error E = Ctx.numberOption("capacity", Capacity))
      return E;
    Path = Options.output().empty() ? "mem_trace.trace" : Options.output();
    if (Error E = Ctx.openChannel(
            {MEM_TRACE_CHUNK, Capacity, /*Lossy=*/false, /*WaveChunks=*/true}))
      return E;
    auto W = TraceWriter::create(Path);
    if (!W)
      return W.takeError();
    Writer = std::move(*W);
    return Error::success();
  }

  DispatchChoice dispatch(ToolContext &, const Dispatch &D) override {
    if (!Options.wants(D))
      return DispatchChoice::original();
    KernelObjects[D.Kernel] = D.KernelObject;
    DispatchInfo &I = Dispatches[D.Index];
    I.Index = uint32_t(D.Index);
    // The apertures a flat address is routed by, as the queue gives them
    // to the code (amd_queue_t starts with the hsa_queue_t).
    const auto *Q = reinterpret_cast<const amd_queue_t *>(D.Queue);
    I.SharedHi = Q->group_segment_aperture_base_hi;
    I.PrivateHi = Q->private_segment_aperture_base_hi;
    for (int Dim = 0; Dim < 3; ++Dim) {
      I.Grid[Dim] = D.Grid[Dim];
      I.WorkGroup[Dim] = D.WorkGroup[Dim];
    }
    for (int Dim = 0; Dim < 2; ++Dim)
      I.NumGroups[Dim] =
          (D.Grid[Dim] + D.WorkGroup[Dim] - 1) / D.WorkGroup[Dim];
    I.WavesPerGroup =
        (uint32_t(D.WorkGroup[0]) * D.WorkGroup[1] * D.WorkGroup[2] + 63) / 64;
    TraceDispatch T;
    T.Index = D.Index;
    std::copy(D.Grid, D.Grid + 3, T.Grid);
    std::copy(D.WorkGroup, D.WorkGroup + 3, T.WorkGroup);
    T.Kernel = D.Kernel;
    Writer->dispatch(T);
    return DispatchChoice::instrumented();
  }

  Error instrument(ToolContext &, KernelInstrumentation &K) override {
    const loom::codeobj::CodeObject &CO = K.context().codeObject();
    StringRef Kernel = K.kernel().name();
    // Loaded address = ELF address + the delta the kernel object shows.
    // A kernel with no stack may build a V# of its own in s[0:3] (clang
    // does); one with a stack keeps the private segment buffer there.
    uint64_t Delta = 0;
    bool HasStack = false;
    for (const loom::codeobj::Kernel &KD : CO.kernels())
      if (KD.name() == Kernel) {
        Delta = KernelObjects[Kernel.str()] - KD.Descriptor.Address;
        HasStack = KD.KD.PrivateSegmentFixedSize ||
                   KD.KD.Properties.UsesDynamicStack;
      }
    std::map<std::string, unsigned> Untraced;
    // The wave's place in its chunk, from point to point.
    Cursor = K.plan().waveCounter("", 0);
    for (BinaryFunction *F : K.functions())
      for (const BinaryBasicBlock &B : F->blocks())
        if (Error E = instrumentBlock(K, *F, B, Delta, HasStack, Untraced))
          return E;
    // The chunk is published at every exit, and before every barrier: a
    // wave waiting there with an unpublished chunk would keep the host
    // from the chunks claimed after it, and other waves from room.
    auto Flush = [&](const BinaryFunction &F, HookPoint P, uint64_t At) {
      return K.plan().add(HookRequest::call(F.name().str(), P, At,
                                            "mem_trace_flush",
                                            {HookArg::waveCounter(Cursor)},
                                            Cursor));
    };
    if (Error E = Flush(K.kernel(), HookPoint::KernelExit, 0))
      return E;
    for (BinaryFunction *F : K.functions())
      for (const BinaryBasicBlock &B : F->blocks())
        for (const BinaryInstruction &I : B.Instructions)
          if (I.Props.IsBarrier)
            if (Error E = Flush(*F, HookPoint::Before, I.address()))
              return E;
    for (const auto &[What, N] : Untraced)
      errs() << "mem_trace: " << Kernel << ": " << N << " instructions "
             << What << " not traced\n";
    return Error::success();
  }

  void channelRecords(ToolContext &, const Dispatch &D, const void *Records,
                      size_t Count) override {
    DispatchInfo &Info = Dispatches[D.Index];
    const char *Chunk = static_cast<const char *>(Records);
    for (size_t N = 0; N < Count; ++N, Chunk += MEM_TRACE_CHUNK)
      chunk(Info, Chunk);
  }

  void dispatchComplete(ToolContext &, const Dispatch &D) override {
    if (!D.Instrumented)
      return;
    ++Traced;
    errs() << "mem_trace: dispatch " << D.Index << " " << D.Kernel << ": "
           << Dispatches[D.Index].Accesses << " wave-accesses\n";
  }

  void fini(ToolContext &) override {
    uint64_t Accesses = Writer->accesses();
    if (Error E = Writer->close()) {
      errs() << "mem_trace: " << Path << ": " << toString(std::move(E))
             << "\n";
      return;
    }
    errs() << "mem_trace: " << Traced << " dispatches traced, " << Accesses
           << " wave-accesses (" << Lanes << " lane accesses, " << Bytes
           << " bytes) of " << Sites.size() << " instructions, trace in "
           << Path << "\n";
  }

private:
  /// The widths of the sites of \p I in a record: an LDS
  /// DMA load's global read and, as a scalar, the M0 of its LDS write.
  static std::vector<Width> siteWidths(const BinaryInstruction &I) {
    std::vector<Width> W{widthOf(I.Props.Memory)};
    if (I.Props.LdsDma)
      W.push_back(Width::Scalar);
    return W;
  }

  /// Whether a record of \p Group's sites may take \p I's: four of any
  /// widths (MemTraceHooks.hip), or up to eight vector ones of one.
  static bool hasRoom(ArrayRef<const BinaryInstruction *> Group,
                      const BinaryInstruction &I) {
    std::vector<Width> Widths = siteWidths(I);
    for (const BinaryInstruction *In : Group)
      append_range(Widths, siteWidths(*In));
    if (Widths.size() <= MEM_TRACE_GROUP)
      return true;
    if (Widths.size() > MEM_TRACE_GROUP_SAME)
      return false;
    Width W = Widths.front();
    return all_of(Widths, [&](Width X) { return X == W && X != Width::Scalar; });
  }

  /// The points of block \p B: traced instructions wait for a point, and
  /// one point, before the last of them, reports them all, as long as
  /// nothing between one and that point writes what it read (its address
  /// registers, EXEC) and no call runs other points in between (the wave's
  /// records would come out of order).
  Error instrumentBlock(KernelInstrumentation &K, const BinaryFunction &F,
                        const BinaryBasicBlock &B, uint64_t Delta,
                        bool HasStack,
                        std::map<std::string, unsigned> &Untraced) {
    const loom::isa::McContext &MC = K.context().mc();
    const InstrAnalyzer &A = K.context().analyzer();
    std::vector<const BinaryInstruction *> Group;
    RegisterSet GroupReads;
    auto Flush = [&]() -> Error {
      if (Group.empty())
        return Error::success();
      std::vector<HookArg> Args{HookArg::waveCounter(Cursor),
                                HookArg::constant(Sites.size())};
      size_t First = Sites.size();
      std::vector<HookArg> SiteArgs; // what each site's record holds
      for (const BinaryInstruction *I : Group) {
        addSite(F, *I, K.kernel().name(), Delta, MC);
        Site &S = Sites.back();
        S.Stack = HasStack && isStackBuffer(*I, A, S.Info.Opcode);
        S.Offset = memoryBaseOffset(*I, A);
        SiteArgs.push_back(HookArg::memoryBaseOf(*I));
        if (I->Props.LdsDma) {
          // Its LDS write: a site of its own after the read, M0 its scalar.
          Site Write = S;
          Write.Info.Id = Sites.size();
          Write.Info.Write = true;
          Write.Info.Bytes = I->Props.AccessBytes;
          Write.W = Width::Scalar;
          Write.Stack = false;
          Write.LdsDma = instructionOffset(*I, A);
          Writer->site(Write.Info);
          Sites.push_back(std::move(Write));
          SiteArgs.push_back(HookArg::m0());
        }
      }
      Sites[First].Group = Sites.size() - First;
      // The hook of the group's mix of kinds (MemTraceHooks.hip), its
      // addresses in that order: 64-bit lanes, 32-bit lanes, scalar.
      std::string Hook = "mem_trace_";
      for (Width W : {Width::Wide, Width::Narrow, Width::Scalar})
        for (size_t M = 0; M < SiteArgs.size(); ++M)
          if (Sites[First + M].W == W) {
            Args.push_back(SiteArgs[M]);
            Hook += "vls"[unsigned(W)];
          }
      Error E = K.plan().add(HookRequest::call(F.name().str(), HookPoint::Before,
                                               Group.back()->address(), Hook,
                                               std::move(Args), Cursor));
      Group.clear();
      GroupReads = RegisterSet();
      return E;
    };
    for (const BinaryInstruction &I : B.Instructions) {
      if (I.Props.isMemory()) {
        std::string Op = operationName(MC, I.Inst.getOpcode());
        StringRef Why = untraceable(I.Props, Op);
        if (!Why.empty()) {
          if (I.Props.AccessBytes)
            ++Untraced[Op + " (" + Why.str() + ")"];
        } else {
          if (!hasRoom(Group, I))
            if (Error E = Flush())
              return E;
          Group.push_back(&I);
          GroupReads |= I.Props.Reads;
        }
      }
      // What I does closes the group if later members could not report
      // the waiting ones' addresses.
      if (!Group.empty() &&
          (I.Props.Writes.intersects(GroupReads) || I.Props.writesExec() ||
           I.Props.isCall()))
        if (Error E = Flush())
          return E;
    }
    return Flush();
  }

  void addSite(const BinaryFunction &F, const BinaryInstruction &I,
               StringRef Kernel, uint64_t Delta,
               const loom::isa::McContext &MC) {
    Site S;
    S.Info.Id = Sites.size();
    S.Info.Pc = I.address() + Delta;
    S.Info.Offset = I.address() - F.address();
    S.Info.Kind = instrKind(I.Props.Memory);
    S.Info.Write = I.Props.Direction != MemoryDirection::Load;
    S.Info.Atomic = I.Props.Direction == MemoryDirection::Atomic;
    S.Info.Bytes = I.Props.AccessBytes;
    S.Info.Kernel = Kernel.str();
    S.Info.Function = F.name().str();
    S.Info.Opcode = operationName(MC, I.Inst.getOpcode());
    S.W = widthOf(I.Props.Memory);
    if (I.Props.AccessesPerLane == 2)
      S.Second = ds2Delta(I, S.Info.Opcode);
    Writer->site(S.Info);
    Sites.push_back(std::move(S));
  }

  /// The second access of a ds_read2/ds_write2 (offset1) from the first
  /// (offset0, the hook's address): both scaled by the element size, and
  /// by 64 for the ST64 forms.
  static int64_t ds2Delta(const BinaryInstruction &I, StringRef Op) {
    int64_t Offsets[2] = {0, 0};
    unsigned N = 0;
    for (const MCOperand &O : I.Inst)
      if (O.isImm() && N < 2)
        Offsets[N++] = O.getImm();
    int64_t Scale = int64_t(I.Props.AccessBytes) * (Op.contains("ST64") ? 64 : 1);
    return (Offsets[1] - Offsets[0]) * Scale;
  }

  /// Lanes \p Mask's access of \p S, lane L's address (ByLane[L] + Add) &
  /// AddressMask.
  void emit(Space Where, const Site &S, DispatchInfo &Info, uint32_t Wave,
            uint64_t Mask, const uint64_t *ByLane, uint64_t Add = 0,
            uint64_t AddressMask = ~0ull) {
    if (!Mask)
      return;
    ++Info.Accesses;
    unsigned N = std::popcount(Mask);
    Lanes += N;
    Bytes += N * S.Info.Bytes;
    Writer->laneAccess(Where, S.Info.Id, Info.Index, Wave, Mask, ByLane,
                       Add, AddressMask);
  }

  /// A wave's chunk: its identity, then its records, each a header and
  /// the lanes of its vector instructions. What a record holds follows
  /// from its sites; a chunk that does not parse is dropped whole.
  void chunk(DispatchInfo &Info, const char *Chunk) {
    LoomWaveChunk C;
    MemTraceWave W;
    std::memcpy(&C, Chunk, sizeof(C));
    std::memcpy(&W, Chunk + sizeof(C), sizeof(W));
    const char *At = Chunk + sizeof(C) + sizeof(W);
    // The cursor's offset in its chunk (it never reaches the chunk's end).
    const char *End = Chunk + std::max<size_t>(C.End & (MEM_TRACE_CHUNK - 1),
                                               At - Chunk);
    uint32_t Wave = Info.wave(W);
    while (End - At >= ptrdiff_t(sizeof(MemTraceHeader))) {
      MemTraceHeader H;
      std::memcpy(&H, At, sizeof(H));
      At += sizeof(H);
      if (H.Site >= Sites.size() || !Sites[H.Site].Group)
        return;
      unsigned Count = Sites[H.Site].Group;
      // The scalar addresses, then the arrays of 64-bit lanes, then those
      // of 32-bit lanes, each in program order.
      unsigned Of[3] = {0, 0, 0};
      for (uint32_t M = 0; M < Count; ++M)
        ++Of[unsigned(Sites[H.Site + M].W)];
      size_t ScalarBytes = Of[2] * sizeof(uint64_t);
      size_t WideBytes = Of[0] * 64 * sizeof(uint64_t);
      if (size_t(End - At) <
          ScalarBytes + WideBytes + Of[1] * 64 * sizeof(uint32_t))
        return;
      const char *Scalars = At, *Wide = At + ScalarBytes,
                 *Narrow = Wide + WideBytes;
      for (uint32_t M = 0; M < Count; ++M) {
        const Site &S = Sites[H.Site + M];
        uint64_t Scalar = 0, Low[64];
        const uint64_t *Lanes = Low;
        switch (S.W) {
        case Width::Scalar:
          std::memcpy(&Scalar, Scalars, sizeof(Scalar));
          Scalars += sizeof(Scalar);
          break;
        case Width::Narrow:
          for (unsigned L = 0; L < 64; ++L)
            Low[L] = reinterpret_cast<const uint32_t *>(Narrow)[L];
          Narrow += 64 * sizeof(uint32_t);
          break;
        case Width::Wide: // 4-byte aligned in the chunk
          std::memcpy(Low, Wide, sizeof(Low));
          Wide += sizeof(Low);
          break;
        }
        access(S, Info, Wave, uint64_t(H.Exec[1]) << 32 | H.Exec[0], Lanes,
               &Scalar);
      }
      At = Narrow;
    }
  }

  /// The accesses of one instruction of a record: lanes \p Exec, their
  /// addresses \p Lanes (by lane), or \p First for a scalar one.
  void access(const Site &S, DispatchInfo &Info, uint32_t Wave,
              uint64_t Exec, const uint64_t *Lanes, const uint64_t *First) {
    constexpr uint64_t Low = 0xffffffffu;
    if (S.LdsDma) {
      // Lane L's dword at M0 + the offset + 4 L, every active lane.
      uint64_t Dwords[64];
      for (unsigned L = 0; L < 64; ++L)
        Dwords[L] = 4 * L;
      emit(Space::Lds, S, Info, Wave, Exec, Dwords, *First + *S.LdsDma, Low);
      return;
    }
    switch (S.Info.Kind) {
    case InstrKind::Scalar:
      // One access of the wave, as lane 0's, even with EXEC empty.
      emit(Space::Scalar, S, Info, Wave, 1, First); // its offset included
      break;
    case InstrKind::Flat: {
      // Every lane tested, active or not: a loop the compiler vectorises.
      uint64_t Lds = 0, Private = 0, Add = S.Offset;
      for (unsigned L = 0; L < 64; ++L) {
        uint32_t Hi = uint32_t((Lanes[L] + Add) >> 32);
        Lds |= uint64_t(Hi == Info.SharedHi) << L;
        Private |= uint64_t(Hi == Info.PrivateHi) << L;
      }
      Lds &= Exec;
      Private &= Exec & ~Lds;
      // In the order the virtual GPU records them.
      emit(Space::Global, S, Info, Wave, Exec & ~(Lds | Private), Lanes, Add);
      emit(Space::Lds, S, Info, Wave, Lds, Lanes, Add, Low);
      emit(Space::Scratch, S, Info, Wave, Private, Lanes, Add, Low);
      break;
    }
    case InstrKind::Buffer: {
      // Lanes the range check drops have the address ~0 (HookArg::
      // memoryAddress): they access nothing.
      uint64_t Kept = Exec;
      if (S.W == Width::Wide)
        for (unsigned L = 0; L < 64; ++L)
          if (Lanes[L] == ~0ull)
            Kept &= ~(uint64_t(1) << L);
      emit(S.Stack ? Space::Scratch : Space::Global, S, Info, Wave, Kept,
           Lanes); // its offset included
      break;
    }
    case InstrKind::Scratch:
      emit(Space::Scratch, S, Info, Wave, Exec, Lanes, S.Offset, Low);
      break;
    case InstrKind::Lds:
      emit(Space::Lds, S, Info, Wave, Exec, Lanes, S.Offset, Low);
      if (S.Second)
        emit(Space::Lds, S, Info, Wave, Exec, Lanes, S.Offset + *S.Second,
             Low);
      break;
    default:
      emit(Space::Global, S, Info, Wave, Exec, Lanes, S.Offset);
      break;
    }
  }

  ToolOptions Options;
  std::string Path;
  std::unique_ptr<TraceWriter> Writer;
  std::vector<Site> Sites;
  std::map<std::string, uint64_t> KernelObjects;
  std::map<uint64_t, DispatchInfo> Dispatches;
  uint64_t Traced = 0, Lanes = 0, Bytes = 0;
  /// The wave counter of the kernel being instrumented.
  unsigned Cursor = 0;
};

} // namespace

LOOM_TOOL(MemTrace, "mem_trace")
