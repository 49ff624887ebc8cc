//===- hsa/ComgrCache.cpp - A compile cache in front of comgr -------------===//
//
// Every HIP 5.2 process compiles ROCclr's blit kernels from OpenCL C at its
// first queue, through comgr and LLVM 15: about 200 ms, half of a small
// program's run under `loom exec` (docs/performance.md, "HIP start-up").
// ROCm 6's comgr caches such compiles on disk; this library does the same
// for Debian's comgr 2.4.
//
// It is named libamd_comgr.so.2 and sits in Loom's library directory, which
// `loom exec` puts first in LD_LIBRARY_PATH, so ROCclr's dlopen of comgr
// finds it. It opens the real library by its path and forwards every
// function to it unchanged (a jump per exported name, below), except
// amd_comgr_do_action: an action whose inputs are all in memory is looked up
// by a 128-bit hash of everything that decides its result (the compiler's
// identity, the action, ISA, language, options, and every input object's
// kind, name and bytes). A hit recreates the
// recorded result objects; a miss runs the action and records its result if
// it succeeded. Actions that may read files the key does not cover (include
// paths, response files, sources with #include) always run.
//
// LOOM_COMGR_CACHE: a directory (default $XDG_CACHE_HOME/loom/comgr, else
// ~/.cache/loom/comgr), or "off". LOOM_COMGR_CACHE_LOG=1 prints each
// lookup to stderr. An entry that cannot be read back whole (truncated,
// corrupt, another version's) is a miss and is written again; a failure to
// write loses nothing but the next hit.
//
//===----------------------------------------------------------------------===//
#include <amd_comgr.h>

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace llvm;

// Every function comgr 2.4 exports but amd_comgr_do_action, forwarded as is.
#define LOOM_COMGR_FORWARDED(X)                                                \
  X(amd_comgr_action_data_count)                                               \
  X(amd_comgr_action_data_get_data)                                            \
  X(amd_comgr_action_info_get_language)                                        \
  X(amd_comgr_action_info_get_logging)                                         \
  X(amd_comgr_action_info_get_option_list_count)                               \
  X(amd_comgr_action_info_get_option_list_item)                                \
  X(amd_comgr_action_info_get_options)                                         \
  X(amd_comgr_action_info_get_working_directory_path)                          \
  X(amd_comgr_action_info_set_language)                                        \
  X(amd_comgr_action_info_set_logging)                                         \
  X(amd_comgr_action_info_set_option_list)                                     \
  X(amd_comgr_action_info_set_options)                                         \
  X(amd_comgr_action_info_set_working_directory_path)                          \
  X(amd_comgr_create_action_info)                                              \
  X(amd_comgr_create_data)                                                     \
  X(amd_comgr_create_data_set)                                                 \
  X(amd_comgr_data_set_add)                                                    \
  X(amd_comgr_data_set_remove)                                                 \
  X(amd_comgr_destroy_action_info)                                             \
  X(amd_comgr_destroy_data_set)                                                \
  X(amd_comgr_destroy_disassembly_info)                                        \
  X(amd_comgr_destroy_metadata)                                                \
  X(amd_comgr_disassemble_instruction)                                         \
  X(amd_comgr_get_data)                                                        \
  X(amd_comgr_get_data_kind)                                                   \
  X(amd_comgr_get_data_metadata)                                               \
  X(amd_comgr_get_data_name)                                                   \
  X(amd_comgr_get_isa_count)                                                   \
  X(amd_comgr_get_metadata_kind)                                               \
  X(amd_comgr_get_metadata_list_size)                                          \
  X(amd_comgr_get_metadata_map_size)                                           \
  X(amd_comgr_get_metadata_string)                                             \
  X(amd_comgr_get_version)                                                     \
  X(amd_comgr_index_list_metadata)                                             \
  X(amd_comgr_iterate_map_metadata)                                            \
  X(amd_comgr_iterate_symbols)                                                 \
  X(amd_comgr_metadata_lookup)                                                 \
  X(amd_comgr_release_data)                                                    \
  X(amd_comgr_set_data)                                                        \
  X(amd_comgr_set_data_name)                                                   \
  X(amd_comgr_status_string)                                                   \
  X(amd_comgr_symbol_get_info)                                                 \
  X(amd_comgr_symbol_lookup)                                                   \
  X(amd_comgr_action_info_get_isa_name)                                        \
  X(amd_comgr_action_info_set_isa_name)                                        \
  X(amd_comgr_create_disassembly_info)                                         \
  X(amd_comgr_get_data_isa_name)                                               \
  X(amd_comgr_get_isa_metadata)                                                \
  X(amd_comgr_get_isa_name)                                                    \
  X(amd_comgr_demangle_symbol_name)                                            \
  X(amd_comgr_lookup_code_object)                                              \
  X(amd_comgr_set_data_from_file_slice)                                        \
  X(amd_comgr_create_symbolizer_info)                                          \
  X(amd_comgr_destroy_symbolizer_info)                                         \
  X(amd_comgr_symbolize)

