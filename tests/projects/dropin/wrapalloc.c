/* --wrap=malloc,--wrap=realloc,--wrap=free of libc's allocator: the
 * wrappers call __real_malloc, __real_realloc and __real_free, which the
 * linker resolves to libc's; the derivative's own buffers (the loop's
 * records) go through the wrappers too. use(x) = x^n + 3 with n read at
 * run time. */
#include <stdio.h>
#include <stdlib.h>

double __enzyme_autodiff(void *, ...);
void *__real_malloc(size_t n);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);

static long allocations;
void *__wrap_malloc(size_t n) { allocations++; return __real_malloc(n); }
void *__wrap_realloc(void *p, size_t n) { allocations++; return __real_realloc(p, n); }
void __wrap_free(void *p) { __real_free(p); }

volatile int power = 4;

__attribute__((noinline)) double use(double x) {
  int n = power;
  double *t = malloc(sizeof *t);
  *t = 1;
  for (int i = 0; i < n; i++) *t = *t * x;
  double s = *t + 3;
  free(t);
  return s;
}

int main(void) {
  double v = use(3), g = __enzyme_autodiff((void *)use, 3.0);
  if (allocations < 2) {
    fprintf(stderr, "the allocations did not go through the wrappers (%ld)\n", allocations);
    return 1;
  }
  printf("use(3)=%.17g grad=%.17g\n", v, g);
  return 0;
}
