//===- emu/Futex.h - Sleeping on an atomic word ---------------------------===//
#ifndef LOOM_EMU_FUTEX_H
#define LOOM_EMU_FUTEX_H

#include <atomic>
#include <climits>
#include <cstdint>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace loom::emu {

/// Sleeps while \p Word holds \p Value (or until woken, or spuriously).
inline void futexWait(std::atomic<uint32_t> &Word, uint32_t Value) {
  syscall(SYS_futex, reinterpret_cast<uint32_t *>(&Word), FUTEX_WAIT_PRIVATE,
          Value, nullptr, nullptr, 0);
}

/// Wakes up to \p Count threads sleeping on \p Word.
inline void futexWake(std::atomic<uint32_t> &Word, int Count = INT_MAX) {
  syscall(SYS_futex, reinterpret_cast<uint32_t *>(&Word), FUTEX_WAKE_PRIVATE,
          Count, nullptr, nullptr, 0);
}

} // namespace loom::emu

#endif // LOOM_EMU_FUTEX_H
