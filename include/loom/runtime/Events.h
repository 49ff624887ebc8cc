//===- loom/runtime/Events.h - System events and async signal handlers ----===//
//
// System events (hsa_amd_register_system_event_handler): a GPU memory fault
// is delivered to every registered handler. With none registered, ROCr
// prints the fault and aborts the process; Loom prints it and lets the
// process live on (the queue still enters its error state).
//
// Async signal handlers (hsa_amd_signal_async_handler, hsa_amd_async_function)
// run on one handler thread.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_RUNTIME_EVENTS_H
#define LOOM_RUNTIME_EVENTS_H

#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"

namespace loom::runtime {

namespace events {
void addSystemHandler(hsa_amd_system_event_callback_t Callback, void *Data);
/// Delivers \p E to every handler; false if there was none.
bool raise(const hsa_amd_event_t &E);
void clear();
} // namespace events

namespace async {
/// Calls \p Handler(value, Arg) once \p Signal's value satisfies the
/// condition; again each time while the handler returns true.
hsa_status_t addHandler(hsa_signal_t Signal, hsa_signal_condition_t Cond,
                        hsa_signal_value_t Value,
                        hsa_amd_signal_handler Handler, void *Arg);
/// Runs \p Fn(Arg) on the handler thread.
hsa_status_t addFunction(void (*Fn)(void *), void *Arg);
void shutdown();
} // namespace async

} // namespace loom::runtime

#endif // LOOM_RUNTIME_EVENTS_H
