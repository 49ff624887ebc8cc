//===- run/Printf.h - printf formatted on the host ------------*- C++ -*-===//
#ifndef LOOM_RUN_PRINTF_H
#define LOOM_RUN_PRINTF_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <string>

namespace loom::run {

/// Formats a printf call the device packed (devlib/stdio.c): the format
/// string and its NUL, then per conversion 8 bytes or a NUL-terminated
/// string. A stream cut short prints what it has.
std::string formatPrintf(llvm::ArrayRef<uint8_t> Packed);

} // namespace loom::run

#endif // LOOM_RUN_PRINTF_H
