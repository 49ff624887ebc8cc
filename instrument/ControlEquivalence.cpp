//===- instrument/ControlEquivalence.cpp - Blocks that run as often -------===//
//
// Dominators and post-dominators as bit vectors by the iterative dataflow
// (Cooper, Harvey and Kennedy's "simple" form): functions have at most a
// few thousand blocks, and LLVM's GenericDomTree wants an IR-like graph
// (nodes with parents) that lifted blocks are not.
//
//===----------------------------------------------------------------------===//

#include "loom/instrument/ControlEquivalence.h"

#include "loom/instrument/BinaryFunction.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <algorithm>

#include <utility>

using namespace llvm;

namespace loom::instrument {

namespace {

/// Blocks reachable from the entry in reverse post-order, and the edges
/// that go back to a block still on the DFS stack (retreating edges).
struct DepthFirst {
  std::vector<unsigned> Rpo;
  std::vector<std::pair<unsigned, unsigned>> Retreating; ///< (tail, head)
};

DepthFirst depthFirst(ArrayRef<BinaryBasicBlock> Blocks) {
  DepthFirst R;
  enum : uint8_t { New, OnStack, Done };
  std::vector<uint8_t> State(Blocks.size(), New);
  std::vector<std::pair<unsigned, unsigned>> Stack{{0, 0}};
  State[0] = OnStack;
  while (!Stack.empty()) {
    auto &[B, Next] = Stack.back();
    if (Next == Blocks[B].Successors.size()) {
      State[B] = Done;
      R.Rpo.push_back(B);
      Stack.pop_back();
      continue;
    }
    unsigned S = Blocks[B].Successors[Next++];
    if (State[S] == OnStack)
      R.Retreating.push_back({B, S});
    else if (State[S] == New) {
      State[S] = OnStack;
      Stack.push_back({S, 0});
    }
  }
  std::reverse(R.Rpo.begin(), R.Rpo.end());
  return R;
}

/// Dominators (\p Next: predecessors) or post-dominators (successors): over
/// the blocks of \p Order that are \p In, until nothing changes, a root's
/// set is itself, any other block's itself and what every \p Next block
/// that is In has in common. Blocks not In keep every bit.
std::vector<BitVector>
dominatorSets(unsigned N, ArrayRef<unsigned> Order, const std::vector<bool> &In,
              function_ref<bool(unsigned)> IsRoot,
              function_ref<ArrayRef<unsigned>(unsigned)> Next) {
  std::vector<BitVector> Sets(N, BitVector(N, true));
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (unsigned B : Order) {
      if (!In[B])
        continue;
      BitVector New(N, !IsRoot(B));
      if (!IsRoot(B))
        for (unsigned M : Next(B))
          if (In[M])
            New &= Sets[M];
      New.set(B);
      if (New != Sets[B]) {
        Sets[B] = std::move(New);
        Changed = true;
      }
    }
  }
  return Sets;
}

} // namespace

ControlEquivalence::ControlEquivalence(const BinaryFunction &F) {
  ArrayRef<BinaryBasicBlock> Blocks = F.blocks();
  const unsigned N = Blocks.size();
  ClassOf.assign(N, ~0u);
  InLoop.assign(N, false);
  Loops.assign(N, BitVector(N));
  auto ownClass = [&](unsigned B) {
    ClassOf[B] = Representatives.size();
    Representatives.push_back(B);
  };
  if (N == 0)
    return;

  DepthFirst D = depthFirst(Blocks);
  std::vector<bool> Reachable(N, false);
  for (unsigned B : D.Rpo)
    Reachable[B] = true;

  // Dominators of the reachable blocks.
  std::vector<BitVector> Dom = dominatorSets(
      N, D.Rpo, Reachable, [](unsigned B) { return B == 0; },
      [&](unsigned B) { return ArrayRef<unsigned>(Blocks[B].Predecessors); });

  // Natural loops: every retreating edge must go to a block dominating its
  // tail, or the CFG is irreducible.
  bool Reducible = true;
  for (auto [Tail, Head] : D.Retreating) {
    if (!Dom[Tail].test(Head)) {
      Reducible = false;
      continue;
    }
    std::vector<unsigned> Work{Tail};
    BitVector Body(N);
    Body.set(Head);
    while (!Work.empty()) {
      unsigned B = Work.back();
      Work.pop_back();
      if (Body.test(B))
        continue;
      Body.set(B);
      for (unsigned P : Blocks[B].Predecessors)
        if (Reachable[P])
          Work.push_back(P);
    }
    for (unsigned B : Body.set_bits()) {
      Loops[B].set(Head);
      InLoop[B] = true;
    }
  }

  // Post-dominators of the blocks that reach an exit (a block with no
  // successor: s_endpgm, a return, a tail call), over such blocks only.
  std::vector<bool> Exits(N, false);
  std::vector<unsigned> Work;
  for (unsigned B : D.Rpo)
    if (Blocks[B].Successors.empty())
      Work.push_back(B);
  while (!Work.empty()) {
    unsigned B = Work.back();
    Work.pop_back();
    if (Exits[B])
      continue;
    Exits[B] = true;
    for (unsigned P : Blocks[B].Predecessors)
      if (Reachable[P])
        Work.push_back(P);
  }
  std::vector<unsigned> Postorder(D.Rpo.rbegin(), D.Rpo.rend());
  std::vector<BitVector> PDom = dominatorSets(
      N, Postorder, Exits,
      [&](unsigned B) { return Blocks[B].Successors.empty(); },
      [&](unsigned B) { return ArrayRef<unsigned>(Blocks[B].Successors); });

  // Classes, in reverse post-order: a block joins the class of a
  // representative that dominates it, that it post-dominates, in the same
  // loops.
  for (unsigned B : D.Rpo) {
    bool Joined = false;
    if (Reducible && Exits[B])
      for (unsigned A : Dom[B].set_bits()) {
        if (A == B || ClassOf[A] == ~0u || Representatives[ClassOf[A]] != A ||
            !Exits[A] || !PDom[A].test(B) || Loops[A] != Loops[B])
          continue;
        ClassOf[B] = ClassOf[A];
        Joined = true;
        break;
      }
    if (!Joined)
      ownClass(B);
  }
  for (unsigned B = 0; B < N; ++B)
    if (!Reachable[B])
      ownClass(B);
  OncePerCall = Reducible && Exits[0] && !InLoop[0];
  if (!Reducible)
    for (BitVector &L : Loops)
      L.reset();
}

std::vector<unsigned> ControlEquivalence::loopBody(unsigned Header) const {
  std::vector<unsigned> Body;
  for (unsigned B = 0; B < Loops.size(); ++B)
    if (Loops[B].test(Header))
      Body.push_back(B);
  return Body;
}

} // namespace loom::instrument
