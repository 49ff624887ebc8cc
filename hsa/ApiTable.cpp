//===- hsa/ApiTable.cpp - The HSA API table -------------------------------===//

#include "ApiTable.h"

namespace loom::hsa {

namespace {
struct Tables {
  HsaApiTable Root;
  CoreApiTable Core;
  AmdExtTable AmdExt;
  FinalizerExtTable FinalizerExt;
  ImageExtTable ImageExt;
};

// Versions as ROCr fills them: major id, and the table's size as minor id.
void fill(Tables &T) {
  T.Root = {};
  T.Root.version = {HSA_API_TABLE_MAJOR_VERSION, sizeof(HsaApiTable),
                    HSA_API_TABLE_STEP_VERSION, 0};
  T.Core.version = {HSA_CORE_API_TABLE_MAJOR_VERSION, sizeof(CoreApiTable),
                    HSA_CORE_API_TABLE_STEP_VERSION, 0};
  T.AmdExt.version = {HSA_AMD_EXT_API_TABLE_MAJOR_VERSION, sizeof(AmdExtTable),
                      HSA_AMD_EXT_API_TABLE_STEP_VERSION, 0};
  T.FinalizerExt.version = {HSA_FINALIZER_API_TABLE_MAJOR_VERSION,
                            sizeof(FinalizerExtTable),
                            HSA_FINALIZER_API_TABLE_STEP_VERSION, 0};
  T.ImageExt.version = {HSA_IMAGE_API_TABLE_MAJOR_VERSION,
                        sizeof(ImageExtTable),
                        HSA_IMAGE_API_TABLE_STEP_VERSION, 0};
  T.Root.core_ = &T.Core;
  T.Root.amd_ext_ = &T.AmdExt;
  T.Root.finalizer_ext_ = &T.FinalizerExt;
  T.Root.image_ext_ = &T.ImageExt;
#include "generated/ApiTableInit.inc"
}

Tables &tables() {
  static Tables *T = [] {
    auto *N = new Tables;
    fill(*N);
    return N;
  }();
  return *T;
}
} // namespace

HsaApiTable &apiTable() { return tables().Root; }

void resetApiTable() { fill(tables()); }

} // namespace loom::hsa
