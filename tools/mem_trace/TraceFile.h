//===- tools/mem_trace/TraceFile.h - mem_trace's binary trace file --------===//
//
// The file mem_trace writes and `loom trace show` reads (docs/tools.md,
// "The trace file"): a versioned header, then tagged records, little
// endian:
//
//   header    "LOOMTRCE", u32 version (2; 1 is read too), u32 reserved (0)
//   'S' site  u32 id, u64 pc, u64 offset, u8 instruction kind, u8 flags
//             (1 write, 2 atomic), u32 bytes per lane, str kernel,
//             str function, str opcode
//   'D'       u64 dispatch index, u32 grid[3], u16 work-group[3], str kernel
//   'A'       u8 space, u32 site, u32 dispatch, u32 wave, u64 exec, then
//             the addresses of exec's lanes, in lane order: the first as a
//             u64, each other as its difference from the one before
//             (var: zigzag, LEB128), a byte or two for the usual strides
//   'R'       (version 2) an access whose lanes' addresses lie in rows:
//             u8 space, u32 site, u32 dispatch, u32 wave, u64 exec, u64
//             the first lane's address, u8 period, var inner, var outer
//             (zigzag, LEB128): from each lane of exec to the next the
//             address moves by inner, by outer where the lane's rank is a
//             multiple of period (one stride, a tile's rows, a row of
//             lanes reading one address)
//   'E' end   u64 accesses in the file
//
// (str: u16 length, then the bytes.) A site is one memory instruction of
// one instrumented kernel; an access is one wave's access of one space
// (a flat instruction reaching two segments makes two, a ds_read2 two).
// Sites and dispatches come before the accesses naming them. The reader
// refuses anything else — an unknown tag, a value out of range, a missing
// end record — naming the file and the byte offset.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TOOLS_MEMTRACE_TRACEFILE_H
#define LOOM_TOOLS_MEMTRACE_TRACEFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace loom::trace {

inline constexpr uint32_t TraceVersion = 2;

/// Where an access went: flat accesses are resolved to their segment.
/// The names, and the numbers, are those of `loom exec --memory-trace`'s
/// "space" (loom/runtime/MemoryTraceLine.h).
enum class Space : uint8_t { Global, Lds, Scratch, Scalar };
inline constexpr unsigned NumSpaces = 4;
llvm::StringRef spaceName(Space S);

/// How the instruction addresses memory (its encoding family).
enum class InstrKind : uint8_t { Global, Flat, Scratch, Lds, Scalar, Buffer };
inline constexpr unsigned NumInstrKinds = 6;
llvm::StringRef instrKindName(InstrKind K);

struct TraceSite {
  uint32_t Id = 0;
  uint64_t Pc = 0;     ///< the original instruction's loaded address
  uint64_t Offset = 0; ///< from its function's start
  InstrKind Kind = InstrKind::Global;
  bool Write = false;  ///< a store or an atomic (as --memory-trace says)
  bool Atomic = false;
  uint32_t Bytes = 0;  ///< per lane (per wave for scalar accesses)
  std::string Kernel, Function, Opcode;
};

struct TraceDispatch {
  uint64_t Index = 0;
  uint32_t Grid[3] = {1, 1, 1};
  uint16_t WorkGroup[3] = {1, 1, 1};
  std::string Kernel;
};

struct TraceAccess {
  Space Where = Space::Global;
  uint32_t Site = 0;
  uint32_t Dispatch = 0;
  uint32_t Wave = 0;  ///< in the dispatch, numbered as --memory-trace does
  uint64_t Exec = 0;  ///< the lanes of this access
  std::vector<uint64_t> Addresses; ///< per lane of Exec, in lane order
};

/// Writes a trace file; close() writes the end record.
class TraceWriter {
public:
  static llvm::Expected<std::unique_ptr<TraceWriter>>
  create(llvm::StringRef Path);
  void site(const TraceSite &S);
  void dispatch(const TraceDispatch &D);
  void access(const TraceAccess &A);
  /// An access of lanes \p Exec (nonzero), lane L's address being
  /// (ByLane[L] + Add) & Mask: what a hook's record holds, by lane index.
  void laneAccess(Space Where, uint32_t Site, uint32_t Dispatch,
                  uint32_t Wave, uint64_t Exec, const uint64_t *ByLane,
                  uint64_t Add = 0, uint64_t Mask = ~0ull);
  uint64_t accesses() const { return Accesses; }
  llvm::Error close();

private:
  explicit TraceWriter(std::unique_ptr<llvm::raw_fd_ostream> OS)
      : OS(std::move(OS)) {}
  /// Writes an access of \p N lanes whose addresses are \p Addresses, in
  /// lane order.
  void encode(Space Where, uint32_t Site, uint32_t Dispatch, uint32_t Wave,
              uint64_t Exec, const uint64_t *Addresses, unsigned N);
  std::unique_ptr<llvm::raw_fd_ostream> OS;
  uint64_t Accesses = 0;
  bool Closed = false;
};

/// Receives a trace file's records in file order.
class TraceVisitor {
public:
  virtual ~TraceVisitor() = default;
  virtual void site(const TraceSite &S) {}
  virtual void dispatch(const TraceDispatch &D) {}
  /// \p S is the access's site (already seen).
  virtual void access(const TraceAccess &A, const TraceSite &S) {}
};

/// Reads \p Path, checking every record, into \p V; an error names the
/// file and the offset of the first bad byte.
llvm::Error readTrace(llvm::StringRef Path, TraceVisitor &V);
/// The same from bytes in memory (\p Name in messages).
llvm::Error readTrace(llvm::StringRef Name, llvm::StringRef Bytes,
                      TraceVisitor &V);

} // namespace loom::trace

#endif // LOOM_TOOLS_MEMTRACE_TRACEFILE_H
