//===- Generator.cpp - Seeded random C++ programs for the emulator --------===//
#include "Generator.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cassert>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <optional>
#include <set>

#include <unistd.h>

namespace loom::randtest {

namespace {

//===----------------------------------------------------------------------===//
// Randomness: splitmix64, so a seed means the same program everywhere.
//===----------------------------------------------------------------------===//

class Rng {
public:
  explicit Rng(uint64_t Seed) : State(Seed) {}
  uint64_t next() {
    uint64_t Z = (State += 0x9e3779b97f4a7c15ull);
    Z = (Z ^ (Z >> 30)) * 0xbf58476d1ce4e5b9ull;
    Z = (Z ^ (Z >> 27)) * 0x94d049bb133111ebull;
    return Z ^ (Z >> 31);
  }
  /// Uniform in [0, N).
  unsigned below(unsigned N) { return N ? static_cast<unsigned>(next() % N) : 0; }
  /// True with probability Percent / 100.
  bool chance(unsigned Percent) { return below(100) < Percent; }
  template <typename T> const T &pick(const std::vector<T> &V) {
    assert(!V.empty());
    return V[below(V.size())];
  }

private:
  uint64_t State;
};

const std::vector<Type> WideInts = {Type::I32, Type::U32, Type::I64, Type::U64};
const std::vector<Type> NarrowInts = {Type::I8, Type::U8, Type::I16, Type::U16};
const std::vector<Type> Floats = {Type::F32, Type::F64};
/// Types of locals and of most expressions.
const std::vector<Type> ValueTypes = {Type::I32, Type::U32, Type::I64,
                                      Type::U64, Type::F32, Type::F64};

bool isNarrow(Type T) { return !isFloat(T) && bitWidth(T) < 32; }
std::string tn(Type T) { return typeName(T); }
/// "f" for f32 builtins, "" for f64.
const char *fsfx(Type T) { return T == Type::F32 ? "f" : ""; }

std::string hexFloat(double V, Type T) {
  if (std::isinf(V))
    return std::string(V < 0 ? "(-" : "(") + "__builtin_inf" + fsfx(T) + "())";
  char Buf[64];
  std::snprintf(Buf, sizeof Buf, "%a", V);
  std::string S = Buf;
  if (T == Type::F32)
    S += "f";
  return V < 0 || std::signbit(V) ? "(" + S + ")" : S;
}

/// "(T)e", parenthesised.
std::string cast(Type T, const std::string &E) { return "((" + tn(T) + ")" + E + ")"; }

/// \p E of type \p From as a value of type \p To, defined for every input.
std::string convert(const std::string &E, Type From, Type To) {
  if (From == To)
    return E;
  if (isFloat(From) && !isFloat(To)) {
    if (isNarrow(To))
      return cast(To, "cvt_i32_" + tn(From) + "(" + E + ")");
    return "cvt_" + tn(To) + "_" + tn(From) + "(" + E + ")";
  }
  return cast(To, E);
}

//===----------------------------------------------------------------------===//
// The text every file starts with: types and helpers defined the same way on
// both sides.
//===----------------------------------------------------------------------===//

const char *Prelude = R"(// Types and helpers: defined for every input, identical on both sides.
typedef signed char i8;
typedef unsigned char u8;
typedef short i16;
typedef unsigned short u16;
typedef int i32;
typedef unsigned int u32;
typedef long long i64;
typedef unsigned long long u64;
typedef float f32;
typedef double f64;
#define H static inline __attribute__((always_inline))

// Signed arithmetic wraps: it is done in unsigned.
H i32 add_i32(i32 a, i32 b) { return (i32)((u32)a + (u32)b); }
H i32 sub_i32(i32 a, i32 b) { return (i32)((u32)a - (u32)b); }
H i32 mul_i32(i32 a, i32 b) { return (i32)((u32)a * (u32)b); }
H i32 neg_i32(i32 a) { return (i32)(0u - (u32)a); }
H i64 add_i64(i64 a, i64 b) { return (i64)((u64)a + (u64)b); }
H i64 sub_i64(i64 a, i64 b) { return (i64)((u64)a - (u64)b); }
H i64 mul_i64(i64 a, i64 b) { return (i64)((u64)a * (u64)b); }
H i64 neg_i64(i64 a) { return (i64)(0ull - (u64)a); }
// Shift counts are masked to the width.
H i32 shl_i32(i32 a, u32 n) { return (i32)((u32)a << (n & 31u)); }
H i32 shr_i32(i32 a, u32 n) { return a >> (n & 31u); }
H u32 shl_u32(u32 a, u32 n) { return a << (n & 31u); }
H u32 shr_u32(u32 a, u32 n) { return a >> (n & 31u); }
H i64 shl_i64(i64 a, u32 n) { return (i64)((u64)a << (n & 63u)); }
H i64 shr_i64(i64 a, u32 n) { return a >> (n & 63u); }
H u64 shl_u64(u64 a, u32 n) { return a << (n & 63u); }
H u64 shr_u64(u64 a, u32 n) { return a >> (n & 63u); }
H u32 rotl_u32(u32 a, u32 n) { return (a << (n & 31u)) | (a >> ((32u - n) & 31u)); }
H u64 rotl_u64(u64 a, u32 n) { return (a << (n & 63u)) | (a >> ((64u - n) & 63u)); }
// Division by zero gives a; INT_MIN / -1 gives a; x % -1 is 0.
H i32 div_i32(i32 a, i32 b) { return (b == 0 || (b == -1 && a == (i32)0x80000000u)) ? a : a / b; }
H i32 rem_i32(i32 a, i32 b) { return b == 0 ? a : b == -1 ? 0 : a % b; }
H u32 div_u32(u32 a, u32 b) { return b ? a / b : a; }
H u32 rem_u32(u32 a, u32 b) { return b ? a % b : a; }
H i64 div_i64(i64 a, i64 b) { return (b == 0 || (b == -1 && a == (i64)0x8000000000000000ull)) ? a : a / b; }
H i64 rem_i64(i64 a, i64 b) { return b == 0 ? a : b == -1 ? 0 : a % b; }
H u64 div_u64(u64 a, u64 b) { return b ? a / b : a; }
H u64 rem_u64(u64 a, u64 b) { return b ? a % b : a; }
H i32 min_i32(i32 a, i32 b) { return a < b ? a : b; }
H i32 max_i32(i32 a, i32 b) { return a > b ? a : b; }
H u32 min_u32(u32 a, u32 b) { return a < b ? a : b; }
H u32 max_u32(u32 a, u32 b) { return a > b ? a : b; }
H i64 min_i64(i64 a, i64 b) { return a < b ? a : b; }
H i64 max_i64(i64 a, i64 b) { return a > b ? a : b; }
H u64 min_u64(u64 a, u64 b) { return a < b ? a : b; }
H u64 max_u64(u64 a, u64 b) { return a > b ? a : b; }
// Bit operations, defined at zero.
H u32 popc_u32(u32 a) { return (u32)__builtin_popcount(a); }
H u32 clz_u32(u32 a) { return a ? (u32)__builtin_clz(a) : 32u; }
H u32 ctz_u32(u32 a) { return a ? (u32)__builtin_ctz(a) : 32u; }
H u32 brev_u32(u32 a) { return __builtin_bitreverse32(a); }
H u32 bswap_u32(u32 a) { return __builtin_bswap32(a); }
H u64 popc_u64(u64 a) { return (u64)__builtin_popcountll(a); }
H u64 clz_u64(u64 a) { return a ? (u64)__builtin_clzll(a) : 64u; }
H u64 ctz_u64(u64 a) { return a ? (u64)__builtin_ctzll(a) : 64u; }
H u64 brev_u64(u64 a) { return __builtin_bitreverse64(a); }
H u64 bswap_u64(u64 a) { return __builtin_bswap64(a); }
H u32 mulhi_u32(u32 a, u32 b) { return (u32)(((u64)a * b) >> 32); }
H i32 mulhi_i32(i32 a, i32 b) { return (i32)(((i64)a * b) >> 32); }
H u64 mulhi_u64(u64 a, u64 b) { return (u64)(((unsigned __int128)a * b) >> 64); }
// Float to int: NaN gives 0, out-of-range values saturate.
H i32 cvt_i32_f32(f32 x) { return x != x ? 0 : x >= 0x1p31f ? 0x7fffffff : x <= -0x1p31f ? (i32)0x80000000u : (i32)x; }
H u32 cvt_u32_f32(f32 x) { return !(x >= 1.0f) ? 0u : x >= 0x1p32f ? 0xffffffffu : (u32)x; }
H i64 cvt_i64_f32(f32 x) { return x != x ? 0 : x >= 0x1p63f ? (i64)0x7fffffffffffffffull : x <= -0x1p63f ? (i64)0x8000000000000000ull : (i64)x; }
H u64 cvt_u64_f32(f32 x) { return !(x >= 1.0f) ? 0ull : x >= 0x1p64f ? ~0ull : (u64)x; }
H i32 cvt_i32_f64(f64 x) { return x != x ? 0 : x >= 0x1p31 ? 0x7fffffff : x <= -0x1p31 ? (i32)0x80000000u : (i32)x; }
H u32 cvt_u32_f64(f64 x) { return !(x >= 1.0) ? 0u : x >= 0x1p32 ? 0xffffffffu : (u32)x; }
H i64 cvt_i64_f64(f64 x) { return x != x ? 0 : x >= 0x1p63 ? (i64)0x7fffffffffffffffull : x <= -0x1p63 ? (i64)0x8000000000000000ull : (i64)x; }
H u64 cvt_u64_f64(f64 x) { return !(x >= 1.0) ? 0ull : x >= 0x1p64 ? ~0ull : (u64)x; }
// Float bits, with one NaN: NaN payloads and signs differ between targets.
H u32 bits_f32(f32 x) { return x != x ? 0x7fc00000u : __builtin_bit_cast(u32, x); }
H u64 bits_f64(f64 x) { return x != x ? 0x7ff8000000000000ull : __builtin_bit_cast(u64, x); }
// copysign never takes the sign of a NaN, for the same reason.
H f32 cps_f32(f32 a, f32 b) { return __builtin_copysignf(a, b != b ? 1.0f : b); }
H f64 cps_f64(f64 a, f64 b) { return __builtin_copysign(a, b != b ? 1.0 : b); }
H f32 ldx_f32(f32 a, i32 n) { return __builtin_ldexpf(a, n < -300 ? -300 : n > 300 ? 300 : n); }
H f64 ldx_f64(f64 a, i32 n) { return __builtin_ldexp(a, n < -2200 ? -2200 : n > 2200 ? 2200 : n); }
// fmin(-0, +0) may be either zero: + 0.0 makes every zero result +0.
H f32 min_f32(f32 a, f32 b) { return __builtin_fminf(a, b) + 0.0f; }
H f32 max_f32(f32 a, f32 b) { return __builtin_fmaxf(a, b) + 0.0f; }
H f64 min_f64(f64 a, f64 b) { return __builtin_fmin(a, b) + 0.0; }
H f64 max_f64(f64 a, f64 b) { return __builtin_fmax(a, b) + 0.0; }
// Reading parameters from 64-bit slots and widening results.
H i8 arg_i8(u64 x) { return (i8)x; }
H u8 arg_u8(u64 x) { return (u8)x; }
H i16 arg_i16(u64 x) { return (i16)x; }
H u16 arg_u16(u64 x) { return (u16)x; }
H i32 arg_i32(u64 x) { return (i32)x; }
H u32 arg_u32(u64 x) { return (u32)x; }
H i64 arg_i64(u64 x) { return (i64)x; }
H u64 arg_u64(u64 x) { return x; }
H f32 arg_f32(u64 x) { return __builtin_bit_cast(f32, (u32)x); }
H f64 arg_f64(u64 x) { return __builtin_bit_cast(f64, x); }
H u64 ret_i8(i8 v) { return (u64)(i64)v; }
H u64 ret_u8(u8 v) { return v; }
H u64 ret_i16(i16 v) { return (u64)(i64)v; }
H u64 ret_u16(u16 v) { return v; }
H u64 ret_i32(i32 v) { return (u64)(i64)v; }
H u64 ret_u32(u32 v) { return v; }
H u64 ret_i64(i64 v) { return (u64)v; }
H u64 ret_u64(u64 v) { return v; }
H u64 ret_f32(f32 v) { return __builtin_bit_cast(u32, v); }
H u64 ret_f64(f64 v) { return __builtin_bit_cast(u64, v); }
)";

//===----------------------------------------------------------------------===//
// One function
//===----------------------------------------------------------------------===//

struct Signature {
  std::string Name;
  Type Result;
  std::vector<Type> Params;
  /// Work per call, in expression nodes, loops and callees included.
  double Cost = 0;
};

class FunctionWriter {
public:
  FunctionWriter(Rng &R, const std::vector<Signature> &Earlier, unsigned Size)
      : R(R), Earlier(Earlier), Size(Size), MaxDepth(2 + Size),
        Budget(350.0 * Size) {}

