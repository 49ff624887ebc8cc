//===- hsa/HipStreamAllocShim.c - Stream-ordered allocation under loom exec ===//
//
// HIP 5.2 never returns from hipStreamDestroy of a stream that
// hipFreeAsync freed memory on: its memory pool's release loop
// (MemoryPool::ReleaseFreedMemory, called by hipStreamDestroy) spins on an
// emptied hash table inside libamdhip64, after every command has
// completed and with nothing asked of the HSA runtime, so no answer of
// Loom's can end it. Under `loom exec` the preloaded shim gives
// hipMallocAsync and hipFreeAsync the stream-ordered meaning without HIP's
// pool: the stream is synchronised, then hipMalloc / hipFree run. Work
// queued before the call finishes before the memory changes hands, as
// stream order requires; the calls only wait longer than HIP's would.
//
//===----------------------------------------------------------------------===//
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>

typedef void *HipStream;

static void *real(const char *Name) { return dlsym(RTLD_NEXT, Name); }

int hipMallocAsync(void **Ptr, size_t Size, HipStream Stream) {
  int (*Sync)(HipStream) = (int (*)(HipStream))real("hipStreamSynchronize");
  int (*Malloc)(void **, size_t) = (int (*)(void **, size_t))real("hipMalloc");
  if (!Sync || !Malloc)
    return 1; // hipErrorInvalidValue: HIP is not loaded
  int S = Sync(Stream);
  return S ? S : Malloc(Ptr, Size);
}

int hipFreeAsync(void *Ptr, HipStream Stream) {
  int (*Sync)(HipStream) = (int (*)(HipStream))real("hipStreamSynchronize");
  int (*Free)(void *) = (int (*)(void *))real("hipFree");
  if (!Sync || !Free)
    return 1;
  int S = Sync(Stream);
  return S ? S : Free(Ptr);
}
