//===- LdsTest.cpp - LDS with barriers across the waves of a group -------===//
#include "DiffHarness.h"

#include <cstring>

using namespace loom::emu;
using namespace loom::emu::difftest;

namespace {

constexpr uint32_t Group = 256; // four waves
constexpr uint32_t Groups = 12;
constexpr uint32_t Items = Group * Groups;

class Lds : public LevelTest {};

std::vector<uint32_t> randomWords(size_t N, uint64_t Seed) {
  Rng R(Seed);
  std::vector<uint32_t> V(N);
  for (uint32_t &W : V)
    W = R.next32();
  return V;
}

TEST_P(Lds, TreeReduction) {
  Module *M = loadModule("lds", level());
  ASSERT_TRUE(M);
  Device &Dev = *sharedDevice();
  std::vector<uint32_t> In = randomWords(Items, 0x7001);
  auto DI = upload(Dev, In);
  auto Out = filled<uint32_t>(Dev, Groups, 0xcccccccc);
  ASSERT_TRUE(launchOk(*M, "lds_reduce", LaunchConfig::linear(Items, Group),
                       KernelArgs().add(Out->address()).add(DI->address())));
  std::vector<uint32_t> Got = download<uint32_t>(*Out, Groups);
  for (uint32_t G = 0; G < Groups; ++G) {
    uint32_t Sum = 0;
    for (uint32_t T = 0; T < Group; ++T)
      Sum += In[G * Group + T];
    EXPECT_EQ(Got[G], Sum) << "work-group " << G;
  }
}

TEST_P(Lds, InclusiveScan) {
  Module *M = loadModule("lds", level());
  ASSERT_TRUE(M);
  Device &Dev = *sharedDevice();
  std::vector<uint32_t> In = randomWords(Items, 0x7002);
  auto DI = upload(Dev, In);
  auto Out = filled<uint32_t>(Dev, Items, 0xcccccccc);
  ASSERT_TRUE(launchOk(*M, "lds_scan", LaunchConfig::linear(Items, Group),
                       KernelArgs().add(Out->address()).add(DI->address())));
  std::vector<uint32_t> Got = download<uint32_t>(*Out, Items);
  Mismatches Bad("lds_scan");
  for (uint32_t G = 0; G < Groups; ++G) {
    uint32_t Sum = 0;
    for (uint32_t T = 0; T < Group; ++T) {
      uint32_t I = G * Group + T;
      Sum += In[I];
      if (Got[I] != Sum)
        Bad.add("item " + std::to_string(I) + ": device " + hex(Got[I]) + ", expected " + hex(Sum));
    }
  }
  EXPECT_TRUE(Bad.result());
}

TEST_P(Lds, ReverseAcrossWaves) {
  Module *M = loadModule("lds", level());
  ASSERT_TRUE(M);
  Device &Dev = *sharedDevice();
  std::vector<uint32_t> In = randomWords(Items, 0x7003);
  auto DI = upload(Dev, In);
  auto Out = filled<uint32_t>(Dev, Items, 0xcccccccc);
  ASSERT_TRUE(launchOk(*M, "lds_reverse", LaunchConfig::linear(Items, Group),
                       KernelArgs().add(Out->address()).add(DI->address())));
  std::vector<uint32_t> Got = download<uint32_t>(*Out, Items);
  Mismatches Bad("lds_reverse");
  for (uint32_t I = 0; I < Items; ++I) {
    uint32_t T = I % Group, Base = I - T;
    uint32_t Want = In[Base + Group - 1 - T] ^ T;
    if (Got[I] != Want)
      Bad.add("item " + std::to_string(I) + ": device " + hex(Got[I]) + ", expected " + hex(Want));
  }
  EXPECT_TRUE(Bad.result());
}

TEST_P(Lds, Transpose2D) {
  Module *M = loadModule("lds", level());
  ASSERT_TRUE(M);
  Device &Dev = *sharedDevice();
  constexpr uint32_t Width = 64; // 4x4 work-groups of 16x16
  Rng R(0x7004);
  std::vector<float> In(Width * Width);
  for (float &F : In)
    F = randomF32(R);
  auto DI = upload(Dev, In);
  auto Out = filled<float>(Dev, Width * Width, -1.0f);
  LaunchConfig Config;
  Config.Dimensions = 2;
  Config.Grid[0] = Config.Grid[1] = Width;
  Config.Workgroup[0] = Config.Workgroup[1] = 16;
  ASSERT_TRUE(launchOk(*M, "lds_transpose", Config,
                       KernelArgs().add(Out->address()).add(DI->address()).add(Width)));
  std::vector<float> Got = download<float>(*Out, Width * Width);
  Mismatches Bad("lds_transpose");
  for (uint32_t Y = 0; Y < Width; ++Y)
    for (uint32_t X = 0; X < Width; ++X) {
      uint32_t G = diff::bitsOf(Got[Y * Width + X]), W = diff::bitsOf(In[X * Width + Y]);
      if (G != W)
        Bad.add("(" + std::to_string(X) + "," + std::to_string(Y) + "): device " + hex(G) +
                ", expected " + hex(W));
    }
  EXPECT_TRUE(Bad.result());
}

TEST_P(Lds, DynamicAfterStatic) {
  Module *M = loadModule("lds", level());
  ASSERT_TRUE(M);
  Device &Dev = *sharedDevice();
  constexpr uint32_t Count = 3000; // dynamic LDS words per group
  std::vector<uint32_t> In = randomWords(Count, 0x7005);
  auto DI = upload(Dev, In);
  auto Out = filled<uint32_t>(Dev, Items, 0xcccccccc);
  LaunchConfig Config = LaunchConfig::linear(Items, Group);
  Config.DynamicLdsBytes = Count * 4;
  ASSERT_TRUE(launchOk(*M, "lds_dynamic", Config,
                       KernelArgs().add(Out->address()).add(DI->address()).add(Count)));
  std::vector<uint32_t> Got = download<uint32_t>(*Out, Items);
  Mismatches Bad("lds_dynamic");
  for (uint32_t I = 0; I < Items; ++I) {
    uint32_t T = I % Group, Want = ((T + 1) % Group) * 7;
    for (uint32_t K = T; K < Count; K += Group)
      Want += In[Count - 1 - K] * 3;
    if (Got[I] != Want)
      Bad.add("item " + std::to_string(I) + ": device " + hex(Got[I]) + ", expected " + hex(Want));
  }
  EXPECT_TRUE(Bad.result());
}

TEST_P(Lds, AccessWidths) {
  Module *M = loadModule("lds", level());
  ASSERT_TRUE(M);
  Device &Dev = *sharedDevice();
  Rng R(0x7006);
  std::vector<uint64_t> In(Items);
  for (uint64_t &V : In)
    V = R.next();
  auto DI = upload(Dev, In);
  auto Out = filled<uint64_t>(Dev, Items, 0xccccccccccccccccull);
  ASSERT_TRUE(launchOk(*M, "lds_widths", LaunchConfig::linear(Items, Group),
                       KernelArgs().add(Out->address()).add(DI->address())));
  std::vector<uint64_t> Got = download<uint64_t>(*Out, Items);
  Mismatches Bad("lds_widths");
  for (uint32_t I = 0; I < Items; ++I) {
    uint32_t T = I % Group, Base = I - T;
    auto V = [&](uint32_t K) { return In[Base + K % Group]; };
    uint64_t Want = static_cast<uint8_t>(V(T + 3));
    Want += static_cast<uint64_t>(static_cast<int64_t>(static_cast<int8_t>(V(T + 5)))) << 8;
    Want ^= static_cast<uint64_t>(static_cast<int64_t>(static_cast<int16_t>(V(T + 17) >> 8))) << 16;
    Want += V(T + 64) * 0x9e3779b97f4a7c15ull;
    Want ^= diff::bitsOf(static_cast<double>(static_cast<uint32_t>(V(T * 3))) * 0.25);
    if (Got[I] != Want)
      Bad.add("item " + std::to_string(I) + ": device " + hex(Got[I]) + ", expected " + hex(Want));
  }
  EXPECT_TRUE(Bad.result());
}

// LDS DMA (buffer_load_dword ... lds, global_load ... lds): each wave's
// loads land in its 64 words of the tile at M0, read back across waves
// after the barrier.
TEST_P(Lds, DmaLoads) {
  Module *M = loadModule("lds", level());
  ASSERT_TRUE(M);
  Device &Dev = *sharedDevice();
  std::vector<uint32_t> In = randomWords(2 * Items, 0x7007);
  auto DI = upload(Dev, In);
  auto Out = filled<uint32_t>(Dev, Items, 0xcccccccc);
  ASSERT_TRUE(launchOk(*M, "lds_dma", LaunchConfig::linear(Items, Group),
                       KernelArgs()
                           .add(Out->address())
                           .add(DI->address())
                           .add(uint32_t(Items))));
  std::vector<uint32_t> Got = download<uint32_t>(*Out, Items);
  Mismatches Bad("lds_dma");
  for (uint32_t I = 0; I < Items; ++I) {
    uint32_t T = I % Group, Base = I - T;
    uint32_t Want = In[Base + (T + 65) % Group] * 3 +
                    In[Items + Base + (T + 130) % Group];
    if (Got[I] != Want)
      Bad.add("item " + std::to_string(I) + ": device " + hex(Got[I]) +
              ", expected " + hex(Want));
  }
  EXPECT_TRUE(Bad.result());
}

LOOM_DIFF_LEVELS(Lds);

} // namespace
