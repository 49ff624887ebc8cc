/*===- assert.h - assert() for loom run programs -----------------*- C -*-===*/
#undef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#ifdef __cplusplus
extern "C"
#endif
    _Noreturn void __loom_assert_fail(const char *, const char *, int,
                                      const char *);
#define assert(e)                                                              \
  ((e) ? (void)0 : __loom_assert_fail(#e, __FILE__, __LINE__, __func__))
#endif
