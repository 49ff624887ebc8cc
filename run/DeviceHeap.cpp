//===- run/DeviceHeap.cpp - Device memory for the program's malloc --------===//

#include "DeviceHeap.h"

#include <bit>

namespace loom::run {

DeviceHeap::DeviceHeap(std::function<void *(uint64_t)> Allocate,
                       std::function<void(void *)> Release)
    : Allocate(std::move(Allocate)), Release(std::move(Release)) {}

DeviceHeap::~DeviceHeap() {
  for (auto &[P, Class] : Live)
    if (!Class)
      Release(P);
  for (void *C : Chunks)
    Release(C);
}

void *DeviceHeap::allocate(uint64_t Size) {
  if (!Size)
    Size = 1;
  unsigned Shift = std::max<unsigned>(MinShift, std::bit_width(Size - 1));
  if (Shift > MaxShift) {
    void *P = Allocate(Size);
    if (P)
      Live[P] = 0;
    return P;
  }
  void *P = nullptr;
  if (!FreeLists[Shift].empty()) {
    P = FreeLists[Shift].back();
    FreeLists[Shift].pop_back();
  } else {
    uint64_t Bytes = 1ull << Shift;
    if (uint64_t(BumpEnd - Bump) < Bytes) {
      // The tail of the old chunk is left unused: chunks are large.
      auto *C = static_cast<uint8_t *>(Allocate(ChunkBytes));
      if (!C)
        return nullptr;
      Chunks.push_back(C);
      Bump = C;
      BumpEnd = C + ChunkBytes;
    }
    P = Bump;
    Bump += Bytes;
  }
  Live[P] = Shift;
  return P;
}

void DeviceHeap::free(void *P) {
  auto It = Live.find(P);
  if (It == Live.end())
    return;
  if (It->second)
    FreeLists[It->second].push_back(P);
  else
    Release(P);
  Live.erase(It);
}

} // namespace loom::run
