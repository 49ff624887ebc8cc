//===- OpTable.h - Operation lists shared by kernels and references -------===//
//
// An operation list is an X-macro of (name, kind, expression) triples. One
// list gives the function both sides run, the number of results and, on the
// host, the names and comparison kinds failures are reported with, so the
// three cannot drift apart.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TESTS_EMU_DIFF_COMMON_OPTABLE_H
#define LOOM_TESTS_EMU_DIFF_COMMON_OPTABLE_H

namespace diff {

/// How a result is compared with its reference.
enum OpKind : char {
  KInt = 'I',  ///< Integer: bit-exact.
  KF32 = 'F',  ///< binary32 bits: exact, except any NaN matches any NaN.
  KF32Z = 'Z', ///< As KF32, and +0 matches -0 (fmin/fmax of zeros).
  KF64 = 'D',  ///< binary64 bits, as KF32.
  KF64Z = 'W', ///< As KF64, and +0 matches -0.
  KF16 = 'H',  ///< binary16 bits (low 16 bits), as KF32.
  KF16Z = 'G', ///< As KF16, and +0 matches -0.
  KBF16 = 'B', ///< bfloat16 bits (low 16 bits), as KF32.
};

} // namespace diff

#define DIFF_OP_COUNT(Name, Kind, Expr) +1
#define DIFF_OP_NAME(Name, Kind, Expr) #Name,
#define DIFF_OP_KIND(Name, Kind, Expr) ::diff::Kind,

#endif // LOOM_TESTS_EMU_DIFF_COMMON_OPTABLE_H
