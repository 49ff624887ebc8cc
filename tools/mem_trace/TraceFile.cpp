//===- tools/mem_trace/TraceFile.cpp - mem_trace's binary trace file ------===//

#include "TraceFile.h"

#include "loom/runtime/MemoryTraceLine.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/LEB128.h"
#include "llvm/Support/MemoryBuffer.h"

#include <bit>
#include <unordered_map>

using namespace llvm;

namespace loom::trace {

namespace {
constexpr char Magic[8] = {'L', 'O', 'O', 'M', 'T', 'R', 'C', 'E'};
enum Tag : uint8_t { SiteTag = 'S', DispatchTag = 'D', AccessTag = 'A',
                     RowsTag = 'R', EndTag = 'E' };
enum SiteFlags : uint8_t { FlagWrite = 1, FlagAtomic = 2 };
} // namespace

StringRef spaceName(Space S) {
  return loom::runtime::memorySpaceName(unsigned(S));
}

StringRef instrKindName(InstrKind K) {
  switch (K) {
  case InstrKind::Global: return "global";
  case InstrKind::Flat: return "flat";
  case InstrKind::Scratch: return "scratch";
  case InstrKind::Lds: return "lds";
  case InstrKind::Scalar: return "scalar";
  case InstrKind::Buffer: return "buffer";
  }
  return "?";
}

//===-- Writing -----------------------------------------------------------===//

namespace {
template <typename T> void put(raw_ostream &OS, T V) {
  char Buf[sizeof(T)];
  support::endian::write<T, llvm::endianness::little>(Buf, V);
  OS.write(Buf, sizeof(T));
}
/// Signed differences as unsigned, small either way (zigzag).
uint64_t zigzag(int64_t V) { return (uint64_t(V) << 1) ^ uint64_t(V >> 63); }
int64_t unzigzag(uint64_t V) { return int64_t(V >> 1) ^ -int64_t(V & 1); }

void putString(raw_ostream &OS, StringRef S) {
  S = S.take_front(UINT16_MAX);
  put<uint16_t>(OS, S.size());
  OS << S;
}
} // namespace

Expected<std::unique_ptr<TraceWriter>> TraceWriter::create(StringRef Path) {
  std::error_code EC;
  auto OS = std::make_unique<raw_fd_ostream>(Path, EC, sys::fs::OF_None);
  if (EC)
    return createStringError(EC, "%s: %s", Path.str().c_str(),
                             EC.message().c_str());
  // Large writes: the tool writes hundreds of MB from its drain thread.
  OS->SetBufferSize(1 << 20);
  OS->write(Magic, sizeof(Magic));
  put<uint32_t>(*OS, TraceVersion);
  put<uint32_t>(*OS, 0);
  return std::unique_ptr<TraceWriter>(new TraceWriter(std::move(OS)));
}

void TraceWriter::site(const TraceSite &S) {
  put<uint8_t>(*OS, SiteTag);
  put<uint32_t>(*OS, S.Id);
  put<uint64_t>(*OS, S.Pc);
  put<uint64_t>(*OS, S.Offset);
  put<uint8_t>(*OS, uint8_t(S.Kind));
  put<uint8_t>(*OS, (S.Write ? FlagWrite : 0) | (S.Atomic ? FlagAtomic : 0));
  put<uint32_t>(*OS, S.Bytes);
  putString(*OS, S.Kernel);
  putString(*OS, S.Function);
  putString(*OS, S.Opcode);
}

void TraceWriter::dispatch(const TraceDispatch &D) {
  put<uint8_t>(*OS, DispatchTag);
  put<uint64_t>(*OS, D.Index);
  for (uint32_t G : D.Grid)
    put<uint32_t>(*OS, G);
  for (uint16_t W : D.WorkGroup)
    put<uint16_t>(*OS, W);
  putString(*OS, D.Kernel);
}

void TraceWriter::access(const TraceAccess &A) {
  encode(A.Where, A.Site, A.Dispatch, A.Wave, A.Exec, A.Addresses.data(),
         A.Addresses.size());
}

void TraceWriter::laneAccess(Space Where, uint32_t Site, uint32_t Dispatch,
                             uint32_t Wave, uint64_t Exec,
                             const uint64_t *ByLane, uint64_t Add,
                             uint64_t Mask) {
  uint64_t Addresses[64];
  unsigned N = 0;
  if (Exec == ~0ull) {
    // The usual case, in a loop the compiler vectorises.
    for (unsigned L = 0; L < 64; ++L)
      Addresses[L] = (ByLane[L] + Add) & Mask;
    N = 64;
  } else {
    for (uint64_t M = Exec; M; M &= M - 1)
      Addresses[N++] = (ByLane[std::countr_zero(M)] + Add) & Mask;
  }
  encode(Where, Site, Dispatch, Wave, Exec, Addresses, N);
}

void TraceWriter::encode(Space Where, uint32_t Site, uint32_t Dispatch,
                         uint32_t Wave, uint64_t Exec,
                         const uint64_t *Addresses, unsigned N) {
  // Built in a buffer of the largest record and written at once: the
  // drain thread runs this for every access while waves may wait for it.
  uint8_t Buf[1 + 1 + 3 * 4 + 8 + 8 + 63 * 10];
  uint8_t *P = Buf;
  auto Put = [&P](auto V) {
    support::endian::write<decltype(V), llvm::endianness::little>(P, V);
    P += sizeof(V);
  };
  // Lanes in rows of Period: Inner from one lane to the next in a row,
  // Outer from a row's last lane to the next row's first (a work-group's
  // rows of a tile; Period N: one stride; Inner 0: a row reading one
  // address).
  uint64_t Inner = N >= 2 ? Addresses[1] - Addresses[0] : 0;
  unsigned Period = 1;
  while (Period < N && Addresses[Period] - Addresses[Period - 1] == Inner)
    ++Period;
  uint64_t Outer = Period < N ? Addresses[Period] - Addresses[Period - 1]
                              : Inner;
  bool Rows = N >= 2;
  for (unsigned I = Period, K = 0; I < N; ++I, ++K) {
    if (K == Period)
      K = 0;
    Rows &= Addresses[I] - Addresses[I - 1] == (K ? Inner : Outer);
  }
  Put(uint8_t(Rows ? RowsTag : AccessTag));
  Put(uint8_t(Where));
  Put(Site);
  Put(Dispatch);
  Put(Wave);
  Put(Exec);
  if (N)
    Put(Addresses[0]);
  // The first lane's address, then the rows' shape, or each lane's
  // difference from the lane before it: a byte or two for the usual
  // strides.
  if (Rows) {
    Put(uint8_t(Period));
    P += encodeULEB128(zigzag(int64_t(Inner)), P);
    P += encodeULEB128(zigzag(int64_t(Outer)), P);
  } else {
    for (unsigned I = 1; I < N; ++I)
      P += encodeULEB128(zigzag(int64_t(Addresses[I] - Addresses[I - 1])), P);
  }
  OS->write(reinterpret_cast<const char *>(Buf), P - Buf);
  ++Accesses;
}

Error TraceWriter::close() {
  if (Closed)
    return Error::success();
  Closed = true;
  put<uint8_t>(*OS, EndTag);
  put<uint64_t>(*OS, Accesses);
  OS->close();
  if (OS->has_error()) {
    std::error_code EC = OS->error();
    OS->clear_error();
    return createStringError(EC, "writing the trace: %s",
                             EC.message().c_str());
  }
  return Error::success();
}

//===-- Reading -----------------------------------------------------------===//

namespace {
/// A cursor over the file's bytes that fails with the file and offset.
class Cursor {
public:
  Cursor(StringRef Name, StringRef Bytes) : Name(Name), Bytes(Bytes) {}

