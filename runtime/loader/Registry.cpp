//===- runtime/loader/Registry.cpp - Every live loader object -------------===//

#include "loom/runtime/loader/Registry.h"

#include "loom/runtime/loader/Executable.h"
#include "loom/runtime/loader/LoadedCodeObject.h"

#include "llvm/ADT/STLExtras.h"

namespace loom::loader {

Registry &Registry::instance() {
  // Never destroyed: executables a program leaks may outlive static
  // destructors, and their destructors still unregister themselves.
  static Registry *R = new Registry();
  return *R;
}

std::vector<Executable *> Registry::executables() const {
  std::lock_guard<std::mutex> G(Lock);
  return Executables;
}

bool Registry::isExecutable(const void *P) const {
  std::lock_guard<std::mutex> G(Lock);
  return llvm::is_contained(Executables, P);
}

bool Registry::isLoadedCodeObject(const void *P) const {
  std::lock_guard<std::mutex> G(Lock);
  return LoadedCodeObjects.count(P);
}

bool Registry::isSymbol(const void *P) const {
  std::lock_guard<std::mutex> G(Lock);
  return Symbols.count(P);
}

bool Registry::isReader(const void *P) const {
  std::lock_guard<std::mutex> G(Lock);
  return Readers.count(P);
}

const LoadedCodeObject *Registry::loadedCodeObjectAt(uint64_t Address) const {
  std::lock_guard<std::mutex> G(Lock);
  auto It = Images.upper_bound(Address);
  if (It == Images.begin())
    return nullptr;
  --It;
  return It->second->contains(Address) ? It->second : nullptr;
}

Executable *Registry::executableAt(uint64_t Address) const {
  const LoadedCodeObject *L = loadedCodeObjectAt(Address);
  return L ? &L->executable() : nullptr;
}

std::optional<uint64_t> Registry::hostAddress(uint64_t Address) const {
  if (!loadedCodeObjectAt(Address))
    return std::nullopt;
  return Address;
}

std::vector<SegmentDescriptor> Registry::segmentDescriptors() const {
  std::lock_guard<std::mutex> G(Lock);
  std::vector<SegmentDescriptor> Out;
  // Executable by executable, in creation and load order, as ROCr lists
  // them.
  for (Executable *E : Executables) {
    std::vector<const LoadedCodeObject *> Mine;
    for (auto &[Base, L] : Images)
      if (&L->executable() == E)
        Mine.push_back(L);
    llvm::sort(Mine, [](const LoadedCodeObject *A, const LoadedCodeObject *B) {
      return A->loadOrder() < B->loadOrder();
    });
    for (const LoadedCodeObject *L : Mine) {
      SegmentDescriptor D;
      D.Agent = L->agent();
      D.Exec = E;
      D.Code = L;
      D.StorageBase = L->codeObject().bytes().data();
      D.StorageSize = L->codeObject().bytes().size();
      D.StorageOffset = L->storageOffset();
      D.SegmentBase = L->loadBase();
      D.SegmentSize = L->loadSize();
      Out.push_back(D);
    }
  }
  return Out;
}

void Registry::addExecutable(Executable *E) {
  std::lock_guard<std::mutex> G(Lock);
  Executables.push_back(E);
}

void Registry::removeExecutable(Executable *E) {
  std::lock_guard<std::mutex> G(Lock);
  llvm::erase(Executables, E);
}

void Registry::addLoadedCodeObject(const LoadedCodeObject *L) {
  std::lock_guard<std::mutex> G(Lock);
  LoadedCodeObjects.insert(L);
  Images[L->loadBase()] = L;
}

void Registry::removeLoadedCodeObject(const LoadedCodeObject *L) {
  std::lock_guard<std::mutex> G(Lock);
  LoadedCodeObjects.erase(L);
  auto It = Images.find(L->loadBase());
  if (It != Images.end() && It->second == L)
    Images.erase(It);
}

void Registry::addSymbol(const Symbol *S) {
  std::lock_guard<std::mutex> G(Lock);
  Symbols.insert(S);
}

void Registry::removeSymbol(const Symbol *S) {
  std::lock_guard<std::mutex> G(Lock);
  Symbols.erase(S);
}

void Registry::addReader(const CodeObjectReader *R) {
  std::lock_guard<std::mutex> G(Lock);
  Readers.insert(R);
}

void Registry::removeReader(const CodeObjectReader *R) {
  std::lock_guard<std::mutex> G(Lock);
  Readers.erase(R);
}

} // namespace loom::loader
