// Never ends: loom run --timeout stops it.
#include <stdio.h>

int main(void) {
  puts("running forever");
  for (volatile int Spin = 1; Spin;)
    ;
  return 0;
}
