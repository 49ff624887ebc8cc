//===- instrument/BodyPlacement.h - A hook body's registers at a point -*- C++ -*-===//
//
// Internal to instrument/. A point's body in machine words (CompiledPoint::
// Insts, shared by the points of a shape) is placed at each point by
// moving its registers: up, above the original code's (a shift), and its
// parameters renamed to the registers their values already live in there
// (a launch state or wave counter register, an original SGPR or VGPR,
// EXEC, VCC or M0), so that the glue copies nothing into them.
//
// LLVM reuses a parameter's register once the parameter is dead, so a
// rename applies to the operands that read the value passed (no path from
// the body's start wrote the register before: ParamReads); later reads
// and writes keep the parameter's own register. A parameter some operand
// reads both ways is not renamed. A wave counter the body returns into is
// renamed whole, writes included: the body then updates the counter in
// place, and the glue copies nothing back. A rename is only made where it
// is exactly the same program: the body writes the source under no other
// name, and every instruction takes the new register (a register tuple
// renamed whole and in order, a register of the operand's class, not one
// side of a tied pair).
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_INSTRUMENT_BODYPLACEMENT_H
#define LOOM_INSTRUMENT_BODYPLACEMENT_H

#include "loom/instrument/BinaryFunction.h"
#include "loom/instrument/InstrProperties.h"
#include "loom/instrument/RegisterSet.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/MC/MCInst.h"

#include <map>
#include <optional>
#include <tuple>
#include <vector>

namespace loom::instrument::detail {

/// Which operands of a body's instructions may be renamed: those in the
/// web (the writes and reads one value joins) of a parameter's value as
/// passed and, for a parameter a wave counter is returned in, in the webs
/// of the values returned. Units as RegisterSet numbers them.
struct ParamReads {
  /// Per instruction, bit K: every parameter unit of operand K is in such
  /// a web.
  std::vector<uint64_t> Entry;
  /// Parameters never renamed: the value passed is read after a write of
  /// the body on some path (its source would be written), or a web shares
  /// an operand with another (a tuple renamed in part, one side of a tied
  /// pair), or is written implicitly.
  RegisterSet Mixed;
};

/// The webs of \p Params (\p Results: those returned in) in \p F's
/// blocks: ParamReads::Entry by instruction address.
std::map<uint64_t, uint64_t> paramReads(const BinaryFunction &F,
                                        const RegisterSet &Params,
                                        const RegisterSet &Results,
                                        RegisterSet &Mixed);

/// One parameter renamed: body unit From becomes To in the operands of its
/// webs (ParamReads); InPlace: a wave counter returned into, written too.
struct Rename {
  unsigned From = 0, To = 0;
  bool InPlace = false;
  friend bool operator<(const Rename &A, const Rename &B) {
    return std::tie(A.From, A.To, A.InPlace) < std::tie(B.From, B.To, B.InPlace);
  }
  friend bool operator==(const Rename &A, const Rename &B) {
    return !(A < B) && !(B < A);
  }
};

/// Where a body's registers go.
struct BodyPlacement {
  unsigned SgprShift = 0, VgprShift = 0;
  std::vector<Rename> Renames; ///< by From

  const Rename *renameOf(unsigned U) const;
  bool renamed(unsigned U) const { return renameOf(U) != nullptr; }
  /// Where body unit \p U goes, in an operand of its webs (\p InWeb) or
  /// not.
  unsigned unit(unsigned U, bool InWeb) const;
  /// The units the body's sources are read from.
  RegisterSet sources() const;

  friend bool operator<(const BodyPlacement &A, const BodyPlacement &B) {
    return std::tie(A.SgprShift, A.VgprShift, A.Renames) <
           std::tie(B.SgprShift, B.VgprShift, B.Renames);
  }
};

/// A parameter of a body (a unit, not shifted) and the unit its value is
/// in at a point, if one is (not for immediates and SCC); Result if the
/// body returns a wave counter's value into it and Source is that
/// counter's register.
struct ParamSource {
  unsigned Param = 0;
  std::optional<unsigned> Source;
  bool Result = false;
};

/// The units the instructions of \p Insts write (the body's own numbers).
RegisterSet bodyWrites(const InstrAnalyzer &A,
                       llvm::ArrayRef<llvm::MCInst> Insts);

/// Where body \p Insts (reading its parameters as \p Reads says, writing
/// \p Writes: bodyWrites) goes with shifts \p SgprShift and \p VgprShift
/// and the parameters of \p Params (every one of the body's) renamed
/// where that is the same program (the file comment says when).
BodyPlacement placeBody(const InstrAnalyzer &A,
                        llvm::ArrayRef<llvm::MCInst> Insts,
                        const ParamReads &Reads, const RegisterSet &Writes,
                        unsigned SgprShift, unsigned VgprShift,
                        llvm::ArrayRef<ParamSource> Params);

/// Moves \p Inst's registers as \p P says, \p Entry its operands in the
/// parameters' webs (ParamReads::Entry); false if one has no place (no
/// such register, or one its operand does not take).
bool placeInstruction(const InstrAnalyzer &A, llvm::MCInst &Inst,
                      uint64_t Entry, const BodyPlacement &P);

/// Immediate parameters folded into a placed body: (parameter unit,
/// value), by unit.
using Folds = std::vector<std::pair<unsigned, uint32_t>>;

/// Which of \p Immediates (parameter unit, value; parameters the glue
/// would otherwise set) body \p Insts placed as \p P can take as
/// immediate operands where it reads them, instead of a register: each a
/// 32-bit operand that accepts an immediate, the value an inline constant
/// or, in a scalar ALU instruction (SOP1, SOP2, SOPC), a literal; checked
/// by encoding the instruction and decoding it back. A point's values
/// differ from its shape's other points': only the instructions reading
/// them are encoded per point.
Folds foldImmediates(const InstrAnalyzer &A, llvm::ArrayRef<llvm::MCInst> Insts,
                     const ParamReads &Reads, const BodyPlacement &P,
                     llvm::ArrayRef<std::pair<unsigned, uint32_t>> Immediates);

/// Whether instruction \p N of the body (\p Inst, \p Entry its
/// ParamReads::Entry) reads a parameter of \p F; if so, folds it into
/// \p Inst (placed already).
bool foldInstruction(const InstrAnalyzer &A, llvm::MCInst &Inst,
                     uint64_t Entry, const Folds &F);

/// What the placed body and its glue write: \p Clobbers (CompiledPoint::
/// Clobbers: \p Writes and every parameter register) placed outside the
/// parameters' webs, less the renamed and folded parameters the body
/// never writes (nothing copies into them). Not the wave counters updated in place:
/// Loom's own registers, which a save and restore would undo.
RegisterSet placedClobbers(const RegisterSet &Clobbers,
                           const RegisterSet &Writes, const BodyPlacement &P,
                           const Folds &F = {});

} // namespace loom::instrument::detail

#endif // LOOM_INSTRUMENT_BODYPLACEMENT_H
