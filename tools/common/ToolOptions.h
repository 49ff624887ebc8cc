//===- tools/common/ToolOptions.h - What every shipped tool shares --------===//
//
// The options every shipped tool takes (docs/tools.md):
//
//   kernel=REGEX   instrument only kernels whose symbol REGEX matches
//                  (llvm::Regex, searched: "scale" matches "_Z5scalePffi")
//   dispatch=N     only the N-th dispatch of the process (from 0)
//   dispatch=N-M   only dispatches N to M, both included
//   output=FILE    where the tool writes its detailed results
//
// plus the opcode name the virtual GPU's counters use (`loom exec
// --counters`), and the host side of the device counters the counting
// tools index by a per-kernel slot.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TOOLS_COMMON_TOOLOPTIONS_H
#define LOOM_TOOLS_COMMON_TOOLOPTIONS_H

#include "loom/instrument/Tool.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace loom::tools {

class ToolOptions {
public:
  /// Reads kernel=, dispatch= and output= for the tool \p Tool (its name,
  /// for messages).
  static llvm::Expected<ToolOptions> parse(instrument::ToolContext &Ctx,
                                           llvm::StringRef Tool) {
    ToolOptions O;
    O.Tool = Tool.str();
    auto Fail = [&](const std::string &Why) {
      return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s",
                                     Why.c_str());
    };
    if (auto K = Ctx.option("kernel")) {
      O.KernelPattern = *K;
      O.Kernel.emplace(*K);
      std::string Why;
      if (!O.Kernel->isValid(Why))
        return Fail("kernel=" + *K + ": " + Why);
    }
    if (auto D = Ctx.option("dispatch")) {
      llvm::StringRef Text = *D, First = Text, Last = Text;
      if (Text.contains('-'))
        std::tie(First, Last) = Text.split('-');
      if (!llvm::to_integer(First, O.FirstDispatch) ||
          !llvm::to_integer(Last, O.LastDispatch) ||
          O.LastDispatch < O.FirstDispatch)
        return Fail("dispatch=" + *D + ": not a number N or a range N-M");
    }
    if (auto F = Ctx.option("output"))
      O.Output = *F;
    return O;
  }

  bool wantsKernel(llvm::StringRef Symbol) const {
    return !Kernel || Kernel->match(Symbol);
  }
  /// Whether dispatch \p D is one the options select (its index and its
  /// kernel).
  bool wants(const instrument::Dispatch &D) const {
    return D.Index >= FirstDispatch && D.Index <= LastDispatch &&
           wantsKernel(D.Kernel);
  }

  const std::string &output() const { return Output; }
  const std::string &tool() const { return Tool; }

  /// Opens output=FILE (truncated), or null if none was given; a file that
  /// cannot be opened is said on stderr, once, and gives null.
  std::unique_ptr<llvm::raw_fd_ostream> openOutput() const {
    if (Output.empty())
      return nullptr;
    std::error_code EC;
    auto OS = std::make_unique<llvm::raw_fd_ostream>(Output, EC,
                                                     llvm::sys::fs::OF_Text);
    if (EC) {
      llvm::errs() << Tool << ": output=" << Output << ": " << EC.message()
                   << "\n";
      return nullptr;
    }
    return OS;
  }

private:
  std::string Tool;
  std::string KernelPattern;
  std::optional<llvm::Regex> Kernel;
  uint64_t FirstDispatch = 0;
  uint64_t LastDispatch = UINT64_MAX;
  std::string Output;
};

/// The operation name `loom exec --counters` gives an instruction: its MC
/// name without the encoding suffix ("_vi", "_gfx90a"...), the encoding
/// ("_e32", "_e64", "_sdwa", "_dpp", "_SADDR"), the MFMA destination
/// ("_acd", "_vcd") and gfx940's scratch address forms ("_VE", "_ST",
/// "_SVS"), as the virtual GPU's decoder names its operations.
inline std::string operationName(const isa::McContext &MC, unsigned Opcode) {
  llvm::StringRef N = isa::stripEncodingSuffix(MC.opcodeName(Opcode));
  if (N.consume_back("_acd") || N.consume_back("_vcd"))
    N = isa::stripEncodingSuffix(N);
  for (llvm::StringRef S : {"_e32", "_e64", "_sdwa", "_dpp", "_SADDR"})
    if (N.consume_back(S))
      break;
  if (N.starts_with("SCRATCH_"))
    for (llvm::StringRef Form : {"_VE", "_ST", "_SVS"})
      if (N.consume_back(Form))
        break;
  return N.str();
}

/// A block's name as the counters' "blocks" name it: "function+0xoffset".
inline std::string blockName(llvm::StringRef Function, uint64_t Offset) {
  return (Function + "+0x" + llvm::utohexstr(Offset, /*LowerCase=*/true)).str();
}
inline std::string blockName(const instrument::BinaryFunction &F,
                             const instrument::BinaryBasicBlock &B) {
  return blockName(F.name(), B.Address - F.address());
}

/// Counters on the device, a LOOM_DEVICE array of \p Capacity slots of
/// \p Words 64-bit words each, handed out to kernels as they are
/// instrumented: a kernel's slots are [Base, Base + Count).
class SlotAllocator {
public:
  SlotAllocator(llvm::StringRef Global, uint64_t Capacity, unsigned Words)
      : Global(Global.str()), Capacity(Capacity), Words(Words) {}

  /// \p Count slots for one kernel, or an error if the array is full (the
  /// kernel then runs its original code).
  llvm::Expected<uint64_t> allocate(llvm::StringRef Kernel, uint64_t Count) {
    if (Next + Count > Capacity)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "%s needs %llu counters, but only %llu of %llu are left",
          Kernel.str().c_str(), (unsigned long long)Count,
          (unsigned long long)(Capacity - Next),
          (unsigned long long)Capacity);
    uint64_t Base = Next;
    Next += Count;
    return Base;
  }

  /// Reads slots [Base, Base + Count) on \p Agent into \p Out, then zeroes
  /// them on the device for the next dispatch.
  llvm::Error take(instrument::ToolContext &Ctx, hsa_agent_t Agent,
                   uint64_t Base, uint64_t Count,
                   std::vector<uint64_t> &Out) const {
    Out.assign(Count * Words, 0);
    if (!Count)
      return llvm::Error::success();
    uint64_t Offset = Base * Words * 8, Bytes = Count * Words * 8;
    if (llvm::Error E =
            Ctx.readGlobal(Agent, Global, Offset, Out.data(), Bytes))
      return E;
    std::vector<uint64_t> Zero(Count * Words, 0);
    return Ctx.writeGlobal(Agent, Global, Offset, Zero.data(), Bytes);
  }

private:
  std::string Global;
  uint64_t Capacity;
  unsigned Words;
  uint64_t Next = 0;
};

} // namespace loom::tools

#endif // LOOM_TOOLS_COMMON_TOOLOPTIONS_H
