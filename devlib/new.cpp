//===- devlib/new.cpp - C++ runtime support: new, delete, guards ----------===//
//
// What a freestanding C++ program needs beyond the C library: operator
// new/delete over malloc (no exceptions on the GPU: a failed new aborts,
// nothrow new returns null), function-local static guards, the
// pure-virtual trap, and the vtables the type_info objects of polymorphic
// classes point to (typeid and dynamic_cast are not supported).
//
//===----------------------------------------------------------------------===//

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

namespace std {
struct nothrow_t {};
enum class align_val_t : size_t {};
} // namespace std

static void *allocateOrAbort(size_t N) {
  void *P = malloc(N ? N : 1);
  if (!P) {
    fprintf(stderr, "operator new: out of device memory (%zu bytes)\n", N);
    abort();
  }
  return P;
}

void *operator new(size_t N) { return allocateOrAbort(N); }
void *operator new[](size_t N) { return allocateOrAbort(N); }
void *operator new(size_t N, const std::nothrow_t &) noexcept {
  return malloc(N ? N : 1);
}
void *operator new[](size_t N, const std::nothrow_t &) noexcept {
  return malloc(N ? N : 1);
}
void operator delete(void *P) noexcept { free(P); }
void operator delete[](void *P) noexcept { free(P); }
void operator delete(void *P, size_t) noexcept { free(P); }
void operator delete[](void *P, size_t) noexcept { free(P); }
void operator delete(void *P, const std::nothrow_t &) noexcept { free(P); }
void operator delete[](void *P, const std::nothrow_t &) noexcept { free(P); }

// The compiler emits a type_info object for every polymorphic class whose
// vptr names one of these vtables; defining a key function emits them.
namespace __cxxabiv1 {
class __class_type_info {
public:
  virtual ~__class_type_info();
};
class __si_class_type_info : public __class_type_info {
public:
  ~__si_class_type_info() override;
};
class __vmi_class_type_info : public __class_type_info {
public:
  ~__vmi_class_type_info() override;
};
__class_type_info::~__class_type_info() {}
__si_class_type_info::~__si_class_type_info() {}
__vmi_class_type_info::~__vmi_class_type_info() {}
} // namespace __cxxabiv1

extern "C" {

// Guard word: byte 0 set once initialised; bit 8 while a lane initialises.
int __cxa_guard_acquire(uint64_t *G) {
  uint32_t *W = reinterpret_cast<uint32_t *>(G);
  for (;;) {
    uint32_t V =
        __scoped_atomic_load_n(W, __ATOMIC_ACQUIRE, __MEMORY_SCOPE_DEVICE);
    if (V & 1)
      return 0;
    if (!(V & 0x100) && __scoped_atomic_compare_exchange_n(
                            W, &V, V | 0x100, false, __ATOMIC_ACQUIRE,
                            __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE))
      return 1;
    __builtin_amdgcn_s_sleep(1);
  }
}

void __cxa_guard_release(uint64_t *G) {
  __scoped_atomic_store_n(reinterpret_cast<uint32_t *>(G), 1u, __ATOMIC_RELEASE,
                          __MEMORY_SCOPE_DEVICE);
}

void __cxa_guard_abort(uint64_t *G) {
  __scoped_atomic_store_n(reinterpret_cast<uint32_t *>(G), 0u, __ATOMIC_RELEASE,
                          __MEMORY_SCOPE_DEVICE);
}

void __cxa_pure_virtual() {
  fprintf(stderr, "pure virtual function called\n");
  abort();
}

} // extern "C"