  /// Writes the body of \p Sig (whose parameters are p0..pN) and sets its
  /// cost; returns the function's text from its opening brace.
  std::string write(Signature &Sig, std::vector<unsigned> &Callees);

private:
  struct Var {
    std::string Name;
    Type T;
    bool Writable;
  };
  struct Array {
    std::string Name;
    Type T;
  };

  std::string expr(Type T, int Depth);
  std::string intExpr(Type T, int Depth);
  std::string floatExpr(Type T, int Depth);
  std::string leaf(Type T);
  std::string constant(Type T);
  std::string cond(int Depth);
  std::string binary(Type T, const std::string &A, const std::string &B);
  std::optional<std::string> call(Type T, int Depth);
  std::string index(int Depth);
  Type anyValueType() { return R.pick(ValueTypes); }

  void line(const std::string &S) {
    Out.append(2 * Indent, ' ');
    Out += S;
    Out += '\n';
  }
  void statements(unsigned N);
  void statement();
  void assign();
  void ifElse();
  void forLoop(bool DataBound);
  void whileLoop();
  void switchStmt();
  /// Runs \p Body one indentation level deeper in a scope of its own.
  template <typename Fn> void block(Fn Body) {
    size_t Vars0 = Vars.size();
    ++Indent;
    ++Blocks;
    Body();
    --Blocks;
    --Indent;
    Vars.resize(Vars0);
  }
  std::string fresh(const char *Prefix) {
    return Prefix + std::to_string(Names++);
  }
  void spend(double N) { Cost += N * Mult; }
  bool affordable(double N) const { return Cost + N * Mult <= Budget; }

