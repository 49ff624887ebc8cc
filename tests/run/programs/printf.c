// printf conversions, compared by the test against the host's printf.
#include <stdio.h>

int main(void) {
  char Local[16] = "on the stack";
  printf("[%d] [%5d] [%-5d] [%05d] [%+d] [%i]\n", 42, 42, 42, 42, 42, -7);
  printf("[%u] [%x] [%X] [%#x] [%o] [%lu] [%lld] [%zu] [%hhd] [%hd]\n",
         3000000000u, 255, 255, 255, 8, 1ul << 40, -(1ll << 50), (size_t)12345,
         300, 70000);
  printf("[%f] [%.2f] [%10.3f] [%e] [%g] [%G] [%a]\n", 3.14159, 2.5, -1.0,
         12345.678, 0.0001, 1e20, 1.0);
  printf("[%c] [%s] [%.3s] [%10s] [%-10s] [%s] [%s]\n", 'x', "str", "abcdef",
         "right", "left", Local, (char *)0);
  printf("[%*d] [%-*d] [%.*f] [%%] [%5.1s]\n", 6, 1, 6, 2, 3, 1.23456, "xyz");
  char Small[8], Big[64];
  int Full = snprintf(Small, sizeof(Small), "%s-%d", "truncated", 12345);
  sprintf(Big, "[%s|%03d|%.1f]", "sprintf", 7, 2.25);
  printf("snprintf %d [%s] %s\n", Full, Small, Big);
  // Longer than the stack buffer: packed into a malloc'ed one.
  char Long[3001];
  for (int I = 0; I < 3000; ++I)
    Long[I] = 'A' + I % 26;
  Long[3000] = 0;
  printf("long [%s] %d\n", Long, 77);
  char Copy[3100];
  printf("copied %d\n", snprintf(Copy, sizeof(Copy), "<%s>", Long));
  puts(Copy + 2990);
  fprintf(stderr, "to stderr %d\n", 7);
  return 0;
}
