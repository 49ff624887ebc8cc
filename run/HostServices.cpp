//===- run/HostServices.cpp - What loom run's RPC calls do ----------------===//

#include "HostServices.h"
#include "Printf.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>

namespace loom::run {

namespace {
/// NUL-separated strings of a payload.
std::vector<std::string> strings(const std::vector<uint8_t> &P) {
  std::vector<std::string> Out;
  std::string Cur;
  for (uint8_t B : P) {
    if (B) {
      Cur += char(B);
      continue;
    }
    Out.push_back(Cur);
    Cur.clear();
  }
  return Out;
}

std::string laneText(uint64_t Thread, uint64_t Block) {
  auto Dim = [](uint64_t V, int I) { return (V >> (21 * I)) & 0x1fffff; };
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << "thread (" << Dim(Thread, 0) << ", " << Dim(Thread, 1) << ", "
     << Dim(Thread, 2) << ") of block (" << Dim(Block, 0) << ", "
     << Dim(Block, 1) << ", " << Dim(Block, 2) << ")";
  return S;
}

uint64_t nanoseconds(clockid_t Id) {
  timespec Ts;
  clock_gettime(Id, &Ts);
  return uint64_t(Ts.tv_sec) * 1000000000ull + uint64_t(Ts.tv_nsec);
}
} // namespace

/// The most one read call brings back (device buffers are rarely larger;
/// the protocol moves 64 bytes per lane and round trip anyway).
constexpr uint64_t MaxRead = 64ull << 20;

HostServices::HostServices(Hooks H)
    : H(std::move(H)), Start(std::chrono::steady_clock::now()) {}

HostServices::~HostServices() {
  for (auto &[Handle, F] : Files)
    std::fclose(F);
}

FILE *HostServices::stream(uint64_t Handle) const {
  switch (Handle) {
  case LOOM_RPC_STDIN:
    return H.In;
  case LOOM_RPC_STDOUT:
    return H.Out;
  case LOOM_RPC_STDERR:
    return H.Err;
  }
  auto It = Files.find(Handle);
  return It == Files.end() ? nullptr : It->second;
}

void HostServices::write(FILE *F, const void *Data, size_t Size) {
  // Keep stdout and stderr in the order the program wrote them.
  if (F == H.Err)
    std::fflush(H.Out);
  std::fwrite(Data, 1, Size, F);
}

void HostServices::requestEnd(EndRequest R) {
  std::lock_guard<std::mutex> G(EndLock);
  if (TheEnd.Kind != EndRequest::None)
    return;
  TheEnd = std::move(R);
  Ended.store(true, std::memory_order_release);
}

EndRequest HostServices::end() const {
  std::lock_guard<std::mutex> G(EndLock);
  return TheEnd;
}

void HostServices::handle(uint32_t Opcode, llvm::ArrayRef<LaneRequest> Requests,
                          std::vector<LaneReply> &Replies) {
  for (size_t I = 0; I < Requests.size(); ++I)
    Replies[I] = serve(Opcode, Requests[I]);
}

LaneReply HostServices::serve(uint32_t Opcode, const LaneRequest &R) {
  LaneReply Out;
  const std::vector<uint8_t> &P = R.Payload;
  switch (Opcode) {
  case LOOM_RPC_NOOP:
    break;
  case LOOM_RPC_WRITE_TO_STREAM:
    if (FILE *F = stream(R.Arg[0])) {
      write(F, P.data(), P.size());
      Out.Result = std::ferror(F) ? 0 : P.size();
    }
    break;
  case LOOM_RPC_WRITE_TO_STDOUT_NEWLINE: {
    std::vector<uint8_t> Line(P);
    Line.push_back('\n');
    write(H.Out, Line.data(), Line.size());
    Out.Result = Line.size();
    break;
  }
  case LOOM_RPC_PRINTF_TO_STREAM:
    if (FILE *F = stream(R.Arg[0])) {
      std::string Text = formatPrintf(P);
      write(F, Text.data(), Text.size());
      Out.Result = Text.size();
    } else {
      Out.Result = uint64_t(-1);
    }
    break;
  case LOOM_RPC_FORMAT_TO_BUFFER: {
    // Argument: the buffer's size; reply: the text cut to fit, and a NUL.
    std::string Text = formatPrintf(P);
    Out.Result = Text.size();
    if (uint64_t N = R.Arg[0]) {
      Out.Data.assign(Text.begin(),
                      Text.begin() + std::min<uint64_t>(Text.size(), N - 1));
      Out.Data.push_back(0);
    }
    break;
  }
  case LOOM_RPC_READ_FROM_STREAM: {
    // Arguments: stream, item size, item count; result: items read.
    FILE *F = stream(R.Arg[0]);
    uint64_t Size = R.Arg[1], Count = R.Arg[2];
    // A short read is fread's right: one call reads at most MaxRead bytes.
    if (Size && Size <= MaxRead)
      Count = std::min(Count, MaxRead / Size);
    if (F && Size && Count && Size <= MaxRead) {
      Out.Data.resize(Size * Count);
      if (F == H.In)
        std::fflush(H.Out);
      Out.Result = std::fread(Out.Data.data(), Size, Count, F);
      Out.Data.resize(Out.Result * Size);
    }
    break;
  }
  case LOOM_RPC_READ_FGETS: {
    FILE *F = stream(R.Arg[0]);
    uint64_t N = std::min<uint64_t>(R.Arg[1], MaxRead);
    if (F && N) {
      std::vector<char> Buf(N);
      if (F == H.In)
        std::fflush(H.Out);
      if (std::fgets(Buf.data(), int(N), F)) {
        size_t Len = std::strlen(Buf.data()) + 1;
        Out.Data.assign(Buf.data(), Buf.data() + Len);
        Out.Result = 1;
      }
    }
    break;
  }
  case LOOM_RPC_OPEN_FILE: {
    std::vector<std::string> S = strings(P);
    if (S.size() == 2)
      if (FILE *F = std::fopen(S[0].c_str(), S[1].c_str())) {
        Files[NextHandle] = F;
        Out.Result = NextHandle++;
      }
    break;
  }
  case LOOM_RPC_CLOSE_FILE: {
    auto It = Files.find(R.Arg[0]);
    if (It == Files.end()) {
      Out.Result = uint64_t(-1); // EOF; the standard streams stay open
      break;
    }
    Out.Result = uint64_t(int64_t(std::fclose(It->second)));
    Files.erase(It);
    break;
  }
  case LOOM_RPC_FFLUSH:
    if (R.Arg[0] == 0) {
      std::fflush(nullptr);
      break;
    }
    if (FILE *F = stream(R.Arg[0]))
      Out.Result = uint64_t(int64_t(std::fflush(F)));
    else
      Out.Result = uint64_t(-1);
    break;
  case LOOM_RPC_FSEEK:
    if (FILE *F = stream(R.Arg[0]))
      Out.Result =
          uint64_t(int64_t(std::fseek(F, long(R.Arg[1]), int(R.Arg[2]))));
    else
      Out.Result = uint64_t(-1);
    break;
  case LOOM_RPC_FTELL:
    if (FILE *F = stream(R.Arg[0]))
      Out.Result = uint64_t(int64_t(std::ftell(F)));
    else
      Out.Result = uint64_t(-1);
    break;
  case LOOM_RPC_FEOF:
    if (FILE *F = stream(R.Arg[0]))
      Out.Result = std::feof(F) != 0;
    break;
  case LOOM_RPC_FERROR:
    if (FILE *F = stream(R.Arg[0]))
      Out.Result = std::ferror(F) != 0;
    break;
  case LOOM_RPC_CLEARERR:
    if (FILE *F = stream(R.Arg[0]))
      std::clearerr(F);
    break;
  case LOOM_RPC_REMOVE: {
    std::vector<std::string> S = strings(P);
    Out.Result =
        uint64_t(int64_t(S.size() == 1 ? std::remove(S[0].c_str()) : -1));
    break;
  }
  case LOOM_RPC_RENAME: {
    std::vector<std::string> S = strings(P);
    Out.Result = uint64_t(
        int64_t(S.size() == 2 ? std::rename(S[0].c_str(), S[1].c_str()) : -1));
    break;
  }
  case LOOM_RPC_MALLOC:
    Out.Result = reinterpret_cast<uint64_t>(H.Allocate(R.Arg[0]));
    break;
  case LOOM_RPC_FREE:
    H.Free(reinterpret_cast<void *>(R.Arg[0]));
    break;
  case LOOM_RPC_CLOCK:
    if (R.Arg[0] == 0)
      Out.Result = nanoseconds(CLOCK_REALTIME);
    else if (R.Arg[0] == 1)
      Out.Result = nanoseconds(CLOCK_MONOTONIC);
    else
      Out.Result = std::chrono::duration_cast<std::chrono::nanoseconds>(
                       std::chrono::steady_clock::now() - Start)
                       .count();
    break;
  case LOOM_RPC_EXIT:
    requestEnd({EndRequest::Exit, int(R.Arg[0]),
                "exit(" + std::to_string(int(R.Arg[0])) + ") called by " +
                    laneText(R.Arg[1], R.Arg[2])});
    break;
  case LOOM_RPC_ABORT:
    requestEnd({EndRequest::Abort, 0,
                "abort() called by " + laneText(R.Arg[0], R.Arg[1])});
    break;
  default:
    requestEnd({EndRequest::Abort, 0,
                "the device made an RPC call with unknown opcode " +
                    llvm::utohexstr(Opcode, false)});
    break;
  }
  return Out;
}

} // namespace loom::run
