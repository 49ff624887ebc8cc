//===- instrument/SeamHazards.h - Inserted code as rules see it -*- C++ -*-===//
//
// Internal to instrument/. What a point's inserted code looks like to the
// wait-state rules (loom/instrument/WaitStates.h) at its seams: its hook
// body's first and last instructions, read off its machine code when it is
// spliced as words (registers moved as it is), and stand-ins for the glue
// Loom writes around it (saves, argument moves, restores), which are plain
// moves: SALU and VALU copies, v_writelane/v_readlane with constant lanes,
// v_accvgpr_read.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_INSTRUMENT_SEAMHAZARDS_H
#define LOOM_INSTRUMENT_SEAMHAZARDS_H

#include "BodyPlacement.h"
#include "PointCompiler.h"

#include "loom/instrument/BinaryContext.h"
#include "loom/instrument/WaitStates.h"

#include <vector>

namespace loom::instrument::detail {

struct BodyHazards {
  /// The body's first instructions, in order, and its last ones.
  std::vector<HazardInst> Head, Tail;
};
/// \p P's body placed as \p Place says, writing \p Clobbers (its placed
/// clobbers). A body spliced as assembly (not words) is unknown: a
/// stand-in that reads EXEC as DPP and lane accesses do, and writes all it
/// clobbers.
BodyHazards bodyHazards(const BinaryContext &BC, const CompiledPoint &P,
                        const BodyPlacement &Place,
                        const RegisterSet &Clobbers);

/// The start of the inserted code: the glue reads \p Touched (saves, the
/// arguments' sources), its vector registers with VALU copies and, if
/// \p Lanes (saves into VGPR lanes), its scalar ones with v_writelane too;
/// the rest with SALU moves, which no rule constrains; it writes the
/// vector registers it touches (parameters, homes). It may be no
/// instruction at all: then the body's head follows at once.
std::vector<HazardInst> glueHead(const RegisterSet &Touched, bool Lanes,
                                 const BodyHazards &Body);

/// The argument moves right before the body: VALU writes of its VGPR
/// parameters (none if it has none).
std::vector<HazardInst> argumentWrites(const CompiledPoint &P,
                                       unsigned VgprShift);

/// The end of the inserted code, in program order: the body's tail, then
/// the restores (VALU copies of \p RestoredVgprs, SALU writes of M0 if
/// \p RestoresM0) and the s_nop 4 that follows lane restores if
/// \p LaneNop.
std::vector<HazardInst> glueTail(const BodyHazards &Body,
                                 const RegisterSet &RestoredVgprs,
                                 bool RestoresM0, bool LaneNop);

} // namespace loom::instrument::detail

#endif // LOOM_INSTRUMENT_SEAMHAZARDS_H
