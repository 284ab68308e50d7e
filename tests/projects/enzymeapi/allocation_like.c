/* __enzyme_allocation_like: a bump allocator over a static buffer, its size
 * argument and its deallocator. Its memory gets a zeroed shadow from the
 * same allocator, released with the deallocator in the reverse sweep. */
#include "check.h"

double __enzyme_autodiff(void *, ...);

static char arena[4096];
static int used;
static int frees;

void *bump_alloc(int *off, int size) {
  void *p = &arena[*off];
  *off += (size + 15) / 16 * 16;
  return p;
}
void bump_free(void *p, int *off) {
  (void)p;
  (void)off;
  frees++;
}
/* {allocator, index of its size argument, "deallocator's arguments" (the
 * allocator's argument 0, then -1: the allocated pointer), deallocator} */
void *__enzyme_allocation_like[4] = {(void *)bump_alloc, (void *)1, (void *)"-1,0", (void *)bump_free};

__attribute__((noinline)) double *make(double x, int n) {
  double *m = bump_alloc(&used, n * (int)sizeof(double));
  for (int i = 0; i < n; i++)
    m[i] = x * (i + 1);
  return m;
}

double sum_squares(double x) {
  double *m = make(x, 4);
  double s = 0;
  for (int i = 0; i < 4; i++)
    s += m[i] * m[i];
  return s; /* x^2 (1 + 4 + 9 + 16) */
}

int main(void) {
  double x = 1.5;
  CHECK("allocation_like gradient", __enzyme_autodiff((void *)sum_squares, x), 60 * x);
  CHECK("deallocator called for the shadow", frees, 1);
  return DONE();
}