  Rng &R;
  const std::vector<Signature> &Earlier;
  unsigned Size;
  int MaxDepth;
  double Budget;
  Signature *Sig = nullptr;
  std::vector<unsigned> *Callees = nullptr;

  std::vector<Var> Vars;
  std::vector<Array> Arrays;
  std::string Out;
  unsigned Indent = 1, Blocks = 0, Loops = 0, Names = 0;
  double Mult = 1, Cost = 0;
};

std::string FunctionWriter::constant(Type T) {
  if (isFloat(T)) {
    static const double Common[] = {0.0,  -0.0, 1.0,  -1.0,  0.5,   2.0,
                                    3.0,  10.0, 0.1,  -2.5,  1.5,   100.0,
                                    1e10, 1e-10, 0x1p-149, 0x1p24, 3.14159265358979,
                                    -7.0, 65504.0};
    double V;
    switch (R.below(6)) {
    case 0:
      V = static_cast<double>(static_cast<int>(R.below(2001)) - 1000) / 8.0;
      break;
    case 1: // a random value of moderate size
      V = std::ldexp(static_cast<double>(R.next() >> 11) * 0x1p-53 - 0.5,
                     static_cast<int>(R.below(40)) - 20);
      break;
    case 2:
      if (T == Type::F32) {
        static const double Big[] = {3.4028234663852886e38, 0x1p-126, 0x1p-140,
                                     0x1p100, 0x1p31, 0x1p63, 1e30};
        V = Big[R.below(std::size(Big))];
      } else {
        static const double Big[] = {1.7976931348623157e308, 0x1p-1022,
                                     0x1p-1070, 1e300, 0x1p63, 0x1p53, 1e-300};
        V = Big[R.below(std::size(Big))];
      }
      if (R.chance(30))
        V = -V;
      break;
    case 3:
      return hexFloat(R.chance(50) ? INFINITY : -INFINITY, T);
    default:
      V = Common[R.below(std::size(Common))];
    }
    if (T == Type::F32)
      V = static_cast<float>(V); // exactly representable
    return hexFloat(V, T);
  }
  uint64_t V;
  switch (R.below(5)) {
  case 0:
  case 1:
    V = static_cast<uint64_t>(static_cast<int64_t>(R.below(41)) - 20);
    break;
  case 2: {
    static const uint64_t Edge[] = {
        0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fffffff, 0x80000000,
        0xffffffff, 0x100000000ull, 0x7fffffffffffffffull,
        0x8000000000000000ull, 0xffffffffffffffffull, 0x55555555, 0xaaaaaaaa,
        31, 32, 33, 63, 64, 1000000007};
    V = Edge[R.below(std::size(Edge))];
    break;
  }
  case 3: {
    unsigned Bit = R.below(bitWidth(T));
    V = (uint64_t(1) << Bit) + static_cast<uint64_t>(static_cast<int64_t>(R.below(3)) - 1);
    break;
  }
  default:
    V = R.next();
  }
  char Buf[48];
  int64_t SV = static_cast<int64_t>(V);
  if (bitWidth(T) == 32)
    V &= 0xffffffffu;
  if (V < 1000)
    std::snprintf(Buf, sizeof Buf, "%" PRIu64, V);
  else if (isSigned(T) && SV < 0 && SV > -1000)
    std::snprintf(Buf, sizeof Buf, "%" PRId64, SV);
  else
    std::snprintf(Buf, sizeof Buf, "0x%" PRIx64 "ull", V);
  return cast(T, Buf);
}

std::string FunctionWriter::leaf(Type T) {
  spend(0.25);
  std::vector<const Var *> Same;
  for (const Var &V : Vars)
    if (V.T == T)
      Same.push_back(&V);
  unsigned Roll = R.below(100);
  if (!Same.empty() && Roll < 55)
    return R.pick(Same)->Name;
  if (!Vars.empty() && Roll < 85) {
    const Var &V = R.pick(Vars);
    return convert(V.Name, V.T, T);
  }
  return constant(T);
}

std::string FunctionWriter::expr(Type T, int Depth) {
  if (Depth <= 0 || R.chance(20))
    return leaf(T);
  spend(1);
  if (isNarrow(T))
    return cast(T, expr(R.pick(WideInts), Depth - 1));
  return isFloat(T) ? floatExpr(T, Depth) : intExpr(T, Depth);
}

std::string FunctionWriter::binary(Type T, const std::string &A,
                                   const std::string &B) {
  std::string N = tn(T);
  if (isFloat(T)) {
    static const char *Ops[] = {"+", "-", "*", "/"};
    return "(" + A + " " + Ops[R.below(4)] + " " + B + ")";
  }
  bool S = isSigned(T);
  switch (R.below(12)) {
  case 0:
  case 1:
    return S ? "add_" + N + "(" + A + ", " + B + ")" : "(" + A + " + " + B + ")";
  case 2:
    return S ? "sub_" + N + "(" + A + ", " + B + ")" : "(" + A + " - " + B + ")";
  case 3:
  case 4:
    return S ? "mul_" + N + "(" + A + ", " + B + ")" : "(" + A + " * " + B + ")";
  case 5:
    return "(" + A + " & " + B + ")";
  case 6:
    return "(" + A + " | " + B + ")";
  case 7:
  case 8:
    return "(" + A + " ^ " + B + ")";
  case 9:
    return (R.chance(50) ? "div_" : "rem_") + N + "(" + A + ", " + B + ")";
  case 10:
    return (R.chance(50) ? "min_" : "max_") + N + "(" + A + ", " + B + ")";
  default:
    return (R.chance(50) ? "shl_" : "shr_") + N + "(" + A + ", " +
           convert(B, T, Type::U32) + ")";
  }
}

std::optional<std::string> FunctionWriter::call(Type T, int Depth) {
  std::vector<unsigned> Fits;
  for (unsigned I = 0; I < Earlier.size(); ++I)
    if (affordable(Earlier[I].Cost + 4))
      Fits.push_back(I);
  if (Fits.empty())
    return std::nullopt;
  unsigned Callee = R.pick(Fits);
  const Signature &C = Earlier[Callee];
  spend(C.Cost + 4);
  Callees->push_back(Callee);
  std::string S = C.Name + "(";
  for (size_t I = 0; I < C.Params.size(); ++I)
    S += (I ? ", " : "") + expr(C.Params[I], std::min(Depth - 1, 2));
  S += ")";
  return convert(S, C.Result, T);
}

std::string FunctionWriter::index(int Depth) {
  Type T = R.pick(WideInts);
  return "(" + convert(expr(T, std::min(Depth, 2)), T, Type::U32) + " & 7u)";
}

std::string FunctionWriter::intExpr(Type T, int Depth) {
  std::string N = tn(T);
  bool Wide64 = bitWidth(T) == 64;
  Type U = Wide64 ? Type::U64 : Type::U32;
  switch (R.below(20)) {
  case 0:
  case 1:
  case 2:
  case 3:
  case 4:
    return binary(T, expr(T, Depth - 1), expr(T, Depth - 1));
  case 5:
    return "(~" + expr(T, Depth - 1) + ")";
  case 6:
    return isSigned(T) ? "neg_" + N + "(" + expr(T, Depth - 1) + ")"
                       : "(-" + expr(T, Depth - 1) + ")";
  case 7: { // a comparison of any type
    Type S = anyValueType();
    static const char *Ops[] = {"<", "<=", ">", ">=", "==", "!="};
    return cast(T, "(" + expr(S, Depth - 1) + " " + Ops[R.below(6)] + " " +
                       expr(S, Depth - 1) + ")");
  }
  case 8:
  case 9:
    return "(" + cond(Depth - 1) + " ? " + expr(T, Depth - 1) + " : " +
           expr(T, Depth - 1) + ")";
  case 10:
  case 11: { // a conversion from another type, narrow ones included
    Type S = R.chance(25) ? R.pick(NarrowInts) : anyValueType();
    return convert(expr(S, Depth - 1), S, T);
  }
  case 12: { // bit builtins
    static const char *Ops[] = {"popc", "clz", "ctz", "brev", "bswap"};
    std::string A = convert(expr(T, Depth - 1), T, U);
    return convert(std::string(Ops[R.below(5)]) + "_" + tn(U) + "(" + A + ")",
                   U, T);
  }
  case 13: {
    std::string A = convert(expr(T, Depth - 1), T, U);
    Type C = R.pick(WideInts);
    return convert("rotl_" + tn(U) + "(" + A + ", " +
                       convert(expr(C, Depth - 1), C, Type::U32) + ")",
                   U, T);
  }
  case 14: { // high half of a product
    Type M = Wide64 ? Type::U64 : (isSigned(T) ? Type::I32 : Type::U32);
    return convert("mulhi_" + tn(M) + "(" + expr(M, Depth - 1) + ", " +
                       expr(M, Depth - 1) + ")",
                   M, T);
  }
  case 15: { // the bits of a float
    Type F = R.pick(Floats);
    return convert("bits_" + tn(F) + "(" + expr(F, Depth - 1) + ")",
                   F == Type::F32 ? Type::U32 : Type::U64, T);
  }
  case 16:
    if (auto C = call(T, Depth))
      return *C;
    return binary(T, expr(T, Depth - 1), leaf(T));
  case 17:
    if (!Arrays.empty()) {
      const Array &A = R.pick(Arrays);
      return convert(A.Name + "[" + index(Depth - 1) + "]", A.T, T);
    }
    return binary(T, leaf(T), expr(T, Depth - 1));
  case 18: { // through a narrow type
    Type Nw = R.pick(NarrowInts);
    return convert(cast(Nw, expr(T, Depth - 1)), Nw, T);
  }
  default:
    return binary(T, expr(T, Depth - 1), leaf(T));
  }
}

std::string FunctionWriter::floatExpr(Type T, int Depth) {
  std::string N = tn(T), F = fsfx(T);
  switch (R.below(18)) {
  case 0:
  case 1:
  case 2:
  case 3:
  case 4:
    return binary(T, expr(T, Depth - 1), expr(T, Depth - 1));
  case 5:
    return "__builtin_sqrt" + F + "(" + expr(T, Depth - 1) + ")";
  case 6:
    return "__builtin_fma" + F + "(" + expr(T, Depth - 1) + ", " +
           expr(T, Depth - 1) + ", " + expr(T, Depth - 1) + ")";
  case 7:
    return (R.chance(50) ? "min_" : "max_") + N + "(" + expr(T, Depth - 1) +
           ", " + expr(T, Depth - 1) + ")";
  case 8: {
    static const char *Ops[] = {"fabs", "floor", "ceil", "trunc", "rint", "round"};
    return std::string("__builtin_") + Ops[R.below(6)] + F + "(" +
           expr(T, Depth - 1) + ")";
  }
  case 9:
    return "(-" + expr(T, Depth - 1) + ")";
  case 10:
    return "cps_" + N + "(" + expr(T, Depth - 1) + ", " + expr(T, Depth - 1) + ")";
  case 11: {
    Type I = R.pick(WideInts);
    return "ldx_" + N + "(" + expr(T, Depth - 1) + ", " +
           convert(cast(Type::I8, expr(I, Depth - 1)), Type::I8, Type::I32) + ")";
  }
  case 12:
  case 13: { // from an int (narrow ones too) or the other float type
    Type S = R.chance(20) ? R.pick(NarrowInts) : anyValueType();
    return convert(expr(S, Depth - 1), S, T);
  }
  case 14:
    return "(" + cond(Depth - 1) + " ? " + expr(T, Depth - 1) + " : " +
           expr(T, Depth - 1) + ")";
  case 15:
    if (auto C = call(T, Depth))
      return *C;
    return binary(T, expr(T, Depth - 1), leaf(T));
  case 16:
    if (!Arrays.empty()) {
      const Array &A = R.pick(Arrays);
      return convert(A.Name + "[" + index(Depth - 1) + "]", A.T, T);
    }
    return binary(T, leaf(T), expr(T, Depth - 1));
  default:
    return binary(T, expr(T, Depth - 1), leaf(T));
  }
}

std::string FunctionWriter::cond(int Depth) {
  spend(1);
  if (Depth > 0 && R.chance(25)) {
    switch (R.below(3)) {
    case 0:
      return "(" + cond(Depth - 1) + " && " + cond(Depth - 1) + ")";
    case 1:
      return "(" + cond(Depth - 1) + " || " + cond(Depth - 1) + ")";
    default:
      return "!" + cond(Depth - 1);
    }
  }
  Type S = anyValueType();
  static const char *Ops[] = {"<", "<=", ">", ">=", "==", "!="};
  int D = std::max(Depth - 1, 0);
  if (!isFloat(S) && R.chance(25)) // a bit test: many lanes agree
    return "((" + convert(expr(S, D), S, Type::U32) + " & " +
           std::to_string(1u << R.below(4)) + "u) != 0)";
  return "(" + expr(S, D) + " " + Ops[R.below(6)] + " " + expr(S, D) + ")";
}

void FunctionWriter::assign() {
  std::vector<const Var *> W;
  for (const Var &V : Vars)
    if (V.Writable)
      W.push_back(&V);
  const Var &V = *R.pick(W);
  std::string E = expr(V.T, MaxDepth);
  if (!isNarrow(V.T) && R.chance(40)) // accumulate
    E = binary(V.T, V.Name, E);
  line(V.Name + " = " + E + ";");
}

void FunctionWriter::ifElse() {
  line("if (" + cond(2) + ") {");
  block([&] { statements(1 + R.below(3)); });
  while (R.chance(30)) {
    line("} else if (" + cond(2) + ") {");
    block([&] { statements(1 + R.below(2)); });
  }
  if (R.chance(60)) {
    line("} else {");
    block([&] { statements(1 + R.below(3)); });
  }
  line("}");
}

void FunctionWriter::forLoop(bool DataBound) {
  std::string I = fresh("k"); // never "i8": a type name
  unsigned Trip = 1 + R.below(8);
  std::string Bound;
  if (DataBound) { // at most 7 iterations, the bound re-read every time
    Type S = R.pick(WideInts);
    Bound = "(i32)(" + convert(expr(S, 2), S, Type::U32) + " & 7u)";
    Trip = 8;
  } else {
    Bound = std::to_string(Trip);
  }
  line("for (i32 " + I + " = 0; " + I + " < " + Bound + "; ++" + I + ") {");
  double Mult0 = Mult;
  Mult *= Trip;
  ++Loops;
  block([&] {
    Vars.push_back({I, Type::I32, false});
    statements(1 + R.below(3));
  });
  --Loops;
  Mult = Mult0;
  line("}");
}

void FunctionWriter::whileLoop() {
  std::string W = fresh("w");
  unsigned Trip = 2 + R.below(6);
  line("i32 " + W + " = 0;");
  line("while (" + W + " < " + std::to_string(Trip) + " && " + cond(2) + ") {");
  double Mult0 = Mult;
  Mult *= Trip + 1;
  ++Loops;
  block([&] {
    line("++" + W + ";");
    Vars.push_back({W, Type::I32, false});
    statements(1 + R.below(3));
  });
  --Loops;
  Mult = Mult0;
  line("}");
}

void FunctionWriter::switchStmt() {
  Type S = R.pick(WideInts);
  line("switch (" + convert(expr(S, 2), S, Type::U32) + " & 3u) {");
  for (int C = 0; C < 4; ++C) {
    line(C == 3 ? "default: {" : "case " + std::to_string(C) + ": {");
    block([&] { statements(1 + R.below(2)); });
    // Sometimes fall through into the next case.
    line(C < 3 && R.chance(25) ? "}" : "} break;");
  }
  line("}");
}

void FunctionWriter::statement() {
  bool CanNest = Blocks < 3 && Cost < Budget * 0.8;
  bool CanLoop = CanNest && Loops < 2 && affordable(40) && Mult <= 8;
  unsigned Roll = R.below(100);
  if (Roll < 36 || !affordable(10))
    return assign();
  if (Roll < 50 && CanNest)
    return ifElse();
  if (Roll < 58 && CanLoop)
    return forLoop(false);
  if (Roll < 63 && CanLoop)
    return forLoop(true);
  if (Roll < 67 && CanLoop)
    return whileLoop();
  if (Roll < 71 && CanNest)
    return switchStmt();
  if (Roll < 79 && !Arrays.empty()) {
    const Array &A = R.pick(Arrays);
    return line(A.Name + "[" + index(2) + "] = " + expr(A.T, MaxDepth) + ";");
  }
  if (Roll < 84) { // a block-local variable
    Type T = anyValueType();
    std::string N = fresh("t");
    line(tn(T) + " " + N + " = " + expr(T, MaxDepth) + ";");
    Vars.push_back({N, T, true});
    return;
  }
  if (Roll < 90 && Loops > 0)
    return line("if (" + cond(2) + ") " + (R.chance(50) ? "break;" : "continue;"));
  if (Roll < 93 && Blocks > 0)
    return line("if (" + cond(2) + ") return " + expr(Sig->Result, MaxDepth) + ";");
  assign();
}

void FunctionWriter::statements(unsigned N) {
  for (unsigned I = 0; I < N; ++I)
    statement();
}

std::string FunctionWriter::write(Signature &S, std::vector<unsigned> &C) {
  Sig = &S;
  Callees = &C;
  for (size_t I = 0; I < S.Params.size(); ++I)
    Vars.push_back({"p" + std::to_string(I), S.Params[I], true});
  Out = "{\n";
  // Locals, each initialised from what is already defined.
  unsigned NLocals = 2 + R.below(3 + Size);
  for (unsigned I = 0; I < NLocals; ++I) {
    Type T = anyValueType();
    std::string N = "v" + std::to_string(I);
    line(tn(T) + " " + N + " = " + expr(T, 2) + ";");
    Vars.push_back({N, T, true});
  }
  // Local arrays, indexed with masked indices (scratch at -O0).
  unsigned NArrays = R.chance(50) ? 1 + R.below(2) : 0;
  for (unsigned I = 0; I < NArrays; ++I) {
    Type T = anyValueType();
    std::string N = "a" + std::to_string(I);
    line(tn(T) + " " + N + "[8];");
    line("for (i32 j = 0; j < 8; ++j)");
    double Mult0 = Mult;
    Mult *= 8;
    Vars.push_back({"j", Type::I32, false});
    ++Indent;
    line(N + "[j] = " + expr(T, 2) + ";");
    --Indent;
    Vars.pop_back();
    Mult = Mult0;
    Arrays.push_back({N, T});
  }
  statements(3 + R.below(4 * Size + 2));
  // The result folds in every local, so little of the work is dead.
  std::string Ret = expr(S.Result, MaxDepth);
  if (!isFloat(S.Result)) {
    Type W = bitWidth(S.Result) == 64 ? Type::U64 : Type::U32;
    std::string Mix = convert(Ret, S.Result, W);
    for (const Var &V : Vars) {
      std::string Bits =
          V.T == Type::F32   ? "bits_f32(" + V.Name + ")"
          : V.T == Type::F64 ? "bits_f64(" + V.Name + ")"
                             : V.Name;
      Type BT = V.T == Type::F32 ? Type::U32 : V.T == Type::F64 ? Type::U64 : V.T;
      Mix = "(rotl_" + tn(W) + "(" + Mix + ", 5u) ^ " + convert(Bits, BT, W) +
            ")";
    }
    Ret = convert(Mix, W, S.Result);
  } else {
    std::string Mix = "0u";
    for (const Var &V : Vars)
      if (!isFloat(V.T))
        Mix = "(" + Mix + " ^ " + convert(V.Name, V.T, Type::U32) + ")";
    Ret = "(" + Ret + " + " + cast(S.Result, "(" + Mix + " & 1023u)") + ")";
  }
  line("return " + Ret + ";");
  Out += "}\n";
  S.Cost = Cost + 20;
  return Out;
}

} // namespace

