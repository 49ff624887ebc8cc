//===- tests/runtime/loader/RegistryTest.cpp - Process-wide queries -------===//

#include "LoaderTestUtil.h"

#include "loom/runtime/loader/Registry.h"

#include "llvm/ADT/STLExtras.h"

using namespace loom;
using namespace loom::loader;
using namespace loom::loader::test;

namespace {

using RegistryTest = LoaderFixture;

TEST_F(RegistryTest, AddressesLeadToTheirExecutable) {
  auto E1 = Executable::create();
  auto E2 = Executable::create();
  const LoadedCodeObject *L1 = load(*E1, "gfx90a_v5_kernels.elf");
  const LoadedCodeObject *L2 = load(*E2, "xco_callee.elf");
  ASSERT_TRUE(L1 && L2);
  Registry &R = Registry::instance();

  std::vector<Executable *> All = R.executables();
  EXPECT_TRUE(llvm::is_contained(All, E1.get()));
  EXPECT_TRUE(llvm::is_contained(All, E2.get()));

  // A kernel object, a device function and a variable of each.
  for (const char *Name : {"scale_add.kd", "helper_fib", "counter"}) {
    const Symbol *S = E1->findSymbol(Name, Agent.Handle);
    ASSERT_NE(S, nullptr) << Name;
    EXPECT_EQ(R.executableAt(S->Address), E1.get()) << Name;
    EXPECT_EQ(R.loadedCodeObjectAt(S->Address), L1) << Name;
    EXPECT_EQ(E1->loadedCodeObjectAt(S->Address), L1) << Name;
    EXPECT_EQ(R.hostAddress(S->Address), S->Address) << Name;
  }
  const Symbol *Add = E2->findSymbol("xco_shared_add", Agent.Handle);
  ASSERT_NE(Add, nullptr);
  EXPECT_EQ(R.executableAt(Add->Address + 4), E2.get());
  EXPECT_EQ(E1->loadedCodeObjectAt(Add->Address), nullptr);

  // First and last byte of an image, and just past it.
  EXPECT_EQ(R.loadedCodeObjectAt(L2->loadBase()), L2);
  EXPECT_EQ(R.loadedCodeObjectAt(L2->loadBase() + L2->loadSize() - 1), L2);
  EXPECT_NE(R.loadedCodeObjectAt(L2->loadBase() + L2->loadSize()), L2);

  // Host memory that holds no code object.
  int Local = 0;
  EXPECT_EQ(R.executableAt(uint64_t(&Local)), nullptr);
  EXPECT_FALSE(R.hostAddress(uint64_t(&Local)));
  EXPECT_FALSE(R.hostAddress(0));
}

TEST_F(RegistryTest, SegmentDescriptorsDescribeEveryImage) {
  auto E = Executable::create();
  const LoadedCodeObject *A = load(*E, "xco_caller.elf");
  const LoadedCodeObject *B = load(*E, "xco_callee.elf");
  ASSERT_TRUE(A && B);
  std::vector<SegmentDescriptor> All = Registry::instance().segmentDescriptors();
  std::vector<SegmentDescriptor> Mine;
  for (const SegmentDescriptor &D : All)
    if (D.Exec == E.get())
      Mine.push_back(D);
  ASSERT_EQ(Mine.size(), 2u);
  EXPECT_EQ(Mine[0].Code, A); // load order
  EXPECT_EQ(Mine[1].Code, B);
  for (const SegmentDescriptor &D : Mine) {
    EXPECT_EQ(D.Agent, Agent.Handle);
    EXPECT_EQ(D.SegmentBase, D.Code->loadBase());
    EXPECT_EQ(D.SegmentSize, D.Code->loadSize());
    EXPECT_EQ(D.StorageSize, D.Code->codeObject().bytes().size());
    // The storage is the ELF file, readable.
    ASSERT_NE(D.StorageBase, nullptr);
    EXPECT_EQ(std::memcmp(D.StorageBase, "\x7f" "ELF", 4), 0);
    EXPECT_EQ(D.StorageOffset, 0u);
  }
}

TEST_F(RegistryTest, LoadedCodeObjectFacts) {
  auto E = Executable::create();
  const LoadedCodeObject *L = load(*E, "xco_callee.elf");
  ASSERT_TRUE(L);
  EXPECT_EQ(&L->executable(), E.get());
  EXPECT_EQ(L->kind(), LoadedCodeObjectKind::Agent);
  EXPECT_EQ(L->agent(), Agent.Handle);
  EXPECT_EQ(&L->device(), Dev.get());
  EXPECT_EQ(L->name(), "xco_callee.elf");
  // A path reader keeps no descriptor: the URI names the file.
  EXPECT_EQ(L->storage(), ReaderStorage::File);
  EXPECT_EQ(L->uri(), "file://" + fixture("xco_callee.elf") +
                          "#offset=0&size=" +
                          std::to_string(L->codeObject().bytes().size()));
  // Load delta maps ELF addresses to loaded ones.
  for (const codeobj::Function &F : L->codeObject().functions()) {
    const Symbol *S = E->findSymbol(F.Sym.Name, Agent.Handle);
    ASSERT_NE(S, nullptr);
    EXPECT_EQ(uint64_t(L->loadDelta() + int64_t(F.Sym.Address)), S->Address);
  }
  std::vector<const LoadedCodeObject *> Listed = E->loadedCodeObjects();
  ASSERT_EQ(Listed.size(), 1u);
  EXPECT_EQ(Listed[0], L);
  EXPECT_TRUE(Registry::instance().isLoadedCodeObject(L));
}

TEST_F(RegistryTest, ReaderBookkeeping) {
  auto R = reader("xco_callee.elf");
  Registry &Reg = Registry::instance();
  EXPECT_FALSE(Reg.isReader(R.get()));
  Reg.addReader(R.get());
  EXPECT_TRUE(Reg.isReader(R.get()));
  Reg.removeReader(R.get());
  EXPECT_FALSE(Reg.isReader(R.get()));
}

} // namespace
