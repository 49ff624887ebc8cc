// Echoes argc, argv and one environment variable, from lane 0.
#include <gpuintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv, char **envp) {
  if (__gpu_thread_id_x() != 0)
    return 0;
  printf("argc=%d\n", argc);
  for (int I = 0; I < argc; ++I)
    printf("argv[%d]=%s\n", I, argv[I]);
  const char *V = getenv("LOOM_RUN_TEST_VAR");
  printf("LOOM_RUN_TEST_VAR=%s\n", V ? V : "(unset)");
  int Found = 0;
  for (char **E = envp; *E; ++E)
    Found += !strncmp(*E, "LOOM_RUN_TEST_VAR=", 18);
  printf("envp has it %d time(s)\n", Found);
  return 0;
}
