//===- RegisterSetTest.cpp - Sets of 32-bit register units ----------------===//
#include "loom/instrument/RegisterSet.h"

#include <gtest/gtest.h>

using namespace loom::instrument;

namespace {

TEST(RegisterSet, PrintsRanges) {
  RegisterSet S;
  S.addSgprs(0, 4).addSgprs(7).addVgprs(0, 2).addAgprs(5).addExec();
  S.add(SpecialReg::VccLo).add(SpecialReg::Scc).add(SpecialReg::M0);
  EXPECT_EQ(S.str(), "s[0:3] s7 v[0:1] a5 exec vcc_lo scc m0");
  EXPECT_EQ(S.count(), 13u);
  EXPECT_EQ(RegisterSet().str(), "");
}

TEST(RegisterSet, SetAlgebra) {
  RegisterSet A, B;
  A.addSgprs(0, 8).addVgprs(3);
  B.addSgprs(4, 8).addAgprs(1);
  RegisterSet U = A | B;
  EXPECT_EQ(U.str(), "s[0:11] v3 a1");
  RegisterSet I = A;
  I &= B;
  EXPECT_EQ(I.str(), "s[4:7]");
  RegisterSet D = A;
  D.subtract(B);
  EXPECT_EQ(D.str(), "s[0:3] v3");
  EXPECT_TRUE(U.contains(A) && !A.contains(U));
  EXPECT_TRUE(A.intersects(B));
  EXPECT_TRUE(U.anyVector());
  EXPECT_EQ(U.vectorOnly().str(), "v3 a1");
  EXPECT_EQ(U.withoutVector().str(), "s[0:11]");
  // Out-of-range indices are dropped.
  RegisterSet O;
  O.addVgprs(254, 4);
  EXPECT_EQ(O.str(), "v[254:255]");
}

} // namespace
