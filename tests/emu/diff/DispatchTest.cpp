//===- DispatchTest.cpp - Ids and sizes of a 3-D dispatch -----------------===//
#include "DiffHarness.h"
#include "KernelAbi.h"


using namespace loom::emu;
using namespace loom::emu::difftest;

namespace {

class Dispatch : public LevelTest {
protected:
  void checkIds(const uint32_t (&Grid)[3], const uint16_t (&Group)[3]);
};

TEST_P(Dispatch, ThreeDimensionalIds) {
  // Partial last work-groups in every dimension: one wave a group, then
  // six waves a group, whose waves start inside a row and a plane.
  checkIds({37, 11, 5}, {8, 4, 2});
  checkIds({50, 13, 7}, {24, 5, 3});
}

void Dispatch::checkIds(const uint32_t (&Grid)[3],
                        const uint16_t (&Group)[3]) {
  Module *M = loadModule("dispatch", level());
  ASSERT_TRUE(M);
  Device &Dev = *sharedDevice();
  constexpr uint32_t Fields = diff::DispatchFields;
  size_t Items = size_t(Grid[0]) * Grid[1] * Grid[2];
  auto Out = filled<uint32_t>(Dev, Items * Fields, 0xffffffff);
  LaunchConfig Config;
  Config.Dimensions = 3;
  for (int D = 0; D < 3; ++D) {
    Config.Grid[D] = Grid[D];
    Config.Workgroup[D] = Group[D];
  }
  ASSERT_TRUE(launchOk(*M, "dispatch_ids", Config,
                       KernelArgs()
                           .add(Out->address())
                           .add(uint32_t(Group[0]))
                           .add(uint32_t(Group[1]))
                           .add(uint32_t(Group[2]))
                           .add(Grid[0])
                           .add(Grid[1])));
  std::vector<uint32_t> Got = download<uint32_t>(*Out, Items * Fields);
  static const char *const FieldNames[Fields] = {
      "workitem_id_x",    "workitem_id_y",    "workitem_id_z",
      "workgroup_id_x",   "workgroup_id_y",   "workgroup_id_z",
      "workgroup_size_x", "workgroup_size_y", "workgroup_size_z",
      "grid_size_x",      "grid_size_y",      "grid_size_z",
      "hidden_block_count_x", "hidden_block_count_y", "hidden_block_count_z",
      "hidden_remainder_x", "hidden_remainder_y", "hidden_remainder_z"};
  Mismatches Bad("dispatch_ids");
  for (uint32_t Z = 0; Z < Grid[2]; ++Z)
    for (uint32_t Y = 0; Y < Grid[1]; ++Y)
      for (uint32_t X = 0; X < Grid[0]; ++X) {
        uint32_t P[3] = {X, Y, Z};
        uint32_t Want[Fields];
        for (int D = 0; D < 3; ++D) {
          Want[D] = P[D] % Group[D];
          Want[3 + D] = P[D] / Group[D];
          // __builtin_amdgcn_workgroup_size_* reads hidden_group_size_*:
          // the full size, in the partial group too.
          Want[6 + D] = Group[D];
          Want[9 + D] = Grid[D];
          Want[12 + D] = Grid[D] / Group[D];
          Want[15 + D] = Grid[D] % Group[D];
        }
        size_t Base = Fields * (X + size_t(Grid[0]) * (Y + size_t(Grid[1]) * Z));
        for (uint32_t F = 0; F < Fields; ++F)
          if (Got[Base + F] != Want[F])
            Bad.add("(" + std::to_string(X) + "," + std::to_string(Y) + "," +
                    std::to_string(Z) + ") " + FieldNames[F] + ": device " +
                    std::to_string(Got[Base + F]) + ", expected " +
                    std::to_string(Want[F]));
      }
  EXPECT_TRUE(Bad.result());
}

LOOM_DIFF_LEVELS(Dispatch);

} // namespace
