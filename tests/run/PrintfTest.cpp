//===- tests/run/PrintfTest.cpp - The host's printf formatter -------------===//
//
// Packs calls as devlib/stdio.c does and checks formatPrintf against the
// host's own snprintf, including streams the device cut short.
//
//===----------------------------------------------------------------------===//

#include "Printf.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

using loom::run::formatPrintf;

namespace {
struct Packed {
  std::vector<uint8_t> Bytes;
  explicit Packed(const char *Fmt) { str(Fmt); }
  Packed &num(uint64_t V) {
    const uint8_t *P = reinterpret_cast<const uint8_t *>(&V);
    Bytes.insert(Bytes.end(), P, P + 8);
    return *this;
  }
  Packed &dbl(double D) {
    uint64_t V;
    std::memcpy(&V, &D, 8);
    return num(V);
  }
  Packed &str(const char *S) {
    Bytes.insert(Bytes.end(), S, S + std::strlen(S) + 1);
    return *this;
  }
};
} // namespace

TEST(PrintfTest, MatchesTheHostsPrintf) {
  char Want[256];
  std::snprintf(Want, sizeof(Want), "[%5d|%-4x|%#o|%+lld|%hhd]", 42, 255u, 8u,
                -5ll, 300);
  EXPECT_EQ(formatPrintf(Packed("[%5d|%-4x|%#o|%+lld|%hhd]")
                             .num(42)
                             .num(255)
                             .num(8)
                             .num(uint64_t(-5))
                             .num(300)
                             .Bytes),
            Want);
  std::snprintf(Want, sizeof(Want), "%.3f %e %g %10.2s|%c%%", 3.14159, 1e10,
                0.5, "abc", 'z');
  EXPECT_EQ(formatPrintf(Packed("%.3f %e %g %10.2s|%c%%")
                             .dbl(3.14159)
                             .dbl(1e10)
                             .dbl(0.5)
                             .str("abc")
                             .num('z')
                             .Bytes),
            Want);
  std::snprintf(Want, sizeof(Want), "[%*d] [%.*f]", 5, 7, 2, 1.005);
  EXPECT_EQ(formatPrintf(
                Packed("[%*d] [%.*f]").num(5).num(7).num(2).dbl(1.005).Bytes),
            Want);
}

TEST(PrintfTest, ShortStreamsPrintWhatTheyHave) {
  EXPECT_EQ(formatPrintf({}), "");
  EXPECT_EQ(formatPrintf(Packed("a %d b %s").num(1).Bytes), "a 1 b ");
  EXPECT_EQ(formatPrintf(Packed("unterminated %").Bytes), "unterminated %");
  EXPECT_EQ(formatPrintf(Packed("odd %y rest %d").Bytes), "odd %y rest %d");
}
