//===- cli/TraceCommand.cpp - `loom trace show FILE` -----------------------===//
//
// Reads a trace file of the mem_trace tool (docs/tools.md, "The trace
// file") and prints it: one line per wave-access (default), CSV, JSON
// Lines with the keys of `loom exec --memory-trace` plus the instruction,
// or the summary (bytes per kind, coalescing, LDS bank conflicts).
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "TraceFile.h"
#include "TraceSummary.h"

#include "loom/runtime/MemoryTraceLine.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace loom::trace;

namespace loom::cli {

cl::SubCommand TraceCommand("trace",
                            "Read a memory trace of the mem_trace tool: "
                            "loom trace show FILE");

static cl::list<std::string> TraceArgs(cl::Positional, cl::OneOrMore,
                                       cl::desc("show FILE"),
                                       cl::sub(TraceCommand),
                                       cl::cat(LoomCategory));
static cl::opt<bool> TraceCsv("csv", cl::desc("One CSV row per wave-access"),
                              cl::sub(TraceCommand), cl::cat(LoomCategory));
static cl::opt<bool> TraceJson(
    "json",
    cl::desc("One JSON line per wave-access, as loom exec --memory-trace"),
    cl::sub(TraceCommand), cl::cat(LoomCategory));
static cl::opt<bool> TraceSummaryOnly(
    "summary", cl::desc("Bytes per kind, coalescing, LDS bank conflicts"),
    cl::sub(TraceCommand), cl::cat(LoomCategory));

namespace {

std::string hexExec(uint64_t Exec) {
  return formatv("{0:x16}", Exec).str();
}

class TextPrinter : public TraceVisitor {
public:
  explicit TextPrinter(raw_ostream &OS) : OS(OS) {}
  void dispatch(const TraceDispatch &D) override {
    OS << formatv("dispatch {0} {1} grid [{2},{3},{4}] workgroup "
                  "[{5},{6},{7}]\n",
                  D.Index, D.Kernel, D.Grid[0], D.Grid[1], D.Grid[2],
                  D.WorkGroup[0], D.WorkGroup[1], D.WorkGroup[2]);
  }
  void access(const TraceAccess &A, const TraceSite &S) override {
    OS << formatv("  d{0} w{1} {2}+{3:x} {4} {5} {6} {7}x{8}B exec {9}:",
                  A.Dispatch, A.Wave, S.Function, S.Offset, S.Opcode,
                  spaceName(A.Where),
                  S.Atomic ? "atomic" : S.Write ? "write" : "read",
                  A.Addresses.size(), S.Bytes, hexExec(A.Exec));
    for (size_t I = 0; I < A.Addresses.size() && I < 4; ++I)
      OS << " 0x" << utohexstr(A.Addresses[I], true);
    if (A.Addresses.size() > 4)
      OS << " ...";
    OS << "\n";
  }

private:
  raw_ostream &OS;
};

class CsvPrinter : public TraceVisitor {
public:
  explicit CsvPrinter(raw_ostream &OS) : OS(OS) {
    OS << "dispatch,wave,kernel,function,offset,pc,opcode,instruction,space,"
          "direction,atomic,bytes_per_lane,exec,addresses\n";
  }
  void access(const TraceAccess &A, const TraceSite &S) override {
    OS << A.Dispatch << "," << A.Wave << "," << S.Kernel << "," << S.Function
       << ",0x" << utohexstr(S.Offset, true) << ",0x"
       << utohexstr(S.Pc, true) << "," << S.Opcode << ","
       << instrKindName(S.Kind) << "," << spaceName(A.Where) << ","
       << (S.Write ? "write" : "read") << "," << (S.Atomic ? 1 : 0) << ","
       << S.Bytes << "," << hexExec(A.Exec) << ",";
    for (size_t I = 0; I < A.Addresses.size(); ++I)
      OS << (I ? " " : "") << "0x" << utohexstr(A.Addresses[I], true);
    OS << "\n";
  }

private:
  raw_ostream &OS;
};

/// The keys of `loom exec --memory-trace` (docs/counters.md), plus where
/// the instruction is and what it is.
class JsonPrinter : public TraceVisitor {
public:
  explicit JsonPrinter(raw_ostream &OS) : OS(OS) {}
  void access(const TraceAccess &A, const TraceSite &S) override {
    json::OStream J(OS);
    J.object([&] {
      runtime::writeMemoryTraceKeys(
          J, {A.Dispatch, S.Pc, A.Wave, A.Exec, unsigned(A.Where), S.Write,
              S.Atomic, S.Bytes, A.Addresses});
      J.attribute("kernel", S.Kernel);
      J.attribute("function", S.Function);
      J.attribute("offset", S.Offset);
      J.attribute("opcode", S.Opcode);
      J.attribute("instruction", instrKindName(S.Kind));
    });
    OS << "\n";
  }

private:
  raw_ostream &OS;
};

} // namespace

int runTrace() {
  if (TraceArgs.size() != 2 || TraceArgs[0] != "show")
    return reportError("trace",
                       createStringError(inconvertibleErrorCode(),
                                         "usage: loom trace show FILE "
                                         "[--csv|--json|--summary]"));
  if (int(TraceCsv) + int(TraceJson) + int(TraceSummaryOnly) > 1)
    return reportError("trace", createStringError(
                                    inconvertibleErrorCode(),
                                    "--csv, --json and --summary exclude "
                                    "each other"));
  const std::string &File = TraceArgs[1];
  std::unique_ptr<TraceVisitor> V;
  TraceSummary Summary;
  if (TraceCsv)
    V = std::make_unique<CsvPrinter>(outs());
  else if (TraceJson)
    V = std::make_unique<JsonPrinter>(outs());
  else if (!TraceSummaryOnly)
    V = std::make_unique<TextPrinter>(outs());
  // A printer and the summary both see each record.
  struct Both : TraceVisitor {
    TraceVisitor *A, *B;
    Both(TraceVisitor *A, TraceVisitor *B) : A(A), B(B) {}
    void site(const TraceSite &S) override {
      if (A)
        A->site(S);
      B->site(S);
    }
    void dispatch(const TraceDispatch &D) override {
      if (A)
        A->dispatch(D);
      B->dispatch(D);
    }
    void access(const TraceAccess &X, const TraceSite &S) override {
      if (A)
        A->access(X, S);
      B->access(X, S);
    }
  } All(V.get(), &Summary);
  if (Error E = readTrace(File, All))
    return reportError("trace", std::move(E));
  if (TraceSummaryOnly || (!TraceCsv && !TraceJson))
    Summary.print(outs());
  return 0;
}

} // namespace loom::cli
