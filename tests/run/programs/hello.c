// The first program: one lane prints a line and main's value is the exit code.
#include <stdio.h>

int main(void) {
  printf("Hello, world!\n");
  return 0;
}
