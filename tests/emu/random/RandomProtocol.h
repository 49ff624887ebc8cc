//===- RandomProtocol.h - What a generated random file promises -----------===//
//
// A generated file (rand_<seed>.cpp) is compiled twice from the same text:
// for gfx90a into rand_<seed>.O<L>.elf, and for the host into
// rand_<seed>.O<L>.host.so. This header is the contract the runner relies on.
//
// Device side: one kernel per program,
//   prog_<k>(const u64 *in, const u64 *uni, u64 *out, u32 n, u32 bs)
// Work-item gid = workgroup_id * bs + workitem_id (1-D); if gid < n it
// evaluates program k on in[gid * MaxParams + p] (lane-varying parameters)
// or uni[p] (parameters marked uniform, loaded with scalar loads) and stores
// the result, widened to 64 bits, in out[gid].
//
// Host side (extern "C", in the shared object):
//   const u32 loom_rand_version;          == ProtocolVersion
//   const u32 loom_rand_count;            programs in the file
//   const u64 loom_rand_seed;             seed it was generated from
//   const u32 loom_rand_size;             and size (GeneratorOptions)
//   const ProgramEntry loom_rand_programs[loom_rand_count];
//   void loom_rand_run(u32 prog, const u64 *in, const u64 *uni, u64 *out,
//                      u32 n);            the same, for work-items 0..n-1
//
// Parameter p of a program is read from its 64-bit slot by truncation (ints)
// or bit-cast of the low bits (floats); a result is widened by sign or zero
// extension (ints) or stored as its bits (floats).
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_TESTS_EMU_RANDOM_RANDOMPROTOCOL_H
#define LOOM_TESTS_EMU_RANDOM_RANDOMPROTOCOL_H

#include <cstdint>

namespace loom::randtest {

inline constexpr uint32_t ProtocolVersion = 1;
/// Input slots per work-item (a program has at most this many parameters).
inline constexpr uint32_t MaxParams = 8;

/// Scalar types of parameters, results and expressions.
enum class Type : uint32_t { I8, U8, I16, U16, I32, U32, I64, U64, F32, F64 };
inline constexpr unsigned NumTypes = 10;

inline const char *typeName(Type T) {
  static const char *const Names[] = {"i8",  "u8",  "i16", "u16", "i32",
                                      "u32", "i64", "u64", "f32", "f64"};
  return Names[static_cast<unsigned>(T)];
}
inline bool isFloat(Type T) { return T == Type::F32 || T == Type::F64; }
inline bool isSigned(Type T) {
  return T == Type::I8 || T == Type::I16 || T == Type::I32 || T == Type::I64;
}
inline unsigned bitWidth(Type T) {
  static const unsigned Bits[] = {8, 8, 16, 16, 32, 32, 64, 64, 32, 64};
  return Bits[static_cast<unsigned>(T)];
}

/// ProgramEntry::Flags
inline constexpr uint32_t FlagNoInline = 1;

/// One program as the host object describes it (same layout as the struct
/// the generator writes into every file).
struct ProgramEntry {
  const char *Name;       ///< "f_<k>"; its kernel is "prog_<k>".
  uint32_t Result;        ///< Type
  uint32_t NumParams;
  uint32_t Params[MaxParams]; ///< Type of each parameter.
  uint32_t UniformMask;   ///< Bit p: parameter p comes from uni[p].
  uint32_t Flags;
};

using RunFn = void (*)(uint32_t Prog, const uint64_t *In, const uint64_t *Uni,
                       uint64_t *Out, uint32_t N);

} // namespace loom::randtest

#endif // LOOM_TESTS_EMU_RANDOM_RANDOMPROTOCOL_H
