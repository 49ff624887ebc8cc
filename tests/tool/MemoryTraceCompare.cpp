//===- tests/tool/MemoryTraceCompare.cpp - mem_trace against the truth ----===//

#include "MemoryTraceCompare.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <map>
#include <optional>
#include <tuple>

using namespace llvm;

namespace loom::test {

namespace {

Error fail(const Twine &Why) {
  return createStringError(inconvertibleErrorCode(), Why);
}

/// Calls \p Each on every JSON line of \p Text.
Error forEachLine(StringRef Name, StringRef Text,
                  function_ref<Error(const json::Object &)> Each) {
  SmallVector<StringRef, 0> Lines;
  Text.split(Lines, '\n', -1, /*KeepEmpty=*/false);
  for (size_t I = 0; I < Lines.size(); ++I) {
    Expected<json::Value> V = json::parse(Lines[I]);
    if (!V)
      return fail(Name + ":" + Twine(I + 1) + ": " + toString(V.takeError()));
    const json::Object *O = V->getAsObject();
    if (!O)
      return fail(Name + ":" + Twine(I + 1) + ": not an object");
    if (Error E = Each(*O))
      return fail(Name + ":" + Twine(I + 1) + ": " + toString(std::move(E)));
  }
  return Error::success();
}

Expected<std::string> slurp(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return fail(Path + ": " + Buf.getError().message());
  return (*Buf)->getBuffer().str();
}

std::string instructionName(StringRef Function, uint64_t Offset) {
  return (Function + "+0x" + utohexstr(Offset, /*LowerCase=*/true)).str();
}

/// The keys both traces share.
Error readAccess(const json::Object &O, MemoryAccess &A) {
  auto Int = [&](StringRef Key, uint64_t &V) -> Error {
    std::optional<int64_t> I = O.getInteger(Key);
    if (!I)
      return fail("no integer \"" + Key + "\"");
    V = uint64_t(*I);
    return Error::success();
  };
  if (Error E = Int("dispatch", A.Dispatch))
    return E;
  if (Error E = Int("wave", A.Wave))
    return E;
  if (Error E = Int("bytes_per_lane", A.BytesPerLane))
    return E;
  std::optional<StringRef> Exec = O.getString("exec"),
                           Space = O.getString("space"),
                           Direction = O.getString("direction");
  std::optional<bool> Atomic = O.getBoolean("atomic");
  const json::Array *Addresses = O.getArray("addresses");
  if (!Exec || !Space || !Direction || !Atomic || !Addresses)
    return fail("missing exec, space, direction, atomic or addresses");
  StringRef Hex = *Exec;
  Hex.consume_front("0x");
  if (Hex.getAsInteger(16, A.Exec))
    return fail("bad exec " + *Exec);
  A.Space = Space->str();
  A.Direction = Direction->str();
  A.Atomic = *Atomic;
  for (const json::Value &V : *Addresses) {
    std::optional<int64_t> I = V.getAsInteger();
    if (!I)
      return fail("an address that is not an integer");
    A.Addresses.push_back(uint64_t(*I));
  }
  return Error::success();
}

/// Whether \p Traced is as far above the traced value of the argument
/// whose truth value is the nearest at or below \p Truth (false without
/// the launches' buffers).
bool inSameBuffer(const CompareOptions &O, uint64_t Dispatch, uint64_t Truth,
                  uint64_t Traced) {
  if (!O.TruthBuffers || !O.TracedBuffers)
    return false;
  auto T = O.TruthBuffers->find(Dispatch), M = O.TracedBuffers->find(Dispatch);
  if (T == O.TruthBuffers->end() || M == O.TracedBuffers->end() ||
      T->second.size() != M->second.size())
    return false;
  std::optional<size_t> Nearest;
  for (size_t K = 0; K < T->second.size(); ++K)
    if (T->second[K] <= Truth &&
        (!Nearest || T->second[K] > T->second[*Nearest]))
      Nearest = K;
  return Nearest &&
         Traced - M->second[*Nearest] == Truth - T->second[*Nearest];
}

} // namespace

Expected<std::vector<MemoryAccess>> readTruthTrace(StringRef TracePath,
                                                   StringRef CountersPath) {
  Expected<std::string> Counters = slurp(CountersPath);
  if (!Counters)
    return Counters.takeError();
  // (dispatch, pc) -> function+offset.
  std::map<std::pair<uint64_t, uint64_t>, std::string> Names;
  if (Error E = forEachLine(
          CountersPath, *Counters, [&](const json::Object &O) -> Error {
            std::optional<int64_t> D = O.getInteger("dispatch");
            const json::Array *Is = O.getArray("instructions");
            if (!D || !Is)
              return fail("no dispatch or instructions");
            for (const json::Value &V : *Is) {
              const json::Object *I = V.getAsObject();
              std::optional<int64_t> Pc = I ? I->getInteger("pc") : std::nullopt;
              std::optional<int64_t> Off =
                  I ? I->getInteger("offset") : std::nullopt;
              std::optional<StringRef> F =
                  I ? I->getString("function") : std::nullopt;
              if (!Pc || !Off || !F)
                return fail("an instruction without pc, offset or function");
              Names[{uint64_t(*D), uint64_t(*Pc)}] =
                  instructionName(*F, uint64_t(*Off));
            }
            return Error::success();
          }))
    return std::move(E);
  Expected<std::string> Trace = slurp(TracePath);
  if (!Trace)
    return Trace.takeError();
  std::vector<MemoryAccess> Out;
  if (Error E = forEachLine(
          TracePath, *Trace, [&](const json::Object &O) -> Error {
            MemoryAccess A;
            if (Error E = readAccess(O, A))
              return E;
            std::optional<int64_t> Pc = O.getInteger("pc");
            if (!Pc)
              return fail("no pc");
            auto It = Names.find({A.Dispatch, uint64_t(*Pc)});
            A.Instruction = It != Names.end()
                                ? It->second
                                : "pc 0x" + utohexstr(uint64_t(*Pc), true);
            Out.push_back(std::move(A));
            return Error::success();
          }))
    return std::move(E);
  return Out;
}

Expected<std::vector<MemoryAccess>> parseMemTraceJson(StringRef Json) {
  std::vector<MemoryAccess> Out;
  if (Error E = forEachLine(
          "loom trace show --json", Json, [&](const json::Object &O) -> Error {
            MemoryAccess A;
            if (Error E = readAccess(O, A))
              return E;
            std::optional<StringRef> F = O.getString("function");
            std::optional<int64_t> Off = O.getInteger("offset");
            if (!F || !Off)
              return fail("no function or offset");
            A.Instruction = instructionName(*F, uint64_t(*Off));
            Out.push_back(std::move(A));
            return Error::success();
          }))
    return std::move(E);
  return Out;
}

std::vector<std::string>
compareMemoryTraces(const std::vector<MemoryAccess> &Truth,
                    const std::vector<MemoryAccess> &Traced,
                    const CompareOptions &Options) {
  std::vector<std::string> Diffs;
  auto Differ = [&](const std::string &Why) {
    if (Diffs.size() < Options.MaxDifferences)
      Diffs.push_back(Why);
  };
  using WaveKey = std::pair<uint64_t, uint64_t>;
  auto ByWave = [](const std::vector<MemoryAccess> &All) {
    std::map<WaveKey, std::vector<const MemoryAccess *>> Out;
    for (const MemoryAccess &A : All)
      Out[{A.Dispatch, A.Wave}].push_back(&A);
    return Out;
  };
  auto Want = ByWave(Truth), Got = ByWave(Traced);
  for (const auto &[Key, List] : Got)
    if (!Want.count(Key))
      Differ(formatv("dispatch {0} wave {1}: {2} accesses traced, none in "
                     "the truth",
                     Key.first, Key.second, List.size()));
  // (dispatch, truth page) -> traced - truth.
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> Moves;
  for (const auto &[Key, List] : Want) {
    auto It = Got.find(Key);
    size_t Have = It == Got.end() ? 0 : It->second.size();
    std::string Where = formatv("dispatch {0} wave {1}", Key.first,
                                Key.second);
    if (Have != List.size())
      Differ(formatv("{0}: {1} accesses in the truth, {2} traced", Where,
                     List.size(), Have));
    for (size_t I = 0; I < List.size() && I < Have; ++I) {
      const MemoryAccess &T = *List[I], &M = *It->second[I];
      std::string At = formatv("{0} access {1} ({2})", Where, I,
                               T.Instruction);
      auto Show = [](const MemoryAccess &A) {
        return formatv("{0} {1} {2}{3} {4}B exec {5:x16}", A.Instruction,
                       A.Space, A.Direction, A.Atomic ? " atomic" : "",
                       A.BytesPerLane, A.Exec)
            .str();
      };
      if (std::tie(T.Instruction, T.Space, T.Direction, T.Atomic,
                   T.BytesPerLane, T.Exec) !=
              std::tie(M.Instruction, M.Space, M.Direction, M.Atomic,
                       M.BytesPerLane, M.Exec) ||
          T.Addresses.size() != M.Addresses.size()) {
        Differ(At + ": truth " + Show(T) + ", traced " + Show(M));
        continue;
      }
      bool Relative = !Options.ExactAddresses &&
                      (T.Space == "global" || T.Space == "scalar");
      for (size_t L = 0; L < T.Addresses.size(); ++L) {
        uint64_t Move = M.Addresses[L] - T.Addresses[L];
        if (Relative) {
          // At its offset in its argument's buffer, or where its page
          // went: the first of a page's addresses so placed sets that.
          auto [Known, New] = Moves.try_emplace(
              {T.Dispatch, T.Addresses[L] >> 12}, Move);
          if (inSameBuffer(Options, T.Dispatch, T.Addresses[L],
                           M.Addresses[L]) ||
              New || Known->second == Move)
            continue;
        } else if (Move == 0) {
          continue;
        }
        Differ(formatv("{0}: address {1} (of {2}) is {3:x} in the truth, "
                       "{4:x} traced{5}",
                       At, L, T.Addresses.size(), T.Addresses[L],
                       M.Addresses[L],
                       Relative ? " (not at its offset in a buffer of the "
                                  "launch's, nor where the rest of its page "
                                  "went)"
                                : ""));
        break;
      }
    }
  }
  return Diffs;
}

} // namespace loom::test
