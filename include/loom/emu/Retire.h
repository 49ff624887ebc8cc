//===- loom/emu/Retire.h - Free what running dispatches may still use -----===//
//
// A dispatch reads kernels, code and memory through addresses it resolved
// when it started (a wave caches the ranges it hit, the decoded code of its
// region). Whatever may be in such use is released through
// retireAfterDispatches: at once when no dispatch runs, otherwise once every
// dispatch running at the time of the call (on any device) has ended.
// Removing the range from a memory map first makes new accesses fault, as
// on the hardware; only the host storage outlives them.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_EMU_RETIRE_H
#define LOOM_EMU_RETIRE_H

#include <cstdint>
#include <functional>

namespace loom::emu {

/// Runs \p Release once no dispatch that is running now still runs.
void retireAfterDispatches(std::function<void()> Release);

/// Marks a dispatch running (Device::dispatch does): returns its token.
uint64_t beginDispatch();
/// Ends the dispatch of \p Token; runs what no running dispatch blocks.
void endDispatch(uint64_t Token);

/// Process exit: ends every running dispatch (DispatchStatus::Cancelled)
/// and waits, a few seconds at most, until none runs; later dispatches end
/// at once. Registered with atexit once the trace compiler exists, so it
/// runs before the compiled code is unmapped.
void stopAllDispatches();
/// True once stopAllDispatches was called.
bool stoppingAllDispatches();

/// Registers stopAllDispatches with atexit (once); true once it is. A
/// static object constructed later (say, by LLVM during a trace compile)
/// is destroyed before that handler runs, so `loom exec`'s shim registers
/// the handler again after each later registration (hsa/ExitGuardShim.c).
void armStopAtExit();
bool stopAtExitArmed();

} // namespace loom::emu

#endif // LOOM_EMU_RETIRE_H
