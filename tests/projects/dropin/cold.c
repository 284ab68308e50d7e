/* Code whose native form -disable-O0-optnone would change: a cold
 * function (optsize, alignment), a tiny one before it, a static inline
 * one, a loop. */
#include <stdio.h>
#include <stdlib.h>

int counter;
void tick(void) { counter++; }

__attribute__((cold)) void fail(const char *msg) {
  fprintf(stderr, "%s\n", msg);
  exit(1);
}

static inline int square(int x) { return x * x; }

int main(int argc, char **argv) {
  if (argc > 5)
    fail("too many arguments");
  int s = 0;
  for (int i = 0; i < argc * 10; i++)
    s += square(i);
  tick();
  printf("%d %d\n", s, counter);
  return 0;
}
