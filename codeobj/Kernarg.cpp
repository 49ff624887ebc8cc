//===- codeobj/Kernarg.cpp - Hidden kernel arguments ----------------------===//

#include "loom/codeobj/Kernarg.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstring>

using namespace llvm;

namespace loom::codeobj {

Error writeHiddenArguments(const KernelMetadata &Kernel,
                           const HiddenArgumentValues &V,
                           MutableArrayRef<uint8_t> Kernarg) {
  uint32_t Blocks[3], Remainder[3];
  for (int D = 0; D < 3; ++D) {
    Blocks[D] = V.GroupItems[D] ? V.GridItems[D] / V.GroupItems[D] : 0;
    Remainder[D] = V.GroupItems[D] ? V.GridItems[D] % V.GroupItems[D] : 0;
  }
  for (const KernelArgMetadata &A : Kernel.Args) {
    if (!A.isHidden())
      continue;
    // The value and its width, as AMDGPUUsage gives them; 0 bytes: none.
    uint64_t Value = 0;
    unsigned Bytes =
        StringSwitch<unsigned>(A.ValueKind)
            .Cases({"hidden_block_count_x", "hidden_block_count_y",
                    "hidden_block_count_z", "hidden_dynamic_lds_size",
                    "hidden_shared_base", "hidden_private_base"},
                   4)
            .Cases({"hidden_group_size_x", "hidden_group_size_y",
                    "hidden_group_size_z", "hidden_remainder_x",
                    "hidden_remainder_y", "hidden_remainder_z",
                    "hidden_grid_dims"},
                   2)
            .Cases({"hidden_queue_ptr", "hidden_heap_v1",
                    "hidden_printf_buffer", "hidden_hostcall_buffer"},
                   8)
            .Default(0);
    if (!Bytes)
      continue; // global offsets, completion actions, ...: zero
    StringRef VK = A.ValueKind;
    int Axis = VK.back() - 'x';
    if (VK.starts_with("hidden_block_count_"))
      Value = Blocks[Axis];
    else if (VK.starts_with("hidden_group_size_"))
      Value = V.GroupItems[Axis];
    else if (VK.starts_with("hidden_remainder_"))
      Value = Remainder[Axis];
    else if (VK == "hidden_grid_dims")
      Value = V.Dimensions;
    else if (VK == "hidden_dynamic_lds_size")
      Value = V.DynamicLdsBytes;
    else if (VK == "hidden_shared_base")
      Value = V.SharedApertureBase >> 32;
    else if (VK == "hidden_private_base")
      Value = V.PrivateApertureBase >> 32;
    else if (VK == "hidden_queue_ptr")
      Value = V.QueuePointer;
    else if (VK == "hidden_heap_v1")
      Value = V.HeapV1;
    else if (VK == "hidden_printf_buffer")
      Value = V.PrintfBuffer;
    else if (VK == "hidden_hostcall_buffer")
      Value = V.HostcallBuffer;
    if (A.Offset > Kernarg.size() || Kernarg.size() - A.Offset < Bytes)
      return createStringError(
          formatv("kernel '{0}': hidden argument {1} at offset {2} lies "
                  "outside its {3}-byte kernarg segment",
                  Kernel.Name, VK, A.Offset, Kernarg.size())
              .str());
    // Little-endian: the low Bytes bytes of Value.
    std::memcpy(Kernarg.data() + A.Offset, &Value, Bytes);
  }
  return Error::success();
}

} // namespace loom::codeobj