  size_t offset() const { return Pos; }
  bool atEnd() const { return Pos == Bytes.size(); }

  Error fail(size_t At, const Twine &Why) const {
    return createStringError(inconvertibleErrorCode(),
                             "%s: offset %zu: %s", Name.str().c_str(), At,
                             Why.str().c_str());
  }

  /// Reads each of \p Fields in turn.
  template <typename... T> Error getAll(StringRef What, T &...Fields) {
    Error E = Error::success();
    // Stops at the first failure: E is then set and the rest are skipped.
    ((E ? void() : void(E = get(Fields, What))), ...);
    return E;
  }

  template <typename T> Error get(T &V, StringRef What) {
    if (Bytes.size() - Pos < sizeof(T))
      return fail(Pos, "truncated in " + What + " (" + Twine(sizeof(T)) +
                           " bytes needed, " + Twine(Bytes.size() - Pos) +
                           " left)");
    V = support::endian::read<T, llvm::endianness::little>(Bytes.data() +
                                                           Pos);
    Pos += sizeof(T);
    return Error::success();
  }
  Error getVarint(uint64_t &V, StringRef What) {
    const char *Problem = nullptr;
    unsigned Size = 0;
    V = decodeULEB128(Bytes.bytes_begin() + Pos, &Size, Bytes.bytes_end(),
                      &Problem);
    if (Problem)
      return fail(Pos, StringRef(Problem) + " in " + What);
    Pos += Size;
    return Error::success();
  }
  Error getString(std::string &S, StringRef What) {
    uint16_t N;
    if (Error E = get(N, What))
      return E;
    if (Bytes.size() - Pos < N)
      return fail(Pos, "truncated in " + What + " (a string of " + Twine(N) +
                           " bytes, " + Twine(Bytes.size() - Pos) + " left)");
    S = Bytes.substr(Pos, N).str();
    Pos += N;
    return Error::success();
  }

private:
  StringRef Name, Bytes;
  size_t Pos = 0;
};
} // namespace

Error readTrace(StringRef Name, StringRef Bytes, TraceVisitor &V) {
  Cursor C(Name, Bytes);
  if (Bytes.size() < sizeof(Magic) ||
      StringRef(Bytes.data(), sizeof(Magic)) != StringRef(Magic, 8))
    return C.fail(0, "not a mem_trace file (no LOOMTRCE header)");
  uint64_t MagicWord;
  cantFail(C.get(MagicWord, "the header"));
  uint32_t Version, Reserved;
  if (Error E = C.get(Version, "the header"))
    return E;
  if (Version < 1 || Version > TraceVersion)
    return C.fail(8, "version " + Twine(Version) + ", this reader reads 1 to " +
                         Twine(TraceVersion));
  if (Error E = C.get(Reserved, "the header"))
    return E;

  std::unordered_map<uint32_t, TraceSite> Sites;
  std::unordered_map<uint64_t, bool> Dispatches;
  uint64_t Accesses = 0;
  TraceAccess A;
  while (!C.atEnd()) {
    size_t At = C.offset();
    uint8_t T;
    cantFail(C.get(T, "a tag"));
    switch (T) {
    case SiteTag: {
      TraceSite S;
      uint8_t Kind, Flags;
      if (Error E =
              C.getAll("a site", S.Id, S.Pc, S.Offset, Kind, Flags, S.Bytes))
        return E;
      if (Kind >= NumInstrKinds)
        return C.fail(At, "site " + Twine(S.Id) + ": instruction kind " +
                              Twine(Kind) + " out of range");
      if (Flags & ~(FlagWrite | FlagAtomic))
        return C.fail(At, "site " + Twine(S.Id) + ": unknown flags " +
                              Twine(Flags));
      if (S.Bytes == 0 || S.Bytes > 64)
        return C.fail(At, "site " + Twine(S.Id) + ": " + Twine(S.Bytes) +
                              " bytes per lane");
      S.Kind = InstrKind(Kind);
      S.Write = Flags & FlagWrite;
      S.Atomic = Flags & FlagAtomic;
      if (Error E = C.getString(S.Kernel, "a site's kernel"))
        return E;
      if (Error E = C.getString(S.Function, "a site's function"))
        return E;
      if (Error E = C.getString(S.Opcode, "a site's opcode"))
        return E;
      if (Sites.count(S.Id))
        return C.fail(At, "site " + Twine(S.Id) + " defined twice");
      V.site(S);
      Sites.emplace(S.Id, std::move(S));
      break;
    }
    case DispatchTag: {
      TraceDispatch D;
      if (Error E = C.getAll("a dispatch", D.Index, D.Grid[0], D.Grid[1],
                             D.Grid[2], D.WorkGroup[0], D.WorkGroup[1],
                             D.WorkGroup[2]))
        return E;
      if (Error E = C.getString(D.Kernel, "a dispatch's kernel"))
        return E;
      for (unsigned I = 0; I < 3; ++I)
        if (!D.Grid[I] || !D.WorkGroup[I])
          return C.fail(At, "dispatch " + Twine(D.Index) +
                                ": a grid or work-group size of 0");
      Dispatches[D.Index] = true;
      V.dispatch(D);
      break;
    }
    case AccessTag:
    case RowsTag: {
      uint8_t Where;
      if (T == RowsTag && Version < 2)
        return C.fail(At, "an access in rows in a version-1 file");
      if (Error E = C.getAll("an access", Where, A.Site, A.Dispatch, A.Wave,
                             A.Exec))
        return E;
      if (Where >= NumSpaces)
        return C.fail(At, "access: space " + Twine(Where) + " out of range");
      A.Where = Space(Where);
      auto S = Sites.find(A.Site);
      if (S == Sites.end())
        return C.fail(At, "access of site " + Twine(A.Site) +
                              ", which no site record defined before");
      if (!Dispatches.count(A.Dispatch))
        return C.fail(At, "access of dispatch " + Twine(A.Dispatch) +
                              ", which no dispatch record defined before");
      if (!A.Exec)
        return C.fail(At, "access with no lane (EXEC 0)");
      A.Addresses.resize(std::popcount(A.Exec));
      if (Error E = C.get(A.Addresses[0], "an access's addresses"))
        return E;
      if (T == RowsTag) {
        uint8_t Period;
        uint64_t Inner, Outer;
        if (Error E = C.get(Period, "an access's rows"))
          return E;
        if (Error E = C.getVarint(Inner, "an access's rows"))
          return E;
        if (Error E = C.getVarint(Outer, "an access's rows"))
          return E;
        if (Period == 0 || Period > 64 || A.Addresses.size() < 2)
          return C.fail(At, "an access in rows of " + Twine(Period) +
                                " of its " + Twine(A.Addresses.size()) +
                                " lanes");
        for (size_t I = 1, K = 1; I < A.Addresses.size(); ++I, ++K) {
          if (K == Period)
            K = 0;
          A.Addresses[I] = A.Addresses[I - 1] +
                           uint64_t(unzigzag(K ? Inner : Outer));
        }
      } else {
        for (size_t I = 1; I < A.Addresses.size(); ++I) {
          uint64_t V;
          if (Error E = C.getVarint(V, "an access's addresses"))
            return E;
          A.Addresses[I] = A.Addresses[I - 1] + uint64_t(unzigzag(V));
        }
      }
      ++Accesses;
      V.access(A, S->second);
      break;
    }
    case EndTag: {
      uint64_t Count;
      if (Error E = C.get(Count, "the end record"))
        return E;
      if (Count != Accesses)
        return C.fail(At, "the end record counts " + Twine(Count) +
                              " accesses, the file holds " + Twine(Accesses));
      if (!C.atEnd())
        return C.fail(C.offset(), "bytes after the end record");
      return Error::success();
    }
    default:
      return C.fail(At, "unknown record tag 0x" + utohexstr(T));
    }
  }
  return C.fail(C.offset(), "truncated: no end record (did the program "
                            "stop before mem_trace's end?)");
}

Error readTrace(StringRef Path, TraceVisitor &V) {
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false);
  if (!Buf)
    return createStringError(Buf.getError(), "%s: %s", Path.str().c_str(),
                             Buf.getError().message().c_str());
  return readTrace(Path, (*Buf)->getBuffer(), V);
}

} // namespace loom::trace
