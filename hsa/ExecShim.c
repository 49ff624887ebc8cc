//===- hsa/ExecShim.c - What `loom exec` preloads into a client ------------===//
//
// Tools like rocminfo check for the amdgpu kernel driver before they call
// hsa_init: `lsmod | grep amdgpu`, opening /dev/kfd, membership of the
// "video" group. Loom's runtime needs no driver, so `loom exec` preloads
// this library, which answers those probes as a machine with the driver
// would: the lsmod pipe lists amdgpu, /dev/kfd opens (as /dev/null), the
// user is in the "video" group. Nothing else is touched.
//
//===----------------------------------------------------------------------===//
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static int isKfd(const char *Path) {
  return Path && strcmp(Path, "/dev/kfd") == 0;
}

#define LOOM_OPEN(Name)                                                        \
  int Name(const char *Path, int Flags, ...) {                                 \
    static int (*Real)(const char *, int, ...);                                \
    if (!Real)                                                                 \
      Real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, #Name);         \
    mode_t Mode = 0;                                                           \
    if (Flags & (O_CREAT | O_TMPFILE)) {                                       \
      va_list Ap;                                                              \
      va_start(Ap, Flags);                                                     \
      Mode = va_arg(Ap, mode_t);                                               \
      va_end(Ap);                                                              \
    }                                                                          \
    return Real(isKfd(Path) ? "/dev/null" : Path, Flags, Mode);                \
  }
LOOM_OPEN(open)
LOOM_OPEN(open64)

FILE *popen(const char *Command, const char *Type) {
  static FILE *(*Real)(const char *, const char *);
  if (!Real)
    Real = (FILE * (*)(const char *, const char *)) dlsym(RTLD_NEXT, "popen");
  if (Command && strstr(Command, "lsmod") && strstr(Command, "amdgpu"))
    return Real("echo 'amdgpu 0 0 (Loom virtual GPU)'", Type);
  return Real(Command, Type);
}

int getlogin_r(char *Buf, size_t Size) {
  static int (*Real)(char *, size_t);
  if (!Real)
    Real = (int (*)(char *, size_t))dlsym(RTLD_NEXT, "getlogin_r");
  if (Real(Buf, Size) == 0)
    return 0;
  // No controlling terminal (containers, CI): the effective user's name.
  struct passwd *Pw = getpwuid(geteuid());
  if (!Pw || strlen(Pw->pw_name) >= Size)
    return -1;
  strcpy(Buf, Pw->pw_name);
  return 0;
}

struct group *getgrnam(const char *Name) {
  static struct group *(*Real)(const char *);
  if (!Real)
    Real = (struct group * (*)(const char *)) dlsym(RTLD_NEXT, "getgrnam");
  if (Name && (!strcmp(Name, "video") || !strcmp(Name, "render"))) {
    // The group of the user: membership checks pass.
    static struct group G;
    static char GroupName[16];
    static char *NoMembers[] = {NULL};
    snprintf(GroupName, sizeof(GroupName), "%s", Name);
    G.gr_name = GroupName;
    G.gr_passwd = (char *)"x";
    G.gr_gid = getegid();
    G.gr_mem = NoMembers;
    return &G;
  }
  return Real(Name);
}
