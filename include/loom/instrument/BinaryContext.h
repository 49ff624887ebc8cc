//===- loom/instrument/BinaryContext.h - One code object, lifted ----------===//
//
// As BOLT's BinaryContext: owns (or borrows) the MC objects for one code
// object, once, and the functions lifted from it — every kernel and device
// function found through its symbols — plus the call graph between them.
//
//   auto BC = instrument::BinaryContext::create(CO);   // Disassembled
//   if (Error E = (*BC)->buildCFGs()) ...             // CFGBuilt
//   for (BinaryFunction &F : (*BC)->functions()) ...
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_INSTRUMENT_BINARYCONTEXT_H
#define LOOM_INSTRUMENT_BINARYCONTEXT_H

#include "loom/codeobj/CodeObject.h"
#include "loom/instrument/BinaryFunction.h"
#include "loom/instrument/CallGraph.h"
#include "loom/instrument/InstrProperties.h"
#include "loom/isa/Disassembler.h"
#include "loom/isa/McContext.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <vector>

namespace loom::instrument {

class BinaryContext {
public:
  /// Lifts every kernel and device function of \p CO (state Disassembled),
  /// with an McContext of its own for CO's target. \p CO must outlive the
  /// context.
  static llvm::Expected<std::unique_ptr<BinaryContext>>
  create(const codeobj::CodeObject &CO);
  /// Same, borrowing \p MC (set up for CO's target; it must outlive the
  /// context).
  static llvm::Expected<std::unique_ptr<BinaryContext>>
  create(const codeobj::CodeObject &CO, isa::McContext &MC);
  /// Lifts only the kernels \p Roots and the device functions they reach
  /// through direct calls (every function if one of those calls through a
  /// pointer), borrowing \p MC: what instrumenting \p Roots needs, at a
  /// cost that follows their code, not the code object's (a library's
  /// code object holds thousands of kernels). An error if a root is not a
  /// kernel or function of \p CO.
  static llvm::Expected<std::unique_ptr<BinaryContext>>
  create(const codeobj::CodeObject &CO, isa::McContext &MC,
         llvm::ArrayRef<llvm::StringRef> Roots);

  ~BinaryContext();
  BinaryContext(const BinaryContext &) = delete;
  BinaryContext &operator=(const BinaryContext &) = delete;

  const codeobj::CodeObject &codeObject() const { return CO; }
  isa::McContext &mc() const { return MC; }
  const InstrAnalyzer &analyzer() const { return Analyzer; }
  const isa::Disassembler &disassembler() const { return Disasm; }

  /// Kernels and device functions, in address order.
  class FunctionRange {
  public:
    using Iter = std::vector<std::unique_ptr<BinaryFunction>>::const_iterator;
    struct iterator {
      Iter I;
      BinaryFunction &operator*() const { return **I; }
      BinaryFunction *operator->() const { return I->get(); }
      iterator &operator++() {
        ++I;
        return *this;
      }
      bool operator!=(const iterator &O) const { return I != O.I; }
      bool operator==(const iterator &O) const { return I == O.I; }
    };
    FunctionRange(Iter B, Iter E) : B(B), E(E) {}
    iterator begin() const { return {B}; }
    iterator end() const { return {E}; }
    size_t size() const { return E - B; }

  private:
    Iter B, E;
  };
  FunctionRange functions() const { return {Functions.begin(), Functions.end()}; }

  /// By symbol name; null if none.
  BinaryFunction *function(llvm::StringRef Name) const;
  /// The function whose entry is \p Address; null if none.
  BinaryFunction *functionAt(uint64_t Address) const;

  /// Builds the CFG of every function still Disassembled, then the call
  /// graph.
  llvm::Error buildCFGs();

  /// Valid once buildCFGs() succeeded.
  const CallGraph &callGraph() const { return Calls; }

private:
  BinaryContext(const codeobj::CodeObject &CO, isa::McContext &MC,
                std::unique_ptr<isa::McContext> Owned);
  /// Every function, or with \p Roots those that create() names.
  llvm::Error disassemble(llvm::ArrayRef<llvm::StringRef> Roots);
  /// Resolves calls through a pair another block set (BinaryContext.cpp).
  void resolveCallsAcrossBlocks();

  std::unique_ptr<isa::McContext> OwnedMC;
  const codeobj::CodeObject &CO;
  isa::McContext &MC;
  InstrAnalyzer Analyzer;
  isa::Disassembler Disasm;
  std::vector<std::unique_ptr<BinaryFunction>> Functions;
  llvm::DenseMap<uint64_t, BinaryFunction *> ByAddress;
  llvm::StringMap<BinaryFunction *> ByName;
  CallGraph Calls;
};

} // namespace loom::instrument

#endif // LOOM_INSTRUMENT_BINARYCONTEXT_H
