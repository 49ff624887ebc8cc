//===- emu/Clock.h - The steady clock in nanoseconds ----------------------===//
#ifndef LOOM_EMU_CLOCK_H
#define LOOM_EMU_CLOCK_H

#include <chrono>
#include <cstdint>

namespace loom::emu {

inline uint64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

} // namespace loom::emu

#endif // LOOM_EMU_CLOCK_H
