//===- MemoryTest.cpp - 64-bit pointer arithmetic and struct copies -------===//
#include "DiffHarness.h"
#include "MemoryOps.h"

#include "loom/emu/Memory.h"

#include <sys/mman.h>

#include <cmath>
#include <cstring>

using namespace loom::emu;
using namespace loom::emu::difftest;

namespace {

constexpr uint32_t N = 1021;

class Pointers : public LevelTest {};

void fillRandom(uint8_t *P, size_t Bytes, uint64_t Seed) {
  Rng R(Seed);
  for (size_t I = 0; I < Bytes; I += 8) {
    uint64_t V = R.next();
    std::memcpy(P + I, &V, std::min<size_t>(8, Bytes - I));
  }
}

// Runs pointer_ops over [Base, Base + Size) and compares with the host
// running pointerOps on the same bytes at the same addresses.
void checkPointerOps(Module &M, uint8_t *Base, uint64_t Size) {
  Device &Dev = *sharedDevice();
  constexpr size_t NOps = diff::PointerOpCount;
  auto Out = filled<uint64_t>(Dev, size_t(N) * NOps, 0xccccccccccccccccull);
  ASSERT_TRUE(launchOk(M, "pointer_ops", LaunchConfig::linear(N, 64),
                       KernelArgs()
                           .add(Out->address())
                           .add(reinterpret_cast<uint64_t>(Base))
                           .add(Size)
                           .add(N)));
  std::vector<uint64_t> Got = download<uint64_t>(*Out, size_t(N) * NOps);
  Mismatches Bad("pointer_ops over " + hex(reinterpret_cast<uint64_t>(Base)));
  uint64_t Ref[NOps];
  for (uint32_t I = 0; I < N; ++I) {
    diff::pointerOps(Base, Size, I, Ref);
    for (size_t K = 0; K < NOps; ++K)
      if (Got[I * NOps + K] != Ref[K])
        Bad.add("index " + std::to_string(I) + " result " + std::to_string(K) +
                ": device " + hex(Got[I * NOps + K]) + ", host " + hex(Ref[K]));
  }
  EXPECT_TRUE(Bad.result());
}

TEST_P(Pointers, PointerArithmetic) {
  Module *M = loadModule("memory", level());
  ASSERT_TRUE(M);
  constexpr uint64_t Size = 64 * 1024;
  DeviceBuffer Buf(*sharedDevice(), Size);
  fillRandom(Buf.data<uint8_t>(), Size, 0x6001);
  checkPointerOps(*M, Buf.data<uint8_t>(), Size);
}

// A buffer that straddles a 4 GiB boundary: address arithmetic must carry
// from the low into the high 32 bits.
TEST_P(Pointers, PointerArithmeticAcross4GiB) {
  Module *M = loadModule("memory", level());
  ASSERT_TRUE(M);
  Device &Dev = *sharedDevice();
  constexpr uint64_t Size = 64 * 1024;
  void *P = MAP_FAILED;
  for (uint64_t G = 1; G <= 64 && P == MAP_FAILED; ++G) {
    void *Want = reinterpret_cast<void *>((G << 32) - Size / 2);
    P = mmap(Want, Size, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (P != MAP_FAILED && P != Want) {
      munmap(P, Size);
      P = MAP_FAILED;
    }
  }
  if (P == MAP_FAILED)
    GTEST_SKIP() << "no free range across a 4 GiB boundary";
  auto *Base = static_cast<uint8_t *>(P);
  fillRandom(Base, Size, 0x6002);
  Dev.memory().add(Base, Size);
  checkPointerOps(*M, Base, Size);
  Dev.memory().remove(Base);
  munmap(P, Size);
}

TEST_P(Pointers, PointerStores) {
  Module *M = loadModule("memory", level());
  ASSERT_TRUE(M);
  Device &Dev = *sharedDevice();
  // 4096 words: the slot of each index is a permutation (MemoryOps.h).
  constexpr uint64_t Size = 4 * 4096;
  DeviceBuffer Buf(Dev, Size);
  fillRandom(Buf.data<uint8_t>(), Size, 0x6003);
  std::vector<uint8_t> Initial(Buf.data<uint8_t>(), Buf.data<uint8_t>() + Size);
  Rng R(0x6004);
  std::vector<uint32_t> Values(N);
  for (uint32_t &V : Values)
    V = R.next32();
  auto DV = upload(Dev, Values);
  ASSERT_TRUE(launchOk(*M, "pointer_store", LaunchConfig::linear(N, 64),
                       KernelArgs().add(Buf.address()).add(Size).add(DV->address()).add(N)));
  std::vector<uint8_t> Got(Buf.data<uint8_t>(), Buf.data<uint8_t>() + Size);
  // The reference stores to the same addresses: rerun on the same buffer.
  std::memcpy(Buf.data(), Initial.data(), Size);
  for (uint32_t I = 0; I < N; ++I)
    diff::pointerStore(Buf.data<uint8_t>(), Size, I, Values[I]);
  Mismatches Bad("pointer_store");
  for (uint64_t W = 0; W < Size / 4; ++W) {
    uint32_t G, E;
    std::memcpy(&G, &Got[W * 4], 4);
    std::memcpy(&E, Buf.data<uint8_t>() + W * 4, 4);
    if (G != E)
      Bad.add("word " + std::to_string(W) + ": device " + hex(G) + ", host " + hex(E));
  }
  EXPECT_TRUE(Bad.result());
}

TEST_P(Pointers, LinkedLists) {
  Module *M = loadModule("memory", level());
  ASSERT_TRUE(M);
  Device &Dev = *sharedDevice();
  constexpr size_t Nodes = 3000;
  DeviceBuffer Buf(Dev, Nodes * sizeof(diff::Node));
  auto *Node = Buf.data<diff::Node>();
  Rng R(0x6005);
  // A random successor per node; one in 64 ends its list.
  for (size_t I = 0; I < Nodes; ++I) {
    Node[I].Value = R.next32();
    Node[I].Pad = 0;
    Node[I].Next = R.below(64) ? &Node[R.below(Nodes)] : nullptr;
  }
  std::vector<diff::Node *> Heads(N);
  for (uint32_t I = 0; I < N; ++I)
    Heads[I] = &Node[R.below(Nodes)];
  auto DH = upload(Dev, Heads);
  auto Out = filled<uint32_t>(Dev, N, 0xcccccccc);
  constexpr uint32_t Steps = 40;
  ASSERT_TRUE(launchOk(*M, "walk_list", LaunchConfig::linear(N, 64),
                       KernelArgs().add(Out->address()).add(DH->address()).add(Steps).add(N)));
  std::vector<uint32_t> Got = download<uint32_t>(*Out, N);
  Mismatches Bad("walk_list");
  for (uint32_t I = 0; I < N; ++I) {
    uint32_t Ref = diff::walkList(Heads[I], Steps + (I & 7));
    if (Got[I] != Ref)
      Bad.add("head " + std::to_string(I) + ": device " + hex(Got[I]) + ", host " + hex(Ref));
  }
  EXPECT_TRUE(Bad.result());
}

TEST_P(Pointers, StructByValue) {
  Module *M = loadModule("memory", level());
  ASSERT_TRUE(M);
  Device &Dev = *sharedDevice();
  Rng R(0x6006);
  std::vector<diff::Record> In(N);
  for (diff::Record &Rec : In) {
    Rec.D = randomF64(R);
    Rec.Q = static_cast<int64_t>(R.next());
    Rec.F = randomF32(R);
    Rec.I = static_cast<int32_t>(R.next32());
    for (int16_t &S : Rec.S)
      S = static_cast<int16_t>(R.next32());
    for (uint8_t &B : Rec.B)
      B = static_cast<uint8_t>(R.next32());
  }
  auto DI = upload(Dev, In);
  DeviceBuffer Out(Dev, N * sizeof(diff::Record));
  std::memset(Out.data(), 0xcc, N * sizeof(diff::Record));
  ASSERT_TRUE(launchOk(*M, "record_copy", LaunchConfig::linear(N, 64),
                       KernelArgs().add(Out.address()).add(DI->address()).add(N)));
  std::vector<diff::Record> Got = download<diff::Record>(Out, N);
  Mismatches Bad("record_copy");
  for (uint32_t I = 0; I < N; ++I) {
    diff::Record Ref = diff::mixRecord(In[N - 1 - I], I);
    const diff::Record &G = Got[I];
    bool Same = sameResult(diff::KF64, diff::bitsOf(G.D), diff::bitsOf(Ref.D)) &&
                G.Q == Ref.Q &&
                sameResult(diff::KF32, diff::bitsOf(G.F), diff::bitsOf(Ref.F)) &&
                G.I == Ref.I && std::memcmp(G.S, Ref.S, sizeof(G.S)) == 0 &&
                std::memcmp(G.B, Ref.B, sizeof(G.B)) == 0;
    if (!Same)
      Bad.add("record " + std::to_string(I) + ": device {" + hex(diff::bitsOf(G.D)) +
              ", " + hex(G.Q) + ", " + hex(diff::bitsOf(G.F)) + ", " +
              hex(static_cast<uint32_t>(G.I)) + "}, host {" + hex(diff::bitsOf(Ref.D)) +
              ", " + hex(Ref.Q) + ", " + hex(diff::bitsOf(Ref.F)) + ", " +
              hex(static_cast<uint32_t>(Ref.I)) + "}");
  }
  EXPECT_TRUE(Bad.result());
}

TEST_P(Pointers, LargeStructCopy) {
  Module *M = loadModule("memory", level());
  ASSERT_TRUE(M);
  Device &Dev = *sharedDevice();
  Rng R(0x6007);
  std::vector<diff::Big> In(N);
  for (diff::Big &B : In)
    for (uint32_t &W : B.W)
      W = R.next32();
  auto DI = upload(Dev, In);
  DeviceBuffer Out(Dev, N * sizeof(diff::Big));
  ASSERT_TRUE(launchOk(*M, "big_copy", LaunchConfig::linear(N, 64),
                       KernelArgs().add(Out.address()).add(DI->address()).add(N)));
  std::vector<diff::Big> Got = download<diff::Big>(Out, N);
  Mismatches Bad("big_copy");
  for (uint32_t I = 0; I < N; ++I) {
    diff::Big Ref;
    diff::bigCopy(&Ref, &In[(I * 5) % N], I);
    for (int W = 0; W < 48; ++W)
      if (Got[I].W[W] != Ref.W[W])
        Bad.add("struct " + std::to_string(I) + " word " + std::to_string(W) +
                ": device " + hex(Got[I].W[W]) + ", host " + hex(Ref.W[W]));
  }
  EXPECT_TRUE(Bad.result());
}

// MUBUF range checking, raw and structured: loads of lanes out of range
// read 0, their stores leave Out as it was.
TEST_P(Pointers, BufferRanges) {
  Module *M = loadModule("memory", level());
  ASSERT_TRUE(M);
  constexpr uint32_t Items = 256;
  // Not a multiple of 8: a dwordx2 with its second dword out of range.
  constexpr uint32_t Records = 2 * Items + 4;
  Device &Dev = *sharedDevice();
  std::vector<uint32_t> In(2 * Items + 8);
  Rng R(0x6007);
  for (uint32_t &W : In)
    W = uint32_t(R.next());
  auto DI = upload(Dev, In);
  auto Out = filled<uint32_t>(Dev, Items, 0xcccccccc);
  ASSERT_TRUE(launchOk(*M, "buffer_ranges", LaunchConfig::linear(Items, 64),
                       KernelArgs()
                           .add(Out->address())
                           .add(DI->address())
                           .add(Records)));
  std::vector<uint32_t> Got = download<uint32_t>(*Out, Items);
  Mismatches Bad("buffer_ranges");
  auto Word = [&](uint64_t Offset, uint32_t Checked) {
    return Checked < Records ? In[Offset / 4] : 0u;
  };
  for (uint32_t I = 0; I < Items; ++I) {
    uint32_t Want = 0xcccccccc;
    if (I * 4 < Records)
      Want = Word(I * 4, I * 4) * 3 +
             (Word(I * 4 + 12, I * 4 + 12) ^ Word(I * 4 + 8, I * 4)) +
             Word(I * 8, I * 8) * 5 + Word(I * 8 + 4, I * 8 + 4) +
             (I < Records / 8 ? In[2 * I + 1] : 0u) * 7;
    if (Got[I] != Want)
      Bad.add("item " + std::to_string(I) + ": device " + hex(Got[I]) +
              ", expected " + hex(Want));
  }
  EXPECT_TRUE(Bad.result());
}

LOOM_DIFF_LEVELS(Pointers);

} // namespace