// The real function of each forwarded name, filled at load before any can
// be called, and the name itself: a jump through that pointer. The
// arguments stay in their registers and the real function returns to the
// caller, so no prototype is needed.
#define LOOM_COMGR_JUMP(Name)                                                  \
  extern "C" __attribute__((visibility("hidden"))) void *loomReal_##Name;      \
  void *loomReal_##Name;                                                       \
  asm(".text\n.globl " #Name "\n.type " #Name ",@function\n" #Name ":\n"       \
      "  jmp *loomReal_" #Name "(%rip)\n.size " #Name ",.-" #Name "\n");
LOOM_COMGR_FORWARDED(LOOM_COMGR_JUMP)

/// The real \p Name, with the header's prototype.
#define REAL(Name) reinterpret_cast<decltype(&Name)>(loomReal_##Name)

/// Marks this library, so that it never opens itself as the real one.
extern "C" __attribute__((visibility("default")))
const char loom_comgr_cache[] = "Loom's compile cache in front of comgr";

namespace {

using DoActionFn = amd_comgr_status_t (*)(amd_comgr_action_kind_t,
                                          amd_comgr_action_info_t,
                                          amd_comgr_data_set_t,
                                          amd_comgr_data_set_t);
DoActionFn RealDoAction;

/// What a forwarded function does when the real library is missing.
extern "C" amd_comgr_status_t loomComgrMissing() {
  return AMD_COMGR_STATUS_ERROR;
}

/// Identifies the compiler in the key: path, size and time of the real
/// comgr and of the LLVM it links (its clang, device libraries and headers
/// are inside those), so an upgrade of either starts a new set of entries.
std::string RealIdentity;

std::string fileIdentity(const char *Path) {
  struct stat St;
  if (stat(Path, &St) != 0)
    return {};
  return std::string(Path) + ":" + std::to_string(St.st_size) + ":" +
         std::to_string(St.st_mtime) + "\n";
}

/// Opens the real comgr: not this library, which has its name.
void *openReal() {
  const char *Candidates[] = {
#ifdef LOOM_REAL_COMGR
      LOOM_REAL_COMGR,
#endif
      "/usr/lib/x86_64-linux-gnu/libamd_comgr.so.2",
      "/opt/rocm/lib/libamd_comgr.so.2"};
  for (const char *Path : Candidates) {
    void *H = dlopen(Path, RTLD_NOW | RTLD_LOCAL);
    if (!H)
      continue;
    if (dlsym(H, "loom_comgr_cache")) { // ourselves
      dlclose(H);
      continue;
    }
    RealIdentity = fileIdentity(Path);
    dl_iterate_phdr(
        [](dl_phdr_info *Info, size_t, void *) {
          if (StringRef(sys::path::filename(Info->dlpi_name))
                  .starts_with("libLLVM"))
            RealIdentity += fileIdentity(Info->dlpi_name);
          return 0;
        },
        nullptr);
    return H;
  }
  return nullptr;
}

bool loadReal() {
  struct Slot {
    const char *Name;
    void **Real;
  };
  const Slot Slots[] = {
#define LOOM_COMGR_SLOT(Name) {#Name, &loomReal_##Name},
      LOOM_COMGR_FORWARDED(LOOM_COMGR_SLOT)};
  void *H = openReal();
  for (const Slot &S : Slots) {
    void *F = H ? dlsym(H, S.Name) : nullptr;
    *S.Real = F ? F : reinterpret_cast<void *>(&loomComgrMissing);
  }
  if (H)
    RealDoAction =
        reinterpret_cast<DoActionFn>(dlsym(H, "amd_comgr_do_action"));
  return H != nullptr;
}

/// At load, after RealIdentity's construction (definition order).
const bool Loaded = loadReal();

/// A data object read from comgr: an action's input or result.
struct Object {
  uint32_t Kind;
  std::string Name;
  std::string Bytes;
};

/// A result object as an entry holds it (pointing into the entry).
struct ObjectRef {
  uint32_t Kind;
  StringRef Name;
  StringRef Bytes;
};

/// Reads a string through comgr's two-call protocol (size, then data).
template <typename Get> bool readString(Get G, std::string &Out, bool Nul) {
  size_t Size = 0;
  if (G(&Size, nullptr) != AMD_COMGR_STATUS_SUCCESS)
    return false;
  Out.assign(Size, '\0');
  if (Size && G(&Size, Out.data()) != AMD_COMGR_STATUS_SUCCESS)
    return false;
  if (Nul && !Out.empty() && Out.back() == '\0')
    Out.pop_back();
  return true;
}

/// Every object of \p Set, in kind then index order.
bool readSet(amd_comgr_data_set_t Set, std::vector<Object> &Out) {
  for (uint32_t Kind = AMD_COMGR_DATA_KIND_SOURCE;
       Kind <= AMD_COMGR_DATA_KIND_LAST; ++Kind) {
    size_t Count = 0;
    auto K = amd_comgr_data_kind_t(Kind);
    if (REAL(amd_comgr_action_data_count)(Set, K, &Count) !=
        AMD_COMGR_STATUS_SUCCESS)
      continue; // not a kind this comgr knows
    for (size_t I = 0; I < Count; ++I) {
      amd_comgr_data_t Data;
      if (REAL(amd_comgr_action_data_get_data)(Set, K, I, &Data) !=
          AMD_COMGR_STATUS_SUCCESS)
        return false;
      Object O{Kind, {}, {}};
      bool Ok = readString(
                    [&](size_t *S, char *P) {
                      return REAL(amd_comgr_get_data_name)(Data, S, P);
                    },
                    O.Name, /*Nul=*/true) &&
                readString(
                    [&](size_t *S, char *P) {
                      return REAL(amd_comgr_get_data)(Data, S, P);
                    },
                    O.Bytes, /*Nul=*/false);
      REAL(amd_comgr_release_data)(Data);
      if (!Ok)
        return false;
      Out.push_back(std::move(O));
    }
  }
  return true;
}

/// Whether \p Set holds no object (counted, not read).
bool isEmpty(amd_comgr_data_set_t Set) {
  for (uint32_t Kind = AMD_COMGR_DATA_KIND_SOURCE;
       Kind <= AMD_COMGR_DATA_KIND_LAST; ++Kind) {
    size_t Count = 0;
    if (REAL(amd_comgr_action_data_count)(Set, amd_comgr_data_kind_t(Kind),
                                          &Count) == AMD_COMGR_STATUS_SUCCESS &&
        Count)
      return false;
  }
  return true;
}

/// Whether \p Option may make the compiler read a file the key does not
/// hash: a path, a response file, or an option that names a file to
/// include, link or load (clang's, cc1's after -Xclang, LLVM's after -mllvm).
bool readsFiles(StringRef Option) {
  if (Option.contains('/') || Option.starts_with("@") ||
      Option.contains_insensitive("file"))
    return true;
  for (StringRef Risky :
       {"-I", "-i", "--include", "--sysroot", "-L", "-l", "-B", "-mlink",
        "-fprofile", "-fmodule", "-fplugin", "-fpass-plugin", "-load",
        "-fsanitize", "-fembed", "--rocm", "--hip", "--cuda"})
    if (Option.starts_with(Risky))
      return true;
  return false;
}

/// The action's key as text to hash, or false, with the reason in \p Why,
/// if it may not be cached.
bool describe(amd_comgr_action_kind_t Kind, amd_comgr_action_info_t Info,
              const std::vector<Object> &Inputs, std::string &Key,
              std::string &Why) {
  raw_string_ostream OS(Key);
  OS << "loom-comgr-cache 1\n"
     << RealIdentity << '\n'
     << unsigned(Kind) << '\n';
  std::string S;
  auto Str = [&](auto Get) { return readString(Get, S, /*Nul=*/true); };
  if (!Str([&](size_t *Size, char *P) {
        return REAL(amd_comgr_action_info_get_isa_name)(Info, Size, P);
      }))
    return false;
  OS << "isa " << S << '\n';
  amd_comgr_language_t Language;
  bool Logging;
  if (REAL(amd_comgr_action_info_get_language)(Info, &Language) !=
          AMD_COMGR_STATUS_SUCCESS ||
      REAL(amd_comgr_action_info_get_logging)(Info, &Logging) !=
          AMD_COMGR_STATUS_SUCCESS)
    return false;
  OS << "language " << unsigned(Language) << " logging " << Logging << '\n';
  // The working directory is left out: only file reads would see it, and
  // actions that read files are not cached. (comgr 2.4 also crashes when
  // asked for one that was never set.)
  // Options: a list, or (set the older way) one string.
  size_t Count = 0;
  if (REAL(amd_comgr_action_info_get_option_list_count)(Info, &Count) ==
      AMD_COMGR_STATUS_SUCCESS) {
    for (size_t I = 0; I < Count; ++I) {
      if (!Str([&](size_t *Size, char *P) {
            return REAL(amd_comgr_action_info_get_option_list_item)(Info, I,
                                                                    Size, P);
          }))
        return false;
      if (readsFiles(S)) {
        Why = "option " + S;
        return false;
      }
      OS << "option " << S.size() << ' ' << S << '\n';
    }
  } else {
    if (!Str([&](size_t *Size, char *P) {
          return REAL(amd_comgr_action_info_get_options)(Info, Size, P);
        }))
      return false;
    SmallVector<StringRef, 16> Words;
    StringRef(S).split(Words, ' ', -1, /*KeepEmpty=*/false);
    for (StringRef W : Words)
      if (readsFiles(W)) {
        Why = ("option " + W).str();
        return false;
      }
    OS << "options " << S.size() << ' ' << S << '\n';
  }
  for (const Object &O : Inputs) {
    if (O.Kind == AMD_COMGR_DATA_KIND_SOURCE &&
        StringRef(O.Bytes).contains("#include")) {
      Why = "#include in " + O.Name;
      return false;
    }
    // The bytes by their own hash: copying megabytes of device libraries
    // into the key cost more than the hashing.
    XXH128_hash_t H = xxh3_128bits(arrayRefFromStringRef(O.Bytes));
    OS << "input " << O.Kind << ' ' << O.Name.size() << ' ' << O.Name << ' '
       << O.Bytes.size() << ' ' << format_hex_no_prefix(H.high64, 16)
       << format_hex_no_prefix(H.low64, 16) << '\n';
  }
  return true;
}

bool logging() {
  const char *Env = getenv("LOOM_COMGR_CACHE_LOG");
  return Env && *Env && strcmp(Env, "0");
}

/// The cache's directory, empty when off or not writable. Read at each
/// action (a compile takes milliseconds at least), so a process may turn
/// it on and off.
std::string cacheDir() {
  const char *Env = getenv("LOOM_COMGR_CACHE");
  if (Env && (!strcmp(Env, "off") || !strcmp(Env, "0")))
    return {};
  SmallString<256> Dir;
  if (Env && *Env) {
    Dir = Env;
  } else if (const char *Xdg = getenv("XDG_CACHE_HOME"); Xdg && *Xdg) {
    Dir = Xdg;
    sys::path::append(Dir, "loom", "comgr");
  } else if (const char *Home = getenv("HOME"); Home && *Home) {
    Dir = Home;
    sys::path::append(Dir, ".cache", "loom", "comgr");
  } else {
    return {};
  }
  if (std::error_code EC = sys::fs::create_directories(Dir)) {
    if (logging())
      fprintf(stderr, "loom comgr cache: off: cannot create %s: %s\n",
              Dir.c_str(), EC.message().c_str());
    return {};
  }
  return std::string(Dir);
}

// An entry: Magic, the object count, then per object its kind, name and
// bytes (lengths as 64-bit little-endian), then an xxh3 of all before it.
constexpr char Magic[8] = {'L', 'C', 'G', 'R', 'C', 'A', 'C', '1'};

void put64(std::string &Out, uint64_t V) {
  for (int I = 0; I < 8; ++I)
    Out.push_back(char(V >> (8 * I)));
}

bool get64(StringRef &In, uint64_t &V) {
  if (In.size() < 8)
    return false;
  V = 0;
  for (int I = 0; I < 8; ++I)
    V |= uint64_t(uint8_t(In[I])) << (8 * I);
  In = In.drop_front(8);
  return true;
}

bool getBytes(StringRef &In, StringRef &Out) {
  uint64_t Size;
  if (!get64(In, Size) || In.size() < Size)
    return false;
  Out = In.take_front(Size);
  In = In.drop_front(Size);
  return true;
}

std::string encode(const std::vector<Object> &Objects) {
  std::string Out(Magic, sizeof(Magic));
  put64(Out, Objects.size());
  for (const Object &O : Objects) {
    put64(Out, O.Kind);
    put64(Out, O.Name.size());
    Out += O.Name;
    put64(Out, O.Bytes.size());
    Out += O.Bytes;
  }
  put64(Out, xxh3_64bits(arrayRefFromStringRef(Out)));
  return Out;
}

bool decode(StringRef In, std::vector<ObjectRef> &Objects) {
  if (In.size() < sizeof(Magic) + 16 ||
      !In.starts_with(StringRef(Magic, sizeof(Magic))))
    return false;
  StringRef Body = In.drop_back(8), Tail = In.take_back(8);
  uint64_t Sum;
  if (!get64(Tail, Sum) || Sum != xxh3_64bits(arrayRefFromStringRef(Body)))
    return false;
  Body = Body.drop_front(sizeof(Magic));
  uint64_t Count;
  if (!get64(Body, Count))
    return false;
  for (uint64_t I = 0; I < Count; ++I) {
    ObjectRef O;
    uint64_t Kind;
    if (!get64(Body, Kind) || Kind > AMD_COMGR_DATA_KIND_LAST ||
        !getBytes(Body, O.Name) || !getBytes(Body, O.Bytes))
      return false;
    O.Kind = uint32_t(Kind);
    Objects.push_back(std::move(O));
  }
  return Body.empty();
}

/// Sets \p Data's bytes. amd_comgr_set_data refuses none, but an action's
/// empty log must read back as empty (ROCclr reads it as a string), and a
/// slice of no bytes gives that.
bool setBytes(amd_comgr_data_t Data, StringRef Bytes) {
  if (!Bytes.empty())
    return REAL(amd_comgr_set_data)(Data, Bytes.size(), Bytes.data()) ==
           AMD_COMGR_STATUS_SUCCESS;
  int FD = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (FD < 0)
    return false;
  bool Ok = REAL(amd_comgr_set_data_from_file_slice)(Data, FD, 0, 0) ==
            AMD_COMGR_STATUS_SUCCESS;
  close(FD);
  return Ok;
}

/// Adds \p Objects to \p Result as new data objects.
bool addObjects(const std::vector<ObjectRef> &Objects,
                amd_comgr_data_set_t Result) {
  for (const ObjectRef &O : Objects) {
    amd_comgr_data_t Data;
    if (REAL(amd_comgr_create_data)(amd_comgr_data_kind_t(O.Kind), &Data) !=
        AMD_COMGR_STATUS_SUCCESS)
      return false;
    bool Ok =
        setBytes(Data, O.Bytes) &&
        (O.Name.empty() ||
         REAL(amd_comgr_set_data_name)(Data, O.Name.str().c_str()) ==
             AMD_COMGR_STATUS_SUCCESS) &&
        REAL(amd_comgr_data_set_add)(Result, Data) == AMD_COMGR_STATUS_SUCCESS;
    REAL(amd_comgr_release_data)(Data); // the set holds its own reference
    if (!Ok)
      return false;
  }
  return true;
}

void writeEntry(StringRef Path, const std::string &Bytes) {
  SmallString<256> Temp;
  int FD;
  if (sys::fs::createUniqueFile(Path + ".tmp-%%%%%%%%", FD, Temp))
    return;
  {
    raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << Bytes;
    OS.close();
    if (OS.has_error()) {
      OS.clear_error();
      sys::fs::remove(Temp);
      return;
    }
  }
  // Readers see the old entry, none, or the whole new one.
  if (sys::fs::rename(Temp, Path))
    sys::fs::remove(Temp);
}

} // namespace

extern "C" __attribute__((visibility("default"))) amd_comgr_status_t
amd_comgr_do_action(amd_comgr_action_kind_t Kind, amd_comgr_action_info_t Info,
                    amd_comgr_data_set_t Input, amd_comgr_data_set_t Result) {
  if (!RealDoAction)
    return AMD_COMGR_STATUS_ERROR;
  std::string Dir = cacheDir();
  if (Dir.empty())
    return RealDoAction(Kind, Info, Input, Result);
  std::vector<Object> Inputs;
  std::string Key, Why = "unreadable inputs";
  // Only an action with an empty result set is recorded: the entry must be
  // exactly what the action added.
  bool Cacheable = false;
  if (!isEmpty(Result))
    Why = "result set not empty";
  else
    Cacheable =
        readSet(Input, Inputs) && describe(Kind, Info, Inputs, Key, Why);
  if (!Cacheable) {
    if (logging())
      fprintf(stderr, "loom comgr cache: action %u not cached: %s\n",
              unsigned(Kind), Why.c_str());
    return RealDoAction(Kind, Info, Input, Result);
  }
  XXH128_hash_t Hash = xxh3_128bits(arrayRefFromStringRef(Key));
  char Name[40];
  snprintf(Name, sizeof(Name), "%016llx%016llx",
           (unsigned long long)Hash.high64, (unsigned long long)Hash.low64);
  SmallString<256> Path(Dir);
  sys::path::append(Path, Name);

  if (auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                       /*RequiresNullTerminator=*/false)) {
    std::vector<ObjectRef> Objects;
    if (decode((*Buf)->getBuffer(), Objects) && addObjects(Objects, Result)) {
      if (logging())
        fprintf(stderr, "loom comgr cache: hit %s (action %u, %zu objects)\n",
                Name, unsigned(Kind), Objects.size());
      return AMD_COMGR_STATUS_SUCCESS;
    }
    // A damaged entry: whatever was added goes, and the action runs.
    REAL(amd_comgr_data_set_remove)(Result, AMD_COMGR_DATA_KIND_UNDEF);
    if (logging())
      fprintf(stderr, "loom comgr cache: damaged entry %s, rebuilt\n", Name);
  }

  amd_comgr_status_t Status = RealDoAction(Kind, Info, Input, Result);
  std::vector<Object> Objects;
  if (Status == AMD_COMGR_STATUS_SUCCESS && readSet(Result, Objects)) {
    writeEntry(Path, encode(Objects));
    if (logging())
      fprintf(stderr, "loom comgr cache: miss %s (action %u, %zu objects)\n",
              Name, unsigned(Kind), Objects.size());
  }
  return Status;
}