//===----------------------------------------------------------------------===//
// A file
//===----------------------------------------------------------------------===//

std::string GeneratedFile::programWithCallees(unsigned K) const {
  std::set<unsigned> Seen;
  std::vector<unsigned> Order;
  auto Visit = [&](auto &Self, unsigned P) -> void {
    if (!Seen.insert(P).second)
      return;
    for (unsigned C : Programs[P].Callees)
      Self(Self, C);
    Order.push_back(P);
  };
  Visit(Visit, K);
  std::string S;
  for (unsigned P : Order)
    S += Programs[P].Text + "\n";
  return S;
}

std::string fileStem(const GeneratorOptions &O) {
  std::string S = "rand_" + std::to_string(O.Seed);
  if (O.Size != 1)
    S += "_s" + std::to_string(O.Size);
  return S;
}

GeneratedFile generateFile(const GeneratorOptions &Options) {
  GeneratedFile File;
  File.Options = Options;
  Rng R(Options.Seed ^ 0x6c6f6f6d72616e64ull); // "loomrand"
  std::vector<Signature> Sigs;
  std::string &Src = File.Source;
  Src = "// Generated by loom_randgen --seed " + std::to_string(Options.Seed) +
        " --programs " + std::to_string(Options.Programs) + " --size " +
        std::to_string(Options.Size) +
        (Options.Only ? " --only " + std::to_string(*Options.Only) : "") +
        ". Do not edit.\n// Built for gfx90a (one kernel per program) and for "
        "the host (the reference);\n// see tests/emu/random/RandomProtocol.h.\n";
  Src += Prelude;
  Src += "\n// Programs: each may call earlier ones.\n";

  static const std::vector<Type> AllTypes = {
      Type::I8,  Type::U8,  Type::I16, Type::U16, Type::I32,
      Type::U32, Type::I64, Type::U64, Type::F32, Type::F64};
  for (unsigned K = 0; K < Options.Programs; ++K) {
    GeneratedProgram P;
    P.Name = "f_" + std::to_string(K);
    // Mostly wide types; narrow ones test the calling convention's
    // extensions.
    auto PickType = [&] {
      return R.chance(15) ? R.pick(AllTypes) : R.pick(ValueTypes);
    };
    P.Result = PickType();
    unsigned NParams = 1 + R.below(6);
    bool AllUniform = R.chance(8);
    for (unsigned I = 0; I < NParams; ++I) {
      P.Params.push_back(PickType());
      if (AllUniform || R.chance(20))
        P.UniformMask |= 1u << I;
    }
    P.NoInline = R.chance(35);

    Signature S{P.Name, P.Result, P.Params};
    FunctionWriter W(R, Sigs, Options.Size);
    std::string Body = W.write(S, P.Callees);
    std::set<unsigned> Unique(P.Callees.begin(), P.Callees.end());
    P.Callees.assign(Unique.begin(), Unique.end());

    std::string Head = "static ";
    if (P.NoInline)
      Head += "__attribute__((noinline)) ";
    Head += tn(P.Result) + " " + P.Name + "(";
    for (size_t I = 0; I < P.Params.size(); ++I)
      Head += (I ? ", " : "") + tn(P.Params[I]) + " p" + std::to_string(I);
    Head += ") ";
    P.Text = Head + Body;
    Sigs.push_back(S);
    File.Programs.push_back(std::move(P));
  }

  // What the file holds: every program, or one and its callees.
  std::vector<unsigned> Emit;
  if (Options.Only && *Options.Only < File.Programs.size()) {
    std::set<unsigned> Seen;
    auto Visit = [&](auto &Self, unsigned K) -> void {
      if (!Seen.insert(K).second)
        return;
      for (unsigned C : File.Programs[K].Callees)
        Self(Self, C);
    };
    Visit(Visit, *Options.Only);
    Emit.assign(Seen.begin(), Seen.end());
  } else {
    for (unsigned K = 0; K < File.Programs.size(); ++K)
      Emit.push_back(K);
  }
  // Kernels and table entries: all programs, or only the one asked for.
  std::vector<unsigned> Run = Emit;
  if (Options.Only && *Options.Only < File.Programs.size())
    Run = {*Options.Only};

  for (unsigned K : Emit)
    Src += "\n" + File.Programs[K].Text;

  // Reading the inputs of each program and widening its result.
  Src += "\n// Program k on one work-item's inputs.\n";
  for (unsigned K : Run) {
    const GeneratedProgram &P = File.Programs[K];
    std::string S = "H u64 run_" + std::to_string(K) +
                    "(const u64 *in, const u64 *uni) { return ret_" +
                    tn(P.Result) + "(" + P.Name + "(";
    for (size_t I = 0; I < P.Params.size(); ++I)
      S += (I ? ", " : "") + ("arg_" + tn(P.Params[I])) + "(" +
           ((P.UniformMask >> I) & 1 ? "uni[" : "in[") + std::to_string(I) +
           "])";
    Src += S + ")); }\n";
  }

  std::string Slots = std::to_string(MaxParams);
  Src += "\n#if defined(__AMDGCN__)\n";
  Src += "#define KERNEL extern \"C\" __attribute__((amdgpu_kernel, "
         "visibility(\"default\"))) void\n";
  for (unsigned K : Run) {
    std::string Ks = std::to_string(K);
    Src += "KERNEL prog_" + Ks +
           "(const u64 *in, const u64 *uni, u64 *out, u32 n, u32 bs) {\n"
           "  u32 gid = __builtin_amdgcn_workgroup_id_x() * bs + "
           "__builtin_amdgcn_workitem_id_x();\n"
           "  if (gid < n)\n    out[gid] = run_" +
           Ks + "(in + (u64)gid * " + Slots + "u, uni);\n}\n";
  }
  Src += "#else\n";
  Src += "#define EXPORT extern \"C\" __attribute__((visibility(\"default\")))\n";
  Src += "struct ProgramEntry { const char *name; u32 result, nparams, params[" +
         Slots + "], uniform, flags; };\n";
  Src += "EXPORT const u32 loom_rand_version = " +
         std::to_string(ProtocolVersion) + ";\n";
  Src += "EXPORT const u32 loom_rand_count = " + std::to_string(Run.size()) +
         ";\n";
  Src += "EXPORT const u64 loom_rand_seed = " + std::to_string(Options.Seed) +
         "ull;\n";
  Src += "EXPORT const u32 loom_rand_size = " + std::to_string(Options.Size) +
         ";\n";
  Src += "// Entry i describes the i-th program below; its kernel is prog_<k> "
         "for name f_<k>.\n";
  Src += "EXPORT const ProgramEntry loom_rand_programs[] = {\n";
  for (unsigned K : Run) {
    const GeneratedProgram &P = File.Programs[K];
    Src += "  {\"" + P.Name + "\", " +
           std::to_string(static_cast<unsigned>(P.Result)) + ", " +
           std::to_string(P.Params.size()) + ", {";
    for (size_t I = 0; I < P.Params.size(); ++I)
      Src += (I ? ", " : "") + std::to_string(static_cast<unsigned>(P.Params[I]));
    Src += "}, " + std::to_string(P.UniformMask) + "u, " +
           std::to_string(P.NoInline ? FlagNoInline : 0) + "},\n";
  }
  Src += "};\n";
  Src += "EXPORT void loom_rand_run(u32 prog, const u64 *in, const u64 *uni, "
         "u64 *out, u32 n) {\n"
         "  for (u32 gid = 0; gid < n; ++gid) {\n"
         "    const u64 *a = in + (u64)gid * " + Slots + "u;\n"
         "    switch (prog) {\n";
  for (unsigned I = 0; I < Run.size(); ++I)
    Src += "    case " + std::to_string(I) + ": out[gid] = run_" +
           std::to_string(Run[I]) + "(a, uni); break;\n";
  Src += "    default: out[gid] = 0; break;\n    }\n  }\n}\n#endif\n";
  return File;
}

//===----------------------------------------------------------------------===//
// Building
//===----------------------------------------------------------------------===//

BuildPaths buildPaths(const std::string &Dir, const GeneratorOptions &O,
                      int Level) {
  std::string Base = Dir + "/" + fileStem(O);
  std::string L = ".O" + std::to_string(Level);
  return {Base + ".cpp", Base + L + ".elf", Base + ".host.so"};
}

namespace {
/// What both sides share: the same language, rounding exactly as written.
const std::vector<std::string> CommonFlags = {
    "-x", "c++", "-std=c++20", "-fno-exceptions", "-fno-rtti",
    "-ffp-contract=off", "-fno-fast-math", "-fno-math-errno", "-w"};
} // namespace

std::vector<std::string> deviceCommand(const std::string &Clang,
                                       const std::string &Source,
                                       const std::string &Out, int Level) {
  std::vector<std::string> A = {Clang, "--target=amdgcn-amd-amdhsa",
                                "-mcpu=gfx90a", "-nogpulib", "-ffreestanding"};
  A.insert(A.end(), CommonFlags.begin(), CommonFlags.end());
  A.insert(A.end(), {"-O" + std::to_string(Level), Source, "-o", Out});
  return A;
}

std::vector<std::string> hostCommand(const std::string &Clang,
                                     const std::string &Source,
                                     const std::string &Out) {
  std::vector<std::string> A = {Clang, "-fPIC", "-shared"};
  A.insert(A.end(), CommonFlags.begin(), CommonFlags.end());
  A.insert(A.end(), {"-O0", Source, "-o", Out, "-lm"});
  return A;
}

std::string commandLine(const std::vector<std::string> &Argv) {
  std::string S;
  for (const std::string &A : Argv) {
    if (!S.empty())
      S += ' ';
    bool Quote = A.find_first_of(" \"'()*") != std::string::npos;
    S += Quote ? "'" + A + "'" : A;
  }
  return S;
}

namespace {
std::string run(const std::vector<std::string> &Argv) {
  llvm::SmallVector<llvm::StringRef, 24> Args(Argv.begin(), Argv.end());
  llvm::SmallString<128> Log;
  int FD;
  if (std::error_code EC =
          llvm::sys::fs::createTemporaryFile("loom-randgen", "log", FD, Log))
    return "cannot create a temporary file: " + EC.message();
  ::close(FD);
  std::optional<llvm::StringRef> Redirects[] = {std::nullopt, Log.str(),
                                                Log.str()};
  std::string Err;
  int RC = llvm::sys::ExecuteAndWait(Argv[0], Args, std::nullopt, Redirects,
                                     /*SecondsToWait=*/600, 0, &Err);
  std::string Output;
  if (auto Buf = llvm::MemoryBuffer::getFile(Log))
    Output = (*Buf)->getBuffer().str();
  llvm::sys::fs::remove(Log);
  if (RC == 0)
    return "";
  return commandLine(Argv) + "\n  failed (" +
         (Err.empty() ? "exit " + std::to_string(RC) : Err) + "):\n" + Output;
}
} // namespace

std::string writeAndCompile(const GeneratedFile &File, const BuildPaths &P,
                            const std::string &Clang, int Level) {
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(P.Source, EC);
    if (EC)
      return "cannot write " + P.Source + ": " + EC.message();
    OS << File.Source;
  }
  std::string E = run(deviceCommand(Clang, P.Source, P.Elf, Level));
  if (E.empty())
    E = run(hostCommand(Clang, P.Source, P.Host));
  return E;
}

} // namespace loom::randtest
